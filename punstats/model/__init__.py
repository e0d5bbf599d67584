"""The one vocabulary: records, statuses, kinds, limits and the corpus.

Every stage speaks in these terms and defines none of its own.  Standard
library only and Python 3.8 syntax, so that a worker under any interpreter
(``--python``) can import it.  The names below import when first used.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.model.corpus": ("Corpus", "SourceError"),
    "punstats.model.discovery": ("Candidate", "Discovery"),
    "punstats.model.errors": ("NoPythonFilesWarning", "OptionError", "PunstatsError", "PunstatsWarning"),
    "punstats.model.kinds": ("BASE_CLS", "BASE_EXPR", "BASE_NAME", "BASE_SELF", "KIND_ATTRIBUTE", "KIND_CALL",
                             "KIND_CLASS", "KIND_DICT_LITERAL", "KIND_NEAR_MISS", "Kind",
                             "PatternError", "Registry", "UNITS", "pattern"),
    "punstats.model.limits": ("DEFAULT_MAX_BYTES",),
    "punstats.model.records": ("Extraction", "FileRecord", "FunctionShape", "Occurrence", "count_lines", "failure",
                               "from_plain", "to_plain"),
    "punstats.model.statuses": ("BROKEN_LINK", "DECODE_ERROR", "DIRECTORY", "NOTEBOOK_ERROR", "NOT_PYTHON",
                                "NOT_REGULAR", "NULL_BYTES", "OK",
                                "OUTSIDE_ROOT", "SKIPPED_STATUSES", "SUBMODULE", "SYMLINK", "SYMLINK_LOOP",
                                "SYNTAX_ERROR", "TOO_DEEP", "TOO_LARGE", "UNREADABLE"),
})
