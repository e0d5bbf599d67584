"""The figure of a comparison: each input's pooled value and run medians with their 95 % intervals,
and the distribution of the projects' own values in each run (an ECDF).

The numbers are those of ``analysis.sides.compare``; every input has one colour in
both panels, and the caption names what each measured and how the intervals were made.
"""
from __future__ import annotations

from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from punstats.analysis import units
from punstats.analysis.sides import RUN, Comparison
from punstats.model.escape import figure_text
from punstats.present.figure import DPI, SCAN_COLOURS, STYLE, WIDTH, Plot, caption
from punstats.present.sides import kind_name, method_note

#: The two scopes drawn, their measure and their marker.
SCOPES = (("measure", "all code", "o"), ("measure_nontest", "outside tests", "D"))


def _ylabel(comparison: Comparison) -> str:
    words = units.unit_words(comparison.kind.per).replace("`", "")
    return ("%% of %s" if units.is_share(comparison.kind.per) else "per million %s") % words


def _pooled_panel(axes, comparison: Comparison) -> None:
    """Per scope, each input's pooled value (filled) and a run's median (hollow), with intervals."""
    count = len(comparison.sides)
    width = 0.8 / count
    for index, compared in enumerate(comparison.sides):
        colour = SCAN_COLOURS[index % len(SCAN_COLOURS)]
        for position, (measure, _, marker) in enumerate(SCOPES):
            x = position - 0.4 + width * (index + 0.5)
            for by, face, offset in ((compared.pooled, colour, -0.15), (compared.median, "white", 0.15)):
                interval = by[measure]
                if interval.estimate != interval.estimate:
                    continue
                error = [[interval.estimate - interval.low], [interval.high - interval.estimate]] \
                    if interval.known else None
                axes.errorbar([x + offset * width], [interval.estimate], yerr=error, fmt=marker, color=colour,
                              markerfacecolor=face, capsize=3,
                              label=figure_text(compared.side.name) if position == 0 and face == colour else None)
    axes.set_xticks(range(len(SCOPES)), [words for _, words, _ in SCOPES])
    axes.set_ylabel(_ylabel(comparison))
    axes.set_ylim(bottom=0)
    axes.set_title("Pooled (filled) and per-project median (hollow), 95% intervals", fontsize="medium")
    axes.legend(fontsize="small", framealpha=0.9)


def _ecdf_panel(axes, comparison: Comparison) -> pd.DataFrame:
    """Each run's projects' own values outside tests, as an ECDF; the data drawn."""
    columns = {}
    for index, compared in enumerate(comparison.sides):
        side = compared.side
        if side.sort != RUN or side.per_unit is None:
            continue
        frame = side.per_unit
        keep = frame["unit_nontest"] > 0
        values = np.sort(side.scale("measure_nontest") * frame.loc[keep, "count_nontest"].to_numpy("float64")
                         / frame.loc[keep, "unit_nontest"].to_numpy("float64"))
        columns[side.name] = pd.Series(values)
        if len(values):
            axes.step(values, np.arange(1, len(values) + 1) / len(values), where="post",
                      color=SCAN_COLOURS[index % len(SCAN_COLOURS)], label=figure_text(side.name))
    axes.set_xlabel("each project's value, outside tests (%s)" % _ylabel(comparison))
    axes.set_ylabel("share of projects at or below")
    axes.set_title("Projects of each run (ECDF)", fontsize="medium")
    if columns:
        axes.legend(fontsize="small", framealpha=0.9)
    return pd.DataFrame(columns)


def comparison_plot(comparison: Comparison) -> Plot:
    """The comparison's figure (``kind`` ``compared``): the pooled panel, and the ECDF panel when an
    input is a run; its data: each input's pooled value and interval by measure."""
    runs = any(c.side.sort == RUN for c in comparison.sides)
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH * (1.3 if runs else 0.8), 5.6), dpi=DPI)
        FigureCanvasAgg(figure)
        panels: Any = figure.subplots(1, 2 if runs else 1)
        _pooled_panel(panels[0] if runs else panels, comparison)
        if runs:
            _ecdf_panel(panels[1], comparison)
        label = kind_name(comparison.kind).replace("`", "")
        figure.suptitle(figure_text("%s: %s" % (label, ", ".join(c.side.name for c in comparison.sides))))
    caption(figure, [c.side.provenance for c in comparison.sides] + [method_note(comparison)])
    data = pd.DataFrame([{"input": c.side.name, "measure": measure, "pooled": c.pooled[measure].estimate,
                          "low": c.pooled[measure].low, "high": c.pooled[measure].high,
                          "median": c.median[measure].estimate}
                         for c in comparison.sides for measure, _, _ in SCOPES])
    return Plot("compared", "+".join(c.side.name for c in comparison.sides)[:60], figure, data)




#: What the report says under the figure.
CAPTION = ("Left: each input's pooled value (filled) and each run's per-project median (hollow), in all code "
           "and outside tests, with 95% intervals. Right: each run's projects, outside tests, as an ECDF.")
