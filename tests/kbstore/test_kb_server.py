"""`kb server`: the same answers as a command that loads the KB itself, from the KB as it is now, and never needed."""
import json
import os
import shutil
import tempfile

import pytest
from click.testing import CliRunner

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore import server
from kbstore.cli import cli


@pytest.fixture
def kb(tmp_path, monkeypatch):
    monkeypatch.setenv("KB_SERVER_DIR", tempfile.mkdtemp(prefix="ksd-"))  # short: a socket's path has 107 bytes
    write_records(tmp_path / "r1", [make_record(i) for i in range(6)])
    ingest([tmp_path / "r1"], tmp_path / "kb")
    yield tmp_path / "kb"
    server.stop(every=True)
    shutil.rmtree(os.environ["KB_SERVER_DIR"], ignore_errors=True)


def _query(kb, *args, env=None):
    res = CliRunner().invoke(cli, ["query", "mask drops the last column", "-k", "3", "--kb", str(kb), "--json", *args],
                             env=env)
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_no_server_no_request(kb):
    assert server.query(kb, "anything") is None
    assert server.status() == []


def test_served_answers_equal_loaded_ones_and_follow_ingests(kb, tmp_path):
    cold = _query(kb)
    info = server.start(kb, idle_s=60)
    assert info["entries"] == 6 and info["kb_version"] == 1
    assert server.start(kb)["pid"] == info["pid"]  # found, not started twice
    assert server.query(kb, "mask drops the last column", k=3) is not None
    served = lambda: server.request(kb, {"op": "ping"})["queries"]  # noqa: E731  (the server's own count)
    assert served() == 1
    assert _query(kb) == cold and served() == 2  # the CLI's query went through the server
    assert _query(kb, "--family", "softmax") == _query(kb, "--family", "softmax", env={"KB_SERVER": "0"})
    assert served() == 3  # KB_SERVER=0: the CLI loaded the KB itself

    write_records(tmp_path / "r2", [make_record(i) for i in range(6, 12)])
    ingest([tmp_path / "r2"], kb)
    assert server.request(kb, {"op": "ping"})["entries"] == 12  # reloaded: the KB moved to version 2
    assert _query(kb) == _query(kb, env={"KB_SERVER": "0"}) and served() == 4
    [s] = server.status()
    assert s["current"] and s["alive"] and s["pid"] == info["pid"]

    assert len(server.stop(kb)) == 1
    assert server.status() == [] and not os.path.exists(s["socket"])
    assert server.query(kb, "mask") is None


def test_a_server_for_other_settings_is_not_asked(kb, monkeypatch):
    server.start(kb, idle_s=60)
    monkeypatch.setenv("KB_EMBEDDER", "minilm")  # another key: this client's answers could differ
    assert server.query(kb, "mask") is None
    assert [s["current"] for s in server.status()] == [False]


def test_errors_keep_their_exit_status(kb):
    server.start(kb, idle_s=60)
    with pytest.raises(server.ServerError) as e:
        server.request(kb, {"op": "nonsense"})
    assert e.value.exit_code == 2
    assert server.request(kb, {"op": "ping"})["entries"] == 6  # still serving
