"""kbstore.clusters: the cluster-bounded dense search returns exactly what top_finite returns over the full product
(same positions, order and float32 scores), with and without filters, over rows in clusters (where the bound prunes)
and including the last partial block; ties at the cut fall back to the full product; a resident retriever that uses
the bound answers as every row loaded."""
import numpy as np
import pytest

from kbstore import clusters
from kbstore.clusters import ClusterBound
from kbstore.retrieve import top_finite
from kbstore.vector import one_blas_thread


def _full(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The full product as every dense path computes it (one BLAS thread)."""
    with one_blas_thread():
        return m @ q


def _clustered(n: int, dim: int = 384, groups: int = 40, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((groups, dim)).astype(np.float32)
    m = centers[rng.integers(0, groups, n)] + 0.15 * rng.standard_normal((n, dim)).astype(np.float32)
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def small_index(monkeypatch):
    monkeypatch.setattr(clusters, "ROWS_PER_CLUSTER", 25)
    monkeypatch.setattr(clusters, "ASSIGN_CHUNK", 1000)  # several chunks, as at 100k
    m = _clustered(3001)  # 3001 = 46 blocks of 64 and a partial one of 57 rows
    index = ClusterBound(m)
    assert index.ok
    return m, index


def test_the_bound_returns_the_full_products_top_exactly(small_index):
    m, index = small_index
    rng = np.random.default_rng(7)
    allowed = rng.random(len(m)) < 0.3  # scored through the clusters
    narrow = rng.random(len(m)) < 0.05  # its rows alone, gathered
    assert np.array_equal(index.dense(m[5]), _full(m, m[5]))
    pruned = 0
    for i in range(40):
        q = m[int(rng.integers(0, len(m)))] + 0.1 * rng.standard_normal(m.shape[1]).astype(np.float32)
        q /= np.linalg.norm(q)
        if i % 10 == 0:
            q = m[len(m) - 1 - i]  # a row of the last partial block, itself the best hit
        for mask in (None, allowed, narrow):
            want = top_finite(_full(m, q), 50, mask)
            got = index.top(q, 50, mask)
            assert got is not None and got == want, (i, mask is not None)
            pruned += 1
    assert pruned == 120


def test_ties_at_the_cut_fall_back_to_the_full_product(small_index):
    m, _ = small_index
    dup = np.concatenate([m[:2000], np.repeat(m[2000:2001], 1001, axis=0)])  # 1001 equal rows
    index = ClusterBound(dup)
    assert index.top(dup[2000], 50) is None  # which 50 of the 1001 the full selection keeps is not the bound's to say
    q = dup[10]
    assert index.top(q, 5) == top_finite(_full(dup, q), 5)


def test_a_resident_retriever_using_the_bound_answers_as_every_row_loaded(tmp_path, kb_env, monkeypatch):
    from ingest.api import ingest
    from ingest.synthetic import make_record, write_records
    from kbstore.paths import KBPaths
    from kbstore.retrieve import Retriever, load_corpus
    from kbstore.store import Store
    from repair.rules.build_starter import STARTER_DIR
    from test_kb_mapped import FILTERS, _answers, CLASSES
    from ingest.synthetic import kernel_pair

    monkeypatch.setattr(clusters, "MIN_ROWS", 0)
    monkeypatch.setattr(clusters, "ROWS_PER_CLUSTER", 4)
    ingest([STARTER_DIR])
    write_records(tmp_path / "v2", [make_record(i) for i in range(40)])
    ingest([tmp_path / "v2"])
    warm = Retriever.open(kb_env, resident=True)
    assert warm.corpus._bound is not None and len(warm.corpus._bound.counts) > 1
    with Store.open(KBPaths.of(kb_env)) as store:
        loaded = Retriever(load_corpus(store), warm.embedder)
    code = kernel_pair(3, CLASSES[2])[0]
    for filters in FILTERS:
        for c in (None, code):
            assert _answers(warm, c, **filters) == _answers(loaded, c, **filters), filters
