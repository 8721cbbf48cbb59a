"""The tool version stamped into every record, snapshot and ledger row."""
from __future__ import annotations


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nearmiss-repair")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.1.0+src"
