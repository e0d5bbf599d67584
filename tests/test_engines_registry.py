"""``engines.registry``: one row per engine; ``--engine``'s help and its errors are read
from it, and the cache wraps every engine alike (``--python`` is the ``python`` engine)."""
import subprocess
import sys

import pytest

import punstats
from punstats import cli
from punstats.cache import BlobCache
from punstats.engines.base import EngineError
from punstats.engines.registry import ENGINES, check_engine, choices, split
from punstats.runs.options import ScanOptions


def _words(text):
    return " ".join(text.split())


def test_scan_help_lists_every_engine_of_the_registry():
    out = _words(subprocess.run([sys.executable, "-m", "punstats", "scan", "--help"], capture_output=True,
                                text=True, check=True).stdout)
    for engine in ENGINES:
        assert "%s: %s" % (engine.usage, _words(engine.help)) in out
    assert [engine.usage for engine in ENGINES] == ["local", "dask[:ADDRESS]", "python:PATH"]


@pytest.mark.parametrize("command", ["scan", "corpus"])
def test_an_unknown_engine_is_one_line_listing_the_registry(command, tmp_path, capsys):
    assert cli.main([command, str(tmp_path), "--engine", "spark"]) == 2
    assert capsys.readouterr().err == ("punstats: error: argument --engine: unknown engine 'spark' "
                                       "(choose from local, dask[:ADDRESS], python:PATH)\n")


def test_the_api_refuses_an_unknown_engine_or_a_missing_argument(tmp_path):
    with pytest.raises(EngineError, match=r"unknown engine 'spark' \(choose from %s\)" % choices().replace("[", r"\[")):
        punstats.scan(str(tmp_path), engine="spark")
    with pytest.raises(EngineError, match="the python engine needs its PATH"):
        check_engine("python")
    with pytest.raises(EngineError, match="the local engine takes no argument"):
        split("local:4")


def test_python_path_is_the_python_engine():
    assert ScanOptions(python="/usr/bin/python3") == ScanOptions(engine="python:/usr/bin/python3")
    assert ScanOptions(engine="python", python="/x").engine_spec == "python:/x"
    assert ScanOptions(engine="dask:tcp://h:8786") == ScanOptions(engine="dask", scheduler="tcp://h:8786")
    assert ScanOptions().engine_spec == "local"
    with pytest.raises(EngineError, match="two different"):
        ScanOptions(engine="python:/a", python="/b")


def test_the_cache_wraps_the_python_engine(tmp_path):
    """A scan under another interpreter (here: this one, through its worker process) stores and
    reuses per-file results, and counts as the local engine does."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(3):
        (corpus / ("m%d.py" % i)).write_text("f(x=x, y=y%d)\nclass C(B, z=z):\n    pass\n" % i)
    cache = BlobCache(str(tmp_path / "cache.sqlite3"))
    first = punstats.scan(str(corpus), jobs=1, python=sys.executable, cache=cache)
    assert first.summary["cache"] == {"cached": 0, "extracted": 3, "tables_reused": False}
    (corpus / "m0.py").write_text("g(a=a)\n")
    again = punstats.scan(str(corpus), jobs=1, engine="python:" + sys.executable, cache=cache)
    assert again.summary["cache"]["cached"] == 2 and again.summary["cache"]["extracted"] == 1
    local = punstats.scan(str(corpus), jobs=1)
    assert (again.summary["keywords"], again.summary["punnable"]) == (local.summary["keywords"],
                                                                      local.summary["punnable"])
    assert list(again.occurrences["name"]) == list(local.occurrences["name"])
