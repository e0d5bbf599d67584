"""Patterns punstats ships: questions other Python proposals asked of real code.

Each module here is one pattern written exactly as a user would write their
own (``import punstats``, ``@punstats.pattern(..., on=CLASSES)`` on
``match(node, parents)``), so each is also an example to copy.  Use one in a scan by its
module name::

    punstats scan ROOT --pattern punstats.patterns.except_tuple
    punstats.scan(root, patterns=["punstats.patterns.except_tuple"])

``bare_except``          ``except:`` handlers (PEP 760, no more bare excepts)
``except_tuple``         ``except (A, B):`` without ``as`` (PEP 758, ``except A, B:``)
``flatten_comprehension`` ``[y for x in xs for y in x]`` and its set, dict and
                         generator forms (PEP 798, ``[*x for x in xs]``)
``return_in_finally``    return/break/continue leaving a ``finally`` block (PEP 765)

Importing this package defines no pattern; importing one of its modules
defines that one.  The modules import only ``punstats`` (the decorator) and
the standard library, and parse as Python 3.8, so a worker under an older
interpreter can run them.
"""
