import json
import os
import subprocess
import sys

from click.testing import CliRunner

from ingest.synthetic import make_record, write_record, write_records
from kbstore.cli import cli, main


def test_every_command_has_help():
    for name, cmd in cli.commands.items():
        assert cmd.help and len(cmd.help) > 10, name
        res = CliRunner().invoke(cli, [name, "--help"])
        assert res.exit_code == 0 and "Usage" in res.output


def test_help_imports_nothing_heavy():
    code = ("import sys, kbstore.cli; heavy = [m for m in ('duckdb', 'chromadb', 'numpy', 'pydantic', 'torch', "
            "'sentence_transformers', 'bm25s') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _run(args, code=0):
    try:
        main(args + ["--json"])
        got = 0
    except SystemExit as e:
        got = e.code or 0
    assert got == code, args


def test_ingest_log_show_verify_roundtrip(tmp_path, capsys):
    write_records(tmp_path / "r", [make_record(i) for i in range(3)])
    write_record(make_record(9, status="failed"), tmp_path / "r" / "failed.json")
    main_ok = CliRunner().invoke(cli, ["ingest", str(tmp_path / "r"), "--json"])
    assert main_ok.exit_code == 0, main_ok.output
    rep = json.loads(main_ok.output)
    assert (rep["version"], rep["admitted"], rep["rejected"]) == (1, 3, 1)
    logged = json.loads(CliRunner().invoke(cli, ["log", "--json"]).output)
    assert logged[0]["rejections"][0]["code"] == "not-repaired"
    eid = rep["outcomes"][0]["entry_id"]
    shown = json.loads(CliRunner().invoke(cli, ["show", eid[:10], "--json"]).output)
    assert shown["id"] == eid
    relations = {(s["relation"], s["object"].split("/")[0]) for s in shown["provenance"]}
    assert {("wasDerivedFrom", "nm:record"), ("wasGeneratedBy", "nm:ingest"), ("wasGeneratedBy", "nm:run"),
            ("wasAssociatedWith", "nm:agent"), ("used", "nm:kernel"), ("used", "nm:problem")} <= relations
    text = CliRunner().invoke(cli, ["show", eid[:10]]).output
    assert "run-" in text and "--- before" in text
    assert CliRunner().invoke(cli, ["verify"]).exit_code == 0


def test_exit_codes(tmp_path, capsys):
    _run(["log"], code=2)  # no KB yet
    assert "no knowledge base" in capsys.readouterr().err
    _run(["ingest", str(tmp_path / "missing.json")], code=2)
    assert "missing.json: no such file" in capsys.readouterr().err
    write_record(make_record(1, full=(1, 20)), tmp_path / "low.json")
    _run(["ingest", str(tmp_path / "low.json")], code=0)
    _run(["ingest", "--strict", str(tmp_path / "low.json")], code=1)
    write_record(make_record(2), tmp_path / "ok.json")
    _run(["ingest", str(tmp_path / "ok.json")], code=0)
    _run(["show", "ffff"], code=2)
    _run(["show", "zz"], code=2)


def test_export_jsonl_and_prov_json(tmp_path):
    write_records(tmp_path / "r", [make_record(i) for i in range(3)])
    write_records(tmp_path / "r2", [make_record(2, run_id="again", operator_id="x")])
    CliRunner().invoke(cli, ["ingest", str(tmp_path / "r")])
    CliRunner().invoke(cli, ["ingest", str(tmp_path / "r2")])
    lines = [json.loads(x) for x in CliRunner().invoke(cli, ["export"]).output.splitlines()]
    entries = [x for x in lines if x["kind"] == "entry"]
    assert len(entries) == 3 and [x["version"] for x in lines if x["kind"] == "version"] == [1, 2]
    assert sorted(len(e["evidence"]) for e in entries) == [1, 1, 2]
    assert all(e["embedding"]["model"] == "hash" for e in entries)

    out = tmp_path / "prov.json"
    res = CliRunner().invoke(cli, ["export", "--format", "prov-json", "-o", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["prefix"]["nm"] == "urn:nearmiss:"
    known = set(doc["entity"]) | set(doc["activity"]) | set(doc["agent"])
    for relation, (subj, obj) in {"wasDerivedFrom": ("prov:generatedEntity", "prov:usedEntity"),
                                  "wasGeneratedBy": ("prov:entity", "prov:activity"),
                                  "used": ("prov:activity", "prov:entity"),
                                  "wasAssociatedWith": ("prov:activity", "prov:agent")}.items():
        assert doc[relation], relation
        for body in doc[relation].values():
            assert body[subj] in known and body[obj] in known
    assert {"nm:kb-version/1", "nm:kb-version/2"} <= set(doc["entity"])
    assert sum(k.startswith("nm:entry/") for k in doc["entity"]) == 3
    assert all(v["prov:type"] == "nm:Ingest" for k, v in doc["activity"].items() if k.startswith("nm:ingest/"))


def test_ingest_admits_a_policy_level_record_only_when_asked_and_records_the_policy(tmp_path):
    r = make_record(4)
    lax = r.model_copy(update={"integrity_history": [a.model_copy(update={"policy": "epilogue"})
                                                     for a in r.integrity_history]})
    write_record(lax, tmp_path / "lax.json")
    refused = json.loads(CliRunner().invoke(cli, ["ingest", str(tmp_path / "lax.json"), "--json"]).output)
    assert (refused["admitted"], refused["rejected"]) == (0, 1)
    assert refused["outcomes"][0]["reasons"][0]["code"] == "integrity-policy"
    res = CliRunner().invoke(cli, ["ingest", str(tmp_path / "lax.json"), "--accept-policy", "epilogue", "--json"])
    rep = json.loads(res.output)
    assert (rep["admitted"], rep["version"]) == (1, 1), res.output
    shown = json.loads(CliRunner().invoke(cli, ["show", rep["outcomes"][0]["entry_id"][:10], "--json"]).output)
    gates = [e["gate"] for e in shown["evidence"]]
    assert [g.get("accept_policy") for g in gates] == ["epilogue"]
    assert {a["policy"] for g in gates for a in g["integrity_history"]} == {"epilogue"}
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path / "lax.json"), "--accept-policy", "lax"]).exit_code == 2
