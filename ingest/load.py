"""Read one repair record file: size, encoding, JSON, JSON Schema, then the pydantic model.

Every failure is a `Rejection` naming the file and the problem, so one bad file never stops a batch.
"""
from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ingest.record import RepairRecord

MAX_RECORD_BYTES = 5 * 1024 * 1024
SCHEMA_FILE = Path(__file__).with_name("schema") / "repair_record.v1.json"


@dataclass(frozen=True)
class Rejection:
    code: str  # too-large, unreadable, not-utf8, malformed-json, schema-invalid, or a gate reason
    message: str

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


class RecordRejected(Exception):
    def __init__(self, path: str, reasons: list[Rejection]):
        super().__init__(f"{path}: " + "; ".join(r.message for r in reasons))
        self.path = path
        self.reasons = reasons


@dataclass(frozen=True)
class LoadedRecord:
    path: str
    record: RepairRecord
    raw: dict  # the parsed JSON, as given


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def load_record(path: Path, *, max_bytes: int = MAX_RECORD_BYTES) -> LoadedRecord:
    """Raises RecordRejected with a reason code and a message naming the file."""
    name = str(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a device or FIFO: a read may never end
            raise RecordRejected(name, [Rejection("unreadable", "not a regular file")])
        if st.st_size > max_bytes:
            raise RecordRejected(name, [Rejection("too-large", f"{st.st_size / 2**20:.1f} MiB exceeds the {max_bytes / 2**20:.0f} MiB record limit")])
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)  # capped: the file may have grown since stat
        if len(data) > max_bytes:
            raise RecordRejected(name, [Rejection("too-large", f"more than the {max_bytes / 2**20:.0f} MiB record limit")])
    except OSError as e:
        raise RecordRejected(name, [Rejection("unreadable", f"cannot read: {e.strerror or e}")]) from None
    return parse_record(data, name)


def parse_record(data: bytes, name: str) -> LoadedRecord:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordRejected(name, [Rejection("not-utf8", f"not UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})")]) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        what = "truncated JSON (ends inside an object, array or string)" if _unclosed(text) else "malformed JSON"
        raise RecordRejected(name, [Rejection("malformed-json", f"{what} at line {e.lineno} column {e.colno}: {e.msg}")]) from None
    return validate_record(raw, name)


def validate_record(raw: object, name: str) -> LoadedRecord:
    from pydantic import ValidationError

    errors = sorted(_validator().iter_errors(raw), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        reasons = [Rejection("schema-invalid", f"schema: {_where(e.absolute_path)}: {e.message[:200]}") for e in errors[:5]]
        raise RecordRejected(name, reasons)
    try:
        record = RepairRecord.model_validate(raw)
    except ValidationError as e:  # the schema and the model should agree; say so if they do not
        first = e.errors()[0]
        loc = ".".join(map(str, first["loc"])) or "(record)"
        raise RecordRejected(name, [Rejection("schema-invalid", f"schema: {loc}: {first['msg']}")]) from None
    return LoadedRecord(name, record, raw)


def _unclosed(text: str) -> bool:
    """True when the text ends inside a string or with brackets still open: the file was cut short."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return in_string or depth > 0


def _where(path) -> str:
    return ".".join(str(p) for p in path) or "(record)"
