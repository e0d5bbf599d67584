"""Unpacked trees in the downloads folder: one per archive, limits and files written.

``unpack_cached`` unpacks an archive (``sources.archives.unpack``) into
``<sha256>/<tree_name>/src`` beside it, once: the tree is renamed into place
only when complete, with its manifest (``unpack.json``: counts, refusals), so
two scans at once or a scan killed midway never leave a half-unpacked tree
that looks finished; later calls read the manifest.  A tree of only the files a
scan reads (``only``: their endings, ``sources.unwritten``) has a name of its own.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from typing import Callable, Optional, Tuple

from punstats.model import jsondata
from punstats.sources.archives import MANIFEST, Limits, Refusal, Unpacked, default_dir, unpack

#: What unpacks a downloaded archive: ``unpack_cached``'s arguments and result (an ecosystem run
#: runs it in processes of its own, ``runs.unpacking``).
Unpacker = Callable[[str, str, Optional[str], Optional[Limits], Tuple[str, ...]], Unpacked]


def tree_name(limits: Limits, only: Tuple[str, ...] = ()) -> str:
    """The folder of an archive's tree unpacked under ``limits``, of only the files ending in ``only``."""
    if not only:
        return "tree-" + limits.key
    return "tree-%s-only-%s" % (limits.key, hashlib.sha256(" ".join(only).encode()).hexdigest()[:8])


def unpack_cached(archive: str, sha256: str, directory: Optional[str] = None,
                  limits: Optional[Limits] = None, only: Tuple[str, ...] = ()) -> Unpacked:
    """``unpack`` into the cache, once per archive, limits and ``only``; later calls read the manifest."""
    limits = limits or Limits()
    parent = os.path.join(directory or default_dir(), sha256)
    final = os.path.join(parent, tree_name(limits, only))
    manifest = os.path.join(final, MANIFEST)
    if not os.path.isfile(manifest):
        os.makedirs(parent, exist_ok=True)
        partial = tempfile.mkdtemp(dir=parent, prefix=".partial-")
        try:
            result = unpack(archive, os.path.join(partial, "src"), limits, only)
            with open(os.path.join(partial, MANIFEST), "w", encoding="utf-8") as handle:
                json.dump({"files": result.files, "bytes": result.bytes, "limits": asdict(limits),
                           "refused": [asdict(r) for r in result.refused],
                           "unwritten_top": result.unwritten_top}, handle, indent=1)
            try:
                os.rename(partial, final)
            except OSError:  # another scan finished first: use its tree
                if not os.path.isfile(manifest):
                    raise
        finally:
            if os.path.isdir(partial):
                shutil.rmtree(partial, ignore_errors=True)
    with open(manifest, encoding="utf-8") as handle:
        saved = jsondata.load(handle)
    return Unpacked(os.path.join(final, "src"), saved["files"], saved["bytes"],
                    tuple(Refusal(**r) for r in saved["refused"]), saved.get("unwritten_top", 0))
