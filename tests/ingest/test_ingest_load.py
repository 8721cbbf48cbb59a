import json
import os
from pathlib import Path

import pytest

from ingest.api import collect_files
from ingest.load import MAX_RECORD_BYTES, SCHEMA_FILE, RecordRejected, load_record
from ingest.record import json_schema
from ingest.synthetic import make_record
from kbstore.errors import BadInput


def test_published_schema_is_the_generated_one():
    # regenerate with: python -m ingest.record > ingest/schema/repair_record.v1.json
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == json.loads(json.dumps(json_schema(), sort_keys=True))


def _write(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _reject(path):
    with pytest.raises(RecordRejected) as e:
        load_record(path)
    assert str(path) in str(e.value)
    return e.value.reasons


def test_valid_record_loads(tmp_path):
    r = make_record(1)
    loaded = load_record(_write(tmp_path, "ok.json", r.to_json().encode()))
    assert loaded.record == r


def test_truncated_json(tmp_path):
    text = make_record(1).to_json()
    reasons = _reject(_write(tmp_path, "cut.json", text[: len(text) // 2].encode()))
    assert reasons[0].code == "malformed-json" and "truncated" in reasons[0].message


def test_malformed_json(tmp_path):
    reasons = _reject(_write(tmp_path, "bad.json", b'{"run_id": "x",, }'))
    assert reasons[0].code == "malformed-json" and "line 1" in reasons[0].message


def test_not_utf8(tmp_path):
    data = make_record(1).to_json().encode().replace(b"run-", b"run-\xff", 1)
    reasons = _reject(_write(tmp_path, "latin.json", data))
    assert reasons[0].code == "not-utf8" and "0xff" in reasons[0].message


def test_huge_record_is_refused_before_reading(tmp_path):
    p = tmp_path / "huge.json"
    with open(p, "wb") as f:
        f.truncate(MAX_RECORD_BYTES + 1)
    reasons = _reject(p)
    assert reasons[0].code == "too-large" and "MiB" in reasons[0].message


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d.pop("run_id"), "(record)"),
    (lambda d: d["evidence"].__setitem__("match", "high"), "evidence.match"),
    (lambda d: d.__setitem__("surprise", 1), "(record)"),
    (lambda d: d.__setitem__("status", "maybe"), "status"),
    (lambda d: d.__setitem__("schema", "repair.record/v9"), "schema"),
])
def test_schema_violations_name_the_field(tmp_path, mutate, where):
    d = json.loads(make_record(1).to_json())
    mutate(d)
    reasons = _reject(_write(tmp_path, "x.json", json.dumps(d).encode()))
    assert reasons[0].code == "schema-invalid"
    assert where in reasons[0].message


def test_not_an_object(tmp_path):
    reasons = _reject(_write(tmp_path, "list.json", b"[1, 2]"))
    assert reasons[0].code == "schema-invalid"


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_special_file_is_refused_without_reading_it(tmp_path, kind):
    """A FIFO would block a read forever and /dev/zero never ends: both are refused with one reason."""
    path = tmp_path / "f.json" if kind == "fifo" else Path("/dev/zero")
    if kind == "fifo":
        os.mkfifo(path)
    with pytest.raises(RecordRejected) as e:
        load_record(path)
    assert [r.code for r in e.value.reasons] == ["unreadable"] and "not a regular file" in e.value.reasons[0].message
    with pytest.raises(BadInput, match=f"{path}: not a regular file"):
        collect_files([path])


def test_a_run_directory_gives_its_record_alone(tmp_path):
    """A direct-launch AscendC run leaves candidates as .json beside its record: they are not records."""
    run = tmp_path / "campaign" / "runs" / "add" / "nearmiss_1"
    (run / "attempts").mkdir(parents=True)
    for f in (run / "record.json", run / "final.json", run / "attempts" / "attempt_001.json",
              tmp_path / "campaign" / "loose.json", tmp_path / "other.json"):
        f.write_text("{}")
    got = collect_files([tmp_path])
    assert got == [tmp_path / "campaign" / "loose.json", run / "record.json", tmp_path / "other.json"]
    assert collect_files([run / "final.json"]) == [run / "final.json"]  # a file named on purpose is taken
