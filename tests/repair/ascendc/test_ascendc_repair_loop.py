"""`repair run` on AscendC candidates: the loop's guard on bundle proposals (no compiler), and scripted and fake-LLM
repairs on ascendc-cpu whose final output, in the candidate's own format, passes `repair eval` (g++ builds cached
by content hash for the session, see conftest.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascendc_fixtures import SUITE
from repair.ascendc.bundle import parse_bundle
from repair.cli import cli
from repair.loop.form import AscendCForm
from repair.loop.patch import PatchRejected
from repair.workers import Proposal

ROOT = SUITE.parents[1]
SCRIPTED = ROOT / "examples" / "scripted" / "ascendc"
ADD = SUITE / "add"


def _diff(name: str, old: str, new: str, text: str) -> str:
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if old in line)
    return (f"--- a/{name}\n+++ b/{name}\n@@ -{i + 1},1 +{i + 1},1 @@\n-{lines[i]}\n+{lines[i].replace(old, new)}\n")


@pytest.fixture(scope="module")
def npukb_form():
    return AscendCForm(ADD / "problem.py", ADD / "npukb" / "nearmiss_tail")


@pytest.fixture(scope="module")
def six_form():
    return AscendCForm(ADD / "problem.py", ADD / "nearmiss_tail.py")


def test_a_diff_to_the_kernel_is_accepted_and_written_in_the_task_format(npukb_form, tmp_path):
    current = npukb_form.source_text
    kernel = parse_bundle(current).file("op_kernel/add_custom.cpp").text
    text = npukb_form.apply(Proposal(diff=_diff("op_kernel/add_custom.cpp", "BUFFER_NUM = 2", "BUFFER_NUM = 1",
                                                kernel)), current)
    assert "BUFFER_NUM = 1" in parse_bundle(text).file("op_kernel/add_custom.cpp").text
    (tmp_path / "attempts").mkdir()
    path = npukb_form.write(text, tmp_path / "attempts", 1)
    assert path == tmp_path / "attempts" / "attempt_001" / "nearmiss_tail"
    assert (tmp_path / "attempts" / "attempt_001.bundle").read_text() == text
    assert "BUFFER_NUM = 1" in (path / "op_kernel" / "add_custom.cpp").read_text()


@pytest.mark.parametrize("form_name, target, old, reason", [
    ("npukb_form", "validation/pybind.cpp", "PYBIND11_MODULE", "touches-reference"),
    ("npukb_form", "validation/module.py", "import", "touches-reference"),
    ("six_form", "model.py", "import", "signature"),
    ("six_form", "add_custom.json", "AddCustom", "signature"),
])
def test_fixed_files_are_refused_with_a_reason(request, form_name, target, old, reason):
    form = request.getfixturevalue(form_name)
    bundle = parse_bundle(form.source_text)
    changed = bundle.replace(target, bundle.file(target).text.replace(old, old + " ", 1))
    with pytest.raises(PatchRejected) as e:
        form.apply(Proposal(candidate=changed.text), form.source_text)
    assert e.value.reason == reason and target in e.value.message


def test_diffs_reaching_outside_the_candidate_are_refused(npukb_form, six_form):
    with pytest.raises(PatchRejected) as e:
        npukb_form.apply(Proposal(diff="--- a/problem.py\n+++ b/problem.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"),
                         npukb_form.source_text)
    assert e.value.reason == "touches-reference"
    with pytest.raises(PatchRejected) as e:
        six_form.apply(Proposal(diff="--- a/op_kernel/other.cpp\n+++ b/op_kernel/other.cpp\n@@ -1,1 +1,1 @@\n-a\n+b\n"),
                       six_form.source_text)
    assert e.value.reason == "unknown-file" and "op_kernel/other.cpp" in e.value.message
    with pytest.raises(PatchRejected) as e:  # a whole bundle with one more file
        six_form.apply(Proposal(candidate=six_form.source_text + "//@ file op_kernel/extra.cpp role=kernel\nint x;\n"),
                       six_form.source_text)
    assert e.value.reason == "files" and "adds op_kernel/extra.cpp" in e.value.message
    with pytest.raises(PatchRejected) as e:
        six_form.apply(Proposal(candidate="int main() {}\n"), six_form.source_text)
    assert e.value.reason == "syntax"


def test_a_broken_operator_chain_is_the_proposals_fault(six_form, tmp_path):
    bundle = parse_bundle(six_form.source_text)
    host = "op_host/add_custom.cpp"
    text = six_form.apply(Proposal(candidate=bundle.replace(host, bundle.file(host).text.replace(
        "OP_ADD(AddCustom)", "OP_ADD(SubCustom)")).text), six_form.source_text)
    (tmp_path / "attempts").mkdir()
    with pytest.raises(PatchRejected) as e:
        six_form.write(text, tmp_path / "attempts", 1)
    assert e.value.reason == "syntax" and "OP_ADD(SubCustom)" in e.value.message


def _run(args, tmp_path):
    r = CliRunner().invoke(cli, ["run", *map(str, args), "--seed", "7", "--json", "--out", str(tmp_path / "out")])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output
    return r, json.loads(r.output[r.output.index("{"):])


def _passes(problem: Path, candidate: Path) -> bool:
    from repair.engine import evaluate

    result = evaluate(problem, candidate, backend="ascendc-cpu", seed=11)
    assert result.emulated
    return result.passed


@pytest.mark.parametrize("candidate, final", [("npukb/nearmiss_tail", "final"), ("nearmiss_tail.py", "final.py")])
def test_scripted_repair_on_ascendc_cpu_by_default(candidate, final, tmp_path, monkeypatch):
    monkeypatch.setenv("REPAIR_BACKEND", "triton-cpu")  # a Triton default: an AscendC candidate still gets ascendc-cpu
    script = SCRIPTED / "add" / (str(Path(candidate).with_suffix("")) + ".yaml")
    r, info = _run([ADD / "problem.py", ADD / candidate, "--worker", "scripted", "--script", script], tmp_path)
    assert r.exit_code == 0 and info["status"] == "repaired" and info["outcomes"] == ["accepted"], r.output
    assert info["language"] == "ascendc" and info["backend"] == "ascendc-cpu" and info["emulated"] is True
    out = tmp_path / "out"
    assert (out / "final.bundle").is_file() and (out / final).exists()
    record = json.loads((out / "record.json").read_text())
    assert record["language"] == "ascendc" and record["emulated"] is True and record["backend"] == "ascendc-cpu"
    assert record["diagnosis"]["bug_class"] == "tail-tile-dropped"
    assert "+        if (tail > 0) {" in record["diff"]
    assert _passes(ADD / "problem.py", out / final)  # the final candidate in its own format, as `repair eval` takes it
    if candidate.startswith("npukb"):  # `kb ingest` admits the record; retrieval keeps it to AscendC queries
        monkeypatch.setenv("KB_EMBEDDER", "hash")
        from ingest.api import ingest
        from kbstore.retrieve import Retriever

        report = ingest([out / "record.json"], tmp_path / "kb")
        assert [o.outcome for o in report.outcomes] == ["admitted"]
        kb = Retriever.open(tmp_path / "kb")
        assert [h.language for h in kb.query("tail tile dropped", k=3, language="ascendc")] == ["ascendc"]
        assert kb.query("tail tile dropped", k=3, language="triton") == []


@pytest.mark.slow
def test_fake_llm_sees_the_bundle_and_its_diff_repairs(tmp_path, monkeypatch):
    """The litellm worker on the scripted model: the prompt shows the C++ files; the reply's diff names one."""
    from repair.workers import fake_llm

    diff = (SCRIPTED / "add" / "npukb" / "nearmiss_tail.yaml").read_text()
    import yaml

    step = yaml.safe_load(diff)[0]
    reply = f"The tail tile is skipped on the last core.\n```diff\n{step['diff']}```\nCITED: none\n" \
            "TITLE: tail dropped\nBUG_CLASS: tail-tile-dropped\nROOT_CAUSE: the last core skips it\nFIX: drop the test\n"
    replies = tmp_path / "replies.yaml"
    replies.write_text(yaml.safe_dump([reply]))
    handler = {}
    register = fake_llm.register
    monkeypatch.setattr(fake_llm, "register", lambda r, **kw: handler.setdefault("h", register(r, **kw)))
    r, info = _run([ADD / "problem.py", ADD / "npukb" / "nearmiss_tail", "--worker", "litellm", "--model",
                    "fakellm/demo", "--script", replies, "--backend", "ascendc-cpu"], tmp_path)
    assert r.exit_code == 0 and info["status"] == "repaired", r.output
    messages = handler["h"].calls[0]
    assert "AscendC" in messages[0]["content"]
    assert "//@ file op_kernel/add_custom.cpp role=kernel" in messages[1]["content"]
    assert "```bundle" in messages[1]["content"] and "tier compact" in messages[1]["content"]
    record = json.loads((tmp_path / "out" / "record.json").read_text())
    from repair.workers.litellm_worker import load_templates, template_sha256

    assert record["worker"]["prompt_template_sha256"] == template_sha256(load_templates("ascendc"))
    assert record["diagnosis"]["bug_class"] == "tail-tile-dropped"


def test_a_near_miss_the_emulation_cannot_judge_is_no_failed_repair(tmp_path):
    """Its first evaluation is `unsupported` (an API ascendc-cpu lacks): the run stops there with exit 3, the worker
    is never asked, and no record is written (there is no repair to learn from)."""
    from ascendc_fixtures import variant

    near = variant(ADD / "nearmiss_tail.py", tmp_path / "cand", ("Add(zLocal, xLocal, yLocal, count);",
                                                                 "Add(zLocal, xLocal, yLocal, count); "
                                                                 "Sort32(zLocal, xLocal, yLocal, count);"))
    script = SCRIPTED / "add" / "nearmiss_tail.yaml"
    r, info = _run([ADD / "problem.py", near, "--worker", "scripted", "--script", script], tmp_path)
    assert r.exit_code == 3 and info["status"] == "unsupported" and info["attempts"] == 0, r.output
    assert not (tmp_path / "out" / "record.json").exists()
    end = [json.loads(line) for line in (tmp_path / "out" / "trajectory.jsonl").read_text().splitlines()][-1]
    assert end["event"] == "end" and end["why"].startswith("ascendc-cpu does not emulate AscendC's Sort32")
