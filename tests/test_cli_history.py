"""``punstats history``'s window (cli/history.py): ``--last N``, a ``--rev-range`` without ``..``,
``--last`` beside another start, and dates git does not understand: each one line, exit 2,
nothing stored (issue 27)."""
import json

import pytest
from gitrepo import commit, init

from punstats.cli import main


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Five commits, one a month, each adding one f(x=x); (path, commit ids, oldest first)."""
    root = tmp_path_factory.mktemp("window") / "repo"
    init(root)
    shas = [commit(root, {"m%d.py" % n: "f(x=x)\n"}, date="2023-%02d-10T12:00:00+00:00" % n) for n in range(1, 6)]
    return str(root), shas


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_last_n_walks_the_newest_n_first_parent_commits(repo, tmp_path, capsys):
    root, shas = repo
    status, out, err = run(capsys, "history", root, "--last", "3", "--every", "commit", "--json", "-q",
                           "-j", "1", "-o", str(tmp_path / "h"))
    assert (status, err) == (0, "")
    rows = json.loads(out)
    assert [row["commit"] for row in rows] == shas[-3:]
    assert [row["punnable"] for row in rows] == [3, 4, 5]


def test_last_n_ends_at_until(repo, tmp_path, capsys):
    root, shas = repo
    status, out, _ = run(capsys, "history", root, "--last", "2", "--until", "2023-03-31", "--every", "commit",
                         "--json", "-q", "-j", "1", "-o", str(tmp_path / "h"))
    assert status == 0 and [row["commit"] for row in json.loads(out)] == shas[1:3]


@pytest.mark.parametrize("options, message", [
    (["--rev-range", "HEAD~3"], "--rev-range takes A..B: HEAD~3 alone would walk every commit up to it; "
                                "write HEAD~3..HEAD, or --last 3"),
    (["--rev-range", "main"], "--rev-range takes A..B: main alone would walk every commit up to it; "
                              "write main..HEAD, or --last N"),
    (["--last", "2", "--rev-range", "HEAD~3..HEAD"],
     "--last 2 counts back from the newest commit: give it or --rev-range, not both"),
    (["--last", "2", "--since", "2023-01-01"],
     "--last 2 counts back from the newest commit: give it or --since, not both"),
    (["--last", "0"], "argument --last: expected a number of at least 1, got 0"),
    (["--since", "last tuesday-ish"],
     "--since 'last tuesday-ish': git reads no date from 'ish' and would skip it "
     "(e.g. 2024-01-31, '2024-01-31 12:00', '3 months ago' or 'last tuesday')"),
    (["--until", "garbage"],
     "--until 'garbage' is not a date git understands "
     "(e.g. 2024-01-31, '2024-01-31 12:00', '3 months ago' or 'last tuesday')"),
])
def test_a_window_that_selects_other_commits_than_meant_is_refused(repo, options, message, tmp_path, capsys,
                                                                     monkeypatch):
    root, _ = repo
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "history", root, "-q", *options) == (2, "", "punstats: error: %s\n" % message)
    assert list(tmp_path.iterdir()) == []  # nothing stored, not even the default data/ folder


def test_a_range_and_a_known_date_still_walk(repo, tmp_path, capsys):
    root, shas = repo
    status, out, _ = run(capsys, "history", root, "--rev-range", "HEAD~3..HEAD", "--since", "2023-04-01",
                         "--every", "commit", "--json", "-q", "-j", "1", "-o", str(tmp_path / "h"))
    assert status == 0 and [row["commit"] for row in json.loads(out)] == shas[3:]


def test_a_repository_in_a_folder_not_named_in_utf8_is_walked(tmp_path, monkeypatch, capsys):
    """Its name is escaped as a scan's (``r%5C%E9``); its path is recorded as text, not a traceback."""
    import os
    root = tmp_path / os.fsdecode(b"r\\\xe9")
    init(root)
    commit(root, {"a.py": "f(x=x)\n"})
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "history", os.fsdecode(b"r\\\xe9"), "-q", "-j", "1", "--no-cache")
    assert status == 0 and "stored: data/r%5C%E9-history/history.parquet" in out
    with open(tmp_path / "data" / "r%5C%E9-history" / "history.json", encoding="utf-8") as handle:
        assert json.load(handle)["repo"] == "r\\\\xe9"
    status, out, err = run(capsys, "scan", os.fsdecode(b"r\\\xe9"), "--rev", "HEAD", "-q", "-j", "1", "--no-save")
    assert status == 0 and "r%5C%E9@" in out
