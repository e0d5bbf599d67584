"""reproduce angelico (one configuration, the revision search) and reproduce pep736."""
import json
import shutil

import pytest
from gitrepo import commit, git, init

from punstats import cli, reproduce
from punstats.cache import BlobCache
from punstats.extract.definitions import measure
from punstats.reproduce import definitions
from punstats.reproduce.pep736 import measure_project, published_rows, punning_commit
from punstats.reproduce.replay import Triple

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# module a: 2 top-level lines (1 long), 1 nested long line; test module: 1 long line
MOD = "f(short=short, long_enough=long_enough)\nouter(inner(nested_long=nested_long))\n"
TEST = "check(testing_value=testing_value)\n"


@pytest.fixture
def cache(tmp_path):
    return BlobCache(str(tmp_path / "cache.sqlite3"))


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "cpy"
    init(path)
    c1 = commit(path, {"Lib/a.py": MOD}, date="2023-09-01T00:00:00+00:00")
    c2 = commit(path, {"Lib/test/test_a.py": TEST, "Lib/test/bad.py": "def (:\n"},
                date="2023-09-02T00:00:00+00:00")
    c3 = commit(path, {"Tools/t.py": "g(another_long=another_long)\n"}, date="2023-09-03T00:00:00+00:00")
    return path, [c1, c2, c3]


def test_published_numbers_come_from_the_data_file():
    p = reproduce.published()
    assert (p["angelico-2023-10"]["total"], p["angelico-2023-10"]["long"],
            p["angelico-2023-10"]["long_nontest"]) == (3858, 525, 310)
    assert p["pep736"]["projects"]["pandas"]["count"] == 13235
    assert all(p[k]["sources"] for k in ("angelico-2023-10", "pep736"))


def test_one_configuration_and_its_breakdown(repo, cache):
    path, (c1, c2, c3) = repo
    r = reproduce.angelico(str(path), c2, cache=cache)
    # sorted walk: Lib/a.py, Lib/test/bad.py (stale: a.py again), Lib/test/test_a.py
    assert r.compat == Triple(2 + 2 + 1, 1 + 1 + 1, 1)
    assert r.corrected == Triple(4, 3, 2)  # nested found, no stale, components rule
    b = r.breakdown
    assert b["stale_double_counts"] == {"total": -2, "long": -1, "long_nontest": 0}
    assert b["nested_calls_missed"] == {"total": 1, "long": 1, "long_nontest": 1}
    assert b["other"] == {"total": 0, "long": 0, "long_nontest": 0}
    assert b["parse_failures"]["files"] == 1
    assert r.lines[2].startswith("./Lib/test/bad.py:1:0: f(short=short)")


def test_quirks_switch_one_at_a_time(repo, cache):
    path, (c1, c2, c3) = repo
    no_stale = reproduce.angelico(str(path), c2, quirks={"stale_tree": False}, cache=cache)
    assert no_stale.compat == Triple(3, 2, 1)
    descend = reproduce.angelico(str(path), c2, quirks={"descend": True, "stale_tree": False}, cache=cache)
    assert descend.compat == Triple(4, 3, 2) == descend.corrected
    lib = reproduce.angelico(str(path), c2, subdir="Lib", quirks={"stale_tree": False}, cache=cache)
    assert lib.compat == no_stale.compat and lib.lines[0].startswith("./a.py:")


def test_test_rules_including_user_patterns(repo, cache):
    path, (c1, c2, c3) = repo
    by_line = reproduce.angelico(str(path), c3, test_rule="line:substring", cache=cache)
    by_path = reproduce.angelico(str(path), c3, test_rule="path:substring", cache=cache)
    # the stale lines printed under Lib/test/bad.py and test_a.py go either way; the line rule
    # also drops nothing else here ("testing_value" is in a test path anyway)
    assert by_line.compat.long_nontest == by_path.compat.long_nontest == 2
    pattern = reproduce.angelico(str(path), c3, test_rule="path:regex:^Tools/", cache=cache)
    assert pattern.compat.long_nontest == 3  # only Tools/ removed
    name = reproduce.angelico(str(path), c3, test_rule="name:substring", cache=cache)
    assert name.compat.long_nontest == 3  # bare names: "bad.py" is not a test by name


def test_directory_source_with_fs_and_sorted_walks(repo, cache):
    path, (c1, c2, c3) = repo
    git(path, "checkout", "-q", c2)
    fs = reproduce.angelico(str(path), None, walk="fs", cache=cache)
    ordered = reproduce.angelico(str(path), None, walk="sorted", cache=cache)
    assert ordered.compat == Triple(5, 3, 1)
    assert fs.compat.total in (4, 5)  # bad.py revisits a.py or test_a.py: this machine decides
    with pytest.raises(ValueError):
        reproduce.angelico(str(path), c2, walk="fs")


def test_revision_search_finds_the_commit_window(repo, cache):
    path, (c1, c2, c3) = repo
    target = Triple(4, 3, 2)  # Lib/ at c2 or c3 without stale tree, or with descent ...
    result = reproduce.angelico_search(str(path), "2023-08-01", "2023-12-31", directories=("", "Lib"),
                                       test_rules=("path:substring",), target=target, cache=cache)
    assert result["window"]["commits"] == 3
    exact = result["exact"]
    assert exact, result["nearest"]
    configs = {(h["configuration"]["directory"], h["configuration"]["quirks"]) for h in exact}
    assert ("Lib", "walk=sorted,descend,no-stale") in configs
    hit = [h for h in exact if h["configuration"]["directory"] == "Lib"
           and h["configuration"]["quirks"] == "walk=sorted,descend,no-stale"][0]
    assert (hit["first"]["commit"], hit["last"]["commit"], hit["commits"]) == (c2, c3, 2)
    # the search agrees with the single-configuration replay
    single = reproduce.angelico(str(path), c3, subdir="Lib", quirks={"descend": True, "stale_tree": False},
                                cache=cache)
    assert single.compat == target


def test_search_without_exact_match_lists_the_nearest(repo, cache):
    path, _ = repo
    result = reproduce.angelico_search(str(path), "2023-08-01", "2023-12-31", cache=cache, nearest=3)
    assert result["exact"] == [] and len(result["nearest"]) == 3
    assert result["nearest"][0]["distance"] <= result["nearest"][-1]["distance"]


def test_cli_reproduce_json(repo, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "c"))
    path, (c1, c2, c3) = repo
    assert cli.main(["reproduce", "angelico", str(path), "--rev", c2, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"published", "compat", "corrected", "configuration"}
    assert set(out["compat"]) == {"total", "long", "long_nontest"}
    assert out["published"] == {"total": 3858, "long": 525, "long_nontest": 310}
    assert cli.main(["reproduce", "angelico", str(path), "--rev", c2]) == 0
    assert "published" in capsys.readouterr().out
    assert cli.main(["reproduce", "angelico", str(path), "--since", "2023-08-01", "--json",
                     "--test-pattern", "test"]) == 0
    assert "nearest" in json.loads(capsys.readouterr().out)


def test_cli_reproduce_usage_errors(repo, capsys, tmp_path):
    path, (c1, c2, c3) = repo
    assert cli.main(["reproduce", "angelico", str(path), "--rev", "nope", "--no-cache"]) == 2
    assert cli.main(["reproduce", "angelico", str(path), "--rev", c1, "--since", "2023-01-01"]) == 2
    assert cli.main(["reproduce", "angelico", str(path), "--rev", c1, "--test-rule", "bogus"]) == 2
    assert cli.main(["reproduce", "angelico", str(tmp_path / "none"), "--rev", "HEAD"]) == 2
    assert cli.main(["reproduce", "pep736"]) == 2
    assert cli.main(["reproduce", "angelico", str(path), "--rev", c1, "--test-rule", "path:substring",
                     "--test-pattern", "Lib/test/"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 6 and all(line.startswith("punstats: error:") for line in err)
    assert "several are for the search" in err[-1]


def test_search_tries_every_rule_given(repo, cache):
    path, _ = repo
    rules = ["path:substring", "path:regex:/tests?/"]
    result = reproduce.angelico_search(str(path), "2023-08-01", "2023-12-31", cache=cache, nearest=50,
                                       test_rules=rules)
    assert result["test_rules"] == rules
    assert {entry["configuration"]["test_rule"] for entry in result["nearest"]} == set(rules)


def test_scan_compat_prints_his_lines(repo, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "c"))
    path, (c1, c2, c3) = repo
    assert cli.main(["scan", str(path), "--rev", c2, "--compat", "angelico-2023-10"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "./Lib/a.py:1:0: f(short=short)"
    assert len(out) == 5


def test_pep736_counts_before_the_punning_commit(tmp_path, cache, capsys, monkeypatch):
    path = tmp_path / "proj"
    init(path)
    commit(path, {"m.py": "f(\n    alpha=alpha,\n    beta=beta,\n)\ng(h(c=c), d=1)\n"})
    pun = commit(path, {"m.py": "f(alpha=, beta=)\ng(h(c=), d=1)\n"}, message="Add punning")
    result = reproduce.pep736({"pandas": str(path)}, cache=cache)["pandas"]
    assert result["punning_commit"] == pun
    assert result["definitions"]["count: all calls"] == 3
    assert result["definitions"]["count: top-level calls only (find_kwargs 2023-10)"] == 2
    assert result["definitions"]["percent: / named keywords"] == 75.0
    assert result["definitions"]["lines saved: .py files"] == 3
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "c"))
    assert cli.main(["reproduce", "pep736", "--pandas", "%s@%s" % (path, pun), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # count: the bare x=x at every depth; percent: find_kwargs' top-level x=x (alpha, beta) over
    # top-level keywords (alpha, beta, d); lines saved: the commit's
    assert out["pandas"]["reproduced"] == {"count": 3, "percent": 66.67, "lines_saved": 3}
    assert out["pandas"]["published"] == {"count": 13235, "percent": 17.24, "lines_saved": 935}
    assert out["pandas"]["matches"] == {"count": False, "percent": False, "lines_saved": False}


def test_pep736_text_delimited_count_skips_comments_and_parentheses(tmp_path, cache):
    """The definition matching the PEP author's punning commits: a keyword counts only when, as
    text, it is a bare x=x (spaces around = allowed) between ( or , and , or ) with nothing but
    whitespace in between."""
    path = tmp_path / "proj"
    init(path)
    source = (
        "f(a=a, b = b,\n"           # both count
        "  c=c)\n"                  # counts
        "g(x=1,  # note\n"
        "  d=d,\n"                  # a comment precedes it: not counted
        "  e=e  # note\n"           # a comment follows it: not counted
        ")\n"
        "h(k=(k), m=\n    m)\n"    # parenthesised value: no; value on the next line: yes
        "def q(n=n): pass\n"        # a default, not a call keyword: never counted
    )
    commit(path, {"m.py": source})
    result = reproduce.pep736({"numpy": str(path)}, cache=cache)["numpy"]
    assert result["definitions"]["count: all calls"] == 7
    name = "count: bare x=x after ( or , before , or )"
    assert result["definitions"][name] == 4


def test_published_second_table_of_pep736():
    p = reproduce.published()["pep736-2024"]
    assert p["projects"] == {"polars": {"count": 1654, "percent": 15.83, "lines_saved": 170},
                             "fastapi": {"count": 1408, "percent": 28.11, "lines_saved": 35},
                             "rich": {"count": 566, "percent": 15.74, "lines_saved": 62},
                             "httpx": {"count": 759, "percent": 45.13, "lines_saved": 117}}
    assert any("3639" in source for source in p["sources"])
    rows = published_rows()
    assert rows["polars"]["table"] == "pep736-2024" and rows["numpy"]["table"] == "pep736"


def test_measure_counts_by_depth_kind_and_shape():
    c = measure(b"f(a=a, b = b, c=(c), **k)\ng(h(x=x), y=1)\nclass A(B, m=m): pass\n")
    assert c["ok"] and c["lines"] == 4
    assert (c["call_kw_d0"], c["call_star_d0"], c["call_pun_d0"]) == (4, 1, 3)
    assert (c["call_punbare_d0"], c["call_pundelim_d0"]) == (2, 2)  # c=(c) is not bare
    assert (c["call_kw_d1"], c["call_pun_d1"], c["call_pundelim_d1"]) == (1, 1, 1)
    assert (c["class_kw_d0"], c["class_pun_d0"]) == (1, 1)
    assert (c["calls_d0"], c["calls_d1"], c["callspun_d0"], c["callskw_d0"]) == (2, 1, 1, 2)
    assert measure(b"def (:\n") == {"ok": False, "error": "SyntaxError"}


def test_definitions_mode_runs_in_a_worker_under_another_interpreter():
    """The per-file counters come from the worker of the interpreter that parses (``--python``),
    and equal the in-process ones."""
    import sys

    from punstats.engines import interp
    data = b"f(a=a, **k)\ng(h(x=x), y=1)\n"
    with interp.Pool(sys.executable) as pool:
        reply = pool.workers[0].work("m.py", data, 1 << 20, ["definitions"])
    assert reply == {"definitions": json.loads(json.dumps(measure(data)))}
    assert reply["definitions"]["call_pun_d0"] == 1 and reply["definitions"]["call_pun_d1"] == 1


PLANTED = {
    # top level: 2 x=x of 5 keywords (one **); nested: 1 x=x; a test file and a doc file
    "pkg/a.py": "f(alpha=alpha, beta=beta, gamma=1, **extra)\ng(h(delta=delta), eps=2)\n",
    "pkg/tests/test_a.py": "check(value=value, other=3)\n",
    "doc/conf.py": "setup(name=name)\n",
}


def test_definition_search_finds_a_planted_definition(tmp_path, cache):
    """A published row made by one definition (top-level x=x over top-level keywords incl. **,
    tests dropped by their directory): the search names it among its hits."""
    path = tmp_path / "proj"
    init(path)
    commit(path, PLANTED)
    # by hand: pkg/a.py and doc/conf.py; top-level x=x: alpha, beta, name; keywords incl. **:
    # alpha, beta, gamma, **extra, eps, name
    row = {"count": 3, "percent": round(100.0 * 3 / 6, 2), "lines_saved": None}
    result = measure_project(str(path), row, cache=cache, search=True)
    hits = result["search"]["percent"]["hits"]
    planted = {"files": ".py | no test dirs | with docs | with benchmarks/examples | all files",
               "depth": "top", "numerator": "punnable (punstats)",
               "denominator": "named + ** (find_kwargs KwCount)", "num": 3, "den": 6, "value": 50.0}
    assert planted in hits
    assert all(h["value"] == 50.0 for h in hits)
    assert {"files", "depth", "numerator", "value"} <= set(result["search"]["count"]["hits"][0])
    assert result["search"]["percent"]["tried"] == 64 * 3 * 5 * 9 + 5 * 2 * 3
    # the published number never enters the computation: the same tree, another row, same rows
    other = measure_project(str(path), {"count": 99, "percent": 1.0}, cache=cache, search=True)
    assert other["reproduced"] == result["reproduced"] and other["search"]["percent"]["hits"] == []
    assert len(other["search"]["percent"]["nearest"]) == 3


def test_hits_compare_at_printed_precision():
    rows = [{"value": 13.174}, {"value": 13.166}, {"value": 13.18}, {"value": None}]
    assert definitions.hits(rows, 13.17)["hits"] == rows[:2]
    assert definitions.hits([{"value": 4225}, {"value": 4224}], 4225)["hits"] == [{"value": 4225}]


@pytest.mark.parametrize("subject", ["Add punning", "With punning", "Apply sugar"])
def test_punning_commit_is_found_and_its_parent_measured(tmp_path, subject):
    path = tmp_path / "proj"
    init(path)
    base = commit(path, {"m.py": "f(\n    x=x,\n)\n"}, message="start")
    pun = commit(path, {"m.py": "f(x=)\n"}, message=subject)
    commit(path, {"m.py": "f(x=)\ng()\n"}, message="later: punning mentioned in the body only\n\npunning")
    gitdir = str(path / ".git")
    found, measured = punning_commit(gitdir, None)
    assert (found.sha, measured.sha) == (pun, base)
    found, measured = punning_commit(gitdir, pun)
    assert (found.sha, measured.sha) == (pun, base)
    found, measured = punning_commit(gitdir, base)
    assert found is None and measured.sha == base


def test_no_punning_commit_measures_head(tmp_path, cache):
    path = tmp_path / "proj"
    init(path)
    head = commit(path, {"m.py": "f(x=x)\n"}, message="only one")
    result = measure_project(str(path), {}, cache=cache)
    assert result["commit"] == head and result["punning_commit"] == ""
    assert result["reproduced"] == {"count": 1, "percent": 100.0, "lines_saved": None}


def test_cli_pep736_projects(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "c"))
    path = tmp_path / "proj"
    init(path)
    base = commit(path, {"m.py": "f(\n    x=x,\n)\n"})
    commit(path, {"m.py": "f(=x)\n"}, message="Apply sugar")
    assert cli.main(["reproduce", "pep736", "--project", "rich=%s" % path, "--numpy", "%s@%s" % (path, base),
                     "--project", "mine=%s" % path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["rich", "mine", "numpy"]
    for name in out:
        assert set(out[name]["published"]) == set(out[name]["reproduced"]) == {"count", "percent", "lines_saved"}
    assert out["rich"]["published"] == {"count": 566, "percent": 15.74, "lines_saved": 62}
    assert out["rich"]["reproduced"] == {"count": 1, "percent": 100.0, "lines_saved": 2}
    assert out["mine"]["published"] == {"count": None, "percent": None, "lines_saved": None}
    assert out["numpy"]["commit"] == base and out["numpy"]["reproduced"]["lines_saved"] is None
    assert cli.main(["reproduce", "pep736", "--project", "polars=%s" % path, "--project", "httpx=%s" % path,
                     "--search-definitions"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("project ") and "\npolars " in text and "\nhttpx " in text
    assert "count: 0 definitions hit on all 2 projects" in text
    assert "every file, the punning commit: 2" in text and "every file, rewrite --rewrap: 2" in text


@pytest.mark.parametrize("argv, message", [
    (["--project", "nameless"], "argument --project: expected NAME=SRC[@REV]"),
    (["--project", "=src"], "argument --project: expected NAME=SRC[@REV]"),
    (["--project", "x="], "argument --project: expected NAME=SRC[@REV]"),
    (["--project", "numpy=a", "--numpy", "b"], "project numpy given twice"),
    ([], "name at least one project"),
    (["--project", "x=/nonexistent/dir"], "no such file or directory: /nonexistent/dir"),
])
def test_cli_pep736_project_errors(argv, message, capsys):
    assert cli.main(["reproduce", "pep736"] + argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("punstats: error: ") and message in err


def test_cli_reproduce_rewrite_compares_with_the_commit(tmp_path, capsys):
    path = tmp_path / "proj"
    init(path)
    commit(path, {"a.py": "f(\n    x=x,\n    y=y,\n)\n", "b.py": "g(z=z)  # keep\nh(\n    w=w\n)\n",
                  "c.txt": "x=x\n"})
    commit(path, {"a.py": "f(=x, =y)\n", "b.py": "g(=z)  # keep\nh(\n    =w\n)\n", "c.txt": "x=\n"},
           message="Apply sugar")
    assert cli.main(["reproduce", "rewrite", str(path), "--style", "prefix", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["files"], out["identical"], out["ours_saved"], out["commit_saved"]) == (2, 1, 5, 3)
    assert out["differing"] == [{"path": "b.py", "ours_saved": 2, "commit_saved": 0, "error": ""}]
    assert cli.main(["reproduce", "rewrite", str(path), "--diffs"]) == 0
    text = capsys.readouterr().out
    assert "identical  0 of 2 files (0.0 %)" in text and "differs    a.py" in text
    assert cli.main(["reproduce", "rewrite", "%s@HEAD~1" % path]) == 2
    assert cli.main(["reproduce", "rewrite", "%s@nope" % path]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "no punning commit HEAD~1" in err[0] and "unknown revision 'nope'" in err[1]
