"""Cohort files must stay inside the manifest's tree (its directory, or its project root) unless allowed."""
import os
from pathlib import Path

import pytest

from provenance.cohort import load_manifest, manifest_hash
from provenance.errors import BadInput

ROOT = Path(__file__).resolve().parents[2]
HEAD = "cohort: c\nfrozen_at: '2026-11-30T00:00:00Z'\noperators:\n"


def _manifest(path: Path, *files: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEAD + "".join(f"  - id: op{i}\n    files: ['{f}']\n" for i, f in enumerate(files)))
    return path


@pytest.fixture
def escape(tmp_path):
    """A cohort directory (no project root above it) and a secret beside it, reachable three ways."""
    assert not any((d / ".git").exists() or (d / "pyproject.toml").exists() for d in tmp_path.parents)
    secret = tmp_path / "outside" / "secret.py"
    secret.parent.mkdir()
    secret.write_text("API_KEY = 'hunter2'\n")
    cohort = tmp_path / "cohort"
    (cohort / "ops").mkdir(parents=True)
    (cohort / "ops" / "ok.py").write_text("x = 1\n")
    (cohort / "ops" / "link.py").symlink_to(secret)
    return cohort, secret


def _escapes(secret: Path) -> dict[str, str]:
    return {
        "dotdot": "../" * 16 + str(secret).lstrip("/"),  # ../../../../etc/shadow-style, clamped at /
        "absolute": str(secret),
        "symlink": "ops/link.py",  # inside by name, outside once resolved
    }


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_a_path_leaving_the_manifest_tree_is_refused(escape, how):
    cohort, secret = escape
    rel = _escapes(secret)[how]
    m = _manifest(cohort / "m.yaml", "ops/ok.py", rel)
    with pytest.raises(BadInput) as e:
        load_manifest(m)
    msg = str(e.value)
    assert type(e.value).__name__ == "OutsideManifestTree" and e.value.exit_code == 2
    assert str(m) in msg and rel in msg and "--allow-outside" in msg and "\n" not in msg


def test_the_system_files_of_the_issue_are_refused(tmp_path):
    target = "../" * 16 + "etc/hostname"
    with pytest.raises(BadInput, match="--allow-outside"):
        load_manifest(_manifest(tmp_path / "m.yaml", target))


@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_allow_outside_accepts_it(escape, how):
    cohort, secret = escape
    m = load_manifest(_manifest(cohort / "m.yaml", _escapes(secret)[how]), allow_outside=True)
    (f,) = m.files()
    assert f.code == secret.read_text() and len(manifest_hash(m)) == 64


def test_a_manifest_in_a_project_may_reach_the_whole_project(tmp_path):
    """manifests/x.yaml listing ../examples/...: the repository's own layout; a symlink within it is fine too."""
    proj = tmp_path / "proj"
    (proj / "examples" / "op").mkdir(parents=True)
    (proj / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (proj / "examples" / "op" / "problem.py").write_text("y = 2\n")
    (proj / "examples" / "op" / "alias.py").symlink_to(proj / "examples" / "op" / "problem.py")
    m = load_manifest(_manifest(proj / "manifests" / "m.yaml", "../examples/op/problem.py", "../examples/op/alias.py"))
    assert [f.code for f in m.files()] == ["y = 2\n", "y = 2\n"]
    # ... but not past the project root
    (tmp_path / "secret.py").write_text("z = 3\n")
    with pytest.raises(BadInput, match="outside"):
        load_manifest(_manifest(proj / "manifests" / "bad.yaml", "../../secret.py"))


def test_a_git_checkout_is_a_project_root_too(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    (tmp_path / "repo" / "src" / "k.py").write_text("k = 1\n")
    assert load_manifest(_manifest(tmp_path / "repo" / "deep" / "er" / "m.yaml", "../../src/k.py")).files()


@pytest.mark.parametrize("name", ["examples.yaml", "demo-scripted.yaml"])
def test_the_repositorys_own_manifests_load_without_the_flag(name, monkeypatch):
    monkeypatch.chdir("/")
    assert load_manifest(ROOT / "manifests" / name).files()


def test_kb_commands_refuse_it_and_take_the_flag(escape, tmp_path, capsys):
    from kbstore.cli import main

    cohort, secret = escape
    m = _manifest(cohort / "m.yaml", _escapes(secret)["symlink"])
    for argv in (["cohort", "hash", str(m)], ["freeze", "--exclude-cohort", str(m), "--kb", str(tmp_path / "nokb")]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and "--allow-outside" in err and str(m) in err and err.count("\n") == 1, argv
    main(["cohort", "hash", "--allow-outside", str(m)])
    assert capsys.readouterr().out.strip() == manifest_hash(load_manifest(m, allow_outside=True))
    with pytest.raises(SystemExit) as e:  # past the manifest: the missing KB is what stops it now
        main(["freeze", "--allow-outside", "--exclude-cohort", str(m), "--kb", str(tmp_path / "nokb")])
    assert e.value.code == 2 and "--allow-outside" not in capsys.readouterr().err


def test_repair_campaign_refuses_it_and_takes_the_flag(escape, tmp_path):
    from click.testing import CliRunner

    from repair.campaign.spec import load_operators
    from repair.cli import cli

    cohort, secret = escape
    problem = cohort / "op" / "problem.py"
    problem.parent.mkdir()
    problem.write_text("p = 1\n")
    m = _manifest(cohort / "m.yaml", "op/problem.py")
    m.write_text(m.read_text().replace("['op/problem.py']", f"['op/problem.py', '{secret}']"))
    for cmd in (["campaign", str(m), "--out", str(tmp_path / "out")], ["regenerate", str(m), "--out", str(tmp_path / "o2")]):
        r = CliRunner().invoke(cli, cmd)
        assert r.exit_code == 2 and "--allow-outside" in r.output and str(secret) in r.output, r.output
        assert not (tmp_path / "out").exists()
    (op,) = load_operators(m, allow_outside=True)
    assert op.candidates == (Path(os.path.realpath(secret)),)


def test_every_command_taking_a_manifest_has_the_flag():
    from kbstore.cli import cli as kb
    from repair.cli import cli as repair

    commands = [kb.commands["freeze"], kb.commands["cohort"].commands["hash"], repair.commands["campaign"],
                repair.commands["regenerate"]]
    for c in commands:
        assert "--allow-outside" in [o for p in c.params for o in p.opts], c.name
