"""Builds the extension in place for development (`python3 tools/dev_build.py`), one build at a
time: concurrent runs wait on a lock file instead of writing the same objects at once."""
import fcntl
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

with open(os.path.join(tempfile.gettempdir(), "pytensor_dev_build.lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    sys.exit(subprocess.call([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=ROOT))
