"""``{"x": x}``: a dict display entry whose string key is the name of its value.

A match is an entry of an ``ast.Dict`` whose key is a ``str`` constant equal
to the ``id`` of its ``ast.Name`` value.  Its row's "call" is the dict
display: ``callee`` is ``{}`` and ``call_keywords`` its entries with
string-constant keys.  The count is a share of those entries.
"""
import ast

import punstats


@punstats.pattern("dict_literal", label="`{\"x\": x}` dict entries", per="dict_entries", on=ast.Dict,
                  context=True, columns=("dict_entries", "dict_literal"))
def match(node, context):
    entries = [(key, value) for key, value in zip(node.keys, node.values)
               if type(key) is ast.Constant and isinstance(key.value, str)]
    if not entries:
        return
    matches = [(key, value) for key, value in entries if type(value) is ast.Name and value.id == key.value]
    context.counts["dict_entries"] += len(entries)
    context.counts["dict_literal"] += len(matches)
    for key, value in matches:
        context.record(value, key.value, "dict_literal", node, "{}", len(entries), len(matches), start=key)
