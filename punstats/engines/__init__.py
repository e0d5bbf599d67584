"""Running the extraction over many files: one protocol, several engines.

``registry`` lists them, one row each: ``local`` (in process or a process
pool), ``dask`` (a Dask cluster), ``python`` (workers under another
interpreter, ``interp``); ``cached`` reuses results by content whichever
engine extracts.  Whatever the engine, results come back in discovery order.
"""
from punstats.engines.base import (  # noqa: F401
    EngineError,
    Progress,
    Sink,
    default_jobs,
)
from punstats.engines.dask import local_cluster, run_dask  # noqa: F401
from punstats.engines.local import (  # noqa: F401
    BATCH_BYTES,
    MIN_FILES_FOR_POOL,
    batches,
    extract_candidate,
    run,
)
from punstats.engines.registry import ENGINES, check_engine  # noqa: F401
