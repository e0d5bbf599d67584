"""``scan(progress=True)``: a progress bar where the caller is, a notebook widget or a terminal line.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Optional, Tuple


def auto_bar(stack: contextlib.ExitStack, on_discovered: Optional[Callable[[int], None]] = None,
             ) -> Tuple[Callable[[int], None], Callable[[int], None]]:
    """(progress, on_discovered) callbacks that draw a ``tqdm.auto`` bar of
    the files to extract, closed when ``stack`` closes."""
    from tqdm.auto import tqdm
    bars = []

    def start(total: int) -> None:
        bars.append(stack.enter_context(tqdm(total=total, unit="file", desc="scan")))
        if on_discovered:
            on_discovered(total)

    def update(n: int) -> None:
        if bars:
            bars[-1].update(n)
    return update, start
