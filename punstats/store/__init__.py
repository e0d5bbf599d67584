"""The tables of a scan: DataFrames from extractions (``frames``), test rules
(``rules``), files on disk (``disk``) and whole-table reuse (``reuse``).
"""
from punstats.store.disk import (  # noqa: F401
    FILES_FILE,
    FUNCTIONS_FILE,
    OCCURRENCES_FILE,
    SUMMARY_FILE,
    StoreError,
    provenance_metadata,
    read,
    write,
)
from punstats.store.frames import (  # noqa: F401
    FILE_COLUMNS,
    FUNCTION_COLUMNS,
    OCCURRENCE_COLUMNS,
    Tables,
    apply_rule,
    arrow_bytes,
    field_names,
    from_arrow_bytes,
    raw_tables,
)
from punstats.store.rules import (  # noqa: F401
    DEFAULT_LONG_THRESHOLD,
    DEFAULT_TEST_RULE,
    RULE_NAMES,
    TEST_DIRS,
    TEST_FILE_PATTERNS,
    TestRule,
    parse_test_rule,
)
