"""The ascendc-cpu emulation of the AscendC API, each call against torch: lengths aligned, unaligned, one element and
more than one tile; float32, float16 and bfloat16 where the API takes them. The calls run in a block of their own,
from data/emu_api.cpp compiled once for the session; faults come back as their kind (1 error, 2 crash, 3 hang)."""
from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest
import torch

from emu_harness import build, call
from repair.ascendc.emu.runner import Arena, KernelFault
LENGTHS = [1, 64, 100, 5000]  # one element, whole 32-byte blocks, not, more than one 2048-element tile
DTYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 27}
OPS = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu", "Adds",
       "Muls", "Maxs", "Mins", "Duplicate", "LeakyRelu", "Axpy"]
S = 0.75  # the scalar of the scalar instructions


@pytest.fixture(scope="session")
def lib(tmp_path_factory):
    return build(tmp_path_factory.mktemp("emu-api") / "emu_api.so", "emu_api.cpp", "emu_host.cpp")


def inputs(n: int, dtype, op: str, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=g) * 3
    y = torch.randn(n, generator=g) * 3
    if op in ("Ln", "Sqrt", "Rsqrt"):
        x = x.abs() + 0.1
    if op in ("Div", "Reciprocal"):
        y = torch.where(y.abs() < 0.1, torch.full_like(y, 0.5), y)
        x = torch.where(x.abs() < 0.1, torch.full_like(x, 0.5), x) if op == "Reciprocal" else x
    return x.to(dtype), y.to(dtype)


def reference(op: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """What the instruction computes, in torch (half and bfloat16 round each result, as the vector unit does)."""
    s = torch.tensor(S, dtype=x.dtype)
    return {
        "Add": lambda: x + y, "Sub": lambda: x - y, "Mul": lambda: x * y, "Div": lambda: x / y,
        "Max": lambda: torch.maximum(x, y), "Min": lambda: torch.minimum(x, y), "Exp": lambda: torch.exp(x),
        "Ln": lambda: torch.log(x), "Abs": lambda: x.abs(), "Sqrt": lambda: torch.sqrt(x),
        "Rsqrt": lambda: torch.rsqrt(x), "Reciprocal": lambda: torch.reciprocal(x), "Relu": lambda: torch.relu(x),
        "Adds": lambda: x + s, "Muls": lambda: x * s, "Maxs": lambda: torch.maximum(x, s),
        "Mins": lambda: torch.minimum(x, s), "Duplicate": lambda: torch.full_like(x, S),
        "LeakyRelu": lambda: torch.where(x < 0, x * s, x), "Axpy": lambda: (x.float() * S + y.float()).to(x.dtype),
    }[op]()


TOL = {torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3}


@pytest.mark.parametrize("dtype", list(DTYPES), ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("op", OPS)
def test_elementwise_matches_torch(lib, op, dtype):
    for n in LENGTHS:
        x, y = inputs(n, dtype, op, seed=n)
        z = torch.full((n,), float("nan"), dtype=dtype)
        rc = call(lib, "emu_elementwise", [OPS.index(op), DTYPES[dtype]], [x, y, z], [n, ctypes.c_float(S)],
                  outputs=[2])
        assert rc == 0, lib.ascendc_emu_error()
        ref = reference(op, x, y)
        exact = op not in ("Exp", "Ln", "Sqrt", "Rsqrt", "Reciprocal", "Div", "Axpy")
        torch.testing.assert_close(z, ref, rtol=0 if exact else TOL[dtype], atol=0 if exact else TOL[dtype],
                                   msg=lambda m: f"{op} {dtype} n={n}: {m}")


# -- Cast -------------------------------------------------------------------------------------------------------

MODES = ["CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"]


def rounded(x: np.ndarray, to, mode: str) -> np.ndarray:
    """x (float64) to the float type `to` (np.float16, np.float32) in an AscendC rounding mode, from its two
    neighbours in `to`."""
    with np.errstate(over="ignore"):
        rne = x.astype(to)
        lo = np.where(rne.astype(np.float64) > x, np.nextafter(rne, to(-np.inf)), rne)
        hi = np.where(rne.astype(np.float64) < x, np.nextafter(rne, to(np.inf)), rne)
    back = rne.astype(np.float64)
    exact = back == x
    dlo, dhi = x - lo.astype(np.float64), hi.astype(np.float64) - x
    bits = lambda a: a.view(np.uint16 if to == np.float16 else np.uint32)  # noqa: E731
    pick = {
        "CAST_NONE": rne, "CAST_RINT": rne, "CAST_FLOOR": lo, "CAST_CEIL": hi, "CAST_TRUNC": np.where(x > 0, lo, hi),
        # past the largest finite value both round to infinity, as RINT does
        "CAST_ROUND": np.where(np.isinf(rne), rne, np.where(dlo == dhi, np.where(x > 0, hi, lo),
                                                            np.where(dlo < dhi, lo, hi))),
        "CAST_ODD": np.where(bits(lo) & 1, lo, hi),
    }[mode]
    return np.where(exact, rne, pick)


def cast(lib, x: torch.Tensor, dtype, mode: str) -> torch.Tensor:
    z = torch.zeros(x.shape, dtype=dtype)
    codes = {**DTYPES, torch.int32: 3}
    rc = call(lib, "emu_cast", [MODES.index(mode), codes[x.dtype], codes[dtype]], [x, z], [x.numel()], outputs=[1])
    assert rc == 0, lib.ascendc_emu_error()
    return z


def cast_inputs(n: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, generator=g, dtype=torch.float64) * 1000
    # exact ties between two halves: a float half-way between neighbours, both signs
    ties = torch.tensor([1.0 + 2 ** -11, -(1.0 + 2 ** -11), 2.5, -2.5, 0.5, 1.5, 1000.5, 70000.0, -70000.0, 65519.0],
                        dtype=torch.float64)
    x[:min(n, len(ties))] = ties[:min(n, len(ties))]
    return x.float()


@pytest.mark.parametrize("mode", MODES)
def test_cast_float_to_half_in_every_rounding_mode(lib, mode):
    for n in LENGTHS:
        x = cast_inputs(n)
        z = cast(lib, x, torch.float16, mode)
        ref = torch.from_numpy(rounded(x.double().numpy(), np.float16, mode))
        assert torch.equal(z.view(torch.int16), ref.view(torch.int16)), f"{mode} n={n}"


@pytest.mark.parametrize("mode", ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC"])
def test_cast_float_to_int32_and_bfloat16(lib, mode):
    x = cast_inputs(5000)
    got = cast(lib, x, torch.int32, mode)
    d = x.double()
    ref = {"CAST_RINT": torch.round(d), "CAST_FLOOR": torch.floor(d), "CAST_CEIL": torch.ceil(d),
           "CAST_TRUNC": torch.trunc(d), "CAST_ROUND": torch.sign(d) * torch.floor(d.abs() + 0.5)}[mode]
    assert torch.equal(got, ref.to(torch.int32)), mode
    if mode == "CAST_RINT":  # round to nearest even, as torch converts
        assert torch.equal(cast(lib, x, torch.bfloat16, mode).view(torch.int16), x.to(torch.bfloat16).view(torch.int16))


def test_cast_widening_and_from_integers_is_exact(lib):
    x = cast_inputs(5000)
    for low in (torch.float16, torch.bfloat16):
        assert torch.equal(cast(lib, x.to(low), torch.float32, "CAST_NONE"), x.to(low).float())
    i = torch.arange(-2500, 2500, dtype=torch.int32) * 7919
    assert torch.equal(cast(lib, i, torch.float32, "CAST_RINT"), i.float())
    # float -> float of the same type rounds to an integral value in the mode
    assert torch.equal(cast(lib, x, torch.float32, "CAST_FLOOR"), torch.floor(x))


# -- Compare / Select --------------------------------------------------------------------------------------------

CMP = ["LT", "GT", "EQ", "LE", "GE", "NE"]


@pytest.mark.parametrize("dtype", list(DTYPES), ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("scalar", [False, True], ids=["tensor", "scalar"])
def test_compare_and_select_match_torch(lib, dtype, scalar):
    for n in LENGTHS:
        x, y = inputs(n, dtype, "Add", seed=n)
        y[::3] = x[::3]  # some equal pairs
        for mode, name in enumerate(CMP):
            mask = torch.zeros((n + 7) // 8, dtype=torch.uint8)
            z = torch.zeros(n, dtype=dtype)
            rc = call(lib, "emu_compare", [mode, int(scalar), ctypes.c_float(S), DTYPES[dtype]], [x, y, mask, z],
                      [n], outputs=[2, 3])
            assert rc == 0, lib.ascendc_emu_error()
            other = torch.tensor(S, dtype=dtype).expand(n) if scalar else y
            want = {"LT": x < other, "GT": x > other, "EQ": x == other, "LE": x <= other, "GE": x >= other,
                    "NE": x != other}[name]
            # Compare (two tensors) compares whole 256-byte repeats only, and says so; CompareScalar any count
            m = n if scalar else n * x.element_size() // 256 * 256 // x.element_size()
            assert ("compares" in lib.ascendc_emu_notes().decode()) == (m != n)
            bits = torch.tensor([(int(mask[i // 8]) >> (i % 8)) & 1 for i in range(m)], dtype=torch.bool)
            assert torch.equal(bits, want[:m]), f"{name} n={n}"
            assert torch.equal(z[:m], torch.where(want, x, other)[:m]), f"Select after {name} n={n}"


# -- reductions --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
def test_reduce_sum_max_min_match_torch(lib, dtype):
    for n in LENGTHS:
        x, _ = inputs(n, dtype, "Add", seed=n + 1)
        for kind, name in enumerate(["sum", "max", "min"]):
            for index in ((0,) if kind == 0 else (0, 1)):
                z = torch.zeros(2, dtype=dtype)
                rc = call(lib, "emu_reduce", [kind, DTYPES[dtype]], [x, z], [n, index], outputs=[1])
                assert rc == 0, lib.ascendc_emu_error()
                if kind == 0:
                    tol = 1e-5 * n if dtype == torch.float32 else 2e-3 * n
                    assert abs(float(z[0]) - float(x.double().sum())) <= tol, f"sum n={n}"
                    continue
                ref = x.max() if kind == 1 else x.min()
                assert z[0] == ref, f"{name} n={n}"
                if index:
                    raw = z.view(torch.int16)[1] if dtype == torch.float16 else z.view(torch.int32)[1]
                    assert x[int(raw) & 0xFFFF if dtype == torch.float16 else int(raw)] == ref


def test_reduce_sum_bfloat16_and_the_work_tensor(lib):
    x = torch.linspace(-3, 5, 5000).to(torch.bfloat16)
    z = torch.zeros(2, dtype=torch.bfloat16)
    assert call(lib, "emu_reduce", [0, 27], [x, z], [5000, 0], outputs=[1]) == 0
    assert abs(float(z[0]) - float(x.double().sum())) <= 0.02 * 5000


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["float32", "float16"])
def test_whole_reduce_per_repeat_under_a_mask(lib, dtype):
    per = 256 // (4 if dtype == torch.float32 else 2)  # elements per 256-byte repeat
    for repeat in (1, 3):
        n = per * repeat
        x, _ = inputs(n, dtype, "Add", seed=repeat)
        for mask in (per, 5):
            for kind in (0, 1, 2):
                z = torch.zeros(8192 // x.element_size(), dtype=dtype)
                rc = call(lib, "emu_whole_reduce", [kind, DTYPES[dtype]], [x, z], [n, mask, repeat, 1, 1, 8, 0],
                          outputs=[1])
                assert rc == 0, lib.ascendc_emu_error()
                rows = x.view(repeat, per)[:, :mask]
                if kind == 0:  # added in pairs, a binary tree over the repeat's slots (masked ones add zero)
                    tree = torch.zeros(repeat, per, dtype=dtype)
                    tree[:, :mask] = rows
                    while tree.shape[1] > 1:
                        tree = tree[:, 0::2] + tree[:, 1::2]
                    assert torch.equal(z[:repeat], tree[:, 0])
                else:  # value, index pairs, one pair a repeat
                    want = rows.max(1) if kind == 1 else rows.min(1)
                    assert torch.equal(z[0:2 * repeat:2], want.values)
                    idx = z.view(torch.int32 if dtype == torch.float32 else torch.int16)[1:2 * repeat:2]
                    assert torch.equal(idx.long(), want.indices)


# -- copies -------------------------------------------------------------------------------------------------------

def test_datacopy_copies_whole_blocks_and_drops_a_partial_one_with_a_note(lib):
    x = torch.arange(4096, dtype=torch.float32)
    for n in (8, 64, 1024):
        z = torch.full((4096,), float("nan"))
        assert call(lib, "emu_copy", [0], [x, z], [1, n, 0, 0, 0, 0, 0, ctypes.c_float(0)], outputs=[1]) == 0
        assert torch.equal(z[:n], x[:n]) and z[n:].isnan().all()
        assert lib.ascendc_emu_notes() == b""
    for n, whole in ((1, 0), (100, 96)):  # as the NPU: no error, the length rounded down to whole 32-byte blocks
        z = torch.full((4096,), -1.0)
        assert call(lib, "emu_copy", [0], [x, z], [1, n, 0, 0, 0, 0, 0, ctypes.c_float(0)], outputs=[1]) == 0
        assert torch.equal(z[:whole], x[:whole]) and (z[whole:] == -1).all()
        notes = lib.ascendc_emu_notes().decode()
        assert f"DataCopy of {n * 4} bytes copies {whole * 4}: its length is not a multiple of 32 bytes" in notes
        assert notes.count("\n") == 2 and "emu_api.cpp:" in notes  # one a call site (in, out), with its line


@pytest.mark.parametrize("n", LENGTHS)
def test_datacopypad_rows_strides_and_padding(lib, n):
    x = torch.arange(20000, dtype=torch.float32)
    count, src_gap, dst_gap = (3, 5, 1) if n < 5000 else (1, 0, 0)
    z = torch.zeros(20000)
    assert call(lib, "emu_copy", [1], [x, z], [count, n, src_gap, dst_gap, 1, 2, 3, ctypes.c_float(-7)],
                outputs=[1]) == 0, lib.ascendc_emu_error()
    row = ((2 + n + 3) * 4 + 31) // 32 * 8  # floats per padded UB row
    for b in range(count):
        at = b * (row + dst_gap * 8)
        got = z[at:at + row]
        assert torch.equal(got[2:2 + n], x[b * (n + src_gap):b * (n + src_gap) + n])
        assert (got[:2] == -7).all() and (got[2 + n:] == -7).all()  # isPad: the padding holds paddingValue
    z = torch.zeros(20000)
    assert call(lib, "emu_copy", [1], [x, z], [1, n, 0, 0, 0, 0, 0, ctypes.c_float(0)], outputs=[1]) == 0
    row = (n * 4 + 31) // 32 * 8
    # no left or right padding: the dummy elements up to the 32-byte boundary hold the block's first element
    assert torch.equal(z[:n], x[:n]) and (z[n:row] == x[0]).all()
    z = torch.zeros(20000)
    assert call(lib, "emu_copy", [1], [x, z], [1, n, 0, 0, 0, 1, 0, ctypes.c_float(0)], outputs=[1]) == 0
    row = ((n + 1) * 4 + 31) // 32 * 8
    assert torch.equal(z[1:n + 1], x[:n]) and z[0].isnan() and z[n + 1:row].isnan().all()  # no isPad: undefined


def test_datacopypad_out_writes_exactly_the_rows(lib):
    x = torch.arange(16384, dtype=torch.float32)
    z = torch.full((1000,), -1.0)
    assert call(lib, "emu_copy_out", [], [x, z], [3, 5, 1, 2], outputs=[1]) == 0, lib.ascendc_emu_error()
    for b in range(3):
        assert torch.equal(z[b * 7:b * 7 + 5], x[b * 16:b * 16 + 5])  # UB rows: 8 floats + 1 block of stride
        assert (z[b * 7 + 5:b * 7 + 7] == -1).all()  # the GM gap is never written
    assert (z[21:] == -1).all()


@pytest.mark.parametrize("dtype", list(DTYPES), ids=["float32", "float16", "bfloat16"])
def test_scalar_get_and_set_value(lib, dtype):
    for n in LENGTHS:
        x, _ = inputs(n, dtype, "Add", seed=n)
        z = torch.zeros(2 * n, dtype=dtype)
        assert call(lib, "emu_scalar", [DTYPES[dtype]], [x, z], [n], outputs=[1]) == 0, lib.ascendc_emu_error()
        assert torch.equal(z[:n], (x.float() * 2).to(dtype).flip(0)) and torch.equal(z[n:], x)


# -- blocks, faults, tiling -------------------------------------------------------------------------------------------

def test_each_block_knows_its_index_and_count(lib):
    out = torch.full((80,), -1, dtype=torch.int32)
    assert call(lib, "emu_blocks", [], [out], [40], outputs=[0]) == 0
    assert out.view(40, 2)[:, 0].tolist() == list(range(40)) and (out.view(40, 2)[:, 1] == 40).all()
    assert call(lib, "emu_blocks", [], [out], [0]) == 1  # no block at all


FAULTS = {1: (1, "past the end of the unified buffer (196608 bytes): its InitBuffer ("),
          17: (1, "EnQue on a full queue: TQue<..., 1> holds 1 tensor"), 3: (2, "reads 32 bytes at GM address"),
          4: (2, "writes bytes [240, 272) of GM tensor arg1"), 5: (3, "DeQue of an empty queue"),
          6: (3, "all 2 buffers of the queue are in use"), 7: (1, "after its FreeTensor"), 8: (1, "after its EnQue"),
          9: (3, "WaitFlag(0) with no SetFlag"), 10: (1, "300 elements of a LocalTensor<float> that has 256"),
          11: (1, "not 32-byte aligned"), 12: (1, "FreeTensor of a LocalTensor already freed"),
          14: (1, "GetValue(256) past the end"),
          19: (1, "FreeTensor of a LocalTensor that belongs to another queue or TBuf"),
          22: (1, "Duplicate uses UB bytes up to 64 of a tensor from TBuf::Get past the TBuf's 32 bytes")}


@pytest.mark.parametrize("which", sorted(FAULTS))
def test_faults_are_failures_with_a_clear_message(lib, which):
    kind, words = FAULTS[which]
    x, z = torch.zeros(64), torch.zeros(64)
    assert call(lib, "emu_fault", [which], [x, z]) == kind
    message = lib.ascendc_emu_error().decode()
    assert words in message and "[block 0 of 1, " in message and "emu_api.cpp:" in message


@pytest.mark.parametrize("which", [15, 16])
def test_a_buffer_past_the_ub_faults_only_where_it_is_used_past_the_end(lib, which):
    assert call(lib, "emu_fault", [which], [torch.zeros(64), torch.zeros(64)]) == 0, lib.ascendc_emu_error()


def test_freetensor_of_a_tensor_of_another_queue_of_the_same_positions_frees_its_own_buffer(lib):
    """CANN's FreeTensor frees the tensor's own buffer (its handle); the queue gives only the free event's pipes."""
    assert call(lib, "emu_fault", [20], [torch.zeros(64), torch.zeros(64)]) == 0, lib.ascendc_emu_error()
    assert "FreeTensor of a LocalTensor of another queue of the same positions" in lib.ascendc_emu_notes().decode()


def test_tbuf_get_past_the_tbuf_is_no_error_until_an_access_passes_its_end(lib):
    """CANN's TBuf::Get checks the length against the TBuf in its CPU debug build only."""
    assert call(lib, "emu_fault", [21], [torch.zeros(64), torch.zeros(64)]) == 0, lib.ascendc_emu_error()
    assert "TBuf::Get<float>(16) asks for 64 bytes from a TBuf of 32" in lib.ascendc_emu_notes().decode()


@pytest.mark.parametrize("n", [8, 64, 1024])
def test_a_tqueconfig_queue_and_the_raw_impl_calls(lib, n):
    z = torch.zeros(n)
    assert call(lib, "emu_raw_fill", [], [z], [n, ctypes.c_float(2.5)], outputs=[0]) == 0, lib.ascendc_emu_error()
    assert torch.equal(z, torch.full((n,), 2.5))


def test_a_read_past_a_tensors_end_is_undefined_data_not_a_fault(lib):
    """The NPU's GM past a tensor is its allocation's padding or another allocation: no fault, undefined bytes."""
    assert call(lib, "emu_fault", [18], [torch.zeros(64), torch.zeros(64)]) == 0, lib.ascendc_emu_error()
    notes = lib.ascendc_emu_notes().decode()
    assert "DataCopy reads GM bytes [224, 288) of arg0, which holds 256: the bytes past its end are undefined" in notes


def test_a_raw_write_past_a_tensor_lands_in_its_guard_region(lib):
    with pytest.raises(KernelFault) as e:
        call(lib, "emu_fault", [13], [torch.zeros(64), torch.zeros(64)])
    assert e.value.case_status == "crash" and "12 bytes past the end of arg1" in str(e.value)


def test_tiling_macros_context_and_platform(lib, monkeypatch):
    from repair.ascendc.emu.runner import _Attr, _TensorDesc, _Tiling

    lib.ascendc_emu_opdef.restype = ctypes.c_char_p
    import json

    opdef = json.loads(lib.ascendc_emu_opdef())
    assert [i["name"] for i in opdef["inputs"]] == ["x", "y"] and opdef["outputs"][0]["name"] == "z"
    assert [(a["name"], a["kind"], a["default"]) for a in opdef["attrs"]] == [
        ("alpha", "float", 0.5), ("k", "int", 3), ("flag", "bool", True), ("axes", "list_int", [1, 2])]
    lib.ascendc_emu_configure(24, 12, 256 * 1024)
    try:
        ins = (_TensorDesc * 2)()
        ins[0].dtype, ins[0].ndim = 0, 3
        ins[0].dims[0], ins[0].dims[1], ins[0].dims[2] = 2, 3, 5
        ins[1].dtype, ins[1].ndim, ins[1].dims[0] = 1, 1, 9
        attrs = (_Attr * 4)()
        attrs[0].kind, attrs[0].f = 0, 1.25
        attrs[1].kind, attrs[1].i = 1, 42
        attrs[2].kind, attrs[2].i = 2, 0
        axes = (ctypes.c_int64 * 3)(4, 5, 6)
        attrs[3].kind, attrs[3].list, attrs[3].nlist = 4, axes, 3
        buf, res = (ctypes.c_uint8 * 65536)(), _Tiling()
        lib.ascendc_emu_tiling.argtypes = [ctypes.POINTER(_TensorDesc), ctypes.c_int, ctypes.POINTER(_TensorDesc),
                                           ctypes.c_int, ctypes.POINTER(_Attr), ctypes.c_int, ctypes.c_void_p,
                                           ctypes.c_uint64, ctypes.POINTER(_Tiling)]
        assert lib.ascendc_emu_tiling(ins, 2, ins, 1, attrs, 4, ctypes.cast(buf, ctypes.c_void_p), 65536,
                                      ctypes.byref(res)) == 0, lib.ascendc_emu_error()
        assert (res.block_dim, res.tiling_key, res.status) == (7, 3, 0)
        absent = (_TensorDesc * 2)(ins[0], ins[1])
        absent[1].ndim = -1  # an optional input the call leaves out (the runner's mark): the host sees nullptr
        left_out = _Tiling()
        assert lib.ascendc_emu_tiling(absent, 2, ins, 1, attrs, 4, ctypes.cast((ctypes.c_uint8 * 65536)(),
                                      ctypes.c_void_p), 65536, ctypes.byref(left_out)) == 0, lib.ascendc_emu_error()
        assert left_out.tiling_key == 99
        assert res.workspace == 16 * 1024 * 1024 + 1024
        fields = struct.unpack_from("@IIiiqqIfqI4q", bytes(buf), 0)  # the struct's fields, naturally aligned
        data = bytes(buf)[:res.tiling_size]
        assert res.tiling_size == 88
        assert fields[:10] == (24, 256 * 1024, 0, 1, 30, 9, 3, 1.25, 42, 0) and fields[10:] == (4, 5, 6, 0)
        out = torch.zeros(8)
        arena = Arena()
        t = arena.raw(data, "tiling")
        o = arena.address(out, "out")
        arena.register(lib)
        lib.emu_probe_kernel.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        assert lib.emu_probe_kernel(t, o, 3) == 0, lib.ascendc_emu_error()
        buf_o, nbytes, _ = arena.regions[1]
        got = buf_o[4096:4096 + nbytes].view(torch.float32)
        assert got[:7].tolist() == [24.0, 256 * 1024.0, 30.0, 1.25, 42.0, 5.0, 1.0]
    finally:
        lib.ascendc_emu_configure(40, 20, 192 * 1024)
