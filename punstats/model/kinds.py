"""Occurrence kinds (the ``kind`` column) and attribute base kinds.

Only ``call`` rows are the headline count; the others are related
patterns recorded by the same pass (``punstats.extract.traversal``).
"""
from __future__ import annotations

KIND_CALL = "call"  # f(x=x): the headline


KIND_CLASS = "class"  # class A(metaclass=metaclass)


KIND_ATTRIBUTE = "attribute"  # f(x=<expr>.x)


KIND_DICT_LITERAL = "dict_literal"  # {"x": x}


KIND_NEAR_MISS = "near_miss"  # f(x=_x), f(x_=x): equal once leading/trailing "_" are stripped


# Base of an ``attribute`` occurrence's value.
BASE_SELF, BASE_CLS, BASE_NAME, BASE_EXPR = "self", "cls", "name", "expr"

