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


@pytest.mark.parametrize("change", [
    lambda r: [1, 2], lambda r: 5, lambda r: "measures", _set("measures", [1]), _set("summary", "x"),
    lambda r: {k: v for k, v in r.items() if k != "summary"}, _set("status", "bogus"), _set("rank", "1"),
    lambda r: dict(r, measures=dict(r["measures"], all={})),
    lambda r: dict(r, measures=dict(r["measures"], nontest=dict(r["measures"]["nontest"], files="3"))),
], ids=["list", "int", "str", "measures-list", "summary-str", "no-summary", "status", "rank-str",
        "measures-empty", "count-str"])
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
