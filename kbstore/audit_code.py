"""The code an audit shows beside an overlap match: the entry's from the KB, a cohort file's only while unchanged.

An overlap match names its entry part as "role:record" (role source or repaired, the record's sha256 cut
to 12 digits: kbstore.freeze._fingerprint_parts); the code is that record's, from the KB's records
table, which is what ingest fingerprinted. A cohort file is read from the manifest's directory (the
snapshot records the manifest's absolute path, and each file's path and sha256; snapshots cut before that
recorded the path as given to kb freeze, looked up from the working directory, then beside the KB); a file
that is gone, unreadable or no longer has the recorded sha256 yields a note, never its current lines.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from provenance.canonical import sha256_text


def entry_codes(kb, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(entry id, part) -> the code of that part, for the pairs the KB at kb (KBPaths) still holds."""
    from kbstore.store import Store

    wanted = set(wanted)
    ids = sorted({eid for eid, _ in wanted})
    if not ids or not kb.db.is_file():
        return {}
    out: dict[tuple[str, str], str] = {}
    with Store.open(kb) as store:
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = store.rows("SELECT e.entry_id, r.sha256, r.canonical_json FROM evidence e JOIN records r "
                              f"ON r.sha256 = e.record_sha256 WHERE e.entry_id IN ({', '.join('?' * len(chunk))})", chunk)
            for row in rows:
                record = None
                for role in ("source", "repaired"):
                    key = (row["entry_id"], f"{role}:{row['sha256'][:12]}")
                    if key in wanted:
                        record = record or json.loads(row["canonical_json"])
                        code = (record.get(role) or {}).get("code")
                        if isinstance(code, str):
                            out[key] = code
    return out


def cohort_codes(manifest) -> dict[str, tuple[str | None, str]]:
    """cohort file path (as the manifest writes it) -> (code, "") or (None, why it is not shown), for a SnapshotManifest."""
    base = cohort_dir(manifest)
    out: dict[str, tuple[str | None, str]] = {}
    for op in manifest.cohort.get("operators", []):
        for f in op.get("files", []):
            if f["path"] not in out:
                out[f["path"]] = _read(base / f["path"], f["sha256"], manifest.cohort_source)
    return out


def cohort_dir(manifest) -> Path:
    """The directory of the manifest a snapshot was frozen against (module docstring: older relative paths)."""
    source = Path(manifest.cohort_source)
    if source.is_absolute():
        return source.parent
    for root in (Path.cwd(), Path(manifest.kb_path).parent):
        if (root / source).is_file():
            return (root / source).parent
    return source.parent


def _read(path: Path, recorded: str, source: str) -> tuple[str | None, str]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, (f"not shown: the cohort file is no longer at {path} (paths are relative to the manifest "
                      f"{source})")
    except OSError as e:
        return None, f"not shown: cannot read {path}: {e.strerror or e}"
    now = sha256_text(data)
    if now != recorded:
        return None, (f"not shown: {path} has changed since the freeze (sha256 {now[:12]}, the snapshot recorded "
                      f"{recorded[:12]}); its lines would not be the matched ones")
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return None, f"not shown: {path} is not UTF-8 text"
