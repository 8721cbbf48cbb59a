"""Exact dense top-k in a warm process without reading every vector: cluster bounds over the resident matrix.

A process that answers many queries (`Retriever.open(resident=True)`: `kb server`, bench_kb's warm rows) clusters the
vectors once (a sample's rows as centroids, two assignment passes). A row v of cluster j scores q.v <= q.c_j +
|q| |v - c_j|, so once the depth-th best score theta of the rows scored so far is known, every cluster whose bound is
below theta (less a margin for float32 rounding) is skipped: its rows cannot reach the top. The rows kept are scored
by the same BLAS product as the full matrix's, so each score is the full product's, bit for bit (checked once when
the index is built: a machine whose BLAS gives a row another value in another place does not use the index). When the
bound keeps too many rows, or rows tie at the cut (which of them the full product's argpartition keeps is its own
choice), top() returns None and the caller scores every row, as before. Which rows come back, in which order, with
which scores, is therefore exactly kbstore.retrieve.top_finite's over the full product.
"""
from __future__ import annotations

import numpy as np

MIN_ROWS = 20_000  # below this the full product costs a few milliseconds: no index
ROWS_PER_CLUSTER = 100
MAX_CLUSTERS = 1024
BLOCK = 16  # rows: a multiple of the BLAS kernels' row blocks (checked at build), so a row takes the same kernel path
ASSIGN_CHUNK = 8192


class ClusterBound:
    def __init__(self, matrix: np.ndarray, seed: int = 0):
        from kbstore.vector import one_blas_thread

        n, dim = matrix.shape
        k = max(1, min(MAX_CLUSTERS, n // ROWS_PER_CLUSTER))
        rng = np.random.default_rng(seed)
        centroids = matrix[np.sort(rng.choice(n, k, replace=False))]
        assign = np.empty(n, dtype=np.int64)
        with one_blas_thread():
            for _ in range(2):
                for s in range(0, n, ASSIGN_CHUNK):
                    assign[s:s + ASSIGN_CHUNK] = np.argmax(matrix[s:s + ASSIGN_CHUNK] @ centroids.T, axis=1)
                sums = np.zeros((k, dim), dtype=np.float64)
                for s in range(0, n, ASSIGN_CHUNK):  # each chunk's rows summed cluster by cluster
                    a = assign[s:s + ASSIGN_CHUNK]
                    o = np.argsort(a, kind="stable")
                    used, first = np.unique(a[o], return_index=True)
                    sums[used] += np.add.reduceat(matrix[s:s + ASSIGN_CHUNK][o].astype(np.float64), first, axis=0)
                counts = np.bincount(assign, minlength=k)
                centroids = (sums / np.maximum(counts, 1)[:, None]).astype(np.float32)
        self.centroids = centroids.astype(np.float64)
        self.radius = np.zeros(k)
        norms = np.empty(n)
        for s in range(0, n, ASSIGN_CHUNK):
            block = matrix[s:s + ASSIGN_CHUNK].astype(np.float64)
            a = assign[s:s + ASSIGN_CHUNK]
            np.maximum.at(self.radius, a, np.linalg.norm(block - self.centroids[a], axis=1))
            norms[s:s + ASSIGN_CHUNK] = np.linalg.norm(block, axis=1)
        members = np.argsort(assign, kind="stable")  # positions, cluster by cluster, ascending within one
        # the rows in cluster order, each cluster padded with zero rows to whole blocks: a cluster's rows are one
        # contiguous product, every row of it on the BLAS kernel's main path, as in the full product
        padded = -(-counts // BLOCK) * BLOCK
        self.starts = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(padded, out=self.starts[1:])
        self.counts = counts
        slot = np.repeat(self.starts[:-1] - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(n)
        self.position = np.full(int(self.starts[-1]), -1, dtype=np.int64)  # slot -> position (-1: padding)
        self.position[slot] = members
        self.slot = np.empty(n, dtype=np.int64)  # position -> slot
        self.slot[members] = slot
        self.rows = np.zeros((int(self.starts[-1]), dim), dtype=np.float32)
        self.rows[slot] = matrix[members]
        self.max_norm = float(norms.max()) if n else 0.0
        self.n, self.tail = n, n - n % BLOCK
        # the last partial block of the full product takes the kernel's remainder path: those rows are kept apart
        self.tail_rows = np.ascontiguousarray(matrix[self.tail:])
        self.tail_cluster = assign[self.tail:]
        self.ok = self._self_check(matrix, rng)

    @classmethod
    def build(cls, matrix: np.ndarray) -> "ClusterBound | None":
        if len(matrix) < MIN_ROWS:
            return None
        index = cls(np.ascontiguousarray(matrix, dtype=np.float32))
        return index if index.ok else None

    def dense(self, q: np.ndarray) -> np.ndarray:
        """matrix @ q in position order, bit for bit, from the cluster-ordered rows."""
        from kbstore.vector import one_blas_thread

        with one_blas_thread():
            out = (self.rows @ q)[self.slot]
            if self.tail < self.n:
                out[self.tail:] = self.tail_rows @ q
        return out

    def _scores(self, q: np.ndarray, clusters: np.ndarray, allowed) -> tuple[np.ndarray, np.ndarray]:
        """(positions, scores) of these clusters' rows (allowed ones only): adjacent clusters as one product (the
        caller limits BLAS to one thread)."""
        clusters = np.sort(clusters)
        lo, hi = self.starts[clusters], self.starts[clusters + 1]
        brk = np.flatnonzero(lo[1:] != hi[:-1]) + 1  # runs of adjacent clusters
        pos, scores = [], []
        for a, b in zip(np.concatenate([[0], brk]).tolist(), np.concatenate([brk, [len(lo)]]).tolist()):
            x, y = int(lo[a]), int(hi[b - 1])
            pos.append(self.position[x:y])
            scores.append(self.rows[x:y] @ q)
        pos, scores = np.concatenate(pos), np.concatenate(scores)
        keep = pos >= 0
        if self.tail < self.n:
            keep &= pos < self.tail
        if allowed is not None:
            keep &= np.asarray(allowed)[np.maximum(pos, 0)]
        pos, scores = pos[keep], scores[keep]
        if self.tail < self.n:  # the full product's remainder rows, as it computes them
            chosen = np.zeros(len(self.counts), dtype=bool)
            chosen[clusters] = True
            t = np.arange(self.tail, self.n)[chosen[self.tail_cluster]]
            if allowed is not None:
                t = t[np.asarray(allowed)[t]]
            if len(t):
                tail = self.tail_rows @ q
                pos, scores = np.concatenate([pos, t]), np.concatenate([scores, tail[t - self.tail]])
        return pos, scores

    def _at(self, q: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """The full product's scores at these positions: their rows gathered, padded to whole blocks (the caller limits
        BLAS to one thread)."""
        out = np.empty(len(positions), dtype=np.float32)
        main = positions < self.tail
        if main.any():
            take = self.slot[positions[main]]
            pad = -len(take) % BLOCK
            if pad:
                take = np.concatenate([take, np.full(pad, take[0])])
            out[main] = (self.rows[take] @ q)[:int(main.sum())]
        if not main.all():
            out[~main] = (self.tail_rows @ q)[positions[~main] - self.tail]
        return out

    def _self_check(self, matrix: np.ndarray, rng) -> bool:
        """This BLAS gives every row the value the full product gives it, from the cluster-ordered rows (one query)."""
        from kbstore.vector import one_blas_thread

        q = matrix[int(rng.integers(0, self.n))] + rng.normal(0, 0.05, matrix.shape[1]).astype(np.float32)
        q = (q / np.linalg.norm(q)).astype(np.float32)
        with one_blas_thread():
            full = matrix @ q
            pos, scores = self._scores(q, np.arange(len(self.counts)), None)
            some = rng.permutation(self.n)[:max(BLOCK + 3, self.n // 8)]
            gathered = self._at(q, some)
        return bool(np.array_equal(self.dense(q), full) and np.array_equal(scores, full[pos])
                    and np.array_equal(gathered, full[some]))

    def top(self, qvec: np.ndarray, depth: int, allowed: np.ndarray | None = None) -> list[tuple[int, float]] | None:
        """kbstore.retrieve.top_finite(matrix @ q, depth, allowed), or None when the bound does not pay (see the module
        docstring)."""
        from kbstore.vector import one_blas_thread

        with one_blas_thread():
            return self._top(qvec, depth, allowed)

    def _top(self, qvec: np.ndarray, depth: int, allowed) -> list[tuple[int, float]] | None:
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        q64 = q.astype(np.float64)
        qn = float(np.linalg.norm(q64))
        # float32 dot products of 384 terms err by less than dim * 2**-24 * |q| |v|; doubled, and a floor
        margin = 2 * len(q) * 2.0 ** -24 * qn * max(self.max_norm, 1.0) + 1e-6
        if allowed is not None:
            allowed = np.asarray(allowed)
            chosen = np.flatnonzero(allowed)
            if len(chosen) * 16 <= self.n:  # a narrow filter: its rows alone, gathered
                if len(chosen) < depth:
                    return None
                return self._best(chosen, self._at(q, chosen), depth)
        bound = self.centroids @ q64 + self.radius * qn
        order = np.argsort(-bound, kind="stable")
        if allowed is None:
            counts = self.counts
        else:  # allowed rows per cluster (a trailing 0: empty clusters at the end)
            ok = (self.position >= 0) & np.asarray(allowed)[np.maximum(self.position, 0)]
            counts = np.add.reduceat(np.append(ok, False).astype(np.int64), self.starts[:-1]) * (self.counts > 0)
        cum = np.cumsum(counts[order])
        if not len(cum) or cum[-1] < depth or depth <= 0:
            return None
        first = order[:int(np.searchsorted(cum, depth)) + 1]
        _, scores = self._scores(q, first, allowed)
        theta = float(np.partition(scores, len(scores) - depth)[len(scores) - depth])
        keep = np.flatnonzero(bound >= theta - margin)
        if int(counts[keep].sum()) * 3 > self.n:
            return None  # the bound keeps too much: the full product is as cheap
        rows, scores = self._scores(q, keep, allowed)
        return self._best(rows, scores, depth)

    @staticmethod
    def _best(rows: np.ndarray, scores: np.ndarray, depth: int) -> list[tuple[int, float]] | None:
        """top_finite's selection over rows holding every row that can reach the top; None on ties at the cut."""
        top = np.argpartition(-scores, depth - 1)[:depth]
        kth = scores[top].min()
        if int(np.count_nonzero(scores == kth)) != int(np.count_nonzero(scores[top] == kth)):
            return None  # ties at the cut: which ones the full selection keeps is argpartition's choice
        top = top[np.lexsort((rows[top], -scores[top]))]
        return [(int(rows[i]), float(scores[i])) for i in top]
