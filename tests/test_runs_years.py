"""A run over years (runs.years, ``corpus top-pypi:N --releases yearly:A..B``) against a fake PyPI.

Three projects with dated releases: ``old`` (2019, then two in 2021), ``new`` (first released in
2021, a yanked release in 2022) and ``wheely`` (a pure-Python wheel only, 2020).  Nothing touches
the network.
"""
import json
import os
import shutil

import pandas as pd
import pytest
from fakeindex import FakePyPI, sdist, top_list, wheel

from punstats.analysis import years as trends
from punstats.cli import main
from punstats.patterns.built_in import KINDS
from punstats.runs import projects
from punstats.runs.ecosystem import RunError
from punstats.sources import pypi
from punstats.store.years import read_years

WALRUS = '''\
import ast

import punstats


@punstats.pattern("walrus", label="the walrus operator", per="code_lines")
def match(node, parents):
    return isinstance(node, ast.NamedExpr)
'''

OLD_1 = {"old/a.py": "def a(x):\n    f(x=x)\n    g(k=1)\n", "tests/test_a.py": "f(x=x)\n"}
OLD_2 = {"old/a.py": "def a(x, y):\n    f(x=x, y=y)\n    if (n := len(x)):\n        g(k=n)\n",
         "tests/test_a.py": "f(x=x)\n"}
NEW = {"new/b.py": "def b(z):\n    return h(z=z, w=2)\n"}
WHEELY = {"wheely/c.py": "def c(q):\n    while (line := q()):\n        k(q=q)\n"}


def populate(index):
    index.history("old", {
        "1.0": [("old-1.0.tar.gz", sdist("old", "1.0", OLD_1), "sdist", "2019-06-01T12:00:00Z", False)],
        "2.0": [("old-2.0.tar.gz", sdist("old", "2.0", OLD_1), "sdist", "2021-03-01T12:00:00Z", False)],
        "2.1": [("old-2.1.tar.gz", sdist("old", "2.1", OLD_2), "sdist", "2021-10-01T12:00:00Z", False)]})
    index.history("new", {
        "1.0": [("new-1.0.tar.gz", sdist("new", "1.0", NEW), "sdist", "2021-05-01T00:00:00Z", False)],
        "1.1": [("new-1.1.tar.gz", sdist("new", "1.1", {"new/b.py": "broken(\n"}), "sdist",
                 "2022-02-01T00:00:00Z", True)]})
    index.history("wheely", {
        "1.0": [("wheely-1.0-py3-none-any.whl", wheel(WHEELY), "bdist_wheel", "2020-07-01T00:00:00Z", False)]})


NAMES = ["old", "new", "wheely"]


@pytest.fixture
def index():
    fake = FakePyPI()
    populate(fake)
    yield fake
    fake.close()


def run_years(tmp_path, index, releases="yearly:2019..2022", on_done=None, **options):
    listing = top_list(tmp_path / "list.json", NAMES)
    options.setdefault("downloads", str(tmp_path / "downloads"))
    options.setdefault("cache", str(tmp_path / "cache.sqlite3"))
    go, opts = projects.top_pypi_run("top-pypi:3", listing, output=str(tmp_path / "out"), releases=releases,
                                     index_url=index.index_url, jobs=1, **options)
    return go(on_done=on_done)


def rows(done):
    """{(year, project): (status, reason or version, distribution)} of a run over years."""
    return {(y.year, r["project"]): (r["status"], r.get("reason") or r.get("version"), r.get("distribution"))
            for y in done for r in y.records}


def test_each_project_and_year_is_the_release_that_stood_then(tmp_path, index):
    done = run_years(tmp_path, index)
    assert [y.year for y in done] == [2019, 2020, 2021, 2022]
    absent = ("skipped", pypi.NO_RELEASE_YET, None)
    assert rows(done) == {
        (2019, "old"): ("scanned", "1.0", "sdist"), (2019, "new"): absent, (2019, "wheely"): absent,
        (2020, "old"): ("scanned", "1.0", "sdist"), (2020, "new"): absent,
        (2020, "wheely"): ("scanned", "1.0", "bdist_wheel"),
        (2021, "old"): ("scanned", "2.1", "sdist"), (2021, "new"): ("scanned", "1.0", "sdist"),
        (2021, "wheely"): ("scanned", "1.0", "bdist_wheel"),
        (2022, "old"): ("scanned", "2.1", "sdist"), (2022, "new"): ("scanned", "1.0", "sdist"),  # 1.1 yanked
        (2022, "wheely"): ("scanned", "1.0", "bdist_wheel")}
    assert all(r["year"] == y.year for y in done for r in y.records)
    old_2019 = next(r for r in done[0].records if r["project"] == "old")
    assert old_2019["uploaded"].startswith("2019-06-01")


def test_a_stored_record_says_its_year_by_its_folder_and_one_that_stores_it_still_reads(tmp_path, index, capsys):
    done = run_years(tmp_path, index, releases="yearly:2020..2021")
    path = tmp_path / "out" / "2021" / "projects" / "old.json"
    stored = json.loads(path.read_text())
    assert "year" not in stored and stored["version"] == "2.1"
    assert all(r["year"] == y.year for y in done for r in y.records)  # what the run hands on says it
    # a record as punstats wrote it before: with its year, it reads and resumes as any
    path.write_text(json.dumps(dict(stored, year=2021)))
    out = str(tmp_path / "out")
    assert main(["table", out, "--kind", "call", "--format", "csv", "-o", str(tmp_path / "t.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "t.csv")["count"]) == [3, 5]
    seen = []
    again = run_years(tmp_path, index, releases="yearly:2020..2021", skip_existing=True,
                      on_done=lambda record, reused: seen.append((record["year"], record["project"], reused)))
    assert rows(again) == rows(done) and all(reused for _, _, reused in seen)
    assert sorted(year for year, _, _ in seen) == [2020] * 3 + [2021] * 3


def test_each_project_s_page_is_read_once_for_all_the_years(tmp_path, index):
    run_years(tmp_path, index)
    pages = [path for path in index.requests if path.endswith("/json")]
    assert sorted(pages) == sorted(set(pages)) and len(pages) == len(NAMES)


def test_a_release_standing_in_two_years_is_downloaded_once_and_its_files_come_from_the_cache(tmp_path, index):
    done = run_years(tmp_path, index)
    assert sum(1 for p in index.requests if p.endswith("/old-1.0.tar.gz")) == 1
    cache = {y.year: y.ecosystem["cache"] for y in done}
    assert cache[2019] == {"cached": 0, "extracted": 2}  # old 1.0's two files
    assert cache[2020] == {"cached": 2, "extracted": 1}  # old 1.0 again, wheely new
    assert cache[2021] == {"cached": 2, "extracted": 2}  # old 2.1's test file unchanged; its a.py and new's b.py
    assert cache[2022] == {"cached": 4, "extracted": 0}  # nothing changed since 2021


def test_the_trend_is_the_stored_tables_counted_with_pandas(tmp_path, index):
    run_years(tmp_path, index, patterns=(str(write(tmp_path / "walrus.py", WALRUS)),))
    stored = read_years(str(tmp_path / "out"))
    for kind_name in ("call", "walrus"):
        kind = stored.registry[kind_name]
        trend = trends.trend(stored, kind).years.set_index("year")
        for year in (2019, 2020, 2021, 2022):
            folder = tmp_path / "out" / str(year)
            occurrences = pd.read_parquet(folder / "occurrences")
            files = pd.read_parquet(folder / "files")
            count = int((occurrences["kind"] == kind_name).sum())
            nontest = int(((occurrences["kind"] == kind_name) & ~occurrences["in_test"]).sum())
            row = trend.loc[year]
            assert (row["count"], row["count_nontest"]) == (count, nontest)
            scanned = occurrences[occurrences["kind"] == kind_name].groupby("project").size()
            assert row["with_matches"] == len(scanned)
            assert row["scanned"] == files["project"].nunique()
            if kind_name == "call":
                assert row["unit"] == int(files["keywords"].sum())
                assert row["measure"] == pytest.approx(100.0 * count / files["keywords"].sum(), abs=1e-4)
                shares = 100.0 * files.groupby("project")["punnable"].sum() / files.groupby("project")["keywords"].sum()
                assert row["median"] == pytest.approx(shares.median())
    every = pd.concat([pd.read_parquet(tmp_path / "out" / str(year) / "occurrences") for year in range(2019, 2023)])
    by_year = every[every["kind"] == "call"].groupby("year").size()
    assert by_year.to_dict() == trends.trend(stored, KINDS["call"]).years.set_index("year")["count"].to_dict()
    call = trends.trend(stored, KINDS["call"]).years.set_index("year")
    assert list(call["released"]) == [1, 2, 3, 3] and list(call["projects"]) == [3, 3, 3, 3]
    walrus = trends.trend(stored, stored.registry["walrus"]).years.set_index("year")
    assert list(walrus["with_matches"]) == [0, 1, 2, 2]  # wheely from 2020, old from 2.1 (2021)


def write(path, text):
    path.write_text(text)
    return path


def test_a_stored_table_s_project_rank_and_year_columns_are_those_pa_array_gives(tmp_path, index):
    """Each project's stored tables, their constant columns built again with ``pa.array`` (as
    before ``store.arrays.constant``) and written with the same metadata: the same bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    run_years(tmp_path, index)
    paths = sorted((tmp_path / "out").glob("*/*/*.parquet"))
    assert len(paths) == 18
    for path in paths:
        table = pq.read_table(path)
        again = table.drop_columns(["project", "rank", "year"])
        for name, arrow_type in (("project", pa.string()), ("rank", pa.int32()), ("year", pa.int32())):
            again = again.append_column(name, pa.array(table[name].to_pylist(), arrow_type))
        sink = pa.BufferOutputStream()
        pq.write_table(again.replace_schema_metadata(table.schema.metadata), sink)
        assert sink.getvalue().to_pybytes() == path.read_bytes(), path


def test_resume_scans_only_the_years_and_projects_not_stored(tmp_path, index):
    run_years(tmp_path, index)
    shutil.rmtree(tmp_path / "out" / "2021")
    os.unlink(tmp_path / "out" / "2022" / "projects" / "new.json")  # as a kill before its journal line
    seen = []
    done = run_years(tmp_path, index, skip_existing=True, on_done=lambda r, reused: seen.append(
        (r["year"], r["project"], reused)))
    fresh = sorted((year, name) for year, name, reused in seen if not reused)
    assert fresh == [(2021, "new"), (2021, "old"), (2021, "wheely"), (2022, "new")]
    assert rows(done)[2022, "new"] == ("scanned", "1.0", "sdist")
    with pytest.raises(RunError, match="already holds a run over years"):
        run_years(tmp_path, index)
    with pytest.raises(RunError, match="was made with --releases yearly:2019..2022"):
        run_years(tmp_path, index, releases="yearly:2019..2021", skip_existing=True)


def cli_run(tmp_path, index, *extra):
    listing = top_list(tmp_path / "list.json", NAMES)
    return main(["corpus", "top-pypi:3", "--top-pypi-list", listing, "--index-url", index.index_url,
                 "-o", str(tmp_path / "out"), "-j", "1", "-q", "--no-figure", *extra])


def test_table_plot_and_report_show_the_trend(tmp_path, index, capsys, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    assert cli_run(tmp_path, index, "--releases", "yearly:2019..2022") == 0
    printed = capsys.readouterr().out
    assert "2020: " in printed and "files of the year from the cache 2, extracted 1" in printed
    out = str(tmp_path / "out")
    assert main(["table", out]) == 0
    table = capsys.readouterr().out
    assert "per year in the top 3 PyPI projects" in table
    assert [line.split()[:3] for line in table.splitlines() if line[:4].isdigit()] == [
        ["2019", "1", "1"], ["2020", "2", "2"], ["2021", "3", "3"], ["2022", "3", "3"]]
    csv = tmp_path / "trend.csv"
    assert main(["table", out, "--format", "csv", "-o", str(csv)]) == 0
    frame = pd.read_csv(csv)
    assert list(frame["year"]) == [2019, 2020, 2021, 2022] and set(frame["run"]) == {"top-pypi-3-yearly-2019-2022"}
    assert list(frame["released"]) == [1, 2, 3, 3]
    assert main(["plot", out, "-o", str(tmp_path / "figures"), "--format", "png"]) == 0
    assert os.path.isfile(tmp_path / "figures" / "top-pypi-3-yearly-2019-2022-call-trend.png")
    report = tmp_path / "report.md"
    assert main(["report", out, "-o", str(report)]) == 0
    text = report.read_text()
    assert text.splitlines()[0] == "# `f(x=x)` (the headline) per year in the top 3 PyPI projects"
    assert "| 2021 |" in text and "![call per year](" in text and "| `wheely` |" in text
    assert main(["table", out, "-n", "2"]) == 0  # the projects per year: the first two
    projects = capsys.readouterr().out.split("per project and year")[1]
    assert [line.split() for line in projects.splitlines() if line[:1].isdigit()] == [
        ["1", "``old``", "66.67%", "66.67%", "75.00%", "75.00%"], ["2", "``new``", "50.00%", "50.00%"]]
    assert "The first 2 of the 3 projects" in " ".join(projects.split())
    assert main(["table", os.path.join(out, "2021")]) == 0  # one year alone: an ordinary run
    alone = capsys.readouterr().out
    assert "old" in alone and "2.1" in alone


@pytest.mark.parametrize("value", ["yearly:2022..2019", "2019..2022", "yearly:2019", "yearly:1990..2000"])
def test_a_bad_releases_value_is_one_line_and_writes_nothing(tmp_path, index, capsys, value):
    assert cli_run(tmp_path, index, "--releases", value) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--releases %s" % value in err[0]
    assert not os.path.exists(tmp_path / "out")
    assert not any(p.startswith("/pypi/") for p in index.requests)


def test_releases_is_refused_for_a_corpus_file_and_other_table_choices(tmp_path, index, capsys):
    spec = tmp_path / "corpus.toml"
    spec.write_text('[[project]]\nname = "x"\npath = "."\n')
    assert main(["corpus", str(spec), "--releases", "yearly:2019..2020"]) == 2
    assert "a corpus file pins its releases" in capsys.readouterr().err
    run_years(tmp_path, index, releases="yearly:2020..2021")
    out = str(tmp_path / "out")
    assert main(["table", out, "--kinds"]) == 2
    assert "its trend per year and its projects per year" in capsys.readouterr().err
    assert main(["table", out, "--kind", "nope"]) == 2
    assert main(["table", out, os.path.join(out, "2020")]) == 2
    assert "is a run over years: give it alone" in capsys.readouterr().err
    assert main(["plot", out, "--test-rule", "none"]) == 2
    assert "keep the rules they were scanned with" in capsys.readouterr().err
    assert main(["hits", out]) == 2  # a command that shows one run: one year's folder is meant
    assert "is a run over years" in capsys.readouterr().err
    assert main(["hits", os.path.join(out, "2021")]) == 0
    assert main(["label", os.path.join(out, "2021"), "--kind", "call"]) == 0  # its tables hold a year column
    assert os.path.isfile(os.path.join(out, "2021", "labels-call.csv"))
    capsys.readouterr()
    os.unlink(tmp_path / "out" / "2021" / "ecosystem.json")  # as a kill before the year finished
    assert main(["table", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the run of 2021 does not read" in err[0]
    assert "--releases yearly:2020..2021 and --skip-existing" in err[0]
    shutil.rmtree(tmp_path / "out" / "2021")
    assert main(["table", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the run of 2021 is missing" in err[0] and "--skip-existing" in err[0]


def test_a_year_folder_that_is_a_link_is_refused_before_anything_is_written(tmp_path, index):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out").mkdir()
    os.symlink(elsewhere, tmp_path / "out" / "2020")
    with pytest.raises(RunError, match="2020 is a symbolic link"):
        run_years(tmp_path, index, releases="yearly:2019..2020")
    assert os.listdir(elsewhere) == [] and sorted(os.listdir(tmp_path / "out")) == ["2020"]


def test_a_random_draw_over_years_holds_the_same_projects_each_year_and_resumes_with_them(tmp_path, index):
    index.simple(NAMES + ["gone"])

    def draw(**options):
        go, _ = projects.top_pypi_run("random-pypi:2", None, seed="7", output=str(tmp_path / "out"),
                                      releases="yearly:2020..2021", index_url=index.index_url, jobs=1,
                                      downloads=str(tmp_path / "downloads"), cache=str(tmp_path / "c.sqlite3"),
                                      **options)
        return go()
    done = draw()
    drawn = [[r["project"] for r in year.records] for year in done]
    assert drawn[0] == drawn[1] and len(drawn[0]) == 2
    index.simple(["other", "names"])  # the index's list changed since: a resumed run keeps its draw
    again = draw(skip_existing=True)
    assert [[r["project"] for r in year.records] for year in again] == drawn
