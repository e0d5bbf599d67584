"""Limits every stage shares: the default size cap of one source file.
"""
from __future__ import annotations

#: Default size cap in bytes; larger files are recorded as ``too_large``.
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

