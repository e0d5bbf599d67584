"""``present/kind_figures.py``: a kind per scan and a pattern over a history, and ``plot --kind``.

The numbers drawn are checked against the stored occurrences counted with plain pandas.
"""
import os

import pandas as pd
import pytest

import punstats
from punstats.cli import main
from punstats.patterns.built_in import registry_of
from punstats.present.kind_figures import kind_projects, kind_trend

SHIPPED = ("punstats.patterns.return_in_finally", "punstats.patterns.bare_except")


@pytest.fixture(scope="module")
def scans(stdlib_subset_dir, tmp_path_factory):
    """Two stored scans of parts of the standard library subset, with two shipped patterns."""
    base = tmp_path_factory.mktemp("kind-scans")
    directories = []
    for name in sorted(os.listdir(stdlib_subset_dir))[:2]:
        directory = str(base / name)
        punstats.scan(os.path.join(stdlib_subset_dir, name), patterns=list(SHIPPED), jobs=1).save(directory)
        directories.append(directory)
    return directories


def plain_counts(directory, kind):
    """(count, count outside tests) of ``kind`` in a stored scan, with pandas alone."""
    rows = pd.read_parquet(os.path.join(directory, "occurrences.parquet"), columns=["kind", "in_test"])
    rows = rows[rows["kind"] == kind]
    return len(rows), int((~rows["in_test"]).sum())


@pytest.mark.parametrize("name", ["return_in_finally", "bare_except"])
def test_each_scan_s_bars_are_its_measure_of_the_kind(scans, name):
    results = [punstats.load(directory) for directory in scans]
    kind = registry_of(results[0].summary)[name]
    data = kind_projects(results, kind).data
    for directory, (_, row) in zip(scans, data.iterrows()):
        count, outside = plain_counts(directory, name)
        files = pd.read_parquet(os.path.join(directory, "files.parquet"))
        parsed = files[files["status"] == "ok"]
        # bare_except: a share of the except handlers (counted per file as nodes_ExceptHandler);
        # return_in_finally: a rate per million lines of code
        column, scale = ("nodes_ExceptHandler", 100.0) if name == "bare_except" else ("code_lines", 1e6)
        wholes = parsed[column].sum(), parsed.loc[~parsed["in_test"], column].sum()
        expected = [scale * part / whole if whole else float("nan") for part, whole in zip((count, outside), wholes)]
        assert (row["count"], row["nontest_count"]) == (count, outside)
        assert [row["measure"], row["nontest_measure"]] == pytest.approx(expected, abs=0.01, nan_ok=True)


def test_a_history_trend_draws_the_columns_it_is_given():
    from punstats.model.kinds import Kind
    kind = Kind("ret", "return in finally", "code_lines", occurrence=True, source="p.py", sha256="0" * 64)
    table = pd.DataFrame({"commit": ["a" * 40, "b" * 40, "c" * 40],
                          "date": pd.to_datetime(["2024-01-01", "2024-02-01", None], utc=True),
                          "ret": [1, 2, 5], "ret_nontest": [1, 1, 1],
                          "ret_per_million_code_lines": [10.0, 15.0, 20.0],
                          "ret_nontest_per_million_code_lines": [10.0, float("nan"), 1.0]})
    plot = kind_trend(table, "repo", kind, ("ret", "ret_nontest"),
                      ("ret_per_million_code_lines", "ret_nontest_per_million_code_lines"))
    assert plot.name == "repo-ret-history"
    assert list(plot.data["ret"]) == [1, 2]  # the undated revision is left out
    lines = plot.figure.axes[1].get_lines()
    assert [list(line.get_ydata()) for line in lines][0] == [10.0, 15.0]


def test_plot_draws_the_one_pattern_or_the_kind_asked_for(scans, tmp_path, capsys):
    out = tmp_path / "figures"
    assert main(["plot", *scans, "-o", str(out), "--format", "png", "--kind", "bare_except"]) == 0
    assert any(name.endswith("-bare_except-projects.png") for name in os.listdir(out))
    assert main(["plot", *scans, "-o", str(tmp_path / "none"), "--kind", "bare_excep"]) == 2
    err = capsys.readouterr().err  # any count with a unit can be drawn per scan, as table --kind shows it
    assert err.startswith("punstats: error: unknown kind 'bare_excep' (did you mean bare_except?); choose from "
                          "call, dict_call_punnable, ") and err.endswith(", return_in_finally, bare_except\n")
    assert not (tmp_path / "none").exists()


def test_a_kind_named_by_identifiers_gets_its_lengths_figure(scans, tmp_path, capsys):
    """``plot --kind near_miss`` and ``report --kind attribute`` drew the kind per scan only; a kind whose
    occurrences are identifiers now gets their lengths per scan too, the bars counted from the stored rows."""
    from punstats.present.kind_figures import kind_lengths
    result = punstats.load(scans[0])
    kind = registry_of(result.summary)["attribute"]
    plot = kind_lengths(result, kind)
    rows = pd.read_parquet(os.path.join(scans[0], "occurrences.parquet"), columns=["kind", "name_len", "in_test"])
    rows = rows[rows["kind"] == "attribute"]
    assert plot.kind == "attribute-lengths" and int(plot.data["total"].sum()) == len(rows) > 0
    assert plot.data["nontest"].to_dict() == {n: int(((rows["name_len"] == n) & ~rows["in_test"]).sum())
                                              for n in plot.data.index}
    out = tmp_path / "figures"
    assert main(["plot", *scans, "-o", str(out), "--format", "png", "--kind", "near_miss"]) == 0
    names = [os.path.basename(p) for p in capsys.readouterr().out.split()]
    assert [n for n in names if "near_miss" in n] == ["%s+%s-near_miss-projects.png" % tuple(
        os.path.basename(d) for d in scans)] + ["%s-near_miss-lengths.png" % os.path.basename(d) for d in scans]
    assert main(["plot", scans[0], "-o", str(tmp_path / "p"), "--format", "png", "--kind", "bare_except"]) == 0
    assert not [p for p in capsys.readouterr().out.split() if p.endswith("-lengths.png") and "bare" in p]
    report = tmp_path / "r.md"
    assert main(["report", scans[0], "--kind", "attribute", "-o", str(report)]) == 0
    text = report.read_text()
    assert "](r-figures/%s-attribute-lengths.png)" % os.path.basename(scans[0]) in text
    assert "*Identifier lengths of f(x=obj.x) in %s, outside tests and in tests.*" % os.path.basename(scans[0]) in text
