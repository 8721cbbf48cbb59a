"""Secrets out of text: provider keys and the values of secret-named environment variables become a marker.

Every text that may carry what a candidate printed or raised goes through `redact` before it reaches a
prompt, a record, a checkpoint or a log line. Two nets: the value of every environment variable whose
name says it is a secret (OPENAI_API_KEY, HF_TOKEN, ...) wherever it appears, and the shapes providers
give their keys (sk-..., AKIA..., ghp_..., ...) for keys that came from somewhere else.
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE", re.IGNORECASE)
NOT_SECRET = re.compile(r"_(SOCK|DIR|PATH|HOME|ADDRESS)$", re.IGNORECASE)  # SSH_AUTH_SOCK: where, not what
MIN_SECRET_LEN = 8  # shorter values ("1", "true", a port) are settings, and replacing them would mangle text

KEY_SHAPES = re.compile(r"""
      \bsk-(?:ant-|proj-|or-|live-|test-)?[A-Za-z0-9_\-]{12,}   # OpenAI, Anthropic, OpenRouter, Stripe-like
    | \b(?:AKIA|ASIA)[0-9A-Z]{16}\b                             # AWS access key ids
    | \bAIza[0-9A-Za-z_\-]{30,}                                 # Google API keys
    | \b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})  # GitHub tokens
    | \bhf_[A-Za-z0-9]{30,}                                     # Hugging Face tokens
    | \bxox[abprs]-[A-Za-z0-9\-]{10,}                           # Slack tokens
    | \b(?:gsk|r8|pplx|nvapi)[_-][A-Za-z0-9_\-]{20,}            # Groq, Replicate, Perplexity, NVIDIA
    | -----BEGIN[ A-Z]*PRIVATE\ KEY-----[\s\S]*?-----END[ A-Z]*PRIVATE\ KEY-----
    """, re.VERBOSE)
MARK = "[redacted]"


def secret_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """Names of the environment variables whose values are treated as secrets."""
    env = os.environ if environ is None else environ
    return sorted(k for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LEN)


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says its value is a secret."""
    return bool(SECRET_NAME.search(name)) and not NOT_SECRET.search(name)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with every secret-named environment value and every key-shaped string replaced by a marker."""
    if not text:
        return text
    env = os.environ if environ is None else environ
    # longest first, so a value that contains another is replaced whole
    for name in sorted(secret_names(env), key=lambda k: -len(env[k])):
        if env[name] in text:
            text = text.replace(env[name], f"[redacted:{name}]")
    return KEY_SHAPES.sub(MARK, text)


def redact_tree(value, environ: Mapping[str, str] | None = None):
    """`value` (JSON-like: dicts, lists, strings) with every string redacted; dict keys are kept as they are."""
    if isinstance(value, str):
        return redact(value, environ)
    if isinstance(value, Mapping):
        return {k: redact_tree(v, environ) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(v, environ) for v in value]
    return value
