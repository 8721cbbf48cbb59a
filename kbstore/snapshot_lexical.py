"""A snapshot's BM25 cache, built in a forked child while the freeze's overlap scan runs in the parent.

Tokenising is the slow part of a BM25 build and needs only the entries' lexical text, which the freeze
has before its scan; which entries are kept is known only after. So the child tokenises every entry
(to word ids, each distinct word tokenised once) while the parent scans, then receives the kept rows
and a directory, builds the index over those rows only (the vocabulary is compacted to their words:
nothing of an excluded entry is left in the cache) and saves it there. The index is bm25s's, byte for
byte, with its score matrix computed by numpy (bm25_from_ids). For 100k entries here: tokenising about
4 s (8 s with a token loop; the regex is most of it), the index 2 s (bm25s's per-document loop: 4-6 s).
Forking happens after the DuckDB handle is closed. Below FORK_MIN documents, or with one worker, the
same work runs inline.
"""
from __future__ import annotations

import gc
import os
from itertools import chain
from pathlib import Path

FORK_MIN = 5000


class Tokenized:
    """Documents as words, each word's token ids once: what token_ids gives and build_cache indexes.

    words: the word id of every word of every document, in order (array of int64); doc_words: words per
    document; word_tokens[w]: the vocabulary ids of word w's tokens (kbstore.lexical._word_tokens).
    """

    def __init__(self, vocab: dict[str, int], words, doc_words, word_tokens: list[tuple[int, ...]]):
        self.vocab, self.words, self.doc_words, self.word_tokens = vocab, words, doc_words, word_tokens

    def documents(self, keep: list[int]):
        """(token ids of the kept documents end to end, their lengths), as numpy arrays."""
        import numpy as np

        words = np.frombuffer(self.words, dtype=np.int64)
        per_doc = np.frombuffer(self.doc_words, dtype=np.int64)  # at least one word each (see token_ids)
        n_tok = np.fromiter(map(len, self.word_tokens), dtype=np.int64, count=len(self.word_tokens))
        flat_tokens = np.fromiter(chain.from_iterable(self.word_tokens), dtype=np.int64, count=int(n_tok.sum()))
        kept = np.asarray(keep, dtype=np.int64)
        if len(kept) > 1 and bool(np.any(kept[1:] <= kept[:-1])):
            kept_words = words[_ranges(np.cumsum(per_doc)[kept] - per_doc[kept], per_doc[kept])]
        else:  # ascending (a freeze's): a mask, no index arrays
            mask = np.zeros(len(per_doc), dtype=bool)
            mask[kept] = True
            kept_words = words[np.repeat(mask, per_doc)]
        word_len = n_tok[kept_words]
        tokens = flat_tokens[_ranges((np.cumsum(n_tok) - n_tok)[kept_words], word_len)]
        offsets = np.cumsum(per_doc[kept]) - per_doc[kept]
        lens = np.add.reduceat(word_len, offsets) if len(kept) else np.zeros(0, dtype=np.int64)
        return tokens, lens


def _ranges(starts, lengths):
    """The indexes start[i] .. start[i] + length[i] - 1 for every i, end to end."""
    import numpy as np

    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if len(ends) else 0)


def token_ids(documents: list[str]) -> Tokenized:
    """The documents' tokens as kbstore.lexical.tokenize makes them (a document without any: `_empty_`).

    Each distinct word is tokenised once and numbered; a document is read as word ids with one C-level
    dict lookup per word (the regex match is the word: which of label, ident or num it is follows from it).
    Vocabulary ids are given in order of first use, as tokenising document after document would.
    """
    import re
    from array import array

    from kbstore.lexical import _TOKEN, _word_tokens

    find = re.compile(re.sub(r"\(\?P<\w+>", "(?:", _TOKEN.pattern)).findall
    vocab: dict[str, int] = {}
    wmap: dict[str, int] = {}
    word_tokens: list[tuple[int, ...]] = []
    n_tokens: list[int] = []
    words, doc_words = array("q"), array("q")
    for doc in documents:
        found = find(doc)
        try:
            ids = list(map(wmap.__getitem__, found))
        except KeyError:
            for w in found:
                if w not in wmap:
                    label, ident, num = _TOKEN.fullmatch(w).groups()
                    toks = _word_tokens("label" if label else "ident" if ident else "num", w)
                    word_tokens.append(tuple(vocab.setdefault(t, len(vocab)) for t in toks))
                    n_tokens.append(len(toks))
                    wmap[w] = len(wmap)
            ids = list(map(wmap.__getitem__, found))
        if not sum(map(n_tokens.__getitem__, ids)):  # "" is never a match: the word of an empty document
            if "" not in wmap:
                word_tokens.append((vocab.setdefault("_empty_", len(vocab)),))
                n_tokens.append(1)
                wmap[""] = len(wmap)
            ids.append(wmap[""])
        words.extend(ids)
        doc_words.append(len(ids))
    return Tokenized(vocab, words, doc_words, word_tokens)


def build_cache(tokens: Tokenized, keep: list[int], directory: Path) -> None:
    """Index the kept documents (vocabulary compacted to their words) and save it to directory."""
    import numpy as np

    from kbstore.lexical import LexicalIndex

    index = LexicalIndex.from_tokens([])
    if len(keep):
        flat, lens = tokens.documents(keep)
        used = np.zeros(len(tokens.vocab), dtype=bool)
        used[flat] = True
        new = np.cumsum(used) - 1
        words = np.array(list(tokens.vocab), dtype=object)[used]
        compact = {w: n for n, w in enumerate(words.tolist())}
        index._set(len(keep), bm25_from_ids(new[flat], lens, compact))
    index.save(directory)


def bm25_from_ids(flat, lens, vocab: dict[str, int]):
    """bm25s.BM25().index(Tokenized(ids, vocab)) for documents given as one id array and their lengths.

    The same index, byte for byte (bm25s's defaults: lucene, k1 1.5, b 0.75, float32), built with numpy
    instead of bm25s's loop over documents: 5 s -> about 1 s for 100k entries here.
    """
    import bm25s

    bm25 = _flat_bm25_class()()
    bm25.index(bm25s.tokenization.Tokenized(ids=(flat, lens), vocab=vocab), show_progress=False)
    return bm25


_FLAT_BM25 = None


def _flat_bm25_class():
    """bm25s.BM25 with build_index_from_ids (its documented override point) taking (flat ids, lengths)."""
    global _FLAT_BM25
    if _FLAT_BM25 is None:
        import bm25s
        import numpy as np

        class FlatBM25(bm25s.BM25):
            def build_index_from_ids(self, unique_token_ids, corpus_token_ids, show_progress=True, leave_progress=False):
                flat, lens = corpus_token_ids
                if (self.method, self.idf_method, self.csc_backend) != ("lucene", "lucene", "numpy"):
                    docs = [d.tolist() for d in np.split(flat, np.cumsum(lens)[:-1])]
                    return super().build_index_from_ids(unique_token_ids, docs, show_progress, leave_progress)
                self.nonoccurrence_array = None  # as bm25s sets it for lucene
                return _lucene_scores(flat, lens, len(unique_token_ids), self.k1, self.b, self.dtype, self.int_dtype)

        _FLAT_BM25 = FlatBM25
    return _FLAT_BM25


def _lucene_scores(flat, lens, n_vocab: int, k1: float, b: float, dtype: str, int_dtype: str) -> dict:
    """bm25s's score matrix (CSC over tokens) with its arithmetic (kbstore.lexical.lucene_scores)."""
    from kbstore.lexical import lucene_scores

    return lucene_scores(flat, lens, n_vocab, k1, b, dtype, int_dtype)


class LexicalBuilder:
    """start(documents) now; build(keep, directory) later (blocks until the cache is written)."""

    def __init__(self, documents: list[str], *, workers: int | None = None):
        workers = workers or max(1, int(os.environ.get("KB_INGEST_WORKERS", os.cpu_count() or 1)))
        self.documents, self.proc, self.conn, self.froze = documents, None, None, False
        if workers >= 2 and len(documents) >= FORK_MIN:
            import multiprocessing

            ctx = multiprocessing.get_context("fork")
            self.conn, child = ctx.Pipe()
            self.proc = ctx.Process(target=_child, args=(documents, child), daemon=True, name="kb-freeze-bm25")
            # objects that exist now are left to reference counting until the child is done: a collection in
            # either process would write to every object's header, copying the pages both still share
            self.froze = gc.get_freeze_count() == 0  # (an application's own frozen objects are left as they are)
            if self.froze:
                gc.freeze()
            self.proc.start()
            child.close()

    @property
    def forked(self) -> bool:
        return self.proc is not None

    def build(self, keep: list[int], directory: Path) -> None:
        if self.proc is None:
            build_cache(token_ids(self.documents), keep, directory)
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
            if self.froze:
                gc.unfreeze()


def _child(documents: list[str], conn) -> None:
    try:
        tokens = token_ids(documents)
        keep, directory = conn.recv()
        build_cache(tokens, keep, Path(directory))
        conn.send((True, ""))
    except EOFError:  # the parent went away: nothing to build
        pass
    except BaseException as e:  # reported to the parent, which raises
        conn.send((False, f"{type(e).__name__}: {str(e)[:300]}"))
