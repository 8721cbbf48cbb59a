"""A hostile NPUKernelBench task directory (#30): `repair import npukernelbench` writes only DIR/<task>/, reads
only regular files inside the task (bounded), and a refusal is one line with nothing written."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from repair.ascendc.importer import import_tasks
from repair.errors import BadInput

ADD = Path(__file__).resolve().parents[3] / "examples" / "ascendc" / "add"
SECRET = "root:$6$planted$notarealhash:19000:0:99999:7:::"


def _task(root: Path, name: str = "AddCustom") -> Path:
    task = root / name
    shutil.copytree(ADD / "validation", task / "validation")
    shutil.copytree(ADD / "answer", task / "answer")
    return task


def _tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()} if d.exists() else {}


def test_a_task_named_dot_dot_cannot_write_above_dir(tmp_path):
    parent = tmp_path / "work"
    task = _task(parent / "tasks")
    (parent / "problem.py").write_text("# the user's own\n")
    (parent / "candidate").mkdir()
    (parent / "candidate" / "mine.cpp").write_text("// the user's own\n")
    out = parent / "out"
    dotdot = task / "answer" / ".."  # names the task, through `..`
    with pytest.raises(BadInput, match=r"'\.\.'"):
        import_tasks([dotdot], out)
    assert (parent / "problem.py").read_text() == "# the user's own\n"
    assert (parent / "candidate" / "mine.cpp").exists()
    assert not out.exists()


@pytest.mark.parametrize("kind", ["outside", "device", "fifo", "loop", "big", "dir-link"])
def test_a_hostile_file_in_the_task_is_refused_in_one_line_and_nothing_is_written(tmp_path, kind):
    task = _task(tmp_path / "tasks")
    kernel_dir = task / "answer" / "0" / "op_kernel"
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    bad = kernel_dir / "extra.h"
    if kind == "outside":
        bad.symlink_to(secret)
    elif kind == "device":
        bad.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(bad)
    elif kind == "loop":
        bad.symlink_to(bad)
    elif kind == "big":
        with open(bad, "wb") as f:
            f.truncate(5 << 20)  # sparse: 5 MiB past the 4 MiB a source may be, costing nothing
    else:
        (kernel_dir / "more").symlink_to("/etc", target_is_directory=True)
        bad = kernel_dir / "more"
    out = tmp_path / "out"
    with pytest.raises(BadInput) as e:
        import_tasks([task], out)
    assert str(bad) in str(e.value) and "\n" not in str(e.value)
    assert SECRET not in str(e.value)
    assert not out.exists()


def test_a_symlink_to_a_secret_in_validation_is_refused(tmp_path):
    task = _task(tmp_path / "tasks")
    secret = tmp_path / "shadow"
    secret.write_text(SECRET)
    module = task / "validation" / "module.py"
    module.unlink()
    module.symlink_to(secret)
    with pytest.raises(BadInput, match="outside"):
        import_tasks([task], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_huge_test_cases_csv_is_refused_before_it_is_parsed(tmp_path):
    task = _task(tmp_path / "tasks")
    with open(task / "validation" / "test_cases.csv", "ab") as f:
        f.truncate(200 << 20)  # sparse: 200 MB that cost nothing here
    with pytest.raises(BadInput, match="test_cases.csv.*limit"):
        import_tasks([task], tmp_path / "out")


def test_a_symlink_inside_the_task_is_followed_and_the_copy_holds_its_text(tmp_path):
    task = _task(tmp_path / "tasks")
    kernel_dir = task / "answer" / "0" / "op_kernel"
    shared = task / "common.h"
    shared.write_text("// shared by the task's solutions\n")
    (kernel_dir / "common.h").symlink_to(shared)
    done, _ = import_tasks([task], tmp_path / "out")
    copied = Path(done[0].candidate) / "op_kernel" / "common.h"
    assert not copied.is_symlink() and copied.read_text() == shared.read_text()
    assert _tree(Path(done[0].candidate) / "op_host") == _tree(task / "answer" / "0" / "op_host")
