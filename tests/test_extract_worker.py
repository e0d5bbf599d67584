"""``punstats/extract/worker.py`` as ``engines.interp`` runs it: ``PYTHON -I worker.py``, JSON lines.

The worker is started the way ``engines.interp`` starts it, from a directory
holding nothing of punstats and with an environment that points elsewhere,
and its replies are compared with the same work done in this process.
"""
import base64
import json
import os
import platform
import subprocess
import sys
import sysconfig

import pytest

from punstats.extract import compat, traversal, worker
from punstats.model.records import from_plain, to_plain

WORKER = os.path.abspath(worker.__file__)
SAMPLE = os.path.join(sysconfig.get_path("stdlib"), "json", "__init__.py")  # dumps(skipkeys=skipkeys, ...)


@pytest.fixture
def speak(tmp_path):
    """Send requests (dicts, or raw lines) to a fresh worker; its replies, one per answered line."""
    def run(*requests):
        lines = b"".join((r if isinstance(r, bytes) else json.dumps(r).encode() + b"\n") for r in requests)
        env = dict(os.environ, PYTHONPATH=str(tmp_path / "nowhere"))
        proc = subprocess.run([sys.executable, "-I", WORKER], input=lines, capture_output=True, cwd=str(tmp_path),
                              env=env, timeout=60)
        assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        return [json.loads(line) for line in proc.stdout.splitlines()]
    return run


def _work(path, data, modes=("extract", "compat"), max_bytes=20 << 20):
    return {"op": "work", "path": path, "data": base64.b64encode(data).decode(), "max_bytes": max_bytes,
            "modes": list(modes)}


def test_hello_names_the_interpreter_and_the_versions(speak):
    reply, = speak({"op": "hello"})
    assert reply == {"python": platform.python_version(), "implementation": platform.python_implementation(),
                     "executable": sys.executable, "extractor_version": traversal.EXTRACTOR_VERSION,
                     "compat_version": compat.COMPAT_VERSION}


def test_work_equals_the_same_work_in_this_process(speak):
    with open(SAMPLE, "rb") as handle:
        data = handle.read()
    reply, = speak(_work("json/__init__.py", data))
    assert sorted(reply) == ["compat", "extract"]
    assert reply["extract"] == json.loads(json.dumps(to_plain(traversal.extract("json/__init__.py", data, 20 << 20))))
    assert reply["compat"] == json.loads(json.dumps(compat.compat_file(data)))
    record = from_plain(reply["extract"], "json/__init__.py").record
    assert record.status == "ok" and record.punnable > 0


def test_only_the_modes_asked_for(speak):
    first, second = speak(_work("a.py", b"f(x=x)\n", ["extract"]), _work("a.py", b"f(x=x)\n", ["compat"]))
    assert sorted(first) == ["extract"] and sorted(second) == ["compat"]


def test_bad_source_is_a_recorded_status_and_the_worker_carries_on(speak):
    replies = speak(_work("bad.py", b"def f(:\n"), _work("nul.py", b"x = 1\0\n"), _work("big.py", b"x = 1\n" * 10,
                                                                                      max_bytes=5),
                    _work("good.py", b"f(a=a)\n"))
    records = [from_plain(r["extract"], "x.py").record for r in replies]
    assert [r.status for r in records] == ["syntax_error", "null_bytes", "too_large", "ok"]
    assert records[-1].punnable == 1


def test_a_malformed_request_is_answered_with_the_reason_and_nothing_else_is_lost(speak):
    replies = speak({"op": "work", "path": "a.py"}, b"\n", {"op": "work", "path": "a.py", "data": "a"},
                    _work("good.py", b"f(a=a)\n"), {"op": "hello"})
    assert replies[0] == {"error": "KeyError: 'data'"}
    assert list(replies[1]) == ["error"] and replies[1]["error"].startswith("Error: ")  # binascii.Error
    assert from_plain(replies[2]["extract"], "good.py").record.punnable == 1
    assert replies[3]["extractor_version"] == traversal.EXTRACTOR_VERSION
    assert len(replies) == 4  # the blank line asks nothing


def test_end_of_input_ends_the_worker(speak):
    assert speak() == []
