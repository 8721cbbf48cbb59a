"""Sandboxed processes start with an allow-listed environment: no key set in the engine's reaches a candidate."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from provenance.redact import secret_names
from repair.engine.launch import sandbox_environ

DATA = Path(__file__).parent / "data"
KEYS = {"OPENAI_API_KEY": "sk-engine-openai-0123456789abcdef", "ANTHROPIC_API_KEY": "plain-anthropic-value-42",
        "TRITON_API_TOKEN": "tt-value-0123456789", "MY_DB_PASSWORD": "hunter2hunter2"}

# raises with everything it can find: os.environ, posix.environ and its ancestors' /proc/<pid>/environ
SPY = '''
import os, posix
import torch.nn as nn


def _ancestors():
    pid = os.getpid()
    for _ in range(6):
        try:
            stat = open(f"/proc/{pid}/stat").read()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except OSError:
            return
        if pid <= 1:
            return
        yield pid


class ModelNew(nn.Module):
    def forward(self, x, y):
        blocks = ["\\0".join(f"{k}={v}" for k, v in os.environ.items()),
                  "\\0".join(f"{k.decode()}={v.decode()}" for k, v in posix.environ.items())]
        for pid in _ancestors():
            try:
                blocks.append(open(f"/proc/{pid}/environ", "rb").read().decode("utf-8", "replace"))
            except OSError:
                pass
        found = sorted({kv for b in blocks for kv in b.split("\\0")
                        if any(w in kv.split("=", 1)[0] for w in ("KEY", "TOKEN", "PASSWORD"))})
        # reversed, so that no redaction of the message can hide what was found
        raise RuntimeError(f"read {len(blocks)} environments; PATH seen: {'PATH' in os.environ}; "
                           f"found: {[kv[::-1] for kv in found]}")
'''


def test_the_allow_list_keeps_what_torch_and_triton_read_and_drops_keys():
    env = {"PATH": "/bin", "HOME": "/h", "TRITON_INTERPRET": "1", "OMP_NUM_THREADS": "2", "LC_ALL": "C",
           "CUDA_VISIBLE_DEVICES": "0", "ASCEND_OPP_PATH": "/opp", "SOME_TOOL_SETTING": "x", **KEYS}
    out = sandbox_environ(env)
    assert set(out) == {"PATH", "HOME", "TRITON_INTERPRET", "OMP_NUM_THREADS", "LC_ALL", "CUDA_VISIBLE_DEVICES",
                        "ASCEND_OPP_PATH"}
    # a name listed on purpose passes, even one that looks like a secret
    assert set(sandbox_environ({**env, "REPAIR_PASS_ENV": "SOME_TOOL_SETTING, MY_DB_PASSWORD"})) >= {
        "SOME_TOOL_SETTING", "MY_DB_PASSWORD"}


def test_a_candidate_reading_every_environment_it_can_reach_finds_no_key(tmp_path):
    """The engine is a separate process started with the keys, as a user's shell would start it. Confined (the
    default here), the candidate cannot read its ancestors' /proc/<pid>/environ either (Landlock's ptrace rule)."""
    from repair.engine.confine import landlock

    if landlock.abi() <= 0 and os.geteuid() == 0:
        pytest.skip("no Landlock: an unconfined candidate running as root can read any /proc/<pid>/environ")
    cand = tmp_path / "spy_env.py"
    cand.write_text(SPY)
    env = {**os.environ, **KEYS, "REPAIR_SERVER_DIR": str(tmp_path / "servers")}  # a server of its own
    env.pop("REPAIR_CONFINE", None)
    p = subprocess.run([sys.executable, "-m", "repair", "eval", str(DATA / "addrelu_problem.py"), str(cand),
                        "--json", "--tier", "compact", "--no-integrity"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    case = json.loads(p.stdout)["cases"][0]
    assert case["status"] == "error" and "PATH seen: True" in case["message"], case["message"]
    for name, value in KEYS.items():
        assert value not in p.stdout + p.stderr and value[::-1] not in case["message"], case["message"][-600:]


@pytest.mark.parametrize("env, dumpable", [({"OPENAI_API_KEY": "sk-x-0123456789abcdef"}, 0), ({}, 1)])
def test_an_engine_holding_a_key_closes_its_own_proc_entries(env, dumpable):
    """Unconfined candidates of an ordinary user then cannot open /proc/<engine>/environ (it becomes root's,
    mode 0400); an engine without secrets stays debuggable."""
    clean = {k: v for k, v in os.environ.items() if k not in secret_names()}
    code = ("import ctypes; from repair.engine.sandbox import hide_own_environment; hide_own_environment(); "
            "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))")  # PR_GET_DUMPABLE
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(dumpable)


def test_what_a_candidate_printed_is_redacted_where_it_enters_the_engine(monkeypatch, tmp_path):
    """A key that reaches a candidate some other way (a file it read) is taken out of its error before anything
    downstream (forensics, prompts, records, trajectories) sees it."""
    from repair.engine.processes import Outcome
    from repair.loop.trajectory import Trajectory, read_trajectory

    monkeypatch.setenv("HF_TOKEN", "hf-value-from-the-engine")
    out = Outcome("error", "ValueError: found hf-value-from-the-engine and ghp_" + "x" * 36)
    assert "hf-value" not in out.message and "xxxxxxxx" not in out.message and "[redacted:HF_TOKEN]" in out.message
    traj = Trajectory(tmp_path / "t.jsonl")
    traj.log("eval", detail={"message": "it said hf-value-from-the-engine"})
    traj.close()
    assert "hf-value" not in (tmp_path / "t.jsonl").read_text()
    assert read_trajectory(tmp_path / "t.jsonl")[0]["detail"]["message"] == "it said [redacted:HF_TOKEN]"
