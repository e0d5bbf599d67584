"""The options of the intervals' bootstrap (``--resamples``, ``--seed``) that ``table``, ``plot``
and ``report`` share, and the ``Bootstrap`` they ask for (``model.intervals``)."""
from __future__ import annotations

import argparse

from punstats.cli.common import positive, whole
from punstats.model.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Bootstrap


def add_bootstrap_options(p: argparse.ArgumentParser) -> None:
    """``--resamples N`` and ``--seed S`` on ``p``."""
    p.add_argument("--resamples", type=_resamples, default=DEFAULT_RESAMPLES, metavar="N",
                   help="the 95%% intervals' bootstrap resamples, over a run's projects or a scan's files "
                        "(default: %(default)s)")
    p.add_argument("--seed", type=_seed, default=DEFAULT_SEED, metavar="S",
                   help="the bootstrap's seed, a whole number from 0 (default: %(default)s)")


#: The most resamples a user may ask for: more moves an interval's bounds by less than its rounding.
MAX_RESAMPLES = 100_000


def _resamples(text: str) -> int:
    """A number of bootstrap resamples: from 1 to ``MAX_RESAMPLES``."""
    value = positive(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError("expected at most %s resamples, got %s" % (
            format(MAX_RESAMPLES, ","), format(value, ",")))
    return value


def _seed(text: str) -> int:
    """The bootstrap's seed: a whole number from 0."""
    value = whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError("expected a seed of at least 0, got %d" % value)
    return value


def bootstrap(args: argparse.Namespace, unit: str = "projects") -> Bootstrap:
    """The intervals' bootstrap that ``--resamples`` and ``--seed`` ask for, over ``unit``."""
    return Bootstrap(args.resamples, args.seed, unit)
