"""Per-file extraction: bytes in, one FileRecord and its Occurrences out.

This module owns reading one file (the byte cap, notebooks, null bytes,
decoding, parsing, a large source in parts (``extract.parts``): every
failure a ``FileRecord`` status) and hands the tree to the one walk
(``extract.walk``) with the built-in kinds (``punstats.patterns.built_in``:
``f(x=x)``, the headline, and the kinds counted beside it) and a scan's user
patterns.  It is pure (no I/O beyond what the caller hands it), imports only
the standard library and avoids syntax newer than Python 3.8, so that any
worker or any interpreter (``--python``) can run it on its own.  Test
classification, storage and statistics happen elsewhere.
"""
from __future__ import annotations

import ast
import collections
import gc
import hashlib
import time
import warnings
from typing import Optional, Sequence, Tuple

from punstats.extract.codelines import code_lines
from punstats.extract.decode import DECODE_ERRORS, decode_problem, decode_source
from punstats.extract.fields import child_nodes  # noqa: F401  (for punstats.rewrite)
from punstats.extract.notebook import NOTEBOOK_SUFFIX, extract_notebook
from punstats.extract.parts import NotInParts, in_parts, line_count, one_at_a_time, parse_parts
from punstats.extract.patterns import PatternFailure
from punstats.extract.text import SourceText
from punstats.extract.walk import Walked, sees_module, walk
from punstats.model.kinds import Kind
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import deadline
from punstats.model.records import Extraction, FileRecord, count_lines, failure
from punstats.model.statuses import DECODE_ERROR, NULL_BYTES, OK, SYNTAX_ERROR, TOO_DEEP, TOO_LARGE
from punstats.patterns.built_in import PATTERNS
from punstats.patterns.built_in.call import is_punnable  # noqa: F401  (the definition, for punstats.rewrite)

#: Bumped whenever a change could alter any extracted value; cached results
#: from another extractor version are never reused.  3: a shortened callee,
#: base or value that is an attribute keeps its name (``text.short_segment``);
#: 4: ``FileRecord.code_lines`` (``codelines``); 5: ``FileRecord.calls_with_punnable``; 6: the
#: per-file counts in ``FileRecord.counts``, kept by the built-in kinds (``patterns.built_in``).
#: Notebooks add their own version (``notebook.NOTEBOOK_VERSION``) to their cache key.
EXTRACTOR_VERSION = 6


def extract(path: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES, patterns: Sequence[Kind] = (),
            timeout: Optional[float] = None) -> Extraction:
    """Parse ``data`` (the bytes of ``path``) and collect its keyword arguments.

    Never raises for bad input: every failure becomes a FileRecord status.  Never executes anything
    from the source.  ``patterns``: user patterns, matched in the same walk (``extract.walk``), which
    then takes at most ``timeout`` seconds (``processes.deadline``).  The cyclic garbage collector is paused
    meanwhile: a syntax tree has no cycles, and collections triggered by its many allocations would
    otherwise scan the caller's whole heap.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(path, data, max_bytes, patterns, timeout)
    finally:
        if enabled:
            gc.enable()


def _extract(path: str, data: bytes, max_bytes: int, patterns: Sequence[Kind], timeout: Optional[float]) -> Extraction:
    if len(data) > max_bytes:
        return failure(path, TOO_LARGE, "%d bytes, over the cap of %d" % (len(data), max_bytes), size=len(data))
    if path.endswith(NOTEBOOK_SUFFIX):  # its code cells (``notebook``), collected here
        return extract_notebook(path, data, lambda text, tree: _collect(
            path, text.encode("utf-8", "surrogatepass"), "utf-8", tree, SourceText(text), patterns, timeout))
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        return failure(path, NULL_BYTES, "source contains a null byte", line, data)
    try:
        text, encoding = decode_source(data)
    except DECODE_ERRORS as exc:
        message, line = decode_problem(data, exc)
        return failure(path, DECODE_ERROR, message, line, data)
    if in_parts(text) and not sees_module(patterns):
        try:
            return _collect_parts(path, data, encoding, text, patterns, timeout)
        except NotInParts:
            pass
    with one_at_a_time(len(text)):
        return _collect_whole(path, data, encoding, text, patterns, timeout)


def _collect_whole(path: str, data: bytes, encoding: str, text: str, patterns: Sequence[Kind],
                   timeout: Optional[float]) -> Extraction:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return failure(path, SYNTAX_ERROR, str(exc.msg), exc.lineno, data, encoding)
    except (RecursionError, MemoryError) as exc:
        message = "%s: %s" % (type(exc).__name__, exc or "the parser gave up on deeply nested code")
        return failure(path, TOO_DEEP, message, None, data, encoding)
    except ValueError as exc:  # e.g. null bytes on interpreters that say so this way
        return failure(path, SYNTAX_ERROR, str(exc), None, data, encoding)
    return _collect(path, data, encoding, tree, SourceText(text), patterns, timeout)


def _collect_parts(path: str, data: bytes, encoding: str, text: str, patterns: Sequence[Kind],
                   timeout: Optional[float]) -> Extraction:
    """``_collect`` for a large source parsed in parts (``extract.parts``), each walked, its lines of
    code counted and its user matches made before the next is parsed.  The same record and rows as
    a whole parse; any part that does not parse, or a pattern failing, raises ``NotInParts``, and
    the source is then parsed and walked whole, which says what the whole file does."""
    kinds = PATTERNS + tuple(patterns)
    source = SourceText(text)
    walked: Optional[Walked] = None
    code = 0
    units: collections.Counter = collections.Counter()
    # the patterns' time limit covers the walks alone, as a whole file's does
    left = timeout
    for tree, padded, first in parse_parts(text, path):
        began = time.monotonic()
        try:
            with deadline(left if patterns else None):
                walked = walk(path, tree, source, kinds, walked.context if walked is not None else None)
                part = SourceText(padded)
                code += code_lines(tree, part, line_count(padded), walked.scopes, first)
                walked.match(path, source)
        except PatternFailure:
            raise NotInParts(path) from None
        units.update(dict(walked.units))
        walked.scopes = []
        # free this part's tree before the next is parsed
        del tree, padded, part
        if left is not None:
            left = max(left - (time.monotonic() - began), 1e-3)
    assert walked is not None
    return _extraction(path, data, encoding, count_lines(data), code, walked, sorted(units.items()))


def _collect(path: str, data: bytes, encoding: str, tree: ast.AST, source: SourceText, patterns: Sequence[Kind] = (),
             timeout: Optional[float] = None) -> Extraction:
    lines = count_lines(data)
    try:
        with deadline(timeout if patterns else None):
            walked = walk(path, tree, source, PATTERNS + tuple(patterns))
            # before a user's matcher runs (``Walked.match``): one that changes the tree changes no count
            code = code_lines(tree, source, lines, walked.scopes)
            walked.match(path, source)
    except PatternFailure as exc:
        return failure(path, exc.status, str(exc), exc.line, data, encoding)
    return _extraction(path, data, encoding, lines, code, walked, walked.units)


def _extraction(path: str, data: bytes, encoding: str, lines: int, code: int, walked: Walked,
                units: Sequence[Tuple[str, int]]) -> Extraction:
    """The extraction of a parsed file: its record, and the rows ``walked`` found, in order."""
    record = FileRecord(path=path, status=OK, error="", error_line=None, bytes=len(data), lines=lines,
                        encoding=encoding, sha256=hashlib.sha256(data).hexdigest(), code_lines=code,
                        counts=walked.counts)
    occurrences = sorted(walked.occurrences, key=lambda o: (o.line, o.col, o.kind))
    functions = sorted(walked.functions, key=lambda f: (f.line, f.col))
    return Extraction(record, tuple(occurrences), tuple(functions), tuple(units))
