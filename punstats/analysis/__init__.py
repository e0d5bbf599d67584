"""Statistics computed from a scan's DataFrames: the summary and breakdowns.

The names below import (with pandas) when first used.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.analysis.breakdowns": ("KIND_ROWS", "by_directory", "compare", "kinds_comparison",
                                     "length_distribution", "split_counts", "top_level", "top_split"),
    "punstats.analysis.summary": ("KIND_COUNTERS", "TOP_N", "call_occurrences", "kinds", "long_occurrences",
                                  "outside_tests", "parameters", "percent", "scanned_files", "summarize", "top"),
})
