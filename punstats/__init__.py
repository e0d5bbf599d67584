"""punstats: statistics of punnable keyword arguments (``f(x=x)``) in Python code.

Data flow: ``sources`` (what to scan) -> ``discover`` (which files) ->
``extract`` (per file, pure, stdlib only) -> ``engine`` (many files) ->
``store`` (tables on disk) -> ``analysis`` (statistics) -> ``cli`` (present).

``scan``, ``load`` and ``ScanResult`` are imported lazily, so that
``punstats.extract`` can be imported by an interpreter without pandas.
"""
__version__ = "0.1.0"

__all__ = ["ScanResult", "load", "scan", "__version__"]


def __getattr__(name):
    if name in ("ScanResult", "load", "scan"):
        from punstats import api
        return getattr(api, name)
    raise AttributeError("module 'punstats' has no attribute %r" % name)
