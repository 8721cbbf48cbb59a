"""The bounded regular-file reader (#30): what it refuses, each in one line naming the file."""
from __future__ import annotations

import os

import pytest

from provenance.readfile import FileRefused, read_bytes, read_text


def test_it_reads_a_regular_file_and_a_symlink_to_one(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("hello")
    (tmp_path / "link").symlink_to(f)
    assert read_text(f) == "hello" and read_text(tmp_path / "link", within=tmp_path) == "hello"


@pytest.mark.parametrize("kind, says", [("fifo", "a FIFO"), ("device", "a character device"),
                                        ("dir", "a directory"), ("loop", "a symlink loop"),
                                        ("big", "more than the 1.0 MiB limit"), ("outside", "resolves outside")])
def test_it_refuses(tmp_path, kind, says):
    p = tmp_path / "x"
    if kind == "fifo":
        os.mkfifo(p)  # no writer: a blocking open would never return
    elif kind == "device":
        p = "/dev/zero"
    elif kind == "dir":
        p.mkdir()
    elif kind == "loop":
        p.symlink_to(p)
    elif kind == "big":
        with open(p, "wb") as f:
            f.truncate(2 << 20)
    else:
        (tmp_path / "in").mkdir()
        p.write_text("secret")
        (tmp_path / "in" / "link").symlink_to(p)
        p = tmp_path / "in" / "link"
    with pytest.raises(FileRefused) as e:
        read_bytes(p, max_bytes=1 << 20, within=tmp_path / "in" if kind == "outside" else None)
    assert says in e.value.strerror and e.value.filename == str(p)
