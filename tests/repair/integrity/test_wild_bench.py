"""bench/bench_integrity_wild.py's own pieces: which class of a KernelBook problem is the model, and the manifest's
shape (every kernel names its module, call, inputs, reference and a label with its source)."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_integrity_wild", ROOT / "bench" / "bench_integrity_wild.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_model_is_the_last_module_class_with_a_concrete_forward(bench):
    code = '''
import torch.nn as nn
from abc import ABC, abstractmethod

class Base(nn.Module, ABC):
    @abstractmethod
    def forward(self, factors):
        pass

class Helper(nn.Module):
    def forward(self, a, b):
        return a + b

class Norm(Base):
    def forward(self, factors):
        return factors
'''
    assert bench._model_class(code) == ("Norm", 1)  # the abstract base first could not be built
    assert bench._model_class(code.replace("class Norm(Base)", "class Norm(object)")) == ("Helper", 2)


def test_the_manifest_names_what_each_kernel_needs(bench):
    import yaml

    data = yaml.safe_load(bench.MANIFEST.read_text())
    kernels = [(name, k) for name, src in data["sources"].items() for k in src["kernels"]]
    assert len(kernels) >= 30
    for name, k in kernels:
        assert {"id", "module", "call", "inputs", "reference", "label"} <= set(k), (name, k.get("id"))
        assert data["sources"][name].get("label_source") or k.get("label_source"), name
    ids = [f"{n}/{k['id']}" for n, k in kernels]
    assert len(ids) == len(set(ids))
