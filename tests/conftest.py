"""Suite-wide: engines and `kb query` under test never find a developer's servers (`repair server`, `kb server`)."""
import atexit
import os
import shutil
import tempfile

os.environ["REPAIR_SERVER_DIR"] = _dir = tempfile.mkdtemp(prefix="rsd-")
atexit.register(shutil.rmtree, _dir, ignore_errors=True)
os.environ["KB_SERVER_DIR"] = _kb_dir = tempfile.mkdtemp(prefix="ksd-")
atexit.register(shutil.rmtree, _kb_dir, ignore_errors=True)
