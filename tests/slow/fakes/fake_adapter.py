"""Broken process adapters: each mode breaks the protocol one way (tests/slow/test_process_protocol.py).

    python tests/slow/fakes/fake_adapter.py MODE

The cache behind them is the pip430 reference, so any report other than the intended fault is a bug
in the runner.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from ledgerspec.conformance.cache.adapters.process_reference import Session, reply_to


def main() -> None:  # noqa: C901, PLR0912, PLR0915 - a broken fake: one branch per fault it plays
    mode = sys.argv[1]
    session = Session("pip430")
    applies = 0
    for line in sys.stdin:
        request = json.loads(line)
        reply, stop = reply_to(session, line)
        if request["cmd"] == "start" and mode == "lying":
            reply["result"]["implementation"]["capabilities"].append("cursors")
        if request["cmd"] == "configure" and mode.endswith("-at-configure"):  # a fault before the first step
            if mode == "crash-at-configure":
                print("fake: simulated crash at configure", file=sys.stderr, flush=True)
                os._exit(134)
            if mode == "hang-at-configure":
                time.sleep(3600)
            if mode == "wrong-seq-at-configure":
                reply["seq"] = request["seq"] + 1
        if request["cmd"] == "apply":
            applies += 1
            kind = request["ops"][0]["op"]
            if mode == "null-reads" and kind == "insert" and request["ops"][0].get("expected_reads", 0) is None:
                print("fake: int(None): TypeError, an adapter that reads expected_reads as an int", file=sys.stderr)
                os._exit(1)
            if mode == "crash" and applies == 3:
                print("fake: simulated crash in native code", file=sys.stderr, flush=True)
                os._exit(134)
            if mode == "hang" and applies == 3:
                time.sleep(3600)
            if mode == "malformed" and applies == 3:
                sys.stdout.write('{"seq": ' + str(request["seq"]) + ', "result": {"results": [tru\n')
                sys.stdout.flush()
                continue
            if mode == "wrong-seq" and applies == 3:
                reply["seq"] = request["seq"] + 1
            if mode == "lying" and kind.startswith("cursor_"):
                reply = {"seq": request["seq"], "skipped": {"message": "no cursor container here"}}
            if mode == "errored" and kind == "evict_size":
                reply = {"seq": request["seq"], "errored": {"message": "IllegalStateException: eviction failed"}}
            if mode == "schema" and "result" in reply:
                reply["result"]["extra"] = 1
            if mode == "bad-observation" and applies == 3:
                reply["result"]["delta"]["size"] = "big"
            if mode == "stale-delta" and "result" in reply:
                reply["result"]["delta"]["removed"] = []  # the runner goes on seeing removed entries
            if mode == "nondeterministic" and kind == "insert" and random.random() < 0.5:
                reply["result"]["results"] = [not reply["result"]["results"][0]]
            if mode.startswith("deep-") and applies == 3:  # deep-DEPTH-FIELD: FIELD of the result nested
                _, depth, field = mode.split("-")
                reply["result"][field] = "NESTED"
                nested = "[" * int(depth) + "]" * int(depth)
                sys.stdout.write(json.dumps(reply).replace('"NESTED"', nested) + "\n")
                sys.stdout.flush()
                continue
            if mode == "huge-errored" and applies == 3:
                message = "OutOfMemoryError: " + "x" * 50_000_000
                reply = {"seq": request["seq"], "errored": {"message": message}}
            if mode == "non-utf8" and applies == 3:
                text = json.dumps(reply).encode()
                sys.stdout.buffer.write(text[:-1] + b', "note": "caf\xe9"}\n')
                sys.stdout.buffer.flush()
                continue
            if mode in {"grandchild", "orphan"} and applies == 3:
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
                Path(os.environ["FAKE_PID_FILE"]).write_text(str(child.pid))
                if mode == "grandchild":
                    time.sleep(3600)  # hang; "orphan" goes on and leaves the child behind at stop
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if stop:
            return


if __name__ == "__main__":
    main()
