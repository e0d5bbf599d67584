"""Installed distributions: which one a scanned directory belongs to (name and version).

A scan of ``.../site-packages/pandas`` measured pandas at the version that is
installed there; ``importlib.metadata`` knows which, from the distribution's
own record of the files it installed.  Nothing is imported from the corpus.
"""
from __future__ import annotations

import os
from typing import Dict, Optional


def installed_distribution(path: str) -> Optional[Dict[str, str]]:
    """``{"name", "version"}`` of the installed distribution whose files
    include the top-level package or module ``path``; None if there is none."""
    import importlib.metadata as metadata

    full = os.path.realpath(path)
    parent, top = os.path.split(full)
    if not top:
        return None
    module = top[:-3] if top.endswith(".py") else top
    for dist in metadata.distributions():
        try:
            if os.path.realpath(str(dist.locate_file(""))) != parent:
                continue
            files = dist.files or ()
        except (OSError, ValueError):
            continue
        if any(f.parts and f.parts[0] in (top, module) and not f.parts[0].endswith(".dist-info")
               for f in files):
            return {"name": dist.metadata["Name"], "version": dist.version}
    return None
