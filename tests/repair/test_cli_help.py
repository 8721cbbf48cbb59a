"""The command lines' help (issue 37): -h and --version on both, and every default the help states is the code's."""
from __future__ import annotations

import re

from click.testing import CliRunner

from kbstore.cli import cli as kb
from repair.cli import cli as repair


def _help(cli, *args) -> str:
    r = CliRunner().invoke(cli, [*args, "--help"], terminal_width=200)
    assert r.exit_code == 0, r.output
    return " ".join(r.output.split())


def test_short_help_and_version_on_both():
    for cli in (repair, kb):
        assert CliRunner().invoke(cli, ["-h"]).exit_code == 0
        r = CliRunner().invoke(cli, ["--version"])
        assert r.exit_code == 0 and re.fullmatch(r"\S+\n", r.output), r.output
    assert CliRunner().invoke(repair, ["import", "kernelbench", "-h"]).exit_code == 0


def test_stated_defaults_are_the_codes():
    from provenance.operating_point import THRESHOLD
    from repair.engine.shared_server import DEFAULT_IDLE_S
    from repair.kernelbench.model import CPU_BUDGET
    from repair.loop.bounds import Bounds

    run = _help(repair, "run")
    b = Bounds()
    for option, value in (("--max-attempts", b.attempts), ("--max-turns", b.turns), ("--max-tokens", b.tokens),
                          ("--max-wall", f"{b.wall_s:g}")):
        assert re.search(rf"{option} .*?\[default: {value}\]", run), option
    kbi = _help(repair, "import", "kernelbench")
    assert f"[default: {CPU_BUDGET.elements} on triton-cpu" in kbi and f"[default: {CPU_BUDGET.flops} on" in kbi
    assert f"[default: {DEFAULT_IDLE_S:g}]" in _help(repair, "server", "start")
    assert f"(default {THRESHOLD}," in _help(kb, "freeze") and f"(default {THRESHOLD}," in _help(kb, "overlap")
