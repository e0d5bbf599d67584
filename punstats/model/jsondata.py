"""JSON that punstats did not write itself (a project list, an index's answer, files
left in an output or cache directory): nesting too deep to parse is malformed JSON,
a ``ValueError`` like any other, not a ``RecursionError`` from deep inside ``json``.
Standard library only.
"""
import json
from typing import IO, Any, Union


class TooDeep(ValueError):
    """JSON nested too deeply to parse (``[[[[...]]]]`` thousands deep)."""


def loads(data: Union[str, bytes]) -> Any:
    """``json.loads``, with nesting too deep as ``TooDeep``."""
    try:
        return json.loads(data)
    except RecursionError:
        raise TooDeep("JSON nested too deeply") from None


def load(handle: IO[str]) -> Any:
    """``json.load``, with nesting too deep as ``TooDeep``."""
    return loads(handle.read())
