import pytest


@pytest.fixture(autouse=True)
def kb_env(tmp_path, monkeypatch):
    """Every test gets its own KB root, the hashing embedder and a short lock wait."""
    monkeypatch.setenv("KB_PATH", str(tmp_path / "kb"))
    monkeypatch.setenv("KB_EMBEDDER", "hash")
    monkeypatch.setenv("KB_LOCK_WAIT", "0.5")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    monkeypatch.delenv("KB_TEST_KILL_AT", raising=False)
    return tmp_path / "kb"
