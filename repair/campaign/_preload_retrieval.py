"""Fork-server preload for campaigns that retrieve patterns: load the embedding model once.

Imported only by the local executor's fork server (`set_forkserver_preload`), so that every run forked from
it shares the loaded weights instead of spending seconds importing sentence-transformers and reading the
model; loading is this module's whole purpose. No inference runs here: torch's thread pools must not be
started before the fork.
"""
from kbstore.embed import get_embedder

_embedder = get_embedder()
_load = getattr(_embedder, "_load", None)
if _load is not None:
    _load()
_embedder.fingerprint  # noqa: B018 - hashes the weights once (cached per process)
