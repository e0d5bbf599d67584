"""Limits every stage shares: the default size cap of one source file.
"""
from __future__ import annotations

#: Default size cap in bytes; larger files are recorded as ``too_large``.
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

#: Default seconds a user pattern may take on one file before it is recorded as ``pattern_timeout``
#: (the slowest file of a large tree, 450 kB, takes the shipped patterns 0.08 s).
DEFAULT_PATTERN_TIMEOUT = 60.0

#: Default megabytes of address space a worker matching user patterns may take beyond what it held
#: when it started matching (``model.processes.limit_memory``): past it, allocations fail (``MemoryError``).
DEFAULT_PATTERN_MEMORY = 4096.0

