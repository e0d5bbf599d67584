"""The one vocabulary: records, statuses, kinds, limits and the corpus.

Every stage speaks in these terms and defines none of its own.  Standard
library only and Python 3.8 syntax, so that a worker under any interpreter
(``--python``) can import it.
"""
from punstats.model.corpus import Corpus, SourceError  # noqa: F401
from punstats.model.discovery import Candidate, Discovery  # noqa: F401
from punstats.model.kinds import (  # noqa: F401
    BASE_CLS,
    BASE_EXPR,
    BASE_NAME,
    BASE_SELF,
    KIND_ATTRIBUTE,
    KIND_CALL,
    KIND_CLASS,
    KIND_DICT_LITERAL,
    KIND_NEAR_MISS,
)
from punstats.model.limits import DEFAULT_MAX_BYTES  # noqa: F401
from punstats.model.records import (  # noqa: F401
    Extraction,
    FileRecord,
    FunctionShape,
    Occurrence,
    count_lines,
    failure,
    from_plain,
    to_plain,
)
from punstats.model.statuses import (  # noqa: F401
    BROKEN_LINK,
    DECODE_ERROR,
    DIRECTORY,
    NOT_REGULAR,
    NULL_BYTES,
    OK,
    OUTSIDE_ROOT,
    SKIPPED_STATUSES,
    SUBMODULE,
    SYMLINK,
    SYMLINK_LOOP,
    SYNTAX_ERROR,
    TOO_DEEP,
    TOO_LARGE,
    UNREADABLE,
)
