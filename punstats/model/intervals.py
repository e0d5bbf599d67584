"""The words of uncertainty: how an interval was made (``Bootstrap``), an interval, a difference.

Standard library only, so that the command line can name the defaults (``--resamples``,
``--seed``) without importing numpy; ``analysis.uncertainty`` computes them.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The number of resamples and permutations, and the seed, unless a user gives others.
DEFAULT_RESAMPLES = 2000
DEFAULT_PERMUTATIONS = 5000
DEFAULT_SEED = 0

#: The interval's level: the percentiles (2.5, 97.5).
LEVEL = 0.95


@dataclass(frozen=True)
class Bootstrap:
    """How intervals were made: ``resamples`` draws of ``unit`` (projects or files) with ``seed``."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    unit: str = "projects"

    def words(self) -> str:
        """The method in a sentence, for a table's note or a caption."""
        return ("95%% intervals: percentile bootstrap over %s (%s resamples of the %s with replacement, "
                "seed %d)." % (self.unit, format(self.resamples, ","), self.unit, self.seed))


@dataclass(frozen=True)
class Interval:
    """A statistic and its 95 % interval; all NaN where it is not defined (a share of nothing)."""

    estimate: float
    low: float
    high: float

    @property
    def known(self) -> bool:
        return self.low == self.low  # NaN: not known


@dataclass(frozen=True)
class Difference:
    """A difference of two pooled ratios (first minus second), its interval and a permutation p-value."""

    estimate: float
    low: float
    high: float
    p_value: float
    permutations: int


#: The bootstrap every output uses unless a user gives a seed or a number of resamples.
DEFAULT_BOOTSTRAP = Bootstrap()

NOTHING = Interval(float("nan"), float("nan"), float("nan"))


#: The bootstrap of a single scan's shares: its files are the unit.
FILES_BOOTSTRAP = Bootstrap(unit="files")

#: A scan's shares with an interval: summary key -> whether it counts outside tests only.
SCAN_SHARES = (("punnable_pct", False), ("punnable_nontest_pct", True))
