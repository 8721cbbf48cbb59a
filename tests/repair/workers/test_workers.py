"""Workers: the scripted replayer, the litellm worker through a scripted custom provider, the registry, patches."""
from __future__ import annotations

import pytest

from repair.errors import BadInput, EnvironmentMissing
from repair.loop.patch import PatchRejected, apply_unified_diff
from repair.workers import WORKERS, WorkerOptions, make_worker
from repair.workers.base import AttemptNote, Pattern, Usage, WorkerContext, WorkerExhausted, WorkerFailed
from repair.workers.litellm_worker import (
    LiteLLMWorker,
    build_messages,
    load_templates,
    parse_reply,
    redact,
    template_sha256,
)
from repair.workers.scripted import load_script

LITELLM = pytest.mark.slow  # the first test to import litellm pays 5-10 s here

KERNEL = "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x + 0\n"
REPLY = """The mask lets one element past the row through.

```python
import torch

class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x + 1
```
CITED: kb-mask, kb-other
TITLE: Off-by-one load mask
BUG_CLASS: mask-off-by-one
ROOT_CAUSE: the mask uses <= instead of <
FIX: compare with <
"""


def ctx(**kw) -> WorkerContext:
    base = dict(attempt=1, problem_text="class Model: pass\n", candidate_text=KERNEL, forensics="tier compact: 0 of 2",
                patterns=(Pattern(id="kb-mask", score=0.91, title="mask", bug_class="mask-off-by-one", fix="use <",
                                  before="mask=c <= n", after="mask=c < n"),))
    base.update(kw)
    return WorkerContext(**base)


# -- scripted ------------------------------------------------------------------------------------

def test_scripted_worker_replays_files_diffs_and_citations(tmp_path):
    (tmp_path / "fix.py").write_text(KERNEL)
    (tmp_path / "s.yaml").write_text(
        "steps:\n"
        "  - file: fix.py\n    cited: top\n    usage: {prompt_tokens: 10, completion_tokens: 5}\n"
        "  - diff: |\n      @@ -1 +1 @@\n      -a\n      +b\n    cited: [x]\n"
        "  - candidate: 'print(1)'\n    cited: all\n    diagnosis: {bug_class: loop-tail, fix: f}\n")
    worker = make_worker("scripted", WorkerOptions(script=tmp_path / "s.yaml"))
    first, second, third = (worker.propose(ctx()) for _ in range(3))
    assert first.candidate == KERNEL and first.cited == ("kb-mask",) and first.usage == Usage(10, 5)
    assert second.diff.startswith("@@ -1 +1 @@") and second.cited == ("x",) and second.candidate is None
    assert third.candidate == "print(1)" and third.diagnosis["bug_class"] == "loop-tail"
    with pytest.raises(WorkerExhausted):
        worker.propose(ctx())


def test_scripted_directory_is_replayed_in_name_order(tmp_path):
    (tmp_path / "02.diff").write_text("@@ -1 +1 @@\n-a\n+b\n")
    (tmp_path / "01.py").write_text(KERNEL)
    (tmp_path / "notes.txt").write_text("ignored")
    steps = load_script(tmp_path)
    assert [s.candidate is not None for s in steps] == [True, False]


@pytest.mark.parametrize("text,problem", [
    ("steps: []\n", "non-empty list"),
    ("- {file: missing.py}\n", "cannot read"),
    ("- {candidate: x, diff: y}\n", "exactly one"),
    ("- {candidate: x, usage: {dollars: 3}}\n", "usage takes only"),
    ("- [unclosed\n", "not valid YAML"),
])
def test_bad_scripts_name_the_file_and_the_problem(tmp_path, text, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(BadInput, match=problem) as e:
        load_script(path)
    assert "bad.yaml" in str(e.value)


def test_registry():
    assert {"scripted", "litellm"} <= set(WORKERS)
    with pytest.raises(BadInput, match="unknown worker 'gpt'"):
        make_worker("gpt")
    with pytest.raises(BadInput, match="--script"):
        make_worker("scripted")
    with pytest.raises(BadInput, match="--model"):
        make_worker("litellm", WorkerOptions(model=None))


# -- litellm, through the scripted custom provider -----------------------------------------------

@pytest.fixture(autouse=True)
def offline(monkeypatch):
    from provenance.offline import OFFLINE_ENV

    for k, v in OFFLINE_ENV.items():  # litellm reads these at import: never fetch the cost map in tests
        monkeypatch.setenv(k, v)


@pytest.fixture
def fake():
    import litellm

    from repair.workers import fake_llm

    saved = list(litellm.custom_provider_map)
    yield fake_llm
    litellm.custom_provider_map = saved


def test_parse_reply_takes_the_last_python_block_and_the_fields():
    reply = parse_reply("```python\nold\n```\n" + REPLY)
    assert reply.candidate.strip().endswith("return x + 1") and reply.diff is None
    assert reply.cited == ("kb-mask", "kb-other")
    assert reply.diagnosis == {"title": "Off-by-one load mask", "bug_class": "mask-off-by-one",
                               "root_cause": "the mask uses <= instead of <", "fix": "compare with <",
                               "explanation": "The mask lets one element past the row through."}  # its prose
    assert parse_reply("```diff\n@@ -1 +1 @@\n-a\n+b\n```\nCITED: none").diff.startswith("@@")
    assert parse_reply("no code at all").candidate is None and parse_reply("CITED: none").cited == ()


@LITELLM
def test_litellm_worker_counts_real_tokens_and_cached_prompt(fake):
    import litellm

    llm = fake.register([REPLY, REPLY])
    worker = LiteLLMWorker("fakellm/test", sleep=lambda s: None)
    first, second = worker.propose(ctx()), worker.propose(ctx(attempt=2))
    expected_prompt = litellm.token_counter(model="gpt-3.5-turbo", messages=llm.calls[0])
    assert first.usage.prompt_tokens == expected_prompt > 100
    assert first.usage.completion_tokens == litellm.token_counter(model="gpt-3.5-turbo", text=REPLY,
                                                                  count_response_tokens=True)
    assert first.usage.cached_tokens == 0 and 0 < second.usage.cached_tokens < second.usage.prompt_tokens
    assert first.cited == ("kb-mask", "kb-other") and first.candidate.strip().endswith("x + 1")
    assert first.diagnosis["bug_class"] == "mask-off-by-one"
    user = llm.calls[0][1]["content"]
    assert "kb-mask" in user and "mask=c <= n" in user and "tier compact: 0 of 2" in user and KERNEL.strip() in user
    assert worker.info.prompt_template_sha256 == template_sha256(load_templates())


@LITELLM
def test_transient_errors_are_retried_with_backoff(fake):
    fake.register([{"error": "RateLimitError"}, {"error": "Timeout"}, {"error": "ServiceUnavailableError"}, REPLY])
    sleeps = []
    worker = LiteLLMWorker("fakellm/test", max_retries=3, backoff_s=1.0, sleep=sleeps.append)
    proposal = worker.propose(ctx())
    assert proposal.candidate is not None and sleeps == [1.0, 2.0, 4.0] and worker.retries == 3


@LITELLM
def test_retries_give_up_after_max_retries(fake):
    fake.register([{"error": "APIConnectionError"}] * 5)
    worker = LiteLLMWorker("fakellm/test", max_retries=2, sleep=lambda s: None)
    with pytest.raises(WorkerFailed, match="APIConnectionError after 3 tries"):
        worker.propose(ctx())


@LITELLM
@pytest.mark.parametrize("error,raised", [
    ("AuthenticationError", EnvironmentMissing),
    ("ContextWindowExceededError", WorkerFailed),
    ("BadRequestError", WorkerFailed),
])
def test_permanent_errors_are_not_retried(fake, error, raised):
    llm = fake.register([{"error": error}, REPLY])
    sleeps = []
    with pytest.raises(raised):
        LiteLLMWorker("fakellm/test", sleep=sleeps.append).propose(ctx())
    assert len(llm.calls) == 1 and sleeps == []


def test_keys_are_redacted_from_messages(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-verysecretvalue123")
    assert "verysecret" not in redact("Incorrect API key provided: sk-verysecretvalue123")
    assert "abcdefgh" not in redact("key sk-abcdefghijkl was refused")


def test_no_key_quoted_by_a_candidate_reaches_the_prompt(monkeypatch):
    """What the evaluation found quotes the candidate's own error: a key it printed there is not sent."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-value-without-a-key-shape")
    forensics = "case c0: RuntimeError: {'ANTHROPIC_API_KEY': 'plain-value-without-a-key-shape'}, sk-proj-0123456789abcdefXYZ"
    text = "\n".join(m["content"] for m in build_messages(ctx(forensics=forensics), load_templates()))
    assert "plain-value-without" not in text and "0123456789abcdefXYZ" not in text
    assert "[redacted:ANTHROPIC_API_KEY]" in text


@LITELLM
def test_fakellm_model_from_the_cli_reads_a_replies_file(fake, tmp_path):
    (tmp_path / "reply.md").write_text(REPLY)
    (tmp_path / "replies.yaml").write_text("- {error: RateLimitError}\n- {file: reply.md}\n")
    worker = make_worker("litellm", WorkerOptions(model="fakellm/demo", script=tmp_path / "replies.yaml"))
    worker.sleep = lambda s: None
    assert worker.propose(ctx()).cited == ("kb-mask", "kb-other")
    (tmp_path / "bad.yaml").write_text("- {error: Nope}\n")
    with pytest.raises(BadInput, match="unknown error 'Nope'"):
        make_worker("litellm", WorkerOptions(model="fakellm/demo", script=tmp_path / "bad.yaml"))


def test_messages_carry_the_history():
    messages = build_messages(ctx(history=(AttemptNote(1, "integrity-violation", "framework-op"),)),
                              load_templates())
    assert messages[0]["role"] == "system" and "- attempt 1: integrity-violation framework-op" in messages[1]["content"]


# -- patches -------------------------------------------------------------------------------------

def test_unified_diff_applies_at_an_offset_and_refuses_a_mismatch():
    text = "a\nb\nc\nd\ne\n"
    assert apply_unified_diff(text, "@@ -1,2 +1,2 @@\n c\n-d\n+D\n") == "a\nb\nc\nD\ne\n"  # stated line 1, found at 3
    assert apply_unified_diff(text, "@@ -2,0 +3,1 @@\n+new\n") == "a\nb\nnew\nc\nd\ne\n"
    with pytest.raises(PatchRejected, match="does not match"):
        apply_unified_diff(text, "@@ -1,1 +1,1 @@\n-zzz\n+y\n")
    with pytest.raises(PatchRejected, match="2 files"):
        apply_unified_diff(text, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+A\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+A\n")


@LITELLM
def test_a_missing_key_fails_before_any_work(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EnvironmentMissing, match="set OPENAI_API_KEY in the environment"):
        LiteLLMWorker("gpt-4o")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    assert LiteLLMWorker("gpt-4o").info.model == "gpt-4o"  # constructing calls nothing
