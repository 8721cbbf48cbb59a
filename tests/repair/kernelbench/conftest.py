"""The problems of data/level*/ imported once for the tests that read the result."""
from __future__ import annotations

import pytest

from kernelbench_fixtures import FROZEN, PROBLEMS


@pytest.fixture(scope="session")
def imported(tmp_path_factory):
    """(out dir, {name: ImportedProblem}, refusals, manifest) of importing every problem of data/level*/."""
    from repair.kernelbench import Options, import_problems

    out = tmp_path_factory.mktemp("kb-import")
    done, refused, manifest = import_problems(PROBLEMS, out, Options(jobs=2, timeout_s=240, frozen_at=FROZEN))
    return out, {p.name: p for p in done}, refused, manifest
