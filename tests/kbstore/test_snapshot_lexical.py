"""The snapshot BM25 cache: kbstore.lexical's tokens, and bm25s's own index byte for byte, built faster."""
import hashlib

import numpy as np
import pytest

from kbstore import snapshot_lexical as SL
from kbstore.lexical import tokenize

DOCS = [
    "Mask drops the last column: tl.load(x_ptr + offs, mask=offs < n_cols) tail-localized",
    "",
    "the of and",  # stopwords only: no token, like an empty document
    "float16 accumulator drift in tl.sum; fix: acc = tl.zeros([BLOCK], tl.float32) numDims 3.25",
    "_empty_ is also a word; camelCaseName HTTPServer x_ptr self.block",
    "exp overflow: subtract the row max before tl.exp (softmax_lastdim) 1e-6 0.5",
    "only-in-excluded zzyzx",
]


def _reference(docs):
    """Tokenising document after document (what token_ids replaced)."""
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in tokenize(d)] or [vocab.setdefault("_empty_", len(vocab))]
           for d in docs]
    return vocab, ids


def _bm25s_index(vocab, ids, keep, directory):
    """bm25s's own build over the kept documents, vocabulary compacted as build_cache does."""
    import bm25s

    from kbstore.lexical import LexicalIndex

    docs = [ids[i] for i in keep]
    used = sorted({t for d in docs for t in d})
    words = [w for w, i in vocab.items() if i in set(used)]
    new = {vocab[w]: n for n, w in enumerate(words)}
    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenization.Tokenized(ids=[[new[t] for t in d] for d in docs], vocab={w: n for n, w in enumerate(words)}),
               show_progress=False)
    index = LexicalIndex.from_tokens([])
    index._set(len(docs), bm25)
    index.save(directory)


def _digests(path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.iterdir())}


def _corpus():
    from ingest.entry import lexical_text, pattern_from_record
    from ingest.synthetic import make_record

    return [lexical_text(pattern_from_record(make_record(i))) for i in range(60)] + DOCS


def test_token_ids_are_the_tokenizer_s_in_first_use_order():
    docs = _corpus()
    vocab, ids = _reference(docs)
    tokens = SL.token_ids(docs)
    assert list(tokens.vocab.items()) == list(vocab.items())
    keep = [i for i in range(len(docs)) if i % 4 != 2]
    flat, lens = tokens.documents(keep)
    assert lens.tolist() == [len(ids[i]) for i in keep]
    assert flat.tolist() == [t for i in keep for t in ids[i]]


@pytest.mark.parametrize("every", [1, 3])
def test_the_cache_is_bm25s_own_index_byte_for_byte(tmp_path, every):
    docs = _corpus()
    keep = [i for i in range(len(docs)) if i % every == 0 and docs[i] != DOCS[-1]]
    SL.build_cache(SL.token_ids(docs), keep, tmp_path / "ours")
    _bm25s_index(*_reference(docs), keep, tmp_path / "bm25s")
    assert _digests(tmp_path / "ours") == _digests(tmp_path / "bm25s")
    assert len(_digests(tmp_path / "ours")) == 5
    assert "zzyzx" not in (tmp_path / "ours" / "vocab.index.json").read_text()


def test_other_bm25_variants_fall_back_to_bm25s(tmp_path):
    import bm25s

    _, ids = _reference(_corpus())
    lens = np.array([len(d) for d in ids])
    flat = np.array([t for d in ids for t in d])
    vocab = {str(i): i for i in range(int(flat.max()) + 1)}
    ours = SL._flat_bm25_class()(method="bm25+")
    ours.index(bm25s.tokenization.Tokenized(ids=(flat, lens), vocab=dict(vocab)), show_progress=False)
    theirs = bm25s.BM25(method="bm25+")
    theirs.index(bm25s.tokenization.Tokenized(ids=ids, vocab=dict(vocab)), show_progress=False)
    for key in ("data", "indices", "indptr"):
        assert np.array_equal(ours.scores[key], theirs.scores[key])


def test_nothing_kept_saves_an_empty_cache(tmp_path):
    SL.build_cache(SL.token_ids(DOCS), [], tmp_path / "none")
    assert (tmp_path / "none").is_dir() and not any((tmp_path / "none").iterdir())
