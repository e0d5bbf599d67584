"""A small finished ecosystem run (``corpus top-pypi:7``) made against a fake PyPI on 127.0.0.1.

Seven projects, each there for a reason: tests and a user pattern (alpha), a pure-Python
wheel (beta), only platform wheels, so skipped (gamma), no keyword argument at all, so
shares of 0/0 (delta), f(x=x) in tests only and a skipped ``.tox`` directory (kappa), more
than one module (iota), and real code: the running interpreter's ``unittest`` package
(stdunit; with its tests up to Python 3.11).  The run counts a user pattern (``try_finally``,
per ``Try`` node).  ``make_run`` runs the command line, as a user does, and returns the run's
directory and what the command printed.
"""
import contextlib
import io
import os
import sysconfig

from fakeindex import FakePyPI, sdist, top_list, wheel

from punstats.cli import main

TRIES = '''\
import ast

import punstats


@punstats.pattern("try_finally", label="try with finally", per="Try")
def match(node, parents):
    return isinstance(node, ast.Try) and bool(node.finalbody)
'''

FINALLY = "def fin():\n    try:\n        pass\n    finally:\n        return 1\n"
SHARED = "def shared(verbose, name):\n    return g(verbose=verbose, name=name, other=1)\n"


def code(n):
    """A module with ``n`` punnable arguments of growing length, one call with a non-punnable one."""
    calls = "".join("    f(%s=%s)\n" % ("v" * (i + 1), "v" * (i + 1)) for i in range(n))
    return "def m(%s):\n%s    h(k=1)\n" % (", ".join("v" * (i + 1) for i in range(n)), calls or "    pass\n")


NAMES = ["alpha", "beta", "gamma", "delta", "iota", "kappa", "stdunit"]


def stdlib_unittest():
    """Real code: the running interpreter's ``unittest`` package ({path: text}), its tests under ``unittest/test``."""
    root = os.path.join(sysconfig.get_path("stdlib"), "unittest")
    files = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                files[os.path.relpath(path, os.path.dirname(root)).replace(os.sep, "/")] = handle.read()
    return files


def populate(index):
    index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {
        "alpha/core.py": code(3) + FINALLY, "alpha/shared.py": SHARED, "tests/test_core.py": code(2) + FINALLY * 2}),
        "sdist")])
    index.project("beta", "2.0", [("beta-2.0-py3-none-any.whl", wheel({
        "beta/__init__.py": code(1), "beta/shared.py": SHARED}), "bdist_wheel")])
    index.project("gamma", "3.0", [
        ("gamma-3.0-cp312-cp312-win_amd64.whl", wheel({"gamma/x.py": code(1)}), "bdist_wheel")])
    index.project("delta", "0.1", [("delta-0.1.tar.gz", sdist("delta", "0.1", {"d.py": "x = 1\n\n# c\n"}), "sdist")])
    index.project("iota", "4.0", [("iota-4.0.tar.gz", sdist("iota", "4.0", {
        "iota/a.py": code(6), "iota/b.py": code(0) + FINALLY, "iota/tests/test_a.py": code(1)}), "sdist")])
    index.project("kappa", "1.1", [("kappa-1.1.tar.gz", sdist("kappa", "1.1", {
        "kappa/m.py": "g(k=1)\n", "kappa/tests/test_m.py": code(2),
        "kappa/.tox/py312/leftover.py": code(5)}), "sdist")])  # a directory every scan skips: left out
    index.project("stdunit", "3.0", [("stdunit-3.0.tar.gz", sdist("stdunit", "3.0", stdlib_unittest()), "sdist")])


def make_run(root, *extra, index=None):
    """The run in ``root/out`` (the list, the pattern file and the downloads beside it), against
    ``index`` (default: a fake index of its own); (its directory, the command's standard output)."""
    own = index is None
    index = FakePyPI() if own else index
    try:
        populate(index)
        listing = top_list(root / "list.json", NAMES)
        plugin = root / "tries.py"
        plugin.write_text(TRIES)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main(["corpus", "top-pypi:%d" % len(NAMES), "--top-pypi-list", listing, "--index-url",
                           index.index_url, "-o", str(root / "out"), "-j", "1", "--pattern", str(plugin), *extra])
        assert status == 0
    finally:
        if own:
            index.close()
    return str(root / "out"), out.getvalue()
