"""How far a share could move with another sample: bootstrap intervals and a permutation test.

A run's projects are a sample of a population (the top N of an index, or N
drawn at random), and a project's occurrences are not independent of each
other: one project writes in one style.  So the unit of resampling is the
project (a cluster bootstrap: Field & Welsh 2007, "Bootstrapping clustered
data", JRSS B 69(3); Davison & Hinkley 1997, "Bootstrap Methods and their
Application", ch. 3.8): ``resamples`` times, as many projects as the run
scanned are drawn with replacement and the statistic is computed again; the
95 % interval is the 2.5th and 97.5th percentiles of those values.  The
statistics:

- ``pooled``: a ratio of sums (every occurrence counts once, so big projects
  weigh more), such as ``f(x=x)`` over keyword arguments, or per million lines;
- ``median``: the median of the units' own ratios (every unit counts once),
  over the units whose denominator is not 0.

A single scan has one project: its files are then the unit, and its intervals
say so (``Bootstrap.unit``).  ``difference`` compares two runs: an interval for
the difference of their pooled shares (each run resampled on its own) and a
two-sided permutation test (the projects' run labels shuffled ``permutations``
times; p = (1 + shuffles at least as far apart) / (1 + shuffles)).

Everything is seeded (``numpy.random.default_rng(seed)``), so the same inputs
give the same intervals; ``Bootstrap`` carries the seed and the number of
resamples, which every output states.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Sequence

import numpy as np

from punstats.model.intervals import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_PERMUTATIONS,
    DEFAULT_SEED,
    FILES_BOOTSTRAP,
    LEVEL,
    NOTHING,
    SCAN_SHARES,
    Bootstrap,
    Difference,
    Interval,
)

#: At most this many resampled indices are held at once (a scan's files can be many).
_CHUNK_CELLS = 4_000_000

#: At most this many resampled values are gathered at once for a statistic: a block of indices is
#: drawn whole (the draws, and so the intervals, do not change) and read a few rows at a time.
_STATISTIC_CELLS = 500_000


def _arrays(numerators: Sequence[float], denominators: Sequence[float]):
    num = np.asarray(numerators, dtype="float64")
    den = np.asarray(denominators, dtype="float64")
    return num, den


def _ratio(num: np.ndarray, den: np.ndarray, scale: float) -> float:
    total = den.sum()
    return float(scale * num.sum() / total) if total else float("nan")


def _resampled(n: int, method: Bootstrap, statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``statistic`` of ``method.resamples`` resamples of ``n`` units: each a row of indices drawn
    with replacement, a block of rows at a time."""
    rng = np.random.default_rng(method.seed)
    rows = max(1, _CHUNK_CELLS // max(n, 1))
    step = max(1, _STATISTIC_CELLS // max(n, 1))
    values = []
    for start in range(0, method.resamples, rows):
        count = min(rows, method.resamples - start)
        values.extend(_by_rows(statistic, rng.integers(0, n, size=(count, n)), step))
    return np.concatenate(values)


def _by_rows(statistic: Callable[[np.ndarray], np.ndarray], indices: np.ndarray, step: int) -> List[np.ndarray]:
    """``statistic`` of the rows of ``indices``, ``step`` rows at a time."""
    return [statistic(indices[row:row + step]) for row in range(0, len(indices), step)]


def _percentiles(values: np.ndarray, estimate: float) -> Interval:
    values = values[~np.isnan(values)]
    if np.isnan(estimate) or not len(values):
        return NOTHING
    tail = 100 * (1 - LEVEL) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high))


def _ratios(num: np.ndarray, den: np.ndarray, scale: float) -> Callable[[np.ndarray], np.ndarray]:
    """The pooled ratio of each row of resampled indices (NaN where its denominator sums to 0)."""
    def statistic(indices: np.ndarray) -> np.ndarray:
        totals = den[indices].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, scale * num[indices].sum(axis=1) / totals, np.nan)
    return statistic


def pooled(numerators: Sequence[float], denominators: Sequence[float], method: Bootstrap = DEFAULT_BOOTSTRAP,
           scale: float = 100.0) -> Interval:
    """The pooled ratio ``scale * sum(numerators) / sum(denominators)`` over units (projects, or a
    scan's files) and its bootstrap interval; ``scale`` 100 for a share in %, 1e6 per million."""
    num, den = _arrays(numerators, denominators)
    if not len(num):
        return NOTHING
    values = _resampled(len(num), method, _ratios(num, den, scale))
    return _percentiles(values, _ratio(num, den, scale))


def unit_ratios(num: np.ndarray, den: np.ndarray, scale: float) -> np.ndarray:
    """Each unit's own ratio, the units without any of the denominator left out."""
    keep = den > 0
    return scale * num[keep] / den[keep]


def median(numerators: Sequence[float], denominators: Sequence[float], method: Bootstrap = DEFAULT_BOOTSTRAP,
           scale: float = 100.0) -> Interval:
    """The median of each unit's own ratio (every unit counts once; units whose denominator is 0
    have no ratio and are left out) and its bootstrap interval."""
    num, den = _arrays(numerators, denominators)
    ratios = unit_ratios(num, den, scale)
    if not len(ratios):
        return NOTHING
    values = _resampled(len(ratios), method, lambda indices: np.median(ratios[indices], axis=1))
    return _percentiles(values, float(np.median(ratios)))


def _pooled_values(num: np.ndarray, den: np.ndarray, method: Bootstrap, scale: float) -> np.ndarray:
    return _resampled(len(num), method, _ratios(num, den, scale)) if len(num) else np.full(method.resamples, np.nan)


def permutation_p(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]],
                  permutations: int = DEFAULT_PERMUTATIONS, seed: int = DEFAULT_SEED) -> float:
    """The two-sided p-value of the difference of two pooled ratios (``first`` and ``second``:
    (numerators, denominators) of each run's projects) under the null that the projects' run labels
    are exchangeable: (1 + shuffles whose difference is at least the observed one) / (1 + shuffles)."""
    a_num, a_den = _arrays(*first)
    b_num, b_den = _arrays(*second)
    num, den = np.concatenate([a_num, b_num]), np.concatenate([a_den, b_den])
    n, size = len(num), len(a_num)
    if not size or size == n or not a_den.sum() or not b_den.sum():
        return float("nan")
    observed = abs(_ratio(a_num, a_den, 1.0) - _ratio(b_num, b_den, 1.0))
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_CELLS // n)
    extreme = 0
    for start in range(0, permutations, rows):
        count = min(rows, permutations - start)
        order = rng.permuted(np.tile(np.arange(n), (count, 1)), axis=1)
        first_part, second_part = order[:, :size], order[:, size:]
        with np.errstate(invalid="ignore", divide="ignore"):
            shuffled = np.abs(num[first_part].sum(axis=1) / den[first_part].sum(axis=1)
                              - num[second_part].sum(axis=1) / den[second_part].sum(axis=1))
        # a tolerance, so that a shuffle equal to the observed split up to rounding counts as extreme
        extreme += int(np.sum(np.nan_to_num(shuffled, nan=np.inf) >= observed - 1e-12))
    return (1 + extreme) / (1 + permutations)


def difference(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]],
               method: Bootstrap = DEFAULT_BOOTSTRAP,
               permutations: int = DEFAULT_PERMUTATIONS, scale: float = 100.0) -> Difference:
    """The pooled ratio of ``first`` minus that of ``second`` (each (numerators, denominators) over its
    projects), its interval (each run resampled on its own, seeds ``method.seed`` and ``method.seed + 1``)
    and the permutation test's p-value (``permutation_p``)."""
    a_num, a_den = _arrays(*first)
    b_num, b_den = _arrays(*second)
    estimate = _ratio(a_num, a_den, scale) - _ratio(b_num, b_den, scale)
    a = _pooled_values(a_num, a_den, method, scale)
    b = _pooled_values(b_num, b_den, Bootstrap(method.resamples, method.seed + 1, method.unit), scale)
    interval = _percentiles(a - b, estimate)
    p = permutation_p((a_num, a_den), (b_num, b_den), permutations, method.seed)
    return Difference(interval.estimate, interval.low, interval.high, p, permutations)


#: A run's measures: (name, the numerator's and the denominator's column of
#: ``analysis.ecosystem.per_project``, scale), as ``analysis.ecosystem.shares`` computes them.
RUN_MEASURES = (("pct", "punnable", "keywords", 100.0),
                ("nontest_pct", "punnable_nontest", "keywords_nontest", 100.0),
                ("per_million", "punnable", "code_lines", 1e6))


@dataclass(frozen=True)
class RunIntervals:
    """A run's intervals, by measure (``RUN_MEASURES``): pooled (every occurrence counts once) and
    the median of the projects' own (every project counts once)."""

    method: Bootstrap
    pooled: Dict[str, Interval]
    median: Dict[str, Interval]


def median_difference(first: Sequence[Sequence[float]], second: Sequence[Sequence[float]],
                      method: Bootstrap = DEFAULT_BOOTSTRAP, permutations: int = DEFAULT_PERMUTATIONS,
                      scale: float = 100.0) -> Difference:
    """The median of ``first``'s units' own ratios minus ``second``'s (each (numerators, denominators);
    every unit counts once), its bootstrap interval (each side resampled on its own, seeds
    ``method.seed`` and ``method.seed + 1``) and a two-sided permutation p-value (the units' labels
    shuffled between the two; ``permutation_p``'s rule)."""
    a_num, a_den = _arrays(*first)
    b_num, b_den = _arrays(*second)
    a, b = unit_ratios(a_num, a_den, scale), unit_ratios(b_num, b_den, scale)
    if not len(a) or not len(b):
        return Difference(float("nan"), float("nan"), float("nan"), float("nan"), permutations)
    estimate = float(np.median(a) - np.median(b))
    low_high = _percentiles(
        _resampled(len(a), method, lambda rows: np.median(a[rows], axis=1))
        - _resampled(len(b), Bootstrap(method.resamples, method.seed + 1, method.unit),
                     lambda rows: np.median(b[rows], axis=1)), estimate)
    both, size = np.concatenate([a, b]), len(a)
    rng = np.random.default_rng(method.seed)
    rows = max(1, _CHUNK_CELLS // len(both))
    extreme = 0
    for start in range(0, permutations, rows):
        order = rng.permuted(np.tile(np.arange(len(both)), (min(rows, permutations - start), 1)), axis=1)
        shuffled = np.abs(np.median(both[order[:, :size]], axis=1) - np.median(both[order[:, size:]], axis=1))
        extreme += int(np.sum(shuffled >= abs(estimate) - 1e-12))
    return Difference(estimate, low_high.low, low_high.high, (1 + extreme) / (1 + permutations), permutations)


def run_intervals(frame: Any, method: Bootstrap = DEFAULT_BOOTSTRAP, measures: Sequence[Any] = RUN_MEASURES
                  ) -> RunIntervals:
    """The intervals of a run's ``per_project`` frame (its scanned projects resampled), by measure:
    ``measures`` rows of (name, numerator column, denominator column, scale), by default the
    ``f(x=x)`` measures; a measure some scanned project lacks a count of has none, as its pooled
    value is unknown."""
    scanned = frame[frame["status"] == "scanned"]
    pooled_by: Dict[str, Interval] = {}
    median_by: Dict[str, Interval] = {}
    for name, numerator, denominator, scale in measures:
        counts = scanned[[numerator, denominator]]
        if counts.isna().any().any():
            pooled_by[name] = median_by[name] = NOTHING
            continue
        num, den = counts[numerator].to_numpy("float64"), counts[denominator].to_numpy("float64")
        pooled_by[name] = pooled(num, den, method, scale)
        median_by[name] = median(num, den, method, scale)
    return RunIntervals(method, pooled_by, median_by)


def scan_intervals(files: Any, method: Bootstrap = FILES_BOOTSTRAP) -> Dict[str, Interval]:
    """A scan's ``f(x=x)`` shares of keyword arguments (``SCAN_SHARES``) with their 95 % intervals,
    its parsed files resampled (one scan is one project: its files are the unit, and the interval
    says how much another set of files of the same kind could move the share)."""
    from punstats.analysis.summary import scanned_files
    from punstats.model.statuses import OK
    parsed = scanned_files(files)
    parsed = parsed[parsed["status"] == OK]
    result = {}
    for key, nontest in SCAN_SHARES:
        chosen = parsed[~parsed["in_test"].astype(bool)] if nontest else parsed
        result[key] = pooled(chosen["punnable"].to_numpy("float64"), chosen["keywords"].to_numpy("float64"),
                             method)
    return result


def run_difference(first: Any, second: Any, measure: str = "nontest_pct", method: Bootstrap = DEFAULT_BOOTSTRAP,
                   permutations: int = DEFAULT_PERMUTATIONS) -> Difference:
    """The pooled ``measure`` (of ``RUN_MEASURES``) of one run minus another's, from their
    ``analysis.ecosystem.per_project`` frames (their scanned projects): ``difference``'s interval
    and permutation p-value; NaN where a scanned project lacks a count the measure needs."""
    _, numerator, denominator, scale = next(row for row in RUN_MEASURES if row[0] == measure)
    counts = []
    for frame in (first, second):
        scanned = frame[frame["status"] == "scanned"][[numerator, denominator]]
        if scanned.isna().any().any():
            return Difference(float("nan"), float("nan"), float("nan"), float("nan"), permutations)
        counts.append((scanned[numerator].to_numpy("float64"), scanned[denominator].to_numpy("float64")))
    return difference(counts[0], counts[1], method, permutations, scale)
