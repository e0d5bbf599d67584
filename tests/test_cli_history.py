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


def _rows(**changes):
    """Three rows of a history (``runs.history.row``'s columns) following a rate pattern (per lines of
    code) and a share one (of calls); ``changes``: ``r<index>`` -> values put in that row."""
    rows = []
    for n, date in enumerate(["2023-01-02T03:04:05+02:00", "2023-02-01T00:00:00+00:00", "2024-12-31T23:59:59-05:00"]):
        rows.append({"commit": "%040x" % (n + 1), "date": date, "subject": "s", "files": 10 ** n, "parsed": 10 ** n,
                     "failed": 0, "calls": 5 * n, "keywords": 3 * n, "punnable": n, "punnable_pct": 100.0 * n / 3,
                     "punnable_nontest_pct": 12.3456 * n, "long": n, "long_nontest": 0, "files_from_cache": n,
                     "files_extracted": 12345 - n, "rate": 7 * n, "rate_nontest": n,
                     "rate_per_million_code_lines": 0.0456 * 10 ** (3 * n), "rate_nontest_per_million_code_lines":
                     float("nan"), "share": n, "share_nontest": 0, "share_pct": 100.0 / (n + 1),
                     "share_nontest_pct": 99.999})
    for index, values in changes.items():
        rows[int(index[1:])].update(values)
    return rows


@pytest.mark.parametrize("changes", [{}, {"r1": {"punnable_pct": float("nan")}},
                                     {"r0": {"date": "no date"}}, {"r2": {"files": 2.5}}])
def test_rows_are_printed_as_pandas_lays_out_their_table_without_pandas(changes, monkeypatch):
    """The rows printed without pandas are pandas' ``to_string`` of the table, whatever the subject
    (f(x=x), a rate, a share), with n/a for a share of nothing; a row pandas would lay out
    otherwise (no date, a count that is no whole number) is laid out by pandas."""
    from punstats.cli import history as cli_history
    from punstats.model.kinds import Kind
    from punstats.runs.history import table_of
    rows = _rows(**changes)
    subjects = [None, Kind("rate", "r", per="code_lines"), Kind("share", "s", per="Call")]
    for subject in subjects:
        columns, formatters = cli_history._printed_columns(subject)
        table = table_of(rows)
        expected = table[columns].assign(commit=table["commit"].str[:12]).to_string(
            index=False, na_rep="n/a", formatters=formatters)
        assert cli_history._rows_text(rows, subject) == expected


def test_json_rows_are_those_of_the_table_without_pandas():
    """``--json`` writes each row as the table holds it (its column order, dates in UTC, a share
    of nothing and a missing date null), made without pandas."""
    import pandas as pd

    from punstats.cli import history as cli_history
    from punstats.runs.history import table_of
    rows = _rows(r1={"punnable_pct": float("nan")}, r0={"date": "no date"})
    expected = []
    for record in table_of(rows).to_dict(orient="records"):
        expected.append({key: None if value is pd.NaT or value != value else
                         value.isoformat() if hasattr(value, "isoformat") else
                         value.item() if hasattr(value, "item") else value for key, value in record.items()})
    assert json.dumps(cli_history._records(rows)) == json.dumps(expected)
