"""Per file, pure: bytes in, one ``Extraction`` out.

Decoding (``decode``), positions and source text (``text``), the one
traversal that defines every occurrence kind (``traversal``) and the node
fields it descends into (``fields``), lines of code (``codelines``), Angelico's
counting (``compat``) and the worker that runs them under another
interpreter (``worker``).  Standard library only, Python 3.8 syntax.
"""
from punstats.extract.decode import decode_source  # noqa: F401
from punstats.extract.text import CALLEE_MAX_CHARS, shorten  # noqa: F401
from punstats.extract.traversal import (  # noqa: F401
    EXTRACTOR_VERSION,
    child_nodes,
    extract,
    is_punnable,
)
