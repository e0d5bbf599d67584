"""``except:`` handlers, which PEP 760 proposed to disallow.

PEP 760, "No More Bare Excepts" (Pablo Galindo Salgado, Brett Cannon;
withdrawn), https://peps.python.org/pep-0760/: a bare ``except:`` catches
every exception, ``SystemExit`` and ``KeyboardInterrupt`` included, and the
PEP proposed requiring an explicit type (``except BaseException:`` says the
same).  A match is one ``except:`` handler; the count is a share of all
``except`` handlers (``except*`` handlers always name a type).
"""
import ast

import punstats


@punstats.pattern("bare_except", label="bare `except:` handlers (PEP 760)", per="ExceptHandler",
                  on=ast.ExceptHandler)
def match(node, parents):
    return node.type is None
