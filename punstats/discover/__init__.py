"""Which files a corpus holds, in what order, and why others are skipped.

``tree`` walks a directory, ``revision`` lists a git commit's tree with the
same rules, and ``read`` reads one candidate's bytes (regular files only).
"""
from punstats.discover.read import candidate_bytes, read_source  # noqa: F401
from punstats.discover.revision import discover_git, excluded_reason_for  # noqa: F401
from punstats.discover.tree import (  # noqa: F401
    CACHE_DIRS,
    DEFAULT_EXTENSIONS,
    ENVIRONMENT_DIRS,
    EXTRA_EXTENSIONS,
    VCS_DIRS,
    discover,
    excluded_name,
    excluded_reason,
    printable,
)
