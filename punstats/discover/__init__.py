"""Which files a corpus holds, in what order, and why others are skipped.

``tree`` walks a directory, ``revision`` lists a git commit's tree with the
same rules, and ``read`` reads one candidate's bytes (regular files only).
The names below import when first used.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.discover.read": ("Reader", "candidate_bytes", "read_source"),
    "punstats.discover.revision": ("discover_git", "excluded_reason_for"),
    "punstats.discover.tree": ("CACHE_DIRS", "DEFAULT_EXTENSIONS", "ENVIRONMENT_DIRS", "EXTRA_EXTENSIONS", "VCS_DIRS",
                               "discover", "excluded_name", "excluded_reason", "printable"),
})
