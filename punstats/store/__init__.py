"""The tables of a scan: the explicit schema (``schema``), DataFrames from
extractions (``frames``), test rules (``rules``), results spilled as they
arrive (``spill``), files on disk (``disk``) and whole-table reuse (``reuse``).
"""
from punstats.store.disk import (  # noqa: F401
    FILES_FILE,
    FUNCTIONS_FILE,
    OCCURRENCES_FILE,
    SUMMARY_FILE,
    Staging,
    StoreError,
    TableFiles,
    check_output,
    provenance_metadata,
    read,
    read_summary,
    read_table,
    write,
)
from punstats.store.frames import (  # noqa: F401
    FILE_COLUMNS,
    FUNCTION_COLUMNS,
    OCCURRENCE_COLUMNS,
    Tables,
    apply_rule,
    field_names,
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
