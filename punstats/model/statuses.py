"""File statuses: ``ok`` for a parsed file, every other one says why not.

The one list of them, for every stage (extraction, discovery, revision
reading) and every reader of the ``files`` table.
"""
from __future__ import annotations

# File statuses.  ``ok`` files were parsed; every other status says why not.
OK = "ok"


SYNTAX_ERROR = "syntax_error"


DECODE_ERROR = "decode_error"


NULL_BYTES = "null_bytes"


TOO_LARGE = "too_large"


TOO_DEEP = "too_deep"


# Statuses given here; extraction adds its own (see extract.py).
SYMLINK = "symlink"  # a link, not followed (skipped)


OUTSIDE_ROOT = "outside_root"  # a link whose target is outside the root (skipped)


DIRECTORY = "directory"  # a directory with a source-file name; its contents are walked (skipped)


SYMLINK_LOOP = "symlink_loop"


BROKEN_LINK = "broken_link"


NOT_REGULAR = "not_regular"  # FIFO, socket, device


UNREADABLE = "unreadable"


SUBMODULE = "submodule"  # a git submodule in a revision scan, not followed (skipped)


PATTERN_ERROR = "pattern_error"  # a user pattern's matcher raised on it (the error names the pattern)


PATTERN_TIMEOUT = "pattern_timeout"  # a user pattern took longer than its deadline on it (never cached)


NOTEBOOK_ERROR = "notebook_error"  # an ``.ipynb`` that is not a notebook (bad JSON, no cell list)


NOT_PYTHON = "not_python"  # a notebook whose kernel runs another language (skipped)


WORKER_DIED = "worker_died"  # the process extracting it died, also when retried (never cached)


#: Statuses of entries deliberately not scanned: not failures.
SKIPPED_STATUSES = frozenset({SYMLINK, OUTSIDE_ROOT, DIRECTORY, SUBMODULE, NOT_PYTHON})

