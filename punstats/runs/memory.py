"""Freed memory handed back between projects, so that a long run stays flat in N.

A run over many projects (``runs.ecosystem``) keeps almost nothing alive
from one project to the next (the Python heap is flat), but each project
allocates and frees large transient buffers: parquet and Arrow IPC bytes,
blob-cache values, archives.  Two allocators kept those pages resident:

- glibc raises its mmap threshold each time a large mmapped block is freed
  (up to 32 MiB), after which blocks of that size come from the heap and
  its thread arenas instead, where they fragment it and are never returned:
  the free part of the heap grew about 0.5 MiB a project;
- Arrow's default pool (mimalloc) kept tens of MiB resident with nothing
  allocated, more after a large project.

``returned_memory`` fixes glibc's threshold at its initial value (so large
blocks are mapped and unmapped, never left in the heap) and makes Arrow
allocate through the system allocator for the duration of the run; the
results do not depend on either.  Anything but glibc (or an Arrow without
the system pool) is left as it is.
"""
from __future__ import annotations

import contextlib
import ctypes
import sys
from typing import Iterator

#: ``mallopt``'s parameter number and glibc's initial threshold (``DEFAULT_MMAP_THRESHOLD_MIN``).
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """glibc: blocks of ``threshold`` bytes or more are always mapped (and unmapped when freed)."""
    if not sys.platform.startswith("linux"):
        return False
    try:  # the running process's own symbols: its C library, without looking for it (no ldconfig run)
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))


@contextlib.contextmanager
def returned_memory() -> Iterator[None]:
    """Within: large freed blocks go back to the system (see the module's docstring)."""
    fix_mmap_threshold()  # process-wide and kept: glibc's initial value, no longer raised
    try:
        import pyarrow as pa
        before = pa.default_memory_pool()
        pa.set_memory_pool(pa.system_memory_pool())
    except (ImportError, AttributeError, NotImplementedError):
        yield
        return
    try:
        yield
    finally:
        pa.set_memory_pool(before)
