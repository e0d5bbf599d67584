"""What every engine shares: their error, the sink results are handed to, what
"all cores" means, and the buckets of consecutive candidates results are stored
by.  The engines themselves are rows of ``engines.registry``.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from punstats.model.errors import PunstatsError
from punstats.model.records import Extraction

Progress = Callable[[int], None]


#: Called in this process as results arrive: (candidate indices, their extractions).
Sink = Callable[[Sequence[int], Sequence[Extraction]], None]


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: The most worker processes (``-j``): four per core, at least 8; more processes
#: than cores only cost memory and start-up, and an unbounded number is a fork storm.
MAX_JOBS = max(8, 4 * default_jobs())


#: Consecutive candidates per bucket (more when ``MAX_BUCKETS`` would be exceeded).
BUCKET_FILES = 1000


#: At most this many buckets whatever the corpus size.
MAX_BUCKETS = 64


def bucket_span(count: int) -> int:
    """How many consecutive candidates of ``count`` share a bucket: the store spills results
    by bucket (``store.spill``), and engines hand out batches within one bucket, so that an
    arriving batch is one write rather than one per bucket its files fall in."""
    return max(BUCKET_FILES, -(-count // MAX_BUCKETS))


class EngineError(PunstatsError, ValueError):
    """An engine that cannot run (not installed, cluster unreachable); the message is for the user."""


def distributed_module():
    """``distributed``, imported only when the Dask engine is asked for."""
    try:
        import distributed
    except ImportError:
        raise EngineError("--engine dask needs dask[distributed], which is not installed: "
                          "pip install 'dask[distributed]'") from None
    return distributed


