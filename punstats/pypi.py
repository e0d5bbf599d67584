"""PyPI sources: ``pypi:NAME==VERSION`` as a corpus, fetched and unpacked safely.

This module owns everything between a PyPI spec and a directory to scan:
looking the release up in the index's JSON API, picking its source
distribution, downloading it into the user's cache directory and checking
its sha256 against the index, and unpacking it.  Nothing from the package is
ever run: no build, no ``setup.py``, no hook; the archive is only read.

Unpacking trusts nothing in the archive.  Every member is checked before it
is written, and each one refused is recorded with its reason (``Refusal``):
absolute paths, ``..`` components, links of any kind (symbolic or hard,
wherever they point: none is ever created), devices, FIFOs and other special
files, members over the size limit, the total size limit and the member-count
limit (``Limits``).  Files are written with mode 0644 whatever the archive
says.  ``tarfile.data_filter`` (Python 3.11.4+) runs as a second check on
what passes ours.

Cache layout (under ``cache.default_dir()/sdists``)::

    <sha256>/<file name>              the archive, checked against its sha256
    <sha256>/tree-<limits key>/       unpack.json (counts, refusals) and src/

A tree is renamed into place only when complete, so two scans at once or a
scan killed midway never leave a half-unpacked tree that looks finished.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from dataclasses import asdict, dataclass
from typing import Any, BinaryIO, Callable, Dict, List, Optional, Sequence, Tuple

from punstats import __version__
from punstats.sources import Corpus, SourceError

PREFIX = "pypi:"
INDEX_URL = "https://pypi.org/pypi"
TIMEOUT_SECONDS = 60
#: Archives larger than this are not downloaded.
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
#: Bumped when unpacking could produce a different tree; part of the tree's cache key.
UNPACK_VERSION = 1
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
CORRUPT = "corrupt"
FILTERED = "filtered"

#: ``get(url) -> bytes``; raises ``FetchError``.  Tests pass their own.
Getter = Callable[[str], bytes]

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.!+_-]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+!-]*$")


class FetchError(SourceError):
    """The index or a download failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Spec:
    name: str  # as given
    version: Optional[str]  # None: the latest release

    @property
    def canonical(self) -> str:
        """PEP 503 normalized name."""
        return re.sub(r"[-_.]+", "-", self.name).lower()


@dataclass(frozen=True)
class Sdist:
    """One source distribution as the index describes it."""

    name: str
    version: str
    filename: str
    url: str
    sha256: str
    size: int
    upload_time: str = ""
    yanked: bool = False


@dataclass(frozen=True)
class Limits:
    max_total_bytes: int = 1024 * 1024 * 1024
    max_member_bytes: int = 128 * 1024 * 1024
    max_files: int = 100_000  # members of any kind, directories included

    @property
    def key(self) -> str:
        text = "%d %d %d %d" % (UNPACK_VERSION, self.max_total_bytes, self.max_member_bytes, self.max_files)
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

    @property
    def root(self) -> str:
        """The directory to scan: the archive's single top-level directory, if it has one."""
        try:
            entries = os.listdir(self.directory)
        except OSError:
            return self.directory
        if len(entries) == 1:
            only = os.path.join(self.directory, entries[0])
            if os.path.isdir(only) and not os.path.islink(only):
                return only
        return self.directory


# -- the spec and the index ---------------------------------------------------

def parse_spec(argument: str) -> Spec:
    """``pypi:NAME==VERSION`` or ``pypi:NAME``."""
    text = argument[len(PREFIX):] if argument.startswith(PREFIX) else argument
    text = text.strip()
    name, sep, version = text.partition("==")
    name, version = name.strip(), version.strip()
    if re.search(r"[<>~!=,;]", name) or "==" in version:
        raise SourceError("only exact pins NAME==VERSION are supported, not %s" % argument)
    if not _NAME.match(name):
        raise SourceError("not a PyPI spec (expected pypi:NAME==VERSION or pypi:NAME): %s" % argument)
    if sep and not _VERSION.match(version):
        raise SourceError("not a version in %s (only == VERSION is supported)" % argument)
    return Spec(name, version if sep else None)


def http_get(url: str, timeout: float = TIMEOUT_SECONDS, max_bytes: int = MAX_DOWNLOAD_BYTES) -> bytes:
    """The body of an HTTPS GET; ``FetchError`` with a one-line message otherwise."""
    if not url.startswith("https://"):
        raise FetchError("refusing to fetch a non-HTTPS URL: %s" % url)
    request = urllib.request.Request(url, headers={"User-Agent": "punstats/%s" % __version__})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read(max_bytes + 1)
    except urllib.error.HTTPError as exc:
        raise FetchError("%s: HTTP %d %s" % (url, exc.code, exc.reason), exc.code) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise FetchError("cannot reach %s: %s" % (urllib.parse.urlsplit(url).netloc, reason)) from None
    if len(body) > max_bytes:
        raise FetchError("%s: larger than %d bytes" % (url, max_bytes))
    return body


def _json(get: Getter, url: str) -> Dict[str, Any]:
    body = get(url)
    try:
        value = json.loads(body)
    except ValueError:
        raise FetchError("%s: the index did not answer with JSON" % url) from None
    if not isinstance(value, dict):
        raise FetchError("%s: unexpected JSON from the index" % url)
    return value


def find_sdist(spec: Spec, get: Getter = http_get, index_url: str = INDEX_URL) -> Sdist:
    """The source distribution of ``spec``'s release, from the index's JSON API.

    Asks ``/pypi/NAME/VERSION/json``; when that answers 404 (some mirrors
    serve only the project document) it falls back to ``/pypi/NAME/json``
    and its ``releases``.  ``pypi:NAME`` takes the latest version.
    """
    quoted = urllib.parse.quote(spec.name)
    project_url = "%s/%s/json" % (index_url, quoted)
    if spec.version is None:
        url = project_url
        meta = _project_json(get, url, spec)
        version = str((meta.get("info") or {}).get("version") or "")
        files = meta.get("urls")
    else:
        version = spec.version
        url = "%s/%s/%s/json" % (index_url, quoted, urllib.parse.quote(version))
        try:
            files = _json(get, url).get("urls")
        except FetchError as exc:
            if exc.status != 404:
                raise
            url = project_url
            files = (_project_json(get, url, spec).get("releases") or {}).get(version)
            if files is None:
                raise SourceError("PyPI has no version %s of %s" % (version, spec.name)) from None
    if not version or not isinstance(files, list):
        raise FetchError("%s: unexpected JSON from the index (no release files)" % url)
    return pick_sdist(spec.name, version, files, base_url=url)


def _project_json(get: Getter, url: str, spec: Spec) -> Dict[str, Any]:
    try:
        return _json(get, url)
    except FetchError as exc:
        if exc.status == 404:
            raise SourceError("no project %s on PyPI" % spec.name) from None
        raise


def _archive_kind(filename: str) -> Optional[str]:
    lower = filename.lower()
    for suffix, kind in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return kind
    return None


def _preference(filename: str) -> int:
    lower = filename.lower()
    return next(i for i, (suffix, _) in enumerate(ARCHIVE_SUFFIXES) if lower.endswith(suffix))


def pick_sdist(name: str, version: str, files: Sequence[Dict[str, Any]], base_url: str = "") -> Sdist:
    """The release's sdist among its files (not yanked first, then .tar.gz, .zip, ...).

    File URLs may be relative (some mirrors serve them so): they are resolved
    against ``base_url``, the JSON document's address, and must be HTTPS.
    """
    found: List[Sdist] = []
    for entry in files:
        if not isinstance(entry, dict) or entry.get("packagetype") != "sdist":
            continue
        filename = str(entry.get("filename") or "")
        url = urllib.parse.urljoin(base_url, str(entry.get("url") or ""))
        sha256 = str((entry.get("digests") or {}).get("sha256") or "").lower()
        if not (_FILE_NAME.match(filename) and _archive_kind(filename) and url.startswith("https://")
                and _SHA256.match(sha256)):
            continue
        found.append(Sdist(name, version, filename, url, sha256, int(entry.get("size") or 0),
                           str(entry.get("upload_time_iso_8601") or entry.get("upload_time") or ""),
                           bool(entry.get("yanked"))))
    if not found:
        raise SourceError("%s==%s has no source distribution on PyPI that punstats can read "
                          "(.tar.gz, .zip, .tar.bz2)" % (name, version))
    return min(found, key=lambda s: (s.yanked, _preference(s.filename)))


# -- download ------------------------------------------------------------------

def default_dir() -> str:
    from punstats.cache import default_dir as cache_dir
    return os.path.join(cache_dir(), "sdists")


def _sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(sdist: Sdist, directory: Optional[str] = None, get: Getter = http_get) -> str:
    """The path of the sdist in the cache, downloaded first if absent; its sha256 is checked."""
    if not _SHA256.match(sdist.sha256) or not _FILE_NAME.match(sdist.filename):
        raise SourceError("unusable sdist description for %s==%s" % (sdist.name, sdist.version))
    folder = os.path.join(directory or default_dir(), sdist.sha256)
    path = os.path.join(folder, sdist.filename)
    if os.path.isfile(path) and _sha256_of(path) == sdist.sha256:
        return path
    if sdist.size > MAX_DOWNLOAD_BYTES:
        raise SourceError("%s is %d bytes, over the download limit of %d"
                          % (sdist.filename, sdist.size, MAX_DOWNLOAD_BYTES))
    body = get(sdist.url)
    actual = hashlib.sha256(body).hexdigest()
    if actual != sdist.sha256:
        raise SourceError("sha256 mismatch for %s: the index says %s, the download is %s"
                          % (sdist.filename, sdist.sha256, actual))
    os.makedirs(folder, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=folder, prefix=".download-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(body)
        os.replace(partial, path)
    except BaseException:
        _remove(partial)
        raise
    return path


# -- unpacking -------------------------------------------------------------------

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

    def __init__(self, root: str, limits: Limits) -> None:
        os.makedirs(root, exist_ok=True)
        self.root = root
        self.real_root = os.path.realpath(root)
        self.limits = limits
        self.members = 0
        self.files = 0
        self.bytes = 0
        self.refused: List[Refusal] = []

    def refuse(self, name: str, reason: str, detail: str = "") -> None:
        self.refused.append(Refusal(_printable(name), reason, detail))

    def count(self) -> None:
        """Every member counts toward ``max_files``; past it, nothing more is read."""
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
        self.check_size(size)
        path = self.target(parts)
        if len(parts) > 1:
            self.directory(parts[:-1])
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(path, flags, 0o644)
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
        except _Refused:
            _remove(path)
            raise
        except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as exc:
            _remove(path)
            raise _Refused(CORRUPT, " ".join(str(exc).split()) or type(exc).__name__) from None
        os.chmod(path, 0o644)
        self.files += 1
        self.bytes += written


def _remove(path: str) -> None:
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
    try:
        tar = tarfile.open(path, mode="r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise SourceError("cannot read %s: %s" % (os.path.basename(path), exc)) from None
    with tar:
        while True:
            try:
                member = tar.next()
            except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
                writer.refuse(os.path.basename(path), CORRUPT,
                              "reading stopped: %s" % (" ".join(str(exc).split()) or type(exc).__name__))
                return
            if member is None:
                return
            try:
                _tar_member(writer, tar, member)
            except _Refused as refused:
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
    writer.check_size(info.file_size)
    with archive.open(info) as source:
        writer.file(parts, info.file_size, source)


def _unpack_zip(path: str, writer: _Writer) -> None:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise SourceError("cannot read %s: %s" % (os.path.basename(path), exc)) from None
    with archive:
        for info in archive.infolist():
            try:
                _zip_member(writer, archive, info)
            except _Refused as refused:
                writer.refuse(info.filename, refused.reason, refused.detail)
            except _Stop as stop:
                writer.refuse(info.filename, *stop.args)
                return
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
                writer.refuse(info.filename, CORRUPT, " ".join(str(exc).split()) or type(exc).__name__)


def unpack(archive: str, destination: str, limits: Limits = Limits()) -> Unpacked:
    """Unpack ``archive`` (by its ending: tar.gz, tar.bz2, tar.xz, tar, zip) into ``destination``.

    Never raises for a bad member: each is refused and recorded.  Raises
    ``SourceError`` when the file is not an archive it can open at all.
    """
    kind = _archive_kind(archive)
    if kind is None:
        raise SourceError("not an archive punstats can unpack (.tar.gz, .tar.bz2, .zip): %s" % archive)
    writer = _Writer(destination, limits)
    (_unpack_tar if kind == "tar" else _unpack_zip)(archive, writer)
    return Unpacked(destination, writer.files, writer.bytes, tuple(writer.refused))


def unpack_cached(archive: str, sha256: str, directory: Optional[str] = None,
                  limits: Limits = Limits()) -> Unpacked:
    """``unpack`` into the cache, once per archive and limits; later calls read the manifest."""
    parent = os.path.join(directory or default_dir(), sha256)
    final = os.path.join(parent, "tree-" + limits.key)
    manifest = os.path.join(final, MANIFEST)
    if not os.path.isfile(manifest):
        os.makedirs(parent, exist_ok=True)
        partial = tempfile.mkdtemp(dir=parent, prefix=".partial-")
        try:
            result = unpack(archive, os.path.join(partial, "src"), limits)
            with open(os.path.join(partial, MANIFEST), "w", encoding="utf-8") as handle:
                json.dump({"files": result.files, "bytes": result.bytes, "limits": asdict(limits),
                           "refused": [asdict(r) for r in result.refused]}, handle, indent=1)
            try:
                os.rename(partial, final)
            except OSError:  # another scan finished first: use its tree
                if not os.path.isfile(manifest):
                    raise
        finally:
            if os.path.isdir(partial):
                shutil.rmtree(partial, ignore_errors=True)
    with open(manifest, encoding="utf-8") as handle:
        saved = json.load(handle)
    return Unpacked(os.path.join(final, "src"), saved["files"], saved["bytes"],
                    tuple(Refusal(**r) for r in saved["refused"]))


# -- the corpus -------------------------------------------------------------------

def pypi_corpus(argument: str, get: Getter = http_get, directory: Optional[str] = None,
                limits: Limits = Limits()) -> Corpus:
    """The corpus of ``pypi:NAME==VERSION``: the unpacked sdist, with its provenance."""
    spec = parse_spec(argument)
    sdist = find_sdist(spec, get)
    path = download(sdist, directory, get)
    unpacked = unpack_cached(path, sdist.sha256, directory, limits)
    archive = {
        "file": sdist.filename,
        "url": sdist.url,
        "sha256": sdist.sha256,
        "yanked": sdist.yanked,
        "files": unpacked.files,
        "bytes": unpacked.bytes,
        "limits": asdict(limits),
    }
    return Corpus(
        name="%s-%s" % (spec.canonical, sdist.version),
        root=unpacked.root,
        source="%s%s==%s" % (PREFIX, spec.canonical, sdist.version),
        revision="%s sha256:%s" % (sdist.filename, sdist.sha256),
        commit_date=sdist.upload_time,
        archive=archive,
        refused_members=tuple((r.member, r.reason, r.detail) for r in unpacked.refused),
    )
