"""``present.kept_figures``: a figure drawn once, written again from the cache by what it shows."""
import os

from punstats.cache import BlobCache
from punstats.present import kept_figures


def _drawer(drawn):
    def draw(directory):
        drawn.append(directory)
        paths = [os.path.join(directory, "f.png"), os.path.join(directory, "f.svg")]
        for path in paths:
            with open(path, "wb") as handle:
                handle.write(b"figure in %s\x00\xff" % os.path.basename(directory).encode())
        return paths
    return draw


def test_a_figure_is_drawn_once_and_written_again_by_what_it_shows(tmp_path):
    drawn = []
    key = kept_figures.figure_key("history", "repo", [1, 2, 3])
    assert key == kept_figures.figure_key("history", "repo", [1, 2, 3])
    assert key != kept_figures.figure_key("history", "repo", [1, 2, 4])
    for place in ("a", "b"):
        os.mkdir(tmp_path / place)
        paths = kept_figures.drawn_once(_drawer(drawn), key)(str(tmp_path / place))
        assert [os.path.basename(p) for p in paths] == ["f.png", "f.svg"]
    assert drawn == [str(tmp_path / "a")]
    assert (tmp_path / "b" / "f.png").read_bytes() == b"figure in a\x00\xff"
    other = kept_figures.figure_key("history", "repo", [1, 2, 4])
    kept_figures.drawn_once(_drawer(drawn), other)(str(tmp_path / "b"))
    assert drawn[-1] == str(tmp_path / "b")
    kept_figures.drawn_once(_drawer(drawn), key, cache=False)(str(tmp_path / "b"))
    assert len(drawn) == 3


def test_a_kept_figure_not_of_the_shape_written_is_drawn_again(tmp_path):
    """A damaged entry (names with a folder, bytes that are no base64) is never written out: drawn."""
    drawn = []
    for n, value in enumerate([{"../f.png": "AA=="}, {"f.png": "not base64!"}, ["f.png"], {}]):
        key = kept_figures.figure_key("damaged", n)
        with BlobCache() as cache:
            cache.put_many(kept_figures.FIGURE_KIND, kept_figures.FIGURE_VERSION, "", [(key, value)])
        os.makedirs(tmp_path / str(n))
        kept_figures.drawn_once(_drawer(drawn), key)(str(tmp_path / str(n)))
        assert drawn[-1] == str(tmp_path / str(n))
    assert not os.path.exists(tmp_path / "f.png")


def test_figure_key_is_the_digest_of_the_whole_text_made_record_by_record():
    # the key of a figure of many records is the one their text at once gave (kept figures stay
    # found), made without holding that text (issue 29)
    import hashlib
    import importlib.metadata
    import json

    from punstats import __version__
    try:
        drawer = importlib.metadata.version("matplotlib")
    except importlib.metadata.PackageNotFoundError:
        drawer = ""
    records = [{"rank": 1, "project": "é", "summary": {"b": [1, 2.5, None], "a": True}}, (), ("x", [3]),
               [[], {}], {"object": object}]
    shown = ("ecosystem", "ecosystem.png", records, {"asked": 2, "list": {"seed": 1}})
    whole = json.dumps([__version__, drawer, *shown], sort_keys=True, default=repr)
    assert kept_figures.figure_key(*shown) == hashlib.sha256(whole.encode()).hexdigest()
