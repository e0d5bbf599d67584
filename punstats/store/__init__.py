"""The tables of a scan: DataFrames from extractions (``frames``), test rules
(``rules``), files on disk (``disk``) and whole-table reuse (``reuse``).
"""
from punstats.model.exports import lazy_exports
from punstats.store.rules import (  # noqa: F401
    DEFAULT_LONG_THRESHOLD,
    DEFAULT_TEST_RULE,
    RULE_NAMES,
    TEST_DIRS,
    TEST_FILE_PATTERNS,
    TestRule,
    parse_test_rule,
)

#: ``disk`` and ``frames`` (pandas, pyarrow) import when first used: the test rules need neither
__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.store.disk": ("FILES_FILE", "FUNCTIONS_FILE", "OCCURRENCES_FILE", "SUMMARY_FILE", "StoreError",
                            "provenance_metadata", "read", "write"),
    "punstats.store.frames": ("FILE_COLUMNS", "FUNCTION_COLUMNS", "OCCURRENCE_COLUMNS", "Tables", "apply_rule",
                              "arrow_bytes", "field_names", "from_arrow_bytes", "raw_tables"),
})
