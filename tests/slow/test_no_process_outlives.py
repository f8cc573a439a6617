"""Nothing an adapter started outlives the run, not even a grandchild in a session of its own (Linux).

The runner used to kill the adapter's process group only: a descendant that called ``setsid()`` left
the group and ran on after ``ledgerspec`` exited. Each command runs in a child ``ledgerspec`` process;
the check comes right after it returned, with no waiting: a grandchild it killed and reaped has no
/proc entry any more, one that survived is running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

FAKE = Path(__file__).parent / "fakes" / "setsid_grandchild.py"
MARKER = "ledgerspec-test-setsid-grandchild"

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="the guarantee is Linux's (conformance/adapters/_reap.py)"
)


def _running(pid: int) -> bool:
    """Whether the grandchild (by its marker) exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z" and MARKER.encode() in cmdline


@pytest.mark.parametrize(
    ("argv", "package", "profile"),
    [
        (["smoke"], "cache.adapters", "pip430"),
        (["conform", "--examples", "3", "--seed", "1"], "cache.adapters", "pip430"),
        (["conform", "--system", "cursor-state", "--seed", "1"], "cursor_state", "pip381"),
        (["conform", "--system", "txlog-writer", "--seed", "1"], "txlog_writer", "pulsar-master"),
    ],
)
def test_a_grandchild_that_called_setsid_is_gone_when_the_command_returns(tmp_path, argv, package, profile):
    pid_file = tmp_path / "grandchild.pid"
    adapter = f"exec:{sys.executable} {FAKE} {pid_file} {package} {profile}"
    command = [sys.executable, "-m", "ledgerspec.conformance.cli", *argv, "--adapter", adapter]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)
    grandchild = int(pid_file.read_text())
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert not _running(grandchild), f"the setsid grandchild {grandchild} outlived `ledgerspec {argv[0]}`"
    finally:
        if _running(grandchild):
            os.kill(grandchild, signal.SIGKILL)
