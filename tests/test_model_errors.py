"""``model.errors``: one ``PunstatsError`` that every error a user can fix derives from,
caught once by ``cli.main`` (one line, exit 2), while a bug keeps its traceback."""
import os
import subprocess
import sys

import pytest

from punstats import cli
from punstats.model.errors import OptionError, PunstatsError


def _error_classes():
    from punstats.cache import CacheError
    from punstats.cli.common import UsageError
    from punstats.engines.base import EngineError
    from punstats.engines.interp import InterpreterError
    from punstats.model.corpus import SourceError
    from punstats.model.kinds import PatternError
    from punstats.runs.ecosystem import RunError
    from punstats.sources.gitprocess import GitAborted, GitError
    from punstats.sources.http import FetchError
    from punstats.sources.projects import CorpusError
    from punstats.sources.pypi import Unavailable
    from punstats.store.places import PlaceError
    from punstats.store.staging import StoreError
    return [CacheError, UsageError, EngineError, InterpreterError, SourceError, PatternError, RunError,
            GitError, GitAborted, FetchError, CorpusError, Unavailable, PlaceError, StoreError, OptionError]


@pytest.mark.parametrize("error", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_for_the_user_is_a_punstats_error(error):
    assert issubclass(error, PunstatsError)


def test_a_punstats_error_is_not_a_catch_all():
    assert not issubclass(ValueError, PunstatsError) and not issubclass(OSError, PunstatsError)


def _scan_raising(monkeypatch, exc):
    """``punstats.scan`` as the command line calls it, raising ``exc``."""
    from punstats.runs import scan as scans

    def failing(*args, **kwargs):
        raise exc
    monkeypatch.setattr(scans, "scan", failing)


def test_a_punstats_error_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from punstats.store.staging import StoreError
    (tmp_path / "a.py").write_text("f(x=x)\n")
    _scan_raising(monkeypatch, StoreError("cannot store the scan:\n  no room left"))
    assert cli.main(["scan", str(tmp_path), "--no-save", "-q"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "punstats: error: cannot store the scan: no room left\n"
    assert captured.out == ""


def test_a_bare_value_error_is_a_bug_not_a_usage_error(tmp_path, monkeypatch, capsys):
    """A ``ValueError`` from punstats' own code is not worded as the user's mistake."""
    (tmp_path / "a.py").write_text("f(x=x)\n")
    _scan_raising(monkeypatch, ValueError("a bug in punstats"))
    with pytest.raises(ValueError, match="a bug in punstats"):
        cli.main(["scan", str(tmp_path), "--no-save", "-q"])
    assert "punstats: error" not in capsys.readouterr().err


def test_an_option_error_from_deep_inside_reaches_the_user_as_one_line(tmp_path):
    """An unknown test rule (``store.rules``), a number of commits (``runs.history``): exit 2, no traceback."""
    (tmp_path / "a.py").write_text("f(x=x)\n")
    for args, message in [(["scan", str(tmp_path), "--no-save", "--test-rule", "bogus"],
                           "punstats: error: unknown test rule 'bogus' (choose from"),
                          (["history", str(tmp_path), "--every", "0"],
                           "punstats: error: ")]:
        proc = subprocess.run([sys.executable, "-m", "punstats", *args], capture_output=True, text=True,
                              env=dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "cache")), cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(message) and proc.stderr.count("\n") == 1
        assert "Traceback" not in proc.stderr


def _handlers(names):
    """(module, function) of every ``except`` in ``punstats/cli`` that catches one of ``names``."""
    import ast
    folder = os.path.dirname(cli.__file__)
    found = []
    for file_name in sorted(os.listdir(folder)):
        if not file_name.endswith(".py"):
            continue
        with open(os.path.join(folder, file_name), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.ExceptHandler) and node.type is not None:
                    caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)}
                    if caught & set(names):
                        found.append((file_name, function.name))
    return sorted(set(found))


def test_punstats_errors_are_caught_once_and_no_command_catches_value_errors():
    assert _handlers(["PunstatsError"]) == [("__init__.py", "main")]
    # the one ValueError caught: int() of an option's text, in the argument type of -j and the like
    assert _handlers(["ValueError", "Exception", "KeyError", "RuntimeError"]) == [("common.py", "whole")]
