"""Every fault a clear outcome: files whose coding cookie names a codec that fails
as a whole are that file's decode_error (scan, --python, rewrite, reproduce), and a
directory's git metadata is read only from small regular files."""
import json
import os
import subprocess
import sys

import pytest

import punstats
from punstats import cli
from punstats.sources import resolve
from punstats.sources.local import git_head, read_small

BAD_CODECS = {
    "undefined.py": (b"# coding: undefined\nf(x=x)\n", "decoding with 'undefined' codec failed"),
    "puny.py": (b"# coding: punycode\nabc-\xff\xfe\n", "'ascii' codec can't decode byte 0xff"),
    "puny2.py": (b"# coding: punycode\nf-9zzzzzzzzz(x=x)\n", "decoding with 'punycode' codec failed"),
    "hex.py": (b"# coding: hex\nf(x=x)\n", "'hex' is not a text encoding"),
}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for name, (data, _) in BAD_CODECS.items():
        (root / name).write_bytes(data)
    (root / "good.py").write_text("f(alpha=alpha)\nf(beta=beta)\n")
    return root


def _check_scan(result):
    files = result.files.set_index("path")
    for name, (_, message) in BAD_CODECS.items():
        assert files.loc[name, "status"] == "decode_error", name
        assert message in files.loc[name, "error"], (name, files.loc[name, "error"])
    assert files.loc["good.py", "status"] == "ok"
    assert result.summary["punnable"] == 2 and result.summary["files"] == 5


def test_a_codec_that_fails_is_that_files_decode_error(tree):
    _check_scan(punstats.scan(str(tree), jobs=1, cache=False))


def test_the_same_under_another_interpreter(tree):
    _check_scan(punstats.scan(str(tree), jobs=1, cache=False, python=sys.executable))


def test_rewrite_records_them_and_rewrites_the_rest(tree, capsys):
    assert cli.main(["rewrite", str(tree), "--diff", "-j", "1"]) == 0
    captured = capsys.readouterr()
    assert "+f(alpha=)" in captured.out
    errors = captured.err.splitlines()
    for name, (_, message) in BAD_CODECS.items():
        assert any(line.startswith("untouched  %s: decode_error: " % name) and message in line for line in errors)
    assert "untouched  4 files (do not parse, or failed the round trip)" in errors


def test_reproduce_on_a_directory_goes_on(tree, capsys):
    assert cli.main(["reproduce", "angelico", str(tree), "--json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corrected"]["total"] == 2


def _fifo_repo(tmp_path, head):
    root = tmp_path / "work"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text("f(x=x)\n")
    head(str(root / ".git" / "HEAD"))
    return root


@pytest.mark.parametrize("head", [os.mkfifo, lambda path: os.symlink("/dev/zero", path),
                                  lambda path: open(path, "wb").write(b"ref: " + b"x" * 10_000_000)],
                         ids=["fifo", "dev-zero", "huge"])
def test_git_metadata_that_is_not_a_small_regular_file_is_ignored(tmp_path, head):
    root = _fifo_repo(tmp_path, head)
    # in a child with a time limit: the defect this guards against is a hang
    code = ("import sys; sys.path.insert(0, %r); from punstats.sources import resolve; "
            "c = resolve(%r); print(repr(c.revision))" % (os.getcwd(), str(root)))
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == "''"
    assert git_head(str(root)) == ("", "")
    assert punstats.scan(str(root), jobs=1, cache=False).summary["punnable"] == 1


def test_read_small_refuses_what_is_not_a_small_regular_file(tmp_path):
    os.mkfifo(str(tmp_path / "fifo"))
    (tmp_path / "ok").write_text("ref: refs/heads/main\n")
    (tmp_path / "big").write_bytes(b"x" * 70_000)
    assert read_small(str(tmp_path / "ok")) == "ref: refs/heads/main\n"
    assert [read_small(str(tmp_path / n)) for n in ("fifo", "big", "missing")] == [None, None, None]
    assert read_small("/dev/zero") is None and read_small(str(tmp_path)) is None
    assert resolve(str(tmp_path / "ok")).revision == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_stdout_on_a_full_device_is_one_line_and_exit_2(tree):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "punstats", "scan", str(tree), "--no-save", "-q", "--no-cache"],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                              env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert (done.returncode, done.stderr) == (2, "punstats: error: cannot write the output: No space left on device\n")
