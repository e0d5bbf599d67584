"""The engines, one row each: name, one-line help, check, factory (``ENGINES``).

An engine is chosen as ``NAME`` or ``NAME:ARGUMENT`` (``--engine``): ``local``,
``dask`` or ``dask:tcp://host:8786``, ``python:/usr/bin/python3.8``.  ``check``
says before any work whether it can run here (an ``EngineError`` otherwise);
``factory`` opens it for one scan, as a context manager giving an ``Opened``:
``run(candidates, sink)`` extracts and hands the results to the sink, and
``parser`` names the interpreter that parses.  The parser is the cache's key,
so the cache (``engines.cached``) wraps every engine alike: ``--python`` is
the ``python`` engine, its results reused as any other's.  ``--engine``'s help
and the error for an unknown engine are read from this table.
"""
from __future__ import annotations

import contextlib
import platform
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Iterator, List, Optional, Sequence, Tuple

from punstats.engines.base import EngineError, Progress, Sink
from punstats.model.discovery import Candidate
from punstats.model.records import Extraction

#: Extracts candidates, handing results to the sink as they arrive (kept nowhere else).
Run = Callable[[Sequence[Candidate], Optional[Sink]], List[Extraction]]


@dataclass(frozen=True)
class Opened:
    """An engine ready for one scan."""

    run: Run
    python: Tuple[str, str]  # the parser's (version, implementation), as stored results record it

    @property
    def parser(self) -> str:
        """The cache's parser key: ``CPython 3.11.7``."""
        from punstats.engines.cached import parser_key  # the key is the cache's to write
        return parser_key(self.python[1], self.python[0])


@dataclass(frozen=True)
class Setup:
    """What an engine is opened with for one scan."""

    argument: Optional[str] = None  # what followed NAME: (a scheduler, an interpreter)
    jobs: Optional[int] = None
    max_bytes: int = 0
    progress: Optional[Progress] = None
    workers: Any = None  # the local engine's pool, started while discovering (``engines.local.Workers``)
    patterns: Tuple[Any, ...] = ()  # user patterns (``model.kinds.Kind``) every file is matched with too
    pattern_timeout: float = 0.0  # seconds they may take per file (0: no limit)
    pattern_memory: float = 0.0  # megabytes more a worker matching them may take (0: no limit)


@dataclass(frozen=True)
class Engine:
    """One row of the registry."""

    name: str
    help: str
    argument: str  # what NAME:ARGUMENT takes ("" for none)
    required: bool  # whether the argument must be given
    check: Callable[[Optional[str]], None]
    factory: Callable[[Setup], ContextManager[Opened]]

    @property
    def usage(self) -> str:
        """``python:PATH``, ``dask[:ADDRESS]``, ``local``."""
        if not self.argument:
            return self.name
        return "%s:%s" % (self.name, self.argument) if self.required else "%s[:%s]" % (self.name, self.argument)


def _this_python() -> Tuple[str, str]:
    return platform.python_version(), platform.python_implementation()


def _no_check(argument: Optional[str]) -> None:
    pass


@contextlib.contextmanager
def _local(setup: Setup) -> Iterator[Opened]:
    from punstats.engines.local import run

    def extract(chunk: Sequence[Candidate], sink: Optional[Sink] = None) -> List[Extraction]:
        return run(chunk, jobs=setup.jobs, max_bytes=setup.max_bytes, progress=setup.progress, on_batch=sink,
                   keep=False, workers=setup.workers, patterns=setup.patterns, timeout=setup.pattern_timeout,
                   memory=setup.pattern_memory)
    yield Opened(extract, _this_python())


def _check_dask(argument: Optional[str]) -> None:
    from punstats.engines.base import distributed_module
    distributed_module()


@contextlib.contextmanager
def _dask(setup: Setup) -> Iterator[Opened]:
    from punstats.engines.dask import run_dask

    def extract(chunk: Sequence[Candidate], sink: Optional[Sink] = None) -> List[Extraction]:
        return run_dask(chunk, scheduler=setup.argument, jobs=setup.jobs, max_bytes=setup.max_bytes,
                        progress=setup.progress, on_batch=sink, keep=False, patterns=setup.patterns,
                        pattern_timeout=setup.pattern_timeout)
    yield Opened(extract, _this_python())


@contextlib.contextmanager
def _python(setup: Setup) -> Iterator[Opened]:
    from punstats.engines import interp
    assert setup.argument
    with interp.Pool(setup.argument, jobs=min(setup.jobs or 1, 2)) as pool:
        def extract(chunk: Sequence[Candidate], sink: Optional[Sink] = None) -> List[Extraction]:
            extractions = interp.extract_candidates(chunk, pool, setup.max_bytes, None, setup.progress,
                                                      setup.patterns, setup.pattern_timeout, setup.pattern_memory)
            if sink is not None:
                sink(range(len(extractions)), extractions)
            return []
        yield Opened(extract, (pool.info["python"], pool.info["implementation"]))


#: Every engine, in the order ``--engine``'s help lists them.
ENGINES: Tuple[Engine, ...] = (
    Engine("local", "in this process, or a process pool of -j workers (the default)", "", False,
           _no_check, _local),
    Engine("dask", "a Dask cluster: a running scheduler at ADDRESS (or --scheduler), else a local "
                   "cluster of -j workers; needs dask[distributed]", "ADDRESS", False, _check_dask, _dask),
    Engine("python", "workers under another interpreter, Python >= 3.8 (--python PATH is short for it)",
           "PATH", True, _no_check, _python),
)

NAMES = tuple(engine.name for engine in ENGINES)


def choices() -> str:
    """The registry in one line: ``local, dask[:ADDRESS], python:PATH``."""
    return ", ".join(engine.usage for engine in ENGINES)


def split(spec: str) -> Tuple[Engine, Optional[str]]:
    """(the engine, its argument or None) of ``NAME`` or ``NAME:ARGUMENT``; an
    ``EngineError`` naming the registry's choices for an unknown name or a missing argument."""
    name, colon, argument = spec.partition(":")
    for engine in ENGINES:
        if engine.name == name:
            break
    else:
        raise EngineError("unknown engine %r (choose from %s)" % (name, choices()))
    if colon and not engine.argument:
        raise EngineError("the %s engine takes no argument, not %r" % (name, argument))
    if engine.required and not argument:
        raise EngineError("the %s engine needs its %s: --engine %s" % (name, engine.argument, engine.usage))
    return engine, argument or None


def check_engine(spec: str) -> None:
    """``EngineError`` unless ``spec`` (``NAME[:ARGUMENT]``) names an engine that can run here."""
    engine, argument = split(spec)
    engine.check(argument)


def help_text() -> str:
    """``--engine``'s help: one clause per row."""
    return "where files are extracted: " + "; ".join("%s: %s" % (engine.usage, engine.help) for engine in ENGINES)
