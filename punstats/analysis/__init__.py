"""Statistics computed from a scan's tables: the summary (``summary``, running
totals over pyarrow chunks) and breakdowns (``breakdowns``, pandas).

The names below import lazily, so that the summary of a scan never imports pandas.
"""
from punstats.aliases import lazy_names

_NAMES = {
    "breakdowns": ("KIND_ROWS", "by_directory", "compare", "kinds_comparison", "length_distribution",
                   "split_counts", "top_level", "top_split"),
    "summary": ("KIND_COUNTERS", "TOP_N", "Totals", "call_occurrences", "long_occurrences", "parameters",
                "percent", "scanned_files", "summarize", "top"),
}


__getattr__, __dir__, __all__ = lazy_names(__name__, _NAMES)
