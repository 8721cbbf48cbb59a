import numpy as np
import pytest

from kbstore.embed import HashEmbedder, MiniLMEmbedder, get_embedder, model_fingerprint
from kbstore.errors import BadInput


def test_hash_embedder_is_deterministic_normalised_and_384d():
    e = HashEmbedder()
    a = e.embed(["mask drops the last column", "exp overflows to inf"])
    assert a.shape == (2, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert np.array_equal(a, HashEmbedder().embed(["mask drops the last column", "exp overflows to inf"]))
    near = e.embed(["the mask drops the final column"])[0]
    assert near @ a[0] > near @ a[1]
    assert len(e.fingerprint) == 64


def test_registry_by_name_and_env(monkeypatch):
    monkeypatch.setenv("KB_EMBEDDER", "hash")
    assert get_embedder().name == "hash"
    assert get_embedder("hash") is get_embedder("hash")
    with pytest.raises(BadInput, match="unknown embedder"):
        get_embedder("word2vec")


@pytest.mark.slow
def test_packaged_minilm_offline():
    e = MiniLMEmbedder()
    v = e.embed(["Mask drops the last column", "the final column is never stored by the mask", "grid rounds down"])
    assert v.shape == (3, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2]
    assert e.fingerprint == model_fingerprint(str(e.model_dir)) and len(e.fingerprint) == 64
