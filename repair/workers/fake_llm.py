"""A scripted model behind litellm's custom-provider hook: real token counts, no network.

    llm = register(["```python\\n...\\n```\\nCITED: kb-1", {"error": "RateLimitError"}])
    litellm.completion(model="fakellm/any", messages=...)   # served by llm, in order

From the CLI: `repair run ... --worker litellm --model fakellm/NAME --script replies.yaml`, where the
YAML is a list of replies: a string, {file: PATH} (relative to the YAML), or {error: NAME} to raise
that litellm exception (RateLimitError, Timeout, AuthenticationError, ContextWindowExceededError, ...).
Prompt tokens are counted with litellm's tokenizer; after the first call the system message counts as
cached, the way provider prompt caches report it.
"""
from __future__ import annotations

from pathlib import Path

from repair.errors import BadInput

PROVIDER = "fakellm"
_ERRORS = ("RateLimitError", "APIConnectionError", "Timeout", "ServiceUnavailableError", "InternalServerError",
           "AuthenticationError", "ContextWindowExceededError", "BadRequestError")
_TOKENIZER_MODEL = "gpt-3.5-turbo"  # litellm ships this tokenizer, so counting needs no download


def _custom_llm_base():
    from litellm import CustomLLM

    return CustomLLM


def make_error(name: str, model: str = "scripted") -> Exception:
    import litellm

    if name not in _ERRORS:
        raise BadInput(f"unknown scripted error {name!r} (known: {', '.join(_ERRORS)})")
    return getattr(litellm, name)(message=f"scripted {name}", llm_provider=PROVIDER, model=model)


class ScriptedLLM(_custom_llm_base()):  # type: ignore[misc]
    """Replies in order; each call records the messages it was given (tests read `calls`)."""

    def __init__(self, replies: list, *, cache_system: bool = True):
        super().__init__()
        self.replies = list(replies)
        self.cache_system = cache_system
        self.calls: list[list[dict]] = []

    def completion(self, model, messages, api_base=None, custom_prompt_dict=None, model_response=None, *args, **kwargs):
        import litellm

        index = len(self.calls)
        self.calls.append([dict(m) for m in messages])
        if index >= len(self.replies):
            raise litellm.BadRequestError(message=f"scripted model has no reply {index + 1}", model=model,
                                          llm_provider=PROVIDER)
        reply = self.replies[index]
        if isinstance(reply, dict) and "error" in reply:
            raise make_error(str(reply["error"]), model)
        if isinstance(reply, BaseException):
            raise reply
        text = str(reply)
        prompt = litellm.token_counter(model=_TOKENIZER_MODEL, messages=messages)
        completion = litellm.token_counter(model=_TOKENIZER_MODEL, text=text, count_response_tokens=True)
        system = [m for m in messages if m.get("role") == "system"]
        cached = litellm.token_counter(model=_TOKENIZER_MODEL, messages=system) if (
            self.cache_system and system and self._served_before()) else 0
        return litellm.ModelResponse(
            model=model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            usage={"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                   "prompt_tokens_details": {"cached_tokens": min(cached, prompt)}},
        )

    def _served_before(self) -> bool:
        return any(not (isinstance(r, dict) and "error" in r) and not isinstance(r, BaseException)
                   for r in self.replies[: len(self.calls) - 1])


def register(replies: list, *, provider: str = PROVIDER, cache_system: bool = True) -> ScriptedLLM:
    """Serve `provider/<anything>` from these replies (replacing an earlier registration of the provider)."""
    import litellm

    handler = ScriptedLLM(replies, cache_system=cache_system)
    litellm.custom_provider_map = [m for m in litellm.custom_provider_map if m.get("provider") != provider]
    litellm.custom_provider_map.append({"provider": provider, "custom_handler": handler})
    return handler


def load_replies(path: Path) -> list:
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise BadInput(f"{path}: cannot read replies ({e.strerror})") from None
    except yaml.YAMLError as e:
        raise BadInput(f"{path}: not valid YAML ({e})") from None
    if isinstance(data, dict):
        data = data.get("replies")
    if not isinstance(data, list) or not data:
        raise BadInput(f"{path}: replies are a non-empty list (or a mapping with 'replies')")
    replies = []
    for i, item in enumerate(data, 1):
        if isinstance(item, dict) and "file" in item:
            try:
                item = (Path(path).parent / str(item["file"])).read_text(encoding="utf-8")
            except OSError as e:
                raise BadInput(f"{path}: reply {i}: cannot read {item['file']} ({e.strerror})") from None
        elif isinstance(item, dict) and "error" in item:
            if item["error"] not in _ERRORS:
                raise BadInput(f"{path}: reply {i}: unknown error {item['error']!r}")
        elif not isinstance(item, str):
            raise BadInput(f"{path}: reply {i}: a reply is text, {{file: PATH}} or {{error: NAME}}")
        replies.append(item)
    return replies
