"""PyPI sources: safe unpacking of hostile archives, index metadata and the sha256 check.

No test touches the network: archives are built in tmp dirs and the HTTP
getter is a fake.
"""
import hashlib
import io
import json
import stat
import tarfile
import zipfile

import pytest

import punstats
from punstats import cli
from punstats.model.corpus import SourceError
from punstats.present import console
from punstats.sources import archives, pypi, resolve
from punstats.sources.archives import Limits, unpack

CODE = b"def f(verbose):\n    return g(verbose=verbose)\n"


def add(tar, name, data=b"", **attrs):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in attrs.items():
        setattr(info, key, value)
    tar.addfile(info, io.BytesIO(data) if data else None)


def make_tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as tar:
        for name, data, attrs in members:
            add(tar, name, data, **attrs)
    return str(path)


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, mode in members:
            info = zipfile.ZipInfo(name)
            if mode is not None:
                info.external_attr = mode << 16
            archive.writestr(info, data)
    return str(path)


def reasons(result):
    return {r.member: r.reason for r in result.refused}


def written(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_hostile_tar_members_are_refused_and_nothing_leaves_the_destination(tmp_path):
    archive = make_tar(tmp_path / "evil-1.0.tar.gz", [
        ("evil-1.0/pkg/a.py", CODE, {}),
        ("evil-1.0/../escaped.py", CODE, {}),
        ("../../escaped2.py", CODE, {}),
        ("/tmp/absolute.py", CODE, {}),
        ("evil-1.0/pkg/..\\..\\win.py", CODE, {}),
        ("evil-1.0/pkg/passwd.py", b"", {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}),
        ("evil-1.0/pkg/up.py", b"", {"type": tarfile.SYMTYPE, "linkname": "../../../outside.py"}),
        ("evil-1.0/pkg/inside.py", b"", {"type": tarfile.SYMTYPE, "linkname": "a.py"}),
        ("evil-1.0/pkg/hard.py", b"", {"type": tarfile.LNKTYPE, "linkname": "/etc/passwd"}),
        ("evil-1.0/pkg/dev.py", b"", {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3}),
        ("evil-1.0/pkg/blk.py", b"", {"type": tarfile.BLKTYPE, "devmajor": 8, "devminor": 0}),
        ("evil-1.0/pkg/fifo.py", b"", {"type": tarfile.FIFOTYPE}),
        ("evil-1.0/pkg/setuid.py", CODE, {"mode": 0o4755}),
    ])
    dest = tmp_path / "dest"
    result = unpack(archive, str(dest))
    assert reasons(result) == {
        "evil-1.0/../escaped.py": archives.PATH_TRAVERSAL,
        "../../escaped2.py": archives.PATH_TRAVERSAL,
        "/tmp/absolute.py": archives.ABSOLUTE_PATH,
        "evil-1.0/pkg/..\\..\\win.py": archives.PATH_TRAVERSAL,
        "evil-1.0/pkg/passwd.py": archives.SYMLINK,
        "evil-1.0/pkg/up.py": archives.SYMLINK,
        "evil-1.0/pkg/inside.py": archives.SYMLINK,  # every link is refused, wherever it points
        "evil-1.0/pkg/hard.py": archives.HARDLINK,
        "evil-1.0/pkg/dev.py": archives.DEVICE,
        "evil-1.0/pkg/blk.py": archives.DEVICE,
        "evil-1.0/pkg/fifo.py": archives.FIFO,
    }
    assert {r.member: r.detail for r in result.refused}["evil-1.0/pkg/passwd.py"] == "link to /etc/passwd"
    assert written(dest) == ["evil-1.0/pkg/a.py", "evil-1.0/pkg/setuid.py"]
    assert written(tmp_path) == ["dest/evil-1.0/pkg/a.py", "dest/evil-1.0/pkg/setuid.py", "evil-1.0.tar.gz"]
    assert not any(p.is_symlink() for p in dest.rglob("*"))
    assert stat.S_IMODE((dest / "evil-1.0/pkg/setuid.py").stat().st_mode) == 0o644
    assert (result.files, result.bytes) == (2, 2 * len(CODE))
    assert result.root == str(dest / "evil-1.0")


def test_size_and_count_limits(tmp_path):
    archive = make_tar(tmp_path / "big.tar.gz", [
        ("p/small.py", b"x = 1\n", {}),
        ("p/huge.py", b"#" * 5000, {}),
        ("p/fits.py", b"#" * 900, {}),
        ("p/over_total.py", b"#" * 900, {}),
        ("p/tiny.py", b"y = 2\n", {}),
    ])
    result = unpack(archive, str(tmp_path / "a"), Limits(max_member_bytes=1000, max_total_bytes=1500))
    assert reasons(result) == {"p/huge.py": archives.MEMBER_TOO_LARGE, "p/over_total.py": archives.TOTAL_TOO_LARGE}
    assert written(tmp_path / "a") == ["p/fits.py", "p/small.py", "p/tiny.py"]

    many = make_tar(tmp_path / "many.tar", [("p/m%d.py" % i, b"", {}) for i in range(6)], mode="w")
    result = unpack(many, str(tmp_path / "b"), Limits(max_files=4))
    assert [(r.member, r.reason) for r in result.refused] == [("p/m4.py", archives.TOO_MANY_FILES)]
    assert "more than 4 members" in result.refused[0].detail
    assert result.files == 4


def test_bz2_tar_and_conflicting_members(tmp_path):
    archive = make_tar(tmp_path / "c.tar.bz2", [
        ("c/x.py", CODE, {}),
        ("c/x.py/inner.py", CODE, {}),  # a directory where a file already is
        ("c/d", b"", {"type": tarfile.DIRTYPE}),
        ("c/d", CODE, {}),  # a file where a directory already is
        ("./", b"", {"type": tarfile.DIRTYPE}),
    ], mode="w:bz2")
    result = unpack(archive, str(tmp_path / "out"))
    assert reasons(result) == {"c/x.py/inner.py": archives.CONFLICT, "c/d": archives.CONFLICT}
    assert written(tmp_path / "out") == ["c/x.py"]


def test_a_truncated_archive_is_an_error_and_leaves_nothing(tmp_path):
    archive = make_tar(tmp_path / "t.tar", [("t/a.py", CODE, {}), ("t/b.py", b"#" * 20000, {})], mode="w")
    data = open(archive, "rb").read()
    (tmp_path / "cut.tar").write_bytes(data[:4096])
    with pytest.raises(SourceError, match="^cannot read cut.tar: damaged or truncated after 2 members: "
                                          "t/b.py: unexpected end of data$"):
        unpack(str(tmp_path / "cut.tar"), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_hostile_zip_members(tmp_path):
    archive = make_zip(tmp_path / "z-1.0.zip", [
        ("z-1.0/ok.py", CODE, None),
        ("../escaped.py", CODE, None),
        ("z-1.0/../../escaped.py", CODE, None),
        ("/abs.py", CODE, None),
        ("z-1.0/link.py", "/etc/passwd", stat.S_IFLNK | 0o777),
        ("z-1.0/fifo.py", "", stat.S_IFIFO | 0o644),
        ("z-1.0/dev.py", "", stat.S_IFCHR | 0o644),
        ("z-1.0/big.py", "#" * 3000, stat.S_IFREG | 0o755),
        ("z-1.0/sub/", "", stat.S_IFDIR | 0o755),
    ])
    result = unpack(archive, str(tmp_path / "out"), Limits(max_member_bytes=2000))
    assert reasons(result) == {
        "../escaped.py": archives.PATH_TRAVERSAL,
        "z-1.0/../../escaped.py": archives.PATH_TRAVERSAL,
        "/abs.py": archives.ABSOLUTE_PATH,
        "z-1.0/link.py": archives.SYMLINK,
        "z-1.0/fifo.py": archives.FIFO,
        "z-1.0/dev.py": archives.DEVICE,
        "z-1.0/big.py": archives.MEMBER_TOO_LARGE,
    }
    assert written(tmp_path) == ["out/z-1.0/ok.py", "z-1.0.zip"]
    assert (tmp_path / "out/z-1.0/sub").is_dir()


def test_not_an_archive(tmp_path):
    (tmp_path / "x.rar").write_bytes(b"nope")
    with pytest.raises(SourceError, match="not an archive"):
        unpack(str(tmp_path / "x.rar"), str(tmp_path / "out"))
    (tmp_path / "x.tar.gz").write_bytes(b"nope")
    with pytest.raises(SourceError, match="cannot read x.tar.gz"):
        unpack(str(tmp_path / "x.tar.gz"), str(tmp_path / "out"))


# -- the index, the download, the corpus -----------------------------------------

class FakeIndex:
    """A getter serving PyPI-shaped JSON and archive bytes; counts requests."""

    def __init__(self, name, version, archive_bytes, filename, serve_version_url=True, sha256=None):
        self.requests = []
        sha = sha256 or hashlib.sha256(archive_bytes).hexdigest()
        url = "https://files.example/%s" % filename
        files = [
            {"packagetype": "bdist_wheel", "filename": "%s-%s-py3-none-any.whl" % (name, version),
             "url": "https://files.example/w.whl", "digests": {"sha256": "0" * 64}, "size": 1},
            {"packagetype": "sdist", "filename": filename, "url": url, "digests": {"sha256": sha},
             "size": len(archive_bytes), "upload_time_iso_8601": "2024-01-02T03:04:05Z", "yanked": False},
        ]
        self.routes = {url: archive_bytes,
                       "https://pypi.org/pypi/%s/json" % name: json.dumps(
                           {"info": {"name": name, "version": version}, "urls": files,
                            "releases": {version: files, "0.1": []}}).encode()}
        if serve_version_url:
            self.routes["https://pypi.org/pypi/%s/%s/json" % (name, version)] = json.dumps(
                {"info": {"name": name, "version": version}, "urls": files}).encode()

    def __call__(self, url):
        self.requests.append(url)
        if url not in self.routes:
            raise pypi.FetchError("%s: HTTP 404 Not Found" % url, 404)
        return self.routes[url]


def sdist_bytes(tmp_path, name="demo", version="1.0"):
    top = "%s-%s" % (name, version)
    path = make_tar(tmp_path / ("%s.tar.gz" % top), [
        (top + "/setup.py", b"setup(name=name, version=version)\n", {}),
        (top + "/demo/core.py", CODE, {}),
        (top + "/demo/link.py", b"", {"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}),
        (top + "/../oops.py", CODE, {}),
    ])
    return open(path, "rb").read(), top + ".tar.gz"


def test_parse_spec():
    assert pypi.parse_spec("pypi:Demo_Pkg==1.0") == pypi.Spec("Demo_Pkg", "1.0")
    assert pypi.parse_spec("pypi:Demo_Pkg==1.0").canonical == "demo-pkg"
    assert pypi.parse_spec("pypi:demo") == pypi.Spec("demo", None)
    for bad in ("pypi:", "pypi:demo>=1", "pypi:../x==1", "pypi:demo==1.0/../../x", "pypi:demo=="):
        with pytest.raises(SourceError):
            pypi.parse_spec(bad)


def test_pick_sdist_prefers_tar_gz_and_skips_unusable_entries():
    files = [
        {"packagetype": "sdist", "filename": "d-1.zip", "url": "https://x/d-1.zip", "digests": {"sha256": "a" * 64}},
        {"packagetype": "sdist", "filename": "d-1.tar.gz", "url": "https://x/d-1.tar.gz",
         "digests": {"sha256": "b" * 64}},
        {"packagetype": "sdist", "filename": "d-1.tar.gz", "url": "http://insecure/d-1.tar.gz",
         "digests": {"sha256": "c" * 64}},
        {"packagetype": "sdist", "filename": "../d-1.tar.gz", "url": "https://x/e", "digests": {"sha256": "d" * 64}},
    ]
    assert pypi.pick_sdist("d", "1", files).sha256 == "b" * 64
    relative = [dict(files[1], url="../../packages/ab/d-1.tar.gz")]  # as some mirrors serve them
    assert pypi.pick_sdist("d", "1", relative, base_url="https://pypi.org/pypi/d/json").url == \
        "https://pypi.org/packages/ab/d-1.tar.gz"
    assert pypi.pick_sdist("d", "1", files[:1]).filename == "d-1.zip"
    with pytest.raises(SourceError, match="no source distribution"):
        pypi.pick_sdist("d", "1", files[2:])


def test_pypi_corpus_downloads_verifies_unpacks_and_caches(tmp_path):
    data, filename = sdist_bytes(tmp_path)
    index = FakeIndex("demo", "1.0", data, filename)
    cache = str(tmp_path / "cache")
    corpus = pypi.pypi_corpus("pypi:demo==1.0", get=index, directory=cache)
    sha = hashlib.sha256(data).hexdigest()
    assert corpus.name == "demo-1.0" and corpus.source == "pypi:demo==1.0"
    assert corpus.revision == "%s sha256:%s" % (filename, sha)
    assert corpus.commit_date == "2024-01-02T03:04:05Z"
    assert corpus.root.endswith("/src/demo-1.0")
    assert sorted(r[:2] for r in corpus.refused_members) == [
        ("demo-1.0/../oops.py", archives.PATH_TRAVERSAL), ("demo-1.0/demo/link.py", archives.SYMLINK)]
    assert corpus.archive["sha256"] == sha and corpus.archive["files"] == 2
    assert index.requests == ["https://pypi.org/pypi/demo/1.0/json", "https://files.example/" + filename]

    assert not list((tmp_path / "cache").rglob(".partial-*"))  # the tree was renamed into place
    (tmp_path / "cache" / sha / ".partial-killed").mkdir()  # what a scan killed midway leaves
    again = pypi.pypi_corpus("pypi:demo==1.0", get=index, directory=cache)  # archive and tree reused
    assert again == corpus
    assert index.requests[2:] == ["https://pypi.org/pypi/demo/1.0/json"]

    result = punstats.scan(corpus=corpus, jobs=1)
    assert result.summary["punnable"] == 3 and result.summary["files"] == 2
    assert result.summary["refused_members"] == [  # in archive order
        {"member": "demo-1.0/demo/link.py", "reason": archives.SYMLINK, "detail": "link to /etc/passwd"},
        {"member": "demo-1.0/../oops.py", "reason": archives.PATH_TRAVERSAL, "detail": ""}]
    assert result.summary["archive"]["file"] == filename
    assert result.with_rules("substring").summary["refused_members"] == result.summary["refused_members"]
    text = console.format_summary(result.summary)
    assert "refused 2 (path_traversal 1, symlink 1)" in text
    assert "refused demo-1.0/demo/link.py: symlink (link to /etc/passwd)" in text


def test_latest_version_and_project_json_fallback(tmp_path):
    data, filename = sdist_bytes(tmp_path, version="2.0")
    index = FakeIndex("demo", "2.0", data, filename, serve_version_url=False)
    corpus = pypi.pypi_corpus("pypi:demo", get=index, directory=str(tmp_path / "c"))
    assert corpus.source == "pypi:demo==2.0"
    corpus = pypi.pypi_corpus("pypi:demo==2.0", get=index, directory=str(tmp_path / "c"))
    assert corpus.source == "pypi:demo==2.0"
    assert index.requests[-2:] == ["https://pypi.org/pypi/demo/2.0/json", "https://pypi.org/pypi/demo/json"]
    with pytest.raises(SourceError, match="PyPI has no version 9.9 of demo"):
        pypi.pypi_corpus("pypi:demo==9.9", get=index, directory=str(tmp_path / "c"))
    with pytest.raises(SourceError, match="no source distribution"):
        pypi.pypi_corpus("pypi:demo==0.1", get=index, directory=str(tmp_path / "c"))
    with pytest.raises(SourceError, match="no project other on PyPI"):
        pypi.pypi_corpus("pypi:other==1", get=index, directory=str(tmp_path / "c"))


def test_sha256_mismatch_is_refused_and_nothing_is_cached(tmp_path):
    data, filename = sdist_bytes(tmp_path)
    index = FakeIndex("demo", "1.0", data, filename, sha256="e" * 64)
    with pytest.raises(SourceError, match="sha256 mismatch for demo-1.0.tar.gz"):
        pypi.pypi_corpus("pypi:demo==1.0", get=index, directory=str(tmp_path / "c"))
    assert not list((tmp_path / "c").rglob("*.tar.gz"))


def test_a_tampered_cached_archive_is_downloaded_again(tmp_path):
    data, filename = sdist_bytes(tmp_path)
    index = FakeIndex("demo", "1.0", data, filename)
    sdist = pypi.find_sdist(pypi.Spec("demo", "1.0"), index)
    path = pypi.download(sdist, str(tmp_path / "c"), index)
    open(path, "wb").write(b"tampered")
    assert pypi.download(sdist, str(tmp_path / "c"), index) == path
    assert open(path, "rb").read() == data
    assert index.requests.count(sdist.url) == 2


def test_network_errors_are_one_line_usage_errors(monkeypatch, capsys):
    def offline(argument):
        raise pypi.FetchError("cannot reach pypi.org: [Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(pypi, "pypi_corpus", offline)
    with pytest.raises(pypi.FetchError):
        resolve("pypi:demo==1.0")  # sources.resolve delegates pypi: arguments
    assert cli.main(["scan", "pypi:demo==1.0", "--no-save"]) == 2
    err = capsys.readouterr().err
    assert err == "punstats: error: cannot reach pypi.org: [Errno -3] Temporary failure in name resolution\n"
    assert cli.main(["scan", "pypi:demo>=1.0", "--no-save"]) == 2


# -- what the index says is checked before it becomes a path (issue: index versions in paths) ----------

def project_index(document, name="demo"):
    """A getter answering ``document`` (bytes or a JSON-able value) for NAME's project URL."""
    body = document if isinstance(document, bytes) else json.dumps(document).encode()

    def get(url):
        if url != "https://pypi.org/pypi/%s/json" % name:
            raise pypi.FetchError("%s: HTTP 404 Not Found" % url, 404)
        return body
    return get


URL = "https://pypi.org/pypi/demo/json"


@pytest.mark.parametrize("version", ["1.0/../../../ESCAPED", "../1.0", "1.0 ", "", None, 3, "latest", "1.0\n"])
def test_a_version_from_the_index_that_is_not_pep_440_is_refused_before_any_path(tmp_path, monkeypatch,
                                                                                 capsys, version):
    data, filename = sdist_bytes(tmp_path)
    files = [{"packagetype": "sdist", "filename": filename, "url": "https://files.example/" + filename,
              "digests": {"sha256": hashlib.sha256(data).hexdigest()}, "size": len(data)}]
    get = project_index({"info": {"version": version}, "urls": files})
    with pytest.raises(pypi.FetchError) as caught:
        pypi.pypi_corpus("pypi:demo", get=get, directory=str(tmp_path / "c"))
    assert str(caught.value) == "%s: not a valid version from the index: %r" % (URL, version)
    monkeypatch.chdir(tmp_path)
    real = pypi.pypi_corpus
    monkeypatch.setattr(pypi, "pypi_corpus", lambda argument: real(argument, get=get, directory=str(tmp_path / "c")))
    assert cli.main(["scan", "pypi:demo"]) == 2
    assert capsys.readouterr().err == "punstats: error: %s\n" % caught.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo-1.0.tar.gz"]  # nothing stored, nothing escaped


@pytest.mark.parametrize("document, message", [
    (b"<html>busy</html>", "%s: the index did not answer with JSON" % URL),
    ([1, 2], "%s: unexpected JSON from the index" % URL),
    ({"info": ["1.0"], "urls": []}, "%s: not a valid version from the index: None" % URL),
    ({"info": {"version": "1.0"}, "urls": {"a": 1}}, "%s: unexpected JSON from the index (no release files)" % URL),
    ({"info": {"version": "1.0"}}, "%s: unexpected JSON from the index (no release files)" % URL),
])
def test_malformed_index_json_is_one_line_naming_the_url(document, message):
    with pytest.raises(pypi.FetchError) as caught:
        pypi.resolve_latest("demo", project_index(document))
    assert str(caught.value) == message


def test_file_entries_with_bad_fields_are_ignored_and_file_names_never_leave_one_component():
    good = {"packagetype": "sdist", "filename": "demo-1.0.tar.gz", "url": "https://x/demo-1.0.tar.gz",
            "digests": {"sha256": "a" * 64}, "size": 10}
    bad = [dict(good, filename="../demo-1.0.tar.gz"), dict(good, filename="a/demo-1.0.tar.gz"),
           dict(good, filename=".demo-1.0.tar.gz"), dict(good, size="10"), dict(good, size=-1),
           dict(good, digests=["a" * 64]), dict(good, url=None), dict(good, url="file:///etc/passwd"),
           dict(good, url="http://127.0.0.1/demo-1.0.tar.gz"), "not a dict", None]
    for entry in bad:
        with pytest.raises(pypi.Unavailable, match="no source distribution"):
            pypi.pick_sdist("demo", "1.0", [entry])
    assert pypi.pick_sdist("demo", "1.0", bad + [good]).filename == "demo-1.0.tar.gz"
    # plain HTTP only to this machine, and only when the index itself is there
    local = dict(good, url="http://127.0.0.1:8000/files/demo-1.0.tar.gz")
    assert pypi.pick_sdist("demo", "1.0", [local], base_url="http://127.0.0.1:8000/pypi/demo/json").url == local["url"]
    with pytest.raises(pypi.Unavailable):
        pypi.pick_sdist("demo", "1.0", [local], base_url=URL)


def wheel_entry(filename, sha="b"):
    return {"packagetype": "bdist_wheel", "filename": filename, "url": "https://x/" + filename,
            "digests": {"sha256": sha * 64}, "size": 10}


def test_the_latest_release_resolves_to_its_sdist_else_a_pure_wheel_else_a_reason():
    sdist = {"packagetype": "sdist", "filename": "demo-2.0.tar.gz", "url": "https://x/demo-2.0.tar.gz",
             "digests": {"sha256": "a" * 64}, "size": 10}
    pure = wheel_entry("demo-2.0-py3-none-any.whl")
    both = wheel_entry("demo-2.0-py2.py3-none-any.whl", "c")
    platform = wheel_entry("demo-2.0-cp312-cp312-manylinux_2_17_x86_64.whl", "d")
    egg = dict(wheel_entry("demo-2.0-py3.8.egg"), packagetype="bdist_egg")

    def latest(files):
        return pypi.resolve_latest("demo", project_index({"info": {"version": "2.0"}, "urls": files}))

    assert (latest([platform, pure, sdist]).packagetype, latest([platform, pure, sdist]).filename) == \
        ("sdist", "demo-2.0.tar.gz")
    chosen = latest([platform, pure])
    assert (chosen.packagetype, chosen.filename, chosen.stored_name) == \
        ("bdist_wheel", "demo-2.0-py3-none-any.whl", "demo-2.0-py3-none-any.whl.zip")
    assert latest([platform, both]).filename == "demo-2.0-py2.py3-none-any.whl"
    for files, reason, message in (
            ([platform], pypi.PLATFORM_WHEELS_ONLY, "demo==2.0 has no sdist and only platform wheels"),
            ([], pypi.NO_FILES, "demo==2.0 lists no files on PyPI"),
            ([egg], pypi.NO_READABLE_FILE, "demo==2.0 has no sdist or pure-Python wheel punstats can read")):
        with pytest.raises(pypi.Unavailable) as caught:
            latest(files)
        assert (caught.value.reason, str(caught.value)) == (reason, message)


def test_a_pure_wheel_is_downloaded_checked_and_unpacked_as_a_zip(tmp_path):
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w") as archive:
        archive.writestr("demo/core.py", CODE)
        archive.writestr("demo-2.0.dist-info/METADATA", "Name: demo\n")
        archive.writestr("../escaped.py", CODE)
    data = body.getvalue()
    entry = dict(wheel_entry("demo-2.0-py3-none-any.whl"), digests={"sha256": hashlib.sha256(data).hexdigest()},
                 size=len(data))
    index = project_index({"info": {"version": "2.0"}, "urls": [entry]})
    release = pypi.resolve_latest("demo", index)

    def get(url):
        return data if url == entry["url"] else index(url)

    corpus = pypi.release_corpus(release, get, str(tmp_path / "c"))
    assert corpus.archive["packagetype"] == "bdist_wheel" and corpus.source == "pypi:demo==2.0"
    assert corpus.refused_members == (("../escaped.py", archives.PATH_TRAVERSAL, ""),)
    assert punstats.scan(corpus=corpus, jobs=1).summary["punnable"] == 1
    assert not (tmp_path / "escaped.py").exists()
