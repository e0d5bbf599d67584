"""``punstats.patterns.bare_except`` (PEP 760): every ``except:`` handler, checked against a count
of tokens (the keyword ``except`` directly followed by ``:``) over the standard library."""
import tokenize

import patternwalk


def token_count(data):
    toks = patternwalk.tokens(data)
    return sum(1 for tok, after in zip(toks, toks[1:])
               if tok.type == tokenize.NAME and tok.string == "except"
               and after.type == tokenize.OP and after.string == ":")


CASES = [
    ("try:\n    f()\nexcept:\n    pass\n", [3]),
    ("try:\n    f()\nexcept ValueError:\n    pass\nexcept :  # all\n    raise\n", [5]),
    ("try:\n    f()\nexcept (A, B):\n    pass\nexcept Exception as e:\n    pass\n", []),
    ("def f():\n    def g():\n        try: h()\n        except: return\n    return g\n", [4]),
    ("try:\n    f()\nexcept* ValueError:\n    pass\n", []),
    ("s = 'except:'\n# except:\n", []),
    ("try:\n    f()\nexcept \\\n  :\n    pass\n", [3]),
]


class TestPattern(patternwalk.ShippedPatternTests):
    name = "bare_except"
    count = staticmethod(token_count)
    cases = CASES
    at_least = 100
