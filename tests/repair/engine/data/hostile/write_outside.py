"""Hostile fixture: tries to write a file outside its scratch directory (the user's home, the repository, /tmp,
its engine's scratch root, the evaluation's and the reference's directories), then raises what it managed."""
import glob
import os
from pathlib import Path

import torch.nn as nn

NAME = "repair-hostile-escaped.txt"


def targets() -> list[Path]:
    here, cwd = Path(__file__).resolve(), Path.cwd()  # cwd: root/eval-*/candidate-N, the one place it may write
    dirs = [Path.home(), here.parents[5], here.parents[1], Path("/tmp"), cwd.parents[1], cwd.parent]
    dirs += [Path(d) for d in glob.glob(str(cwd.parents[1] / "reference-*"))]
    return [d / NAME for d in dirs]


class ModelNew(nn.Module):
    def forward(self, x, y):
        written, refused = [], []
        for path in targets():
            try:
                with open(path, "w") as f:
                    f.write("escaped")
                written.append(str(path))
            except OSError as e:
                refused.append(f"{path} ({type(e).__name__})")
        with open("inside.txt", "w") as f:  # its own scratch directory stays writable
            f.write("fine")
        raise PermissionError(f"written outside: {', '.join(written) or 'none'}; refused: {'; '.join(refused)}")
