"""Benchmark: reading the index's project list for ``corpus random-pypi:N`` (``sources.randompypi.read_list``).

PyPI's simple API root lists about 700,000 projects in some 30 MB of HTML.
This script writes a page of that shape (``--names`` random project names,
deterministic) and serves it on 127.0.0.1, then, each in a child process of
its own (so that its peak RSS is its own), reads it the way punstats does
(streamed to a temporary file, parsed in chunks) and, as the baseline, the
simple way (the whole body in memory, a regular expression, a set).  It
prints each one's time and peak RSS above the interpreter's, punstats' over
the baseline's (goal: peak memory below the baseline's, time within twice
its), and punstats' peak over the page's size (the names themselves; the
page is never held whole).  No network.

    python benchmarks/random_pypi_list.py [--names K]
"""
import argparse
import functools
import http.server
import os
import random
import resource
import string
import subprocess
import sys
import tempfile
import threading
import time


def page(path, count):
    rng, names = random.Random(0), {}
    while len(names) < count:  # distinct after PEP 503 normalisation, as an index lists them
        name = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(3, 20)))
        names.setdefault(name.lower(), name)
    with open(path, "w") as handle:
        handle.write("<!DOCTYPE html>\n<html>\n  <head><title>Simple index</title></head>\n  <body>\n")
        for name in sorted(names.values()):
            handle.write('    <a href="/simple/%s/">%s</a>\n' % (name.lower(), name))
        handle.write("  </body>\n</html>\n")


def peak_kb():
    """This process's peak resident memory (kB): VmHWM, which exec resets (ru_maxrss keeps the parent's)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(how, url):
    import re
    import urllib.request
    before = peak_kb()
    start = time.perf_counter()
    if how == "punstats":
        from punstats.sources import randompypi
        names = randompypi.read_list(url)[0]
    else:
        body = urllib.request.urlopen(url).read().decode()
        names = sorted({name.lower() for name in re.findall(r"<a [^>]*>([^<]*)</a>", body)})
    seconds = time.perf_counter() - start
    peak = peak_kb()
    print("%d %.2f %d" % (len(names), seconds, (peak - before) // 1024))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", type=int, default=700000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)
    with tempfile.TemporaryDirectory() as folder:
        page(os.path.join(folder, "index.html"), args.names)
        size = os.path.getsize(os.path.join(folder, "index.html"))
        handler = functools.partial(QuietHandler, directory=folder)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = "http://127.0.0.1:%d/index.html" % server.server_address[1]
        print("list: %d names, %.1f MB" % (args.names, size / 1e6))
        results = {}
        for how in ("baseline", "punstats"):
            out = subprocess.run([sys.executable, __file__, "--child", how, url], capture_output=True, text=True,
                                 check=True).stdout.split()
            results[how] = (int(out[0]), float(out[1]), int(out[2]))
            print("%-9s %d names in %.2f s, peak RSS +%d MB" % ((how,) + results[how]))
        server.shutdown()
    base, ours = results["baseline"], results["punstats"]
    print("punstats/baseline: time %.2f, peak memory %.2f; punstats' peak over the list's size %.2f"
          % (ours[1] / base[1], ours[2] / max(base[2], 1), ours[2] * 1024 * 1024 / size))


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    main()
