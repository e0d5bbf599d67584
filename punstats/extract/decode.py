"""Decoding source bytes as the interpreter would, and naming what went wrong.
"""
from __future__ import annotations

import io
import tokenize
from typing import Optional, Tuple

#: What decoding a file can raise: a bad cookie or bytes (SyntaxError), a codec
#: that fails as a whole (``undefined``, a bad ``punycode`` body: UnicodeError, a
#: ValueError), an unknown or non-text codec (``hex``, ``zlib``: LookupError).
DECODE_ERRORS = (SyntaxError, ValueError, LookupError)


def decode_source(data: bytes) -> Tuple[str, str]:
    """Decode as the interpreter would: BOM, then coding cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def decode_problem(data: bytes, exc: Exception) -> Tuple[str, Optional[int]]:
    """A message naming the bad bytes, and their line, for a failed decode."""
    if isinstance(exc, SyntaxError):  # bad cookie, or undecodable bytes in the first two lines
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as utf8:
            exc = utf8
        else:
            return str(exc.msg), exc.lineno
    if isinstance(exc, UnicodeDecodeError):
        return str(exc), data[: exc.start].count(b"\n") + 1
    return str(exc), None

