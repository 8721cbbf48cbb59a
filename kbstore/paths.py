"""The KB's state root: `--kb PATH`, else $KB_PATH, else $XDG_DATA_HOME/nearmiss/kb (~/.local/share/nearmiss/kb)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_kb_path() -> Path:
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "nearmiss" / "kb"


def resolve_kb_path(option: str | os.PathLike | None = None) -> Path:
    if option:
        return Path(option).expanduser()
    env = os.environ.get("KB_PATH")
    return Path(env).expanduser() if env else default_kb_path()


@dataclass(frozen=True)
class KBPaths:
    root: Path

    @property
    def db(self) -> Path:
        return self.root / "kb.duckdb"

    @property
    def lock(self) -> Path:
        return self.root / "write.lock"

    @property
    def vectors(self) -> Path:
        """Parent of the chromadb directories; `CURRENT` names the live one (swapped atomically on rebuild)."""
        return self.root / "vectors"

    @classmethod
    def of(cls, option: str | os.PathLike | None = None) -> "KBPaths":
        return cls(resolve_kb_path(option))
