"""The tool version stamped into every record, snapshot and ledger row."""
from __future__ import annotations


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nearmiss-repair")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.1.0+src"


def tool_commit() -> str | None:
    """The git commit of the source tree this tool runs from (None: not a checkout, or no git)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             env={"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"})
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    return text if out.returncode == 0 and len(text) == 40 else None
