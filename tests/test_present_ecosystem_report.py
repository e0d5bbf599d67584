"""The report of an ecosystem run (``present.ecosystem_report``): it fits one forum post, listing
every project when they fit and otherwise as many as fit, then the others pooled, and says how
to list them all; ``--top`` is obeyed as given."""
import re

import pytest
from fakerun import NAMES, make_run

from punstats.present import ecosystem_report
from punstats.store.ecosystem import read_run


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return read_run(directory)


def listed(text):
    """The projects the report's projects table names, in order."""
    table = text.split("## Projects")[1].split("## What was measured")[0]
    return re.findall(r"^\| +\d+ \| `([^`]+)`", table, flags=re.M)


def test_every_project_is_listed_when_the_report_fits_one_post(stored):
    text = ecosystem_report.render_report(stored)
    assert len(text) <= ecosystem_report.POST_LIMIT
    assert listed(text) == NAMES and "pooled, so that this report fits" not in text


def test_a_report_over_one_post_lists_as_many_projects_as_fit_then_the_others_pooled(stored, monkeypatch):
    whole = ecosystem_report.render_report(stored)
    monkeypatch.setattr(ecosystem_report, "POST_LIMIT", len(whole) - 1)
    text = ecosystem_report.render_report(stored)
    assert len(text) <= len(whole) - 1
    shown = listed(text)
    assert 0 < len(shown) < len(NAMES) and shown == NAMES[:len(shown)]
    assert ("The first %d of the 7 projects by rank, then the others pooled, so that this report fits one "
            "forum post; `punstats table data/top-pypi-7 --format markdown` lists every project."
            % len(shown)) in text
    assert "%d more projects" % (len(NAMES) - len(shown)) in text
    monkeypatch.setattr(ecosystem_report, "POST_LIMIT", len(text) - 1)  # one project fewer must be listed
    assert len(listed(ecosystem_report.render_report(stored))) < len(shown)


def test_top_is_obeyed_even_over_one_post(stored, monkeypatch):
    monkeypatch.setattr(ecosystem_report, "POST_LIMIT", 100)
    text = ecosystem_report.render_report(stored, top=5)
    assert listed(text) == NAMES[:5] and "so that this report fits" not in text


def test_what_was_measured_says_what_was_read_and_names_each_project_not_scanned_with_its_reason(stored):
    text = ecosystem_report.render_report(stored)
    assert "sdist or else its pure-Python wheel (wheel 1, sdist 5)." in text  # not PyPI's "bdist_wheel"
    assert "- Scanned 6, skipped 1, failed 0: only platform wheels 1 (`gamma`)." in text
    assert "Not scanned: only platform wheels 1." in text  # the table's note: reasons and counts
    assert "|    3 | `gamma`" in text and "skipped: only platform wheels |" in text.replace("  ", "")


def test_a_random_sample_s_report_says_which_list_it_was_drawn_from_and_how_to_draw_it_again(stored):
    from dataclasses import replace
    listed = dict(stored.ecosystem["list"], list="https://pypi.org/simple/", seed=7, projects_in_list=1234,
                  bytes=5678, sha256="ab" * 32, last_update="2026-12-04 13:35:41")
    drawn = replace(stored, ecosystem=dict(stored.ecosystem, list=listed))
    text = ecosystem_report.render_report(drawn)
    assert ("- The sample: `random.Random(7).sample` of the list's 1,234 names (of 2026-12-04 13:35:41, 5,678 "
            "bytes, sha256 `%s`)" % ("ab" * 32)) in text
    assert "`--random-pypi-list FILE`" in text
    assert "punstats corpus random-pypi:7 -o data/random-pypi-7-seed-7 --seed 7" in text
    assert "The sample" not in ecosystem_report.render_report(stored)  # a ranked list: no draw


def test_the_headline_names_both_weightings_with_their_intervals_and_the_bootstrap(stored):
    from punstats.analysis.ecosystem import per_project
    from punstats.analysis.uncertainty import Bootstrap, run_intervals
    from punstats.present.intervals import interval_text
    method = Bootstrap(resamples=300, seed=4)
    text = ecosystem_report.render_report(stored, method=method)
    headline = text.split("## Headline")[1].split("## Projects")[0]
    intervals = run_intervals(per_project(stored.records), method)
    assert "(every occurrence counts once, so big projects weigh more)" in headline
    assert "Per project (every project counts once)" in headline
    for by, measure in (("pooled", "nontest_pct"), ("pooled", "pct"), ("median", "nontest_pct")):
        assert "(95%% interval %s; " % interval_text(getattr(intervals, by)[measure]) in headline
    assert "300 resamples of the projects with replacement, seed 4" in headline
    assert len(text) <= ecosystem_report.POST_LIMIT
