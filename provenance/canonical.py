"""Canonical JSON and content hashes: the one place every package hashes records."""
from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(obj: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 kept as is: the same data always gives the same text."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump(mode="json")
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def content_hash(obj: Any) -> str:
    """sha256 of the canonical JSON of obj."""
    return sha256_text(canonical_json(obj))
