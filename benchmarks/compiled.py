"""Byte-code for punstats' own modules before a benchmark times whole processes.

An installed wheel ships its modules compiled; a source checkout (an editable
install), or a machine where ``PYTHONDONTWRITEBYTECODE`` is set, compiles
every module again in every process, about 0.15 s of a warm run's start-up
that no user of an installed punstats pays.  ``ensure`` writes the byte-code
next to the sources (``__pycache__``, as the first run of an installed
package would), so that the times measured are the program's own.
"""
import compileall
import importlib.util
import os


def ensure() -> None:
    """Compile punstats' modules where they are imported from (quietly; nothing if up to date)."""
    spec = importlib.util.find_spec("punstats")
    for folder in spec.submodule_search_locations or ():
        compileall.compile_dir(os.fspath(folder), quiet=1)
