"""kbstore: the knowledge base. DuckDB is the truth; chromadb and BM25 are derived indexes.

Public names (import them from their modules; this package imports nothing heavy on its own):
  kbstore.paths.resolve_kb_path, KBPaths             state root (--kb, $KB_PATH, ~/.local/share/nearmiss/kb)
  kbstore.store.Store                                 DuckDB source of truth
  kbstore.lock.write_lock                             one writer at a time
  kbstore.embed.get_embedder, HashEmbedder, MiniLMEmbedder, Embedder
  kbstore.retrieve.Retriever, Hit, search             hybrid dense + BM25 retrieval
  kbstore.server.start, status, stop, query           `kb server`: a warm process per KB that answers queries
  kbstore.index.reindex, kbstore.verify.verify, kbstore.views.log/show, kbstore.export.export
  kbstore.errors.*                                    typed errors with exit codes
"""
