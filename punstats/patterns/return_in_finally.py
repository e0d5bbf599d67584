"""return, break and continue that leave a ``finally`` block (PEP 765).

PEP 765, "Disallow return/break/continue that exit a finally block" (Irit
Katriel, Alyssa Coghlan; final: Python 3.14 warns at compile time),
https://peps.python.org/pep-0765/: such a statement silently swallows the
exception the ``finally`` block was running for.  A match is a ``return``
inside a ``finally`` block with no function, lambda or class between them,
or a ``break``/``continue`` inside a ``finally`` block with no loop body
(nor function or class) between them: a ``break`` in a loop nested in the
``finally`` leaves only that loop; one in that loop's ``else`` clause leaves
the ``finally``.  ``try``/``except*`` blocks count too.  The count is a
share of lines of code, as the PEP's own study reported it.
"""
import ast

import punstats

_TRY = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _within(child, statements):
    return any(child is statement for statement in statements)


@punstats.pattern("return_in_finally", label="return/break/continue leaving `finally` (PEP 765)",
                  per="code_lines", on=(ast.Return, ast.Break, ast.Continue))
def match(node, parents):
    child = node
    for parent in reversed(parents):
        if isinstance(parent, _SCOPES):
            return False
        if isinstance(parent, _LOOPS) and not isinstance(node, ast.Return) and _within(child, parent.body):
            return False
        if isinstance(parent, _TRY) and _within(child, parent.finalbody):
            return True
        child = parent
    return False
