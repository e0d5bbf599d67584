"""The per-file work in another interpreter: a JSON-lines worker, standard library only.

Run as ``PYTHON -I /path/to/punstats/worker.py``; it loads its sibling
``extract.py`` and ``compat.py`` by file name (``-I`` keeps the environment,
user site and current directory out), so any CPython >= 3.8 can run it
without punstats installed.  Protocol, one JSON object per line:

- ``{"op": "hello"}`` -> ``{"python": "3.12.1", "implementation": ..., "extractor_version": ...,
  "compat_version": ...}``
- ``{"op": "work", "path": P, "data": BASE64, "max_bytes": N, "modes": ["extract", "compat"]}``
  -> ``{"extract": EXTRACTION, "compat": RESULT}`` (modes asked for only)
- end of input: the worker exits.

``handle`` is the same function in process and in the worker, so results
cannot depend on where they were computed (beyond the parser itself).
"""
from __future__ import annotations

import base64
import importlib.util
import json
import os
import platform
import sys
from typing import Any, Dict


def _load_sibling(name: str):
    """``punstats.<name>`` when importable, else the file next to this one."""
    if __package__:
        return importlib.import_module("%s.%s" % (__package__, name))
    module_name = "_punstats_" + name
    if module_name in sys.modules:
        return sys.modules[module_name]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def hello() -> Dict[str, Any]:
    extract = _load_sibling("extract")
    compat = _load_sibling("compat")
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "executable": sys.executable,
        "extractor_version": extract.EXTRACTOR_VERSION,
        "compat_version": compat.COMPAT_VERSION,
    }


def handle(path: str, data: bytes, max_bytes: int, modes) -> Dict[str, Any]:
    """The per-file results asked for, as JSON-serialisable values."""
    out: Dict[str, Any] = {}
    if "extract" in modes:
        extract = _load_sibling("extract")
        out["extract"] = extract.to_plain(extract.extract(path, data, max_bytes))
    if "compat" in modes:
        out["compat"] = _load_sibling("compat").compat_file(data)
    return out


def main() -> int:
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    for raw in stdin:
        if not raw.strip():
            continue
        request = json.loads(raw)
        try:
            if request.get("op") == "hello":
                reply = hello()
            else:
                data = base64.b64decode(request["data"])
                reply = handle(request["path"], data, request.get("max_bytes", 20 << 20),
                               request.get("modes", ["extract"]))
        except Exception as exc:  # never die on one file; say why instead
            reply = {"error": "%s: %s" % (type(exc).__name__, exc)}
        stdout.write(json.dumps(reply, ensure_ascii=True) + "\n")
        stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
