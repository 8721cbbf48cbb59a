"""A snapshot's BM25 cache, built in a forked child while the freeze's overlap scan runs in the parent.

Tokenising is the slow part of a BM25 build (about 7 s for 100k entries here, then 4 s for bm25s) and
needs only the entries' lexical text, which the freeze has before its scan; which entries are kept is
known only after. So the child tokenises every entry straight to token ids while the parent scans,
then receives the kept rows and a directory, builds the index over those rows only (the vocabulary is
compacted to their words: nothing of an excluded entry is left in the cache) and saves it there.
Forking happens after the DuckDB handle is closed. Below FORK_MIN documents, or with one worker, the
same work runs inline.
"""
from __future__ import annotations

import os
from itertools import chain
from pathlib import Path

FORK_MIN = 5000


def token_ids(documents: list[str]) -> tuple[dict[str, int], list[list[int]]]:
    """(vocabulary, ids per document), the same tokens as kbstore.lexical.tokenize (an empty one: `_empty_`)."""
    from kbstore.lexical import _TOKEN, _word_tokens

    vocab: dict[str, int] = {}
    cache: dict[tuple[str, str, str], tuple[int, ...]] = {}
    out = []
    for doc in documents:
        ids: list[int] = []
        for groups in _TOKEN.findall(doc):
            got = cache.get(groups)
            if got is None:
                label, ident, num = groups
                words = _word_tokens("label" if label else "ident" if ident else "num", label or ident or num)
                got = cache[groups] = tuple(vocab.setdefault(w, len(vocab)) for w in words)
            ids.extend(got)
        out.append(ids or [vocab.setdefault("_empty_", len(vocab))])
    return vocab, out


def build_cache(vocab: dict[str, int], ids: list[list[int]], keep: list[int], directory: Path) -> None:
    """Index the kept documents (vocabulary compacted to their words) and save it to directory."""
    import bm25s
    import numpy as np

    from kbstore.lexical import LexicalIndex

    docs = [ids[i] for i in keep]
    index = LexicalIndex.from_tokens([])
    if docs:
        lens = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        flat = np.fromiter(chain.from_iterable(docs), dtype=np.int64, count=int(lens.sum()))
        used = np.zeros(len(vocab), dtype=bool)
        used[flat] = True
        new = np.cumsum(used) - 1
        words = np.array(list(vocab), dtype=object)[used]
        compact = {w: n for n, w in enumerate(words.tolist())}
        parts = np.split(new[flat], np.cumsum(lens)[:-1])
        bm25 = bm25s.BM25()
        bm25.index(bm25s.tokenization.Tokenized(ids=[p.tolist() for p in parts], vocab=compact), show_progress=False)
        index._set(len(docs), bm25)
    index.save(directory)


class LexicalBuilder:
    """start(documents) now; build(keep, directory) later (blocks until the cache is written)."""

    def __init__(self, documents: list[str], *, workers: int | None = None):
        workers = workers or max(1, int(os.environ.get("KB_INGEST_WORKERS", os.cpu_count() or 1)))
        self.documents, self.proc, self.conn = documents, None, None
        if workers >= 2 and len(documents) >= FORK_MIN:
            import multiprocessing

            ctx = multiprocessing.get_context("fork")
            self.conn, child = ctx.Pipe()
            self.proc = ctx.Process(target=_child, args=(documents, child), daemon=True, name="kb-freeze-bm25")
            self.proc.start()
            child.close()

    @property
    def forked(self) -> bool:
        return self.proc is not None

    def build(self, keep: list[int], directory: Path) -> None:
        if self.proc is None:
            vocab, ids = token_ids(self.documents)
            build_cache(vocab, ids, keep, directory)
            return
        try:
            self.conn.send((list(keep), str(directory)))
            ok, message = self.conn.recv()
        except (EOFError, OSError) as e:
            raise RuntimeError(f"the BM25 builder process died ({type(e).__name__}); exit code {self.proc.exitcode}") from None
        finally:
            self.close()
        if not ok:
            raise RuntimeError(f"the BM25 builder failed: {message}")

    def close(self) -> None:
        if self.proc is not None:
            self.conn.close()
            self.proc.join(timeout=10)
            if self.proc.is_alive():
                self.proc.kill()
                self.proc.join()
            self.proc = None


def _child(documents: list[str], conn) -> None:
    try:
        vocab, ids = token_ids(documents)
        keep, directory = conn.recv()
        build_cache(vocab, ids, keep, Path(directory))
        conn.send((True, ""))
    except EOFError:  # the parent went away: nothing to build
        pass
    except BaseException as e:  # reported to the parent, which raises
        conn.send((False, f"{type(e).__name__}: {str(e)[:300]}"))
