"""Jupyter notebooks (``.ipynb``) as Python source: their code cells, IPython syntax set aside.

A notebook is read as JSON, in the layout of the nbformat it declares
(``nbformat``, Jupyter's ``nbbase`` of each version): 4 keeps its cells in
``cells`` and a code cell's text in ``source``, 2 and 3 in
``worksheets[].cells`` and ``input``, 1 (a notebook without ``nbformat``) in
``cells`` and ``code``; a notebook without ``nbformat`` is also read as
tools write 4 without it (``source``, or 3's worksheets).  Another version
(5, ``"4"``) is a ``notebook_error``, as Jupyter refuses it.  Its code cells
in Python (the kernel's language, or a cell's own VS Code language, say which)
are each parsed on their own, as Jupyter runs them, and their trees joined
into one module over one text, the cells' lines in order: a row's ``cell``
is the cell's number among all the notebook's cells (1-based, markdown
cells too, as ruff counts them) and its lines are lines of that cell.

IPython syntax is handled as ruff does, each line kept where it was:

- a cell whose first word is an automagic command (``pip install x``,
  ``cd dir``), or holding a cell magic (``%%bash``) other than those whose
  body is Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``,
  ``%%debug``, ``%%python``, ``%%python3``, ``%%pypy``, ``%%ipytest``), is
  left out whole: its lines stay, blank;
- a logical line starting with an escape (``%magic``, ``%%time``, ``!cmd``,
  ``!!cmd``, ``?obj``, ``??obj``, ``/f a``, ``,f a``, ``;f a``), assigning one
  (``files = !ls``, ``t = %timeit f()``) or asking for help with a trailing
  ``?`` or ``??`` (``obj.method?``, ``x[0]??``, as IPython reads it) becomes
  ``pass`` at its indentation, and the lines a backslash continues it on
  become blank (as IPython, an escaped command ends with its line otherwise).

A logical line is found as the tokenizer would: outside brackets, strings and
backslash continuations, so an operator such as ``% b`` or ``!= b`` that
continues an expression inside brackets stays code.  A cell that still does
not parse makes the notebook a ``syntax_error`` whose message names the cell
(``cell 3: invalid syntax``) and whose line is the cell's (one holding a null
byte: ``null_bytes``, as a ``.py`` file).  A file that is
not a notebook is a ``notebook_error``; a notebook in another language is
``not_python`` (skipped).  The file's ``bytes`` and ``sha256`` are the
notebook's; its ``lines`` the lines of its Python code cells.  Standard
library only, Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import bisect
import dataclasses
import hashlib
import json
import re
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from punstats.extract.text import NEWLINE
from punstats.model.records import Extraction, failure
from punstats.model.statuses import NOT_PYTHON, NOTEBOOK_ERROR, NULL_BYTES, OK, SYNTAX_ERROR, TOO_DEEP

#: The file ending read as a notebook.
NOTEBOOK_SUFFIX = ".ipynb"

#: Bumped whenever a change to reading notebooks could alter an extracted value (part of
#: a notebook's cache key, ``engines.cached.blob_key``).  2: nbformat 1's ``code`` cells are
#: read, another nbformat is refused, a cell holding a null byte is ``null_bytes``.
NOTEBOOK_VERSION = 2

#: IPython's line magics that automagic runs without ``%`` (a cell starting with one is left out).
AUTOMAGICS = frozenset((
    "alias alias_magic autoawait autocall automagic bookmark cd code_wrap colors conda config debug dhist "
    "dirs doctest_mode edit env gui history killbgscripts load load_ext loadpy logoff logon logstart logstate "
    "logstop lsmagic macro magic mamba matplotlib micromamba notebook page pastebin pdb pdef pdoc pfile pinfo "
    "pinfo2 pip popd pprint precision prun psearch psource pushd pwd pycat pylab quickref recall rehashx "
    "reload_ext rerun reset reset_selective run save sc set_env sx system tb time timeit unalias unload_ext "
    "who who_ls whos xdel xmode").split())

#: Cell magics whose body is Python, counted as code.
TRANSPARENT_CELL_MAGICS = frozenset("capture debug ipytest prun pypy python python3 time timeit".split())

#: What may follow an automagic's name when it is a variable instead (``cd = 1``).
_ASSIGNMENTS = frozenset("= += -= *= /= //= %= **= &= |= ^= @= >>= <<= :=".split())

#: The first characters of an escaped IPython line.
_ESCAPES = "%!?/,;"

#: A line asking for help with a trailing ``?`` or ``??``: ``os.path?``, ``x[0]??``.
_HELP = re.compile(r"[ \t]*[\w.]+(?:\[[^\]]*\][\w.]*)*\?\??[ \t]*\Z")

#: An assignment of an escaped command: ``files = !ls``, ``t = %timeit f()``.
_ASSIGNED = re.compile(r"[\w.,\[\]()* \t]+?=[ \t]*[!%]")

#: How the languages a kernel may name for Python start (python, python3, ipython3).
_PYTHON = ("python", "ipython")

#: The field holding a code cell's text, by nbformat major version (Jupyter's ``nbbase`` of each).
CODE_FIELDS = {1: "code", 2: "input", 3: "input", 4: "source"}

#: Where the versions keep their cells: ``worksheets[].cells`` (2 and 3), else ``cells``.
_WORKSHEETS = frozenset((2, 3))

#: The fields a notebook without ``nbformat`` may keep a code cell's text in, in order.
_UNVERSIONED_FIELDS = ("code", "source", "input")

#: A code cell: its number among all the notebook's cells (1-based) and its lines.
Cell = Tuple[int, List[str]]


class NotANotebook(Exception):
    """Why a file is not read as a notebook: its ``status`` and the reason (``str``)."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status


@dataclasses.dataclass(frozen=True)
class Code:
    """A notebook's Python code cells, as written (``cells``) and as parsed (``python``),
    and the line of the joined text where each starts (``starts``, 1-based)."""

    cells: Tuple[Cell, ...]
    python: Tuple[Cell, ...]
    starts: Tuple[int, ...]

    @classmethod
    def of(cls, cells: Sequence[Cell]) -> "Code":
        starts, line = [], 1
        for _, lines in cells:
            starts.append(line)
            line += len(lines)
        return cls(tuple(cells), tuple((n, python_lines(lines)) for n, lines in cells), tuple(starts))

    def text(self) -> str:
        """The cells' Python lines, joined: the text every position is in."""
        return "".join(line + "\n" for _, lines in self.python for line in lines)

    def where(self, line: int) -> Tuple[int, int]:
        """(cell, line in the cell) of a line of the joined text."""
        index = max(0, bisect.bisect_right(self.starts, line) - 1)
        return self.cells[index][0], line - self.starts[index] + 1


def _source(cell: Dict[str, Any], fields: Sequence[str]) -> Optional[str]:
    """A cell's text (a string or a list of strings) in the first of ``fields`` it has ("" if none), or None."""
    value = next((cell[field] for field in fields if field in cell), "")
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return value if isinstance(value, str) else None


def _language(notebook: Dict[str, Any]) -> str:
    """The notebook's language as its kernel says ("" when it does not say)."""
    metadata = notebook.get("metadata")
    if not isinstance(metadata, dict):
        return ""
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str) and value[field]:
            return value[field]
    language = metadata.get("language")  # nbformat 3
    return language if isinstance(language, str) else ""


def _cell_language(cell: Dict[str, Any]) -> str:
    """A cell's own language: VS Code's ``languageId``, or nbformat 3's ``language``."""
    metadata = cell.get("metadata")
    vscode = metadata.get("vscode") if isinstance(metadata, dict) else None
    value = vscode.get("languageId") if isinstance(vscode, dict) else cell.get("language")
    return value.lower() if isinstance(value, str) else "python"


def read_cells(data: bytes) -> Tuple[Cell, ...]:
    """A notebook's Python code cells (number, lines as written); ``NotANotebook`` says why not."""
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise NotANotebook(NOTEBOOK_ERROR, "not a notebook: %s" % " ".join(str(exc).split())[:200]) from None
    if not isinstance(notebook, dict):
        raise NotANotebook(NOTEBOOK_ERROR, "not a notebook: no list of cells")
    version = _version(notebook)
    cells = _cells(notebook, version)
    language = _language(notebook)
    if language and not language.lower().startswith(_PYTHON):
        raise NotANotebook(NOT_PYTHON, "a notebook in %s, not Python" % language[:40])
    fields = (CODE_FIELDS[version],) if version else _UNVERSIONED_FIELDS
    found: List[Cell] = []
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise NotANotebook(NOTEBOOK_ERROR, "cell %d is not a JSON object" % number)
        if cell.get("cell_type") != "code" or not _cell_language(cell).startswith(_PYTHON):
            continue
        source = _source(cell, fields)
        if source is None:
            raise NotANotebook(NOTEBOOK_ERROR, "cell %d: its source is not text" % number)
        lines = NEWLINE.split(source)
        found.append((number, lines[:-1] if lines[-1] == "" else lines))
    return tuple(found)


def _version(notebook: Dict[str, Any]) -> int:
    """The nbformat ``notebook`` declares (a key of ``CODE_FIELDS``), 0 when it declares none."""
    if "nbformat" not in notebook:
        return 0
    version = notebook["nbformat"]
    if type(version) is not int or version not in CODE_FIELDS:
        shown = "a list" if isinstance(version, list) else "an object" if isinstance(version, dict) else \
            json.dumps(version)[:40]
        raise NotANotebook(NOTEBOOK_ERROR, "nbformat %s: not a notebook format punstats reads (1 to 4)" % shown)
    return version


def _cells(notebook: Dict[str, Any], version: int) -> List[Any]:
    """The notebook's cells, where its ``version`` keeps them (without one: ``cells``, else worksheets')."""
    if version in _WORKSHEETS or (not version and "cells" not in notebook):
        sheets = notebook.get("worksheets")
        if isinstance(sheets, list):
            return _worksheet_cells(sheets)
        if version:
            raise NotANotebook(NOTEBOOK_ERROR, "not a notebook: nbformat %d keeps its cells in a list of "
                                               "worksheets, and it has none" % version)
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise NotANotebook(NOTEBOOK_ERROR, "not a notebook: no list of cells")
    return cells


def _worksheet_cells(sheets: List[Any]) -> List[Any]:
    """The cells of nbformat 2 and 3's worksheets, in order (a worksheet without cells holds none)."""
    cells: List[Any] = []
    for number, sheet in enumerate(sheets, start=1):
        found = sheet.get("cells", []) if isinstance(sheet, dict) else None
        if not isinstance(found, list):
            raise NotANotebook(NOTEBOOK_ERROR, "not a notebook: worksheet %d holds no list of cells" % number)
        cells.extend(found)
    return cells


def python_lines(lines: Sequence[str]) -> List[str]:
    """A cell's lines with IPython syntax set aside (module docstring), as many as before."""
    if _left_out(lines):
        return [""] * len(lines)
    out = list(lines)
    scan = _Scanner()
    escaped = False  # on a line continuing an escaped command
    for i, line in enumerate(lines):
        if escaped:
            out[i] = ""
        elif scan.continues:
            scan.line(line)
            continue
        else:
            stripped = line.lstrip()
            if not (stripped[:1] and stripped[0] in _ESCAPES or _ASSIGNED.match(stripped) or _HELP.match(line)):
                scan.line(line)
                continue
            out[i] = line[:len(line) - len(stripped)] + "pass"
        escaped = line.rstrip().endswith("\\")
    return out


def _left_out(lines: Sequence[str]) -> bool:
    """Whether a cell is IPython's to run, not Python: automagic, or a cell magic."""
    words = lines[0].split() if lines else []
    if words and words[0] in AUTOMAGICS and (len(words) == 1 or words[1] not in _ASSIGNMENTS):
        return True
    for line in lines:
        word = line.split(None, 1)[0] if line.strip() else ""
        if len(word) > 2 and word.startswith("%%") and word[2:] not in TRANSPARENT_CELL_MAGICS:
            return True
    return False


class _Scanner:
    """Where a line leaves the tokenizer: inside brackets, a string or a backslash continuation."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quotes: ', ", ''' or \"\"\"
        self.backslash = False

    @property
    def continues(self) -> bool:
        return bool(self.depth or self.quote or self.backslash)

    def line(self, line: str) -> None:
        self.backslash = False
        i, n = 0, len(line)
        while i < n:
            if self.quote:
                i = self._in_string(line, i)
                continue
            char = line[i]
            if char == "#":
                break
            if char in "'\"":
                self.quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and i == n - 1:
                self.backslash = True
            i += 1
        if self.quote in ("'", '"') and not self.backslash:
            self.quote = ""  # a one-line string ends with its line (or the parser says it is unterminated)

    def _in_string(self, line: str, i: int) -> int:
        """Past the end of the open string on ``line`` from ``i``, or past the line."""
        while i < len(line):
            if line[i] == "\\":
                if i == len(line) - 1:
                    self.backslash = True
                i += 2
            elif line.startswith(self.quote, i):
                i += len(self.quote)
                self.quote = ""
                return i
            else:
                i += 1
        return i


def parse_cells(path: str, code: Code) -> Union[ast.Module, Tuple[str, str, Optional[int]]]:
    """The cells parsed one by one, as Jupyter runs them, as one module over ``code.text()``;
    or (status, message naming the cell, line in the cell) for the first that fails."""
    body: List[ast.stmt] = []
    for (number, lines), start in zip(code.python, code.starts):
        text = "".join(line + "\n" for line in lines)
        if "\0" in text:  # as a .py file's: every interpreter's parser refuses it, each in its words
            return NULL_BYTES, "cell %d: source contains a null byte" % number, text[:text.index("\0")].count("\n") + 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text, filename=path)
        except SyntaxError as exc:
            return SYNTAX_ERROR, "cell %d: %s" % (number, exc.msg), exc.lineno
        except (RecursionError, MemoryError) as exc:
            return TOO_DEEP, "cell %d: %s: %s" % (number, type(exc).__name__, exc or "too deeply nested"), None
        except ValueError as exc:  # what else an interpreter's parser refuses this way
            return SYNTAX_ERROR, "cell %d: %s" % (number, exc), None
        if start > 1:
            ast.increment_lineno(tree, start - 1)  # to lines of the joined text
        body.extend(tree.body)
    return ast.Module(body=body, type_ignores=[])


#: Collects one parsed text: (joined text, its tree) -> the extraction (``traversal._collect``).
Collect = Callable[[str, ast.Module], Extraction]


def extract_notebook(path: str, data: bytes, collect: Collect) -> Extraction:
    """The extraction of the notebook ``data``: its code cells collected by ``collect``,
    every position a line of its cell, the record the notebook file's."""
    try:
        code = Code.of(read_cells(data))
    except NotANotebook as exc:
        return _failed(path, exc.status, str(exc), None, data)
    tree = parse_cells(path, code)
    if not isinstance(tree, ast.Module):
        status, error, line = tree
        return _failed(path, status, error, line, data, code)
    return to_cells(collect(code.text(), tree), code, data)


def _failed(path: str, status: str, error: str, line: Optional[int], data: bytes,
            code: Optional[Code] = None) -> Extraction:
    """A notebook that failed: its file's bytes and sha256, the lines of its code cells (0 if not read)."""
    extraction = failure(path, status, error, line, data, "utf-8")
    lines = sum(len(lines) for _, lines in code.cells) if code is not None else 0
    return dataclasses.replace(extraction, record=dataclasses.replace(extraction.record, lines=lines))


def to_cells(extraction: Extraction, code: Code, data: bytes) -> Extraction:
    """``extraction`` of the joined text as the notebook's: rows placed in their cells."""
    record = extraction.record
    if record.status != OK:  # a user pattern's failure, at a line of the joined text
        cell, line = code.where(record.error_line) if record.error_line is not None else (0, None)
        return _failed(record.path, record.status, "cell %d: %s" % (cell, record.error) if cell else record.error,
                       line, data, code)
    record = dataclasses.replace(record, bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    occurrences = []
    for o in extraction.occurrences:
        cell, line = code.where(o.line)
        offset = line - o.line  # the same for every line of the row: a row lies in one cell
        call_line = None if o.call_line is None else o.call_line + offset  # a user pattern's row has none
        occurrences.append(o._replace(line=line, end_line=o.end_line + offset, call_line=call_line, cell=cell))
    functions = []
    for f in extraction.functions:
        cell, line = code.where(f.line)
        functions.append(f._replace(line=line, cell=cell))
    return Extraction(record, tuple(occurrences), tuple(functions), extraction.units)


def cell_sources(data: bytes) -> Dict[int, List[str]]:
    """Each Python code cell's lines as written, by cell number (none when ``data`` is no notebook)."""
    try:
        return dict(read_cells(data))
    except NotANotebook:
        return {}
