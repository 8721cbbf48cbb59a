"""Suite-wide: engines under test never find a developer's shared fork server (`repair server start`)."""
import os
import tempfile

os.environ["REPAIR_SERVER_DIR"] = tempfile.mkdtemp(prefix="rsd-")
