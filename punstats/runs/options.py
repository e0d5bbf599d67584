"""``ScanOptions``: what one scan measures and how it runs, as one frozen value.

``punstats.scan(...)`` takes them as keywords and the command line as
options; the pipeline (``runs.scan``) passes this one value along instead of
each setting separately, and records ``rules()`` with every stored result.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from punstats.discover.tree import DEFAULT_EXTENSIONS, EXTRA_EXTENSIONS, check_named_file
from punstats.engines.base import EngineError
from punstats.extract.notebook import NOTEBOOK_SUFFIX, NOTEBOOK_VERSION
from punstats.model.corpus import Corpus
from punstats.model.errors import OptionError
from punstats.model.kinds import Kind
from punstats.model.limits import DEFAULT_MAX_BYTES, DEFAULT_PATTERN_MEMORY, DEFAULT_PATTERN_TIMEOUT
from punstats.store.rules import DEFAULT_LONG_THRESHOLD, DEFAULT_TEST_RULE, TestRule, parse_test_rule

#: The definition every stored result records.
DEFINITION = "ast.keyword of ast.Call, arg not None, value ast.Name with id == arg"


def as_rule(test_rule: Union[str, TestRule]) -> TestRule:
    return test_rule if isinstance(test_rule, TestRule) else parse_test_rule(test_rule)


@dataclass(frozen=True)
class ScanOptions:
    """The settings of one scan (see ``punstats.scan`` for each)."""

    jobs: Optional[int] = None  # None: all cores
    test_rule: TestRule = DEFAULT_TEST_RULE
    long_threshold: int = DEFAULT_LONG_THRESHOLD
    extensions: Tuple[str, ...] = tuple(DEFAULT_EXTENSIONS)
    follow_links: bool = False
    exclude_dirs: bool = True
    max_bytes: int = DEFAULT_MAX_BYTES
    rev: Optional[str] = None
    python: Optional[str] = None  # the python engine's interpreter (``--python PATH``: ``--engine python:PATH``)
    engine: str = "local"  # a name of ``engines.registry.ENGINES``; NAME:ARGUMENT is split into the fields
    scheduler: Optional[str] = None
    lines_saved: bool = False
    gitignore: bool = True  # leave out what .gitignore files name (a directory; not a revision)
    exclude: Tuple[str, ...] = ()  # and what these globs name (.gitignore syntax)
    patterns: Tuple[Kind, ...] = ()  # user patterns, loaded (``extract.plugins.load``)
    pattern_timeout: float = DEFAULT_PATTERN_TIMEOUT  # seconds a pattern may take per file (0: no limit)
    pattern_memory: float = DEFAULT_PATTERN_MEMORY  # megabytes more a worker matching patterns may take (0: any)

    def __post_init__(self) -> None:
        """``engine`` as the registry names it, its argument in ``scheduler`` or ``python``."""
        name, colon, argument = self.engine.partition(":")
        if colon and argument and name in ("dask", "python"):
            field = "scheduler" if name == "dask" else "python"
            if getattr(self, field) not in (None, argument):
                raise EngineError("--engine %s and --%s %s name two different %ss"
                                  % (self.engine, field, getattr(self, field), field))
            object.__setattr__(self, "engine", name)
            object.__setattr__(self, field, argument)
        elif self.engine == "local" and self.python is not None:  # --python PATH: the python engine
            object.__setattr__(self, "engine", "python")

    @property
    def engine_spec(self) -> str:
        """``NAME[:ARGUMENT]`` as ``--engine`` takes it: the engine and its argument."""
        argument = {"dask": self.scheduler, "python": self.python}.get(self.engine)
        return self.engine + (":" + argument if argument else "")

    @classmethod
    def of(cls, test_rule: Union[str, TestRule] = DEFAULT_TEST_RULE,
           extensions: Sequence[str] = DEFAULT_EXTENSIONS, patterns: Sequence[Any] = (),
           **settings: Any) -> "ScanOptions":
        """Options from the keywords ``punstats.scan`` takes (a rule may be its text; ``patterns``
        specs as ``--pattern`` takes them, or ``Kind`` values: loaded here)."""
        from punstats.extract.plugins import load
        return cls(test_rule=as_rule(test_rule), extensions=tuple(extensions), patterns=load(patterns),
                   **settings)

    @classmethod
    def given(cls, options: Optional["ScanOptions"], settings: Dict[str, Any]) -> "ScanOptions":
        """``options``, or the options of ``settings`` (``punstats.scan``'s keywords); not both."""
        if options is None:
            return cls.of(**settings)
        given, default = cls.of(**settings), cls()
        both = [f.name for f in fields(cls) if getattr(given, f.name) != getattr(default, f.name)]
        if both:
            raise TypeError("give the scan's settings as options or as keywords, not both (%s)" % ", ".join(both))
        return options

    def check(self) -> None:
        """Before any work: the engine exists here and goes with the other options."""
        from punstats.engines.registry import check_engine
        check_engine(self.engine_spec)
        if self.scheduler is not None and self.engine != "dask":
            raise EngineError("a scheduler address needs the dask engine (--engine dask)")
        if self.python is not None and self.engine != "python":
            raise EngineError("--python runs its own worker processes; it needs the local engine")
        if self.patterns and self.engine == "dask":  # sent to the workers by their source
            from punstats.extract.shipping import ship
            ship(self.patterns)
        if self.scheduler is not None:  # before any work, even when the cache would leave none to do
            from punstats.engines import dask
            dask.probe_scheduler(self.scheduler, dask.CONNECT_TIMEOUT)

    def check_revision(self) -> None:
        """``OptionError`` for an option that applies to a directory only, given for a revision."""
        if self.lines_saved:
            raise OptionError("lines saved are measured on a directory, not a revision: check it out first")
        if self.exclude:
            raise OptionError("--exclude applies to directories; a revision is read from git as committed")

    def check_corpus(self, corpus: Corpus) -> None:
        """Before any work: the options apply to ``corpus``, and a file named on its own
        ends as Python files do (``.py``, ``.pyw``, ``.pyi``), is a notebook (``.ipynb``), ends
        as ``extensions`` says or, without an ending, is a script whose ``#!`` line names python."""
        if corpus.is_revision:
            self.check_revision()
        if corpus.is_revision or corpus.archive is not None:
            return
        endings = tuple(dict.fromkeys(tuple(DEFAULT_EXTENSIONS) + tuple(EXTRA_EXTENSIONS) + (NOTEBOOK_SUFFIX,)
                                      + self.extensions))  # a notebook named alone is read as one
        ending = os.path.splitext(corpus.root)[1]
        check_named_file(corpus.root, corpus.source, endings,
                         "; to scan it as one, add --extensions %s" % ending if ending else "")

    def rules(self) -> Dict[str, Any]:
        """What decides the counts, as every stored result records it."""
        return {
            "test_rule": self.test_rule.label,
            "long_threshold": self.long_threshold,
            "extensions": list(self.extensions),
            "follow_links": self.follow_links,
            "exclude_dirs": self.exclude_dirs,
            "max_bytes": self.max_bytes,
            "definition": DEFINITION,
            "gitignore": self.gitignore,
            "exclude": list(self.exclude),
            **({"patterns": [kind.provenance() for kind in self.patterns]} if self.patterns else {}),
            **({"notebook_version": NOTEBOOK_VERSION} if any(e.endswith(NOTEBOOK_SUFFIX) for e in self.extensions)
               else {}),  # how notebooks were read (``extract.notebook``), when they were
        }

