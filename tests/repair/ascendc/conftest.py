"""ascendc-cpu builds of this session go to one temporary cache (set before any fork server starts, which
passes it to its candidate processes), so each candidate compiles once per session."""
import atexit
import os
import shutil
import tempfile

os.environ["REPAIR_ASCENDC_CACHE"] = _cache = tempfile.mkdtemp(prefix="ascendc-cpu-cache-")
atexit.register(shutil.rmtree, _cache, ignore_errors=True)
