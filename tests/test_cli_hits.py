"""``punstats hits`` (cli/hits.py): the lines on standard output, -n with its count on standard
error, JSON lines, the test filters, and one line with exit status 2 for what cannot be shown."""
import json

import test_cli_label
from test_cli_label import run

#: the fixture of punstats label's tests: a small tree and its stored scan, (root, directory)
scanned = test_cli_label.scanned


def test_hits_prints_one_line_per_hit(scanned, capsys):
    _, out = scanned
    assert run(capsys, "hits", out) == (0, "m.py:2:14:     return g(x=x)\nm.py:5:3: h(a=a)\n"
                                                "tests/test_m.py:1:5: run(value=value)\n", "")
    assert run(capsys, "hits", out, "--outside-tests")[1].count("\n") == 2
    assert run(capsys, "hits", out, "--tests-only")[1] == "tests/test_m.py:1:5: run(value=value)\n"


def test_n_cuts_and_says_so_on_standard_error(scanned, capsys):
    _, out = scanned
    assert run(capsys, "hits", out, "-n", "2") == (
        0, "m.py:2:14:     return g(x=x)\nm.py:5:3: h(a=a)\n", "punstats: 2 of 3 hits shown; -n 0 for all\n")
    assert run(capsys, "hits", out, "-n", "3")[2] == "" and run(capsys, "hits", out, "-n", "0")[2] == ""
    status, out, err = run(capsys, "hits", out, "-n", "-1")
    assert status == 2 and out == "" and err.count("\n") == 1 and "expected 0 to 1000000000000 hits, got -1" in err


def test_json_lines(scanned, capsys):
    _, out = scanned
    status, out, _ = run(capsys, "hits", out, "--json", "--tests-only")
    assert status == 0
    assert [json.loads(line) for line in out.splitlines()] == [{
        "path": "tests/test_m.py", "line": 1, "column": 5, "end_line": 1, "end_column": 16, "kind": "call",
        "name": "value", "value": "value", "in_test": True, "cell": None, "source_line": "run(value=value)"}]


def test_what_cannot_be_shown_is_one_line_and_exit_2(scanned, capsys, tmp_path):
    _, out = scanned
    assert run(capsys, "hits", out, "--kind", "nearmiss") == (
        2, "", "punstats: error: unknown kind 'nearmiss' (did you mean near_miss?); %s holds hits of call, "
               "attribute, near_miss, dict_literal, class\n" % out)
    status, _, err = run(capsys, "hits", out, "--kind", "calls_mixed")
    assert status == 2 and err.startswith("punstats: error: calls_mixed is a count") and err.count("\n") == 1
    (tmp_path / "empty").mkdir()
    status, _, err = run(capsys, "hits", str(tmp_path / "empty"), "--kind", "call")
    assert status == 2 and "is not a stored scan" in err and err.count("\n") == 1
    status, _, err = run(capsys, "hits", out, "--tests-only", "--outside-tests")
    assert status == 2 and "not allowed with" in err


def test_no_hits_is_said_on_standard_error(scanned, capsys):
    _, out = scanned
    assert run(capsys, "hits", out, "--kind", "class") == (0, "", "punstats: no hits of class in %s\n" % out)
    assert run(capsys, "hits", out, "--kind", "near_miss", "--tests-only")[2] == (
        "punstats: no hits of near_miss in tests in %s\n" % out)
