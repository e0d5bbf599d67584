"""The shapes of calls: no arguments, positional only, keyword only, or both.

Per file: the calls, their named keyword arguments and ``**mapping``
unpackings, how many calls take no arguments, positional arguments only
(``*args`` included), keyword arguments only (``**kw`` included) or both, how
many calls with keyword arguments have every one ``x=x``, and the most
``x=x`` arguments in one call.  No rows: counts only, each a share of calls.
The pattern is named after its first count, ``calls_no_arguments``.
"""
import ast

import punstats

_SHAPES = (("calls_positional_only", "calls with positional arguments only"),
           ("calls_keyword_only", "calls with keyword arguments only"),
           ("calls_mixed", "calls with both"),
           ("calls_all_punnable", "calls whose every keyword argument is `x=x`"))


@punstats.pattern("calls_no_arguments", label="calls without arguments", per="calls", on=ast.Call, context=True,
                  occurrence=False, columns=("calls", "keywords", "double_star", "calls_no_arguments")
                  + tuple(name for name, _ in _SHAPES) + ("max_call_punnable",),
                  rows=tuple(punstats.row(name, label, "calls") for name, label in _SHAPES)
                  + (punstats.row("max_call_punnable", "most `x=x` arguments in one call", "", pooled="max"),))
def match(node, context):
    counts = context.counts
    counts["calls"] += 1
    keywords = node.keywords
    if not keywords:
        counts["calls_positional_only" if node.args else "calls_no_arguments"] += 1
        return
    counts["calls_mixed" if node.args else "calls_keyword_only"] += 1
    named = punnable = 0
    for kw in keywords:
        arg = kw.arg
        if arg is None:
            counts["double_star"] += 1
            continue
        named += 1
        value = kw.value
        if type(value) is ast.Name and value.id == arg:
            punnable += 1
    counts["keywords"] += named
    if punnable:
        if punnable == named:
            counts["calls_all_punnable"] += 1
        if punnable > counts["max_call_punnable"]:
            counts["max_call_punnable"] = punnable
