import pytest

from provenance.offline import OFFLINE_ENV


@pytest.fixture(autouse=True)
def _offline_interpreter(monkeypatch):
    """What the CLI's main() sets (never the network; litellm's local cost map), plus the Triton interpreter."""
    for key, value in OFFLINE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
