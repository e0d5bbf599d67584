"""``f(x=_x)``: a call keyword whose value is a name equal to it but for underscores.

A match is a named keyword of an ``ast.Call`` whose value is an
``ast.Name`` with a different ``id`` that equals ``arg`` once leading and
trailing underscores are stripped from both (``f(x=_x)``, ``f(x_=x)``,
``f(_x=x__)``); not part of the headline.  The count is a share of the
calls' named keyword arguments.
"""
import ast

import punstats
from punstats.patterns.built_in.call import named_and_punnable


def near(arg, name):
    """Different names, equal once leading and trailing underscores are stripped from both."""
    stripped = arg.strip("_")
    return arg != name and stripped != "" and stripped == name.strip("_")


@punstats.pattern("near_miss", label="near miss `f(x=_x)`", per="keywords", on=ast.Call, context=True,
                  columns=("near_miss",))
def match(node, context):
    keywords = node.keywords
    if not keywords:  # most calls: a test first is cheaper than an empty comprehension
        return
    found = [kw for kw in keywords
             if kw.arg is not None and type(kw.value) is ast.Name and near(kw.arg, kw.value.id)]
    if not found:
        return
    named, punnable = named_and_punnable(node)
    callee = context.text(node.func)
    for kw in found:
        context.record(kw, kw.arg, "near_miss", node, callee, named, punnable)
    context.counts["near_miss"] += len(found)
