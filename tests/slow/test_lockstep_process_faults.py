"""A lockstep system's process adapter that dies mid-run is an adapter fault naming the step, with its stderr.

Whichever example the fifth ``apply`` falls in, the crash depends on the process's past: replayed by
Hypothesis to shrink it, it went differently, and ``conform`` once reported ``FlakyStrategyDefinition``
as a bug in ledgerspec, exit 2, with the adapter's stderr lost (``conformance/_search.py``).
"""

from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest
from ledgerspec.conformance.cli import main

DYING = """
import os, sys
from ledgerspec.conformance.{module} import process_reference as p
handle = p.handle
applies = 0
def dying(adapter, request):
    global applies
    applies += request["cmd"] == "apply"
    if applies == 5:
        sys.stderr.write("{system} adapter: simulated crash\\n")
        sys.stderr.flush()
        os._exit(9)
    return handle(adapter, request)
p.handle = dying
p.serve("pulsar-master")
"""


@pytest.mark.parametrize(("system", "module"), [("cursor-state", "cursor_state"), ("txlog-writer", "txlog_writer")])
def test_a_process_that_dies_at_its_fifth_apply_is_an_adapter_fault_naming_the_step_and_its_stderr(
    tmp_path, capsys, system, module
):
    dying = tmp_path / "dying.py"
    dying.write_text(textwrap.dedent(DYING.format(module=module, system=system)))
    out = tmp_path / "r.json"
    argv = ["conform", "--system", system, "--adapter", f"exec:{sys.executable} {dying}", "--settings", "quick"]
    assert main([*argv, "--seed", "1", "--json", str(out)]) == 3
    captured = capsys.readouterr()
    assert re.search(r"adapter fault in example \d+, at step 5 \(config \{", captured.out), captured.out
    assert "   <- faulted" in captured.out
    assert "adapter fault: apply of " in captured.out
    assert "the process closed stdout (exit 9)" in captured.out
    assert f"{system} adapter: simulated crash" in captured.out
    assert "internal-error" not in captured.err
    assert "Traceback" not in captured.out + captured.err
    report = json.loads(out.read_text())
    assert report["verdict"] == "ERROR"
    assert len(report["fault_steps"]) == 5
