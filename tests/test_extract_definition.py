"""``extract/definition.py``: a matcher given as a value is named by what defines it."""
import ast
import functools

from punstats.extract.definition import digest


def defined(text, name="match", scope=None):
    """A function defined by ``exec`` in a module that has no file."""
    namespace = dict(scope or {}, __name__="punstats_test_no_file")
    exec(text, namespace)  # noqa: S102 -- test code
    return namespace[name]


def test_the_same_code_is_the_same_digest_and_other_code_another():
    returns = "def match(node, parents):\n    return isinstance(node, ast.Return)\n"
    one, two = defined(returns, scope={"ast": ast}), defined("\n\n" + returns, scope={"ast": ast})
    assigns = defined(returns.replace("Return", "Assign"), scope={"ast": ast})
    assert digest(one) == digest(two) != digest(assigns) != ""
    assert digest(lambda n, p: n) != digest(lambda n, p: p)


def test_defaults_closures_and_the_globals_named_count():
    def made(kind):
        return lambda node, parents: isinstance(node, kind)

    assert digest(made(ast.Return)) != digest(made(ast.Assign))
    one, two = (defined("def match(n, p, k=%d):\n    return k\n" % k) for k in (1, 2))
    assert digest(one) != digest(two)
    text = "def match(n, p):\n    return helper(n)\n"
    first = defined(text, scope={"helper": defined("def helper(n):\n    return 1\n", "helper")})
    second = defined(text, scope={"helper": defined("def helper(n):\n    return 2\n", "helper")})
    assert digest(first) != digest(second)
    assert digest(functools.partial(made(ast.Return), 1)) != digest(functools.partial(made(ast.Return), 2))


class Stateful:
    def __init__(self, kind):
        self.kind = kind

    def __call__(self, node, parents):
        return isinstance(node, self.kind)


def test_what_cannot_be_described_has_no_digest():
    assert digest(Stateful(ast.Return)) == ""  # only its address says which one it is
    assert digest(defined("def match(n, p):\n    return thing\n", scope={"thing": object()})) == ""

    class BadRepr:
        def __repr__(self):
            raise RuntimeError("no")

    assert digest(defined("def match(n, p):\n    return thing\n", scope={"thing": BadRepr()})) == ""
    assert digest(defined("def match(n, p):\n    return match(n, p)\n")) != ""  # naming itself
