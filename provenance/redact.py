"""Secrets out of text: provider keys and the values of secret-named environment variables become a marker.

Every text that may carry what a candidate printed or raised goes through `redact` before it reaches a
prompt, a record, a checkpoint or a log line. The nets: the value of every environment variable whose
name says it is a secret (OPENAI_API_KEY, HF_TOKEN, ...) wherever it appears, forwards or reversed; the
shapes providers give their keys (sk-..., AKIA..., ghp_..., ...), forwards or reversed, for keys that came
from somewhere else; the value of a `.env`-style assignment to a secret-named variable
(`DB_PASSWORD=hunter2`, `export API_TOKEN="..."`, `password: ...`), which may be short; and crypt(3) password
hashes (`root:$6$salt$hash:...`, what /etc/shadow holds).
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
# a .env line (`NAME=value`, `export NAME="value"`: at a line's start, upper case as shells write them) or a
# configuration file's `password: value` where the name says it is a secret; the value may be short. Code such as
# `SORT_KEY: tl.constexpr` or `key = x` is left alone, and so are numbers of fewer than 8 digits (`MAX_TOKENS=4096`).
ASSIGNMENT = re.compile(r"""
    (?:(?m:^)[ \t]*(?P<name>(?:export[ \t]+)?[A-Z][A-Z0-9_]*)(?P<sep>[ \t]*=[ \t]*)
     |(?<![A-Za-z0-9_])(?P<lname>password|passwd|pwd|secret|api_key|apikey|access_token|auth_token|secret_key
                                |private_key)(?P<lsep>["']?[ \t]*[=:][ \t]*))
    (?P<value>"[^"\n]{4,}"|'[^'\n]{4,}'|[^\s"',;]{4,})
    """, re.VERBOSE | re.IGNORECASE)
# crypt(3) hashes: MD5 ($1$), bcrypt ($2a$...), SHA-256/512 ($5$, $6$), yescrypt ($y$), gost-yescrypt, scrypt ($7$)
CRYPT_HASH = re.compile(r"\$(?:1|2[abxy]?|5|6|7|y|gy|sha1|md5)\$[./A-Za-z0-9$=,+-]{8,}")


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
        for value in (env[name], env[name][::-1]):
            if value in text:
                text = text.replace(value, f"[redacted:{name}]")
    text = ASSIGNMENT.sub(_assignment, text)
    text = CRYPT_HASH.sub(MARK, KEY_SHAPES.sub(MARK, text))
    return _reversed_keys(text)


def _assignment(m: re.Match) -> str:
    name, sep = (m.group("name"), m.group("sep")) if m.group("name") else (m.group("lname"), m.group("lsep"))
    value = m.group("value").strip("\"'")
    if (m.group("name") and not name.split()[-1].isupper()) or not is_secret_name(name.split()[-1]) \
            or value.startswith("[redacted") or (value.isdigit() and len(value) < 8):
        return m.group(0)
    return f"{name}{sep}{MARK}"


def _reversed_keys(text: str) -> str:
    """Key shapes written backwards (a candidate hiding a key from the forwards net)."""
    n, spans = len(text), []
    for m in KEY_SHAPES.finditer(text[::-1]):
        spans.append((n - m.end(), n - m.start()))
    for start, end in reversed(spans):
        text = text[:start] + MARK + text[end:]
    return text


def redact_tree(value, environ: Mapping[str, str] | None = None):
    """`value` (JSON-like: dicts, lists, strings) with every string redacted; dict keys are kept as they are."""
    if isinstance(value, str):
        return redact(value, environ)
    if isinstance(value, Mapping):
        return {k: redact_tree(v, environ) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_tree(v, environ) for v in value]
    return value
