from datetime import datetime, timezone

import pytest

from provenance.cohort import load_manifest, manifest_hash, manifest_record
from provenance.errors import BadInput

MANIFEST = """\
cohort: demo-eval
frozen_at: "2026-11-30T00:00:00Z"
operators:
  - id: softmax_lastdim
    family: softmax
    files: [ops/softmax.py, ops/softmax_nearmiss.py]
  - id: vec_add
    files: [ops/add.c]
"""


@pytest.fixture
def cohort_dir(tmp_path):
    ops = tmp_path / "ops"
    ops.mkdir()
    (ops / "softmax.py").write_text("import torch\n")
    (ops / "softmax_nearmiss.py").write_text("import triton\n")
    (ops / "add.c").write_text("void add(const float* x, float* y, int n) {}\n")
    (tmp_path / "m.yaml").write_text(MANIFEST)
    return tmp_path


def test_loads_files_relative_to_the_manifest(cohort_dir, monkeypatch):
    monkeypatch.chdir("/")
    m = load_manifest(cohort_dir / "m.yaml")
    assert m.cohort == "demo-eval"
    assert m.frozen_at == datetime(2026, 11, 30, tzinfo=timezone.utc)
    assert m.operator_ids() == {"softmax_lastdim", "vec_add"}
    assert m.families() == {"softmax"}
    files = {f.path: f for f in m.files()}
    assert files["ops/add.c"].language == "cpp" and files["ops/softmax.py"].language == "python"
    assert files["ops/softmax.py"].code == "import torch\n"


def test_hash_is_stable_and_ignores_yaml_order(cohort_dir):
    h = manifest_hash(load_manifest(cohort_dir / "m.yaml"))
    assert len(h) == 64 and h == manifest_hash(load_manifest(cohort_dir / "m.yaml"))
    reordered = """\
operators:
  - files: [ops/add.c]
    id: vec_add
  - id: softmax_lastdim
    files: [ops/softmax_nearmiss.py, ops/softmax.py]
    family: softmax
frozen_at: 2026-11-30T00:00:00Z
cohort: demo-eval
"""
    (cohort_dir / "other.yaml").write_text(reordered)
    assert manifest_hash(load_manifest(cohort_dir / "other.yaml")) == h


def test_hash_changes_when_a_file_or_the_freeze_time_changes(cohort_dir):
    h = manifest_hash(load_manifest(cohort_dir / "m.yaml"))
    (cohort_dir / "ops" / "add.c").write_text("void add(const float* x, float* y, int n) { y[0] = x[0]; }\n")
    h2 = manifest_hash(load_manifest(cohort_dir / "m.yaml"))
    assert h2 != h
    (cohort_dir / "m.yaml").write_text(MANIFEST.replace("2026-11-30T00:00:00Z", "2026-12-01T00:00:00+01:00"))
    assert manifest_hash(load_manifest(cohort_dir / "m.yaml")) != h2


def test_record_carries_each_files_sha256(cohort_dir):
    rec = manifest_record(load_manifest(cohort_dir / "m.yaml"))
    add = next(op for op in rec["operators"] if op["id"] == "vec_add")
    import hashlib

    assert add["files"] == [{"path": "ops/add.c",
                             "sha256": hashlib.sha256((cohort_dir / "ops" / "add.c").read_bytes()).hexdigest()}]
    assert rec["frozen_at"] == "2026-11-30T00:00:00Z"


@pytest.mark.parametrize("text,needle", [
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00Z'\noperators: [{id: a, files: [ops/missing.py]}]\n",
     "ops/missing.py"),
    ("cohort: x\nfrozen_at: [unclosed\n", "malformed YAML"),
    ("cohort: x\noperators: [{id: a, files: [ops/add.c]}]\n", "missing key 'frozen_at'"),
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00Z'\noperators: [{files: [ops/add.c]}]\n", "missing key 'operators.0.id'"),
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00'\noperators: [{id: a, files: [ops/add.c]}]\n", "time zone"),
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00Z'\noperators: [{id: a, files: [ops/add.c]}, {id: a, files: [ops/add.c]}]\n",
     "listed twice"),
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00Z'\noperators: []\n", "operators"),
    ("cohort: x\nfrozen_at: '2026-11-30T00:00:00Z'\noperators: [{id: a, files: [ops/add.c]}]\nextra: 1\n",
     "unknown key 'extra'"),
    ("- just\n- a list\n", "mapping"),
])
def test_bad_manifests_are_one_line_errors_naming_the_file(cohort_dir, text, needle):
    p = cohort_dir / "bad.yaml"
    p.write_text(text)
    with pytest.raises(BadInput) as e:
        load_manifest(p)
    msg = str(e.value)
    assert str(p) in msg and needle in msg and "\n" not in msg
    assert e.value.exit_code == 2


def test_missing_manifest(tmp_path):
    with pytest.raises(BadInput, match="cannot read cohort manifest"):
        load_manifest(tmp_path / "nope.yaml")


def test_kb_cohort_hash_command(cohort_dir, capsys):
    from kbstore.cli import main

    main(["cohort", "hash", str(cohort_dir / "m.yaml")])
    assert capsys.readouterr().out.strip() == manifest_hash(load_manifest(cohort_dir / "m.yaml"))
    (cohort_dir / "ops" / "add.c").unlink()
    with pytest.raises(SystemExit) as e:
        main(["cohort", "hash", str(cohort_dir / "m.yaml")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "ops/add.c" in err and err.count("\n") == 1
