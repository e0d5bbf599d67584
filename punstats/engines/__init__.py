"""Running the extraction over many files: one protocol, several engines.

``registry`` lists them, one row each: ``local`` (in process or a process
pool), ``dask`` (a Dask cluster), ``python`` (workers under another
interpreter, ``interp``); ``cached`` reuses results by content whichever
engine extracts.  Whatever the engine, results come back in discovery order.

The names below import lazily: the command line's engine options (the
registry's names and help) load neither the local engine nor Dask's.
"""
from punstats.model.exports import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "punstats.engines.base": ("EngineError", "Progress", "Sink", "default_jobs"),
    "punstats.engines.dask": ("local_cluster", "run_dask"),
    "punstats.engines.local": ("BATCH_BYTES", "MIN_FILES_FOR_POOL", "batches", "extract_candidate", "run"),
    "punstats.engines.registry": ("ENGINES", "check_engine"),
})
