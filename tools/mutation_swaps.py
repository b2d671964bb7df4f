"""Run the swap mutants of tools/mutation_ops.py on one module (``python tools/mutation.py run MODULE``).

mutmut 2.x has no hook for new mutation operators that would keep its mutant ids (and so the equivalent
mutants recorded by index) stable, so the swap mutants run here, on mutmut's own terms: the same coverage map
and per-line test selection, the same fork server, the same timeout rule (10x the measured time of the tests
a mutant runs, plus the fork's start), the same sample rule (``SWAP_SAMPLE`` in tools/mutation.py, seeded by
``XB_MUT_SEED``). A mutant is written over the source file, whose pristine copy waits as ``<file>.bak`` until
the mutant's tests are done (``tools/mutation.py stop`` puts back any ``.bak`` an interrupted run left).
Results: ``.mutation/swaps-<module>.json``, written after every mutant; a rerun re-tests everything.
"""

from __future__ import annotations

import json
import os
import socket
import time

import mutation
import mutation_ops

_START_S = 20.0  # a forked pytest's collection and xbackend's import, on a busy 2-core machine


def _ask(ids: list[str], timeout: float) -> str:
    """Run ``ids`` in a fresh fork of the server: killed, survived or timeout."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(mutation.SOCK)
    s.settimeout(timeout)
    try:
        s.sendall(json.dumps(ids).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(64)
            if not chunk:
                return "survived"  # the server went away (rerun)
            reply += chunk
    except socket.timeout:
        return "timeout"  # closing the connection makes the server kill the test run
    finally:
        s.close()
    return "survived" if int(reply) == 0 else "killed"


def _key(r: dict) -> tuple:
    return r["path"], r["line"], r["index"], r["op"], r["old"], r["new"]


def run_swaps(mod: str, sel: mutation.Selector) -> list[dict]:
    k = mutation.sample(mod, "swaps")
    out_path = os.path.join(mutation.STATE, f"swaps-{mod}.json")
    results: list[dict] = []
    t0 = time.time()
    before = {}  # a killed mutant stays killed while its line is unchanged: a re-run tests the survivors only
    if os.path.exists(out_path) and not os.environ.get("XB_MUT_FRESH"):
        with open(out_path) as f:
            before = {_key(r): r for r in json.load(f)["mutants"] if r["status"] in ("killed", "timeout")}
    for path in mutation._paths(mod):
        full = os.path.join(mutation.ROOT, path)
        with open(full) as f:
            source = f.read()
        for m in mutation_ops.mutants(source):
            r = {"path": path, "op": m.op, "lineno": m.lineno, "index": m.index, "line": m.line, "old": m.old,
                 "new": m.new, "status": "skipped", "tests": []}  # fmt: skip
            results.append(r)
            if not mutation_ops.in_sample(path, m.line, m.index, k, mutation.SEED):
                continue
            if _key(r) in before:
                r.update(status=before[_key(r)]["status"], tests=before[_key(r)]["tests"])
                continue
            r["tests"] = ids = sel.select(path, m.lineno)
            if not ids:
                r["status"] = "survived"  # no test executes the line
            else:
                timeout = 10 * sum(sel.tests[n]["dur"] for n in ids) + _START_S
                os.replace(full, full + ".bak")
                try:
                    with open(full, "w") as f:
                        f.write(m.apply(source))
                    r["status"] = _ask(ids, timeout)
                finally:
                    os.replace(full + ".bak", full)
            with open(out_path, "w") as f:
                json.dump({"mutants": results}, f, indent=0)
            print(f"[{mod} swaps] {path}:{m.lineno} {m.describe()[:90]} -> {r['status']} "
                  f"({time.time() - t0:.0f} s)", flush=True)
    with open(out_path, "w") as f:
        json.dump({"mutants": results}, f, indent=0)
    return results
