"""A local archive as a corpus: an sdist (``.tar.gz``, ``.zip``, ...) or a wheel (``.whl``).

``punstats scan requests-2.32.3.tar.gz`` counts the files inside the archive,
as if it had been unpacked by hand: it is unpacked by ``sources.archives``
(every refused member recorded with a reason, nothing from it run) into the
cache, once per archive content (sha256), and the corpus records the
archive's name, sha256 and what was unpacked, as ``pypi:`` corpora do.  A
wheel is a zip archive under another name.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import asdict
from typing import Optional

from punstats.model.corpus import Corpus, SourceError
from punstats.sources.archives import ARCHIVE_SUFFIXES, Limits, default_dir
from punstats.sources.pypi import sha256_of  # one way to hash an archive
from punstats.sources.trees import unpack_cached

WHEEL_SUFFIX = ".whl"


def is_archive(path: str) -> bool:
    """Whether ``path`` names a file that ``archive_corpus`` reads (by its ending)."""
    lower = path.lower()
    return os.path.isfile(path) and (lower.endswith(WHEEL_SUFFIX)
                                     or any(lower.endswith(suffix) for suffix, _ in ARCHIVE_SUFFIXES))


def corpus_name(filename: str) -> str:
    """``requests-2.32.3`` for ``requests-2.32.3.tar.gz`` and for ``requests-2.32.3-py3-none-any.whl``."""
    lower = filename.lower()
    if lower.endswith(WHEEL_SUFFIX):
        parts = filename[:-len(WHEEL_SUFFIX)].split("-")
        return "-".join(parts[:2]) if len(parts) >= 2 else parts[0]
    for suffix, _ in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return filename[:-len(suffix)] or filename
    return filename


def archive_corpus(path: str, directory: Optional[str] = None, limits: Optional[Limits] = None) -> Corpus:
    """The corpus of the archive at ``path``, unpacked into the cache (``directory``)."""
    limits = limits or Limits()
    filename = os.path.basename(path)
    try:
        sha256 = sha256_of(path)
    except OSError as exc:
        raise SourceError("cannot read %s: %s" % (filename, exc.strerror or exc)) from None
    if filename.lower().endswith(WHEEL_SUFFIX):
        unpacked = _unpack_wheel(path, sha256, directory, limits)
    else:
        unpacked = unpack_cached(path, sha256, directory, limits)
    archive = {"file": filename, "sha256": sha256, "files": unpacked.files, "bytes": unpacked.bytes,
               "limits": asdict(limits)}
    return Corpus(
        name=re.sub(r"\s+", "-", corpus_name(filename)),
        root=unpacked.root,
        source=os.path.abspath(path),
        revision="%s sha256:%s" % (filename, sha256),
        archive=archive,
        refused_members=tuple((r.member, r.reason, r.detail) for r in unpacked.refused),
    )


def _unpack_wheel(path: str, sha256: str, directory: Optional[str], limits: Limits):
    """A wheel through the zip unpacker: a link (or copy) of it under a ``.zip`` name."""
    scratch = tempfile.mkdtemp(prefix=".wheel-", dir=_existing(directory or default_dir()))
    try:
        alias = os.path.join(scratch, os.path.basename(path) + ".zip")
        try:
            os.link(path, alias)
        except OSError:
            shutil.copyfile(path, alias)
        try:
            return unpack_cached(alias, sha256, directory, limits)
        except SourceError as exc:  # the wheel named as the user named it, not as its alias
            raise SourceError(str(exc).replace(os.path.basename(alias), os.path.basename(path))) from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _existing(directory: str) -> str:
    os.makedirs(directory, exist_ok=True)
    return directory
