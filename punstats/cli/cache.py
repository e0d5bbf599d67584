"""``punstats cache``.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from punstats.cli.common import json_options
from punstats.model.escape import terminal


def _add_cache_command(commands: Any) -> None:
    p = commands.add_parser("cache", help="show the cache's location and size, or clear it",
                            description="The per-file cache that makes re-scans incremental "
                                        "($PUNSTATS_CACHE_DIR, else $XDG_CACHE_HOME/punstats, else "
                                        "~/.cache/punstats).",
                            parents=[json_options("print the figures as JSON")])
    p.add_argument("--clear", action="store_true", help="remove every entry")
    p.set_defaults(handler=cmd_cache)


def cmd_cache(args: argparse.Namespace) -> int:
    from punstats import cache as caches
    from punstats.present.console import commas
    with caches.BlobCache() as cache:
        removed = cache.clear() if args.clear else None
        stats = cache.stats()
    if args.clear:
        caches.clear_downloads()
    stats["downloads"] = caches.downloads()
    if removed is not None:
        stats["removed"] = removed
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    print("cache  %s  (%s bytes on disk)" % (terminal(stats["path"]), commas(stats["bytes"])))
    for kind, entry in stats["entries"].items():
        print("  %-22s %8s entries  %12s bytes" % (kind, commas(entry["count"]), commas(entry["bytes"])))
    for name, size in stats["downloads"].items():
        print("  %-22s %21s bytes" % (terminal(name + "/"), commas(size)))
    if removed is not None:
        print("removed %s entries and the downloads" % commas(removed))
    return 0

