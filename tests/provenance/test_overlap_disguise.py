"""The planted copies are real code: disguised kernels still run and compute the same thing."""
import ast
import importlib.util

import pytest

import planted_corpus as corpus
from provenance import disguise as D


@pytest.mark.parametrize("op", list(corpus.originals()))
def test_every_disguise_parses(op):
    code = corpus.originals()[op]
    for name, transform in D.TRANSFORMS.items():
        ast.parse(transform(code, 3))
    ast.parse(D.paste(code, corpus.originals()["softmax"], 3))


def _model(code: str, path):
    import torch.nn as nn

    path.write_text(code)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cls = next(v for v in vars(mod).values()
               if isinstance(v, type) and issubclass(v, nn.Module) and v.__module__ == mod.__name__)
    return cls()


@pytest.mark.slow
@pytest.mark.parametrize("op,shapes", [("softmax", [(4, 100)]), ("log_softmax", [(3, 70)]), ("matmul", [(20, 24), (24, 18)])])
def test_semantic_disguises_compute_the_same(op, shapes, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    code = corpus.originals()[op]
    torch.manual_seed(0)
    inputs = [torch.randn(*s) for s in shapes]
    want = _model(code, tmp_path / f"{op}_orig.py")(*inputs)
    for name in ("rename", "reformat", "reorder", "disguise"):
        got = _model(D.TRANSFORMS[name](code, 5), tmp_path / f"{op}_{name}.py")(*inputs)
        assert torch.allclose(got, want, atol=1e-5), name
