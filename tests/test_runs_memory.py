"""Freed memory handed back between projects (runs.memory).

The glibc check runs in a child process: the threshold is process-wide.
"""
import ctypes
import os
import subprocess
import sys

import pyarrow as pa
import pytest

from punstats.runs import memory

CHILD = r"""
import ctypes, sys
from punstats.runs import memory
libc = ctypes.CDLL(None)
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]
libc.mallinfo2.restype = Info
if sys.argv[1] == "fixed":
    assert memory.fix_mmap_threshold()
big = bytearray(8 * 1024 * 1024)  # mapped; freeing it raises glibc's threshold unless fixed
del big
before = libc.mallinfo2().hblkhd
block = bytearray(2 * 1024 * 1024)
print(libc.mallinfo2().hblkhd - before >= 2 * 1024 * 1024)  # mapped (so unmapped when freed), or in the heap
"""


def _glibc_with_mallinfo2():
    try:
        return hasattr(ctypes.CDLL(None), "mallinfo2")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc_with_mallinfo2(), reason="glibc only")
def test_after_a_large_block_is_freed_the_next_one_is_still_mapped_so_it_goes_back_when_freed():
    def mapped(mode):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}  # glibc's defaults
        done = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, check=True,
                              env=env)
        return done.stdout.strip()
    assert mapped("dynamic") == "False"  # glibc's own behaviour: the heap keeps it (and fragments)
    assert mapped("fixed") == "True"


def test_arrow_allocates_through_the_system_allocator_within_and_as_before_after():
    before = pa.default_memory_pool().backend_name
    with memory.returned_memory():
        assert pa.default_memory_pool().backend_name == "system"
        assert pa.array(range(1000)).to_pylist()[-1] == 999
    assert pa.default_memory_pool().backend_name == before
