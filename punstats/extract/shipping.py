"""User patterns sent by their source: what the Dask engine gives its workers.

A Dask worker may run on another machine, where the pattern file a scan was
given does not exist, or holds other code.  ``ship`` gives each pattern as
(source, name, sha256, the path and bytes of the file defining it): the file
itself for ``--pattern FILE.py``, the module's file for ``module:name``, a
module or an installed plugin.  ``receive``, on the worker, checks those
bytes against the sha256 the scan started with (and records), and runs them
as a module of their own, once per process; what they import must be
installed there.  A worker therefore never counts with code other than the
scan recorded.  A pattern not named by its file's digest (a function given
from Python, ``punstats.scan(patterns=[match])``, or a file edited since it
was loaded) cannot travel so: ``ship`` refuses it in one line.  Standard
library only, Python 3.8 syntax.
"""
from __future__ import annotations

import hashlib
import sys
import threading
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Tuple

from punstats.extract.plugins import run_source
from punstats.model.kinds import Kind, PatternError

#: What a worker is given of each pattern: (source, name, sha256, defining file's path, its bytes).
Shipped = Tuple[str, str, str, str, bytes]

#: Why a pattern cannot be sent by its source.
NOT_SHIPPABLE = ("pattern %r cannot be sent to the Dask workers: %s; the Dask engine sends a pattern as "
                 "its file's source, so give it as --pattern FILE.py or module:name")

#: Patterns received in this process, by (source, sha256).
_RECEIVED: Dict[Tuple[str, str], List[Kind]] = {}
_LOCK = threading.Lock()


def ship(kinds: Sequence[Kind]) -> Tuple[Shipped, ...]:
    """What a worker needs to load ``kinds`` again without their files; ``PatternError`` for one
    that cannot be sent so."""
    return tuple((kind.source, kind.name, kind.sha256) + _defining_file(kind) for kind in kinds)


def _defining_file(kind: Kind) -> Tuple[str, bytes]:
    """(path, bytes) of the file that defines ``kind``'s matcher, holding what the scan loaded."""
    module = sys.modules.get(getattr(kind.matcher, "__module__", "") or "")
    path = getattr(module, "__file__", None) or ""
    data = _read(path) if path else None
    if data is None:
        raise PatternError(NOT_SHIPPABLE % (kind.name, "it has no file (a function given from Python?)"))
    if hashlib.sha256(data).hexdigest() != kind.sha256:
        raise PatternError(NOT_SHIPPABLE % (kind.name, "%s does not hold what the scan loaded (a function "
                                            "given from Python, or a file edited since)" % path))
    return path, data


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def receive(shipped: Sequence[Shipped]) -> Tuple[Kind, ...]:
    """The patterns ``ship`` sent, loaded here from their bytes (once per process); a one-line
    ``PatternError`` for bytes whose digest is not the one sent, or that do not load."""
    found = []
    for source, name, digest, path, data in shipped:
        kinds = [kind for kind in _received(source, digest, path, data) if kind.name == name]
        if not kinds:
            raise PatternError("pattern %s, as the Dask worker received it, defines no pattern %r" % (source, name))
        found.append(kinds[0])
    return tuple(found)


def _received(source: str, digest: str, path: str, data: bytes) -> List[Kind]:
    with _LOCK:
        if (source, digest) not in _RECEIVED:
            got = hashlib.sha256(data).hexdigest()
            if got != digest:
                raise PatternError("pattern %s: the source the Dask worker received has sha256 %s, not the "
                                   "scan's %s; not loaded" % (source, got[:12], digest[:12]))
            kinds = run_source(path, data, "punstats_shipped_%s" % digest[:16])
            _RECEIVED[(source, digest)] = [replace(kind, source=source) for kind in kinds]
        return list(_RECEIVED[(source, digest)])
