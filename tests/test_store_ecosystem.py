"""Reading an ecosystem run back (``store.ecosystem``): a finished run whole, and one-line errors
for a run that never finished or whose journal and summary disagree."""
import json
import os
import shutil

import pytest
from fakerun import NAMES, make_run

from punstats.store import ecosystem as stored_run
from punstats.store.staging import StoreError


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


def test_a_finished_run_reads_back_with_every_project_in_rank_order(finished):
    assert stored_run.is_run(finished) and not stored_run.is_run(os.path.dirname(finished))
    run = stored_run.read_run(finished)
    assert [r["project"] for r in run.records] == NAMES and run.name == "top-pypi-7"
    assert run.ecosystem["projects"] == len(NAMES) and run.run["rules"]["patterns"][0]["name"] == "try_finally"
    scanned = [r for r in run.records if r["status"] == "scanned"]
    assert all(set(r["measures"]["all"]) == {"files", "keywords", "punnable"} for r in scanned)  # brief



def test_records_read_back_share_the_run_s_rules_and_patterns_and_equal_their_files(finished):
    # a run's records are held with one copy of what every project's summary holds alike (issue 29)
    run = stored_run.read_run(finished)
    loaded = [stored_run.brief(stored_run.load_record(finished, name)) for name in NAMES]
    assert list(run.records) == loaded
    scanned = [r["summary"] for r in run.records if r["status"] == "scanned"]
    assert len(scanned) > 1 and all(s["rules"] is scanned[0]["rules"] and s["patterns"] is scanned[0]["patterns"]
                                    for s in scanned)
    assert [json.dumps(r) for r in run.records] == [json.dumps(r) for r in loaded]  # the same order of keys
    first, second = scanned[0]["kinds"], scanned[1]["kinds"]
    assert all(a is b for a, b in zip(sorted(first), sorted(second)) if a == b)  # one string per key


def test_summaries_whose_shared_values_differ_keep_their_own():
    records = [{"status": "scanned", "measures": {}, "summary": {"rules": {"a": 1}, "patterns": []}},
               {"status": "scanned", "measures": {}, "summary": {"rules": {"a": 2}, "patterns": []}},
               {"status": "skipped", "reason": "no sdist"}]
    held = list(stored_run.briefs(records))
    assert held == records and held[0]["summary"]["patterns"] is held[1]["summary"]["patterns"]
    assert held[1]["summary"]["rules"] == {"a": 2} and records[0]["summary"] is not held[0]["summary"]

def copy(finished, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(finished, target)
    return str(target)


def test_a_run_that_never_finished_says_how_to_resume_it(finished, tmp_path):
    directory = copy(finished, tmp_path)
    os.unlink(os.path.join(directory, stored_run.ECOSYSTEM_FILE))
    with pytest.raises(StoreError) as caught:
        stored_run.read_run(directory)
    assert str(caught.value) == ("%s is an ecosystem run that never finished (no ecosystem.json): resume it with "
                                 "punstats corpus top-pypi:N -o %s --skip-existing" % (directory, directory))


def test_a_journal_that_disagrees_with_the_summary_is_refused(finished, tmp_path):
    directory = copy(finished, tmp_path)
    journal = os.path.join(directory, stored_run.JOURNAL)
    lines = open(journal).read().splitlines()
    with open(journal, "w") as handle:
        handle.write("\n".join(lines[:-1]) + "\n")
    with pytest.raises(StoreError, match="its journal holds 6 of the 7 projects its ecosystem.json counts"):
        stored_run.read_run(directory)


def test_a_summary_that_is_not_one_punstats_wrote_is_one_line(finished, tmp_path):
    directory = copy(finished, tmp_path)
    path = os.path.join(directory, stored_run.ECOSYSTEM_FILE)
    for text, message in (("[1]", "not a JSON object"), ("{", "not a readable ecosystem summary"),
                          (json.dumps({"asked": "6"}), "no number of projects")):
        with open(path, "w") as handle:
            handle.write(text)
        with pytest.raises(StoreError, match=message) as caught:
            stored_run.read_run(directory)
        assert "\n" not in str(caught.value)


def _edit(path, change):
    with open(path) as handle:
        value = json.load(handle)
    with open(path, "w") as handle:
        json.dump(change(value), handle)


def _set(key, value):
    return lambda record: dict(record, **{key: value})


def _renamed(summary, old, new):
    """``summary`` (a scan's) with the pattern ``old`` named ``new`` in its patterns and kinds."""
    patterns = [dict(p, name=new) if p["name"] == old else p for p in summary["patterns"]]
    kinds = {new if name == old else name: n for name, n in summary["kinds"].items()}
    return dict(summary, patterns=patterns, kinds=kinds)


@pytest.mark.parametrize("change", [
    lambda r: [1, 2], lambda r: 5, lambda r: "measures", _set("measures", [1]), _set("summary", "x"),
    lambda r: {k: v for k, v in r.items() if k != "summary"}, _set("status", "bogus"), _set("rank", "1"),
    lambda r: dict(r, measures=dict(r["measures"], all={})),
    lambda r: dict(r, measures=dict(r["measures"], nontest=dict(r["measures"]["nontest"], files="3"))),
    lambda r: dict(r, measures=dict(r["measures"], all=dict(r["measures"]["all"], punnable=10 ** 30))),
    lambda r: dict(r, measures=dict(r["measures"], all=dict(r["measures"]["all"], keywords=None))),
    lambda r: dict(r, measures=dict(r["measures"], all=dict(r["measures"]["all"], files=-1))),
    lambda r: dict(r, summary=_renamed(r["summary"], "try_finally", "../../x")),
    lambda r: dict(r, summary=_renamed(r["summary"], "try_finally", "x\x1b]8;;http://e\x07y\nz")),
    lambda r: dict(r, summary=dict(r["summary"], kinds=dict(r["summary"]["kinds"], **{"a/b": 1}))),
], ids=["list", "int", "str", "measures-list", "summary-str", "no-summary", "status", "rank-str",
        "measures-empty", "count-str", "count-10**30", "count-null", "count-negative", "pattern-dotdot",
        "pattern-control", "kind-slash"])
def test_an_edited_project_record_is_one_line_exit_2_in_every_command(finished, tmp_path, capsys, change):
    from punstats.cli import main
    directory = copy(finished, tmp_path)
    _edit(os.path.join(directory, "projects", "alpha.json"), change)
    with pytest.raises(StoreError, match="projects/alpha.json: not a project record punstats wrote"):
        stored_run.read_run(directory)
    for command in (["table", directory], ["table", directory, "--kinds"],
                    ["report", directory, "--no-figures", "-o", str(tmp_path / "r.md")],
                    ["plot", directory, "-o", str(tmp_path / "figures")]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "alpha.json: not a project record" in err, command


@pytest.mark.parametrize("listed", ["x", {"seed": [1]}, {"list": "l.json"}, None])
def test_an_edited_list_in_the_summary_is_one_line(finished, tmp_path, listed):
    directory = copy(finished, tmp_path)
    _edit(os.path.join(directory, stored_run.ECOSYSTEM_FILE), _set("list", listed))
    with pytest.raises(StoreError, match="ecosystem.json: not an ecosystem summary punstats wrote") as caught:
        stored_run.read_run(directory)
    assert "\n" not in str(caught.value)


def test_a_journal_naming_a_path_or_no_name_reads_no_file_outside_projects(finished, tmp_path):
    directory = copy(finished, tmp_path)
    journal = os.path.join(directory, stored_run.JOURNAL)
    with open(journal, "a") as handle:
        handle.write(json.dumps({"rank": 1, "project": "../run", "status": "scanned"}) + "\n")
        handle.write(json.dumps({"rank": 2, "project": 5, "status": "scanned"}) + "\n")
    open(os.path.join(directory, "projects", "5.json"), "w").write("{}")
    done = stored_run.read_journal(directory)
    assert sorted(done) == sorted(NAMES)


def test_a_random_run_that_never_finished_is_resumed_with_its_own_seed(finished, tmp_path):
    directory = copy(finished, tmp_path)
    os.unlink(os.path.join(directory, stored_run.ECOSYSTEM_FILE))
    _edit(os.path.join(directory, stored_run.RUN_FILE),
          lambda run: dict(run, list=dict(run["list"], seed=11, drawn=["alpha", "beta", "delta"])))
    with pytest.raises(StoreError) as caught:
        stored_run.read_run(directory)
    assert str(caught.value).endswith("resume it with punstats corpus random-pypi:3 --seed 11 -o %s --skip-existing"
                                      % directory)


def _scope(scope, key, value):
    return lambda summary: dict(summary, **{scope: dict(summary[scope], **{key: value})})


#: The commands that show a run, as a user types them (each reads every file they show).
SHOWN = (["table"], ["table", "--kinds"], ["table", "--kind", "call"], ["table", "--by", "identifier"],
         ["report", "--kind", "call", "--no-figures"], ["report", "--no-figures"], ["plot"], ["plot", "--kind", "call"])


def _shown(directory, tmp_path, capsys):
    """(exit status, standard error) of each command of ``SHOWN`` on the run in ``directory``."""
    from punstats.cli import main
    results = []
    for command in SHOWN:
        where = ["-o", str(tmp_path / ("r.md" if command[0] == "report" else "figures"))] \
            if command[0] != "table" else []
        results.append((main([command[0], directory, *command[1:], *where]), capsys.readouterr().err))
    return results


@pytest.mark.parametrize("change, field", [
    (_set("all", None), "all"), (_scope("all", "punnable", 10 ** 30), "all.punnable"),
    (_scope("nontest", "pooled_pct", "x"), "nontest.pooled_pct"),
    (_scope("all", "per_project", None), "all.per_project"),
    (_scope("all", "cumulative_by_length", [[1, None]]), "all.cumulative_by_length"),
    (_set("scanned", 1e30), "scanned"), (_set("distributions", {"sdist": None}), "distributions"),
    (_set("kinds", {"all": {"call": {"count": "9"}}}), "kinds"), (_set("patterns", [None]), "patterns"),
    (lambda e: dict(e, patterns=[dict(p, name="../../x") for p in e["patterns"]]), "patterns"),
    (lambda e: dict(e, patterns=e["patterns"] * 2), "patterns"),
    (_scope("kinds", "all", {"n" * 1_000_000: {"count": 1, "pct": 1.0}}), "kinds"),
], ids=["all-null", "count-10**30", "pct-str", "per-project-null", "curve-null", "float", "distribution-null",
        "kinds-str", "pattern-null", "pattern-dotdot", "pattern-twice", "kind-megabyte"])
def test_an_edited_summary_is_one_line_exit_2_in_every_command(finished, tmp_path, capsys, change, field):
    """A count of 10**30 or a value set to null in ``ecosystem.json`` was a traceback in ``plot``,
    ``report --kind call``; every command now names the field."""
    directory = copy(finished, tmp_path)
    _edit(os.path.join(directory, stored_run.ECOSYSTEM_FILE), change)
    for status, err in _shown(directory, tmp_path, capsys):
        assert status == 2 and err.count("\n") == 1, err
        assert "ecosystem.json: not an ecosystem summary punstats wrote (its %s is missing" % field in err


def test_a_stray_file_among_the_tables_is_not_read_and_a_damaged_one_is_one_line(finished, tmp_path, capsys):
    directory = copy(finished, tmp_path)
    with open(os.path.join(directory, "occurrences", "zzz.parquet"), "w") as handle:
        handle.write("junk")
    open(os.path.join(directory, "projects", "zzz.json"), "w").write("{}")
    assert all(status == 0 for status, _ in _shown(directory, tmp_path, capsys))
    with open(os.path.join(directory, "occurrences", "alpha.parquet"), "w") as handle:
        handle.write("junk")
    from punstats.cli import main
    assert main(["table", directory, "--by", "identifier"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "its occurrences dataset does not read (changed since the run wrote it?)" in err


def test_a_run_whose_folder_is_a_link_is_not_read(finished, tmp_path):
    directory = copy(finished, tmp_path)
    os.rename(os.path.join(directory, "projects"), str(tmp_path / "elsewhere"))
    os.symlink(str(tmp_path / "elsewhere"), os.path.join(directory, "projects"))
    with pytest.raises(StoreError, match="projects is a symbolic link, and a run reads and writes only inside"):
        stored_run.read_run(directory)


def test_a_record_or_a_table_swapped_for_a_link_is_not_read_through_it(finished, tmp_path, capsys):
    from punstats.cli import main
    directory = copy(finished, tmp_path)
    for sub, name in (("occurrences", "alpha.parquet"), ("projects", "alpha.json")):
        os.rename(os.path.join(directory, sub, name), str(tmp_path / name))
        os.symlink(str(tmp_path / name), os.path.join(directory, sub, name))
        assert main(["table", directory, "--by", "identifier"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "%s/%s is a symbolic link, and a run reads only inside its folder" % (
            sub, name) in err


@pytest.mark.parametrize("change, field", [
    (_set("rules", [1]), "rules"), (_scope("rules", "patterns", {"a": 1}), "rules.patterns"),
    (_scope("rules", "patterns", [None]), "rules.patterns"), (_scope("rules", "test_rule", [1]), "rules.test_rule"),
    (_scope("rules", "long_threshold", 10 ** 30), "rules.long_threshold"),
    (_scope("rules", "patterns", [{"name": "a/../../b"}]), "rules.patterns"),
    (_scope("rules", "patterns", [{"name": "=HYPERLINK(\"http://e\")"}]), "rules.patterns"),
], ids=["rules-list", "patterns-object", "pattern-null", "test-rule-list", "threshold-10**30", "pattern-path",
        "pattern-formula"])
def test_edited_rules_in_run_json_are_one_line_exit_2_in_every_command(finished, tmp_path, capsys, change, field):
    """Rules of the wrong type in ``run.json`` were a traceback in ``table --kind call`` and ``report``."""
    directory = copy(finished, tmp_path)
    _edit(os.path.join(directory, stored_run.RUN_FILE), change)
    for status, err in _shown(directory, tmp_path, capsys):
        assert status == 2 and err.count("\n") == 1, err
        assert "run.json: not a run description punstats wrote (its %s is not what punstats writes)" % field in err
