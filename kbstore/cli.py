"""`kb`: the knowledge base command line. Each command parses, calls one library function, prints.

Errors are typed exceptions carrying an exit status (1 check failed, 2 bad input, 3 environment);
`main` maps them in one place. Heavy modules are imported inside the commands so `kb --help` is instant.
"""
from __future__ import annotations

import json
import sys
from collections import Counter

import click

from provenance.operating_point import THRESHOLD

kb_option = click.option("--kb", "kb_path", type=click.Path(file_okay=False), default=None,
                         help="KB directory (default: $KB_PATH, else ~/.local/share/nearmiss/kb).")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def _iso_time(text: str | None, option: str):
    """An ISO 8601 time with a zone, or None; anything else is a one-line usage error naming the option."""
    if text is None:
        return None
    from datetime import datetime

    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not an ISO 8601 time (2026-11-30T00:00:00Z)", param_hint=option) from None
    if t.tzinfo is None:
        raise click.BadParameter(f"{text!r} has no time zone (write 2026-11-30T00:00:00Z)", param_hint=option)
    return t


def _progress(prefix: str):
    """Stage lines on stderr, each stamped with the time so far: a long command is never silent (issue 37)."""
    import time

    t0 = time.monotonic()

    def say(text: str) -> None:
        click.echo(f"{prefix} [{time.monotonic() - t0:.0f}s] {text}", err=True)

    return say


def _print_json(obj) -> None:
    click.echo(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, default=str))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="nearmiss-repair", message="%(version)s")
def cli() -> None:
    """Quality-gated, versioned, provenance-stamped knowledge base of kernel repair patterns."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--min-match", type=float, default=0.95, show_default=True, help="Full-tier match a record needs.")
@click.option("--strict", is_flag=True, help="Exit 1 when any record is rejected.")
@click.option("--accept-policy", type=click.Choice(["strict", "epilogue"]), default="strict", show_default=True,
              help="The laxest integrity policy admitted: epilogue also admits records whose verdicts were made "
                   "under `repair run --policy epilogue` (their evidence says so).")
@kb_option
@json_option
def ingest(paths, min_match, strict, accept_policy, kb_path, as_json) -> None:
    """Gate repair records (files, or directories of *.json) and admit the good ones as a new KB version."""
    from ingest.api import ingest as run_ingest

    report = run_ingest(list(paths), kb_path, min_match=min_match, accept_policy=accept_policy,
                        progress=None if as_json else _progress("kb ingest"))
    if as_json:
        _print_json(report.as_dict())
    else:
        made = f"version {report.version}" if report.version else f"no new version (still {report.previous_version})"
        click.echo(f"{len(report.outcomes)} records: {report.count('admitted')} admitted ({report.entries_added} new entries), "
                   f"{report.count('duplicate')} duplicate, {report.count('rejected')} rejected -> {made}")
        click.echo(f"kb: {report.kb_path}")
        for o in report.outcomes:
            if o.reasons:  # one line per rejected record, every reason on it
                click.echo(f"  rejected {o.path}: " + "; ".join(f"{r.code}: {r.message}" for r in o.reasons))
        click.echo(f"index: {report.index}")
    if strict and report.count("rejected"):
        sys.exit(1)


@cli.command()
@click.option("-v", "--verbose", is_flag=True, help="List every rejected record with its reasons.")
@kb_option
@json_option
def log(verbose, kb_path, as_json) -> None:
    """The version timeline: version, time, batch, records admitted and rejected (reasons counted; -v lists them)."""
    from kbstore.views import log as version_log

    versions = version_log(kb_path)
    if as_json:
        return _print_json(versions)
    for v in versions:
        click.echo(f"v{v['version']}  {v['created_at']}  batch {v['batch_id'][:12]}  +{v['entries_added']} entries  "
                   f"+{v['evidence_added']} evidence  admitted {v['admitted']}  duplicate {v['duplicates']}  "
                   f"rejected {v['rejected']}")
        if verbose:
            for r in v["rejections"]:
                click.echo(f"      rejected {r['path']}: {r['code']}: {r['message']}")
        elif v["rejections"]:
            codes = Counter(r["code"] for r in v["rejections"])
            click.echo("      rejection reasons: " + ", ".join(f"{c} x{n}" for c, n in sorted(codes.items())))
    if not versions:
        click.echo("(no versions yet)")


@cli.command()
@click.argument("entry_id")
@kb_option
@json_option
def show(entry_id, kb_path, as_json) -> None:
    """An entry (id or unique prefix) with its evidence and full provenance chain."""
    from kbstore.views import show as show_entry

    d = show_entry(kb_path, entry_id)
    if as_json:
        return _print_json(d)
    p = d["pattern"]
    click.echo(f"{d['id']}\n  {p['title']}  [{p['bug_class']}]  {p.get('family')}/{p['language']}/{p['backend']}")
    click.echo(f"  symptom: {p['symptom']['label']} at {p['symptom']['location']} ({p['symptom']['failed_tier']} tier); "
               f"stats {json.dumps(d['symptom_stats'], sort_keys=True)}")
    click.echo(f"  root cause: {p['root_cause']}\n  fix: {p['fix']}\n  rules: {len(p['rules'])}")
    click.echo(f"  first: v{d['first_version']} at {d['first_ingested_at']}")
    for e in d["evidence"]:
        g, w = e["gate"], e["worker"]
        click.echo(f"  evidence v{e['version']}: run {e['run_id']} on {e['operator_id']} by {w['kind']}/{w.get('model')} "
                   f"match {g['match']} (>= {g['min_match']}), {len(g['integrity_history'])} clean attempts"
                   f"{' under the ' + g['accept_policy'] + ' policy' if g.get('accept_policy') else ''}, "
                   f"record {e['record_sha256'][:12]}")
    click.echo("  provenance:")
    for s in d["provenance"]:
        click.echo(f"  {'  ' * s['depth']}{s['subject']} --{s['relation']}--> {s['object']}")
    click.echo("--- before\n" + p["before"] + "--- after\n" + p["after"], nl=False)


@cli.command()
@click.option("--format", "fmt", type=click.Choice(["jsonl", "prov-json"]), default="jsonl", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="File to write (default: stdout).")
@kb_option
def export(fmt, output, kb_path) -> None:
    """Export entries and provenance (JSON Lines, or W3C PROV-JSON)."""
    from kbstore.export import export as run_export

    if output is None:
        run_export(kb_path, fmt, sys.stdout)
        return
    with open(output, "w", encoding="utf-8") as f:
        n = run_export(kb_path, fmt, f)
    click.echo(f"{n} entries exported to {output}", err=True)


@cli.command()
@click.argument("text", required=False)
@click.option("--symptom", "symptom_path", type=click.Path(dir_okay=False), help="A `repair eval --json` result.")
@click.option("-k", "k", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option("--family")
@click.option("--language")
@click.option("--backend")
@click.option("--index", type=click.Choice(["auto", "exact", "chroma"]), default="auto", show_default=True,
              help="Dense search: exact numpy over the stored vectors, the chromadb HNSW index, or auto (exact up to "
                   "150,000 entries, $KB_EXACT_MAX).")
@click.option("--snapshot", "snapshot", metavar="ID", default=None,
              help="Retrieve from this snapshot only (id, id prefix, name or directory; exact search).")
@kb_option
@json_option
def query(text, symptom_path, k, family, language, backend, index, snapshot, kb_path, as_json) -> None:
    """Hybrid retrieval (dense + BM25, fused by reciprocal rank) with metadata filters (a running `kb server` answers
    exact queries of the live KB)."""
    if bool(text) == bool(symptom_path):
        raise click.UsageError("give TEXT or --symptom EVAL.json (one of them)")
    code = None
    if symptom_path:
        from pathlib import Path

        from repair.loop import load_eval, symptom_query  # the query is built from an eval result, as the loop does

        q = symptom_query(load_eval(symptom_path), base_dir=Path(symptom_path).parent)
        text, code = q.text, q.code
    hits, notes = _query_hits(text, code, k, {"family": family, "language": language, "backend": backend}, index,
                              snapshot, kb_path)
    for note in notes:
        click.echo(note, err=True)
    if as_json:
        return _print_json({"query": text, "hits": hits})
    for n, h in enumerate(hits, 1):
        pv = h["provenance"]
        click.echo(f"{n}. {h['id'][:12]}  {h['score']:.4f}  {h['title']}  [{h['bug_class']}]  "
                   f"{h['family']}/{h['language']}/{h['backend']}")
        click.echo(f"   {pv['evidence']} records; runs {', '.join(pv['runs'][:3])}; models {', '.join(pv['models'][:3])}; "
                   f"since v{pv['first_version']}")
    if not hits:
        click.echo("(no matching entries)")


def _query_hits(text, code, k, filters, index, snapshot, kb_path) -> tuple[list[dict], list[str]]:
    """Hits (as dicts) and notes for the user: from the snapshot, else a running `kb server`, else the KB loaded here."""
    if snapshot:
        from kbstore.snapshot import open_snapshot

        if index == "chroma":
            raise click.UsageError("--snapshot searches its own vectors exactly; drop --index")
        return [h.as_dict() for h in open_snapshot(snapshot, kb_path).retriever().query(text, k=k, code=code, **filters)], []
    if index == "auto":
        from kbstore.server import query as served  # the standard library only: nothing heavy unless no server answers

        answer = served(kb_path, text, k=k, code=code, **filters)
        if answer is not None:
            return answer["hits"], answer["notes"]
    from kbstore.retrieve import Retriever

    retriever = Retriever.open(kb_path, index=index)
    return [h.as_dict() for h in retriever.query(text, k=k, code=code, **filters)], retriever.notes


@cli.command()
@kb_option
@json_option
def reindex(kb_path, as_json) -> None:
    """Rebuild the chromadb vector index from the vectors stored in DuckDB."""
    from kbstore.index import reindex as run_reindex

    r = run_reindex(kb_path)
    if as_json:
        return _print_json(r.as_dict())
    click.echo(f"rebuilt {r.index_dir}: {r.entries} vectors in {r.seconds:.2f} s")


@cli.command()
@click.argument("snapshot", required=False)
@click.option("--repair", is_flag=True,
              help="Rebuild a drifted vector index from DuckDB and remove stale index directories (DuckDB is never touched).")
@kb_option
@json_option
def verify(snapshot, repair, kb_path, as_json) -> None:
    """Recompute every stored hash of the KB, or of SNAPSHOT, and check indexes (exit 1 on any problem; a stale index
    is a warning)."""
    if snapshot:
        if repair:
            raise click.UsageError("--repair repairs the KB's index; a snapshot is never repaired")
        return _verify_snapshot(snapshot, kb_path, as_json)
    from kbstore.verify import verify as run_verify

    r = run_verify(kb_path, repair=repair)
    _report_verify(r, f"{r.kb_path}: version {r.version}, {r.entries} entries; index: {r.index.get('summary')}", as_json)


def _verify_snapshot(snapshot, kb_path, as_json) -> None:
    from kbstore.snapshot_verify import verify_snapshot

    r = verify_snapshot(snapshot, kb_path)
    _report_verify(r, f"{r.path}: snapshot {r.id}, {r.entries} entries", as_json)


def _report_verify(r, header: str, as_json: bool) -> None:
    """Print a verify report (KB or snapshot) and exit 1 when it lists problems (warnings are printed, not failed)."""
    if as_json:
        _print_json(r.as_dict())
    else:
        click.echo(header)
        for line in getattr(r, "repaired", []):
            click.echo(f"  repaired: {line}")
        for p in r.problems:
            click.echo(f"  FAIL {p['check']}: {p['message']}")
        for w in r.warnings:
            click.echo(f"  WARN {w['check']}: {w['message']}")
        warned = f" ({len(r.warnings)} warnings)" if r.warnings else ""
        click.echo(("ok" if r.ok else f"{len(r.problems)} problems") + warned)
    if not r.ok:
        sys.exit(1)


allow_outside_option = click.option(
    "--allow-outside", is_flag=True,
    help="Accept cohort files that resolve outside the manifest's directory (or its project root).")


@cli.command()
@click.option("--exclude-cohort", "manifest", required=True, type=click.Path(dir_okay=False),
              help="Cohort manifest (YAML) whose operators the snapshot must not have learned from.")
@click.option("--name", default=None, help="A label for the snapshot (default: the cohort name).")
@click.option("--overlap-threshold", type=float, default=None,
              help=f"Overlap score (provenance.overlap_rules.score) at or above which an entry is excluded "
                   f"(default {THRESHOLD}, the operating point bench/bench_overlap_heldout.py chooses).")
@click.option("--exclude-family", is_flag=True, help="Also exclude entries of the cohort operators' families.")
@click.option("--frozen-at", "frozen_at", default=None, metavar="TIME",
              help="When the cohort really froze (ISO 8601 with a zone, 2026-11-30T00:00:00Z), instead of the "
                   "manifest's frozen_at; recorded in the snapshot and shown by kb audit.")
@allow_outside_option
@kb_option
@json_option
def freeze(manifest, name, overlap_threshold, exclude_family, frozen_at, allow_outside, kb_path, as_json) -> None:
    """Freeze an immutable snapshot of the KB without the entries tied to a cohort (each rule reported with evidence).

    A snapshot that keeps nothing, or that one rule alone empties of most of the KB, says so on stderr."""
    from kbstore.freeze import freeze as run_freeze

    r = run_freeze(manifest, kb_path, name=name, overlap_threshold=overlap_threshold, exclude_family=exclude_family,
                   allow_outside=allow_outside, frozen_at=_iso_time(frozen_at, "--frozen-at"),
                   progress=None if as_json else _progress("kb freeze"))
    for w in r.warnings:
        click.echo(f"kb freeze: warning: {w}", err=True)
    if as_json:
        return _print_json(r.as_dict())
    made = "frozen" if r.created else "already frozen (nothing written)"
    click.echo(f"snapshot {r.snapshot_id} {made}:")  # the id alone on its line: 100 columns hold the rest
    click.echo(f"  {r.counts['included']} of {r.counts['kb_entries']} entries kept, {r.counts['excluded']} excluded  "
               f"[cohort {r.cohort}, KB v{r.kb_version}, {r.timings['total_s']:.1f} s]")
    click.echo(f"  frozen_at  {r.frozen_at}")
    for rule, x in r.rules.items():
        state = f"{x['excluded']} excluded ({x['only']} by this rule alone)" if x["enabled"] else "off"
        click.echo(f"  {rule:<10} {state}")
    click.echo(f"  {r.path}")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=True))
@click.option("--cohort", "manifest", required=True, type=click.Path(dir_okay=False),
              help="Cohort manifest (YAML) to check the file against, as `kb freeze --exclude-cohort` would.")
@click.option("--overlap-threshold", type=float, default=None,
              help=f"Overlap score at or above which a pair is a copy (default {THRESHOLD}, as kb freeze).")
@allow_outside_option
@json_option
def overlap(file, manifest, overlap_threshold, allow_outside, as_json) -> None:
    """Would `kb freeze` exclude FILE (a kernel, or a repair record .json) for code overlap with the cohort? Scores
    against every cohort file, the rule that fires or how far each pair is from it, the matched fragments side by side.
    Exit 0: no overlap rule fires; 1: the file would be excluded; 2: bad input."""
    from provenance.explain import explain

    r = explain(file, manifest, overlap_threshold=overlap_threshold, allow_outside=allow_outside)
    if as_json:
        _print_json(r.as_dict())
    else:
        click.echo("\n".join(r.lines()))
    if r.excluded:
        sys.exit(1)


@cli.command()
@kb_option
@json_option
def snapshots(kb_path, as_json) -> None:
    """List the KB's snapshots: id, name, cohort, KB version, entries kept and excluded."""
    from kbstore.snapshot import list_snapshots

    found = list_snapshots(kb_path)
    if as_json:
        return _print_json(found)
    for s in found:
        if not s["ok"]:
            click.echo(f"{s['id'][:16]}  DAMAGED: {s['error']}")
            continue
        click.echo(f"{s['id'][:16]}  {s['created_at']}  {s['name']}  cohort {s['cohort']} (frozen_at {s['frozen_at']})  "
                   f"KB v{s['kb_version']}  {s['included']} kept, {s['excluded']} excluded")
    if not found:
        click.echo("(no snapshots; make one with `kb freeze --exclude-cohort MANIFEST`)")


@cli.command()
@click.argument("snapshot")
@click.option("--md", "md_path", type=click.Path(dir_okay=False), default=None, help="Write the Markdown report here.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), default=None,
              help="Write a self-contained HTML report here.")
@kb_option
def audit(snapshot, md_path, html_path, kb_path) -> None:
    """A snapshot's audit report: exclusions with evidence, score distribution, ingestion timeline vs frozen_at."""
    from kbstore.audit import audit as run_audit

    report = run_audit(snapshot, kb_path)
    if not md_path and not html_path:
        click.echo(report.markdown(), nl=False)
        return
    for path, text in ((md_path, report.markdown), (html_path, report.html)):
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text())
            click.echo(f"wrote {path}", err=True)


@cli.group()
def cohort() -> None:
    """Evaluation cohorts: manifests of the operators (and files) an evaluation uses."""


@cohort.command("hash")
@click.argument("manifest", type=click.Path(dir_okay=False))
@allow_outside_option
@json_option
def cohort_hash(manifest, allow_outside, as_json) -> None:
    """Print a cohort manifest's content hash (it covers the cohort files' contents)."""
    from provenance.cohort import load_manifest, manifest_hash, manifest_record

    m = load_manifest(manifest, allow_outside=allow_outside)
    if as_json:
        return _print_json({"sha256": manifest_hash(m), "manifest": manifest, "record": manifest_record(m)})
    click.echo(manifest_hash(m))


@cli.group()
def server() -> None:
    """A warm process per KB holding its retrieval state and the embedder: `kb query` asks it when it runs."""


@server.command("start")
@click.option("--idle-s", type=float, default=1800.0, show_default=True, help="Exit after this many idle seconds.")
@kb_option
@json_option
def server_start(idle_s, kb_path, as_json) -> None:
    """Start the KB's server (or report the one running); returns once it has loaded the KB and answers."""
    from kbstore.server import start

    info = start(kb_path, idle_s=idle_s)
    if as_json:
        return _print_json(info)
    click.echo(f"kb server for {info['kb']}: pid {info['pid']}, KB v{info['kb_version']}, {info['entries']} entries")


@server.command("status")
@json_option
def server_status(as_json) -> None:
    """List this user's KB servers; `current` ones answer `kb query` here (the others run older code or settings)."""
    from kbstore.server import status

    found = status()
    if as_json:
        return _print_json(found)
    for s in found:
        state = "current" if s["current"] else "running, stale" if s["alive"] else "dead"
        click.echo(f"pid {s['pid']}  {state}  {s['kb']}  since {s['started_at']}  {s['socket']}")
    if not found:
        click.echo("no kb server")


@server.command("stop")
@click.option("--all", "every", is_flag=True, help="Stop every KB server of this user, not only this KB's.")
@kb_option
def server_stop(every, kb_path) -> None:
    """Stop the KB's servers (commands then load the KB themselves, as without a server)."""
    from kbstore.server import stop

    stopped = stop(kb_path, every=every)
    click.echo(f"stopped {len(stopped)} kb server(s)")


def main(argv: list[str] | None = None) -> None:
    from provenance.offline import apply_offline_env
    from provenance.runtime import hide_environment

    apply_offline_env()
    hide_environment()  # a key in this user's environment: not readable from here through /proc (ingest's pool too)
    try:
        cli.main(args=argv, prog_name="kb", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except Exception as e:  # the one place typed errors become exit statuses
        code = getattr(e, "exit_code", None)
        if not isinstance(code, int):
            raise
        click.echo(f"kb: error: {e}", err=True)
        sys.exit(code)


if __name__ == "__main__":
    main()
