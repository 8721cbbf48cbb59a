"""kbstore.lexical builds, saves, loads and scores BM25 without bm25s, and gets bm25s's index and scores exactly."""
import hashlib
import subprocess
import sys

import numpy as np

from kbstore.lexical import LexicalIndex, tokenize

DOCS = [
    "Mask drops the last column: tl.load(x_ptr + offs, mask=offs < n_cols) tail-localized",
    "",
    "the of and",  # stopwords only: indexed as `_empty_`
    "float16 accumulator drift in tl.sum; fix: acc = tl.zeros([BLOCK], tl.float32) numDims 3.25",
    "exp overflow: subtract the row max before tl.exp (softmax_lastdim) 1e-6 0.5 mask mask mask",
]
QUERIES = ["mask tail-localized column", "tl.exp overflow max max", "acc float32 tl.zeros", "nothing-matches-here", ""]


def _docs():
    from ingest.entry import lexical_text, pattern_from_record
    from ingest.synthetic import make_record

    return [lexical_text(pattern_from_record(make_record(i))) for i in range(40)] + DOCS


def _bm25s(docs):
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in (tokenize(d) or ["_empty_"])] for d in docs]
    index = bm25s.BM25()
    index.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    return index


def _digests(path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())}


def test_saved_index_is_bm25s_own_byte_for_byte(tmp_path):
    docs = _docs()
    LexicalIndex(docs).save(tmp_path / "ours")
    _bm25s(docs).save(str(tmp_path / "bm25s"), show_progress=False)
    assert _digests(tmp_path / "ours") == _digests(tmp_path / "bm25s")


def test_scores_equal_bm25s_built_and_loaded(tmp_path):
    docs = _docs()
    ours, ref = LexicalIndex(docs), _bm25s(docs)
    ours.save(tmp_path / "idx")
    loaded = LexicalIndex.load(tmp_path / "idx", len(docs))
    for q in QUERIES + docs[:5]:
        for distinct in (False, True):
            toks = [t for t in tokenize(q) if t in ref.vocab_dict]
            if distinct:
                toks = list(dict.fromkeys(toks))
            want = ref.get_scores(toks) if toks else np.zeros(len(docs), dtype=np.float32)
            assert np.array_equal(ours.scores(q, distinct=distinct), want), q
            assert np.array_equal(loaded.scores(q, distinct=distinct), want), q
    assert loaded.search("mask tail-localized", 3) == ours.search("mask tail-localized", 3)


def test_building_and_querying_do_not_import_bm25s():
    code = ("import sys; from kbstore.lexical import LexicalIndex; i = LexicalIndex(['tl.load mask', 'tl.exp max']); "
            "i.search('mask', 2); print('bm25s' in sys.modules, 'scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
