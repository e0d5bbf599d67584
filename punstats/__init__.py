"""punstats: statistics of punnable keyword arguments (``f(x=x)``) in Python code.

The data flows one way, and the subpackages are its stages (``ARCHITECTURE.md``):
``sources`` -> ``discover`` -> ``extract`` (per file, pure, standard library
only) -> ``engines`` -> ``store`` -> ``analysis`` -> ``present``, driven by
``runs`` and the thin ``cli``; ``model`` is the vocabulary all of them share,
``rewrite`` and ``reproduce`` sit beside the flow.

``scan``, ``load``, ``load_or_scan`` and ``ScanResult`` are imported lazily (and
``NoPythonFilesWarning``, which ``scan`` warns with when it found nothing to parse), so that importing
``punstats`` (a worker under another interpreter does) costs nothing.
"""
__version__ = "0.1.0"

__all__ = ["NoPythonFilesWarning", "ScanResult", "load", "load_or_scan", "pattern", "row", "scan", "__version__"]


def __getattr__(name):
    if name in ("ScanResult", "load", "load_or_scan", "scan"):
        from punstats.runs import scan as _scan
        return getattr(_scan, name)
    if name == "NoPythonFilesWarning":
        from punstats.model.errors import NoPythonFilesWarning
        return NoPythonFilesWarning
    if name in ("pattern", "row"):
        from punstats.model import kinds
        return getattr(kinds, name)
    raise AttributeError("module 'punstats' has no attribute %r" % name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
