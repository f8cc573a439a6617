"""A reference process that first starts a grandchild in a session of its own (tests/slow/test_no_process_outlives.py).

    python setsid_grandchild.py PID_FILE PACKAGE PROFILE

The grandchild calls ``setsid()`` (``start_new_session``: done before ``Popen`` returns) and sleeps,
so killing the adapter's process group does not reach it; its pid goes to PID_FILE. Then this
process becomes the reference of PACKAGE (``cache.adapters``: the cache, ``cursor_state``, ``txlog_writer``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MARKER = "ledgerspec-test-setsid-grandchild"

pid_file, package, profile = sys.argv[1:]
child = subprocess.Popen(
    [sys.executable, "-c", f"import time; time.sleep(3600)  # {MARKER}"],
    start_new_session=True,
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
)
Path(pid_file).write_text(str(child.pid), encoding="utf-8")
module = f"ledgerspec.conformance.{package}.process_reference"
os.execv(sys.executable, [sys.executable, "-m", module, "--profile", profile])
