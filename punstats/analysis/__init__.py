"""Statistics computed from a scan's tables: the summary (``summary``, running
totals over pyarrow chunks) and breakdowns (``breakdowns``, pandas).

The names below import lazily, so that the summary of a scan never imports pandas.
"""
import importlib

_NAMES = {
    "breakdowns": ("KIND_ROWS", "by_directory", "compare", "kinds_comparison", "length_distribution",
                   "split_counts", "top_level", "top_split"),
    "summary": ("KIND_COUNTERS", "TOP_N", "Totals", "call_occurrences", "long_occurrences", "parameters",
                "percent", "scanned_files", "summarize", "top"),
}


_HOME = {name: module for module, names in _NAMES.items() for name in names}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module("punstats.analysis." + _HOME[name]), name)
    raise AttributeError("module 'punstats.analysis' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(_HOME))


__all__ = sorted(_HOME)
