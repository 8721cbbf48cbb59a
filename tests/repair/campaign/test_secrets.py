"""No byte of a provider key set in the environment reaches a record, trajectory, ledger, log, report or KB export.

The model here (the scripted fakellm provider) repeats the keys in its diagnosis, as a model that saw them in a
prompt, a file or its training data might: the run, a campaign, its report, an ingest and both exports all go
through the real commands, in processes started with the keys, and every byte they leave is searched.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "add_relu"
MINI = Path(__file__).parent / "data" / "mini.yaml"
KEYS = {"OPENAI_API_KEY": "sk-proj-Secret0123456789abcdefXYZ", "ANTHROPIC_API_KEY": "ant-plain-value-without-a-shape"}


def _cli(tool: str, *args, env, cwd) -> subprocess.CompletedProcess:
    module = {"repair": "repair", "kb": "kbstore.cli"}[tool]
    p = subprocess.run([sys.executable, "-m", module, *map(str, args)], env=env, cwd=cwd, capture_output=True,
                       text=True, timeout=600)
    (cwd / f"{tool}-{len(list(cwd.glob(f'{tool}-*.log')))}.log").write_text(p.stdout + p.stderr)  # logs are searched too
    return p


@pytest.mark.slow
def test_no_key_reaches_anything_a_repair_or_campaign_leaves(tmp_path):
    reply = (f"ROOT_CAUSE: the grid is floor-divided (seen with key {KEYS['OPENAI_API_KEY']})\n"
             f"TITLE: cdiv grid\nBUG_CLASS: grid-floor-div\nFIX: launch cdiv(n, BLOCK) programs; {KEYS['ANTHROPIC_API_KEY']}\n"
             f"CITED:\n```python\n{(EXAMPLE / 'correct.py').read_text()}```\n")
    (tmp_path / "reply.md").write_text(reply)
    (tmp_path / "replies.yaml").write_text("- {file: reply.md}\n")
    env = {**os.environ, **KEYS, "KB_EMBEDDER": "hash", "REPAIR_SERVER_DIR": str(tmp_path / "servers")}
    llm = ["--worker", "litellm", "--model", "fakellm/demo", "--script", tmp_path / "replies.yaml"]

    run = _cli("repair", "run", EXAMPLE / "problem.py", EXAMPLE / "nearmiss_1.py", *llm, "--out", tmp_path / "run",
               "--seed", 1, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    camp = _cli("repair", "campaign", MINI, *llm, "--out", tmp_path / "camp", "--max-attempts", 1, "--jobs", 1,
                env=env, cwd=tmp_path)
    assert camp.returncode in (0, 1), camp.stdout + camp.stderr
    assert _cli("repair", "report", tmp_path / "camp", "--html", tmp_path / "report.html", env=env,
                cwd=tmp_path).returncode == 0
    assert _cli("kb", "ingest", tmp_path / "run", "--kb", tmp_path / "kb", env=env, cwd=tmp_path).returncode == 0
    for fmt in ("jsonl", "prov-json"):
        assert _cli("kb", "export", "--format", fmt, "-o", tmp_path / f"export.{fmt}", "--kb", tmp_path / "kb",
                    env=env, cwd=tmp_path).returncode == 0

    seen, marked = [], 0
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name not in ("reply.md", "replies.yaml"):
            blob = path.read_bytes()
            seen += [f"{path.relative_to(tmp_path)}: {name}" for name, v in KEYS.items() if v.encode() in blob]
            marked += blob.count(b"[redacted")
    assert not seen, seen
    assert marked > 0  # the keys did travel (the diagnosis reached the record and the trajectory) and were redacted
