"""Discovering the files of a git revision: its tree, in the order and with the
skip rules of a directory walk (``punstats.discover.tree``).
"""
from __future__ import annotations

import contextlib
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from punstats.discover.tree import DEFAULT_EXTENSIONS, excluded_name
from punstats.model.discovery import Candidate, Discovery, Threshold
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.statuses import SUBMODULE, SYMLINK, TOO_LARGE, UNREADABLE
from punstats.sources.git import (
    MODE_SUBMODULE,
    MODE_SYMLINK,
    BlobReader,
    GitAborted,
    GitError,
    TreeEntry,
    blob_sizes,
    list_tree,
    text_of,
)
from punstats.sources.local import printable


def excluded_reason_for(parts: Sequence[str], venv_dirs: frozenset) -> Optional[Tuple[str, str]]:
    """(reason, directory) when a path lies under a directory a directory scan would skip."""
    for i, name in enumerate(parts[:-1]):
        directory = "/".join(parts[: i + 1])
        reason = excluded_name(name) or ("environment" if directory in venv_dirs else None)
        if reason:
            return reason, directory
    return None


def discover_git(gitdir: str, commit: str, extensions: Tuple[str, ...] = DEFAULT_EXTENSIONS,
                 max_bytes: int = DEFAULT_MAX_BYTES, exclude_dirs: bool = True, subdir: str = "",
                 with_data: bool = True, threshold: Optional[Threshold] = None) -> Discovery:
    """The candidates of a commit, like ``discover.discover`` for a directory.

    Candidates carry their bytes (``data``) read from the object store, so no
    worker needs git.  With ``with_data=False`` they carry the blob id in
    ``location`` (``git:<oid>``) and nothing is read.  ``threshold`` (see
    ``model.discovery.Threshold``) is heard before any blob is read.
    """
    prefix = subdir.strip("/") + "/" if subdir else ""
    wanted, candidates, skipped_dirs = select_entries(list_tree(gitdir, commit, subdir), prefix, extensions,
                                                      exclude_dirs)
    if threshold is not None and len(wanted) + len(candidates) >= threshold[0]:
        threshold[1](threshold[0])
    candidates += read_entries(gitdir, wanted, prefix, max_bytes, with_data)
    candidates.sort(key=lambda c: c.path)  # the order discover.discover gives a directory
    # the root as text (undecodable bytes escaped), as a directory's: it is recorded and a cache key
    root = printable(gitdir if not subdir else "%s:%s" % (gitdir, subdir.strip("/")))
    return Discovery(root, tuple(candidates), {k: len(v) for k, v in sorted(skipped_dirs.items())})


def venv_dirs_of(paths: Iterable[str], prefix: str = "") -> frozenset:
    """The directories (below ``prefix``) holding a ``pyvenv.cfg``: environments, skipped."""
    return frozenset(path[len(prefix):].rpartition("/")[0] for path in paths if path.endswith("/pyvenv.cfg"))


def select_entries(entries: List[TreeEntry], prefix: str, extensions: Tuple[str, ...], exclude_dirs: bool,
                   venv_dirs: Optional[frozenset] = None) -> Tuple[List[TreeEntry], List[Candidate], Dict[str, set]]:
    """The entries to read, the candidates known without reading (submodules), and the
    directories skipped (reason -> their paths); ``venv_dirs``: the tree's environments
    (default: those ``entries`` hold)."""
    if venv_dirs is None:
        venv_dirs = venv_dirs_of((e.path for e in entries), prefix)
    venv_dirs = venv_dirs if exclude_dirs else frozenset()
    skipped_dirs: Dict[str, set] = {}
    wanted: List[TreeEntry] = []
    candidates: List[Candidate] = []
    for entry in entries:
        rel = entry.path[len(prefix):]
        excluded = excluded_reason_for(rel.split("/"), venv_dirs) if exclude_dirs else None
        if excluded:
            skipped_dirs.setdefault(excluded[0], set()).add(excluded[1])
        elif entry.mode == MODE_SUBMODULE:
            if rel.endswith(extensions):
                candidates.append(Candidate(rel, "", 0, SUBMODULE, "submodule at %s, not followed" % entry.oid))
            else:
                skipped_dirs.setdefault("submodule", set()).add(rel)
        elif rel.endswith(extensions):
            wanted.append(entry)
    return wanted, candidates, skipped_dirs


def read_entries(gitdir: str, wanted: List[TreeEntry], prefix: str, max_bytes: int, with_data: bool,
                 reader: Optional[BlobReader] = None, known: Optional[Dict[str, int]] = None) -> List[Candidate]:
    """The candidates of the wanted entries: links and blobs over the cap recorded, the
    others with their bytes (``with_data``) or their blob id only; ``reader``: an open
    ``BlobReader`` to read with (else one is started when something must be read); ``known``:
    sizes of blobs asked of git already (by a history, for many revisions at once)."""
    known = known or {}
    oids = sorted({e.oid for e in wanted if e.oid not in known})
    sizes = {e.oid: known[e.oid] for e in wanted if e.oid in known}
    if oids:
        sizes.update(reader.sizes(oids) if reader is not None else blob_sizes(gitdir, oids))
    candidates: List[Candidate] = []
    readable = []
    for entry in wanted:
        rel = entry.path[len(prefix):]
        size = sizes.get(entry.oid, 0)
        if entry.mode == MODE_SYMLINK:
            readable.append((rel, entry, size, SYMLINK))
        elif size > max_bytes:
            candidates.append(Candidate(rel, "git:" + entry.oid, size, TOO_LARGE,
                                        "%d bytes, over the cap of %d" % (size, max_bytes)))
        else:
            readable.append((rel, entry, size, ""))
    if not readable or not (with_data or any(status for _, _, _, status in readable)):
        return candidates + [Candidate(rel, "git:" + entry.oid, size) for rel, entry, size, _ in readable]
    with contextlib.ExitStack() as stack:
        reader = reader or stack.enter_context(BlobReader(gitdir))
        for rel, entry, size, status in readable:
            if status == SYMLINK:
                target = text_of(reader.read(entry.oid))
                candidates.append(Candidate(rel, "", size, SYMLINK, "link to %s, not followed" % target))
            elif with_data:
                try:
                    data = reader.read(entry.oid)
                except GitAborted:  # git stopped answering: the run cannot go on
                    raise
                except GitError as exc:  # e.g. an object missing from a partial clone
                    candidates.append(Candidate(rel, "git:" + entry.oid, size, UNREADABLE, str(exc)))
                    continue
                candidates.append(Candidate(rel, "git:" + entry.oid, size, data=data))
            else:
                candidates.append(Candidate(rel, "git:" + entry.oid, size))
    return candidates

