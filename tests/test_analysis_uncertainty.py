"""The bootstrap intervals and the permutation test of ``analysis.uncertainty``, checked by simulation."""
import math

import numpy as np
import pytest

from punstats.analysis import uncertainty
from punstats.analysis.uncertainty import Bootstrap


def _run(rng, projects, truth, spread=1.5):
    """A simulated run: projects of very different sizes (log-normal keyword counts, ``spread`` the
    log's standard deviation), each with its own share drawn around ``truth`` (a beta distribution
    whose mean is ``truth``: the pooled share's expectation), binomial counts."""
    sizes = np.maximum(1, rng.lognormal(4.0, spread, size=projects).astype(int))
    own = rng.beta(truth * 8, (1 - truth) * 8, size=projects)
    return rng.binomial(sizes, own), sizes


def test_pooled_interval_covers_a_known_share_about_95_percent_of_the_time():
    rng = np.random.default_rng(20261207)
    truth, replications = 0.15, 200
    covered = 0
    for replication in range(replications):
        punnable, keywords = _run(rng, 100, truth, spread=1.0)
        got = uncertainty.pooled(punnable, keywords, Bootstrap(resamples=1000, seed=replication))
        covered += got.low <= 100 * truth <= got.high
    # the binomial spread of 200 replications around 0.95 is about 0.015; a percentile interval runs a
    # little narrow with skewed shares and sizes (0.95 in these 200 replications, 0.927 in 1,000 of this design)
    assert 0.90 <= covered / replications <= 0.99


def test_median_interval_covers_the_median_of_the_projects_shares():
    rng = np.random.default_rng(7)
    covered, replications = 0, 200
    truth = _beta_median(2, 10)
    for replication in range(replications):
        # large projects: each project's share is its own, so the truth is the beta's median
        sizes = np.full(80, 100_000)
        own = rng.beta(2, 10, size=80)
        got = uncertainty.median(rng.binomial(sizes, own), sizes, Bootstrap(resamples=400, seed=replication))
        covered += got.low <= 100 * truth <= got.high
    assert 0.90 <= covered / replications <= 0.99


def _beta_median(a, b):
    draws = np.random.default_rng(0).beta(a, b, size=1_000_000)
    return float(np.median(draws))


def test_the_same_seed_gives_the_same_interval_and_another_seed_another():
    punnable, keywords = _run(np.random.default_rng(1), 50, 0.2)
    first = uncertainty.pooled(punnable, keywords, Bootstrap(seed=3))
    assert uncertainty.pooled(punnable, keywords, Bootstrap(seed=3)) == first
    assert uncertainty.pooled(punnable, keywords, Bootstrap(seed=4)) != first
    assert first.low < first.estimate < first.high
    assert first.estimate == pytest.approx(100 * punnable.sum() / keywords.sum())


def test_a_share_of_nothing_has_no_interval():
    assert not uncertainty.pooled([], []).known
    assert not uncertainty.pooled([0, 0], [0, 0]).known
    assert not uncertainty.median([1], [0]).known


def test_a_rate_per_million_is_scaled():
    got = uncertainty.pooled([5, 10], [1_000_000, 1_000_000], scale=1e6)
    assert got.estimate == 7.5 and 5 <= got.low <= got.high <= 10


def test_permutation_p_values_are_about_uniform_under_the_null():
    rng = np.random.default_rng(11)
    p_values = []
    for replication in range(100):
        first, second = _run(rng, 30, 0.2), _run(rng, 30, 0.2)
        p_values.append(uncertainty.permutation_p(first, second, permutations=200, seed=replication))
    p = np.array(p_values)
    assert 0.02 <= np.mean(p < 0.05) <= 0.12
    assert 0.35 <= np.mean(p) <= 0.65


def test_a_clear_difference_has_a_small_p_value_and_an_interval_away_from_zero():
    rng = np.random.default_rng(5)
    popular, random = _run(rng, 80, 0.2), _run(rng, 80, 0.08)
    got = uncertainty.difference(popular, random, Bootstrap(resamples=1000), permutations=1000)
    assert got.p_value < 0.01 and got.p_value >= 1 / 1001
    assert 0 < got.low < got.estimate < got.high
    expected = 100 * (popular[0].sum() / popular[1].sum() - random[0].sum() / random[1].sum())
    assert got.estimate == pytest.approx(expected)


def test_many_units_are_resampled_in_blocks_with_the_same_result():
    rng = np.random.default_rng(2)
    punnable, keywords = rng.binomial(20, 0.1, size=30_000), np.full(30_000, 20)
    got = uncertainty.pooled(punnable, keywords, Bootstrap(resamples=300, unit="files"))
    assert got.low < got.estimate < got.high and math.isclose(got.estimate, 10, abs_tol=0.3)
    assert "over files" in Bootstrap(unit="files").words()


def _peak_bytes(call):
    import tracemalloc
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_block_of_resamples_is_read_a_few_rows_at_a_time_with_the_same_intervals(monkeypatch):
    # the values gathered for a statistic are not held for a whole block of 4 million indices at once
    # (a run's end held three such blocks, about 100 MB; issue 29), and the intervals do not change
    rng = np.random.default_rng(3)
    punnable, keywords = rng.binomial(30, 0.1, size=20_000), rng.integers(1, 60, size=20_000)
    method = Bootstrap(resamples=400)
    pooled, pooled_peak = _peak_bytes(lambda: uncertainty.pooled(punnable, keywords, method))
    median, median_peak = _peak_bytes(lambda: uncertainty.median(punnable, keywords, method))
    block = 8 * uncertainty._CHUNK_CELLS  # the indices drawn at once, in bytes
    assert pooled_peak < 1.5 * block and median_peak < 1.5 * block
    monkeypatch.setattr(uncertainty, "_STATISTIC_CELLS", uncertainty._CHUNK_CELLS)  # a whole block at once
    assert uncertainty.pooled(punnable, keywords, method) == pooled
    assert uncertainty.median(punnable, keywords, method) == median

def test_two_runs_are_compared_from_their_per_project_frames():
    import pandas as pd
    rng = np.random.default_rng(8)

    def frame(truth):
        punnable, keywords = _run(rng, 60, truth)
        return pd.DataFrame({"status": ["scanned"] * 60 + ["skipped"], "punnable_nontest": [*punnable, pd.NA],
                             "keywords_nontest": [*keywords, pd.NA]})

    popular, random = frame(0.3), frame(0.1)
    got = uncertainty.run_difference(popular, random, method=Bootstrap(resamples=500), permutations=500)
    scanned = [f.iloc[:60] for f in (popular, random)]
    expected = uncertainty.difference(*[(f["punnable_nontest"], f["keywords_nontest"]) for f in scanned],
                                      Bootstrap(resamples=500), permutations=500)
    assert got == expected and got.low > 0 and got.p_value < 0.05
    same = uncertainty.run_difference(popular, popular, method=Bootstrap(resamples=500), permutations=500)
    assert same.estimate == 0 and same.low < 0 < same.high and same.p_value > 0.5
    missing = popular.assign(punnable_nontest=popular["punnable_nontest"].astype(object).where(
        popular.index != 0, pd.NA))
    assert math.isnan(uncertainty.run_difference(missing, random).estimate)  # an unknown count: no difference


def test_a_run_without_scanned_projects_or_lines_of_code_has_no_interval_and_no_error():
    import pandas as pd
    frame = pd.DataFrame({"status": ["skipped", "scanned", "scanned"], "punnable": [pd.NA, 3, 0],
                          "keywords": [pd.NA, 10, 0], "punnable_nontest": [pd.NA, 0, 0],
                          "keywords_nontest": [pd.NA, 0, 0], "code_lines": [pd.NA, 100, pd.NA]}).astype(
        {"punnable": "Int64", "keywords": "Int64", "punnable_nontest": "Int64", "keywords_nontest": "Int64",
         "code_lines": "Int64"})
    got = uncertainty.run_intervals(frame)
    assert got.pooled["pct"] == uncertainty.Interval(30.0, 30.0, 30.0)  # one project with keywords: no spread
    assert not got.pooled["nontest_pct"].known and not got.median["nontest_pct"].known  # 0 of 0
    assert not got.pooled["per_million"].known  # a project stored before lines of code were counted
    nothing = uncertainty.run_intervals(frame.iloc[:1])
    assert not any(i.known for i in [*nothing.pooled.values(), *nothing.median.values()])
