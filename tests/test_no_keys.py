"""No key set in the environment the tool is started with is visible to any process that runs someone else's code
(#30): candidate and reference processes (confined, and unconfined as on cuda and npu), the import probe, a
campaign's runs, and neither server holds one.

Every command runs as a user runs it, in a process started with the keys (a key set later with os.environ never
shows in /proc/PID/environ, which is what another process reads). The thieves look in every /proc/PID/environ they
can open, as root here (CI containers run as root) with whatever privilege the sandbox left them, and report each
value holding the keys' marker hex-encoded, past the redaction of key shapes. Where a backend's hardware is missing
(cuda, npu) the environment its sandboxed processes start with is checked instead.
"""
from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

MARK = "nearmiss-test"
KEYS = {"OPENAI_API_KEY": f"sk-{MARK}-{secrets.token_hex(12)}", "ANTHROPIC_API_KEY": f"sk-ant-{MARK}-{secrets.token_hex(8)}",
        "NEARMISS_SERVICE_TOKEN": f"{MARK}-{secrets.token_hex(8)}"}
HEX = [v.encode().hex() for v in KEYS.values()]

SCAN = f'''
import os


def _stolen():
    found, scanned = set(), 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{{pid}}/environ", "rb") as f:
                raw = f.read()
            scanned += 1
        except OSError:
            continue
        found |= {{kv.hex() for kv in raw.split(b"\\0") if b"{MARK}" in kv}}
    return f"scanned {{scanned}}, saw [{{' '.join(sorted(found))}}]"
'''

THIEF_PROBLEM = SCAN + '''
import torch
import torch.nn as nn

N = 512
STOLEN = _stolen()
OPERATOR = {"id": "thief", "family": "thief " + STOLEN}


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    if RAISE:
        raise RuntimeError("thief problem " + STOLEN)
    return [torch.randn(N)]


def get_init_inputs():
    return []
'''

THIEF_CANDIDATE = SCAN + '''
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        raise RuntimeError("thief candidate " + _stolen())
'''


def _env(tmp_path: Path, **extra) -> dict[str, str]:
    # server directories short and of their own: a socket's path has 107 bytes, and pytest's tmp_path can be longer
    return {**os.environ, **KEYS, "KB_EMBEDDER": "hash", "REPAIR_SERVER_DIR": tempfile.mkdtemp(prefix="rsd-"),
            "KB_SERVER_DIR": tempfile.mkdtemp(prefix="ksd-"), "REPAIR_BACKEND": "triton-cpu", **extra}


def _run(*args, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *map(str, args)], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=900)


def _saw_nothing(text: str, what: str) -> None:
    assert "scanned " in text, f"the {what} thief did not run: {text[-2000:]}"
    for h in HEX:
        assert h not in text, f"the {what} saw a key"


def _files(tmp_path: Path) -> tuple[Path, Path]:
    problem, candidate = tmp_path / "thief" / "problem.py", tmp_path / "thief" / "nearmiss_1.py"
    problem.parent.mkdir(exist_ok=True)
    problem.write_text(THIEF_PROBLEM.replace("RAISE", "False"))
    candidate.write_text(THIEF_CANDIDATE)
    return problem, candidate


@pytest.mark.parametrize("confine", ["auto", "off"])
def test_candidate_and_reference_processes_see_no_key(tmp_path, confine):
    """Confined (triton-cpu's default) and unconfined (cuda's and npu's default, REPAIR_CONFINE=off here)."""
    problem, candidate = _files(tmp_path)
    p = _run("repair", "eval", problem, candidate, "--tier", "compact", "--json", "--seed", "1",
             env=_env(tmp_path, REPAIR_CONFINE=confine), cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    result = json.loads(p.stdout)
    _saw_nothing(result["family"], "reference")
    _saw_nothing(result["cases"][0]["message"], "candidate")


@pytest.mark.parametrize("backend", ["triton-cpu", "cuda", "npu", "ascendc-cpu"])
def test_every_backends_sandboxed_processes_start_without_a_key(monkeypatch, backend):
    from repair.engine.backends import get_backend
    from repair.engine.launch import server_env

    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    env = server_env(get_backend(backend))
    assert not set(KEYS) & set(env) and not any(MARK in v for v in env.values())


def test_the_import_probe_sees_no_key(tmp_path):
    src = tmp_path / "src" / "1_Thief.py"
    src.parent.mkdir()
    src.write_text(THIEF_PROBLEM.replace("RAISE", "True"))
    p = _run("repair", "import", "kernelbench", src, "--out", tmp_path / "out", "--json", env=_env(tmp_path),
             cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    _saw_nothing(p.stdout, "probe")


def test_a_campaigns_runs_and_both_servers_hold_and_show_no_key(tmp_path):
    problem, candidate = _files(tmp_path)
    second = tmp_path / "thief2"
    second.mkdir()
    (second / "problem.py").write_text(problem.read_text().replace('"id": "thief"', '"id": "thief2"'))
    (second / "nearmiss_1.py").write_text(candidate.read_text())
    manifest = tmp_path / "cohort.yaml"
    manifest.write_text("cohort: thieves\nfrozen_at: '2026-11-30T00:00:00Z'\noperators:\n"
                        "  - {id: thief, family: x, files: [thief/problem.py, thief/nearmiss_1.py]}\n"
                        "  - {id: thief2, family: x, files: [thief2/problem.py, thief2/nearmiss_1.py]}\n")
    script = tmp_path / "script.yaml"
    script.write_text(f"steps:\n  - file: {candidate}\n")
    env = _env(tmp_path)
    servers = []
    try:
        kb = tmp_path / "kb"
        ingest = _run("kbstore.cli", "ingest", Path(__file__).resolve().parents[1] / "repair" / "rules" / "starter",
                      "--kb", kb, env=env, cwd=tmp_path)
        assert ingest.returncode == 0, ingest.stderr
        for args in (("kbstore.cli", "server", "start", "--kb", kb), ("repair", "server", "start")):
            p = _run(*args, env=env, cwd=tmp_path)
            assert p.returncode == 0, p.stdout + p.stderr
        servers = _server_pids(env)
        assert len(servers) == 2
        camp = _run("repair", "campaign", manifest, "--out", tmp_path / "camp", "--worker", "scripted", "--script",
                    script, "--max-attempts", "1", "--jobs", "2", "--kb", kb, env=env, cwd=tmp_path)
        assert camp.returncode in (0, 1), camp.stdout + camp.stderr
        texts = [p.read_text(errors="replace") for p in (tmp_path / "camp").rglob("*") if p.is_file()
                 and p.suffix in (".jsonl", ".json")]
        stolen = [t for t in texts if "thief candidate scanned" in t]
        assert stolen, "no run evaluated its thief"
        for t in stolen:
            _saw_nothing(t, "campaign run's candidate")
        for pid in servers:
            with open(f"/proc/{pid}/environ", "rb") as f:
                assert MARK.encode() not in f.read(), f"server {pid} holds a key"
    finally:
        _run("kbstore.cli", "server", "stop", "--all", env=env, cwd=tmp_path)
        _run("repair", "server", "stop", env=env, cwd=tmp_path)


def _server_pids(env: dict[str, str]) -> list[int]:
    pids = []
    for info in Path(env["KB_SERVER_DIR"]).glob("kb-*.json"):
        pids.append(int(json.loads(info.read_text())["pid"]))
    for pid_file in Path(env["REPAIR_SERVER_DIR"]).glob("*.sock.pid"):
        pids.append(int(pid_file.read_text()))
    deadline = time.monotonic() + 5
    while len(pids) < 2 and time.monotonic() < deadline:  # noqa: ASYNC — files written as the servers start
        time.sleep(0.05)
    return pids
