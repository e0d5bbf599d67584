"""Shared fixtures: a real corpus, scanned once per test session.

The corpus is a copy of a few packages of the running interpreter's standard
library (``email``, ``json``, ``unittest``): real code, always present, and
small enough to scan in about a second.  Nothing under ``data/`` or
``reports/`` is used.
"""
import dataclasses
import os
import shutil
import sysconfig

import pytest
from fakeindex import FakePyPI

import punstats
from punstats.sources.local import stdlib_corpus

STDLIB_SUBSET = ("email", "json", "unittest")


@pytest.fixture(scope="session", autouse=True)
def private_cache_dir(tmp_path_factory):
    """Every test (and every command it runs) uses a cache of its session, never the user's."""
    directory = str(tmp_path_factory.mktemp("cache"))
    previous = os.environ.get("PUNSTATS_CACHE_DIR")
    os.environ["PUNSTATS_CACHE_DIR"] = directory
    yield directory
    if previous is None:
        del os.environ["PUNSTATS_CACHE_DIR"]
    else:
        os.environ["PUNSTATS_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def stdlib_subset_dir(tmp_path_factory) -> str:
    """A directory holding copies of ``STDLIB_SUBSET`` (without caches)."""
    root = tmp_path_factory.mktemp("stdlib-subset")
    stdlib = sysconfig.get_path("stdlib")
    for name in STDLIB_SUBSET:
        shutil.copytree(os.path.join(stdlib, name), root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return str(root)


@pytest.fixture(scope="session")
def stdlib_subset_scan_dir(stdlib_subset_dir, tmp_path_factory) -> str:
    """A stored scan (``punstats.load`` reads it) of ``stdlib_subset_dir``."""
    corpus = dataclasses.replace(stdlib_corpus(), name="stdlib-subset", root=stdlib_subset_dir,
                                 source=stdlib_subset_dir)
    result = punstats.scan(corpus=corpus, jobs=1)
    directory = str(tmp_path_factory.mktemp("scans") / "stdlib-subset")
    result.save(directory)
    return directory


@pytest.fixture
def index():
    """A fake PyPI on 127.0.0.1 (``fakeindex.FakePyPI``), empty, closed after the test; a test file
    that needs it filled defines its own."""
    fake = FakePyPI()
    yield fake
    fake.close()
