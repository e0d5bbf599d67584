"""Rewriting source: ``f(x=x)`` to ``f(x=)`` and back, re-wrapping, diffs, trees.

``transform`` (``pun`` and ``expand``, both spellings), ``source`` (what the
transforms share), ``rewrap`` (which calls to join once they fit) and ``join``
(joining one call, spacing inside it), ``diff`` and ``tree`` (the runner).
"""
from punstats.rewrite.diff import unified_diff  # noqa: F401
from punstats.rewrite.source import (  # noqa: F401
    EXPAND,
    FILE_DECODE,
    FILE_ENCODE,
    FILE_FAULTS,
    FILE_NOT_WRITTEN,
    FILE_NULL,
    FILE_ROUND_TRIP,
    FILE_SYNTAX,
    FILE_UNREADABLE,
    PUN,
    SKIP_CLASS,
    SKIP_COMMENT,
    SKIP_FSTRING,
    SKIP_NOT_DELIMITED,
    Edit,
    Rewrite,
    Skipped,
    same_tree,
)
from punstats.rewrite.transform import STYLES, expand, expand_text, pun, pun_text  # noqa: F401
from punstats.rewrite.tree import Summary, rewrite_tree, summarize, write, write_back  # noqa: F401
