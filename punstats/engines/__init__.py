"""Running the extraction over many files: one protocol, several engines.

``local`` (in process or a process pool), ``dask`` (a Dask cluster),
``interp`` (workers under another interpreter) and ``cached`` (results
reused by content).  Whatever the engine, results come back in discovery
order.
"""
from punstats.engines.base import (  # noqa: F401
    ENGINES,
    EngineError,
    Progress,
    Sink,
    check_engine,
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
