"""The module names of earlier punstats versions, as aliases of their new homes.

``import punstats.tables`` gives the module ``punstats.present.tables`` itself
(not a copy), so code and notebooks written against the flat layout keep
working.  New code imports the new names.
"""
import importlib
import importlib.abc
import importlib.util
import sys

#: old name (under ``punstats.``) -> the module it now is
ALIASES = {
    "api": "punstats.runs.scan",
    "analysis": "punstats.analysis",
    "cache": "punstats.cache",
    "classify": "punstats.store.rules",
    "compat": "punstats.extract.compat",
    "corpus": "punstats.runs.projects",
    "engine": "punstats.engines",
    "gitsource": "punstats.sources.git",
    "history": "punstats.runs.history",
    "incremental": "punstats.engines.cached",
    "interp": "punstats.engines.interp",
    "plots": "punstats.present.plots",
    "pypi": "punstats.sources.pypi",
    "report": "punstats.present.report",
    "rewrap": "punstats.rewrite.rewrap",
    "tables": "punstats.present.tables",
    "worker": "punstats.extract.worker",
}
ALIASES = {old: new for old, new in ALIASES.items() if new != "punstats." + old}


class _Loader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed under its own name


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != "punstats" or old not in ALIASES:
            return None
        return importlib.util.spec_from_loader(fullname, _Loader(ALIASES[old]))


def install():
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())


def lazy_names(package, homes):
    """(``__getattr__``, ``__dir__``, ``__all__``) for ``package`` whose names
    live in its modules (``homes``: module -> names), each imported when first
    used, so that importing the package costs nothing heavy."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name):
        if name in home:
            return getattr(importlib.import_module(package + "." + home[name]), name)
        raise AttributeError("module %r has no attribute %r" % (package, name))

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(home))
    return __getattr__, __dir__, sorted(home)
