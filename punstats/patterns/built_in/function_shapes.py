"""How functions declare their parameters: one row per definition or lambda.

Each ``def``, ``async def`` and ``lambda`` is a row of the functions table:
its positional-only, positional-or-keyword and keyword-only parameters,
whether it takes ``*args`` and ``**kwargs``, and its defaults.  Per file, the
number of definitions and lambdas.
"""
import ast

import punstats

_PARAMETERS = (("positional_only", "positional-only parameters", ""),
               ("positional_or_keyword", "positional-or-keyword parameters", ""),
               ("keyword_only", "keyword-only parameters", ""),
               ("var_positional", "functions with `*args`", "functions"),
               ("var_keyword", "functions with `**kwargs`", "functions"),
               ("defaults", "parameters with a default", ""))


@punstats.pattern("functions", label="function definitions and lambdas", per="", context=True, occurrence=False,
                  section="parameters", on=(ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda), columns=("functions",),
                  rows=tuple(punstats.row(name, label, per, "parameters") for name, label, per in _PARAMETERS))
def match(node, context):
    args = node.args
    if type(node) is ast.Lambda:
        kind, name = "lambda", "<lambda>"
    else:
        kind, name = "async def" if type(node) is ast.AsyncFunctionDef else "def", node.name
    kw_defaults = args.kw_defaults
    context.counts["functions"] += 1
    context.function(node, name, kind, len(getattr(args, "posonlyargs", ())), len(args.args), len(args.kwonlyargs),
                     args.vararg is not None, args.kwarg is not None, len(args.defaults),
                     len(kw_defaults) - kw_defaults.count(None) if kw_defaults else 0)
