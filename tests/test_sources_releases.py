"""The release that stood at the end of a year (sources.releases), and ``--releases yearly:A..B``.

The index is a fake PyPI on 127.0.0.1 (``fakeindex``); nothing touches the network.
"""
import pytest
from fakeindex import sdist, wheel

from punstats.sources import pypi, releases


def entry(uploaded, yanked=False, packagetype="sdist", filename="p-1.tar.gz"):
    return {"filename": filename, "packagetype": packagetype, "upload_time_iso_8601": uploaded, "yanked": yanked}


def test_the_highest_final_release_with_a_file_by_the_end_of_the_year_is_chosen():
    listed = {"1.0": [entry("2019-03-01T10:00:00Z")],
              "2.0": [entry("2021-02-01T10:00:00.123456Z")],
              "2.1": [entry("2021-11-30T23:59:59Z")],
              "1.9": [entry("2021-12-15T00:00:00Z")],  # a backport after 2.1: not the latest
              "3.0rc1": [entry("2021-12-20T00:00:00Z")],  # a pre-release: not while a final one stands
              "3.0": [entry("2022-01-01T00:00:00Z")]}  # the first moment of 2022: not 2021's
    assert releases.choose(listed, 2018) is None
    assert [releases.choose(listed, year)[0] for year in (2019, 2020, 2021, 2022)] == ["1.0", "1.0", "2.1", "3.0"]


def test_yanked_files_later_files_and_undated_files_are_not_part_of_a_year():
    listed = {"1.0": [entry("2019-03-01T10:00:00Z")],
              "1.1": [entry("2019-06-01T10:00:00Z", yanked=True)],
              "1.2": [entry("2019-07-01T10:00:00Z"), entry("2020-02-01T00:00:00Z", filename="late.whl")],
              "1.3": [{"filename": "p.tar.gz", "packagetype": "sdist"}],  # no upload time: not dated
              "1.4": [entry("not a date")]}
    version, files = releases.choose(listed, 2019)
    assert version == "1.2" and [f.get("filename") for f in files] == ["p-1.tar.gz"]  # the 2020 wheel left out
    listed["1.2"] = [entry("2019-07-01T10:00:00Z", yanked=True)]
    assert releases.choose(listed, 2019)[0] == "1.0"  # 1.1 and 1.2 yanked


def test_only_pre_releases_give_the_highest_of_them():
    listed = {"0.1a1": [entry("2019-01-01T00:00:00Z")], "0.1b2": [entry("2019-05-01T00:00:00Z")],
              "not-a-version!": [entry("2019-06-01T00:00:00Z")]}
    assert releases.choose(listed, 2019)[0] == "0.1b2"


@pytest.mark.parametrize("text, words", [
    ("2015..2025", "expected yearly:FIRST..LAST"),
    ("monthly:2015..2025", "expected yearly:FIRST..LAST"),
    ("yearly:2015", "expected two years"),
    ("yearly:2015-2025", "expected two years"),
    ("yearly:15..25", "expected two years"),
    ("yearly:2025..2015", "the first year comes after the last"),
    ("yearly:1999..2005", "years from 2003"),
    ("yearly:2020..9999", "a year to come has no release yet"),
])
def test_bad_releases_values_are_one_line_errors(text, words):
    with pytest.raises(releases.ReleasesError) as caught:
        releases.parse_releases(text)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert str(caught.value).startswith("--releases %s:" % text)


def test_a_range_gives_each_year_once():
    assert releases.parse_releases("yearly:2019..2022") == (2019, 2020, 2021, 2022)
    assert releases.parse_releases("yearly:2021..2021") == (2021,)
    assert releases.releases_text((2019, 2020)) == "yearly:2019..2020"


def test_release_as_of_reads_the_index_and_picks_the_file_as_today(index):
    index.history("wheely", {
        "1.0": [("wheely-1.0-cp312-cp312-manylinux_2_17_x86_64.whl", wheel({"w.py": "x = 1\n"}), "bdist_wheel",
                 "2019-05-01T00:00:00Z", False),
                ("wheely-1.0-py3-none-any.whl", wheel({"w.py": "x = 2\n"}), "bdist_wheel", "2019-05-01T00:00:00Z",
                 False)],
        "2.0": [("wheely-2.0.tar.gz", sdist("wheely", "2.0", {"w.py": "x = 3\n"}), "sdist", "2020-05-01T00:00:00Z",
                 False)]})
    first = releases.release_as_of("wheely", 2019, index_url=index.index_url, get=pypi.http_get)
    assert (first.version, first.filename, first.packagetype) == ("1.0", "wheely-1.0-py3-none-any.whl",
                                                                  "bdist_wheel")
    assert first.upload_time.startswith("2019-05-01")
    second = releases.release_as_of("wheely", 2020, index_url=index.index_url, get=pypi.http_get)
    assert (second.version, second.packagetype) == ("2.0", "sdist")
    with pytest.raises(pypi.Unavailable) as caught:
        releases.release_as_of("wheely", 2018, index_url=index.index_url, get=pypi.http_get)
    assert caught.value.reason == pypi.NO_RELEASE_YET and "by the end of 2018" in str(caught.value)


def test_a_release_of_platform_wheels_only_is_skipped_with_its_reason(index):
    index.history("fast", {"1.0": [("fast-1.0-cp312-cp312-win_amd64.whl", wheel({"f.py": ""}), "bdist_wheel",
                                    "2020-01-01T00:00:00Z", False)]})
    with pytest.raises(pypi.Unavailable) as caught:
        releases.release_as_of("fast", 2020, index_url=index.index_url, get=pypi.http_get)
    assert caught.value.reason == pypi.PLATFORM_WHEELS_ONLY
