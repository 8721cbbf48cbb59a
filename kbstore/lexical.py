"""Lexical retrieval: BM25 (bm25s) over code-aware tokens.

Tokens keep what matters in kernel code and diagnostics: dotted ops whole and in parts (`tl.load`,
`load`), identifiers whole and split on snake_case/camelCase (`n_cols`, `cols`), hyphenated symptom
labels whole and in parts (`tail-localized`, `tail`), numbers; English filler words are dropped.
"""
from __future__ import annotations

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


def _bm25(tokens: list[list[str]]):
    """A bm25s index from token lists, mapped to ids here: bm25s's own string pass was 6x slower at 100k documents."""
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in (doc or ["_empty_"])] for doc in tokens]
    index = bm25s.BM25()
    index.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    return index


class LexicalIndex:
    """BM25 over a fixed list of documents; scores come back for every document (filters mask them)."""

    def __init__(self, documents: list[str]):
        self._set(len(documents), _bm25([tokenize(d) for d in documents]) if documents else None)

    def _set(self, size: int, bm25) -> None:
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
        if self._bm25 is not None:
            self._bm25.save(str(directory))

    @classmethod
    def load(cls, directory, size: int) -> "LexicalIndex":
        """A saved index (read only: loading writes nothing)."""
        import bm25s

        index = cls.__new__(cls)
        index._set(size, bm25s.BM25.load(str(directory)) if size else None)
        return index

    def scores(self, query: str, *, distinct: bool = False) -> np.ndarray:
        if not self._bm25:
            return np.zeros(self.size, dtype=np.float32)
        vocab = self._bm25.vocab_dict
        tokens = [t for t in tokenize(query) if t in vocab]
        if distinct:
            tokens = list(dict.fromkeys(tokens))
        if not tokens:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float32)

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
