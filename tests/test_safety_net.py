"""Network policy (issue 19): which URLs punstats asks, at the first request and at every
redirect; an overall deadline per request, and a stop that ends the requests in flight;
file arguments that are not regular files.

Every server here is on 127.0.0.1, in daemon threads, and stops itself: a redirector,
a listener that records who connected (the place a refused redirect must never reach)
and a server that trickles its answer one byte at a time.
"""
import io
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from punstats.cli import main
from punstats.sources import http

#: How long a trickling server goes on at most (it stops earlier when the client leaves).
TRICKLE_SECONDS = 8


class Listener:
    """Accepts connections on 127.0.0.1 and records them; each is closed at once."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.port = self.sock.getsockname()[1]
        self.connections = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, peer = self.sock.accept()
            except OSError:
                continue
            self.connections.append(peer)
            conn.close()

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


class Server:
    """``/redirect/N`` (and ``/redirect/N/...``): a 302 to ``targets[N]``; ``/trickle-body``, ``/trickle-headers``:
    an answer one byte every 0.1 s; ``/list``: ``body``."""

    def __init__(self, targets=(), body=b""):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_GET(self):
                server.requests.append(self.path)
                if self.path.startswith("/redirect/"):
                    self.send_response(302)
                    number = self.path[len("/redirect/"):].split("/", 1)[0]
                    self.send_header("Location", server.targets[int(number)])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif self.path == "/trickle-body":
                    self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Length: 1000\r\n\r\n")
                    self._trickle(b"x" * 1000)
                elif self.path == "/trickle-headers":
                    self._trickle(b"HTTP/1.0 200 OK\r\nX-Slow: " + b"y" * 1000)
                else:
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(server.body)))
                    self.end_headers()
                    self.wfile.write(server.body)

            def _trickle(self, data):
                end = time.monotonic() + TRICKLE_SECONDS
                for byte in data:
                    if time.monotonic() > end:
                        return
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:  # the client left
                        return
                    time.sleep(0.1)

            def log_message(self, *args):
                pass

        self.targets, self.body, self.requests = list(targets), body, []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = "http://127.0.0.1:%d" % self.httpd.server_address[1]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def listener():
    place = Listener()
    yield place
    place.close()


def refused_forms(port):
    """URLs the rule refuses; all but the last two would reach ``port`` on this machine."""
    return ["http://127.1:%d/x" % port, "http://2130706433:%d/x" % port, "http://0x7f.1:%d/x" % port,
            "http://0177.0.0.1:%d/x" % port, "http://[::ffff:127.0.0.1]:%d/x" % port,
            "http://evil@127.0.0.1:%d/x" % port, "ftp://127.0.0.1:%d/x" % port,
            "https://127.0.0.1:%d@evil.invalid/x" % port, "file:///etc/passwd"]


@pytest.mark.parametrize("url, base, allowed", [
    ("https://pypi.org/pypi/x/json", None, True),
    ("https://files.example/a.tar.gz", "https://pypi.org/pypi/x/json", True),
    ("http://127.0.0.1:8080/x", None, True),
    ("http://localhost/x", "http://127.0.0.1:1/", True),
    ("http://[::1]:8080/x", "http://localhost/", True),
    ("http://127.0.0.1/x", "https://pypi.org/", False),  # a remote document names this machine
    ("http://pypi.org/x", None, False),
    ("http://127.1/x", None, False),
    ("http://2130706433/x", None, False),
    ("http://0x7f.1/x", None, False),
    ("http://0177.0.0.1/x", None, False),
    ("http://[::ffff:127.0.0.1]/x", None, False),
    ("http://localhost./x", None, False),
    ("http://evil@127.0.0.1/x", None, False),
    ("https://127.0.0.1@evil/x", None, False),
    ("http://127.0.0.1:99999/x", None, False),
    ("http://127.0.0.1\t.evil/x", None, False),
    ("ftp://127.0.0.1/x", None, False),
    ("file:///etc/passwd", None, False),
    ("data:,x", None, False),
    ("https:///x", None, False),
])
def test_the_rule_is_decided_on_the_parsed_host_exactly(url, base, allowed):
    assert http.fetchable(url, base) is allowed


def test_every_redirect_hop_is_checked_before_any_connection(listener):
    targets = refused_forms(listener.port)
    server = Server(targets)
    try:
        for number, target in enumerate(targets):
            with pytest.raises(http.FetchError) as caught:
                http.http_get("%s/redirect/%d" % (server.base, number), timeout=5)
            message = str(caught.value)
            assert "redirects to %s, which punstats does not fetch" % target in message, message
            assert "\n" not in message
    finally:
        server.close()
    time.sleep(0.2)  # a connection made would have been accepted by now
    assert listener.connections == []


def test_a_redirect_on_this_machine_is_followed():
    server = Server(body=b"the answer")
    server.targets = ["http://localhost:%d/list" % server.httpd.server_address[1]]
    try:
        assert http.http_get(server.base + "/redirect/0", timeout=5) == b"the answer"
    finally:
        server.close()


def test_a_redirect_to_a_refused_place_is_a_one_line_error_of_the_command(listener, tmp_path, monkeypatch,
                                                                          capsys):
    server = Server(["http://2130706433:%d/list.json" % listener.port, "ftp://127.0.0.1:%d/list.json"
                     % listener.port])
    monkeypatch.chdir(tmp_path)
    try:
        for number in (0, 1):
            status = main(["corpus", "top-pypi:1", "--top-pypi-list", "%s/redirect/%d" % (server.base, number),
                           "-o", str(tmp_path / "out"), "-q"])
            err = capsys.readouterr().err
            assert status == 2
            assert err.startswith("punstats: error: %s/redirect/%d redirects to " % (server.base, number))
            assert err.count("\n") == 1
    finally:
        server.close()
    time.sleep(0.2)
    assert listener.connections == []
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", ["/trickle-body", "/trickle-headers"])
def test_a_trickling_server_ends_the_request_at_the_deadline(path, monkeypatch):
    monkeypatch.setattr(http, "DEADLINE_SECONDS", 1)
    server = Server()
    try:
        start = time.monotonic()
        with pytest.raises(http.FetchError) as caught:
            http.http_get(server.base + path, timeout=30)
        elapsed = time.monotonic() - start
    finally:
        server.close()
    assert str(caught.value) == "%s%s: no complete answer within the deadline of 1 s" % (server.base, path)
    assert elapsed < 6  # the server would go on for TRICKLE_SECONDS


def test_a_trickling_download_ends_the_command_at_the_deadline(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(http, "DEADLINE_SECONDS", 1)
    monkeypatch.chdir(tmp_path)
    server = Server()
    try:
        start = time.monotonic()
        status = main(["corpus", "top-pypi:1", "--top-pypi-list", server.base + "/trickle-body", "-q"])
        elapsed = time.monotonic() - start
    finally:
        server.close()
    assert status == 2
    assert capsys.readouterr().err == ("punstats: error: %s/trickle-body: no complete answer within the "
                                       "deadline of 1 s\n" % server.base)
    assert elapsed < 6  # the server would go on for TRICKLE_SECONDS


@pytest.mark.parametrize("path", ["/trickle-body", "/trickle-headers"])
def test_a_stop_ends_a_request_in_flight_at_once_and_refuses_the_later_ones(path):
    server, stop, ended = Server(), http.Stop(), []

    def fetch():
        try:
            http.http_get.stoppable(stop).stream(server.base + path, io.BytesIO(), timeout=30)
        except BaseException as exc:  # noqa: B036 (Stopped is no Exception)
            ended.append(exc)
    thread = threading.Thread(target=fetch)
    try:
        thread.start()
        deadline = time.monotonic() + 10
        while path not in server.requests and time.monotonic() < deadline:
            time.sleep(0.01)  # the request is in flight
        start = time.monotonic()
        stop.stop()
        thread.join(TRICKLE_SECONDS)
        elapsed = time.monotonic() - start
        with pytest.raises(http.Stopped):
            http.http_get(server.base + "/list", stop=stop)
    finally:
        server.close()
    assert [type(exc) for exc in ended] == [http.Stopped]
    assert elapsed < 2  # the server would go on for TRICKLE_SECONDS
    assert server.requests == [path]  # none asked after the stop


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "list.fifo"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("argv", [["top-pypi:1", "--top-pypi-list", "{fifo}"], ["{fifo}"]])
def test_a_fifo_as_a_file_argument_is_an_error_not_a_hang(argv, fifo, tmp_path):
    command = [sys.executable, "-m", "punstats", "corpus"] + [a.format(fifo=fifo) for a in argv] + ["-q"]
    done = subprocess.run(command, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=20)
    assert done.returncode == 2
    assert done.stderr.startswith("punstats: error: ") and done.stderr.endswith(
        "%s is not a regular file\n" % fifo)
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("option", [True, False])
def test_a_device_a_directory_or_a_file_over_the_cap_is_a_one_line_error(option, tmp_path, monkeypatch, capsys):
    from punstats.sources import local
    monkeypatch.chdir(tmp_path)
    big = tmp_path / "big.toml"
    big.write_text("name = 'x'\n" * 20)
    monkeypatch.setattr(local, "ARGUMENT_BYTES", 100)
    for path, reason in ((os.devnull, "is not a regular file"), (str(tmp_path), "is not a regular file"),
                         (str(big), "is over 100 bytes")):
        argv = ["top-pypi:1", "--top-pypi-list", path] if option else [path]
        assert main(["corpus"] + argv + ["-q"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("punstats: error: ") and err.endswith("%s %s\n" % (path, reason))
        assert err.count("\n") == 1


@pytest.mark.parametrize("index", ["ftp://127.0.0.1/pypi", "http://127.1/pypi", "http://pypi.org/pypi"])
def test_an_index_url_the_rule_refuses_is_a_one_line_error_before_any_request(index, tmp_path, monkeypatch,
                                                                              capsys):
    monkeypatch.chdir(tmp_path)
    server = Server(body=b'{"rows": [{"project": "a"}]}')
    try:
        status = main(["corpus", "top-pypi:1", "--top-pypi-list", server.base + "/list", "--index-url", index,
                       "-q"])
    finally:
        server.close()
    assert status == 2
    assert capsys.readouterr().err == "punstats: error: --index-url: %s\n" % http.refusal(index)
    assert server.requests == []


@pytest.mark.parametrize("scheme", ["http", "ftp"])
def test_a_git_clone_follows_no_redirect_to_plain_http_or_ftp(scheme, listener, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    server = Server()
    server.targets = ["%s://127.0.0.1:%d/repo.git/info/refs?service=git-upload-pack" % (scheme, listener.port)]
    try:
        status = main(["scan", "git+%s/redirect/0" % server.base, "--no-save", "-q", "--no-cache"])
    finally:
        server.close()
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("punstats: error: cannot clone %s/redirect/0: " % server.base) and err.count("\n") == 1
    assert server.requests and all(path.startswith("/redirect/0/info/refs") for path in server.requests)
    time.sleep(0.2)
    assert listener.connections == []


def test_every_https_request_verifies_with_one_shared_tls_context(monkeypatch):
    """Making a TLS context loads every authority's certificate: once per process, not per request
    (twice per project of an ecosystem run), and every request still verifies certificates."""
    import ssl
    loads = []
    real = ssl.SSLContext.load_default_certs
    monkeypatch.setattr(ssl.SSLContext, "load_default_certs", lambda self, *args: loads.append(1) or real(self, *args))
    http.tls_context.cache_clear()
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    for _ in range(3):
        with pytest.raises(http.FetchError, match="cannot reach 127.0.0.1"):
            http.http_get("https://127.0.0.1:%d/" % port)
    assert len(loads) == 1
    context = http.tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
