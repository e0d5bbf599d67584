"""``random-pypi:N --seed S`` (``sources.randompypi``, run by ``runs.ecosystem``), against a fake PyPI
on 127.0.0.1 serving its simple API root, project documents and sdists: the sample, its record, its
resume, and the errors a user sees.
"""
import hashlib
import json
import os
import random

import pytest
from fakeindex import FakePyPI, sdist

from punstats.cli import main
from punstats.model.corpus import SourceError
from punstats.runs import ecosystem as run
from punstats.sources import pypi, randompypi

#: As the index lists them: not normalised, not sorted, one name twice (after PEP 503), one invalid.
LISTED = ["Zeta_Pkg", "alpha", "Beta.Two", "gamma", "delta", "epsilon", "eta", "theta", "iota", "kappa",
          "ALPHA", "-bad-"]
NAMES = sorted({pypi.canonical_name(n) for n in LISTED if n != "-bad-"})  # the population: 10 projects

#: ``theta`` has no release file punstats reads; ``zeta-pkg``'s sdist ships a ``.gitignore`` naming a file in it.
NO_FILES = "theta"


def module(i):
    return "def m(%s):\n    f(%s=%s)\n    h(k=1)\n" % ("v" * i, "v" * i, "v" * i)


@pytest.fixture
def index(tmp_path, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    fake = FakePyPI()
    for i, name in enumerate(NAMES, 1):
        files = {"%s/m.py" % name: module(i)}
        if name == "zeta-pkg":
            files.update({".gitignore": "zeta/_version.py\n", "zeta/_version.py": "v = g(version=version)\n",
                          "zeta/__pycache__/stale.py": "g(version=version)\n"})
        entries = [] if name == NO_FILES else [("%s-1.0.tar.gz" % name, sdist(name, "1.0", files), "sdist")]
        fake.project(name, "1.0", entries)
    fake.body = fake.simple(LISTED)
    yield fake
    fake.close()


def corpus(tmp_path, index, *extra, n=4, out="out"):
    return main(["corpus", "random-pypi:%d" % n, "--index-url", index.index_url, "-o", str(tmp_path / out),
                 "-j", "1", "--no-figure", "--json", *extra])


def test_the_list_is_read_normalised_and_counted(index):
    names, invalid, digest, size, _ = randompypi.read_list(randompypi.simple_url(index.index_url))
    assert (names, invalid) == (NAMES, 1)
    assert (digest, size) == (hashlib.sha256(index.body).hexdigest(), len(index.body))


def test_a_saved_list_read_in_any_chunks_gives_the_same_names(tmp_path, index, monkeypatch):
    saved = tmp_path / "simple.html"
    saved.write_bytes(index.body)
    whole = randompypi.read_list(str(saved))
    monkeypatch.setattr(randompypi, "_CHUNK", 7)  # every anchor cut by a chunk's end somewhere
    assert randompypi.read_list(str(saved))[:4] == whole[:4] == (NAMES, 1, hashlib.sha256(index.body).hexdigest(),
                                                                 len(index.body))


def test_a_list_full_of_unclosed_anchors_is_read_in_one_pass(tmp_path):
    """``<a`` never closed, a megabyte of it: each is given up at the next ``<``.  An anchor
    pattern that looked for its ``>`` past other tags went back over the rest of the chunk for
    each one (quadratic: minutes for this list, which is read here in milliseconds)."""
    saved = tmp_path / "simple.html"
    saved.write_bytes(b"<a " * 350_000 + b'<a href="/simple/real/">Real</a>\n' + b'<a title="x <b>">bad</a>')
    assert randompypi.read_list(str(saved))[:2] == (["real"], 0)


def test_the_same_seed_draws_the_same_sample_whatever_the_list_s_order():
    shuffled = NAMES[::-1]
    assert randompypi.draw(NAMES, 4, 7) == randompypi.draw(sorted(shuffled), 4, 7)
    drawn = [p.name for p in randompypi.draw(NAMES, 4, 7)]
    assert drawn == random.Random(7).sample(NAMES, 4) and len(set(drawn)) == 4
    assert [p.rank for p in randompypi.draw(NAMES, 4, 7)] == [1, 2, 3, 4]  # the rank is the draw order
    assert drawn != [p.name for p in randompypi.draw(NAMES, 4, 8)]


def test_a_run_scans_the_sample_and_records_the_list_the_seed_and_each_skip(tmp_path, index, capsys):
    assert corpus(tmp_path, index, "--seed", "3", n=10) == 0
    result = json.loads(capsys.readouterr().out)
    drawn = random.Random(3).sample(NAMES, 10)
    assert [r["project"] for r in result["projects"]] == drawn
    by = {r["project"]: r for r in result["projects"]}
    assert (by[NO_FILES]["status"], by[NO_FILES]["reason"]) == ("skipped", pypi.NO_FILES)  # not drawn again
    assert by["zeta-pkg"]["summary"]["files"] == 2  # its .gitignore does not drop what it shipped
    assert by["zeta-pkg"]["summary"]["punnable"] == 2  # and what is still left out is recorded, by reason:
    assert by["zeta-pkg"]["summary"]["skipped_dirs"] == {"cache": 1}
    recorded = json.loads((tmp_path / "out" / run.RUN_FILE).read_text())
    assert recorded["list"] == dict(result["ecosystem"]["list"], last_update=recorded["list"]["last_update"])
    assert {k: v for k, v in recorded["list"].items() if k != "last_update"} == {
        "list": index.base + "/simple/", "projects_in_list": 10, "sha256": hashlib.sha256(index.body).hexdigest(),
        "bytes": len(index.body), "invalid_names": 1, "seed": 3, "method": randompypi.METHOD, "drawn": drawn}
    assert recorded["rules"]["gitignore"] is False
    assert (result["ecosystem"]["scanned"], result["ecosystem"]["skipped"]) == (9, 1)


def test_a_run_resumes_its_own_sample_and_refuses_another_seed(tmp_path, index, capsys):
    assert corpus(tmp_path, index, "--seed", "5") == 0
    first = json.loads(capsys.readouterr().out)
    journal = (tmp_path / "out" / run.JOURNAL).read_text()
    index.simple(LISTED + ["newcomer"])  # the index has changed since: the resume keeps the sample drawn
    assert corpus(tmp_path, index, "--seed", "5", "--skip-existing") == 0
    again = json.loads(capsys.readouterr().out)
    assert dict(again["ecosystem"], cache=None) == dict(first["ecosystem"], cache=None)
    assert index.requests.count("/simple/") == 1  # the list was not read again
    assert corpus(tmp_path, index, "--seed", "6", "--skip-existing") == 2
    err = capsys.readouterr().err
    assert err == ("punstats: error: this run drew random-pypi:4 --seed 5 from %s/simple/; use another -o for "
                   "random-pypi:4 --seed 6 from %s/simple/\n" % (index.base, index.base))
    assert (tmp_path / "out" / run.JOURNAL).read_text() == journal  # nothing lost


@pytest.mark.parametrize("argument, extra, message", [
    ("random-pypi:4", ["--seed", "x1"], "--seed: expected a whole number from 0 to %d, got 'x1'"
     % randompypi.MAX_SEED),
    ("random-pypi:4", ["--seed", "-1"], "--seed: expected a whole number from 0 to %d, got '-1'"
     % randompypi.MAX_SEED),
    ("random-pypi:4", [], "random-pypi:4 needs --seed S (a whole number; the same seed and list draw the same "
                          "sample)"),
    ("random-pypi:11", ["--seed", "1"], "random-pypi:11 asks for more projects than the list holds (10)"),
    ("random-pypi:0", ["--seed", "1"], "expected random-pypi:N with N a whole number from 1 to 999999999, "
     "got random-pypi:0"),
    ("top-pypi:4", ["--seed", "1"], "--seed draws random-pypi:N; top-pypi:4 is a ranked list"),
    ("random-pypi:4", ["--seed", "1", "--top-pypi-list", "x.json"],
     "--top-pypi-list reads the list of top-pypi:N, not of random-pypi:4"),
    ("random-pypi:4", ["--seed", "1", "--random-pypi-list", "."], "the project list . is not a regular file"),
])
def test_bad_arguments_are_one_line_errors_and_start_nothing(tmp_path, index, capsys, argument, extra, message):
    code = main(["corpus", argument, "--index-url", index.index_url, "-o", str(tmp_path / "out"), *extra])
    assert code == 2 and capsys.readouterr().err == "punstats: error: %s\n" % message
    assert not (tmp_path / "out").exists()


def test_a_json_or_empty_list_is_one_line_naming_it(tmp_path):
    listing = tmp_path / "list.json"
    listing.write_text('{"meta": {"api-version": "1.0"}, "projects": [{"name": "a"}]}')
    with pytest.raises(SourceError, match=r"list.json: a JSON project list; punstats reads the simple API's HTML"):
        randompypi.sample(1, 0, str(listing))
    listing.write_text("<html><body></body></html>")
    with pytest.raises(SourceError, match=r"list.json: no project in the list \(expected a PEP 503"):
        randompypi.sample(1, 0, str(listing))


def test_the_simple_root_is_beside_the_json_api():
    assert randompypi.simple_url(pypi.INDEX_URL) == "https://pypi.org/simple/"
    assert randompypi.simple_url("http://127.0.0.1:8080/mirror/pypi/") == "http://127.0.0.1:8080/mirror/simple/"


def test_scan_points_to_corpus(capsys):
    assert main(["scan", "random-pypi:3"]) == 2
    assert "is an argument of punstats corpus" in capsys.readouterr().err


def test_a_recorded_sample_is_used_only_as_a_list_of_project_names():
    provenance = randompypi.Sample("u", "d", randompypi.draw(NAMES, 2, 1), 1, 10, "0" * 64, 5).provenance()
    assert randompypi.recorded(provenance, 2, 1, "u").provenance() == provenance
    assert randompypi.recorded({"list": "u"}, 2, 1, "u") is None  # not a sample: the run says what it holds
    for drawn in (["../../escaped"], ["Alpha"], "alpha", [1]):
        with pytest.raises(SourceError, match=r"^the recorded sample is unreadable \(not a list of PEP 503 names\)"):
            randompypi.recorded(dict(provenance, drawn=drawn), 1, 1, "u")
    for key, value in (("drawn", ["alpha", "alpha"]), ("projects_in_list", "ten"), ("bytes", [5]),
                       ("invalid_names", 1.5), ("seed", "1"), ("projects_in_list", True)):
        with pytest.raises(SourceError, match=r"^the recorded sample is unreadable"):
            randompypi.recorded(dict(provenance, **{key: value}), 2, 1, "u")


def test_a_random_run_is_read_as_a_draw_by_table_and_report(tmp_path, index, capsys):
    assert corpus(tmp_path, index, "--seed", "3", n=4) == 0
    capsys.readouterr()
    assert main(["table", str(tmp_path / "out"), "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "| Drawn |" in text and "4 PyPI projects drawn at random (seed 3)" in text
    assert "most-downloaded" not in text and "top 4" not in text
    assert main(["report", str(tmp_path / "out"), "-o", str(tmp_path / "r.md"), "--no-figures"]) == 0
    report = (tmp_path / "r.md").read_text()
    reproduce = report.split("## Reproduce", 1)[1]
    assert ("punstats corpus random-pypi:4 -o data/random-pypi-4-seed-3 --seed 3 --random-pypi-list %s/simple/ "
            "--index-url %s" % (index.base, index.index_url)) in reproduce
    assert "punstats report data/random-pypi-4-seed-3" in reproduce


def test_a_run_s_default_folder_is_the_name_its_tables_give_it(tmp_path, index, monkeypatch, capsys):
    from punstats.store.ecosystem import read_run
    monkeypatch.chdir(tmp_path)
    assert main(["corpus", "random-pypi:2", "--seed", "5", "--index-url", index.index_url, "-j", "1",
                 "--no-figure", "-q"]) == 0
    (folder,) = os.listdir(tmp_path / "data")
    assert folder == "random-pypi-2-seed-5" == read_run(str(tmp_path / "data" / folder)).name
