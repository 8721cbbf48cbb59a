"""`kb server`: a warm process per KB, holding its retrieval state and the embedder, that answers `kb query`.

Loading is most of a cold query: ~0.3 s on the demo KB, ~15 CPU-seconds at 100,000 entries (rows, vectors and
the BM25 index). A server loads once and answers over a Unix socket, one JSON line each way. It answers from the
KB as it is now: before each query it compares the database files' size and mtime with what it loaded, and
reloads when the KB's identity or head version moved. One server per KB directory and code version: the socket
is named for a key over the KB's resolved path, the Python executable, the embedder settings and the size and
mtime of every source file of kbstore and provenance, so after an edit clients no longer find the old server
(`kb server status` lists it as stale). Sockets live in $KB_SERVER_DIR, else $XDG_RUNTIME_DIR/nearmiss/kb,
else /tmp/nearmiss-UID/kb: a directory only this user can enter. A server exits after an idle timeout.
Nothing needs one: without it every command does the same work itself (and `KB_SERVER=0` never asks one).
This module imports nothing heavy at the top: a client must not pay for what the server holds.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from kbstore.errors import BadInput, EnvironmentMissing, KBError, NotFound
from kbstore.paths import KBPaths
from provenance.runtime import private_dir, process_running, runtime_dir, sources_stamp

DEFAULT_IDLE_S = 1800.0
CONNECT_S = 1.0
REPLY_S = 300.0  # a reply can wait for a reload after an ingest (15 s of CPU at 100k entries)
REQUEST_S = 10.0  # a client has this long to send its request line: a silent one holds only its own connection
REQUEST_MAX = 1 << 20  # bytes of one request line (a query and a kernel's code fit many times over)
CONNECTIONS_MAX = 32  # connections answered at once; more wait in the listen backlog
SOCKET_PATH_MAX = 107  # bytes in a Unix socket's path (sun_path, less its terminating NUL)
_ENV = ("KB_EMBEDDER", "KB_MINILM_RUNTIME", "KB_EXACT_MAX")  # what changes the answers besides the code
_PACKAGES = ("kbstore", "provenance")
_ROOT = Path(__file__).resolve().parents[1]


class ServerError(KBError):
    """The server answered with an error; it carries the exit status the same command would have had."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code


def server_dir(create: bool = True) -> Path | None:
    """This user's KB server directory; None (or BadInput when creating) if it is not safely ours."""
    # beside `repair server`'s sockets, not among them (its stop removes every socket of its directory)
    d = runtime_dir("KB_SERVER_DIR", "kb")
    if private_dir(d, create=create) is None:
        if create:
            raise BadInput(f"{d}: the KB server directory must belong to this user and be private (mode 700)")
        return None
    return d


def server_environ() -> dict[str, str]:
    """The server's environment: the caller's without any secret-named variable. A server outlives the command
    that starts it and answers anyone of this user; it needs no provider key, so it holds none (another process of
    this user, a candidate among them, could read a running process's /proc/PID/environ)."""
    from provenance.redact import is_secret_name

    return {k: v for k, v in os.environ.items() if not is_secret_name(k)}


def server_key(kb_root: Path) -> str:
    """The KB, the interpreter, the embedder settings and this code, hashed: a server whose key differs is not used."""
    h = hashlib.sha256(f"{Path(kb_root).resolve()}\0{sys.executable}\0".encode())
    for k in _ENV:
        h.update(f"{k}={os.environ.get(k, '')}\0".encode())
    h.update(sources_stamp(_ROOT, _PACKAGES))
    return h.hexdigest()[:16]


def socket_path(kb_root: Path, create: bool = False) -> Path | None:
    d = server_dir(create)
    return None if d is None else d / f"kb-{server_key(kb_root)}.sock"


def _info_path(sock: Path) -> Path:
    return sock.with_suffix(".json")


# ---- client side

def request(kb: str | Path | None, payload: dict, *, reply_s: float = REPLY_S) -> dict | None:
    """Send one request to the KB's current server; its reply, or None when no server answers (nothing is started)."""
    sock_path = socket_path(KBPaths.of(kb).root)
    if sock_path is None or not sock_path.exists():
        return None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(CONNECT_S)
        try:
            s.connect(str(sock_path))
        except OSError:  # left by a killed server, or not listening yet
            return None
        s.settimeout(reply_s)
        s.sendall(json.dumps(payload).encode() + b"\n")
        reply = _read_line(s)
    except (OSError, ValueError):  # the server died mid-request, or timed out: the caller does the work itself
        return None
    finally:
        s.close()
    if not reply.get("ok"):
        raise ServerError(f"{reply.get('error')} (kb server)", int(reply.get("exit_code") or 1))
    return reply


def query(kb: str | Path | None, text: str, **options) -> dict | None:
    """{"hits": [Hit.as_dict()], "notes": [...], "source": {...}} from the KB's server, or None (no server)."""
    if os.environ.get("KB_SERVER", "1") == "0":
        return None
    return request(kb, {"op": "query", "text": text, **options})


class RequestTooLarge(BadInput):
    pass


def _read_line(s: socket.socket, limit: int | None = None) -> dict:
    buf = bytearray()
    while not buf.endswith(b"\n"):
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        buf += chunk
        if limit is not None and len(buf) > limit:
            raise RequestTooLarge(f"a request of more than {limit} bytes")
    return json.loads(buf)


def start(kb: str | Path | None, *, idle_s: float = DEFAULT_IDLE_S, timeout_s: float = 600.0) -> dict:
    """Start the KB's server (or find the one running); returns its ping once it answers (the KB loaded)."""
    if idle_s <= 0:
        raise BadInput("the idle timeout must be positive")
    paths = KBPaths.of(kb)
    if not paths.db.is_file():
        raise NotFound(f"{paths.root}: no knowledge base here (run `kb ingest` first, or pass --kb / set KB_PATH)")
    sock = socket_path(paths.root, create=True)
    if len(os.fsencode(str(sock))) > SOCKET_PATH_MAX:
        raise EnvironmentMissing(f"{sock}: longer than a Unix socket's path may be; set KB_SERVER_DIR to a shorter one")
    running = request(paths.root, {"op": "ping"})
    if running is not None:
        return running
    log = sock.with_suffix(".log")
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "kbstore.server", str(paths.root.resolve()), str(idle_s)],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=str(sock.parent),
                                env=server_environ(), start_new_session=True)  # no signal to the caller's group reaches it
    deadline = time.monotonic() + timeout_s
    while True:
        reply = request(paths.root, {"op": "ping"})
        if reply is not None:
            return reply
        if proc.poll() is not None:
            tail = log.read_text(errors="replace").strip()[-1500:]
            raise EnvironmentMissing(f"the KB server could not start: {tail or f'exit code {proc.returncode}'}")
        if time.monotonic() > deadline:
            proc.kill()
            raise EnvironmentMissing(f"the KB server did not answer within {timeout_s:.0f} s")
        time.sleep(0.05)


def status() -> list[dict]:
    """Every server of this user: its KB, pid, whether it is alive and whether clients here use it (`current`)."""
    d = server_dir(create=False)
    out = []
    for info_file in sorted(d.glob("kb-*.json")) if d else []:
        try:
            info = json.loads(info_file.read_text())
        except (OSError, ValueError):
            continue
        alive = process_running(int(info.get("pid", 0)))
        current = alive and socket_path(Path(info["kb"])) == info_file.with_suffix(".sock")
        out.append({**info, "alive": alive, "current": current})
    return out


def stop(kb: str | Path | None = None, *, every: bool = False, wait_s: float = 10.0) -> list[dict]:
    """Stop the KB's servers (every one with `every`): SIGTERM, then SIGKILL; their files removed."""
    root = None if every else str(KBPaths.of(kb).root.resolve())
    stopped = []
    for info in status():
        if root is not None and info["kb"] != root:
            continue
        pid = int(info["pid"])
        if info["alive"]:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + wait_s
            while process_running(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if process_running(pid):
                os.kill(pid, signal.SIGKILL)
        for p in (info["socket"], _info_path(Path(info["socket"]))):
            Path(p).unlink(missing_ok=True)
        stopped.append(info)
    return stopped


# ---- server side

class _State:
    """The loaded Retriever and what it was loaded from (KB identity, head version, database files' stat)."""

    def __init__(self, paths: KBPaths):
        self.paths, self.retriever, self.identity, self.files = paths, None, None, None
        self.queries = 0  # queries answered (ping reports it: a client can tell a served answer from a loaded one)

    def fresh(self):
        """The Retriever of the KB as it is now: reloaded when the database files changed and so did the KB."""
        from kbstore.retrieve import Retriever
        from kbstore.store import Store

        files = self._files()
        if self.retriever is not None and files == self.files:
            return self.retriever
        with Store.open(self.paths) as store:
            identity = (store.meta("kb_id"), store.head_version())
        if self.retriever is None or identity != self.identity:
            self.retriever = Retriever.open(self.paths, index="auto", resident=True)  # warm: vectors in memory
            self.identity = identity
        self.files = files  # read before the identity: a write in between is seen at the next request
        return self.retriever

    def _files(self) -> tuple:
        out = []
        for p in (self.paths.db, Path(f"{self.paths.db}.wal")):
            try:
                st = p.stat()
                out.append((st.st_size, st.st_mtime_ns, st.st_ino))
            except FileNotFoundError:
                out.append(None)
        return tuple(out)


def _answer(state: _State, req: dict) -> dict:
    op = req.get("op")
    if op == "ping":
        r = state.fresh()
        return {"ok": True, "pid": os.getpid(), "kb": str(state.paths.root), "kb_version": r.source.get("kb_version"),
                "entries": r.n, "queries": state.queries}
    if op == "query":
        r = state.fresh()
        filters = {k: req.get(k) for k in ("family", "language", "backend")}
        hits = r.query(req["text"], k=int(req.get("k", 5)), code=req.get("code"), **filters)
        state.queries += 1
        return {"ok": True, "hits": [h.as_dict() for h in hits], "notes": list(r.notes), "source": r.source}
    raise BadInput(f"unknown request {op!r}")


def serve(kb_root: Path, idle_s: float) -> None:
    """Load the KB, listen, answer until idle for idle_s or told to stop (SIGTERM); then remove the socket."""
    paths = KBPaths(Path(kb_root))
    state = _State(paths)
    state.fresh()  # the KB loads before the socket exists: a client that finds it is answered at once
    sock_path = socket_path(paths.root, create=True)
    tmp = sock_path.with_name(f".t{os.getpid()}")  # no longer than the socket's own name (sun_path is short)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(tmp))
    srv.listen(64)
    if request(paths.root, {"op": "ping"}, reply_s=CONNECT_S) is not None:  # another start won the race
        srv.close()
        tmp.unlink(missing_ok=True)
        return
    os.replace(tmp, sock_path)  # atomic: a client never connects to a half-made socket
    mine = os.stat(sock_path).st_ino
    info = {"pid": os.getpid(), "kb": str(paths.root), "socket": str(sock_path), "python": sys.executable,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    _info_path(sock_path).write_text(json.dumps(info, sort_keys=True))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    srv.settimeout(min(idle_s, 1.0))
    conns = _Connections(state)
    try:
        while not conns.stop.is_set():
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                if conns.idle_for() >= idle_s or not _still_ours(sock_path, mine):
                    return  # idle, or its socket was removed or replaced: no client can reach it any more
                continue
            conns.answer(conn)
    finally:
        srv.close()
        _remove_own(sock_path)


class _Connections:
    """Each connection in a thread of its own (at most CONNECTIONS_MAX at once): a client that connects and says
    nothing, or sends slowly, holds only its own connection, for REQUEST_S, and a request past REQUEST_MAX bytes is
    refused, not buffered. The answers themselves run one at a time (one Retriever)."""

    def __init__(self, state: _State):
        import threading

        self.state, self.lock, self.stop, self.count = state, threading.Lock(), threading.Event(), threading.Lock()
        self.slots = threading.BoundedSemaphore(CONNECTIONS_MAX)
        self.last = time.monotonic()
        self.busy = 0

    def idle_for(self) -> float:
        return 0.0 if self.busy else time.monotonic() - self.last

    def answer(self, conn: socket.socket) -> None:
        import threading

        self.slots.acquire()
        with self.count:
            self.busy += 1
        threading.Thread(target=self._serve, args=(conn,), daemon=True, name="kb-server-conn").start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                if _handle(conn, self.state, self.lock):
                    self.stop.set()
        finally:
            with self.count:
                self.last = time.monotonic()
                self.busy -= 1
            self.slots.release()


def _handle(conn: socket.socket, state: _State, lock) -> bool:
    """Answer one request; True when it asked the server to stop."""
    conn.settimeout(REQUEST_S)
    req: dict = {}
    try:
        req = _read_line(conn, REQUEST_MAX)
        conn.settimeout(REPLY_S)
        if req.get("op") == "stop":
            reply = {"ok": True}
        else:
            with lock:
                reply = _answer(state, req)
    except Exception as e:  # one bad request must not end the server: the client gets the error
        message = str(e) if isinstance(e, KBError) else f"{type(e).__name__}: {e}"
        reply = {"ok": False, "error": message, "exit_code": getattr(e, "exit_code", 1)}
    try:
        conn.sendall(json.dumps(reply, default=str).encode() + b"\n")
    except OSError:
        pass
    return isinstance(req, dict) and req.get("op") == "stop"


def _still_ours(sock_path: Path, inode: int) -> bool:
    try:
        return os.stat(sock_path).st_ino == inode
    except OSError:
        return False


def _remove_own(sock_path: Path) -> None:
    """Remove the socket and info file if they are still this process's (a newer server may have replaced them)."""
    info = _info_path(sock_path)
    try:
        if json.loads(info.read_text()).get("pid") != os.getpid():
            return
    except (OSError, ValueError):
        return
    sock_path.unlink(missing_ok=True)
    info.unlink(missing_ok=True)


if __name__ == "__main__":
    from provenance.offline import apply_offline_env

    apply_offline_env()
    serve(Path(sys.argv[1]), float(sys.argv[2]))
