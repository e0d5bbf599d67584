"""``f(x=x)``: a keyword argument of a call whose value is the name it names (the headline).

The definition: an ``ast.keyword`` of an ``ast.Call`` whose ``arg`` is not
None and whose ``value`` is an ``ast.Name`` with ``id == arg``.  The count is
a share of the calls' named keyword arguments.  ``dict(x=x)`` (the callee is
the plain name ``dict``) is a row flagged ``dict_call`` and counted apart as
well.  Per file it also keeps the calls with at least one such argument.
"""
import ast

import punstats


def is_punnable(kw):
    """The definition: a named keyword whose value is the ``Name`` it names."""
    return kw.arg is not None and type(kw.value) is ast.Name and kw.value.id == kw.arg


def named_and_punnable(node):
    """(named keyword arguments, punnable ones) of the call ``node``."""
    named = punnable = 0
    for kw in node.keywords:
        arg = kw.arg
        if arg is not None:
            named += 1
            value = kw.value
            if type(value) is ast.Name and value.id == arg:
                punnable += 1
    return named, punnable


@punstats.pattern("call", label="`f(x=x)` (the headline)", per="keywords", on=ast.Call, context=True,
                  columns=("punnable", "dict_call_punnable", "calls_with_punnable"),
                  rows=(punstats.row("dict_call_punnable", "of which `dict(x=x)`", "keywords", part_of="call",
                                     doc="``dict(x=x)``: the ``call`` matches (``f(x=x)``) whose callee is the plain "
                                         "name ``dict``, building a dict whose key is the name of its value. Part of "
                                         "the headline count; a share of the calls' named keyword arguments."),))
def match(node, context):
    keywords = node.keywords
    if not keywords:  # most calls: a test first is cheaper than an empty comprehension
        return
    puns = [kw for kw in keywords if is_punnable(kw)]
    if not puns:
        return
    named = sum(1 for kw in keywords if kw.arg is not None)
    func = node.func
    dict_call = type(func) is ast.Name and func.id == "dict"
    callee = context.text(func)
    for kw in puns:
        context.record(kw, kw.arg, "call", node, callee, named, len(puns), dict_call=dict_call)
    counts = context.counts
    counts["punnable"] += len(puns)
    counts["calls_with_punnable"] += 1
    if dict_call:
        counts["dict_call_punnable"] += len(puns)
