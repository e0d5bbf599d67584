"""Adding a pattern touches one file: every output reads the registry (``model.kinds``).

A new row, given either as a user pattern a scan recorded (its summary's
``patterns``) or as one more built-in row of ``model.kinds``, reaches the
kinds table (Markdown and CSV), the console summary, the kinds figure and
the report, with no other module edited.  And the built-in rows come out as
they did before the registry.
"""
import dataclasses
import io
import re

import pandas as pd
import pytest

import punstats
from punstats.model.kinds import Kind, Registry
from punstats.patterns import built_in
from punstats.patterns.built_in import BUILT_IN, KINDS
from punstats.present import console, plots, report, tables, tidy
from punstats.present.formats import rate_text


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    return punstats.load(stdlib_subset_scan_dir)


def with_counts(result, name, count, nontest, **summary):
    """``result`` whose summary records ``count`` (``nontest`` outside tests) of the row ``name``."""
    s = dict(result.summary, kinds=dict(result.summary["kinds"], **{name: count}),
             kinds_nontest=dict(result.summary.get("kinds_nontest") or {}, **{name: nontest}), **summary)
    return dataclasses.replace(result, summary=s)


def assert_everywhere(scan, name, label, share=None, rate=None):
    """The row ``name`` (``label``) in every output of ``scan``, with its count and ``share`` (in %) or
    ``rate`` (per million of its unit, a unit of lines); the console summary, for the caller to check."""
    count = scan.summary["kinds"][name]
    markdown = tables.render(tables.kinds_table([scan]), "markdown")
    (cells,) = [[cell.strip() for cell in line.split("|")[1:-1]] for line in markdown.splitlines()
                if line.startswith("| %s " % label)]
    assert cells[1:3] == [format(count, ","), "%.2f%%" % share if rate is None else rate_text(rate)]
    frame = pd.read_csv(io.StringIO(tidy.to_csv(tidy.kinds_frame([scan])))).set_index("pattern")
    assert frame.at[name, "count"] == count
    pct, per_unit = frame.at[name, "pct"], frame.at[name, "per_million_unit"]
    if rate is None:
        assert pct == pytest.approx(share, abs=1e-4) and pd.isna(per_unit)
    else:
        assert pd.isna(pct) and per_unit == pytest.approx(rate, abs=0.01)
    assert frame.at[name, "count_nontest"] == scan.summary["kinds_nontest"][name]
    plot = plots.kinds([scan])
    if rate is None:
        assert plot.data.at[name, scan.summary["corpus"]] == pytest.approx(share, abs=1e-4)
        assert plot.data.at[name, "label"].startswith(label.replace("`", ""))
    else:  # a rate is not drawn among the shares
        assert name not in plot.data.index
    assert "| %s " % label in report.render([scan]).split("\n## Patterns\n", 1)[1]
    return console.format_summary(scan.summary, "call")


def test_a_user_pattern_a_scan_recorded_is_in_every_output(result):
    pattern = {"name": "return_in_finally", "label": "return in finally", "per": "lines",
               "source": "plugin.py", "sha256": "0" * 64}
    scan = with_counts(result, "return_in_finally", 12, 5, patterns=[pattern], code_lines=40000,
                       units=dict(result.summary["units"], code_lines=40000))
    lines = result.summary["lines"]
    text = assert_everywhere(scan, "return_in_finally", "return in finally", rate=1e6 * 12 / lines)
    (line,) = [line for line in text.splitlines() if line.startswith("pattern return_in_finally")]
    # one measure, against the unit the pattern declared: lines, not a % of them nor lines of code
    assert line == "pattern return_in_finally  12   (%s per million lines; outside tests 5, %s per million lines; " \
                   "return in finally)" % (rate_text(1e6 * 12 / lines),
                                           rate_text(1e6 * 5 / scan.summary["units_nontest"]["lines"]))
    # by default, the summary of a scan given one pattern is about it
    assert "\nmatches  12   (%s per million lines)\n" % rate_text(1e6 * 12 / lines) \
        in re.sub(r"(?m)^(\S+)\s+", r"\1  ", console.format_summary(scan.summary))
    frame = pd.read_csv(io.StringIO(tidy.to_csv(tidy.kinds_frame([scan])))).set_index("pattern")
    assert frame.at["return_in_finally", "per_million_code_lines"] == 300.0
    # its rate stands in a column headed "Share": the headers now name both (only when a row is a rate)
    header = [getattr(cell, "text", cell) for cell in tables.kinds_table([scan]).header]
    assert header[2] == "Share or rate" and header[-1] == "Share of, or rate"
    assert tables.kinds_table([result]).header[2].text == "Share"


def test_one_more_row_of_model_kinds_is_in_every_output(result, monkeypatch):
    row = Kind("keyword_star", "`f(x=*y)` made up", "keywords", occurrence=True)
    monkeypatch.setattr(built_in, "KINDS", Registry(BUILT_IN + (row,)))
    scan = with_counts(result, "keyword_star", 30, 10)
    text = assert_everywhere(scan, "keyword_star", "`f(x=*y)` made up", 100.0 * 30 / result.summary["keywords"])
    assert "f(x=*y) made up 30" in text.split("related patterns", 1)[1].splitlines()[0]


def test_built_in_rows_come_out_as_before(result):
    table = tables.kinds_table([result])
    assert [row[0].text for row in table.rows] == [kind.label for kind in KINDS]
    assert plots.KIND_BARS == ("call", "dict_call_punnable", "attribute", "attribute_self", "near_miss",
                               "dict_literal", "class")
    kinds = result.summary["kinds"]
    line = [line for line in console.format_summary(result.summary).splitlines()
            if line.startswith("related patterns")][0]
    assert line.split(None, 2)[2] == ('dict(x=x) %d, f(x=obj.x) %d (of which f(x=self.x) %d), near miss f(x=_x) %d, '
                                      '{"x": x} dict entries %d' % (kinds["dict_call_punnable"], kinds["attribute"],
                                                                    kinds["attribute_self"], kinds["near_miss"],
                                                                    kinds["dict_literal"]))
    assert "\npattern " not in console.format_summary(result.summary)


def test_a_user_pattern_s_label_is_the_user_s_text_escaped_in_each_medium(result):
    pattern = {"name": "odd", "label": "x|y *z*\x1b[31m", "per": "Try", "source": "plugin.py"}
    scan = with_counts(result, "odd", 2, 1, patterns=[pattern], units={"Try": 8})
    markdown = tables.render(tables.kinds_table([scan]), "markdown")
    (line,) = [line for line in markdown.splitlines() if line.startswith("|") and ("odd" in line or "x\\|y" in line)]
    assert line.startswith("| x\\|y \\*z\\*") and "\x1b" not in line and "25.00%" in line and "`Try` nodes" in line
    text = console.format_summary(scan.summary)
    assert "\x1b" not in text and "25.00% of Try nodes" in text


def test_a_summary_about_a_built_in_kind_says_where_it_is_defined_and_its_definition(result):
    from punstats.patterns.built_in import KINDS as registry
    from punstats.present import subject, subject_report
    from punstats.present.console import format_summary
    for name, module, first in (
            ("attribute", "attribute", "f(x=obj.x): a call keyword whose value is an attribute of the keyword's name."),
            ("near_miss", "near_miss",
             "f(x=_x): a call keyword whose value is a name equal to it but for underscores."),
            ("calls_mixed", "call_shapes", "Counted by the calls_no_arguments pattern. The shapes of calls: no "
                                           "arguments, positional only, keyword only, or both.")):
        text = format_summary(result.summary, name)
        rows = dict(re.split(r"\s{2,}", line, maxsplit=1) for line in text.splitlines() if "  " in line)
        assert rows["defined in"] == "punstats.patterns.built_in.%s (built into punstats)" % module, name
        assert rows["definition"] == first, name
        kind = registry[name]
        assert "defined in punstats.patterns.built_in.%s: %s" % (module, first) in subject.definition_note(kind)
        report = "\n".join(subject_report.definition_lines(kind))
        assert "defined in `punstats.patterns.built_in.%s`" % module in report
        assert "**Its definition, in its own words**" in report and "\n> " in report, name


def test_a_parameter_row_is_counted_outside_tests_or_said_not_recorded(result):
    from punstats.present.console import format_summary
    functions = result.functions[~result.functions["in_test"]]
    assert result.summary["parameters_nontest"]["var_positional"] == int(functions["var_positional"].sum())
    text = format_summary(result.summary, "var_positional")
    (row,) = [line for line in text.splitlines() if line.startswith("outside tests")]
    assert row.split()[2] == format(int(functions["var_positional"].sum()), ",")
    older = {key: value for key, value in result.summary.items() if key != "parameters_nontest"}
    text = format_summary(older, "var_positional")  # a summary stored before it was recorded
    (row,) = [line for line in text.splitlines() if line.startswith("outside tests")]
    assert row.split("  ", 1)[1].strip() == "n/a   (not recorded outside tests: stored by an earlier punstats)"
    matches = next(line for line in text.splitlines() if line.startswith("matches"))
    assert "of function definitions and lambdas" in matches and "n/a" not in matches


def test_a_summary_about_a_user_pattern_gives_its_docstring_s_first_paragraph(result):
    from punstats.present.console import format_summary
    pattern = {"name": "ret", "label": "return in finally", "per": "lines", "source": "plugin.py",
               "sha256": "0" * 64, "doc": "Return that leaves a ``finally`` block.\n\nThe details, not shown."}
    scan = with_counts(result, "ret", 2, 1, patterns=[pattern])
    rows = [line for line in format_summary(scan.summary, "ret").splitlines() if line.startswith("definition")]
    assert rows == ["definition     Return that leaves a finally block."]
