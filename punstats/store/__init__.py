"""The tables of a scan: the explicit schema (``schema``), DataFrames from
extractions (``frames``), test rules (``rules``), results spilled as they
arrive (``spill``), files on disk (``disk``) written beside their place and
swapped in whole (``staging``), whole-table reuse (``reuse``), and the labels
a reader gave to occurrences, kept beside the tables (``labels``).

The names below import lazily: ``store.rules`` (every command's options)
costs no pyarrow, and a scan answered from the cache no pandas.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.store.disk": ("TableFiles", "read", "read_summary", "read_table", "write"),
    "punstats.store.staging": ("FILES_FILE", "FUNCTIONS_FILE", "OCCURRENCES_FILE", "SUMMARY_FILE", "Staging",
                               "StoreError", "check_output"),
    "punstats.store.frames": ("FILE_COLUMNS", "FUNCTION_COLUMNS", "OCCURRENCE_COLUMNS", "Tables", "apply_rule",
                              "as_stored", "categorical", "field_names", "raw_tables"),
    "punstats.store.provenance": ("provenance_metadata",),
    "punstats.store.rules": ("DEFAULT_LONG_THRESHOLD", "DEFAULT_TEST_RULE", "RULE_NAMES", "TEST_DIRS",
                             "TEST_FILE_PATTERNS", "TestRule", "parse_test_rule"),
})
