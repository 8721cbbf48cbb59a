"""`kb audit SNAPSHOT`: what a freeze excluded and why, for a reviewer (Markdown, and self-contained HTML).

Sections: the snapshot's identity (cohort, hashes, rule parameters); one line per rule; the exclusion
table with each entry's evidence; the overlap score distribution with the threshold and the closest
pairs that were not excluded; the ingestion timeline of every KB entry against the cohort's frozen_at.
The HTML has no external assets (inline CSS and SVG), so it can be attached to a paper's review.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from html import escape

BINS = 20


@dataclass
class AuditReport:
    manifest: object  # kbstore.snapshot.SnapshotManifest
    included_times: list[str]  # first_ingested_at of every included entry

    # ---------------------------------------------------------------- shared content
    def header(self) -> list[tuple[str, str]]:
        m = self.manifest
        ov = m.identity.rules["overlap"]["config"]
        return [
            ("snapshot", m.id), ("name", m.name), ("created", m.created_at),
            ("cut from", f"{m.kb_path} at version {m.kb_version}"),
            ("cohort", f"{m.cohort['cohort']} ({len(m.cohort['operators'])} operators), sha256 {m.identity.cohort_sha256}"),
            ("operators", ", ".join(m.operator_ids())), ("frozen_at", m.cohort["frozen_at"]),
            ("entries", f"{m.counts['kb_entries']} in the KB, {m.counts['included']} kept, {m.counts['excluded']} excluded"),
            ("overlap rule", f"tokens: containment >= {ov['threshold']} over >= {ov['min_cover']} tokens, or a shared run "
                             f">= {ov['paste_run']} tokens; ops (cross-language): containment >= {ov['ops_threshold']} "
                             f"and a run >= {ov['ops_min_run']} ops; fingerprint scheme "
                             f"{m.identity.rules['overlap']['fingerprint_scheme']}"),
            ("embedder", f"{m.embedder.get('name')} {str(m.embedder.get('fingerprint'))[:16]}"),
            ("tool version", m.identity.tool_version),
        ]

    def rule_rows(self) -> list[list[str]]:
        return [[r.rule, "on" if r.enabled else "off", str(r.excluded), str(r.only)] for r in self.manifest.rules]

    def exclusion_rows(self) -> list[list[str]]:
        return [[e.id[:12], e.title or "", e.family or "", ", ".join(e.rules),
                 "; ".join(_evidence_text(rule, ev) for rule in e.rules for ev in e.evidence[rule][:3])
                 + (" ..." if any(len(e.evidence[r]) > 3 for r in e.rules) else "")]
                for e in self.manifest.excluded]

    def overlap(self) -> dict:
        return next((r.details for r in self.manifest.rules if r.rule == "overlap"), {})

    def near_rows(self) -> list[list[str]]:
        return [[m["entry_id"][:12], m["cohort_file"], m["representation"], f"{m['containment']:.3f}", f"{m['dice']:.3f}",
                 str(m["longest_run"]), str(m["covered"])] for m in self.overlap().get("near_misses", [])]

    def timeline(self) -> tuple[str, list[tuple[str, int, int, bool]]]:
        """(bucket unit, [(bucket, kept, excluded, after frozen_at)]) of first_ingested_at.

        Buckets are minutes, hours or days (whichever keeps the span short); a bucket that straddles
        frozen_at is split in two rows, so the cut is exact.
        """
        frozen = _time(self.manifest.cohort["frozen_at"])
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
        out += ["", "## Overlap score distribution", "",
                "Best containment of each KB entry against any cohort file (bins of 0.05)."]
        for rep, counts in (ov.get("histogram") or {}).items():
            th = m.identity.rules["overlap"]["config"]["threshold" if rep == "tokens" else "ops_threshold"]
            out += ["", f"**{rep}** (threshold {th}):", "", "```"] + _md_bars(counts, th) + ["```"]
        if self.near_rows():
            out += ["", "Closest pairs not excluded by the overlap rule:", "",
                    *_md_table(["entry", "cohort file", "repr", "containment", "dice", "run", "covered"], self.near_rows())]
        unit, rows = self.timeline()
        out += ["", f"## Ingestion timeline (by {unit}; frozen_at {m.cohort['frozen_at']})", ""]
        out += _md_table([unit, "kept", "excluded", "vs frozen_at"],
                         [[b, str(k), str(g), "after" if after else "before / at"] for b, k, g, after in rows])
        return "\n".join(out) + "\n"

    # ---------------------------------------------------------------- HTML
    def html(self) -> str:
        m = self.manifest
        ov = self.overlap()
        parts = [f"<h1>Snapshot audit: {escape(m.name)}</h1>",
                 "<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in self.header()) + "</dl>",
                 "<h2>Exclusion rules</h2>", _html_table(["rule", "state", "excluded", "by this rule alone"], self.rule_rows()),
                 f"<p>Overlap scan: {ov.get('scanned', 0)} entries scanned, {ov.get('candidates', 0)} scored; "
                 f"{ov.get('not_fingerprinted', 0)} entries had no fingerprints.</p>",
                 f"<h2>Excluded entries ({len(m.excluded)})</h2>",
                 _html_table(["entry", "title", "family", "rules", "evidence"], self.exclusion_rows())
                 if m.excluded else "<p>(none)</p>",
                 "<h2>Overlap score distribution</h2><p>Best containment of each KB entry against any cohort file.</p>"]
        for rep, counts in (ov.get("histogram") or {}).items():
            th = m.identity.rules["overlap"]["config"]["threshold" if rep == "tokens" else "ops_threshold"]
            parts.append(f"<h3>{escape(rep)} (threshold {th})</h3>" + _svg_histogram(counts, th))
        if self.near_rows():
            parts += ["<p>Closest pairs not excluded by the overlap rule:</p>",
                      _html_table(["entry", "cohort file", "repr", "containment", "dice", "run", "covered"], self.near_rows())]
        unit, rows = self.timeline()
        parts += [f"<h2>Ingestion timeline (by {unit}; frozen_at {escape(m.cohort['frozen_at'])})</h2>",
                  _svg_timeline(rows),
                  _html_table([unit, "kept", "excluded", "vs frozen_at"],
                              [[b, str(k), str(g), "after" if after else "before / at"] for b, k, g, after in rows])]
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Snapshot audit "
                f"{escape(m.id[:12])}</title><style>{_CSS}</style></head><body>\n" + "\n".join(parts) + "\n</body></html>\n")


def audit(ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> AuditReport:
    """Open the snapshot (its digests are checked: a tampered snapshot is an IntegrityFailure) and report."""
    from kbstore.snapshot import open_snapshot

    snap = open_snapshot(ref, kb_path)
    return AuditReport(snap.manifest, [r["first_ingested_at"] for r in snap.rows])


def _evidence_text(rule: str, ev: dict) -> str:
    if rule == "provenance":
        if ev["match"] == "operator_id":
            return f"provenance: run {ev['run_id']} repaired cohort operator {ev['operator_id']}"
        return f"provenance: {ev['match']} of run {ev['run_id']} is cohort file {ev['cohort_file']} ({ev['cohort_operator']})"
    if rule == "overlap":
        lines = ""
        if ev.get("run_entry_lines") and ev.get("run_cohort_lines"):
            (a, b), (c, d) = ev["run_entry_lines"], ev["run_cohort_lines"]
            lines = f"; entry lines {a}-{b} ~ cohort lines {c}-{d}"
        unit = f"::{ev['cohort_unit']}" if ev.get("cohort_unit") else ""
        return (f"overlap ({ev['representation']}, {ev['reason']}): {ev['entry_part']} vs {ev['cohort_file']}{unit} "
                f"[{ev['operator_id']}] containment {ev['containment']:.3f}, dice {ev['dice']:.3f}, "
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
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _svg_histogram(counts: list[int], threshold: float, width: int = 640, height: int = 180) -> str:
    """Bars on a log scale (a few copies next to 100k unrelated entries), the threshold as a red line."""
    import math

    plot_h, bw = height - 40, (width - 60) / BINS
    top = math.log10(max(counts) + 1) or 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
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
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
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


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#212121}
table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;
vertical-align:top}th{background:#f5f5f5}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:600}dd{margin:0;word-break:break-all}.ax{font-size:11px;fill:#555}"""
