"""The tables of a scan: the explicit schema (``schema``), DataFrames from
extractions (``frames``), test rules (``rules``), results spilled as they
arrive (``spill``), files on disk (``disk``) and whole-table reuse (``reuse``).

The names below import lazily: ``store.rules`` (every command's options)
costs no pyarrow, and a scan answered from the cache no pandas.
"""
import importlib

_NAMES = {
    "disk": ("FILES_FILE", "FUNCTIONS_FILE", "OCCURRENCES_FILE", "SUMMARY_FILE", "Staging", "StoreError",
             "TableFiles", "check_output", "provenance_metadata", "read", "read_summary", "read_table",
             "write"),
    "frames": ("FILE_COLUMNS", "FUNCTION_COLUMNS", "OCCURRENCE_COLUMNS", "Tables", "apply_rule",
               "field_names", "raw_tables"),
    "rules": ("DEFAULT_LONG_THRESHOLD", "DEFAULT_TEST_RULE", "RULE_NAMES", "TEST_DIRS",
              "TEST_FILE_PATTERNS", "TestRule", "parse_test_rule"),
}


_HOME = {name: module for module, names in _NAMES.items() for name in names}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module("punstats.store." + _HOME[name]), name)
    raise AttributeError("module 'punstats.store' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(_HOME))


__all__ = sorted(_HOME)
