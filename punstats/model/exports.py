"""A package's names, imported from its modules when first used (PEP 562).

A subpackage lists what it offers without importing it, so that importing one
light module of it (``punstats.store.rules``) does not import the heavy ones
(``punstats.store.frames``: pandas, pyarrow), and ``punstats --help`` stays
fast.
"""
import importlib
from typing import Any, Callable, Dict, List, Sequence, Tuple


def lazy_exports(package: str, exports: Dict[str, Sequence[str]]
                 ) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose ``exports`` map a module to its names."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError("module %r has no attribute %r" % (package, name))
        return getattr(importlib.import_module(where[name]), name)

    def __dir__() -> List[str]:
        return sorted(set(vars(importlib.import_module(package))) | set(where))

    return __getattr__, __dir__
