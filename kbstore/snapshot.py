"""Snapshots: immutable, content-addressed cuts of the KB for evaluation (`kb freeze`, `kb query --snapshot`).

<kb>/snapshots/<id>/
    manifest.json    SnapshotManifest: the hashed identity, the cohort, every excluded entry with rule and
                     evidence, the rule reports, labels (name, time, KB version) and a seal over all of it
    entries.jsonl    the included entries as Store.retrieval_rows() gives them, sorted by id, one per line
    vectors.npy      their stored vectors (float32, same order): dense search is exact numpy, no index to build
    lexical/         a BM25 cache built from entries.jsonl; its digests are recorded, and one that does not
                     match is ignored (rebuilt in memory) on open and reported by verify
    rows/            where each line of entries.jsonl starts and ends, and each entry's filter and rule codes
                     (kbstore.snapshot_write), recorded the same way: with both caches a snapshot opens memory-mapped
                     and a query reads the lines it returns; without (older snapshots) every row is loaded

The id is sha256 of the canonical JSON of Identity: the sorted included entry hashes, the cohort manifest
hash, the rule parameters (overlap config and fingerprint scheme included), the embedder fingerprint, the
tool version, and also the digests of the data files and of the exclusion report, so that no byte a
retrieval or an audit reads can change without changing the id. Freezing the same KB against the same
cohort twice gives the same id (the second freeze says so and writes nothing). The directory is made
read-only once written; opening it never writes into it.

A snapshot is trusted by its content and its origin, never by its directory's name: opening one (and `kb verify`)
also checks that the directory carries its id and that it was cut from this KB, the one whose snapshots/ holds it
(else --kb / $KB_PATH): the manifest's kb_id (the KB's identity, kbstore.store) is this KB's, and its entries exist
here. A snapshot cut before KBs had an identity has no kb_id and is matched by its entries alone.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kbstore.errors import BadInput, ForeignSnapshot, IntegrityFailure, NotFound
from kbstore.paths import KBPaths
from provenance.canonical import content_hash, sha256_text

SNAPSHOT_SCHEMA = "kb.snapshot/v1"
IDENTITY_SCHEMA = "kb.snapshot.identity/v1"
MANIFEST, ENTRIES, VECTORS, LEXICAL, ROWS = "manifest.json", "entries.jsonl", "vectors.npy", "lexical", "rows"
DATA_FILES = (ENTRIES, VECTORS)
CACHES = (LEXICAL, ROWS)


class Identity(BaseModel):
    """Everything the snapshot id hashes."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kb.snapshot.identity/v1"] = Field(IDENTITY_SCHEMA, alias="schema")
    entries: list[str]  # sha256 of every included entry, sorted
    cohort_sha256: str  # provenance.cohort.manifest_hash of the excluded cohort
    rules: dict  # rule parameters, overlap config and fingerprint scheme included
    embedder_fingerprint: str | None
    tool_version: str
    data: dict[str, str]  # data file -> sha256
    exclusions_sha256: str  # canonical JSON of {"rules": reports, "excluded": entries}

    def snapshot_id(self) -> str:
        return content_hash(self.model_dump(mode="json", by_alias=True))


class RuleReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule: str  # provenance | overlap | temporal | family
    enabled: bool
    excluded: int  # entries this rule excludes
    only: int  # of those, entries no other rule excludes
    params: dict
    details: dict = Field(default_factory=dict)


class ExcludedEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    sha256: str
    title: str | None = None
    family: str | None = None
    language: str | None = None
    first_version: int | None = None
    first_ingested_at: str | None = None
    rules: list[str]
    evidence: dict[str, list[dict]]  # rule -> what matched (cohort file, operator, scores, lines, times)


class SnapshotManifest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kb.snapshot/v1"] = Field(SNAPSHOT_SCHEMA, alias="schema")
    id: str
    name: str
    created_at: str
    kb_path: str
    kb_version: int
    cohort: dict  # provenance.cohort.manifest_record: cohort name, frozen_at, operators with their files' sha256
    cohort_source: str
    embedder: dict  # name, fingerprint, dim
    identity: Identity
    counts: dict[str, int]  # kb_entries, included, excluded
    rules: list[RuleReport]
    excluded: list[ExcludedEntry]
    caches: dict[str, dict] = Field(default_factory=dict)  # name -> {files: {path: sha256}, built_from}
    timings: dict[str, float] = Field(default_factory=dict)
    kb_id: str | None = None  # the identity of the KB it was cut from (None: cut before KBs had one)
    seal: str = ""  # sha256 of the canonical JSON of everything above

    def dump(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)

    def compute_seal(self) -> str:
        d = self.dump()
        d.pop("seal")
        if d["kb_id"] is None:  # sealed before the field existed
            d.pop("kb_id")
        return content_hash(d)

    def operator_ids(self) -> list[str]:
        return sorted(op["id"] for op in self.cohort.get("operators", []))


def exclusions_sha256(rules: list[RuleReport], excluded: list[ExcludedEntry]) -> str:
    return content_hash({"rules": [r.model_dump(mode="json") for r in rules],
                         "excluded": [e.model_dump(mode="json") for e in excluded]})


# ---------------------------------------------------------------- finding snapshots

def snapshots_dir(kb: KBPaths) -> Path:
    return kb.root / "snapshots"


def resolve_snapshot(ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> Path:
    """A snapshot directory from a path, an id (or a prefix of 6+ hex digits), or a name, under the KB's snapshots/."""
    p = Path(ref)
    if (p / MANIFEST).is_file():
        return p
    root = snapshots_dir(KBPaths.of(kb_path))
    text = str(ref).strip()
    dirs = sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")) if root.is_dir() else []
    by_id = [d for d in dirs if len(text) >= 6 and d.name.startswith(text.lower())]
    if not by_id:
        by_id = [d for d in dirs if _label(d).get("name") == text]
    if len(by_id) == 1:
        return by_id[0]
    if by_id:
        raise BadInput(f"snapshot {text!r} is ambiguous ({', '.join(d.name[:12] for d in by_id)}); give more of the id")
    raise NotFound(f"{root}: no snapshot {text!r} (list them with `kb snapshots`)")


def _label(d: Path) -> dict:
    try:
        return json.loads((d / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def list_snapshots(kb_path: str | os.PathLike | None = None) -> list[dict]:
    """Every snapshot under the KB: id, name, time, cohort, counts; a damaged or foreign one is listed as such."""
    kb = KBPaths.of(kb_path)
    root = snapshots_dir(kb)
    out = []
    with kb_store(kb) as store:
        for d in sorted(root.iterdir()) if root.is_dir() else []:
            if not d.is_dir() or d.name.startswith("."):
                continue
            try:
                m = read_manifest(d)
                check_origin(d, m, store)
            except IntegrityFailure as e:
                out.append({"id": d.name, "path": str(d), "ok": False, "error": str(e)})
                continue
            out.append({"id": m.id, "path": str(d), "ok": True, "name": m.name, "created_at": m.created_at,
                        "cohort": m.cohort.get("cohort"), "frozen_at": m.identity.rules.get("temporal", {}).get("frozen_at", m.cohort.get("frozen_at")),
                        "kb_version": m.kb_version,
                        **{k: m.counts.get(k) for k in ("kb_entries", "included", "excluded")}})
    return sorted(out, key=lambda s: (s.get("created_at") or "", s["id"]))


def read_manifest(path: Path) -> SnapshotManifest:
    """The manifest, validated and with its seal checked (cheap: data files are not read)."""
    try:
        m = SnapshotManifest.model_validate(json.loads((path / MANIFEST).read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as e:
        first = str(e).splitlines()[0][:200]
        raise IntegrityFailure(f"{path / MANIFEST}: not a readable snapshot manifest ({first})") from None
    if m.compute_seal() != m.seal:
        raise IntegrityFailure(f"{path / MANIFEST}: the manifest was changed after it was sealed (run `kb verify {m.id[:12]}`)")
    return m


# ---------------------------------------------------------------- origin

def home_kb(path: Path, kb_path: str | os.PathLike | None = None) -> KBPaths:
    """The KB a snapshot is checked against: the one whose snapshots/ holds it, else --kb / $KB_PATH."""
    parent = Path(os.path.abspath(path)).parent
    home = KBPaths(parent.parent)
    return home if parent.name == "snapshots" and home.db.is_file() else KBPaths.of(kb_path)


def kb_store(kb: KBPaths):
    """The KB opened read-only, or None (in a context manager) when there is none."""
    from contextlib import nullcontext

    from kbstore.store import Store

    return Store.open(kb) if kb.db.is_file() else nullcontext()


def origin_problems(path: Path, m: SnapshotManifest, store=None) -> list[str]:
    """Why the snapshot at path is not one cut from the KB open in store (without a store: its directory only)."""
    name = Path(os.path.abspath(path)).name
    out = [] if name == m.id else [f"directory {name[:12]} does not carry the snapshot's id {m.id[:12]}"]
    if store is None:
        return out
    kb_id = store.meta("kb_id")
    if m.kb_id is not None and m.kb_id != kb_id:
        out.append(f"cut from another KB (kb_id {m.kb_id[:12]}; the KB at {store.paths.root} has "
                   f"{kb_id[:12] if kb_id else 'none'})")
    ids = [*m.identity.entries, *(e.id for e in m.excluded)]
    missing = store.missing_entries(ids)
    if missing:
        out.append(f"{len(missing)} of its {len(ids)} entries are not in this KB, e.g. {missing[0][:12]}")
    return out


def check_origin(path: Path, m: SnapshotManifest, store) -> None:
    """Raise ForeignSnapshot, in one line naming the directory, when origin_problems finds any."""
    problems = origin_problems(path, m, store)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ForeignSnapshot(f"{path}: not a snapshot of this KB: {problems[0]}{more}")


# ---------------------------------------------------------------- writing

def _digest_synced(path: Path) -> str:
    """sha256 of a file another writer made (bm25s), after making it durable."""
    with open(path, "rb+") as f:
        os.fsync(f.fileno())
        return sha256_text(f.read())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _make_read_only(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root, topdown=False):
        for f in filenames:
            os.chmod(os.path.join(dirpath, f), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(dirpath, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)


def _remove_stale(root: Path, age_s: float = 3600) -> list[Path]:
    """Temporary directories of freezes that died (a live one is minutes old at most); those removed."""
    import time

    gone = []
    for d in root.glob(".tmp-*"):
        try:
            if time.time() - d.stat().st_mtime > age_s:
                _remove(d)
                gone.append(d)
        except OSError:
            pass
    return gone


def remove_temporary(root: Path) -> list[Path]:
    """`kb verify --repair`: the temporary directories of freezes that died (an hour old: a live freeze's is newer)."""
    return _remove_stale(root)


def _remove(root: Path) -> None:
    for dirpath, _, _ in os.walk(root):
        os.chmod(dirpath, stat.S_IRWXU)
    shutil.rmtree(root)


# ---------------------------------------------------------------- reading

class Snapshot:
    """An opened snapshot: manifest, and its rows and vectors read when asked for; read-only throughout."""

    def __init__(self, path: Path, manifest: SnapshotManifest, lexical_cache_ok: bool, rows_cache_ok: bool = False):
        self.path, self.manifest = path, manifest
        self.lexical_cache_ok, self.rows_cache_ok = lexical_cache_ok, rows_cache_ok
        self._rows = self._matrix = None

    @property
    def id(self) -> str:
        return self.manifest.id

    @classmethod
    def open(cls, ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> "Snapshot":
        """Resolve, check the seal, the data digests (the files streamed through sha256) and the origin (see the module
        docstring); any mismatch is an IntegrityFailure (ForeignSnapshot for the origin), and no KB to check the origin
        against is NotFound."""
        path = resolve_snapshot(ref, kb_path)
        m = read_manifest(path)
        for name in DATA_FILES:
            try:
                digest = file_sha256(path / name)
            except OSError as e:
                raise IntegrityFailure(f"{path / name}: cannot read snapshot data: {e.strerror or e}") from None
            if digest != m.identity.data.get(name):
                raise IntegrityFailure(f"{path / name}: does not match its recorded sha256 (run `kb verify {m.id[:12]}`)")
        if (m.identity.snapshot_id() != m.id or content_hash(m.cohort) != m.identity.cohort_sha256
                or exclusions_sha256(m.rules, m.excluded) != m.identity.exclusions_sha256):
            raise IntegrityFailure(f"{path}: the snapshot id does not match its content (run `kb verify {m.id[:12]}`)")
        kb = home_kb(path, kb_path)
        if not kb.db.is_file():
            raise NotFound(f"{path}: no knowledge base at {kb.root} to check that the snapshot was cut from it (pass --kb)")
        with kb_store(kb) as store:
            check_origin(path, m, store)
        return cls(path, m, cache_ok(path, m), cache_ok(path, m, ROWS))

    @property
    def rows(self) -> list[dict]:
        """Every included row, shaped for retrieval (read from entries.jsonl on first use; an audit's timeline)."""
        if self._rows is None:
            from kbstore.shape import shape_row

            text = (self.path / ENTRIES).read_text(encoding="utf-8")
            self._rows = [shape_row(json.loads(line), LazyPattern) for line in text.splitlines()]
        return self._rows

    @property
    def matrix(self):
        """The included entries' vectors, (n, dim) float32, memory-mapped."""
        if self._matrix is None:
            self._matrix = load_vectors(self.path / VECTORS)
        return self._matrix

    def source(self) -> dict:
        return {"snapshot_id": self.id, "kb_version": self.manifest.kb_version, "kb_path": self.manifest.kb_path}

    def corpus(self):
        """The included entries held in memory (kbstore.retrieve.Corpus)."""
        from kbstore.retrieve import Corpus

        return Corpus(self.rows, self.matrix, self.manifest.embedder.get("fingerprint"), self.source())

    def retriever(self, embedder=None):
        """A kbstore.retrieve.Retriever over the included entries only (exact dense search, the cached BM25): over the
        mapped files when both caches check out, else over every row loaded."""
        from kbstore.embed import choose_embedder
        from kbstore.lexical import LexicalIndex
        from kbstore.retrieve import Retriever

        emb = embedder or choose_embedder(self.manifest.embedder.get("name"), self.manifest.embedder.get("fingerprint"))
        n = len(self.manifest.identity.entries)
        if self.lexical_cache_ok and self.rows_cache_ok:
            from kbstore.mapped import open_snapshot_corpus

            lexical = LexicalIndex.load(self.path / LEXICAL, n)
            return Retriever(open_snapshot_corpus(self.path, self.manifest, self.matrix, lexical, self.source()), emb)
        lexical = LexicalIndex.load(self.path / LEXICAL, n) if self.lexical_cache_ok else None
        return Retriever(self.corpus(), emb, lexical=lexical)


class LazyPattern(Mapping):
    """A pattern's canonical JSON, parsed on first use: opening a 100k-entry snapshot halved (12 s of json here)."""

    __slots__ = ("_raw", "_data")

    def __init__(self, raw: str):
        self._raw, self._data = raw, None

    def _parsed(self) -> dict:
        if self._data is None:
            self._data = json.loads(self._raw)
        return self._data

    def __getitem__(self, key):
        return self._parsed()[key]

    def __iter__(self):
        return iter(self._parsed())

    def __len__(self) -> int:
        return len(self._parsed())


def open_snapshot(ref: str | os.PathLike, kb_path: str | os.PathLike | None = None) -> Snapshot:
    return Snapshot.open(ref, kb_path)


def cache_ok(path: Path, m: SnapshotManifest, name: str = LEXICAL) -> bool:
    """Does the cache (lexical/ or rows/) match its recorded digests and the entries it was built from?"""
    cache = m.caches.get(name) or {}
    if cache.get("built_from") != m.identity.data.get(ENTRIES) or "files" not in cache:  # an empty snapshot has an empty cache
        return False
    on_disk = {f"{name}/{p.name}" for p in (path / name).iterdir()} if (path / name).is_dir() else set()
    if on_disk != set(cache["files"]):
        return False
    return all(file_sha256(path / rel) == digest for rel, digest in cache["files"].items())


def file_sha256(path: Path) -> str:
    """sha256 of a file, read a chunk at a time (a 100,000-entry snapshot's entries.jsonl is some hundred MB)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def load_vectors(path: Path):
    """vectors.npy memory-mapped; IntegrityFailure when it is not a vector matrix."""
    import numpy as np

    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError) as e:
        raise IntegrityFailure(f"{path}: not a vector matrix: {e}") from None


def _load_vectors(blob: bytes, path: Path):
    import numpy as np

    try:
        return np.load(io.BytesIO(blob), allow_pickle=False)
    except ValueError as e:
        raise IntegrityFailure(f"{path / VECTORS}: not a vector matrix: {e}") from None
