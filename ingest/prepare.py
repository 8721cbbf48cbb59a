"""The per-record work of an ingest, done before the KB is touched and spread over the CPUs for big batches.

`check` reads and gates one file; `derive` turns an admitted record into its pattern, evidence and code
fingerprints (rule distillation and tree-sitter make this the costly step: tens of ms a record).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ingest.entry import Evidence, Pattern, evidence_from_record, pattern_from_record, record_sha256
from ingest.gate import REQUIRED_POLICY, gate
from ingest.load import LoadedRecord, RecordRejected, Rejection, load_record
from ingest.record import RepairRecord

PARALLEL_MIN = 64  # below this many records a process pool costs more than it saves


@dataclass
class Checked:
    path: str
    loaded: LoadedRecord | None
    reasons: list[Rejection] = field(default_factory=list)
    sha256: str | None = None  # of the record's canonical JSON, for admitted-by-the-gate records


@dataclass
class Derived:
    pattern: Pattern
    evidence: Evidence
    fingerprints: list[tuple[str, str, str, bytes]]  # (role, language, scheme, pack_fingerprints() bytes)


def check(path: Path, min_match: float, accept_policy: str = REQUIRED_POLICY) -> Checked:
    try:
        loaded = load_record(path)
    except RecordRejected as e:
        return Checked(str(path), None, e.reasons)
    reasons = gate(loaded.record, min_match=min_match, accept_policy=accept_policy)
    return Checked(str(path), loaded, reasons, None if reasons else record_sha256(loaded.record))


def derive(record: RepairRecord, min_match: float, accept_policy: str = REQUIRED_POLICY) -> Derived:
    from ingest.fingerprints import code_fingerprints

    fps = []
    for role, code in (("source", record.source.code), ("repaired", record.repaired.code)):
        fp = code_fingerprints(code, record.language)
        if fp is not None:
            fps.append((role, record.language, *fp))
    return Derived(pattern_from_record(record), evidence_from_record(record, min_match=min_match,
                                                                          accept_policy=accept_policy), fps)


# (embedder, entry ids the KB already has): set by the parent before the pool forks and inherited, never
# pickled (a loaded MiniLM is ~90 MB, the ids of a big KB a few MB).
EMBED_WITH: tuple | None = None


def derive_and_embed_chunk(records: list[RepairRecord], min_match: float,
                           accept_policy: str = REQUIRED_POLICY) -> tuple[list[Derived], dict]:
    """derive() each record, then embed the distinct texts of the chunk's new patterns in one batch (in a
    pool process for a big ingest, so the embedder's inference, most of an ingest's CPU time, runs on every
    CPU). Returns (derived, {entry id: vector})."""
    from ingest.entry import embed_text

    embedder, known = EMBED_WITH
    derived = [derive(r, min_match, accept_policy) for r in records]
    texts: dict[str, str] = {}
    for d in derived:
        if d.pattern.id not in known:
            texts.setdefault(d.pattern.id, embed_text(d.pattern))
    vectors = embedder.embed(list(texts.values())) if texts else []
    return derived, dict(zip(texts, vectors))


def parallel(n_items: int) -> bool:
    """Whether a batch this big goes to the process pool."""
    return n_items >= PARALLEL_MIN and workers() >= 2


EMBED_WORKERS_MAX = 8  # each embedding process holds torch and the model (~0.6 GB resident, measured): not one per core on a big machine


def workers(embedding: bool = False) -> int:
    """$KB_INGEST_WORKERS, else one per CPU (at most EMBED_WORKERS_MAX for processes that embed)."""
    if os.environ.get("KB_INGEST_WORKERS"):
        return max(1, int(os.environ["KB_INGEST_WORKERS"]))
    n = os.cpu_count() or 1
    return max(1, min(n, EMBED_WORKERS_MAX) if embedding else n)


def pmap(fn: Callable, args: Sequence[tuple]) -> list:
    """[fn(*a) for a in args], in order; over a fork-started process pool when the batch is big."""
    return list(pmap_iter(fn, args))


def pmap_iter(fn: Callable, args: Sequence[tuple], *, force: bool = False, chunksize: int | None = None,
              embedding: bool = False) -> Iterator:
    """fn(*a) for a in args, yielded in order as they complete, so the caller can work meanwhile.

    Over the process pool when the batch is big (or `force`); `embedding`: fn embeds (fewer processes on a
    big machine). Called only while no DuckDB or chromadb handle is open here, so the children inherit none.
    """
    n = workers(embedding)
    if not (force and n >= 2) and not parallel(len(args)):
        yield from (fn(*a) for a in args)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if chunksize is None:
        chunksize = max(1, min(64, len(args) // (8 * n)))
    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork"),
                             initializer=_die_with_parent, initargs=(os.getpid(),)) as pool:
        yield from pool.map(_star, [(fn, a) for a in args], chunksize=chunksize)


def _die_with_parent(parent: int) -> None:
    """Pool initializer: the kernel kills this process when the ingest dies (a SIGKILL included).

    Forked workers inherit the KB's write lock (a flock on a file description they share); an orphaned
    worker would hold it, and the KB, for as long as it lived.
    """
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: no such call, and nothing to do
        pass
    if os.getppid() != parent:  # the ingest died before the line above took effect
        os._exit(1)


def _star(item: tuple) -> object:
    fn, a = item
    return fn(*a)
