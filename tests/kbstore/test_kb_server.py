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


def test_a_silent_client_or_a_huge_request_does_not_hold_the_server(kb, monkeypatch):
    """#30: one client that connected and said nothing stalled every query for 29 s; a request without a newline
    was buffered without limit."""
    import socket

    monkeypatch.setenv("NEARMISS_TEST_API_KEY", "sk-nearmiss-test-0123456789abcdef")
    info = server.start(kb, idle_s=60)
    with open(f"/proc/{info['pid']}/environ", "rb") as f:
        assert b"nearmiss-test" not in f.read()  # the server keeps no key of its caller's
    path = str(server.socket_path(kb))
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(path)
    try:
        # the server's per-connection wait (10 s) is far longer than this client's: it must not wait behind it
        assert server.request(kb, {"op": "ping"}, reply_s=5.0)["entries"] == 6
        big = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        big.connect(path)
        big.settimeout(30)
        try:
            chunk = b"x" * (1 << 16)
            sent = 0
            while sent <= server.REQUEST_MAX:
                big.sendall(chunk)
                sent += len(chunk)
            reply = json.loads(big.makefile("rb").readline())
        except (BrokenPipeError, ConnectionResetError):
            reply = {"ok": False, "error": "a request of more than (closed)"}
        finally:
            big.close()
        assert not reply["ok"] and "a request of more than" in reply["error"]
        assert server.request(kb, {"op": "ping"}, reply_s=5.0)["entries"] == 6
    finally:
        silent.close()


def test_a_runtime_directory_another_user_made_is_not_used(tmp_path, monkeypatch):
    """#30: with XDG_RUNTIME_DIR unset, another user who made /tmp/nearmiss-UID first blocked `repair server` and
    could swap a running `kb server`'s socket. Such a directory (or one beneath a directory others may write) is
    never used: the sockets go to a directory in this user's home instead."""
    from provenance.runtime import private_dir, runtime_dir

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("KB_SERVER_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    taken = tmp_path / f"nearmiss-{os.getuid()}"
    taken.mkdir(mode=0o700)
    taken.chmod(0o777)  # as another user leaves it: open to anyone (as root here, also given away)
    if os.geteuid() == 0:
        os.chown(taken, 65534, 65534)
    d = server.server_dir(create=True)
    assert not d.is_relative_to(taken) and d.is_relative_to(tmp_path / "home-cache")
    assert private_dir(d, create=False) == d
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    mine = shared / "mine"
    mine.mkdir(mode=0o700)
    assert private_dir(mine, create=False) is None  # anyone may rename it away and put another in its place
    assert runtime_dir("KB_SERVER_DIR", "kb") == d
