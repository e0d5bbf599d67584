"""Unpacking sdists and other archives safely: every refused member recorded with a reason,
and the whole archive read within a cap on decompressed bytes and a deadline (``bounded``).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tarfile
import zipfile
from contextlib import closing
from dataclasses import dataclass, field
from typing import BinaryIO, List, Optional, Set, Tuple

from punstats.model.corpus import SourceError
from punstats.model.errors import one_line
from punstats.sources import bounded
from punstats.sources.tarstream import STREAM_ERRORS, check_end, open_tar
from punstats.sources.unwritten import Unwritten


def default_dir() -> str:
    from punstats.cache import default_dir as cache_dir
    return os.path.join(cache_dir(), "sdists")


#: Bumped when unpacking could produce a different tree; part of the tree's cache key.
UNPACK_VERSION = 2


MANIFEST = "unpack.json"


#: Archive kinds by file-name ending, in order of preference among a release's sdists.
ARCHIVE_SUFFIXES = ((".tar.gz", "tar"), (".tgz", "tar"), (".zip", "zip"), (".tar.bz2", "tar"),
                    (".tbz2", "tar"), (".tar.xz", "tar"), (".tar", "tar"))


# Reasons a member is refused.
ABSOLUTE_PATH = "absolute_path"
PATH_TRAVERSAL = "path_traversal"
BAD_NAME = "bad_name"
SYMLINK = "symlink"
HARDLINK = "hardlink"
DEVICE = "device"
FIFO = "fifo"
SPECIAL = "special_file"
MEMBER_TOO_LARGE = "member_too_large"
TOTAL_TOO_LARGE = "total_too_large"
TOO_MANY_FILES = "too_many_files"
CONFLICT = "conflict"
ENCRYPTED = "encrypted"
COMPRESSION = "unsupported_compression"
CORRUPT = "corrupt"
FILTERED = "filtered"


@dataclass(frozen=True)
class Limits:
    max_total_bytes: int = 1024 * 1024 * 1024
    max_member_bytes: int = 128 * 1024 * 1024
    max_files: int = 100_000  # members of any kind, directories included
    # bytes read from the decompressor (skipped members and the end check too); wall-clock seconds
    max_decompressed_bytes: int = field(default_factory=lambda: bounded.MAX_DECOMPRESSED_BYTES)
    max_seconds: float = field(default_factory=lambda: bounded.MAX_UNPACK_SECONDS)  # not in ``key``

    @property
    def key(self) -> str:
        text = "%d %d %d %d %d" % (UNPACK_VERSION, self.max_total_bytes, self.max_member_bytes, self.max_files,
                                   self.max_decompressed_bytes)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Refusal:
    member: str  # the name as the archive gives it (printable)
    reason: str  # one of the reason constants above
    detail: str = ""


@dataclass(frozen=True)
class Unpacked:
    directory: str  # what was written
    files: int
    bytes: int
    refused: Tuple[Refusal, ...]
    unwritten_top: int = 0  # top-level files read but not written (``sources.unwritten``)

    @property
    def root(self) -> str:
        """The directory to scan: the archive's single top-level directory, if it has one."""
        try:
            entries = os.listdir(self.directory)
        except OSError:
            return self.directory
        if len(entries) + self.unwritten_top == 1:
            only = os.path.join(self.directory, entries[0])
            if os.path.isdir(only) and not os.path.islink(only):
                return only
        return self.directory


def archive_kind(filename: str) -> Optional[str]:
    return next((kind for suffix, kind in ARCHIVE_SUFFIXES if filename.lower().endswith(suffix)), None)


class _Refused(Exception):
    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason, self.detail = reason, detail


class _Stop(Exception):
    """No further member is read."""


def _printable(name: str) -> str:
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def member_parts(name: str) -> Tuple[str, ...]:
    """The path components a member name may be written to; ``_Refused`` otherwise.

    Backslashes count as separators (so ``..\\x`` is traversal too); ``.``
    and empty components are dropped; the result may be empty (the root).
    """
    if "\x00" in name:
        raise _Refused(BAD_NAME, "NUL byte in the name")
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        raise _Refused(ABSOLUTE_PATH)
    parts = tuple(p for p in name.replace("\\", "/").split("/") if p not in ("", "."))
    if ".." in parts:
        raise _Refused(PATH_TRAVERSAL)
    return parts


class _Writer:
    """Writes checked members under ``root`` and keeps the counts and refusals."""

    def __init__(self, root: str, limits: Limits, only: Tuple[str, ...] = ()) -> None:
        os.makedirs(root, exist_ok=True)
        self.unwritten = Unwritten(only)
        self.root = root
        self.real_root = os.path.realpath(root)
        self.limits = limits
        self.members = 0
        self.files = 0
        self.bytes = 0
        self.refused: List[Refusal] = []
        self.written: Set[Tuple[str, ...]] = set()  # files, so that a second of the same name is refused
        self.budget = bounded.Budget(limits.max_decompressed_bytes, limits.max_seconds)

    def refuse(self, name: str, reason: str, detail: str = "") -> None:
        self.refused.append(Refusal(_printable(name), reason, detail))

    def count(self) -> None:
        """Every member counts toward ``max_files``; past it, nothing more is read."""
        self.budget.check_time()  # also between members that read nothing (directories)
        self.members += 1
        if self.members > self.limits.max_files:
            raise _Stop(TOO_MANY_FILES, "more than %d members: this one and every later one not extracted"
                        % self.limits.max_files)

    def target(self, parts: Tuple[str, ...]) -> str:
        path = os.path.join(self.root, *parts)
        parent = os.path.realpath(os.path.dirname(path))
        if parent != self.real_root and not parent.startswith(self.real_root + os.sep):
            raise _Refused(PATH_TRAVERSAL, "resolves outside the destination")
        return path

    def directory(self, parts: Tuple[str, ...]) -> None:
        if not parts:
            return
        path = self.target(parts)
        conflict = self.unwritten.conflict(parts)  # a file only read would stand in the way
        if conflict:
            raise _Refused(CONFLICT, conflict)
        try:
            os.makedirs(path, mode=0o755, exist_ok=True)
        except OSError as exc:
            raise _Refused(CONFLICT, exc.strerror or str(exc)) from None
        if os.path.islink(path) or not os.path.isdir(path):
            raise _Refused(CONFLICT, "exists and is not a directory")

    def check_size(self, size: int) -> None:
        if size > self.limits.max_member_bytes:
            raise _Refused(MEMBER_TOO_LARGE, "%d bytes, over the limit of %d"
                           % (size, self.limits.max_member_bytes))
        if self.bytes + size > self.limits.max_total_bytes:
            raise _Refused(TOTAL_TOO_LARGE, "%d bytes would bring the total over the limit of %d"
                           % (size, self.limits.max_total_bytes))

    def file(self, parts: Tuple[str, ...], size: int, source: BinaryIO) -> None:
        if not parts:
            raise _Refused(BAD_NAME, "a file with an empty name")
        if parts in self.written:
            raise _Refused(CONFLICT, "a file of the same name was unpacked before")
        self.check_size(size)
        path = self.target(parts)
        if len(parts) > 1:
            self.directory(parts[:-1])
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        written_here = self.unwritten.wanted(parts)  # else read all the same (every check), not written
        try:
            fd = os.open(path if written_here else self.unwritten.sink(path), flags, 0o644)
        except OSError as exc:
            raise _Refused(CONFLICT, exc.strerror or str(exc)) from None
        written = 0
        try:
            with os.fdopen(fd, "wb") as handle:
                while True:
                    chunk = source.read(1 << 20)
                    if not chunk:
                        break
                    written += len(chunk)
                    if written > size:  # the header lied about the size
                        raise _Refused(MEMBER_TOO_LARGE, "more bytes than the %d the archive declares" % size)
                    handle.write(chunk)
        except (_Refused,) + STREAM_ERRORS as exc:
            if written_here:
                remove_quietly(path)
            if isinstance(exc, _Refused):
                raise
            raise _Refused(CORRUPT, one_line(exc)) from None
        if written_here:
            os.chmod(path, 0o644)
        else:
            self.unwritten.add(parts)
        self.written.add(parts)
        self.files += 1
        self.bytes += written


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


_DATA_FILTER = getattr(tarfile, "data_filter", None)


def _tar_member(writer: _Writer, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
    writer.count()
    parts = member_parts(member.name)
    if member.issym():
        raise _Refused(SYMLINK, "link to %s" % _printable(member.linkname))
    if member.islnk():
        raise _Refused(HARDLINK, "hard link to %s" % _printable(member.linkname))
    if member.ischr() or member.isblk():
        raise _Refused(DEVICE)
    if member.isfifo():
        raise _Refused(FIFO)
    if not (member.isreg() or member.isdir()):
        raise _Refused(SPECIAL, "tar type %r" % member.type)
    if _DATA_FILTER is not None and parts:
        try:
            _DATA_FILTER(member, writer.root)
        except tarfile.FilterError as exc:  # never expected after the checks above
            raise _Refused(FILTERED, "%s: %s" % (type(exc).__name__, exc)) from None
    if member.isdir():
        writer.directory(parts)
        return
    writer.check_size(member.size)  # before reading anything
    source = tar.extractfile(member)
    if source is None:
        raise _Refused(SPECIAL, "no data")
    with source:
        writer.file(parts, member.size, source)


def _unpack_tar(path: str, writer: _Writer) -> None:
    """Members one at a time; a damaged or cut-off stream is an error for the whole archive
    (what follows the damage cannot be read), never a quietly shorter tree."""
    name = os.path.basename(path)
    tar = open_tar(path, writer.budget)
    with closing(tar.fileobj), tar:  # type: ignore[type-var]
        try:
            _tar_members(tar, writer)
        except STREAM_ERRORS as exc:
            raise SourceError("cannot read %s: damaged or truncated after %d members: %s"
                              % (name, writer.members, one_line(exc))) from None


def _tar_members(tar: tarfile.TarFile, writer: _Writer) -> None:
    while True:
        member = tar.next()
        if member is None:
            check_end(tar)
            return
        try:
            _tar_member(writer, tar, member)
        except _Refused as refused:
            if refused.reason == CORRUPT:  # the stream itself is damaged
                raise tarfile.ReadError("%s: %s" % (_printable(member.name), refused.detail)) from None
            writer.refuse(member.name, refused.reason, refused.detail)
        except _Stop as stop:
            writer.refuse(member.name, *stop.args)
            return
        tar.members = []  # keep memory flat on archives with many members


def _zip_member(writer: _Writer, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    writer.count()
    parts = member_parts(info.filename)
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise _Refused(SYMLINK)
    if kind in (stat.S_IFCHR, stat.S_IFBLK):
        raise _Refused(DEVICE)
    if kind == stat.S_IFIFO:
        raise _Refused(FIFO)
    if kind == stat.S_IFSOCK:
        raise _Refused(SPECIAL, "socket")
    if info.is_dir() or kind == stat.S_IFDIR:
        writer.directory(parts)
        return
    if info.flag_bits & 0x1:
        raise _Refused(ENCRYPTED)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):  # one read of bzip2 or lzma
        raise _Refused(COMPRESSION, "method %d: its output is not bounded while reading" % info.compress_type)
    writer.check_size(info.file_size)
    with archive.open(info) as source:
        writer.file(parts, info.file_size, bounded.BoundedReader(source, writer.budget))


def _unpack_zip(path: str, writer: _Writer) -> None:
    try:
        with open(path, "rb") as handle:
            entries = bounded.zip_entries_over(handle, writer.limits.max_files)
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise SourceError("cannot read %s: %s" % (os.path.basename(path), exc)) from None
    if entries is not None:
        archive.close()
        raise SourceError("cannot read %s: %d members or more, over the limit of %d"
                          % (os.path.basename(path), entries, writer.limits.max_files))
    with archive:
        for info in archive.infolist():
            try:
                _zip_member(writer, archive, info)
            except _Refused as refused:
                writer.refuse(info.filename, refused.reason, refused.detail)
            except _Stop as stop:
                writer.refuse(info.filename, *stop.args)
                return
            except (NotImplementedError, RuntimeError) + STREAM_ERRORS as exc:
                writer.refuse(info.filename, CORRUPT, one_line(exc))


def unpack(archive: str, destination: str, limits: Optional[Limits] = None, only: Tuple[str, ...] = ()) -> Unpacked:
    """Unpack ``archive`` (by its ending: tar.gz, tar.bz2, tar.xz, tar, zip) into ``destination``;
    ``only``: write only the files a scan of these endings reads (``sources.unwritten``).

    Never raises for a bad member: each is refused and recorded.  Raises
    ``SourceError`` when the file is not an archive it can open at all, a
    tar stream is damaged or cut short, or the archive goes over
    ``max_decompressed_bytes`` or ``max_seconds``; then nothing it wrote is left.
    """
    kind = archive_kind(archive)
    if kind is None:
        raise SourceError("not an archive punstats can unpack (.tar.gz, .tar.bz2, .zip): %s" % archive)
    created = not os.path.lexists(destination)
    writer = _Writer(destination, limits or Limits(), only)
    try:
        (_unpack_tar if kind == "tar" else _unpack_zip)(archive, writer)
    except BaseException as exc:
        if created:
            shutil.rmtree(destination, ignore_errors=True)
        if isinstance(exc, bounded.LimitExceeded):  # the whole archive: a bomb, by bytes or by time
            raise SourceError("cannot read %s: %s" % (os.path.basename(archive), exc)) from None
        raise
    return Unpacked(destination, writer.files, writer.bytes, tuple(writer.refused), writer.unwritten.top)
