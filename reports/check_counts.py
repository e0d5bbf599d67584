"""Count ``f(x=x)`` in a downloaded sdist or wheel without punstats: a check of a run's numbers.

    python reports/check_counts.py ARCHIVE [ARCHIVE ...]

Each ARCHIVE is a project's release as a run read it (``projects/<name>.json`` names
its URL and sha256 under ``summary.archive``).  Every ``.py`` member is parsed with
``ast.parse`` straight from the archive (nothing is unpacked, imported or run) and
walked with ``ast.walk``: a keyword argument is ``ast.keyword`` of an ``ast.Call``
with ``arg`` not None, and it is ``f(x=x)`` when its value is ``ast.Name`` with
``id == arg``.  Test code is decided by the documented ``components`` rule
(a directory named ``test``, ``tests``, ``testing`` or ``idle_test``, or a file
named ``test_*.py``, ``*_test.py``, ``tests.py`` or ``conftest.py``), on the path
below the archive's top directory.  Prints one line per archive: files, parsed,
keyword arguments, ``f(x=x)``, and the same outside tests.  Standard library only;
not a test (it needs the downloaded archives).
"""
from __future__ import annotations

import ast
import fnmatch
import sys
import tarfile
import warnings
import zipfile
from typing import Dict, Iterator, Tuple

TEST_DIRS = {"test", "tests", "testing", "idle_test"}
TEST_FILES = ("test_*.py", "*_test.py", "tests.py", "conftest.py")


def is_test(path: str) -> bool:
    *dirs, name = path.split("/")
    return any(d in TEST_DIRS for d in dirs) or any(fnmatch.fnmatchcase(name, p) for p in TEST_FILES)


def members(path: str) -> Iterator[Tuple[str, bytes]]:
    """(name, bytes) of each regular file of the archive."""
    if path.endswith((".zip", ".whl")):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield info.filename, archive.read(info)
    else:
        with tarfile.open(path) as archive:
            for member in archive:
                handle = archive.extractfile(member) if member.isfile() else None
                if handle is not None:
                    yield member.name, handle.read()


def counts(path: str) -> Dict[str, int]:
    total = dict.fromkeys(("files", "parsed", "keywords", "punnable", "files_nontest", "keywords_nontest",
                           "punnable_nontest"), 0)
    wheel = path.endswith(".whl")
    for name, data in members(path):
        if not name.endswith(".py"):
            continue
        total["files"] += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences and the like
                tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        total["parsed"] += 1
        keywords = punnable = 0
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg is not None:
                        keywords += 1
                        punnable += isinstance(keyword.value, ast.Name) and keyword.value.id == keyword.arg
        total["keywords"] += keywords
        total["punnable"] += punnable
        below = name if wheel else name.partition("/")[2] or name  # an sdist's files sit in one top directory
        if not is_test(below):
            total["files_nontest"] += 1
            total["keywords_nontest"] += keywords
            total["punnable_nontest"] += punnable
    return total


def main() -> None:
    for path in sys.argv[1:]:
        c = counts(path)
        print("%s: files %d, parsed %d, keyword arguments %d, f(x=x) %d; outside tests: files %d, keyword "
              "arguments %d, f(x=x) %d" % (path.rsplit("/", 1)[-1], c["files"], c["parsed"], c["keywords"],
                                            c["punnable"], c["files_nontest"], c["keywords_nontest"],
                                            c["punnable_nontest"]))


if __name__ == "__main__":
    main()
