"""ascendc-cpu's execution model: a launch's blocks run together (SyncAll a barrier across them, atomics atomic)
and races between blocks are found deterministically; the pipes of a block run asynchronously, so data crossing
pipes without a queue, SetFlag/WaitFlag or PipeBarrier is a race naming the buffer and both instructions where the
kernel is built with --cce-auto-sync=off (with auto-sync, a custom operator project's default, the compiler orders
them). Kernels
written here, each an exported function over guarded GM (faults come back as their kind: 1 error, 3 deadlock)."""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys

import pytest
import torch

from ascendc_fixtures import SUITE, variant
from repair.ascendc.emu.build import FLAGS, INCLUDE, compiler
from repair.ascendc.emu.runner import Arena
from repair.engine import evaluate, render_table

SOURCE = r'''
#include "ascendc_emu/kernel_unit.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

using namespace AscendC;

namespace {
template <class F> int launch(uint32_t blocks, F f) {
    return ascendc_emu::guarded([&] { ascendc_emu::run_blocks(blocks, 0, f); });
}
DataCopyExtParams row(uint32_t n) { return DataCopyExtParams{1, uint32_t(n * sizeof(float)), 0, 0, 0}; }
}  // namespace

// every block writes 8 floats of its index + 1 into z[0, 8), plainly or (atomic) adding
EXPORT int same_range(int atomic, float *z, uint32_t blocks) {
    return launch(blocks, [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 32);
        GlobalTensor<float> gz;
        gz.SetGlobalBuffer(z, 8);
        LocalTensor<float> t = q.AllocTensor<float>();
        Duplicate(t, float(GetBlockIdx() + 1), 8);
        q.EnQue(t);
        t = q.DeQue<float>();
        if (atomic) SetAtomicAdd<float>();
        DataCopy(gz, t, 8);
        SetAtomicNone();
        q.FreeTensor(t);
    });
}

// the write fingerprint of `n` bytes at GM address `at`: whole (0), in two pieces split at `cut` (1), or with byte
// `cut` changed by one (2)
EXPORT uint64_t fingerprint(int how, uint64_t at, uint32_t n, uint32_t cut) {
    std::vector<uint8_t> b(n);
    for (uint32_t i = 0; i < n; i++) b[i] = uint8_t(i * 37 + 11);
    if (how == 2) b[cut] += 1;
    if (how != 1) return ascendc_emu::gm_fingerprint(at, b.data(), n);
    return ascendc_emu::gm_fingerprint(at + cut, b.data() + cut, n - cut) + ascendc_emu::gm_fingerprint(at, b.data(), cut);
}

// every block writes all of z (1024 floats, z[i] = i / 256): an even block in one 4 KB DataCopy, an odd one in four
// of 1 KB from the last quarter down; with `differ`, the last block writes its last quarter one higher
EXPORT int shared_result(int differ, float *z, uint32_t blocks) {
    return launch(blocks, [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 4096);
        GlobalTensor<float> gz;
        gz.SetGlobalBuffer(z, 1024);
        LocalTensor<float> t = q.AllocTensor<float>();
        bool last = GetBlockIdx() + 1 == GetBlockNum();
        for (int k = 0; k < 4; k++) Duplicate(t[k * 256], float(k + (differ && last && k == 3)), 256);
        q.EnQue(t);
        t = q.DeQue<float>();
        if (GetBlockIdx() % 2 == 0)
            DataCopy(gz, t, 1024);
        else
            for (int k = 3; k >= 0; k--) DataCopy(gz[k * 256], t[k * 256], 256);
        q.FreeTensor(t);
    });
}

// every block zeroes z[0] (the same 4 bytes, the same value: `same` = 1) or writes its index + 1 there, then after
// a SyncAll adds its index + 1 atomically
EXPORT int zero_then_add(int same, float *z, uint32_t blocks) {
    return launch(blocks, [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> q;
        pipe.InitBuffer(q, 1, 32);
        GlobalTensor<float> gz;
        gz.SetGlobalBuffer(z, 1);
        LocalTensor<float> t = q.AllocTensor<float>();
        Duplicate(t, same ? 0.0f : float(GetBlockIdx() + 1), 8);
        q.EnQue(t);
        t = q.DeQue<float>();
        DataCopyPad(gz, t, row(1));
        q.FreeTensor(t);
        SyncAll();
        t = q.AllocTensor<float>();
        Duplicate(t, float(GetBlockIdx() + 1), 8);
        q.EnQue(t);
        t = q.DeQue<float>();
        SetAtomicAdd<float>();
        DataCopyPad(gz, t, row(1));
        SetAtomicNone();
        q.FreeTensor(t);
    });
}

// each block writes its partial sum of x into the workspace; block 0 adds the partials up after a SyncAll (or,
// with sync = 0, without one: it reads what the other blocks write)
EXPORT int partial_sums(int sync, float *x, float *ws, float *z, uint32_t blocks, uint32_t per_block) {
    return launch(blocks, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qin;
        TQue<TPosition::VECOUT, 1> qout;
        TBuf<TPosition::VECCALC> work;
        pipe.InitBuffer(qin, 1, (per_block > 8 * blocks ? per_block : 8 * blocks) * sizeof(float) + 32);
        pipe.InitBuffer(qout, 1, 64 * sizeof(float));
        pipe.InitBuffer(work, per_block * sizeof(float) + 32);
        GlobalTensor<float> gx, gws, gz;
        uint32_t b = GetBlockIdx();
        gx.SetGlobalBuffer(x + b * per_block, per_block);
        gws.SetGlobalBuffer(ws, 8 * blocks);
        gz.SetGlobalBuffer(z, 8);
        LocalTensor<float> t = qin.AllocTensor<float>();
        DataCopyPad(t, gx, row(per_block), DataCopyPadExtParams<float>{false, 0, 0, 0});
        qin.EnQue(t);
        t = qin.DeQue<float>();
        LocalTensor<float> s = qout.AllocTensor<float>();
        ReduceSum(s, t, work.Get<float>(), per_block);
        qin.FreeTensor(t);
        qout.EnQue(s);
        s = qout.DeQue<float>();
        DataCopyPad(gws[8 * b], s, row(1));
        qout.FreeTensor(s);
        if (sync) SyncAll();
        if (b != 0) return;
        LocalTensor<float> all = qin.AllocTensor<float>();
        DataCopy(all, gws, 8 * blocks);
        qin.EnQue(all);
        all = qin.DeQue<float>();
        LocalTensor<float> out = qout.AllocTensor<float>();
        Duplicate(out, 0.0f, 8);
        for (uint32_t k = 0; k < blocks; k++) Add(out, out, all[8 * k], 8);
        qin.FreeTensor(all);
        qout.EnQue(out);
        out = qout.DeQue<float>();
        DataCopyPad(gz, out, row(1));
        qout.FreeTensor(out);
    });
}

// block 0 waits at a SyncAll that the other blocks never reach (mode 0), or block 1 faults while block 0 waits
EXPORT int uneven_sync(int mode, float *z, uint32_t blocks) {
    return launch(blocks, [&] {
        GlobalTensor<float> gz;
        gz.SetGlobalBuffer(z, 8);
        if (GetBlockIdx() == 0) SyncAll();
        if (mode == 1 && GetBlockIdx() == 1) gz.SetValue(100, 1.0f);
    });
}

// x * 2 through two TBufs, one block: `flags` says which of the hand-overs between pipes are ordered
// (1: MTE2 -> V, 2: V -> MTE3; 4: the scalar reads the result, after V -> S when 8 is set too)
EXPORT int tbuf_double(int flags, float *x, float *z, float *first, uint32_t n) {
    return launch(1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, n * sizeof(float));
        pipe.InitBuffer(bz, n * sizeof(float));
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x, n);
        gz.SetGlobalBuffer(z, n);
        LocalTensor<float> lx = bx.Get<float>(), lz = bz.Get<float>();
        DataCopy(lx, gx, n);
        if (flags & 1) {
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        }
        Muls(lz, lx, 2.0f, n);
        if (flags & 4) {
            if (flags & 8) {
                event_t id = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
                SetFlag<HardEvent::V_S>(id);
                WaitFlag<HardEvent::V_S>(id);
            }
            *first = lz.GetValue(0);
        }
        if (flags & 2) {
            SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
        }
        DataCopy(gz, lz, n);
    });
}

// the library's APIs in every block: block b takes the sigmoid of its 64 floats of x through queues, a SyncAll
// between the copy-in and the rest (each block's state, the mask register's too, survives the turns)
EXPORT int block_sigmoid(float *x, float *z, uint32_t blocks) {
    return launch(blocks, [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qx;
        TQue<TPosition::VECOUT, 1> qz;
        pipe.InitBuffer(qx, 1, 256);
        pipe.InitBuffer(qz, 1, 256);
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x + GetBlockIdx() * 64, 64);
        gz.SetGlobalBuffer(z + GetBlockIdx() * 64, 64);
        LocalTensor<float> lx = qx.AllocTensor<float>();
        DataCopy(lx, gx, 64);
        qx.EnQue(lx);
        SyncAll();
        lx = qx.DeQue<float>();
        LocalTensor<float> lz = qz.AllocTensor<float>();
        Sigmoid(lz, lx, 64);
        qz.EnQue(lz);
        qx.FreeTensor(lx);
        lz = qz.DeQue<float>();
        DataCopy(gz, lz, 64);
        qz.FreeTensor(lz);
    });
}

// CCE vcadd on raw UB addresses (GetPhyAddr) of TBufs: the sum of 64 floats of x into z[0], with or without the
// MTE2 -> V flag after the copy-in (the raw address is an operand of the pipe model like any other)
EXPORT int raw_vcadd(int flag, float *x, float *z) {
    return launch(1, [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, 256);
        pipe.InitBuffer(bz, 32);
        GlobalTensor<float> gx, gz;
        gx.SetGlobalBuffer(x, 64);
        gz.SetGlobalBuffer(z, 8);
        LocalTensor<float> lx = bx.Get<float>(), lz = bz.Get<float>();
        DataCopy(lx, gx, 64);
        if (flag) {
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        }
        vcadd((__ubuf__ float *)lz.GetPhyAddr(), (__ubuf__ float *)lx.GetPhyAddr(), 1, 1, 1, 8, false);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
        DataCopyPad(gz, lz, row(1));
    });
}
'''


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    d = tmp_path_factory.mktemp("emu-concurrency")
    (d / "k.cpp").write_text(SOURCE)
    out = d / "k.so"
    r = subprocess.run([compiler()[0], *FLAGS, "-O1", "-shared", "-pthread", "-I", str(INCLUDE), str(d / "k.cpp"),
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    cdll = ctypes.CDLL(str(out))
    cdll.ascendc_emu_gm_add.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p]
    cdll.ascendc_emu_configure.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64]
    cdll.ascendc_emu_error.restype = ctypes.c_char_p
    cdll.ascendc_emu_configure(40, 20, 192 * 1024)
    cdll.ascendc_emu_set_auto_sync(0)  # the pipe races a kernel built with --cce-auto-sync=off has
    return cdll


def run(lib, fn: str, head: list, tensors: dict, tail: list = ()) -> tuple[int, str, dict]:
    """fn(head..., GM addresses..., tail...) on guarded copies: (fault kind, message, the tensors after)."""
    arena = Arena()
    addrs = [ctypes.c_void_p(arena.address(t, name)) for name, t in tensors.items()]
    arena.register(lib)
    rc = getattr(lib, fn)(*head, *addrs, *tail)
    arena.check_guards()
    after = {}
    for (name, t), (buf, nbytes, _) in zip(tensors.items(), arena.regions):
        after[name] = buf[4096:4096 + nbytes].clone().view(t.dtype).view(t.shape)
    return rc, lib.ascendc_emu_error().decode(), after


def test_two_blocks_writing_one_range_race_and_atomics_combine(lib):
    rc, msg, _ = run(lib, "same_range", [0], {"output z": torch.zeros(8)}, [2])
    assert rc == 1
    assert "GM race between blocks 0 and 1" in msg and "bytes [0, 32) of output z" in msg, msg
    assert "no atomic mode" in msg and "DataCopy at" in msg
    again = run(lib, "same_range", [0], {"output z": torch.zeros(8)}, [2])
    assert again[:2] == (rc, msg)  # the same verdict, word for word, run to run
    rc, msg, out = run(lib, "same_range", [1], {"output z": torch.zeros(8)}, [8])
    assert rc == 0, msg
    assert torch.equal(out["output z"], torch.full((8,), 36.0))  # 1 + 2 + ... + 8: every block's write counted


def test_blocks_writing_the_same_bytes_to_one_range_is_no_race(lib):
    """Every order of the blocks leaves the same bytes; different bytes are a race."""
    rc, msg, out = run(lib, "zero_then_add", [1], {"output z": torch.full((1,), 7.0)}, [6])
    assert rc == 0, msg
    assert out["output z"].item() == 21.0  # zeroed, then 1 + 2 + ... + 6
    rc, msg, _ = run(lib, "zero_then_add", [0], {"output z": torch.zeros(1)}, [6])
    assert rc == 1 and "GM race between blocks 0 and 1" in msg and "bytes [0, 4) of output z" in msg, msg


@pytest.mark.parametrize("at, n, cut", [(0, 4096, 1024), (3, 1001, 5), (4093, 9, 1)])
def test_a_writes_fingerprint_adds_over_its_pieces_and_sees_one_byte(lib, at, n, cut):
    lib.fingerprint.restype = ctypes.c_uint64
    lib.fingerprint.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint32]
    whole = lib.fingerprint(0, at, n, cut)
    assert lib.fingerprint(1, at, n, cut) == whole != lib.fingerprint(2, at, n, cut)
    assert lib.fingerprint(0, at + 8, n, cut) != whole  # the same bytes elsewhere in GM


def test_blocks_writing_the_same_large_result_in_any_pieces_is_no_race(lib):
    """4 KB written whole by some blocks and in four reversed pieces by others: the same bytes, no race at any size;
    one block's quarter different is a race."""
    rc, msg, out = run(lib, "shared_result", [0], {"output z": torch.zeros(1024)}, [3])
    assert rc == 0, msg
    assert torch.equal(out["output z"], torch.arange(1024).div(256, rounding_mode="floor").float())
    rc, msg, _ = run(lib, "shared_result", [1], {"output z": torch.zeros(1024)}, [3])
    assert rc == 1 and "GM race between blocks 0 and 2" in msg and "bytes [0, 4096) of output z" in msg, msg


@pytest.mark.parametrize("blocks", [2, 5, 16])
def test_a_syncall_reduction_across_blocks_passes(lib, blocks):
    per = 100
    x = torch.randn(blocks * per)
    tensors = {"input x": x, "workspace": torch.zeros(8 * blocks), "output z": torch.zeros(8)}
    rc, msg, out = run(lib, "partial_sums", [1], tensors, [blocks, per])
    assert rc == 0, msg
    torch.testing.assert_close(out["output z"][0], x.sum(), rtol=1e-5, atol=1e-4)
    first = out["output z"][0].item()
    assert all(run(lib, "partial_sums", [1], tensors, [blocks, per])[2]["output z"][0].item() == first
               for _ in range(3))  # deterministic: the same bits every run


def test_reading_another_blocks_write_without_a_syncall_is_a_race(lib):
    tensors = {"input x": torch.randn(300), "workspace": torch.zeros(24), "output z": torch.zeros(8)}
    rc, msg, _ = run(lib, "partial_sums", [0], tensors, [3, 100])
    assert rc == 1 and "GM race between blocks 0 and 1" in msg, msg
    assert "of workspace" in msg and "no SyncAll between them" in msg, msg


def test_a_syncall_not_every_block_reaches_is_a_deadlock_and_a_fault_ends_every_block(lib):
    rc, msg, _ = run(lib, "uneven_sync", [0], {"output z": torch.zeros(8)}, [3])
    assert rc == 3 and "waits at its SyncAll number 1" in msg and "waits forever" in msg, msg
    rc, msg, _ = run(lib, "uneven_sync", [1], {"output z": torch.zeros(8)}, [3])
    assert rc == 2 and "block 1 of 3" in msg, msg  # block 0, waiting at its SyncAll, is unwound, not left hanging


@pytest.mark.parametrize("flags, race", [
    (0, "Muls on the vector pipe reads UB bytes [0, 256) that DataCopy on the MTE2 pipe (GM -> UB) wrote"),
    (1, "DataCopy on the MTE3 pipe (UB -> GM) reads UB bytes [256, 512) that Muls on the vector pipe wrote"),
    (2, "Muls on the vector pipe reads"),
    (3, None),
    (3 | 4, "GetValue on the scalar pipe reads UB bytes [256, 260) that Muls on the vector pipe wrote"),
    (3 | 4 | 8, None),
])
def test_a_tbuf_handed_between_pipes_needs_its_flags(lib, flags, race):
    x = torch.randn(64)
    first = ctypes.c_float(0.0)
    rc, msg, out = run(lib, "tbuf_double", [flags], {"input x": x, "output z": torch.zeros(64)},
                       [ctypes.byref(first), 64])
    if race is None:
        assert rc == 0, msg
        torch.testing.assert_close(out["output z"], x * 2)
        assert first.value == (2 * x[0].item() if flags & 4 else 0.0)
        return
    assert rc == 1 and race in msg and "pipe race on a TBuf" in msg, msg
    assert "k.cpp:" in msg  # both instructions by file and line


def test_with_auto_sync_the_compiler_orders_the_pipes(lib):
    """A custom operator project builds with --cce-auto-sync (on by default): the compiler inserts the flags, so
    the unflagged hand-overs pass, with the right numbers."""
    x = torch.randn(64)
    first = ctypes.c_float(0.0)
    lib.ascendc_emu_set_auto_sync(1)
    try:
        rc, msg, out = run(lib, "tbuf_double", [4], {"input x": x, "output z": torch.zeros(64)},
                           [ctypes.byref(first), 64])
    finally:
        lib.ascendc_emu_set_auto_sync(0)
    assert rc == 0, msg
    torch.testing.assert_close(out["output z"], x * 2)
    assert first.value == 2 * x[0].item()


def test_a_race_fails_the_case_through_the_engine(tmp_path):
    """The example row sum without its S_MTE3 flag: the scalar unit's results copied out unordered, a race when
    the kernel is built with --cce-auto-sync=off; with auto-sync (the default) the compiler inserts the flag."""
    rs = SUITE / "row_sum"
    racy = variant(rs / "correct.py", tmp_path, ("            WaitFlag<HardEvent::S_MTE3>(sToMte3);\n", ""),
                   ("            SetFlag<HardEvent::S_MTE3>(sToMte3);\n", ""))
    ok = evaluate(rs / "problem.py", racy, backend="ascendc-cpu", seed=1, tier="compact")
    assert ok.passed, render_table(ok)
    # a process of its own: the engine's fork servers keep the environment they started with
    env = {**os.environ, "REPAIR_ASCENDC_AUTO_SYNC": "off"}
    p = subprocess.run([sys.executable, "-m", "repair", "eval", "--backend", "ascendc-cpu", "--tier", "compact",
                        "--json", "--seed", "1", str(rs / "problem.py"), str(racy)], env=env, capture_output=True,
                        text=True)
    assert p.returncode == 1, p.stdout[-2000:] + p.stderr[-2000:]
    cases = json.loads(p.stdout)["cases"]
    assert {c["status"] for c in cases} == {"error"}, cases
    assert "pipe race on a buffer of a TQue<VECOUT>" in cases[0]["message"]
    assert "SetValue on the scalar pipe wrote at" in cases[0]["message"]


def test_the_librarys_apis_run_in_every_block_across_a_syncall(lib):
    x = torch.randn(4 * 64, generator=torch.Generator().manual_seed(4))
    rc, msg, out = run(lib, "block_sigmoid", [], {"input x": x, "output z": torch.zeros(4 * 64)}, [4])
    assert rc == 0, msg
    torch.testing.assert_close(out["output z"], torch.sigmoid(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("flag", [0, 1])
def test_a_raw_ub_address_is_an_operand_of_the_pipe_model(lib, flag):
    x = torch.randn(64, generator=torch.Generator().manual_seed(64))
    rc, msg, out = run(lib, "raw_vcadd", [flag], {"input x": x, "output z": torch.zeros(8)})
    if flag:
        assert rc == 0, msg
        torch.testing.assert_close(out["output z"][0], x.sum(), rtol=1e-5, atol=1e-5)
    else:
        assert rc == 1 and "pipe race on a TBuf" in msg, msg
        assert "vcadd on the vector pipe reads UB bytes [0, 256) that DataCopy on the MTE2 pipe" in msg, msg
