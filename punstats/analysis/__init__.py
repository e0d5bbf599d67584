"""Statistics computed from a scan's DataFrames: the summary and breakdowns.
"""
from punstats.analysis.breakdowns import (  # noqa: F401
    KIND_ROWS,
    by_directory,
    compare,
    kinds_comparison,
    length_distribution,
    split_counts,
    top_level,
    top_split,
)
from punstats.analysis.summary import (  # noqa: F401
    KIND_COUNTERS,
    TOP_N,
    call_occurrences,
    kinds,
    long_occurrences,
    outside_tests,
    parameters,
    percent,
    scanned_files,
    summarize,
    top,
)
