"""The module names of earlier punstats versions, as aliases of their new homes.

``import punstats.tables`` gives the module ``punstats.present.tables`` itself
(not a copy), so code and notebooks written against the flat layout keep
working.  New code imports the new names.
"""
import importlib
import importlib.machinery
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


class _Loader:  # importlib's loader protocol (importlib.abc costs a tenth of `punstats --version`)
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass  # already executed under its own name


class _Finder:  # importlib's meta path finder protocol
    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix != "punstats" or old not in ALIASES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(ALIASES[old]))


def install():
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.append(_Finder())
