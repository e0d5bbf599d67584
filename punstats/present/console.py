"""The console summaries: plain-text reports of a scan, a reproduction, a search, a rewrite.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from punstats.analysis import asked, units
from punstats.model.escape import terminal
from punstats.model.kinds import KIND_CALL, KIND_CLASS, Kind
from punstats.present.formats import count_text, percent_text, rate_text


def _pct(s: Dict[str, Any], key: str) -> str:
    """A share the summary stores, or n/a when it is a share of nothing."""
    return percent_text(units.stored_share(s, key))


#: A count with thousands separators (``formats.count_text``), as the commands print it.
commas = count_text


def format_summary(s: Dict[str, Any], kind: Optional[str] = None) -> str:
    """The console summary of a scan, about ``kind`` (a name of its registry): by default the
    scan's one user pattern when it was given exactly one, else ``f(x=x)``.  A kind other than
    ``f(x=x)`` gets its own rows (``_kind_rows``) and one line for everything else counted."""
    registry = units.union([s])
    subject = asked.subject(registry, kind)  # an OptionError listing the kinds for any other name
    rows = _head_rows(s)
    if subject.name == KIND_CALL:
        rows += _call_rows(s)
        rows += _user_pattern_rows(s)
    else:
        rows += _kind_rows(s, subject)
    rows += _tail_rows(s)
    width = max(len(label) for label, _ in rows)
    return "\n".join("%-*s  %s" % (width, label, terminal(value)) for label, value in rows)


def _head_rows(s: Dict[str, Any]) -> List[Any]:
    """What was scanned: the corpus, where, the parser, files, what was skipped, lines."""
    failed = ", ".join("%s %s" % (k, commas(v)) for k, v in s["failed_by_reason"].items())
    skipped = "; ".join("%s: %s" % (what, ", ".join("%s %s" % (k, commas(v)) for k, v in counts.items()))
                        for what, counts in (("directories", s.get("skipped_dirs", {})),
                                             ("files", s["skipped_files"])) if counts)
    rows = [
        ("corpus", "%s  (%s%s)" % (s["corpus"], s["source"], ", " + s["revision"] if s["revision"] else "")),
        ("root", s["root"]),
        ("parser", "%s %s   punstats %s" % (s["python_implementation"], s["python"], s["punstats_version"])),
        ("files", "%s   parsed %s   failed %s%s" % (commas(s["files"]), commas(s["parsed"]), commas(s["failed"]),
                                                  " (%s)" % failed if failed else "")),
        ("skipped", skipped or "nothing"),
    ]
    if "lines" in s:  # of parsed files; lines of code from extractor version 4 on
        code = "   (code %s)" % commas(s["code_lines"]) if "code_lines" in s else ""
        rows.append(("lines", commas(s["lines"]) + code))
    return rows


def _call_rows(s: Dict[str, Any]) -> List[Any]:
    """``f(x=x)`` and the keyword arguments around it: the summary of a scan about the headline."""
    return [
        ("calls", commas(s["calls"])),
        ("keyword arguments", "%s   (plus %s ** unpackings)" % (commas(s["keywords"]), commas(s["double_star"]))),
        ("punnable f(x=x)", "%s   (%s of keyword arguments, in %s calls)"
         % (commas(s["punnable"]), _pct(s, "punnable_pct"), commas(s["calls_with_punnable"]))),
        ("f(x=x) outside tests", "%s   (%s of the %s keyword arguments outside tests; test rule: %s)"
         % (commas(s["punnable_nontest"]), _pct(s, "punnable_nontest_pct"), commas(s["keywords_nontest"]),
            s["test_rule"]))
        if "punnable_nontest_pct" in s else ("f(x=x) outside tests", "n/a (scanned before punstats measured it)"),
        ("long (>= %d chars)" % s["long_threshold"], commas(s["long"])),
        ("long outside tests", "%s   (test rule: %s)" % (commas(s["long_nontest"]), s["test_rule"])),
        ("class keywords", "%s   (%s punnable, not in the count above)"
         % (commas(s["class_keywords"]), commas(s["class_punnable"]))),
        ("related patterns", _related_patterns(s)),
        ("top identifiers", ", ".join("%s %s" % (k, commas(v)) for k, v in s["top_identifiers"])),
        ("top callees", ", ".join("%s %s" % (k, commas(v)) for k, v in s["top_callees"])),
    ]


def _tail_rows(s: Dict[str, Any]) -> List[Any]:
    """What any summary ends with: archive members, lines saved, the cache, where it is stored, labels."""
    rows = _archive_rows(s)
    if "lines_saved" in s:
        saved = s["lines_saved"]
        rows.append(("lines saved", "%s   (punning as rewrite --rewrap: %s removed, %s added, %s files)" % (
            commas(saved["lines_saved"]), commas(saved["lines_removed"]), commas(saved["lines_added"]),
            commas(saved["files_changed"]))))
    if "cache" in s:
        rows.append(("cache", "%s files from the cache, %s extracted%s" % (
            commas(s["cache"]["cached"]), commas(s["cache"]["extracted"]),
            ", tables of this exact corpus state reused" if s["cache"].get("tables_reused") else "")))
    if "stored" in s:
        rows.append(("stored in", s["stored"]))
    if s.get("labels_carried"):
        from punstats.store.labels import describe
        rows += [("labels", line) for line in describe(sorted(s["labels_carried"].items()))]
    return rows


def _kind_rows(s: Dict[str, Any], kind: Kind) -> List[Any]:
    """A kind's rows: what it is, where it is defined, its count against its unit in all code and
    outside tests, the files it is in, and one line for the rest that was counted."""
    total, outside = units.count(s, kind), units.count(s, kind, nontest=True)
    rows = [("pattern" if kind.user else "kind", "%s: %s" % (kind.name, _label(kind.label)))]
    rows += definition_rows(kind)
    rows += [("matches", "%s   (%s)" % (count_text(total), measure_text(s, kind.per, total, False))),
             ("outside tests", "%s   (%s; test rule: %s)" % (
                 count_text(outside), measure_text(s, kind.per, outside, True), s["test_rule"]) if outside is not None
              else "n/a   (not recorded outside tests: stored by an earlier punstats)")]
    files = (s.get("pattern_files") or {}).get(kind.name)
    if isinstance(files, dict) and isinstance(files.get("top"), list):
        rows.append(("in files", "%s   (most: %s)" % (commas(int(files.get("files", 0))), ", ".join(
            "%s %s" % (path, commas(int(n))) for path, n in files["top"][:5]) or "none")))
    if "stored" in s and kind.occurrence:  # a count without places (calls_mixed) has no hits to list
        default = asked.default_kind(units.union([s])) == kind.name
        rows.append(("see them", "punstats hits %s%s" % (s["stored"], "" if default else " --kind " + kind.name)))
    others = ["f(x=x) %s (%s of keyword arguments)" % (commas(s["punnable"]), _pct(s, "punnable_pct"))]
    others += ["%s %s" % (other.name, count_text(units.count(s, other))) for other in units.union([s]).user
               if other.name != kind.name]
    rows.append(("also counted", ", ".join(others) + "; --kind NAME for a summary about one"))
    return rows


def definition_rows(kind: Kind) -> List[Any]:
    """Where ``kind`` is defined (a user's file or module with its sha256 and the nodes its matcher
    is called on; a built-in kind's module) and its definition's first paragraph, in its own words."""
    if kind.user:
        on = ", ".join(cls.__name__ for cls in kind.on) if kind.on else "every node"
        rows = [("defined by", "%s (sha256 %s), called on %s" % (kind.source, kind.sha256[:12] or "n/a", on))]
    else:
        rows = [("defined in", "%s (built into punstats)" % (kind.module or "punstats"))]
    first = kind.doc.split("\n\n")[0].replace("``", "").replace("`", "")
    return rows + ([("definition", first)] if first else [])


def _related_patterns(s: Dict[str, Any]) -> str:
    """The built-in rows of the kinds figure besides the headline and class keywords (each has
    its line), in registry order; a part of a row shown goes in brackets after it."""
    rows = [kind for kind in units.figure_rows(units.union([s]))
            if not kind.user and kind.name not in (KIND_CALL, KIND_CLASS)]
    entries: List[str] = []
    for kind in rows:
        text = "%s %s" % (_label(kind.label), count_text(units.count(s, kind)))
        if any(kind.part_of == shown.name for shown in rows):
            entries[-1] += " (%s)" % text
        else:
            entries.append(text.replace("of which ", "", 1))
    return ", ".join(entries)


def _user_pattern_rows(s: Dict[str, Any]) -> List[Any]:
    """One row per user pattern: its count and one measure of it against its unit (``measure_text``),
    in all code and outside tests."""
    rows = []
    for kind in units.union([s]).user:
        total, outside = units.count(s, kind), units.count(s, kind, nontest=True)
        measures = "%s; outside tests %s, %s" % (measure_text(s, kind.per, total, False), count_text(outside),
                                                 measure_text(s, kind.per, outside, True))
        rows.append(("pattern " + kind.name, "%s   (%s; %s)" % (count_text(total), measures, _label(kind.label))))
    return rows


def measure_text(s: Dict[str, Any], unit: str, part: Optional[int], nontest: bool) -> str:
    """``part`` against ``unit``: a share of a unit of syntax, ``1.25% of ExceptHandler nodes``, else a
    rate, ``3.41 per million lines of code`` (``n/a`` of none); ``s``: a summary, or a run's pooled
    (``analysis.ecosystem.pooled_summary``)."""
    whole = units.denominator(s, unit, nontest)
    words = units.unit_words(unit).replace("`", "")
    if units.is_share(unit):
        pct = units.share(part, whole)
        digits = 2 if not pct == pct or pct >= 0.1 or pct == 0 else 4  # a rare construct shows its first digits
        return "%s of %s" % ("%.*f%%" % (digits, pct) if pct == pct else percent_text(pct), words)
    rate = units.rate(part, whole)
    return "%s per million %s" % (rate_text(rate), words)


def _label(label: str) -> str:
    return label.replace("`", "")


def format_reproduction(r: Any) -> str:
    c = r.configuration
    rows = [("", "published", "compat", "corrected")]
    for key, label in (("total", "x=x"), ("long", "long (>= %d)" % c["long_threshold"]),
                       ("long_nontest", "long outside tests")):
        rows.append((label, commas(getattr(r.published, key)), commas(getattr(r.compat, key)),
                     commas(getattr(r.corrected, key))))
    width = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["%s @ %s (%s)   directory %s   parser %s" % (c["source"], c["commit"][:12] or "(directory)",
                                                        c["commit_date"], c["directory"], c["python"]),
             "profile %s: %s   test rule %s (corrected: %s)" % (
                 c["profile"], ", ".join("%s=%s" % kv for kv in c["quirks"].items()), c["test_rule"],
                 c["corrected_test_rule"]), ""]
    lines += ["  ".join(cell.rjust(width[i]) if i else cell.ljust(width[i]) for i, cell in enumerate(row))
              for row in rows]
    lines.append("")
    lines.append("compat -> corrected, per number (total / long / long outside tests):")
    for key in ("stale_double_counts", "nested_calls_missed", "test_rule", "other"):
        b = r.breakdown[key]
        lines.append("  %-22s %+d / %+d / %+d" % (key.replace("_", " "), b["total"], b["long"], b["long_nontest"]))
    f = r.breakdown["parse_failures"]
    lines.append("  parse failures         %d files (%d stale visits); punstats cannot parse %d"
                 % (f["files"], f["stale_visits"], f["punstats_failures"]))
    for path, error in r.failures:
        lines.append("    %s: %s" % (path, error))
    if r.crash:
        lines.append("  his script would have stopped: %s" % r.crash)
    return "\n".join(terminal(line) for line in lines)


def format_search(result: Dict[str, Any]) -> str:
    w = result["window"]
    p = result["published"]
    lines = ["search %s..%s on %s: %d first-parent commits, %d distinct blobs; parsers %s"
             % (w["since"], w["until"], w["branch"], w["commits"], result["distinct_blobs"],
                ", ".join(result["parsers"])),
             "published %d / %d / %d" % (p["total"], p["long"], p["long_nontest"]), ""]

    def row(h: Dict[str, Any]) -> str:
        c, n = h["configuration"], h["counts"]
        return "  %5d / %4d / %4d  d=%-4d %-5s %-15s %-26s %-18s %s %s..%s %s (%d commits)" % (
            n["total"], n["long"], n["long_nontest"], h["distance"], c["directory"], c["python"],
            c["quirks"], c["test_rule"], c["long_threshold"], h["first"]["commit"][:10],
            h["last"]["commit"][:10], h["first"]["date"][:10] + ".." + h["last"]["date"][:10], h["commits"])
    if result["exact"]:
        lines.append("exact matches:")
        lines += [row(h) for h in result["exact"]]
    else:
        lines.append("no configuration gives the published triple exactly")
    lines.append("")
    lines.append("nearest configurations (L1 distance, best commit window each):")
    lines += [row(h) for h in result["nearest"]]
    return "\n".join(terminal(line) for line in lines)


#: Refused archive members listed by name in the printed summary; all are in summary.json.
REFUSED_SHOWN = 10


def _archive_rows(s: Dict[str, Any]) -> List[Any]:
    """For a corpus unpacked from an archive (pypi:): what was unpacked and each member refused."""
    archive = s.get("archive")
    if archive is None:
        return []
    refused = s.get("refused_members", [])
    reasons: Dict[str, int] = {}
    for r in refused:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    rows = [("archive", "%s   %s files, %s bytes unpacked   refused %s%s" % (
        archive["file"], commas(archive["files"]), commas(archive["bytes"]), commas(len(refused)),
        " (%s)" % ", ".join("%s %s" % (k, commas(v)) for k, v in sorted(reasons.items())) if refused else ""))]
    for r in refused[:REFUSED_SHOWN]:
        detail = " (%s)" % r["detail"] if r["detail"] else ""
        rows.append(("", "refused %s: %s%s" % (r["member"], r["reason"], detail)))
    if len(refused) > REFUSED_SHOWN:
        more = commas(len(refused) - REFUSED_SHOWN)
        rows.append(("", "... and %s more refused (summary.json: refused_members)" % more))
    return rows


def format_corpus_line(stored: Any, kind: Optional[Kind] = None) -> str:
    """One line per project of a corpus file: its files, then ``f(x=x)`` among its keyword arguments,
    or (``kind``, another kind) that kind's count and measure (``kind_count_text``)."""
    s = stored.summary
    refused = len(s.get("refused_members", []))
    if kind is None or kind.name == KIND_CALL:
        counted = "keywords %9s  f(x=x) %7s (%6s)" % (commas(s["keywords"]), commas(s["punnable"]),
                                                      _pct(s, "punnable_pct"))
    else:
        counted = kind_count_text(s, kind)
    return terminal("%-20s %-32s files %7s  %s%s  -> %s%s" % (
        stored.project.name, s["source"][:32], commas(s["files"]), counted,
        "  refused %d" % refused if refused else "", stored.directory, "  (already stored)" if stored.reused else ""))


def kind_count_text(s: Dict[str, Any], kind: Kind) -> str:
    """``kind``'s count in the summary ``s`` and its measure: "try_finally 3 (1.25% of Try nodes)"."""
    total = units.count(s, kind)
    return "%s %s (%s)" % (kind.name, count_text(total), measure_text(s, kind.per, total, False))


def format_rewrite(results: Sequence[Any], s: Any, written: bool) -> str:
    lines = []
    for r in results:
        if r.error:
            lines.append("untouched  %s: %s%s" % (r.path, r.error, ": " + r.detail if r.detail else ""))
        for k in r.skipped:
            lines.append("skipped    %s:%d:%d %s= (%s)" % (r.path, k.line, k.col + 1, k.name, k.reason))
    mode = results[0].mode if results else "pun"
    rows = [
        ("files", "%s   %s %s" % (commas(s.files), "changed" if written else "to change", commas(s.changed))),
        ("edits", "%s%s" % (commas(s.edits), "   (calls re-wrapped %s)" % commas(s.joins) if s.joins else "")),
        ("skipped", "%s occurrences" % commas(s.skipped) if mode == "pun" else "-"),
        ("untouched", "%s files (do not parse, or failed the round trip)" % commas(s.untouched)),
        ("lines", "%s removed, %s added, %s saved"
         % (commas(s.lines_removed), commas(s.lines_added), commas(s.lines_saved))),
    ]
    return "\n".join([terminal(line) for line in lines] + ["%-9s  %s" % row for row in rows])



def summary_html(s: Dict[str, Any]) -> str:
    """A scan in a notebook: what was measured and its headline numbers, in a few rows."""
    import html

    from punstats.present.provenance import provenance
    rows = [("files", "%s parsed, %s failed" % (commas(s["parsed"]), commas(s["failed"]))),
            ("keyword arguments", commas(s["keywords"])),
            ("f(x=x)", "%s (%s)" % (commas(s["punnable"]), _pct(s, "punnable_pct")))]
    if "punnable_nontest_pct" in s:
        rows.append(("f(x=x) outside tests", "%s of %s (%s)" % (
            commas(s["punnable_nontest"]), commas(s["keywords_nontest"]), _pct(s, "punnable_nontest_pct"))))
    rows.append(("long (>= %d chars)" % s["long_threshold"], "%s, %s outside tests" % (
        commas(s["long"]), commas(s["long_nontest"]))))
    body = "".join("<tr><th style='text-align:left'>%s</th><td style='text-align:left'>%s</td></tr>"
                   % (html.escape(k), html.escape(v)) for k, v in rows)
    return ("<div><b>ScanResult</b> %s<table>%s</table><small>%s .occurrences, .files, .functions: "
            "DataFrames; .summary: a dict</small></div>"
            % (html.escape(s["corpus"]), body, html.escape(provenance(s))))
