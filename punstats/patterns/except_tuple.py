"""``except (A, B):`` without ``as``: what PEP 758 lets be written ``except A, B:``.

PEP 758, "Allow except and except* expressions without parentheses" (Pablo
Galindo Salgado, Brett Cannon; final, Python 3.14),
https://peps.python.org/pep-0758/: the parentheses around several exception
types may be left out, in ``except`` and ``except*`` handlers, only when the
handler has no ``as`` clause.  A match is one such handler today: its type is
a tuple of at least two elements (``except (A,):`` and ``except (A):`` are
not: the first has one type, the second is no tuple) and it binds no name
(``except (A, B) as e:`` keeps its parentheses), and no element is starred or
an assignment expression (``except (*errors, A):`` has no unparenthesized
form: the PEP's ``except`` takes plain expressions).  The ``except*``
handlers of ``try``/``except*`` count too.  The count is a share of all
handlers.
"""
import ast

import punstats


@punstats.pattern("except_tuple", label="`except (A, B):` without `as` (PEP 758)", per="ExceptHandler",
                  on=ast.ExceptHandler)
def match(node, parents):
    if not (node.name is None and isinstance(node.type, ast.Tuple)):
        return False
    elts = node.type.elts
    return len(elts) >= 2 and not any(isinstance(elt, (ast.Starred, ast.NamedExpr)) for elt in elts)
