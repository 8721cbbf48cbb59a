"""AscendC in the overlap check: read as its own language, its op stream on Triton's vocabulary, its kernel template
left out of the tokens; renamed copies and ports are found, other operators on the same template are not.

data/ascendc/ holds kernels written for these tests: ports/ (AscendC ports of three Triton examples, one in the
six-source format), renamed/ (examples/ascendc kernels with every identifier renamed, comments dropped, braces
moved) and independent/ (other operators on the same Init/Process/CopyIn/Compute/CopyOut + TQue template).
"""
import hashlib
import json
from pathlib import Path

import pytest

from provenance.ascendc import blank
from provenance.errors import StaleFingerprint
from provenance.fingerprint import SCHEME, fingerprints, kernel_units, token_stream
from provenance.fingerprint_store import pack_fingerprints, refreshed, unpack_fingerprints
from provenance.opstream import ops_of
from provenance.overlap import OverlapIndex
from provenance.parsing import code_language, language_key, normalize_language, parse

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
DATA = Path(__file__).parent / "data" / "ascendc"


def kernel(op: str) -> Path:
    """An examples/ascendc operator's kernel file (its NPUKernelBench answer)."""
    return next((EX / "ascendc" / op / "answer" / "0" / "op_kernel").glob("*.cpp"))


COHORT = {
    "ascendc/softmax": EX / "ascendc" / "softmax" / "correct.py",  # the six-source format
    "ascendc/layer_norm": kernel("layer_norm"),
    "ascendc/row_sum": kernel("row_sum"),
    "softmax": EX / "softmax" / "correct.py",
    "log_softmax": EX / "log_softmax" / "correct.py",
    "tanh_scaled": EX / "tanh_scaled" / "correct.py",
}
COPIES = {  # entry -> (the cohort file it copies, the representation that finds it)
    "renamed/layer_norm__renamed.cpp": ("ascendc/layer_norm", "tokens"),
    "renamed/softmax__renamed.cpp": ("ascendc/softmax", "tokens"),
    "ports/softmax__port.cpp": ("softmax", "ops"),
    "ports/log_softmax__port.cpp": ("log_softmax", "ops"),
    "ports/tanh_scaled__port.py": ("tanh_scaled", "ops"),
}
INDEPENDENT = [DATA / "independent" / f"{n}.cpp" for n in ("mul", "gelu", "swish", "rms_norm")] + \
    [kernel(op) for op in ("add", "bias_add", "cast")]


def _lang(p: Path) -> str:
    return "python" if p.suffix == ".py" else "cpp"  # as a cohort manifest names files: by their extension


@pytest.fixture(scope="module")
def index():
    """The cohort as a freeze indexes it: an operator's files in every language under one operator id."""
    return OverlapIndex.build({k: (p.read_text(), _lang(p)) for k, p in COHORT.items()},
                              operators={k: k.split("/")[-1] for k in COHORT})


def _flagged(index, path: Path):
    return [m for m in index.match(path.name, {"source": fingerprints(path.read_text(), _lang(path))}) if m.flagged]


# -- reading AscendC ------------------------------------------------------------------------------------------------

def test_ascendc_is_told_by_its_content_whatever_the_file_is_called():
    assert code_language(kernel("add").read_text(), "cpp") == "ascendc"
    assert code_language(COHORT["ascendc/softmax"].read_text(), "python") == "ascendc"  # six sources
    assert code_language((DATA / "ports" / "tanh_scaled__port.py").read_text(), "triton") == "ascendc"
    assert code_language((ROOT / "tests/provenance/data/ports/layernorm__warp.cu").read_text(), "cuda") == "cpp"
    assert code_language(COHORT["softmax"].read_text(), "triton") == "python"
    assert code_language('kernel_src = """__global__ void k() {}"""\n', "python") == "python"  # CUDA, not AscendC
    assert normalize_language("AscendC") == normalize_language("ascend-c") == "ascendc"
    assert [language_key(x) for x in ("AscendC", "ascend_c", "Triton")] == ["ascendc", "ascendc", "triton"]


def test_blanked_source_parses_cleanly_at_its_own_offsets():
    code = kernel("layer_norm").read_text()
    assert parse(code, "cpp").root_node.has_error  # the qualifiers confuse plain C++
    assert not parse(code, "ascendc").root_node.has_error
    assert len(blank(code)[0].encode()) == len(code.encode())


def test_a_six_source_file_is_read_as_its_cpp_at_the_file_lines():
    code = COHORT["ascendc/softmax"].read_text()
    line = next(n for n, x in enumerate(code.splitlines(), 1) if x.startswith("class KernelSoftmaxCustom"))
    assert [(name, at) for name, _, at in kernel_units(code, "python")] == [("KernelSoftmaxCustom", line)]
    tokens = fingerprints(code, "python")[0]
    assert tokens.language == "ascendc" and tokens.hashes
    assert min(tokens.line_start) > next(n for n, x in enumerate(code.splitlines(), 1) if x.startswith("kernel_src"))


# -- the op stream --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("port, triton", [("softmax__port.cpp", "softmax"), ("log_softmax__port.cpp", "log_softmax"),
                                          ("tanh_scaled__port.py", "tanh_scaled")])
def test_a_port_has_the_triton_kernels_op_stream(port, triton):
    p = DATA / "ports" / port
    assert ops_of(p.read_text(), _lang(p)) == ops_of(COHORT[triton].read_text(), "triton")


def test_the_example_kernels_run_in_process_order_with_loads_at_their_use():
    assert ops_of(kernel("softmax").read_text(), "cpp") == ops_of(COHORT["softmax"].read_text(), "triton")
    # the tail tile calls CopyIn/Compute/CopyOut again: the same computation, walked once
    assert ops_of(kernel("add").read_text(), "cpp") == ["LOAD", "LOAD", "ADD", "STORE"]
    # gamma and beta are copied in before the row loop and used last: loaded where used, as in Triton
    assert ops_of(kernel("layer_norm").read_text(), "cpp")[-5:] == ["LOAD", "MUL", "LOAD", "ADD", "STORE"]


def test_vector_calls_map_onto_the_vocabulary():
    body = """
class K {
public:
    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y, uint32_t n, uint32_t tiles) {
        xGm.SetGlobalBuffer((__gm__ float *)x);
        yGm.SetGlobalBuffer((__gm__ float *)y);
        Duplicate(acc, 0.0f, n);
        for (uint32_t t = 0; t < tiles; t++) {
            DataCopy(a, xGm[t * n], n);
            Muls(a, a, 0.5f, n);
            Add(acc, acc, a, n);
        }
        ReduceSum(r, acc, w, n);
        Duplicate(half, 2.0f, n);
        Div(b, acc, half, n);
        Cast(c, b, RoundMode::CAST_NONE, n);
        Maxs(c, c, 0.0f, n);
        DataCopy(yGm, c, n);
    }
    GlobalTensor<float> xGm, yGm;
};
"""
    assert ops_of(body, "ascendc") == ["LOAD", "K:0.5", "MUL", "REDUCE_SUM", "K:2.0", "DIV", "K:0.0", "MAX", "STORE"]


# -- tokens: the template is not the kernel ----------------------------------------------------------------------------

def test_the_template_is_left_out_of_the_tokens():
    for op in ("add", "cast"):  # all template but one vector call: too short for a k-gram
        assert fingerprints(kernel(op).read_text(), "cpp")[0].hashes == []
    a, b = (token_stream(parse(p.read_text(), "ascendc").root_node, "ascendc")[0]
            for p in (kernel("layer_norm"), DATA / "renamed" / "layer_norm__renamed.cpp"))
    assert a == b and "id:ReduceSum" in a and "id:InitBuffer" not in a and "id:DataCopyPad" not in a


@pytest.mark.parametrize("entry", sorted(COPIES))
def test_renamed_copies_and_ports_are_flagged(index, entry):
    cohort_file, representation = COPIES[entry]
    assert (cohort_file, representation) in {(m.cohort_file, m.representation) for m in _flagged(index, DATA / entry)}


@pytest.mark.parametrize("path", INDEPENDENT, ids=lambda p: p.stem)
def test_other_operators_on_the_same_template_are_not_flagged(index, path):
    assert _flagged(index, path) == []


def test_a_kernel_class_pasted_into_another_six_source_file_is_found(index):
    host = (EX / "ascendc" / "add" / "correct.py").read_text()
    pasted = (DATA / "renamed" / "layer_norm__renamed.cpp").read_text().split("class RowNormKernel", 1)[1]
    cls = "class RowNormKernel" + pasted.split("extern")[0]
    code = host.replace('\nkernel_src = r"""\n', '\nkernel_src = r"""\n' + cls + "\n", 1)
    hits = index.match("pasted", {"source": fingerprints(code, "python")})
    assert any(m.flagged and m.cohort_file == "ascendc/layer_norm" for m in hits)


def test_a_kernel_that_is_one_vector_call_is_left_to_the_provenance_rule(index):
    """Known limit: a row sum is its template and one ReduceSum, so a renamed copy shares too few computing tokens
    to be told from another operator on the template; only an unrenamed copy (its sha256) is excluded."""
    assert _flagged(index, DATA / "renamed" / "row_sum__renamed.cpp") == []


# -- the scheme ----------------------------------------------------------------------------------------------------

GOLDEN_TS1 = {  # digests of ts1 fingerprints (fixed): ts2 changed AscendC only
    "examples/softmax/correct.py": ("triton", "6687c699cf3916d6"),
    "tests/provenance/data/ports/softmax.c": ("c", "8494abcd9a92ed9a"),
    "tests/provenance/data/ports/layernorm__warp.cu": ("cuda", "b957aaf5e653ab85"),
}


def _digest(fps) -> str:
    return hashlib.sha256(json.dumps([[f.representation, f.language, f.k, f.w, f.n_tokens, f.hashes, f.positions,
                                       f.line_start, f.line_end] for f in fps]).encode()).hexdigest()[:16]


@pytest.mark.parametrize("path", sorted(GOLDEN_TS1))
def test_triton_c_and_cuda_fingerprints_are_those_of_ts1(path):
    language, digest = GOLDEN_TS1[path]
    assert _digest(fingerprints((ROOT / path).read_text(), language)) == digest


def _stamped(fps, scheme: str) -> bytes:
    return pack_fingerprints([f.model_copy(update={"scheme": scheme}) for f in fps])


def test_stored_fingerprints_of_ts1_are_refused_then_refreshed(index):
    triton = COHORT["softmax"].read_text()
    port = (DATA / "ports" / "softmax__port.cpp").read_text()
    old_triton = _stamped(fingerprints(triton, "triton"), "ts1")
    old_port = _stamped([f.model_copy(update={"language": "cpp", "hashes": [], "positions": [], "line_start": [],
                                              "line_end": []}) for f in fingerprints(port, "ascendc")], "ts1")
    with pytest.raises(StaleFingerprint):
        index.scan([("e", {"source": old_triton})])
    # Triton's are restamped as they are; the AscendC one is recomputed from its code
    assert refreshed(old_triton, triton, "triton") == pack_fingerprints(fingerprints(triton, "triton"))
    assert refreshed(old_port, port, "ascendc") == pack_fingerprints(fingerprints(port, "ascendc"))
    assert unpack_fingerprints(refreshed(old_port, port, "ascendc"))[0].language == "ascendc"
    current = pack_fingerprints(fingerprints(triton, "triton"))
    assert refreshed(current, triton, "triton") is current and SCHEME != "ts1"
    unknown = _stamped(fingerprints(triton, "triton"), "ts0")
    assert refreshed(unknown, triton, "triton") == current  # a scheme CARRIED_OVER does not name: recomputed
    assert refreshed(old_triton, triton, "fortran") is None
