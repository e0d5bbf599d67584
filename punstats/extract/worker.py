"""The per-file work in another interpreter: a JSON-lines worker, standard library only.

Run as ``PYTHON -I /path/to/punstats/extract/worker.py``; it imports
``punstats.extract`` and ``punstats.model`` (standard library only) from the
directory holding this copy of punstats (``-I`` keeps the environment, user
site and current directory out), so any CPython >= 3.8 can run it without
punstats installed for it.  Protocol, one JSON object per line:

- ``{"op": "hello"}`` -> ``{"python": "3.12.1", "implementation": ..., "extractor_version": ...,
  "compat_version": ...}``
- ``{"op": "work", "path": P, "data": BASE64, "max_bytes": N, "modes": ["extract", "compat", "definitions"],
  "patterns": [[SOURCE, NAME, SHA256], ...], "timeout": SECONDS, "memory": MEGABYTES}`` (patterns optional:
  user patterns, loaded by the worker from their source, a file relative to the working directory or an
  importable module, each file's walk within ``timeout`` seconds; what they print goes to standard error;
  at the first request with ``memory``, the worker limits itself to that many megabytes more than it holds,
  ``model.processes.limit_memory``)
  -> ``{"extract": EXTRACTION, "compat": RESULT}`` (modes asked for only)
- end of input: the worker exits.

``handle`` is the same function in process and in the worker, so results
cannot depend on where they were computed (beyond the parser itself).
"""
from __future__ import annotations

import base64
import importlib
import json
import os
import platform
import sys
from typing import Any, Dict


def _punstats_module(name: str):
    """``punstats.<name>``; run as a script, the package is found next to this file.

    Its parent directory is appended to ``sys.path`` (after the standard
    library, so nothing there can shadow a standard module) and no bytecode is
    written into it: a foreign interpreter leaves the installed package as it was.
    """
    if not __package__:
        parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        if parent not in sys.path:
            sys.dont_write_bytecode = True
            sys.path.append(parent)
    return importlib.import_module("punstats." + name)


def hello() -> Dict[str, Any]:
    extract = _punstats_module("extract.traversal")
    compat = _punstats_module("extract.compat")
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "extractor_version": extract.EXTRACTOR_VERSION,
        "compat_version": compat.COMPAT_VERSION,
    }


def handle(path: str, data: bytes, max_bytes: int, modes, patterns=(), timeout=None) -> Dict[str, Any]:
    """The per-file results asked for, as JSON-serialisable values.  ``patterns``: user
    patterns as ``plugins.wire`` sends them, loaded here (once) and matched by ``extract``
    within ``timeout`` seconds."""
    out: Dict[str, Any] = {}
    if "extract" in modes:
        extract = _punstats_module("extract.traversal")
        records = _punstats_module("model.records")
        kinds = _punstats_module("extract.plugins").resolve([tuple(p) for p in patterns]) if patterns else ()
        out["extract"] = records.to_plain(extract.extract(path, data, max_bytes, kinds, timeout))
    if "compat" in modes:
        out["compat"] = _punstats_module("extract.compat").compat_file(data)
    if "definitions" in modes:
        out["definitions"] = _punstats_module("extract.definitions").measure(data)
    return out


def main() -> int:
    stdin = sys.stdin.buffer
    # the replies keep the real standard output; what a pattern prints goes to standard error
    stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    limited = False
    for raw in stdin:
        if not raw.strip():
            continue
        request = json.loads(raw)
        try:
            if request.get("op") == "hello":
                reply = hello()
            else:
                if request.get("memory") and not limited:
                    limited = _punstats_module("model.processes").limit_memory(request["memory"]) or True
                data = base64.b64decode(request["data"])
                reply = handle(request["path"], data, request.get("max_bytes", 20 << 20),
                               request.get("modes", ["extract"]), request.get("patterns") or (),
                               request.get("timeout"))
        except Exception as exc:  # never die on one file; say why instead
            reply = {"error": "%s: %s" % (type(exc).__name__, exc)}
        stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

