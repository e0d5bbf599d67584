"""``f(x=obj.x)``: a call keyword whose value is an attribute of the keyword's name.

A match is a named keyword of an ``ast.Call`` whose value is an
``ast.Attribute`` with ``attr == arg``.  Its base (``obj``) is classified as
``self``, ``cls``, another ``name`` or any other ``expr`` (the ``base_kind``
column, and the "of which" rows).  The count is a share of the calls' named
keyword arguments.
"""
import ast

import punstats
from punstats.patterns.built_in.call import named_and_punnable

_PARTS = (("self", "`f(x=self.x)`"), ("cls", "`f(x=cls.x)`"), ("name", "`f(x=name.x)`"),
          ("expr", "`f(x=<expr>.x)`"))

_PART_DOC = ("%s: the ``attribute`` matches (``f(x=obj.x)``, a call keyword whose value is an attribute of "
             "the keyword's name) whose base is classified as ``%s`` (``self``, ``cls``, another name, or any "
             "other expression). A share of the calls' named keyword arguments.")


def base_kind(base):
    """``self`` or ``cls`` for those names, ``name`` for another name, ``expr`` for anything else."""
    if type(base) is ast.Name:
        return base.id if base.id in ("self", "cls") else "name"
    return "expr"


@punstats.pattern("attribute", label="`f(x=obj.x)`", per="keywords", on=ast.Call, context=True,
                  columns=("attribute",),
                  rows=tuple(punstats.row("attribute_" + part, "of which " + label, "keywords", part_of="attribute",
                                          doc=_PART_DOC % (label.replace("`", "``"), part))
                             for part, label in _PARTS))
def match(node, context):
    keywords = node.keywords
    if not keywords:  # most calls: a test first is cheaper than an empty comprehension
        return
    found = [kw for kw in keywords
             if kw.arg is not None and type(kw.value) is ast.Attribute and kw.value.attr == kw.arg]
    if not found:
        return
    named, punnable = named_and_punnable(node)
    callee = context.text(node.func)
    for kw in found:
        base = kw.value.value
        context.record(kw, kw.arg, "attribute", node, callee, named, punnable, base=base, base_kind=base_kind(base))
    context.counts["attribute"] += len(found)
