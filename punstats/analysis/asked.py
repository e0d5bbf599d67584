"""Which kind an output is about: the default of ``--kind``, and the kinds it may name.

Every command that takes ``--kind NAME`` decides its subject here, so that the
console summary, ``table``, ``plot``, ``report``, ``history``, ``hits`` and
``label`` agree on it:

- ``default_kind``: the kind when ``--kind`` is absent: the one user pattern
  of a registry when it holds exactly one, else ``f(x=x)`` (``call``);
- ``subject``: a kind whose count is measured against a unit (what tables,
  figures, reports and the console summary show: a count with nothing to
  measure it against, a maximum or a number of parameters, has no rate);
- ``occurrence_kind``: a kind stored as rows of the occurrences table (what
  ``hits`` and ``label`` show, one place each);
- ``chosen``: any other list of choices (a history counts ``call`` and its
  patterns only).

A name outside the choices is a one-line ``OptionError`` listing them, with
the nearest one when there is one (did you mean ...?).

Standard library only: ``scan`` checks ``--kind`` before any file is read.
"""
from __future__ import annotations

import difflib
from typing import Optional, Sequence

from punstats.model.errors import OptionError
from punstats.model.kinds import KIND_CALL, Kind, Registry


def default_kind(registry: Registry) -> str:
    """The subject when none is asked for: the one user pattern of ``registry``, else ``call``."""
    return registry.user[0].name if len(registry.user) == 1 else KIND_CALL


def chosen(registry: Registry, asked: Optional[str], choices: Sequence[str], listed: str, why_not: str = "") -> str:
    """``asked`` when it is one of ``choices`` (None: ``default_kind``), else a one-line ``OptionError``:
    ``why_not`` for a row of ``registry`` that is not a choice, the nearest choice for a name it does
    not know, then ``listed`` (the sentence naming the choices)."""
    if asked is None:
        asked = default_kind(registry)
    if asked in choices:
        return asked
    if asked in registry and why_not:
        raise OptionError("%s %s; %s" % (asked, why_not, listed))
    close = difflib.get_close_matches(asked, list(choices), n=1)
    raise OptionError("unknown kind %r%s; %s" % (asked[:80], " (did you mean %s?)" % close[0] if close else "",
                                                 listed))


def subject(registry: Registry, asked: Optional[str] = None) -> Kind:
    """The row ``asked`` names (default: ``default_kind``) when it is measured against a unit; a
    one-line ``OptionError`` listing the rows that can be a subject for any other name."""
    choices = [kind.name for kind in registry if kind.per]
    return registry[chosen(registry, asked, choices, "choose from %s" % ", ".join(choices),
                           "is a count without a unit (no rate to show)")]


def occurrence_kind(registry: Registry, asked: Optional[str], where: str) -> str:
    """The kind ``asked`` names (default: ``default_kind``) when ``where`` (a scan, a run) stores it
    as occurrences; else a one-line ``OptionError`` listing those it holds."""
    choices = registry.occurrence_kinds
    return chosen(registry, asked, choices, "%s holds hits of %s" % (where, ", ".join(choices)),
                  "is a count, not stored as occurrences (no places to show)")
