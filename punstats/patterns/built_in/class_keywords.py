"""``class A(metaclass=metaclass)``: a class-definition keyword whose value is the name it names.

A match is a named keyword of an ``ast.ClassDef`` whose value is an
``ast.Name`` with ``id == arg``; its row's "call" is the class definition
(``callee``: the class's name).  The count is a share of class keywords.
"""
import ast

import punstats
from punstats.patterns.built_in.call import is_punnable


@punstats.pattern("class", label="`class A(x=x)` class keywords", per="class_keywords", on=ast.ClassDef,
                  context=True, columns=("class_keywords", "class_punnable"))
def match(node, context):
    named = [kw for kw in node.keywords if kw.arg is not None]
    if not named:
        return
    puns = [kw for kw in named if is_punnable(kw)]
    context.counts["class_keywords"] += len(named)
    context.counts["class_punnable"] += len(puns)
    for kw in puns:
        context.record(kw, kw.arg, "class", node, node.name, len(named), len(puns))
