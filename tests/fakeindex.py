"""A fake PyPI on 127.0.0.1 for tests: the JSON API and the files, served by http.server in a thread.

Tests build the sdists and wheels (``sdist``, ``wheel``), register projects
(``FakePyPI.project``; with dated releases, ``FakePyPI.history``), the simple API's
project list (``FakePyPI.simple``) or raw (``FakePyPI.raw``), and point punstats at
``FakePyPI.index_url``.  ``hold(path)`` makes one answer wait until
``release(path)``, so that a test can stop a run at a known point;
``dribble(path, seconds)`` sends one body a byte at a time over ``seconds`` (a
slow download) until ``release(path)``.  Both return an event set when the path is
asked.
"""
import hashlib
import io
import json
import tarfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def sdist(name, version, files):
    """A .tar.gz sdist holding ``files`` ({relative path: text}) under NAME-VERSION/."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo("%s-%s/%s" % (name, version, path))
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def wheel(files):
    """A wheel (a zip) holding ``files`` at its top level."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in sorted(files.items()):
            archive.writestr(path, text)
    return buffer.getvalue()


class FakePyPI:
    def __init__(self):
        self.routes = {}
        self.requests = []
        self.held = {}
        self.slow = {}  # path -> seconds its body takes (dribble)
        self.asked = {}  # path -> an event set when it is asked (hold, dribble)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                fake.requests.append(self.path)
                if self.path in fake.asked:
                    fake.asked[self.path].set()
                gate = fake.held.get(self.path)
                if gate is not None:
                    gate.wait(60)
                status, body = fake.routes.get(self.path, (404, b"not found"))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                seconds = fake.slow.get(self.path)
                if seconds is None:
                    self.wfile.write(body)
                    return
                try:  # a byte at a time, until the client leaves or the dribble is released
                    for i in range(len(body)):
                        self.wfile.write(body[i:i + 1])
                        self.wfile.flush()
                        if self.path in fake.slow:
                            time.sleep(seconds / len(body))
                except OSError:
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.index_url = self.base + "/pypi"

    def close(self):
        self.slow.clear()
        for gate in self.held.values():
            gate.set()
        self.server.shutdown()
        self.server.server_close()

    def raw(self, path, body, status=200):
        self.routes[path] = (status, body if isinstance(body, bytes) else body.encode())

    def project(self, name, version, files, sha256=None):
        """``files``: [(filename, bytes, packagetype)]; the project document lists them as the latest release."""
        entries = []
        for filename, data, packagetype in files:
            digest = hashlib.sha256(data).hexdigest()
            path = "/files/%s/%s" % (digest[:8], filename)
            self.raw(path, data)
            entries.append({"filename": filename, "packagetype": packagetype, "url": self.base + path,
                            "digests": {"sha256": sha256 or digest}, "size": len(data),
                            "upload_time_iso_8601": "2024-05-06T07:08:09Z", "yanked": False})
        document = {"info": {"name": name, "version": version}, "urls": entries, "releases": {version: entries}}
        self.raw("/pypi/%s/json" % name, json.dumps(document))
        return entries

    def history(self, name, releases):
        """``releases``: {version: [(filename, bytes, packagetype, upload time, yanked)]}; the project
        document lists them all, its latest the highest version listed last."""
        listed = {}
        for version, files in releases.items():
            listed[version] = []
            for filename, data, packagetype, uploaded, yanked in files:
                digest = hashlib.sha256(data).hexdigest()
                path = "/files/%s/%s" % (digest[:8], filename)
                self.raw(path, data)
                listed[version].append({"filename": filename, "packagetype": packagetype, "url": self.base + path,
                                        "digests": {"sha256": digest}, "size": len(data),
                                        "upload_time_iso_8601": uploaded, "yanked": yanked})
        latest = list(releases)[-1]
        document = {"info": {"name": name, "version": latest}, "urls": listed[latest], "releases": listed}
        self.raw("/pypi/%s/json" % name, json.dumps(document))

    def simple(self, names):
        """The simple API's root (PEP 503 HTML) listing ``names`` as given; its bytes."""
        links = "".join('    <a href="/simple/%s/">%s</a>\n' % (name.lower(), name) for name in names)
        page = "<!DOCTYPE html>\n<html>\n  <head><title>Simple index</title></head>\n  <body>\n%s  </body>\n</html>\n"
        self.raw("/simple/", page % links)
        return self.routes["/simple/"][1]

    def hold(self, path):
        self.held[path] = threading.Event()
        return self.asked.setdefault(path, threading.Event())

    def dribble(self, path, seconds):
        self.slow[path] = seconds
        return self.asked.setdefault(path, threading.Event())

    def release(self, path):
        self.slow.pop(path, None)
        if path in self.held:
            self.held[path].set()


def top_list(path, names, last_update="2024-06-01 00:00:00"):
    """A ranked list in hugovk/top-pypi-packages' format."""
    rows = [{"project": name, "download_count": 1000 - i} for i, name in enumerate(names)]
    path.write_text(json.dumps({"last_update": last_update, "rows": rows}))
    return str(path)
