"""What a stored table records about how it was measured (standard library only).
"""
from typing import Any, Dict

#: Summary keys every stored table carries in its metadata (not the time of the run).
KEYS = ("corpus", "root", "source", "revision", "commit_date", "python", "python_implementation",
        "punstats_version", "extractor_version", "rules")


def provenance_metadata(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a summary that describes what was measured, not when."""
    return {key: summary[key] for key in KEYS if key in summary}
