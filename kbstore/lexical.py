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
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if m.lastgroup == "num":
            tokens.append(word)
            continue
        low = word.lower()
        if m.lastgroup == "label":
            tokens.append(low)
            tokens.extend(p for p in low.split("-") if p not in STOPWORDS)
            continue
        if low in STOPWORDS:
            continue
        tokens.append(low)
        names = word.split(".")
        if len(names) > 1:
            tokens.extend(n.lower() for n in names if n.lower() not in ("tl", "self"))
        for name in names:
            parts = _parts(name)
            if len(parts) > 1 or (parts and parts[0] != name.lower()):
                tokens.extend(p for p in parts if p not in STOPWORDS)
    return tokens


class LexicalIndex:
    """BM25 over a fixed list of documents; scores come back for every document (filters mask them)."""

    def __init__(self, documents: list[str]):
        import bm25s

        self.size = len(documents)
        self._bm25 = None
        if self.size:
            corpus = [tokenize(d) or ["_empty_"] for d in documents]
            self._bm25 = bm25s.BM25()
            self._bm25.index(corpus, show_progress=False)

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
