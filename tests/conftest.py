"""Suite-wide: engines under test never find a developer's shared fork server (`repair server start`)."""
import atexit
import os
import shutil
import tempfile

os.environ["REPAIR_SERVER_DIR"] = _dir = tempfile.mkdtemp(prefix="rsd-")
atexit.register(shutil.rmtree, _dir, ignore_errors=True)
