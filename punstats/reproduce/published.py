"""The published figures (``published.json``, with their sources): only ever compared with.
"""
from __future__ import annotations

import json
from importlib import resources
from typing import Any, Dict


def published() -> Dict[str, Any]:
    """The published figures and their sources (``published.json``)."""
    with resources.files("punstats.reproduce").joinpath("published.json").open(encoding="utf-8") as handle:
        return json.load(handle)

