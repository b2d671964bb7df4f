"""The per-call cost guard (issue 29): every entry of the speed sweep - every public function, operator and method
with each operand kind, on NumPy and torch-CPU (``tests/sweep_specs.py``) - makes no more Python calls inside
xbackend than its budget (``tests/call_budgets.json``). Timing is never a test on a shared machine; the count is
deterministic (counted in a fresh interpreter), and each call it counts costs time (~50-100 ns).

A change that needs more calls fails here with the entries over budget; the table of every entry is printed
(``pytest -s`` or on failure) so a reviewer sees what the change cost. If the extra calls are the price of a fix,
record the new budgets with ``python tests/call_counts.py --write`` and say why in the commit. Budgets are exact
for the Python, NumPy and torch versions they were recorded with (``versions`` in the JSON); elsewhere an entry
may take 10 % (at least 2 calls) more. Cost: ~10 s (about 1,800 calls counted, the entries built twice).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import call_counts as C
import xbackend as xb
from xbackend._array import Array

BACKENDS = tuple(b for b in ("numpy", "torch") if b in xb.backend_names() and xb.backends()[b].usable)


def test_every_sweep_entry_stays_within_its_call_budget(tmp_path):
    data = json.loads(C.BUDGETS.read_text())
    budgets = data["budgets"]
    exact = data["versions"] == C.versions()
    # counted in a fresh interpreter: another test's leftovers (torch.set_default_device pushes a function mode,
    # set_default changes the config) change which branches a call takes, not what a change to xbackend costs
    out = tmp_path / "counts.json"
    r = subprocess.run([sys.executable, str(Path(C.__file__)), "--json", str(out), "--backends", ",".join(BACKENDS)],
                       capture_output=True, text=True, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    counts = json.loads(out.read_text())["counts"]
    print(C.table(counts, budgets))
    over, missing = [], []
    for be, per in counts.items():
        for entry, n in per.items():
            b = budgets.get(be, {}).get(entry)
            if b is None:
                missing.append(f"{be} {entry}: {n} calls")
            elif n > (b if exact else b + max(2, b // 10)):
                over.append(f"{be} {entry}: {n} calls, budget {b}")
    assert not over and not missing, (
        ("Over budget (a change made these calls slower):\n  " + "\n  ".join(over) + "\n" if over else "")
        + ("New sweep entries without a budget:\n  " + "\n  ".join(missing) + "\n" if missing else "")
        + "If the calls are the price of a fix: python tests/call_counts.py --write, and say why in the commit."
    )


def test_the_count_sees_calls_made_inside_xbackend():
    x = xb.asarray(np.arange(4.0))
    xb.sum(x)  # caches filled (as the sweep's two warm-up calls do)
    one = C.count_calls(lambda: xb.sum(x))
    assert one > 0
    assert C.count_calls(lambda: (xb.sum(x), xb.sum(x))) == 2 * one
    assert C.count_calls(lambda: np.sum(np.arange(4.0))) == 0  # calls outside xbackend are not counted


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data", [[1, 2, 3], [1.5, 2.0, 3.0], [[1, 2, 3]], (True, False, True)])
def test_a_list_operand_builds_one_array(backend, data):
    """``x + [1, 2, 3]``: the list becomes one native array at x's place, and the one Array built is the result
    (counted through Array.__init__, which ``_array._alloc`` calls)."""
    x = xb.asarray(np.arange(3.0), backend=backend)
    built = []
    Array.__init__ = lambda self: built.append(self)  # type: ignore[method-assign]
    try:
        r = x + data
        r2 = data - x
    finally:
        del Array.__init__
    assert built == [r, r2]
    want = np.arange(3.0) + np.asarray(data, dtype=np.float64)
    assert r.tolist() == want.tolist() and r.dtype is xb.float64 and r.backend == backend
    assert r2.tolist() == (np.asarray(data, dtype=np.float64) - np.arange(3.0)).tolist()
