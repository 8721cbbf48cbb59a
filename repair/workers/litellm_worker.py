"""A worker backed by any model litellm can reach; prompts are data files whose hash goes into the record.

Keys come only from the environment (litellm reads them itself); nothing here writes them anywhere,
and error texts are scrubbed of environment secrets before they reach a log.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Callable

from provenance.canonical import content_hash, sha256_text
from provenance.redact import redact
from repair.errors import BadInput, EnvironmentMissing
from repair.workers.base import Pattern, Proposal, Usage, WorkerContext, WorkerFailed, WorkerInfo

PROMPTS = Path(__file__).parent / "prompts"
TEMPLATES = ("system.md", "user.md")  # a Triton candidate's prompt
LANGUAGE_TEMPLATES = {"python": TEMPLATES, "ascendc": ("ascendc_system.md", "ascendc_user.md")}  # (system, user)
TRANSIENT = ("RateLimitError", "APIConnectionError", "Timeout", "ServiceUnavailableError", "InternalServerError",
             "BadGatewayError")
_CODE = re.compile(r"```(python|py|diff|patch)?[ \t]*\n(.*?)```", re.DOTALL)
_ANY_CODE = re.compile(r"```([\w+-]*)[ \t]*\n(.*?)```", re.DOTALL)  # an AscendC reply: bundle, diff, cpp, ...
_FIELD = re.compile(r"^\s*\**(CITED|TITLE|BUG_CLASS|ROOT_CAUSE|FIX)\**\s*:\s*(.*)$", re.MULTILINE | re.IGNORECASE)


def load_templates(language: str = "python") -> dict[str, str]:
    """The prompt templates for a candidate language (python: Triton; ascendc: a bundle of C++ sources)."""
    try:
        names = LANGUAGE_TEMPLATES[language]
    except KeyError:
        raise BadInput(f"no prompt templates for {language!r} candidates (known: {', '.join(LANGUAGE_TEMPLATES)})") from None
    return {name: (PROMPTS / name).read_text(encoding="utf-8") for name in names}


def template_sha256(templates: dict[str, str]) -> str:
    return content_hash({name: sha256_text(text) for name, text in sorted(templates.items())})


@dataclass(frozen=True)
class Reply:
    candidate: str | None
    diff: str | None
    cited: tuple[str, ...]
    diagnosis: dict | None


def parse_reply(text: str, language: str = "python") -> Reply:
    """The last python block is the candidate (a diff block when there is none); CITED/... lines follow it.
    An AscendC reply: the last block holding a bundle is the candidate, else the last diff block."""
    if language == "ascendc":
        from repair.ascendc import is_bundle

        blocks = _ANY_CODE.findall(text or "")
        python = [body for lang, body in blocks if lang == "bundle" or is_bundle(body)]
        diffs = [body for lang, body in blocks if lang in ("diff", "patch") or (
            lang == "" and body.lstrip().startswith(("--- ", "@@ ")))]
    else:
        blocks = _CODE.findall(text or "")
        python = [body for lang, body in blocks if lang in ("python", "py", "")]
        diffs = [body for lang, body in blocks if lang in ("diff", "patch")]
    fields = {k.upper(): v.strip() for k, v in _FIELD.findall((_ANY_CODE if language == "ascendc" else _CODE).sub(
        "", text or ""))}
    cited = tuple(c.strip().strip("`[]") for c in re.split(r"[,\s]+", fields.get("CITED", "")) if c.strip())
    cited = tuple(c for c in cited if c.lower() not in ("none", "n/a", "-"))
    diagnosis = {k.lower(): fields[k] for k in ("TITLE", "BUG_CLASS", "ROOT_CAUSE", "FIX") if fields.get(k)} or None
    prose = redact(explanation(text, language))  # it may reach a published record: never a key
    if prose:  # kept even when the model ignores the TITLE:/ROOT_CAUSE: lines (the record falls back to it)
        diagnosis = {**(diagnosis or {}), "explanation": prose}
    return Reply(python[-1] if python else None, None if python or not diffs else diffs[-1], cited, diagnosis)


EXPLANATION_CHARS = 4000


def explanation(text: str, language: str = "python") -> str:
    """The reply's prose: what is left without its code blocks and its CITED/TITLE/... lines (bounded)."""
    rest = _FIELD.sub("", (_ANY_CODE if language == "ascendc" else _CODE).sub("", text or ""))
    return " ".join(rest.split())[:EXPLANATION_CHARS]


def save_exchange(directory: Path, attempt: int, model: str, messages: list[dict], reply: str, usage: Usage,
                  parsed: Reply) -> Path:
    """One model call of a run, redacted (provenance.redact: keys, tokens, secret-named values), with its token
    counts: DIR/attempt-NN.json (a retried call overwrites nothing: -2, -3, ...)."""
    import json

    from provenance.redact import redact_tree

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"attempt-{attempt:02d}.json"
    n = 2
    while path.exists():
        path, n = directory / f"attempt-{attempt:02d}-{n}.json", n + 1
    record = {"schema": "repair.llm.exchange/v1", "attempt": attempt, "model": model,
              "messages": redact_tree(messages), "reply": redact(reply),
              "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                        "cached_tokens": usage.cached_tokens},
              "parsed": redact_tree({"cited": list(parsed.cited), "diagnosis": parsed.diagnosis,
                                     "code": "file" if parsed.candidate else "diff" if parsed.diff else None})}
    path.write_text(json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def render_patterns(patterns: tuple[Pattern, ...]) -> str:
    if not patterns:
        return "(none retrieved)"
    parts = []
    for p in patterns:
        head = f"### {p.id} (score {p.score:.3f}) {p.title}".rstrip()
        body = [head, f"bug class: {p.bug_class}" if p.bug_class else "", f"fix: {p.fix}" if p.fix else ""]
        if p.before or p.after:
            body.append(f"before:\n```\n{p.before.strip()}\n```\nafter:\n```\n{p.after.strip()}\n```")
        parts.append("\n".join(b for b in body if b))
    return "\n\n".join(parts)


def build_messages(ctx: WorkerContext, templates: dict[str, str]) -> list[dict]:
    """The system and user messages; `templates` holds one *system.md and one *user.md (load_templates)."""
    system = next(text for name, text in templates.items() if name.endswith("system.md"))
    user_template = next(text for name, text in templates.items() if name.endswith("user.md"))
    history = "\n".join(f"- attempt {h.attempt}: {h.outcome} {h.detail}".rstrip() for h in ctx.history) or "(none)"
    user = Template(user_template).safe_substitute(
        problem=ctx.problem_text.strip(), candidate=ctx.candidate_text.strip(), attempt=ctx.attempt,
        forensics=ctx.forensics.strip(), patterns=render_patterns(ctx.patterns), history=history,
    )
    # the evaluation's findings quote what the candidate printed: no key it found there reaches the provider
    return [{"role": "system", "content": system.strip()}, {"role": "user", "content": redact(user)}]


def usage_of(response) -> Usage:
    u = getattr(response, "usage", None)
    if u is None:
        return Usage()
    details = getattr(u, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or getattr(u, "cache_read_input_tokens", None) or 0
    return Usage(int(u.prompt_tokens or 0), int(u.completion_tokens or 0), int(cached))


def check_credentials(model: str) -> None:
    """Fail before any evaluation when the provider's key is not in the environment (names only, never values)."""
    import litellm

    litellm.suppress_debug_info = True
    try:
        env = litellm.validate_environment(model=model)
    except Exception:  # noqa: BLE001 - an unknown provider is for the call itself to report
        return
    missing = [k for k in env.get("missing_keys") or [] if k.endswith(("_KEY", "_TOKEN"))]
    if missing:
        raise EnvironmentMissing(f"model {model}: set {' or '.join(missing)} in the environment "
                                 "(keys are read from the environment only)")


class LiteLLMWorker:
    def __init__(self, model: str, *, temperature: float = 0.0, max_retries: int = 3, backoff_s: float = 2.0,
                 timeout_s: float = 600.0, sleep: Callable[[float], None] = time.sleep,
                 exchanges_dir: Path | None = None):
        if not model:
            raise BadInput("the litellm worker needs --model (any model string litellm accepts)")
        self.model, self.temperature, self.timeout_s = model, temperature, timeout_s
        self.max_retries, self.backoff_s, self.sleep = max_retries, backoff_s, sleep
        self.templates = {"python": load_templates()}
        self.info = WorkerInfo(kind="litellm", model=model, prompt_template_sha256=template_sha256(self.templates["python"]))
        self.retries = 0  # transient failures retried over the run
        self.exchanges_dir = exchanges_dir  # where each call's prompt and reply are kept (a run's out/exchanges)
        check_credentials(model)

    def propose(self, ctx: WorkerContext) -> Proposal:
        templates = self.templates.get(ctx.language)
        if templates is None:
            templates = self.templates[ctx.language] = load_templates(ctx.language)
        # the record names the templates the run's prompts came from (a run repairs one language)
        self.info = WorkerInfo(kind="litellm", model=self.model, prompt_template_sha256=template_sha256(templates))
        messages = build_messages(ctx, templates)
        response = self._complete(messages)
        text = response.choices[0].message.content or ""
        reply = parse_reply(text, ctx.language)
        usage = usage_of(response)
        if self.exchanges_dir is not None:
            save_exchange(Path(self.exchanges_dir), ctx.attempt, self.model, messages, text, usage, reply)
        note = "" if reply.candidate or reply.diff else "the reply had no code block"
        return Proposal(candidate=reply.candidate, diff=reply.diff, cited=reply.cited, usage=usage,
                        turns=1, diagnosis=reply.diagnosis, note=note)

    def _complete(self, messages: list[dict]):
        import litellm

        litellm.suppress_debug_info = True
        transient = tuple(getattr(litellm, n) for n in TRANSIENT if hasattr(litellm, n))
        for attempt in range(self.max_retries + 1):
            try:
                return litellm.completion(model=self.model, messages=messages, temperature=self.temperature,
                                          timeout=self.timeout_s, num_retries=0)
            except litellm.AuthenticationError as e:
                raise EnvironmentMissing(f"model {self.model}: authentication failed; set the provider's key in the "
                                         f"environment ({redact(str(e))[:200]})") from None
            except litellm.ContextWindowExceededError as e:
                raise WorkerFailed(f"model {self.model}: context window exceeded ({redact(str(e))[:200]})") from None
            except litellm.BadRequestError as e:
                raise WorkerFailed(f"model {self.model}: bad request ({redact(str(e))[:200]})") from None
            except transient as e:
                if attempt == self.max_retries:
                    raise WorkerFailed(f"model {self.model}: {type(e).__name__} after {attempt + 1} tries "
                                       f"({redact(str(e))[:200]})") from None
                self.retries += 1
                self.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")


def from_options(options) -> LiteLLMWorker:
    model = options.model or ""
    if model.startswith("fakellm/"):
        from repair.workers.fake_llm import load_replies, register

        if options.script is None:
            raise BadInput("model fakellm/... needs --script REPLIES.yaml (the scripted replies)")
        register(load_replies(Path(options.script)))
    elif options.script is not None:
        raise BadInput("--script is for the scripted worker (or a fakellm/ model)")
    return LiteLLMWorker(model, temperature=options.temperature, max_retries=options.max_retries,
                         timeout_s=options.timeout_s, exchanges_dir=options.extra.get("exchanges_dir"))
