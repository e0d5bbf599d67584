"""The records of one file's extraction: what it contributed, or why nothing.

``FileRecord`` (one per file), ``Occurrence`` (one per match, any kind),
``FunctionShape`` (one per definition) and ``Extraction`` (the three for one
file); ``to_plain``/``from_plain`` (a path-free JSON-safe form for workers and
the cache) and ``failure`` (the record of a file that was not parsed).
Standard library only, Python 3.8 syntax: any worker interpreter imports it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from typing import Dict, NamedTuple, Optional, Tuple

#: The stored columns of a user pattern's fields (``Occurrence.fields``) are ``field_<key>``.
FIELD_PREFIX = "field_"


class Occurrence(NamedTuple):
    """One match of a kind: a keyword argument (or dict entry) whose value repeats its name,
    or a node a user pattern matched.

    ``kind`` says which pattern (see the KIND_ constants); only ``call``
    rows are the headline count.  For ``dict_literal`` rows the "call" is the
    dict display: ``callee`` is ``{}`` and ``call_keywords`` its entries with
    string-constant keys.  The columns about a call (``callee`` to ``call_punnable``,
    ``base``, ``base_kind``, ``dict_call``) are None in the rows of a user pattern,
    whose own fields (a matcher's dict) are ``fields``.
    """

    path: str
    line: int
    col: int  # characters, 0-based
    end_line: int
    end_col: int  # characters, 0-based, exclusive
    name: str  # the keyword (or the dict key)
    name_len: int
    kind: str
    callee: Optional[str]  # source text of the called expression (the class name; "{}")
    call_line: Optional[int]
    call_col: Optional[int]
    call_keywords: Optional[int]  # keyword arguments (arg not None) of this call
    call_punnable: Optional[int]  # punnable keyword arguments of this call
    depth: int  # enclosing calls
    in_fstring: bool
    value: str  # source text of the value (shortened)
    base: Optional[str]  # attribute rows: source text of the value's base, else ""
    base_kind: Optional[str]  # attribute rows: self, cls, name or expr, else ""
    dict_call: Optional[bool]  # call rows: the callee is the plain name ``dict``
    #: a notebook's code cell (1-based, among all its cells) holding the row, whose positions
    #: (``line``, ``end_line``, ``call_line``) are then lines of that cell; None in a ``.py`` file
    cell: Optional[int] = None
    #: a user pattern's fields (the dict its matcher returned) as JSON text, sorted keys, each
    #: value a JSON scalar; stored as ``field_<key>`` columns (``store.fields``); None without
    fields: Optional[str] = None


class FunctionShape(NamedTuple):
    """The parameters one function definition (or lambda) declares."""

    path: str
    line: int
    col: int
    name: str  # "<lambda>" for lambdas
    kind: str  # "def", "async def" or "lambda"
    positional_only: int
    positional_or_keyword: int
    keyword_only: int
    var_positional: bool  # *args
    var_keyword: bool  # **kwargs
    defaults: int  # positional parameters with a default
    keyword_only_defaults: int
    cell: Optional[int] = None  # a notebook's cell holding it (``line`` is then the cell's line)


@dataclass(frozen=True)
class FileRecord:
    """What one file contributed, or why it contributed nothing: its facts, and the per-file
    counts the patterns keep (``counts``: by files-table column, the built-in kinds' columns of
    ``patterns.built_in.COUNT_COLUMNS``; empty for a file that was not parsed).  A count reads
    as an attribute too (``record.punnable``), 0 when the file has none."""

    path: str
    status: str
    error: str
    error_line: Optional[int]
    bytes: int
    lines: int
    encoding: str
    sha256: str
    code_lines: int = 0  # lines holding a token besides comments and line breaks (extract.codelines); 0 if not parsed
    counts: Dict[str, int] = field(default_factory=dict)

    def __getattr__(self, name: str) -> int:
        # only names that are not fields reach here; ``counts`` is looked up in ``__dict__`` so that
        # a record being unpickled (no fields yet) answers AttributeError, not a recursion
        counts = self.__dict__.get("counts")
        if counts is None or name.startswith("_"):
            raise AttributeError(name)
        return counts.get(name, 0)

    def count(self, column: str) -> int:
        """The count of the files-table ``column`` (0 when this file kept none)."""
        return self.counts.get(column, 0)


@dataclass(frozen=True)
class Extraction:
    record: FileRecord
    occurrences: Tuple[Occurrence, ...]
    functions: Tuple[FunctionShape, ...] = ()
    #: Nodes of the ``ast`` classes user patterns count per (``per="Try"``): (class name, count), sorted.
    units: Tuple[Tuple[str, int], ...] = ()


_NEWLINE_BYTES = re.compile(rb"\r\n|\r|\n")


_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(FileRecord))[1:]  # after "path"


def _row(row: tuple, optional: int = 1) -> list:
    """A row without its path (first) and without those of its ``optional`` last fields
    (``cell``, ``fields``) that are None at its end: the plain form of a ``.py`` file's rows
    is the one before notebooks were read, and a row without fields the one before fields."""
    plain = list(row[1:])
    while optional and plain[-1] is None:
        plain.pop()
        optional -= 1
    return plain


def to_plain(extraction: Extraction) -> Dict[str, list]:
    """``extraction`` as lists of plain values (JSON-safe), without the
    file's path: the same bytes give the same value wherever they lie, so
    caches can key it by content and workers can send it as JSON."""
    plain = {
        "record": [getattr(extraction.record, name) for name in _RECORD_FIELDS],
        "occurrences": [_row(o, 2) for o in extraction.occurrences],
        "functions": [_row(f) for f in extraction.functions],
    }
    if extraction.units:  # only scans with user patterns count nodes
        plain["units"] = [list(unit) for unit in extraction.units]
    return plain


def from_plain(value: Dict[str, list], path: str) -> Extraction:
    """The inverse of ``to_plain``, for the file at ``path``."""
    return Extraction(
        FileRecord(path, *value["record"]),
        tuple(Occurrence(path, *o) for o in value["occurrences"]),
        tuple(FunctionShape(path, *f) for f in value["functions"]),
        tuple((str(name), int(count)) for name, count in value.get("units") or ()),
    )


def count_lines(data: bytes) -> int:
    """Lines as the tokenizer sees them (universal newlines)."""
    if not data:
        return 0
    ends = data.count(b"\n") if b"\r" not in data else len(_NEWLINE_BYTES.findall(data))
    return ends if data.endswith((b"\n", b"\r")) else ends + 1


def failure(path: str, status: str, error: str, error_line: Optional[int] = None,
            data: bytes = b"", encoding: str = "", size: Optional[int] = None) -> Extraction:
    """The extraction of a file that could not be read or parsed.

    ``data`` is whatever was read (nothing for files never opened, whose
    ``size`` then comes from the directory entry).
    """
    record = FileRecord(
        path=path, status=status, error=error, error_line=error_line,
        bytes=len(data) if size is None else size, lines=count_lines(data), encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest() if data else "",
    )
    return Extraction(record, ())

