"""No process an adapter started outlives the run, not even one that left its process group (Linux).

A process adapter leads a session and process group of its own, and killing that group ends a wrapper
script, a JVM launcher and what they start. A descendant that calls ``setsid()`` (a daemon, a
double-forked helper) leaves the group, and used to survive. On Linux the runner therefore makes itself
a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, man 2 prctl) before it starts the first adapter:
a process orphaned below it is re-parented to the runner, not to init. At an adapter's end
(:func:`kill_tree`) it kills every descendant of the adapter found by following the parent links of
/proc/*/stat, then the adapter's group and the adapter, and then every child it was handed in another
session than its own (the orphans: a process the runner started itself stays in its session, but for
the adapters), and reaps each.

Elsewhere (no /proc, no subreaper: macOS, the BSDs) only the process group and the adapter itself are
killed: a descendant that leaves the group (``setsid``, ``setpgid``) may survive the run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
"""From <linux/prctl.h>."""
ROUNDS = 64
"""How many times the orphans are looked for again (each round's kills may orphan their own children)."""
LIVE: set[int] = set()
"""The pids of the adapters now running: another adapter's process is never taken for an orphan."""
_subreaper: list[bool] = []


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (once; False where that cannot be done)."""
    if not _subreaper:
        done = False
        if sys.platform == "linux":
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                done = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        _subreaper.append(done)
    return _subreaper[0]


def _table() -> dict[int, tuple[int, int]]:
    """Every process's (parent pid, session id) from /proc; empty where there is no /proc."""
    table = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended while we looked
        table[int(entry.name)] = (int(fields[1]), int(fields[3]))  # ppid, session (man 5 proc)
    return table


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` by their parent links, now."""
    children: dict[int, list[int]] = {}
    for each, (parent, _) in _table().items():
        children.setdefault(parent, []).append(each)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def orphans() -> set[int]:
    """The orphans: children of this process, in another session than its own, that are no running adapter."""
    me, session = os.getpid(), os.getsid(0)
    return {pid for pid, (parent, sid) in _table().items() if parent == me and sid != session and pid not in LIVE}


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def kill_tree(pid: int) -> None:
    """Kill ``pid``'s descendants, its process group and then the orphans it left; reap the orphans.

    The caller kills and waits for ``pid`` itself (it holds its ``Popen``) after this returns.
    """
    LIVE.discard(pid)
    for each in descendants(pid):
        _kill(each)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def reap_orphans() -> None:
    """Kill and reap the orphans re-parented here; bounded by :data:`ROUNDS`, not by a clock."""
    for _ in range(ROUNDS):
        found = orphans()
        if not found:
            return
        for each in found:
            _kill(each)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(each, 0)  # SIGKILLed: returns as soon as it is gone


def end(popen: subprocess.Popen[bytes]) -> None:
    """Kill an adapter's process, its descendants and group, wait for it, and reap what it orphaned."""
    if popen.returncode is None and popen.poll() is None:  # unreaped: its pid is still its own
        kill_tree(popen.pid)
    else:
        LIVE.discard(popen.pid)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(popen.pid, signal.SIGKILL)  # a group its members keep after the leader died
    if popen.poll() is None:  # it left the group (setsid of its own)
        popen.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(timeout=5)
    reap_orphans()
