"""The tables of a scan: the explicit schema (``schema``), DataFrames from
extractions (``frames``), test rules (``rules``), results spilled as they
arrive (``spill``), files on disk (``disk``) written beside their place and
swapped in whole (``staging``), and whole-table reuse (``reuse``).

The names below import lazily: ``store.rules`` (every command's options)
costs no pyarrow, and a scan answered from the cache no pandas.
"""
from punstats.aliases import lazy_names

_NAMES = {
    "disk": ("TableFiles", "read", "read_summary", "read_table", "write"),
    "staging": ("FILES_FILE", "FUNCTIONS_FILE", "OCCURRENCES_FILE", "SUMMARY_FILE", "Staging", "StoreError",
                "check_output"),
    "frames": ("FILE_COLUMNS", "FUNCTION_COLUMNS", "OCCURRENCE_COLUMNS", "Tables", "apply_rule",
               "field_names", "raw_tables"),
    "provenance": ("provenance_metadata",),
    "rules": ("DEFAULT_LONG_THRESHOLD", "DEFAULT_TEST_RULE", "RULE_NAMES", "TEST_DIRS",
              "TEST_FILE_PATTERNS", "TestRule", "parse_test_rule"),
}


__getattr__, __dir__, __all__ = lazy_names(__name__, _NAMES)
