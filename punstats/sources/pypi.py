"""PyPI sources: ``pypi:NAME==VERSION`` as a corpus, fetched and unpacked safely.

This module owns everything between a PyPI spec and a directory to scan:
looking the release up in the index's JSON API, picking its source
distribution (or, for ``resolve_latest``, a pure-Python wheel when the latest
release has no sdist), downloading it into the user's cache directory and
checking its sha256 against the index, and unpacking it.  Nothing from the
package is ever run: no build, no ``setup.py``, no hook; the archive is only
read.  Names, versions and file names from the index are checked (PEP 503,
PEP 440, one path component) before any of them becomes part of a path.

Unpacking trusts nothing in the archive. Every member is checked before it is written, and each
one refused is recorded with its reason (``Refusal``): absolute paths, ``..`` components, links
of any kind (symbolic or hard, wherever they point: none is ever created), devices, FIFOs and
other special files, members over the size limit, the total size limit and the member-count
limit (``Limits``). Files are written with mode 0644 whatever the archive says.
``tarfile.data_filter`` (Python 3.11.4+) runs as a second check on what passes ours. The whole
archive is read through a cap on the bytes its decompressor yields and a deadline
(``sources.bounded``): a decompression bomb is an error for the release, and leaves no tree.

Cache layout (under ``cache.default_dir()/sdists``)::

    <sha256>/<file name>              the archive, checked against its sha256
    <sha256>/tree-<limits key>/       unpack.json (counts, refusals) and src/ (``sources.trees``)

A tree is renamed into place only when complete, so two scans at once or a
scan killed midway never leave a half-unpacked tree that looks finished.
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import urllib.parse
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.model import jsondata
from punstats.model.corpus import Corpus, SourceError
from punstats.sources.archives import (
    ARCHIVE_SUFFIXES,
    Limits,
    archive_kind,
    default_dir,
    remove_quietly,
)
from punstats.sources.http import (  # noqa: F401 (pypi.http_get, pypi.FetchError, ... as before)
    MAX_DOWNLOAD_BYTES,
    TIMEOUT_SECONDS,
    FetchError,
    fetchable,
    http_get,
    http_stream,
    refusal,
)
from punstats.sources.trees import Unpacker, unpack_cached

PREFIX = "pypi:"

INDEX_URL = "https://pypi.org/pypi"

#: ``get(url) -> bytes``; raises ``FetchError``.  Tests pass their own.
Getter = Callable[[str], bytes]

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")

_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.!+_-]*$")

_SHA256 = re.compile(r"^[0-9a-f]{64}$")

_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+!-]*$")

#: Wheels that hold only Python code (any interpreter, any platform).
PURE_WHEEL_TAGS = ("-py3-none-any.whl", "-py2.py3-none-any.whl")


def canonical_name(name: str) -> str:
    """PEP 503 normalized name."""
    return re.sub(r"[-_.]+", "-", name).lower()


#: The longest project name taken: a run names a project's files after it (``<name>.parquet``,
#: and a temporary file beside it), and a file name holds at most 255 bytes.
MAX_NAME = 200


def valid_name(name: Any) -> bool:
    """Whether ``name`` is a valid project name (PEP 508) of at most ``MAX_NAME`` characters."""
    return isinstance(name, str) and len(name) <= MAX_NAME and _NAME.fullmatch(name) is not None


def check_name(name: Any, where: str) -> str:
    """``name`` if it is a valid project name (``valid_name``), else a one-line ``SourceError``
    (showing at most 80 characters of it)."""
    if not valid_name(name):
        shown = repr(name[:80]) + "... (%d characters)" % len(name) if isinstance(name, str) and len(name) > 80 \
            else repr(name)
        raise SourceError("%s: not a valid project name (PEP 508, at most %d characters): %s"
                          % (where, MAX_NAME, shown))
    return name


def check_version(version: Any, where: str) -> str:
    """``version`` if it is a PEP 440 version written with path-safe characters."""
    if not isinstance(version, str) or not _VERSION.fullmatch(version) or not _pep440(version):
        raise FetchError("%s: not a valid version from the index: %r" % (where, version))
    return version


def _pep440(version: str) -> bool:
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:  # a strict reading of PEP 440's canonical form
        return bool(_PEP440.fullmatch(version))
    try:
        Version(version)
    except InvalidVersion:
        return False
    return True

_PEP440 = re.compile(r"^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?"
                     r"(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$")


@dataclass(frozen=True)
class Spec:
    name: str  # as given
    version: Optional[str]  # None: the latest release

    @property
    def canonical(self) -> str:
        """PEP 503 normalized name."""
        return canonical_name(self.name)


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
    packagetype: str = "sdist"  # or "bdist_wheel": a pure-Python wheel (resolve_latest)

    @property
    def stored_name(self) -> str:
        """Its file name in the cache: a wheel is a zip archive and is unpacked as one."""
        return self.filename + ".zip" if self.packagetype == "bdist_wheel" else self.filename


def parse_spec(argument: str) -> Spec:
    """``pypi:NAME==VERSION`` or ``pypi:NAME``."""
    text = argument[len(PREFIX):] if argument.startswith(PREFIX) else argument
    text = text.strip()
    name, sep, version = text.partition("==")
    name, version = name.strip(), version.strip()
    if re.search(r"[<>~!=,;]", name) or "==" in version:
        raise SourceError("only exact pins NAME==VERSION are supported, not %s" % argument)
    if not _NAME.fullmatch(name):
        raise SourceError("not a PyPI spec (expected pypi:NAME==VERSION or pypi:NAME): %s" % argument)
    if sep and not _VERSION.fullmatch(version):
        raise SourceError("not a version in %s (only == VERSION is supported)" % argument)
    return Spec(name, version if sep else None)


def _json(get: Getter, url: str) -> Dict[str, Any]:
    body = get(url)
    try:
        value = jsondata.loads(body)
    except ValueError:
        raise FetchError("%s: the index did not answer with JSON" % url) from None
    if not isinstance(value, dict):
        raise FetchError("%s: unexpected JSON from the index" % url)
    return value


class Unavailable(SourceError):
    """A release with nothing punstats can read; ``reason`` is one of the constants below."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

NO_FILES = "no_release_files"  # the release lists no files at all
PLATFORM_WHEELS_ONLY = "platform_wheels_only"  # no sdist, and every wheel is built for a platform
NO_READABLE_FILE = "no_sdist_or_pure_wheel"  # files, but none punstats reads (eggs, odd archives)
NO_PROJECT = "no_project"  # the index does not know the name (a project deleted, or with no release left)
NO_RELEASE_YET = "no_release_yet"  # no release stood by the end of the year asked (``sources.releases``)

#: Each reason in words, as reports and tables say it.
REASON_WORDS = {NO_FILES: "no release files", PLATFORM_WHEELS_ONLY: "only platform wheels",
                NO_READABLE_FILE: "no sdist or pure-Python wheel", NO_PROJECT: "not on the index",
                NO_RELEASE_YET: "no release yet"}

#: A release file's ``packagetype`` in words.
PACKAGE_WORDS = {"sdist": "sdist", "bdist_wheel": "wheel"}


def _release_files(spec: Spec, get: Getter, index_url: str):
    """(url of the document, version, its file entries) of ``spec``'s release.

    Asks ``/pypi/NAME/VERSION/json``; when that answers 404 (some mirrors
    serve only the project document) it falls back to ``/pypi/NAME/json``
    and its ``releases``.  ``pypi:NAME`` takes the latest version.
    """
    quoted = urllib.parse.quote(spec.name)
    project_url = "%s/%s/json" % (index_url, quoted)
    if spec.version is None:
        url = project_url
        meta = project_json(get, url, spec)
        info = meta.get("info")
        version = check_version(info.get("version") if isinstance(info, dict) else None, url)
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
            releases = project_json(get, url, spec).get("releases")
            if not isinstance(releases, dict):
                raise FetchError("%s: unexpected JSON from the index (no releases)" % url) from None
            files = releases.get(version)
            if files is None:
                raise SourceError("PyPI has no version %s of %s" % (version, spec.name)) from None
    if not isinstance(files, list):
        raise FetchError("%s: unexpected JSON from the index (no release files)" % url)
    return url, version, files


def find_sdist(spec: Spec, get: Getter = http_get, index_url: str = INDEX_URL) -> Sdist:
    """The source distribution of ``spec``'s release, from the index's JSON API."""
    url, version, files = _release_files(spec, get, index_url)
    return pick_sdist(spec.name, version, files, base_url=url)


def resolve_latest(name: str, get: Getter = http_get, index_url: str = INDEX_URL) -> Sdist:
    """The latest release of ``name`` as ``pick_release`` chooses its file."""
    spec = Spec(check_name(name, "project"), None)
    url, version, files = _release_files(spec, get, index_url)
    return pick_release(spec.name, version, files, url)


def pick_release(name: str, version: str, files: Sequence[Any], url: str) -> Sdist:
    """A release's sdist, else a pure-Python wheel (``PURE_WHEEL_TAGS``; ``packagetype`` says which),
    else ``Unavailable`` with its reason; ``url``: the JSON document listing ``files``."""
    try:
        return pick_sdist(name, version, files, base_url=url)
    except Unavailable:
        pass
    wheels = [e for e in files if isinstance(e, dict) and e.get("packagetype") == "bdist_wheel"]
    pure = [d for d in (_distribution(e, name, version, url) for e in wheels)
            if d is not None and d.filename.lower().endswith(PURE_WHEEL_TAGS)]
    if pure:
        return min(pure, key=lambda d: (d.yanked, d.filename))
    if not files:
        raise Unavailable("%s==%s lists no files on PyPI" % (name, version), NO_FILES)
    if wheels:
        raise Unavailable("%s==%s has no sdist and only platform wheels" % (name, version), PLATFORM_WHEELS_ONLY)
    raise Unavailable("%s==%s has no sdist or pure-Python wheel punstats can read" % (name, version),
                      NO_READABLE_FILE)


def project_json(get: Getter, url: str, spec: Spec) -> Dict[str, Any]:
    """The project document at ``url``; ``Unavailable`` (``NO_PROJECT``) when the index does not know it."""
    try:
        return _json(get, url)
    except FetchError as exc:
        if exc.status == 404:
            raise Unavailable("no project %s on PyPI" % spec.name, NO_PROJECT) from None
        raise


def _preference(filename: str) -> int:
    lower = filename.lower()
    return next(i for i, (suffix, _) in enumerate(ARCHIVE_SUFFIXES) if lower.endswith(suffix))


def _distribution(entry: Any, name: str, version: str, base_url: str) -> Optional[Sdist]:
    """One file entry of the index as a ``Sdist``, or None when anything in it is unusable."""
    if not isinstance(entry, dict):
        return None
    filename = entry.get("filename")
    raw_url = entry.get("url")
    digests = entry.get("digests")
    sha256 = digests.get("sha256") if isinstance(digests, dict) else None
    size = entry.get("size", 0)
    if not (isinstance(filename, str) and _FILE_NAME.fullmatch(filename) and isinstance(raw_url, str)
            and isinstance(sha256, str) and _SHA256.fullmatch(sha256.lower())
            and isinstance(size, int) and not isinstance(size, bool) and size >= 0):
        return None
    url = urllib.parse.urljoin(base_url, raw_url)
    if not fetchable(url, base_url):
        return None
    uploaded = entry.get("upload_time_iso_8601") or entry.get("upload_time") or ""
    return Sdist(name, version, filename, url, sha256.lower(), size, str(uploaded)[:40],
                 bool(entry.get("yanked")), str(entry.get("packagetype")))


def pick_sdist(name: str, version: str, files: Sequence[Dict[str, Any]], base_url: str = "") -> Sdist:
    """The release's sdist among its files (not yanked first, then .tar.gz, .zip, ...).

    File URLs may be relative (some mirrors serve them so): they are resolved
    against ``base_url``, the JSON document's address, and must be HTTPS.
    """
    found: List[Sdist] = []
    for entry in files:
        if not isinstance(entry, dict) or entry.get("packagetype") != "sdist":
            continue
        sdist = _distribution(entry, name, version, base_url)
        if sdist is not None and archive_kind(sdist.filename):
            found.append(sdist)
    if not found:
        raise Unavailable("%s==%s has no source distribution on PyPI that punstats can read "
                          "(.tar.gz, .zip, .tar.bz2)" % (name, version), NO_READABLE_FILE)
    return min(found, key=lambda s: (s.yanked, _preference(s.filename)))


def sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(sdist: Sdist, directory: Optional[str] = None, get: Getter = http_get) -> str:
    """The path of the sdist in the cache, downloaded first if absent; its sha256 is checked."""
    if not _SHA256.fullmatch(sdist.sha256) or not _FILE_NAME.fullmatch(sdist.filename):
        raise SourceError("unusable sdist description for %s==%s" % (sdist.name, sdist.version))
    folder = os.path.join(directory or default_dir(), sdist.sha256)
    path = os.path.join(folder, sdist.stored_name)
    if os.path.isfile(path) and sha256_of(path) == sdist.sha256:
        return path
    if sdist.size > MAX_DOWNLOAD_BYTES:
        raise SourceError("%s is %d bytes, over the download limit of %d"
                          % (sdist.filename, sdist.size, MAX_DOWNLOAD_BYTES))
    os.makedirs(folder, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=folder, prefix=".download-")
    try:
        with os.fdopen(fd, "wb") as handle:
            stream = getattr(get, "stream", None)
            if stream is not None:
                actual = stream(sdist.url, handle)
            else:
                body = get(sdist.url)
                handle.write(body)
                actual = hashlib.sha256(body).hexdigest()
            handle.flush()
            os.fsync(handle.fileno())
        if actual != sdist.sha256:
            raise SourceError("sha256 mismatch for %s: the index says %s, the download is %s"
                              % (sdist.filename, sdist.sha256, actual))
        os.replace(partial, path)
    except BaseException:
        remove_quietly(partial)
        raise
    return path


def pypi_corpus(argument: str, get: Getter = http_get, directory: Optional[str] = None,
                limits: Optional[Limits] = None) -> Corpus:
    """The corpus of ``pypi:NAME==VERSION``: the unpacked sdist, with its provenance."""
    return release_corpus(find_sdist(parse_spec(argument), get), get, directory, limits)


def release_corpus(release: Sdist, get: Getter = http_get, directory: Optional[str] = None,
                   limits: Optional[Limits] = None, only: Tuple[str, ...] = (),
                   unpack: Optional[Unpacker] = None) -> Corpus:
    """The corpus of one release file (sdist or pure wheel): downloaded, checked, unpacked by ``unpack``
    (default: here, ``unpack_cached``; ``only``: writing only the files ending so, ``sources.unwritten``)."""
    limits = limits or Limits()
    path = download(release, directory, get)
    try:
        unpacked = (unpack or unpack_cached)(path, release.sha256, directory, limits, only)
    except SourceError as exc:  # named as the index names it, not as stored (a wheel as .whl.zip)
        raise SourceError(str(exc).replace(release.stored_name, release.filename)) from None
    archive = {"file": release.filename, "url": release.url, "sha256": release.sha256,
               "packagetype": release.packagetype, "yanked": release.yanked, "files": unpacked.files,
               "bytes": unpacked.bytes, "limits": asdict(limits)}
    canonical = canonical_name(release.name)
    return Corpus(
        name="%s-%s" % (canonical, release.version),
        root=unpacked.root,
        source="%s%s==%s" % (PREFIX, canonical, release.version),
        revision="%s sha256:%s" % (release.filename, release.sha256),
        commit_date=release.upload_time,
        archive=archive,
        refused_members=tuple((r.member, r.reason, r.detail) for r in unpacked.refused),
    )
