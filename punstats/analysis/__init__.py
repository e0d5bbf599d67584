"""Statistics computed from a scan's tables: the summary (``summary``, running
totals over pyarrow chunks), breakdowns (``breakdowns``, pandas) and a registry row's
numbers in a summary (``units``: its count, what it is a share of).

The names below import lazily, so that the summary of a scan never imports pandas.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.analysis.breakdowns": ("by_directory", "compare", "kinds_comparison",
                                     "length_distribution", "split_counts", "top_level", "top_split"),
    "punstats.analysis.summary": ("KIND_COUNTERS", "TOP_N", "Totals", "call_occurrences", "long_occurrences",
                                  "outside_tests", "parameters", "percent", "scanned_files", "summarize", "top"),
})
