from kbstore.lexical import LexicalIndex, tokenize


def test_code_aware_tokens():
    toks = tokenize("mask = offs < n_cols - 1; x = tl.load(x_ptr, mask=mask) tail-localized softmaxKernel")
    for t in ("tl.load", "load", "n_cols", "cols", "x_ptr", "ptr", "tail-localized", "tail", "localized",
              "softmaxkernel", "softmax", "kernel", "1"):
        assert t in toks, t
    assert "tl" not in toks and "the" not in tokenize("the mask")


def test_bm25_ranks_the_matching_snippet_first_and_respects_masks():
    import numpy as np

    idx = LexicalIndex(["x = tl.load(p, mask=m)", "y = tl.exp(x - tl.max(x))", "grid = triton.cdiv(n, BLOCK)"])
    assert idx.search("tl.exp overflow", 3)[0][0] == 1
    assert idx.search("tl.exp", 3, allowed=np.array([True, False, True])) == []
    assert LexicalIndex([]).search("anything", 3) == []
