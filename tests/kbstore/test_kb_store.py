import pytest

from kbstore import migrations
from kbstore.errors import KBError, NotFound
from kbstore.paths import default_kb_path, resolve_kb_path
from kbstore.store import Store


def test_state_root_resolution(tmp_path, monkeypatch):
    assert resolve_kb_path(tmp_path / "x") == tmp_path / "x"
    monkeypatch.setenv("KB_PATH", str(tmp_path / "env"))
    assert resolve_kb_path() == tmp_path / "env"
    monkeypatch.delenv("KB_PATH")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert resolve_kb_path() == tmp_path / "data" / "nearmiss" / "kb" == default_kb_path()


def test_migrations_are_recorded_and_applied_once(kb_env, monkeypatch):
    with Store.open(write=True) as s:
        names = [r[0] for r in s.con.execute("SELECT name FROM _migrations ORDER BY name").fetchall()]
    assert names == [fn.__name__ for fn in migrations.MIGRATIONS]

    calls = []

    def m999_extra(con):
        calls.append(1)
        con.execute("CREATE TABLE extra (x INTEGER)")

    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS + [m999_extra])
    with pytest.raises(KBError, match="m999_extra"):
        Store.open()  # a reader never migrates
    for _ in range(2):
        Store.open(write=True).close()
    assert calls == [1]


def test_reader_on_a_missing_kb_is_not_found(kb_env):
    with pytest.raises(NotFound, match="no knowledge base"):
        Store.open()
    assert not kb_env.exists()
