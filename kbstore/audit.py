"""`kb audit SNAPSHOT`: what a freeze excluded and why, for a reviewer (Markdown, and self-contained HTML).

Sections: the snapshot's identity (cohort, hashes, rule parameters); one line per rule; the exclusion
table with each entry's evidence; the matched fragments of each overlap exclusion side by side (the
entry's lines next to the cohort file's, shared lines and the longest shared run highlighted:
provenance.fragments); the overlap score distribution with the threshold and the closest pairs that
were not excluded, each side by side too; the ingestion timeline of every KB entry against frozen_at.
The entry's code comes from the KB, the cohort file's from disk only while its sha256 is the one the
snapshot recorded (kbstore.audit_code); otherwise the page says why a side is missing.
The HTML has no external assets and no script (inline CSS and SVG; every text escaped), so it can be
attached to a paper's review.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from html import escape

from provenance.fragments import LEGEND

BINS = 20
PER_ENTRY = 3  # fragments shown per excluded entry (its strongest matches; the table lists the evidence)
MAX_ENTRIES = 500  # excluded entries shown side by side (the rest are in the table)
OPEN = 3  # of those, shown open; the rest collapsed (<details>), so 50 entries do not make a 68,000 px page


@dataclass
class AuditReport:
    manifest: object  # kbstore.snapshot.SnapshotManifest
    included_times: list[str]  # first_ingested_at of every included entry
    fragments: dict = field(default_factory=dict)  # match_key(evidence) -> provenance.fragments.Fragment

    # ---------------------------------------------------------------- shared content
    def header(self) -> list[tuple[str, str]]:
        m = self.manifest
        ov = m.identity.rules["overlap"]["config"]
        return [
            ("snapshot", m.id), ("name", m.name), ("created", m.created_at),
            ("cut from", f"{m.kb_path} at version {m.kb_version}"),
            ("cohort", f"{m.cohort['cohort']} ({len(m.cohort['operators'])} operators), sha256 {m.identity.cohort_sha256}"),
            ("operators", ", ".join(m.operator_ids())), ("frozen_at", self.frozen_at_text()),
            ("entries", f"{m.counts['kb_entries']} in the KB, {m.counts['included']} kept, {m.counts['excluded']} excluded"),
            ("overlap rule", f"{_rule_text(ov)}; fingerprint scheme {m.identity.rules['overlap']['fingerprint_scheme']}"),
            ("embedder", f"{m.embedder.get('name')} {str(m.embedder.get('fingerprint'))[:16]}"),
            ("tool version", m.identity.tool_version),
        ]

    def frozen_at(self) -> str:
        """The time the temporal rule cut at: the manifest's frozen_at, or the freeze's --frozen-at."""
        return self.manifest.identity.rules.get("temporal", {}).get("frozen_at") or self.manifest.cohort["frozen_at"]

    def frozen_at_text(self) -> str:
        t = self.manifest.identity.rules.get("temporal", {})
        text = self.frozen_at()
        if t.get("frozen_at_from") == "--frozen-at":
            text += f" (kb freeze --frozen-at; the cohort manifest says {t.get('manifest_frozen_at')})"
        if t.get("shipped_origins"):
            text += (f"; entries with a record shipped with the tool ({t['shipped_origins']['records']} starter "
                     "records) are dated by that record")
        return text

    def rule_rows(self) -> list[list[str]]:
        return [[r.rule, "on" if r.enabled else "off", str(r.excluded), str(r.only)] for r in self.manifest.rules]

    def exclusion_rows(self) -> list[list[str]]:
        return [[e.id[:12], e.title or "", e.family or "", ", ".join(e.rules),
                 "; ".join(_evidence_text(rule, ev) for rule in e.rules for ev in e.evidence[rule][:3])
                 + (" ..." if any(len(e.evidence[r]) > 3 for r in e.rules) else "")]
                for e in self.manifest.excluded]

    def overlap(self) -> dict:
        return next((r.details for r in self.manifest.rules if r.rule == "overlap"), {})

    def shown_exclusions(self) -> list[tuple[object, list[dict], int]]:
        """(excluded entry, its overlap matches shown side by side, how many more it has), strongest first."""
        out = []
        for e in [e for e in self.manifest.excluded if e.evidence.get("overlap")][:MAX_ENTRIES]:
            ms = sorted(e.evidence["overlap"], key=lambda m: (-m.get("score", 0.0), -m["containment"], -m["longest_run"]))
            out.append((e, ms[:PER_ENTRY], max(0, len(ms) - PER_ENTRY)))
        return out

    def cut_note(self) -> str:
        n = sum(1 for e in self.manifest.excluded if e.evidence.get("overlap"))
        shown = min(n, MAX_ENTRIES)
        return f"Fragments of the first {shown} of {n} entries excluded for overlap; the table lists all." if shown < n else ""

    def near_rows(self) -> list[list[str]]:
        return [[m["entry_id"][:12], m["cohort_file"], m["representation"], f"{m.get('score', m['containment']):.3f}",
                 f"{m['containment']:.3f}", f"{m.get('aligned', 0.0):.3f}", str(m["longest_run"]), str(m["covered"])]
                for m in self.overlap().get("near_misses", [])]

    def timeline(self) -> tuple[str, list[tuple[str, int, int, bool]]]:
        """(bucket unit, [(bucket, kept, excluded, after frozen_at)]) of first_ingested_at.

        Buckets are minutes, hours or days (whichever keeps the span short); a bucket that straddles
        frozen_at is split in two rows, so the cut is exact.
        """
        frozen = _time(self.frozen_at())
        kept = [_time(t) for t in self.included_times]
        gone = [_time(e.first_ingested_at) for e in self.manifest.excluded if e.first_ingested_at]
        times = kept + gone
        if not times:
            return "day", []
        span = (max(times + [frozen]) - min(times + [frozen])).total_seconds()
        unit, cut = ("minute", 16) if span <= 7200 else ("hour", 13) if span <= 2 * 86400 else ("day", 10)

        def key(t):
            return t.astimezone(timezone.utc).isoformat()[:cut], t > frozen

        k, g = Counter(map(key, kept)), Counter(map(key, gone))
        return unit, [(b, k[(b, after)], g[(b, after)], after) for b, after in sorted(set(k) | set(g))]

    # ---------------------------------------------------------------- Markdown
    def markdown(self) -> str:
        m = self.manifest
        out = [f"# Snapshot audit: {m.name}", ""]
        out += [f"- **{k}**: {v}" for k, v in self.header()]
        out += ["", "## Exclusion rules", "", *_md_table(["rule", "state", "excluded", "by this rule alone"], self.rule_rows())]
        ov = self.overlap()
        out += ["", f"Overlap scan: {ov.get('scanned', 0)} entries scanned, {ov.get('candidates', 0)} scored; "
                    f"{ov.get('not_fingerprinted', 0)} entries had no fingerprints (not checkable by this rule)."]
        out += ["", f"## Excluded entries ({len(m.excluded)})", ""]
        out += _md_table(["entry", "title", "family", "rules", "evidence"], self.exclusion_rows()) if m.excluded else ["(none)"]
        shown = self.shown_exclusions()
        if shown:
            out += ["", "## Matched fragments of the overlap exclusions", "", f"({LEGEND})"]
            if self.cut_note():
                out += ["", self.cut_note()]
            for e, ms, more in shown:
                out += ["", _md_text(f"### {e.id[:12]} {e.title or ''}".rstrip())]
                for ev in ms:
                    out += self._md_fragment(e.id, ev)
                if more:
                    out += ["", f"({more} more overlap matches: see the evidence in the table)"]
        out += ["", "## Overlap score distribution", "",
                "Best containment of each KB entry against any cohort file (bins of 0.05)."]
        for rep, counts in (ov.get("histogram") or {}).items():
            th = _histogram_threshold(m.identity.rules["overlap"]["config"], rep)
            out += ["", f"**{rep}** (threshold {th}):", "", "```"] + _md_bars(counts, th) + ["```"]
        if self.near_rows():
            out += ["", "Closest pairs not excluded by the overlap rule:", "",
                    *_md_table(NEAR_HEAD, self.near_rows())]
            out += ["", "## Near misses side by side", "", f"({LEGEND})"]
            for ev in self.overlap().get("near_misses", []):
                out += ["", f"### {ev['entry_id'][:12]} (not excluded by overlap)"] + self._md_fragment(ev["entry_id"], ev)
        unit, rows = self.timeline()
        out += ["", f"## Ingestion timeline (by {unit}; frozen_at {self.frozen_at()})", ""]
        out += _md_table([unit, "kept", "excluded", "vs frozen_at"],
                         [[b, str(k), str(g), "after" if after else "before / at"] for b, k, g, after in rows])
        return "\n".join(out) + "\n"

    def _md_fragment(self, entry_id: str, ev: dict) -> list[str]:
        frag = self.fragments.get(match_key(entry_id, ev))
        out = ["", _md_text(_match_line(ev))]
        return out + (["", "```text", *frag.text(), "```"] if frag else ["", "(code not loaded)"])

    # ---------------------------------------------------------------- HTML
    def html(self) -> str:
        m = self.manifest
        ov = self.overlap()
        parts = [f"<h1>Snapshot audit: {escape(m.name)}</h1>",
                 "<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in self.header()) + "</dl>",
                 "<h2>Exclusion rules</h2>", _html_table(["rule", "state", "excluded", "by this rule alone"], self.rule_rows()),
                 f"<p>Overlap scan: {ov.get('scanned', 0)} entries scanned, {ov.get('candidates', 0)} scored; "
                 f"{ov.get('not_fingerprinted', 0)} entries had no fingerprints.</p>",
                 f"<h2>Excluded entries ({len(m.excluded)}), by rule</h2>", *self._html_groups()]
        shown = self.shown_exclusions()
        if shown:
            parts += ["<h2>Matched fragments of the overlap exclusions</h2>", _LEGEND_HTML]
            parts += [f"<p>{escape(self.cut_note())}</p>"] if self.cut_note() else []
            for n, (e, ms, more) in enumerate(shown):  # collapsed past the first OPEN: a reviewer opens what they check
                parts.append(f'<details class="excl"{" open" if n < OPEN else ""}><summary><b>{escape(e.id[:12])}</b> '
                             f'{escape(e.title or "")} ({len(ms)} matches shown)</summary>'
                             + "".join(self._html_fragment(e.id, ev) for ev in ms)
                             + (f"<p>({more} more overlap matches: see the evidence in the table)</p>" if more else "")
                             + "</details>")
        parts.append("<h2>Overlap score distribution</h2><p>Best containment of each KB entry against any cohort file.</p>")
        for rep, counts in (ov.get("histogram") or {}).items():
            th = _histogram_threshold(m.identity.rules["overlap"]["config"], rep)
            parts.append(f"<h3>{escape(rep)} (threshold {th})</h3>" + _svg_histogram(counts, th))
        if self.near_rows():
            parts += ["<p>Closest pairs not excluded by the overlap rule:</p>",
                      _html_table(NEAR_HEAD, self.near_rows()),
                      "<h2>Near misses side by side</h2>", _LEGEND_HTML]
            parts += [f'<details class="near"><summary><b>{escape(ev["entry_id"][:12])}</b> (not excluded by overlap, '
                      f'score {ev.get("score", ev["containment"]):.3f})</summary>'
                      + self._html_fragment(ev["entry_id"], ev) + "</details>"
                      for ev in self.overlap().get("near_misses", [])]
        unit, rows = self.timeline()
        parts += [f"<h2>Ingestion timeline (by {unit}; frozen_at {escape(self.frozen_at())})</h2>",
                  _svg_timeline(rows),
                  _html_table([unit, "kept", "excluded", "vs frozen_at"],
                              [[b, str(k), str(g), "after" if after else "before / at"] for b, k, g, after in rows])]
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                '<meta name="viewport" content="width=device-width, initial-scale=1"><title>Snapshot audit '
                f"{escape(m.id[:12])}</title><style>{_CSS}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")

    def _html_groups(self) -> list[str]:
        """The exclusions grouped by rule, with counts; each entry's evidence collapsed (an entry excluded by several
        rules is listed under each)."""
        m = self.manifest
        if not m.excluded:
            return ["<p>(none)</p>"]
        out = []
        for r in m.rules:
            mine = [e for e in m.excluded if r.rule in e.rules]
            if not mine:
                continue
            rows = "".join(
                f"<tr><td>{escape(e.id[:12])}</td><td>{escape(e.title or '')}</td><td>{escape(e.family or '')}</td>"
                f"<td><details><summary>{len(e.evidence[r.rule])} item(s)</summary>"
                + "".join(f"<p>{escape(_evidence_text(r.rule, ev))}</p>" for ev in e.evidence[r.rule][:20])
                + "</details></td></tr>" for e in mine)
            out.append(f"<h3>{escape(r.rule)}: {len(mine)} excluded ({r.only} by this rule alone)</h3>"
                       f'<div class="box"><table><thead><tr><th>entry</th><th>title</th><th>family</th>'
                       f"<th>evidence</th></tr></thead><tbody>{rows}</tbody></table></div>")
        return out

    def _html_fragment(self, entry_id: str, ev: dict) -> str:
        frag = self.fragments.get(match_key(entry_id, ev))
        head = f'<p class="match">{escape(_match_line(ev))}</p>'
        return f'<div class="frag">{head}{_html_sides(frag) if frag else "<p>(code not loaded)</p>"}</div>'


def audit(ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> AuditReport:
    """Open the snapshot (its digests are checked: a tampered snapshot is an IntegrityFailure) and report, with the
    code of every match shown side by side (read-only: the KB's records, the cohort files on disk)."""
    from kbstore.snapshot import home_kb, open_snapshot

    snap = open_snapshot(ref, kb_path)
    report = AuditReport(snap.manifest, [r["first_ingested_at"] for r in snap.rows])
    report.fragments = load_fragments(report, home_kb(snap.path, kb_path))
    return report


def match_key(entry_id: str, ev: dict) -> tuple:
    return entry_id, ev["entry_part"], ev["cohort_file"], ev.get("cohort_unit", ""), ev["representation"]


def load_fragments(report: AuditReport, kb) -> dict:
    """match_key -> Fragment for every match the report shows (excluded entries' and near misses')."""
    from kbstore.audit_code import cohort_codes, entry_codes
    from provenance.fragments import fragment

    pairs = [(e.id, ev) for e, ms, _ in report.shown_exclusions() for ev in ms]
    pairs += [(ev["entry_id"], ev) for ev in report.overlap().get("near_misses", [])]
    codes = entry_codes(kb, {(eid, ev["entry_part"]) for eid, ev in pairs})
    cohort = cohort_codes(report.manifest)
    out = {}
    for eid, ev in pairs:
        code = codes.get((eid, ev["entry_part"]))
        c_code, c_note = cohort.get(ev["cohort_file"], (None, "not shown: the snapshot's cohort does not list this file"))
        out[match_key(eid, ev)] = fragment(
            ev, code, c_code, entry_label=f"{eid[:12]} {ev['entry_part']}",
            entry_note="" if code is not None else f"not shown: the KB at {kb.root} has no record {ev['entry_part']} "
                                                   f"for entry {eid[:12]}", cohort_note=c_note)
    return out


def _match_line(ev: dict) -> str:
    unit = f"::{ev['cohort_unit']}" if ev.get("cohort_unit") else ""
    why = f", {ev['reason']}" if ev.get("reason") else ""
    return (f"{ev['entry_part']} vs {ev['cohort_file']}{unit} [{ev.get('operator_id')}] ({ev['representation']}{why}): "
            f"{_score_text(ev)}containment {ev['containment']:.3f}, dice {ev['dice']:.3f}, covered {ev['covered']}, "
            f"longest run {ev['longest_run']}")


def _score_text(ev: dict) -> str:
    """The score and its op-alignment term, for evidence recorded with them (older snapshots have neither)."""
    if "score" not in ev:
        return ""
    unit = f" with {ev['aligned_unit']}" if ev.get("aligned_unit") else ""
    lines = _line_pair(ev, "aligned", ", ")
    return (f"score {ev['score']:.3f} (ops aligned {ev.get('aligned', 0.0):.3f}, {ev.get('aligned_ops', 0)} ops{unit}"
            f"{lines}), ")


def _line_pair(ev: dict, which: str, sep: str) -> str:
    """sep + "entry lines a-b ~ cohort lines c-d" of ev's `which` (run, aligned) line ranges, "" without both."""
    e, c = ev.get(f"{which}_entry_lines"), ev.get(f"{which}_cohort_lines")
    return f"{sep}entry lines {e[0]}-{e[1]} ~ cohort lines {c[0]}-{c[1]}" if e and c else ""


def _html_sides(frag) -> str:
    """The two sides as one table, a row per aligned line pair; shared lines and the longest run as <mark>."""
    def cells(c, side: str) -> str:
        if c is None:
            return f'<td class="ln"></td><td class="src {side}"></td>'
        text = escape(c.text)
        body = f'<mark class="{c.mark}">{text}</mark>' if c.mark else text
        return f'<td class="ln">{c.line}</td><td class="src {side}">{body}</td>'

    def missing(note: str, n: int) -> str:
        return f'<td colspan="2" rowspan="{max(1, n)}" class="missing">{escape(note)}</td>'

    head = (f'<thead><tr><th colspan="2" class="entry">entry {escape(frag.entry_label)}</th>'
            f'<th colspan="2" class="cohort">cohort {escape(frag.cohort_label)}</th></tr></thead>')
    notes = "".join(f'<p class="note">{who}: {escape(n)}</p>'
                    for who, n, shown in (("entry", frag.entry_note, frag.entry_shown),
                                          ("cohort", frag.cohort_note, frag.cohort_shown)) if n and shown)
    rows = frag.rows or [(None, None)]
    body = []
    for i, (a, b) in enumerate(rows):
        left = cells(a, "entry") if frag.entry_shown else (missing(frag.entry_note, len(rows)) if i == 0 else "")
        right = cells(b, "cohort") if frag.cohort_shown else (missing(frag.cohort_note, len(rows)) if i == 0 else "")
        body.append(f"<tr>{left}{right}</tr>")
    cols = '<colgroup><col class="ln"><col><col class="ln"><col></colgroup>'
    return f'{notes}<table class="sbs">{cols}{head}<tbody>{"".join(body)}</tbody></table>'


def _evidence_text(rule: str, ev: dict) -> str:
    if rule == "provenance":
        if ev["match"] == "operator_id":
            return f"provenance: run {ev['run_id']} repaired cohort operator {ev['operator_id']}"
        return f"provenance: {ev['match']} of run {ev['run_id']} is cohort file {ev['cohort_file']} ({ev['cohort_operator']})"
    if rule == "overlap":
        lines = _line_pair(ev, "run", "; ")
        unit = f"::{ev['cohort_unit']}" if ev.get("cohort_unit") else ""
        return (f"overlap ({ev['representation']}, {ev['reason']}): {ev['entry_part']} vs {ev['cohort_file']}{unit} "
                f"[{ev['operator_id']}] {_score_text(ev)}containment {ev['containment']:.3f}, dice {ev['dice']:.3f}, "
                f"longest run {ev['longest_run']}{lines}")
    if rule == "temporal":
        return f"temporal: first ingested {ev['first_ingested_at']} (v{ev['first_version']}), {_duration(ev['after_s'])} after frozen_at"
    return f"family: {ev['family']} ({ev['from']})"


def _duration(seconds: float) -> str:
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2f} s"


def _time(text: str) -> datetime:
    t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_text(text: str) -> str:
    """A line of Markdown prose from stored text: no raw HTML reaches a renderer that passes it through."""
    return escape(_md_cell(text), quote=False)


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows])


def _md_bars(counts: list[int], threshold: float, width: int = 40) -> list[str]:
    top = max(counts) or 1
    out = []
    for i, c in enumerate(counts):
        lo = i / BINS
        mark = " <- threshold" if lo <= threshold < lo + 1 / BINS else ""
        out.append(f"{lo:.2f}-{lo + 1 / BINS:.2f} {c:>8} {'#' * (round(width * c / top) if c else 0)}{mark}")
    return out


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    h = "".join(f"<th>{escape(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f'<div class="box"><table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table></div>'  # scrolls in its box


def _svg_histogram(counts: list[int], threshold: float, width: int = 640, height: int = 180) -> str:
    """Bars on a log scale (a few copies next to 100k unrelated entries), the threshold as a red line."""
    import math

    plot_h, bw = height - 40, (width - 60) / BINS
    top = math.log10(max(counts) + 1) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'role="img">']
    for i, c in enumerate(counts):
        h = plot_h * math.log10(c + 1) / top
        x = 40 + i * bw
        out.append(f'<rect x="{x:.1f}" y="{10 + plot_h - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" fill="#1565c0">'
                   f"<title>{i / BINS:.2f}-{(i + 1) / BINS:.2f}: {c}</title></rect>")
        if i % 4 == 0:
            out.append(f'<text x="{x:.1f}" y="{height - 12}" class="ax">{i / BINS:.1f}</text>')
    tx = 40 + threshold * (width - 60)
    out.append(f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="5" y2="{10 + plot_h}" stroke="#c62828" stroke-width="2"/>')
    out.append(f'<text x="{tx + 4:.1f}" y="16" class="ax" fill="#c62828">threshold {threshold}</text></svg>')
    return "".join(out)


def _svg_timeline(rows: list[tuple[str, int, int, bool]], width: int = 640, height: int = 180) -> str:
    """Stacked bars per bucket (kept blue, excluded orange); buckets after frozen_at on a grey band."""
    if not rows:
        return "<p>(no entries)</p>"
    plot_h, bw = height - 40, (width - 60) / len(rows)
    top = max(k + g for _, k, g, _ in rows) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           'role="img">']
    after = [i for i, r in enumerate(rows) if r[3]]
    if after:
        x0 = 40 + after[0] * bw
        out.append(f'<rect x="{x0:.1f}" y="5" width="{width - 20 - x0:.1f}" height="{plot_h + 5}" fill="#eeeeee"/>')
        out.append(f'<text x="{x0 + 4:.1f}" y="16" class="ax">after frozen_at</text>')
    for i, (b, k, g, _) in enumerate(rows):
        x = 40 + i * bw
        hk, hg = plot_h * k / top, plot_h * g / top
        out.append(f'<rect x="{x:.1f}" y="{10 + plot_h - hk:.1f}" width="{max(1.0, bw - 2):.1f}" height="{hk:.1f}" '
                   f'fill="#1565c0"><title>{escape(b)}: {k} kept</title></rect>')
        out.append(f'<rect x="{x:.1f}" y="{10 + plot_h - hk - hg:.1f}" width="{max(1.0, bw - 2):.1f}" height="{hg:.1f}" '
                   f'fill="#ef6c00"><title>{escape(b)}: {g} excluded</title></rect>')
    out.append(f'<text x="40" y="{height - 12}" class="ax">{escape(rows[0][0])}</text>')
    out.append(f'<text x="{width - 20}" y="{height - 12}" class="ax" text-anchor="end">{escape(rows[-1][0])}</text></svg>')
    return "".join(out)


_LEGEND_HTML = ('<p class="legend"><mark class="run">longest shared run</mark> <mark class="shared">other shared lines</mark>'
                " (the two sides are aligned at the longest run's first line)</p>")

_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#212121}
table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f5f5f5}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:600}dd{margin:0;word-break:break-all}.ax{font-size:11px;fill:#555}
table.sbs{table-layout:fixed;width:100%;font-size:12px}table.sbs td{border:none;border-bottom:1px solid #f0f0f0;padding:0 4px}
table.sbs col.ln{width:3.5em}table.sbs td.ln{text-align:right;color:#757575;font-family:ui-monospace,monospace}
table.sbs td.src{font-family:ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
table.sbs td.src.entry{border-right:2px solid #bdbdbd}td.missing{background:#fbe9e7;color:#b71c1c;white-space:normal}
mark.shared{background:#fff59d;color:inherit}mark.run{background:#ffab40;color:#000;font-weight:600}
p.match{font-family:ui-monospace,monospace;font-size:12px;margin:.8em 0 .2em}p.note{font-size:12px;color:#6d4c41;margin:0}
.box{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}details{margin:.4em 0}summary{cursor:pointer}
body{overflow-wrap:anywhere}@media (max-width:600px){body{margin:1em}}"""


NEAR_HEAD = ["entry", "cohort file", "repr", "score", "containment", "ops aligned", "run", "covered"]


def _rule_text(ov: dict) -> str:
    """The overlap rule a snapshot was frozen with, from its recorded config (older snapshots: the rule of their time)."""
    if "ops_null" in ov:
        from provenance.overlap_rules import RULE_TEXT, OverlapConfig

        return RULE_TEXT.format(cfg=OverlapConfig.model_validate(ov))
    if "ops_full_weight" in ov:  # op alignment without a null (tokens_alone, ops_discount)
        t = ov.get("threshold")
        return (f"score >= {t}; same language: min(T, t*A + (1-t)*T*{t}/{ov.get('tokens_alone')}) with T the tokens "
                f"containment (over >= {ov.get('min_cover')} covered tokens), A the op-stream alignment with a cohort "
                f"kernel, t = min(1, its op weight / {ov.get('ops_full_weight')}); across languages: "
                f"{ov.get('ops_discount')} * t * A")
    return (f"tokens: containment >= {ov.get('threshold')} over >= {ov.get('min_cover')} tokens, or a shared run "
            f">= {ov.get('paste_run')} tokens; ops (cross-language): containment >= {ov.get('ops_threshold')} "
            f"and a run >= {ov.get('ops_min_run')} ops")


def _histogram_threshold(ov: dict, rep: str):
    """The containment line drawn on a histogram: the score threshold bounds tokens containment; ops pairs are
    aligned from ops_floor (older snapshots: their ops containment threshold)."""
    if rep == "tokens":
        return ov.get("threshold")
    return ov.get("ops_floor", ov.get("ops_threshold"))
