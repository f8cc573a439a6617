"""``traces record`` after an adapter fault: exit 3 naming the request, and no file that looks like a trace.

It used to leave the header (and the events before the crash) at ``--out``, which checked later as a
short trace of a healthy run. Now the file is deleted (traces/FORMAT.md, "Recorded traces").
"""

from __future__ import annotations

import sys
import textwrap

import pytest
from ledgerspec.conformance.cli import main

DIES = """
import os
from ledgerspec.conformance.{package} import process_reference as p
applies = [0]
def die_at(request):
    applies[0] += request["cmd"] == "apply"
    if applies[0] == 50:
        os._exit(9)
{patch}
p.serve("{profile}")
"""
CACHE = """
handle = p.Session.handle
def patched(self, request):
    die_at(request)
    return handle(self, request)
p.Session.handle = patched
"""
SYSTEM = """
handle = p.handle
def patched(adapter, request):
    die_at(request)
    return handle(adapter, request)
p.handle = patched
"""


@pytest.mark.parametrize(
    ("system", "package", "profile", "patch"),
    [
        ("cache", "cache.adapters", "pip430", CACHE),
        ("cursor-state", "cursor_state", "pip381", SYSTEM),
        ("txlog-writer", "txlog_writer", "pulsar-master", SYSTEM),
    ],
)
def test_a_crash_while_recording_exits_3_naming_the_step_and_leaves_no_trace(
    tmp_path, capsys, system, package, profile, patch
):
    script = tmp_path / "dies.py"
    script.write_text(textwrap.dedent(DIES.format(package=package, profile=profile, patch=textwrap.dedent(patch))))
    out = tmp_path / "recorded.jsonl"
    out.write_text("an earlier run's file\n")
    argv = ["traces", "record", "--system", system, "--adapter", f"exec:{sys.executable} {script}", "--out", str(out)]
    assert main([*argv, "--events", "200"]) == 3
    err = capsys.readouterr().err
    assert "error[adapter-crashed]: apply of " in err, err
    assert "(exit 9)" in err
    assert f"no trace: {out} removed" in err
    assert not out.exists()
