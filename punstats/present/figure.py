"""What every figure shares: the ``Plot`` record, the style, the caption, and writing PNG and SVG.

Figures are built with ``matplotlib.figure.Figure`` on the Agg canvas, never
through ``pyplot``, so importing this module changes no global backend (a
notebook keeps its own) and no figure is kept alive by a registry.  Every
figure's caption names what was measured (``provenance``), wrapped so that
it lies inside the figure.  A ``Plot`` shows as its figure in a notebook.
"""
from __future__ import annotations

import io
import os
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from punstats.model.errors import OptionError
from punstats.model.escape import figure_text
from punstats.present.provenance import column_names, provenance, slug

FORMATS = ("png", "svg")


DEFAULT_DIRECTORY = os.path.join("reports", "figures")


TOP_BARS = 20


DPI = 150


# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
NONTEST_COLOUR = "#0072B2"


TEST_COLOUR = "#E69F00"


THRESHOLD_COLOUR = "#D55E00"


#: Figures that show a share in all code beside the same share outside tests draw them so
#: (``plots.projects``, the ecosystem figure).
ALL_CODE_COLOUR = NONTEST_COLOUR


OUTSIDE_TESTS_COLOUR = TEST_COLOUR


#: Sizes chosen so that text stays readable when a forum shrinks the PNG to
#: about 700 pixels wide.
STYLE: Any = {  # matplotlib rc parameters
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.hashsalt": "punstats",  # the same SVG for the same data
    "text.parse_math": False,  # a `$` in a name is a dollar sign, never mathtext
}


CAPTION_FONT_SIZE = 9


WIDTH = 9.0  # inches


@dataclass(frozen=True)
class Plot:
    """A figure and the data it shows.

    ``kind`` says what is drawn (``lengths``, ``cumulative``, ``identifiers``,
    ``callees``, ``directories``, ``projects``); ``subject`` is the corpus (or
    the corpora compared); ``name`` is the file name without extension.
    """

    kind: str
    subject: str
    figure: Figure
    data: pd.DataFrame

    @property
    def name(self) -> str:
        return "%s-%s" % (slug(self.subject), self.kind)

    def _repr_png_(self) -> bytes:  # a notebook shows the figure
        return png_bytes(self)


def new_figure(height: float, width: float = WIDTH):
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(width, height), dpi=DPI)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
    return figure, axes


def finish_figure(figure: Figure, summaries: Sequence[Dict[str, Any]]) -> None:
    """Add the provenance caption under the axes, wrapped so that every line
    lies inside the figure (measured by the renderer), and lay the figure out."""
    names = column_names(summaries)
    caption(figure, [provenance(s, name) for s, name in zip(summaries, names)])


def caption(figure: Figure, notes: Sequence[str], y_inches: float = 0.06) -> Any:
    """``notes`` as a caption at the bottom of ``figure``, each wrapped to the
    figure's width; the axes are laid out above it.  The Text is returned."""
    width, height = figure.get_size_inches()
    text = figure.text(0.01, y_inches / height, "", fontsize=CAPTION_FONT_SIZE, color="#444444",
                       ha="left", va="bottom", linespacing=1.35)
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]  # the Agg canvas has one
    right = figure.bbox.x1 - 0.01 * figure.bbox.width
    chars = int(width * 72 / (CAPTION_FONT_SIZE * 0.45))  # an over-estimate, narrowed until it fits
    while True:
        lines = [line for note in notes for line in textwrap.wrap(figure_text(note), chars, break_on_hyphens=False)]
        text.set_text("\n".join(lines))
        if text.get_window_extent(renderer).x1 <= right or chars <= 20:
            break
        chars -= 3
    caption_inches = y_inches + 0.08 + text.get_window_extent(renderer).height / figure.dpi
    with matplotlib.rc_context(STYLE):
        figure.tight_layout(rect=(0, min(caption_inches / height, 0.6), 1, 1))
    return text


def no_data(axes: Any, summary: Dict[str, Any]) -> bool:
    """When a scan has no ``f(x=x)`` to draw: say so on ``axes`` (no empty
    ticks) and return True."""
    if int(summary.get("punnable", 0)) > 0:
        return False
    what = ("no Python files" if int(summary.get("files", 1)) == 0 else
            "no calls" if int(summary.get("calls", 0)) == 0 else "no f(x=x) keyword arguments")
    failed = int(summary.get("failed", 0))
    axes.set_axis_off()
    failures = " (%d file%s failed to parse)" % (failed, "" if failed == 1 else "s") if failed else ""
    axes.text(0.5, 0.5, "%s has %s%s" % (figure_text(summary["corpus"]), what, failures),
              ha="center", va="center", transform=axes.transAxes, fontsize=13, color="#444444")
    return True


def count_axis(axis) -> None:
    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 2.5, 5, 10]))
    axis.set_major_formatter(FuncFormatter(lambda value, _: format(int(value), ",")))


#: One colour per scan in the ``kinds`` figure (Okabe-Ito, then matplotlib's cycle).
SCAN_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def save(plot: Plot, directory: str = DEFAULT_DIRECTORY, formats: Sequence[str] = FORMATS) -> List[str]:
    """Write ``plot`` as ``directory/<name>.<format>``; the paths written."""
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise OptionError("unknown figure format %r (choose from %s)" % (unknown[0], ", ".join(FORMATS)))
    os.makedirs(directory, exist_ok=True)
    paths = []
    for fmt in formats:
        path = os.path.join(directory, "%s.%s" % (plot.name, fmt))
        save_plot(plot, path, fmt)
        paths.append(path)
    return paths


def png_bytes(plot: Plot) -> bytes:
    """``plot`` as a PNG image in memory (for embedding)."""
    buffer = io.BytesIO()
    save_plot(plot, buffer, "png")
    return buffer.getvalue()


def save_plot(plot: Plot, target: Any, fmt: str) -> None:
    """``plot`` written to ``target``: a file object, or a path written whole or not at all
    (``store.staging.write_atomic``: a failed or killed write leaves the figure that was there)."""
    if isinstance(target, (str, os.PathLike)):
        from punstats.store.staging import write_atomic
        buffer = io.BytesIO()
        save_plot(plot, buffer, fmt)
        write_atomic(os.fspath(target), buffer.getvalue())
        return
    metadata = {"Date": None} if fmt == "svg" else {}  # no time stamp: same data, same file
    with matplotlib.rc_context(STYLE):
        plot.figure.savefig(target, format=fmt, dpi=DPI, metadata=metadata)
