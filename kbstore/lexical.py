"""Lexical retrieval: BM25 (bm25s's lucene index, built, loaded and scored here in numpy) over code-aware tokens.

Tokens keep what matters in kernel code and diagnostics: dotted ops whole and in parts (`tl.load`,
`load`), identifiers whole and split on snake_case/camelCase (`n_cols`, `cols`), hyphenated symptom
labels whole and in parts (`tail-localized`, `tail`), numbers; English filler words are dropped.
"""
from __future__ import annotations

import math
import re

import numpy as np

_TOKEN = re.compile(
    r"(?P<label>[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*)+)"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)"
    r"|(?P<num>\d+(?:\.\d+)?)"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOPWORDS = frozenset(
    "a an and are as at be by for from has have in into is it its not of on or so that the then this to was "
    "were which with".split())


def _parts(ident: str) -> list[str]:
    out = []
    for piece in ident.split("_"):
        out.extend(p.lower() for p in _CAMEL.findall(piece))
    return out


def tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    cache = _WORD_TOKENS
    for groups in _TOKEN.findall(text):  # (label, ident, num): exactly one is non-empty
        got = cache.get(groups)
        if got is None:
            if len(cache) > _WORD_CACHE_MAX:
                cache.clear()
            label, ident, num = groups
            got = cache[groups] = _word_tokens("label" if label else "ident" if ident else "num", label or ident or num)
        tokens.extend(got)
    return tokens


# Kernel code repeats its words: caching each word's tokens made tokenising ~4x faster on KB text.
_WORD_TOKENS: dict[tuple[str, str, str], tuple[str, ...]] = {}
_WORD_CACHE_MAX = 200_000


def _word_tokens(kind: str, word: str) -> tuple[str, ...]:
    if kind == "num":
        return (word,)
    low = word.lower()
    if kind == "label":
        return (low, *(p for p in low.split("-") if p not in STOPWORDS))
    if low in STOPWORDS:
        return ()
    tokens = [low]
    names = word.split(".")
    if len(names) > 1:
        tokens.extend(n.lower() for n in names if n.lower() not in ("tl", "self"))
    for name in names:
        parts = _parts(name)
        if len(parts) > 1 or (parts and parts[0] != name.lower()):
            tokens.extend(p for p in parts if p not in STOPWORDS)
    return tuple(tokens)


def _bm25(tokens: list[list[str]]) -> "_Scores":
    """The lucene BM25 index of token lists, as bm25s.BM25().index() makes it (byte for byte; tested), in numpy:
    importing bm25s (scipy.sparse) cost ~0.3 s of every cold `kb query`, and its per-document loop ~5 s at 100k."""
    vocab: dict[str, int] = {}
    lens = np.fromiter((len(doc) or 1 for doc in tokens), dtype=np.int64, count=len(tokens))
    flat = np.fromiter((vocab.setdefault(t, len(vocab)) for doc in tokens for t in (doc or ["_empty_"])),
                       dtype=np.int64, count=int(lens.sum()))
    scores = lucene_scores(flat, lens, len(vocab), K1, B, "float32", "int32")
    if "" not in vocab:  # bm25s's create_empty_token, kept so that a saved index is bm25s's own
        vocab[""] = max(vocab.values()) + 1
    return _Scores(scores, vocab)


K1, B = 1.5, 0.75  # bm25s's defaults


def lucene_scores(flat, lens, n_vocab: int, k1: float, b: float, dtype: str, int_dtype: str) -> dict:
    """bm25s's score matrix (CSC over tokens) for documents given as one token-id array and their lengths, with its
    arithmetic: lucene idf in Python floats, float64 term weights rounded to dtype."""
    n_docs = len(lens)
    avg_doc_len = np.asarray(lens).mean()
    pairs = flat * n_docs
    pairs += np.repeat(np.arange(n_docs), lens)
    pairs.sort()  # (token, document), as the CSC is ordered
    first = np.ones(len(pairs), dtype=bool)
    np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    tf = np.diff(np.append(starts, len(pairs))).astype(dtype).astype(np.float64)
    token, doc = pairs[starts] // n_docs, pairs[starts] % n_docs
    df = np.bincount(token, minlength=n_vocab)
    idf = np.zeros(n_vocab, dtype=dtype)
    for t, d in enumerate(df.tolist()):
        if d:
            idf[t] = math.log(1 + (n_docs - d + 0.5) / (d + 0.5))  # bm25s.scoring._score_idf_lucene
    norm = k1 * ((1 - b) + b * lens[doc].astype(np.float64) / avg_doc_len)
    weights = idf[token].astype(np.float64) * (tf / (norm + tf))
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return {"data": weights.astype(dtype), "indices": doc.astype(int_dtype), "indptr": indptr, "num_docs": n_docs}


class _Scores:
    """What this module reads of a bm25s.BM25 (its score matrix and vocabulary): one built here, or loaded."""

    def __init__(self, scores: dict, vocab_dict: dict[str, int]):
        self.scores, self.vocab_dict = scores, vocab_dict


_FILES = ("data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy")


class LexicalIndex:
    """BM25 over a fixed list of documents; scores come back for every document (filters mask them)."""

    def __init__(self, documents: list[str]):
        self._set(len(documents), _bm25([tokenize(d) for d in documents]) if documents else None)

    def _set(self, size: int, bm25) -> None:
        """bm25: a bm25s.BM25 or a _Scores (anything with .scores and .vocab_dict), or None when empty."""
        self.size, self._bm25 = size, bm25

    @classmethod
    def from_tokens(cls, tokens: list[list[str]]) -> "LexicalIndex":
        """From documents already tokenized."""
        index = cls.__new__(cls)
        index._set(len(tokens), _bm25(tokens) if tokens else None)
        return index

    def save(self, directory) -> None:
        """bm25s's own files (a snapshot's lexical cache); an empty index saves nothing but the directory."""
        from pathlib import Path

        Path(directory).mkdir(parents=True, exist_ok=True)
        if self._bm25 is None:
            return
        bm25 = self._bm25
        if isinstance(bm25, _Scores):
            import bm25s

            bm25 = bm25s.BM25()
            bm25.scores, bm25.vocab_dict, bm25.nonoccurrence_array = self._bm25.scores, self._bm25.vocab_dict, None
        bm25.save(str(directory), show_progress=False)

    @classmethod
    def load(cls, directory, size: int) -> "LexicalIndex":
        """A saved index, memory-mapped (read only: loading writes nothing). A lucene index (what this module and
        kb freeze write) is read here; another variant through bm25s."""
        import json
        from pathlib import Path

        index = cls.__new__(cls)
        if not size:
            index._set(0, None)
            return index
        d = Path(directory)
        params = json.loads((d / "params.index.json").read_text(encoding="utf-8"))
        if params.get("method") != "lucene" or (d / "nonoccurrence_array.index.npy").exists():
            import bm25s

            index._set(size, bm25s.BM25.load(str(d)))
            return index
        data, indices, indptr = (np.load(d / name, mmap_mode="r", allow_pickle=False) for name in _FILES)
        vocab = json.loads((d / "vocab.index.json").read_text(encoding="utf-8"))
        scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": params["num_docs"]}
        index._set(size, _Scores(scores, vocab))
        return index

    def scores(self, query: str, *, distinct: bool = False) -> np.ndarray:
        out = np.zeros(self.size, dtype=np.float32)
        if not self._bm25:
            return out
        vocab = self._bm25.vocab_dict
        ids = [vocab[t] for t in tokenize(query) if t in vocab]
        if distinct:
            ids = list(dict.fromkeys(ids))
        if getattr(self._bm25, "nonoccurrence_array", None) is not None:  # a bm25+/bm25l cache: bm25s scores it
            return np.asarray(self._bm25.get_scores(ids), dtype=np.float32) if ids else out
        s = self._bm25.scores
        data, indices, indptr = s["data"], s["indices"], s["indptr"]
        for t in ids:  # bm25s's own accumulation (float32, token by token), without importing it
            np.add.at(out, indices[indptr[t]:indptr[t + 1]], data[indptr[t]:indptr[t + 1]])
        return out

    def search(self, query: str, k: int, allowed: np.ndarray | None = None, *,
               distinct: bool = False) -> list[tuple[int, float]]:
        """[(row, bm25 score)] best first, only rows with a positive score."""
        scores = self.scores(query, distinct=distinct)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        positive = int((scores > 0).sum())
        k = min(k, positive)
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [(int(i), float(scores[i])) for i in top]
