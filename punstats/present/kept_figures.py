"""Figures kept in the cache by what they show: one drawn before is written again, not redrawn.

Drawing a figure (importing matplotlib, laying out and rendering a PNG and an
SVG) costs more than everything else of a warm run.  A figure is named by a
digest of all it shows (``figure_key``: its data, its title, its caption, the
versions of punstats and matplotlib); its files are kept in the blob cache
under that name the first time (``FIGURE_KIND``), and a later figure of the
same name is those bytes written again.  Without a cache, every figure is drawn.
"""
from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import json
import os
from typing import Any, Callable, Dict, List, Optional

from punstats import __version__
from punstats.cache import BlobCache
from punstats.store.staging import write_atomic

#: The cache's kind of a figure's files, and the version of what the entry holds.
FIGURE_KIND, FIGURE_VERSION = "figure", "1"


def figure_key(*shown: Any) -> str:
    """The name of a figure that shows ``shown`` (anything JSON can write): with the versions of
    punstats and matplotlib that draw it."""
    try:
        drawer = importlib.metadata.version("matplotlib")
    except importlib.metadata.PackageNotFoundError:
        drawer = ""
    digest = hashlib.sha256()
    _hash_json([__version__, drawer, *shown], digest, 2)
    return digest.hexdigest()


def _hash_json(value: Any, digest: Any, depth: int) -> None:
    """Feed ``digest`` the text ``json.dumps(value, sort_keys=True, default=repr)`` would give, the
    items of lists ``depth`` deep one at a time: a run's figure shows every project's record, and
    their text at once would be the largest thing the run holds."""
    if depth and isinstance(value, (list, tuple)):
        digest.update(b"[")
        for number, item in enumerate(value):
            if number:
                digest.update(b", ")
            _hash_json(item, digest, depth - 1)
        digest.update(b"]")
        return
    digest.update(json.dumps(value, sort_keys=True, default=repr).encode())


def drawn_once(draw: Callable[[str], List[str]], key: str, cache: bool = True) -> Callable[[str], List[str]]:
    """``draw`` (a figure's files into a directory; their paths) through the cache (unless not
    ``cache``): the files kept under ``key`` written into the directory when there are any, else
    drawn and kept."""
    def run(directory: str) -> List[str]:
        if not cache:
            return draw(directory)
        with BlobCache() as blobs:
            return _through(blobs, draw, key, directory)
    return run


def _through(cache: BlobCache, draw: Callable[[str], List[str]], key: str, directory: str) -> List[str]:
    """The figure ``key`` in ``directory``: its kept files written, else drawn and kept."""
    kept = _kept(cache.get_many(FIGURE_KIND, FIGURE_VERSION, "", [key]).get(key))
    if kept is not None:
        paths = [os.path.join(directory, name) for name in kept]
        for path, data in zip(paths, kept.values()):
            write_atomic(path, data)
        return paths
    paths = draw(directory)
    files = {}
    for path in paths:
        with open(path, "rb") as handle:
            files[os.path.basename(path)] = base64.b64encode(handle.read()).decode("ascii")
    cache.put_many(FIGURE_KIND, FIGURE_VERSION, "", [(key, files)])
    return paths


def _kept(value: Any) -> Optional[Dict[str, bytes]]:
    """A kept figure's files (name -> bytes), or None: none kept, or an entry not of the shape written."""
    if not isinstance(value, dict) or not value:
        return None
    try:
        files = {name: base64.b64decode(data, validate=True) for name, data in value.items()}
    except (TypeError, ValueError):
        return None
    plain = all(isinstance(name, str) and name == os.path.basename(name) and name not in ("", ".", "..")
                for name in files)
    return files if plain else None
