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


def _texts() -> list[str]:
    """A few hundred texts like the KB's: entries' embed texts, long lexical texts (past the 256-token truncation),
    code, and the odd ones."""
    from ingest.entry import embed_text, lexical_text, pattern_from_record
    from ingest.synthetic import make_record

    patterns = [pattern_from_record(make_record(i)) for i in range(240)]
    return ([embed_text(p) for p in patterns] + [lexical_text(p) for p in patterns[:40]] +
            ["", "   ", "x", "  leading and trailing  ", "ÜNÏCÖDÉ テスト 🙂 中文 naïve", "mask " * 400,
             "tl.load(x_ptr + offs, mask=offs < n_cols, other=-float('inf'))", "nan-introduced at tail-columns"])


@pytest.mark.slow  # imports sentence-transformers (~8 s) and embeds ~300 texts twice
def test_numpy_runtime_gives_sentence_transformers_vectors():
    texts = _texts()
    ours, ref = MiniLMEmbedder(runtime="numpy"), MiniLMEmbedder(runtime="sentence-transformers")
    a, b = ours.embed(texts), ref.embed(texts)
    assert a.shape == b.shape == (len(texts), 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert float((a * b).sum(axis=1).min()) >= 0.9999
    one_by_one = np.concatenate([ours.embed([t]) for t in texts[:20]])  # batching (padding) changes nothing
    assert float((one_by_one * b[:20]).sum(axis=1).min()) >= 0.9999
    assert ours.fingerprint == ref.fingerprint == PACKAGED_FINGERPRINT


# The packaged model's fingerprint, recorded by every KB built with it: a change means those KBs refuse the embedder.
PACKAGED_FINGERPRINT = "c642ecd58cf7147712c667a4bedf6aca4383f5ecd33608fc438544e13a34cf27"


def test_minilm_loads_without_torch():
    import subprocess
    import sys

    code = ("import sys; from kbstore.embed import MiniLMEmbedder; v = MiniLMEmbedder().embed(['mask drops a column']); "
            "print(v.shape, [m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(1, 384) []"


def test_unknown_runtime_is_bad_input():
    with pytest.raises(BadInput, match="unknown MiniLM runtime"):
        MiniLMEmbedder(runtime="onnx")


def test_fingerprint_cache_follows_the_files(tmp_path, monkeypatch):
    import hashlib
    import os
    import time

    from kbstore import embed

    monkeypatch.setenv("KB_CACHE_DIR", str(tmp_path / "cache"))
    model = tmp_path / "model"
    (model / "1_Pooling").mkdir(parents=True)
    for rel in embed._FINGERPRINT_FILES:
        (model / rel).write_bytes(f"{rel} contents".encode())

    def direct() -> str:
        h = hashlib.sha256(b"nearmiss.minilm/v1\n")
        for rel in embed._FINGERPRINT_FILES:
            h.update(f"{rel} {hashlib.sha256((model / rel).read_bytes()).hexdigest()}\n".encode())
        return h.hexdigest()

    first = model_fingerprint(str(model))
    assert first == direct() and not embed.fingerprint_cache_path().exists()  # files this fresh are hashed again
    monkeypatch.setattr(embed, "_RACY_S", 0.0)
    model_fingerprint.cache_clear()
    assert model_fingerprint(str(model)) == first and embed.fingerprint_cache_path().is_file()
    model_fingerprint.cache_clear()
    assert model_fingerprint(str(model)) == first  # from the cache file
    time.sleep(0.05)  # past the clock tick of the files' times
    weights = model / "model.safetensors"
    st = weights.stat()
    weights.write_bytes(weights.read_bytes().upper())  # same size; the mtime put back: the ctime still moves
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    model_fingerprint.cache_clear()
    assert model_fingerprint(str(model)) == direct() != first
