"""History: many revisions of one repository, against scans of each revision one by one."""
import importlib.util
import json
import os
import sysconfig

import pandas as pd
import pytest
from gitrepo import commit, init, merges_repo

import punstats
from punstats.cache import BlobCache
from punstats.cli import main
from punstats.runs import history

STDLIB = sysconfig.get_path("stdlib")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """55 commits over five months: real files from the standard library added one
    by one, edited, broken, mended and deleted; returns (path, commit ids)."""
    root = tmp_path_factory.mktemp("history") / "repo"
    init(root)
    sources = sorted(name for name in os.listdir(os.path.join(STDLIB, "json")) if name.endswith(".py"))
    sources += sorted(name for name in os.listdir(os.path.join(STDLIB, "email")) if name.endswith(".py"))[:12]
    shas = []
    for i in range(55):
        month = 6 + i // 11
        date = "2023-%02d-%02dT12:00:00+00:00" % (month, 1 + i % 11 * 2)
        files = {}
        if i < len(sources):
            package = "json" if i < 5 else "email"
            name = sources[i]
            with open(os.path.join(STDLIB, package, name), encoding="utf-8") as handle:
                files["%s/%s" % (package, name)] = handle.read()
        files["grow.py"] = "".join("f(name_%d=name_%d)\n" % (k, k) for k in range(i + 1))
        if i % 10 == 3:
            files["broken.py"] = "def f(:\n"
        if i % 10 == 5:
            files["broken.py"] = "g(mended=mended)\n"
        if i == 40:
            files["json/__init__.py"] = None
        shas.append(commit(root, files, "commit %d" % i, date))
    return str(root), shas


def test_history_equals_each_revision_scanned_on_its_own(repo, tmp_path):
    root, shas = repo
    commits = history.commits_of(root)
    assert [c.sha for c in commits] == shas
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    table = history.history(root, commits, cache=cache, jobs=1)
    assert len(table) == 55
    for commit_, row in zip(commits, table.to_dict("records")):
        alone = history.row(commit_, punstats.scan(root, rev=commit_.sha, jobs=1).summary)  # no cache, nothing shared
        assert row["commit"] == commit_.sha
        assert {key: row[key] for key in history.COUNT_COLUMNS} == {key: alone[key] for key in history.COUNT_COLUMNS}
    # each revision changes a file or two: after the first, nearly everything comes from the cache
    assert table["files_extracted"].iloc[1:].max() <= 3
    assert table["files_extracted"].sum() < table["files"].sum() / 5
    assert table["punnable"].iloc[-1] > table["punnable"].iloc[0]


def test_selection_every_month_every_n_and_ranges(repo):
    root, shas = repo
    commits = history.commits_of(root)
    monthly = history.select(commits, "month")
    assert [c.date[:7] for c in monthly] == ["2023-06", "2023-07", "2023-08", "2023-09", "2023-10"]
    assert all(c.sha == [d for d in commits if d.date[:7] == c.date[:7]][-1].sha for c in monthly)
    every10 = history.select(commits, "10")
    assert every10[-1].sha == shas[-1] and [c.sha for c in every10] == shas[::-1][::10][::-1]
    assert history.select(commits, "commit") == commits
    ranged = history.commits_of(root, rev_range="%s..%s" % (shas[9], shas[19]))
    assert [c.sha for c in ranged] == shas[10:20]
    windowed = history.commits_of(root, since="2023-08-01", until="2023-08-31")
    assert {c.date[:7] for c in windowed} == {"2023-08"}
    with pytest.raises(ValueError, match="--every takes"):
        history.select(commits, "weekly")


def test_cli_history_stores_table_and_figure(repo, tmp_path, capsys):
    root, shas = repo
    out = tmp_path / "out"
    assert main(["history", root, "--every", "month", "-q", "-j", "1", "-o", str(out)]) == 0
    table = pd.read_parquet(out / "history.parquet")
    assert list(table["commit"]) == [c.sha for c in history.select(history.commits_of(root), "month")]
    assert (out / "repo-history.png").exists() and (out / "repo-history.svg").exists()
    meta = json.loads((out / "history.json").read_text())
    assert meta["revisions"] == 5 and meta["last"]["sha"] == shas[-1]
    assert "stored:" in capsys.readouterr().out
    assert main(["history", root, "--every", "weekly"]) == 2
    assert main(["history", str(tmp_path), "-q"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors[0] == "punstats: error: --every takes commit, month or a number, not 'weekly'"
    assert errors[1].startswith("punstats: error: not a git repository")


@pytest.mark.parametrize("argument, message", [
    ("https://github.com/psf/requests",
     "https://github.com/psf/requests is a URL: to scan a git repository, write git+https://github.com/psf/requests"),
    ("https://github.com/psf/requests/tree/v2.32.3", "write git+https://github.com/psf/requests@v2.32.3"),
    ("pypi:requests", "pypi:requests is a PyPI release, which has no history: give a git repository"),
    ("https://pypi.org/project/requests/", "is a PyPI release, which has no history"),
    ("git+ext::sh -c x", "git+URL needs one of"),
])
def test_history_says_what_to_write_as_scan_does(argument, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["history", argument, "-q"]) == 2
    err = capsys.readouterr().err
    assert err == "punstats: error: %s\n" % message if message.startswith("https") else (
        err.startswith("punstats: error: ") and message in err and err.count("\n") == 1)
    assert os.listdir(tmp_path) == []  # nothing cloned, nothing stored


def test_history_of_a_git_url_is_the_history_of_its_repository(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "origin"
    init(root)
    shas = [commit(root, {"a.py": "f(x=x)\n" * n}, date="2023-%02d-01T12:00:00+00:00" % n) for n in (1, 2, 3)]
    url = "git+file://%s" % root
    assert main(["history", url, "--every", "commit", "-q", "-j", "1", "-o", str(tmp_path / "remote"), "--json"]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert main(["history", str(root), "--every", "commit", "-q", "-j", "1", "-o", str(tmp_path / "local"),
                 "--json"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert [(r["commit"], r["punnable"]) for r in remote] == [(r["commit"], r["punnable"]) for r in local] == [
        (shas[0], 1), (shas[1], 2), (shas[2], 3)]
    assert json.loads((tmp_path / "remote" / "history.json").read_text())["repo"] == url
    assert (tmp_path / "remote" / "origin-history.png").exists()  # named after the URL, not the clone's hash
    assert main(["history", "%s@%s" % (url, shas[1]), "--every", "commit", "-q", "--json", "--no-cache",
                 "-o", str(tmp_path / "upto")]) == 0
    assert [r["commit"] for r in json.loads(capsys.readouterr().out)] == shas[:2]  # @REV ends the walk
    assert main(["history", "%s@%s" % (url, shas[1]), "--rev-range", "HEAD~1..HEAD", "-q"]) == 2
    assert capsys.readouterr().err.startswith("punstats: error: give the revisions once: ")


def test_a_revision_without_keyword_arguments_has_a_share_of_n_a(tmp_path, capsys):
    root = tmp_path / "r"
    init(root)
    shas = [commit(root, {"a.py": "x = 1\n"}, date="2023-01-01T12:00:00+00:00"),
            commit(root, {"b.py": "f(x=x, y=1)\n"}, date="2023-02-01T12:00:00+00:00"),
            commit(root, {"a.py": None, "b.py": None, "c.txt": "words\n"}, date="2023-03-01T12:00:00+00:00")]
    table = history.history(str(root), history.commits_of(str(root)), cache=False, jobs=1)
    assert list(table["keywords"]) == [0, 2, 0] and table["punnable_pct"].iloc[1] == 50.0
    assert table["punnable_pct"].iloc[[0, 2]].isna().all()  # 0 of 0 is not 0 %
    out = tmp_path / "out"
    assert main(["history", str(root), "--every", "commit", "-q", "-j", "1", "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[6] for line in printed[1:4]] == ["n/a", "50.00", "n/a"]
    assert [line.split(",")[9] for line in (out / "history.csv").read_text().splitlines()] == [
        "punnable_pct", "", "50.0", ""]  # CSV: an empty cell, as the scan tables write n/a
    assert pd.read_parquet(out / "history.parquet")["punnable_pct"].isna().tolist() == [True, False, True]
    assert main(["history", str(root), "--every", "commit", "-q", "--json", "-o", str(tmp_path / "j")]) == 0
    rows = json.loads(capsys.readouterr().out)  # null, not NaN (which is not JSON)
    assert [(r["commit"], r["punnable_pct"]) for r in rows] == [(shas[0], None), (shas[1], 50.0), (shas[2], None)]
    if importlib.util.find_spec("matplotlib"):
        from punstats.present import plots
        figure = plots.history_trend(table.assign(date=pd.to_datetime(table["date"], utc=True)), "r").figure
        assert figure.axes[1].get_ylim() == pytest.approx((0, 55.0))  # drawn, its scale from the shares there are


def test_history_figure_plots_the_table(repo, tmp_path):
    from punstats.present import plots
    root, _ = repo
    table = history.history(root, history.select(history.commits_of(root), "month"), cache=False, jobs=1)
    plot = plots.history_trend(table, "repo")
    count, share = plot.figure.axes  # two panels, no second y-axis on one of them
    assert list(share.lines[0].get_ydata()) == list(table["punnable_pct"])
    assert list(share.lines[1].get_ydata()) == list(table["punnable_nontest_pct"])  # outside tests
    assert [t.get_text() for t in share.get_legend().get_texts()] == ["all code", "outside tests"]
    stored_before = plots.history_trend(table.drop(columns=["punnable_nontest_pct"]), "repo")  # one line
    assert len(stored_before.figure.axes[1].lines) == 1 and stored_before.figure.axes[1].get_legend() is None
    assert list(count.lines[0].get_ydata()) == list(table["punnable"])
    assert share.get_ylim()[0] == 0 and count.get_ylim()[0] == 0


def test_history_figure_caption_names_the_parser_and_every_rule(repo, tmp_path):
    from punstats.present import plots
    root, _ = repo
    table = history.history(root, history.select(history.commits_of(root), "month"), cache=False, jobs=1)
    pattern = {"name": "ret", "source": str(tmp_path / "ret.py"), "sha256": "ab" * 32}
    about = {"python": "CPython 3.11.7", "punstats_version": "0.1.0",
             "rules": {"test_rule": "substring", "long_threshold": 12, "extensions": [".py", ".pyi"], "gitignore": True,
                       "exclude": [], "patterns": [pattern]}}
    captions = [" ".join(t.get_text().split()) for t in plots.history_trend(table, "repo", about).figure.texts]
    assert any("Parsed by CPython 3.11.7 with punstats 0.1.0; test rule substring; .py .pyi files, .gitignore "
               "honoured, nothing excluded, long identifiers from 12 characters, pattern ret (ret.py, sha256 "
               "abababababab)." in text for text in captions), captions
    before = [" ".join(t.get_text().split()) for t in plots.history_trend(table, "repo").figure.texts]
    assert not any("Parsed by" in text for text in before)  # a history stored without them: as before


def test_cli_history_json_is_an_array_of_plain_json_values(repo, tmp_path, capsys):
    root, shas = repo
    assert main(["history", root, "--every", "month", "-q", "-j", "1", "-o", str(tmp_path / "h"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and len(rows) == 5 and rows[-1]["commit"] == shas[-1]
    assert rows[0]["date"].startswith("2023-06-") and "T" in rows[0]["date"]  # ISO 8601, as git and scan write it
    assert all(type(row["punnable"]) is int and type(row["punnable_pct"]) is float for row in rows)
    table = pd.read_parquet(tmp_path / "h" / "history.parquet")
    assert [row["punnable"] for row in rows] == list(table["punnable"])


def test_each_pattern_of_a_revision_is_a_column_with_its_count_outside_tests():
    """A scan with user patterns (its summary records them) adds four columns per pattern (its
    count and its rate per million of its unit, in all code and outside tests) and the files a
    pattern raised on; a name that is already a column is prefixed, and a scan without patterns adds none."""
    from punstats.sources.git import Commit

    patterns = [{"name": "ret", "label": "r", "per": "lines"}, {"name": "files", "label": "f", "per": "lines"}]
    base = {key: 1 for key in history.COUNT_COLUMNS}
    summaries = [dict(base, patterns=patterns, kinds={"ret": 4, "files": 2}, kinds_nontest={"ret": 3},
                      units={"lines": 2000}, units_nontest={"lines": 1000}, failed_by_reason={"pattern_error": 1}),
                 dict(base)]
    commits = [Commit(c * 40, "2024-0%d-01T00:00:00+00:00" % (i + 1), "one") for i, c in enumerate("ab")]
    table = history.table_of([history.row(c, s) for c, s in zip(commits, summaries)])
    added = ["ret", "ret_nontest", "ret_per_million_lines", "ret_nontest_per_million_lines",
             "pattern_files", "pattern_files_nontest", "pattern_files_per_million_lines",
             "pattern_files_nontest_per_million_lines", "pattern_errors"]
    assert list(table.columns) == [*history.FIXED_COLUMNS, *added]
    assert table.loc[0, ["ret", "ret_nontest", "pattern_files", "pattern_errors"]].tolist() == [4, 3, 2, 1]
    assert table.loc[0, ["ret_per_million_lines", "ret_nontest_per_million_lines"]].tolist() == [2000.0, 3000.0]
    assert table.loc[1, added].isna().all()
    assert table.loc[0, "files"] == 1


def test_history_runs_on_any_engine_of_the_registry(tmp_path, capsys):
    """``history --engine python:PATH``: each revision extracted under that interpreter, through the
    cache, and the rows those of the local engine."""
    import sys
    root = tmp_path / "repo"
    init(root)
    commit(root, {"a.py": "f(x=x)\n"}, date="2023-06-01T12:00:00+00:00")
    commit(root, {"b.py": "g(y=y, z=1)\n"}, date="2023-07-01T12:00:00+00:00")
    tables = {}
    for engine in ("local", "python:" + sys.executable):
        out = tmp_path / engine.partition(":")[0]
        assert main(["history", str(root), "-q", "-j", "1", "--every", "commit", "--engine", engine,
                     "-o", str(out), "--json"]) == 0
        tables[engine] = [{k: v for k, v in row.items() if k not in ("files_from_cache", "files_extracted")}
                          for row in json.loads(capsys.readouterr().out)]
    assert tables["local"] == tables["python:" + sys.executable]
    assert [row["punnable"] for row in tables["local"]] == [1, 2]


_TRIES = '''import ast
import punstats


@punstats.pattern(%r, per="Try")
def match(node, parents):
    return isinstance(node, ast.Try)
'''


@pytest.mark.parametrize("names, column, owner", [
    (("a", "a_nontest"), "a_nontest", "the pattern a's"), (("a", "a_pct"), "a_pct", "the pattern a's"),
    (("punnable", "pattern_punnable"), "pattern_punnable", "the pattern punnable's"),
    (("pattern_errors",), "pattern_errors", "a column of every history"),
    (("x_nontest", "x"), "x_nontest", "the pattern x_nontest's"),
])
def test_patterns_whose_columns_would_collide_are_refused_before_any_work(tmp_path, capsys, names, column, owner):
    """Patterns ``a`` and ``a_nontest`` both wrote a column ``a_nontest`` (one overwrote the other)."""
    root = tmp_path / "repo"
    init(root)
    commit(root, {"m.py": "try:\n    f(x=x)\nfinally:\n    pass\n"})
    plugins = []
    for name in names:
        plugins += ["--pattern", str(tmp_path / ("p_%s.py" % name))]
        (tmp_path / ("p_%s.py" % name)).write_text(_TRIES % name)
    assert main(["history", str(root), "-q", "-j", "1", "--no-cache", "-o", str(tmp_path / "h"), *plugins]) == 2
    assert capsys.readouterr().err == ("punstats: error: the pattern %s would make the history column %s, which is "
                                       "%s: give the pattern another name\n" % (names[-1], column, owner))
    assert sorted(os.listdir(tmp_path)) == sorted(["repo"] + ["p_%s.py" % name for name in names])  # no h/


def _odd_repository(root):
    """Five commits: a name with a newline, two links in a loop and one to its parent, a rename to a
    name with a tab, a backslash and an accent, a submodule entry, then one more file; the ids."""
    from gitrepo import git
    init(root)
    shas = [commit(root, {"a.py": "f(x=x)\n"}, "one")]
    shas.append(commit(root, {"new\nline.py": "g(y=y)\n"}, "two",
                       links={"loop1": "loop2", "loop2": "loop1", "d/up": ".."}))
    git(root, "mv", "a.py", "odd\tname \\ \u00e9.py")
    shas.append(commit(root, {}, "three"))
    git(root, "update-index", "--add", "--cacheinfo", "160000,%s,sub" % ("1" * 40))
    git(root, "commit", "-q", "-m", "four")  # not commit(): its add -A would drop the entry
    shas.append(git(root, "rev-parse", "HEAD"))
    shas.append(commit(root, {"b.py": "h(z=z)\n"}, "five"))
    return shas


def test_odd_names_links_in_a_loop_and_submodules_are_counted_or_skipped(tmp_path, capsys):
    root = tmp_path / "repo"
    shas = _odd_repository(root)
    assert main(["history", str(root), "--every", "commit", "--json", "-q", "-j", "1", "--no-cache",
                 "-o", str(tmp_path / "h")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["commit"], r["files"], r["punnable"]) for r in rows] == [
        (shas[0], 1, 1), (shas[1], 2, 2), (shas[2], 2, 2), (shas[3], 2, 2), (shas[4], 3, 3)]


def test_commits_rewritten_away_after_they_were_listed_are_recorded_not_a_traceback(tmp_path, capsys, monkeypatch):
    """The commit list is taken once; a commit pruned before it is read was 'git diff-tree answered
    for 1 of 4 revisions' and no history."""
    from gitrepo import git
    root = tmp_path / "repo"
    shas = _odd_repository(root)
    listed = history.commits_of

    def then_rewritten(*args, **kwargs):
        commits = listed(*args, **kwargs)
        git(root, "reset", "-q", "--hard", "HEAD~2")
        git(root, "reflog", "expire", "--expire=now", "--all")
        git(root, "gc", "-q", "--prune=now")
        return commits

    monkeypatch.setattr(history, "commits_of", then_rewritten)
    assert main(["history", str(root), "--every", "commit", "--json", "-q", "-j", "1", "--no-cache",
                 "-o", str(tmp_path / "h")]) == 0
    captured = capsys.readouterr()
    assert [r["commit"] for r in json.loads(captured.out)] == shas[:3]
    assert captured.err == ("punstats: warning: 2 of the 5 commits listed left the repository before they were read "
                            "(rewritten, pruned): %s, %s; recorded in history.json\n" % (shas[3][:12], shas[4][:12]))
    with open(tmp_path / "h" / "history.json") as handle:
        assert json.load(handle)["vanished"] == shas[3:]
    gone = [history.gitsource.Commit(shas[4], "2023-10-01T12:00:00+00:00")]
    with pytest.raises(history.GitError, match="none of the 1 commits listed is in .* any more"):
        history.history(str(root), gone, cache=False, jobs=1)


def _merge_history(repo, merges: int) -> None:
    """History of a repository of ``merges`` merges (``gitrepo.merges_repo``): one row per
    first-parent commit (the side commits, whose ``side/ours.py`` the merges drop, are not
    rows), each with the count built up independently, and equal to a scan of a few."""
    expected = merges_repo(repo, merges)
    commits = history.commits_of(str(repo))
    assert [c.sha for c in commits] == list(expected)
    table = history.history(str(repo), commits, cache=False, jobs=1)
    assert len(table) == merges + 1
    assert list(table["punnable"]) == list(expected.values())
    for sha in (commits[1].sha, commits[100].sha, commits[-1].sha):  # the 100th merge is an octopus
        scanned = punstats.scan(str(repo), rev=sha, jobs=1).summary
        assert scanned["punnable"] == expected[sha]
        assert table.loc[table["commit"] == sha, "files"].item() == scanned["files"]
    last = history.commits_of(str(repo), rev_range="HEAD~100..HEAD")
    assert [c.sha for c in last] == list(expected)[-100:]
    assert [c.sha for c in history.commits_of(str(repo), last=100)] == [c.sha for c in last]


def test_two_thousand_merges_follow_the_first_parents_and_count_each(tmp_path):
    _merge_history(tmp_path / "merges.git", 2000)


@pytest.mark.slow  # about 25 s on one core: git fast-import and 10,001 revisions
def test_ten_thousand_merges_follow_the_first_parents_and_count_each(tmp_path):
    _merge_history(tmp_path / "merges.git", 10000)


def _two_listings(gitdir: str, older: str, newer: str):
    """The commits of ``older..newer`` as history listed them before: both first-parent lines whole."""
    excluded = set(history.gitsource.first_parent_shas(gitdir, older))
    return [sha for sha in history.gitsource.first_parent_shas(gitdir, newer) if sha not in excluded]


def test_a_range_is_one_listing_that_gives_the_commits_both_lines_gave(tmp_path, monkeypatch):
    """``A..B`` with A on B's first-parent line runs ``rev-list`` once, stopping at A (not twice
    over both whole lines); A off that line (a side commit), or after B, lists both lines as
    before; each gives the commits the two listings gave."""
    repo = str(tmp_path / "merges.git")
    merges_repo(repo, 120)
    gitdir = history.gitsource.git_dir(repo)
    from punstats.sources import gitrange
    run_git, listings = gitrange.run_git, []

    def counted(gitdir, *args, **kwargs):
        listings.extend(args[:1] if args[0] == "rev-list" else [])
        return run_git(gitdir, *args, **kwargs)

    monkeypatch.setattr(gitrange, "run_git", counted)
    monkeypatch.setattr(history.gitsource, "run_git", counted)
    for older, newer, lists in [("HEAD~100", "HEAD", 1), ("HEAD~1", "HEAD~0", 1), ("HEAD", "HEAD", 0),
                                ("side0", "HEAD", 3), ("HEAD", "HEAD~5", 3)]:
        listings.clear()
        shas = [c.sha for c in history.commits_of(repo, rev_range="%s..%s" % (older, newer))]
        assert len(listings) == lists, (older, newer)
        assert shas == _two_listings(gitdir, older, newer)
    assert len(history.commits_of(repo, rev_range="HEAD~100..HEAD")) == 100


def test_a_warm_history_keeps_the_stored_one_and_draws_no_figure(repo, tmp_path, capsys, monkeypatch):
    """Run again on the same revisions and settings, history finds its stored table holding the
    counts and provenance it would store: it keeps every stored file as it is (no table written,
    no figure drawn) and prints the same rows; another rule stores afresh."""
    from punstats.cli import history as cli_history
    root, _ = repo
    out = tmp_path / "h"
    argv = ["history", root, "--every", "month", "-j", "1", "-o", str(out)]
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    assert main(argv) == 0
    cold = {name: (out / name).read_bytes() for name in os.listdir(out)}
    cold_out = capsys.readouterr().out.splitlines()
    assert json.loads(cold["history.json"])["files"] == ["history.parquet", "repo-history.png", "repo-history.svg"]
    with monkeypatch.context() as patched:
        patched.setattr(cli_history, "_figure", lambda *args: pytest.fail("the figure drawn again"))
        patched.setattr(history, "store", lambda *args: pytest.fail("the history stored again"))
        assert main(argv) == 0
    warm_out = capsys.readouterr().out.splitlines()
    assert {name: (out / name).read_bytes() for name in os.listdir(out)} == cold
    assert warm_out[-1] == cold_out[-1] + " (unchanged: kept as it was)"
    assert len(warm_out) == len(cold_out) and warm_out[0] == cold_out[0]
    # the rows printed are the same but for how their files were got (the last column)
    assert [line.rsplit(None, 1)[0] for line in warm_out[1:-1]] == [line.rsplit(None, 1)[0] for line in cold_out[1:-1]]
    assert main(argv + ["--long", "3"]) == 0
    assert "kept" not in capsys.readouterr().out
    assert json.loads((out / "history.json").read_text())["rules"]["long_threshold"] == 3
    # a stored file gone (the figure deleted), or history.json naming a file elsewhere: stored afresh
    assert main(argv + ["--long", "3"]) == 0 and "kept" in capsys.readouterr().out
    os.remove(out / "repo-history.svg")
    assert main(argv + ["--long", "3"]) == 0 and "kept" not in capsys.readouterr().out
    assert (out / "repo-history.svg").exists()
    about = json.loads((out / "history.json").read_text())
    (out / "history.json").write_text(json.dumps(dict(about, files=["../h/history.parquet", *about["files"][1:]])))
    assert main(argv + ["--long", "3"]) == 0 and "kept" not in capsys.readouterr().out


def test_a_warm_history_stores_the_rows_the_cold_one_stored(repo, tmp_path, capsys, monkeypatch):
    """Cold (an empty cache) and warm (every result cached) into two places: the same rows, JSON
    and history.json, but for how the files were got."""
    root, _ = repo
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    stored = []
    for place in ("cold", "warm"):
        assert main(["history", root, "--every", "commit", "--json", "-q", "-j", "1", "-o", str(tmp_path / place)]) == 0
        rows = json.loads(capsys.readouterr().out)
        about = json.loads((tmp_path / place / "history.json").read_text())
        about["options"].pop("output")
        how = [(r.pop("files_from_cache"), r.pop("files_extracted")) for r in rows]
        stored.append((rows, about, how))
    (cold, cold_about, cold_how), (warm, warm_about, warm_how) = stored
    assert cold == warm and cold_about == warm_about
    assert sum(extracted for _, extracted in warm_how) == 0 < sum(extracted for _, extracted in cold_how)


def test_a_warm_history_in_a_new_place_writes_the_figure_drawn_before(repo, tmp_path, capsys, monkeypatch):
    """The same counts, repository and rules into another place: the figure's files are the ones
    drawn before, written from the cache, not drawn again; other counts draw it."""
    from punstats.present import plots
    root, _ = repo
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["history", root, "--every", "month", "-q", "-j", "1", "-o"]
    assert main(argv + [str(tmp_path / "a")]) == 0
    with monkeypatch.context() as patched:
        patched.setattr(plots, "save", lambda *args: pytest.fail("the figure drawn again"))
        assert main(argv + [str(tmp_path / "b")]) == 0
    for name in ("repo-history.png", "repo-history.svg"):
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes()
    drawn = []
    save = plots.save
    monkeypatch.setattr(plots, "save", lambda *args: drawn.append(args) or save(*args))
    assert main(argv + [str(tmp_path / "c"), "--every", "commit"]) == 0
    assert len(drawn) == 1 and (tmp_path / "c" / "repo-history.png").exists()
    capsys.readouterr()
