"""``diverge`` names exactly the call whose output one backend changed, in random short programs (issue 31).

A program is 2-4 calls drawn from the parity generator's table (``tests/parity_specs.py``: every public function,
arguments of every kind), each call's first Array argument sometimes the previous call's result. It runs on NumPy
and torch-CPU under ``diverge``: first as it is (programs that already part are left out), then with one call's
output changed on torch only - one element of its first non-empty Array, inside the call, so the recording sees the
changed output. The report must name that call: its position in the trace, its name and its line.

Cost: 10 examples, deterministic (well under 10 s on one core).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import parity_specs as S
import xbackend as xb
from _parity import Seq, materialize
from xbackend.testing import Target, available_targets, diverge

pytestmark = pytest.mark.skipif(not any(t.id == "torch-cpu" for t in available_targets()), reason="needs torch (CPU)")

FUNCTIONS = S.public_functions()
#: linalg and fft are compared by the parity generator with tolerances scaled to the input (diverge uses the
#: dtype's), and values not unique (decompositions) are left out: the table's other functions, operators' names
POOL = sorted(n for n in FUNCTIONS if "." not in n and n not in S.NOT_COMPARED and n not in S.SHAPES_AND_DTYPES_ONLY)

_ARMED = [False]  # set by the program right before the call whose output is changed (on torch only)
_STEP = "fn(*a, **k)  # the program's call"


@st.composite
def programs(draw):
    steps = []
    for _ in range(draw(st.integers(2, 4))):
        name = draw(st.sampled_from(POOL))
        args, kwargs = draw(S.calls(name, FUNCTIONS[name]))
        steps.append((name, args, kwargs, bool(steps) and draw(st.booleans())))
    return steps


def run_program(probe, steps, perturb_step=None):
    """The program on ``probe``'s backend (``diverge`` moves ``probe`` there); step ``perturb_step`` is changed
    on torch."""
    target = Target(probe.backend, str(probe.device))
    prev = None
    for j, (name, args, kwargs, chain) in enumerate(steps):
        a = materialize(Seq(args, True), target)
        k = materialize(kwargs, target)
        if chain and type(prev) is xb.Array and a and type(a[0]) is xb.Array:
            a = (prev, *a[1:])
        fn = getattr(xb, name)
        _ARMED[0] = j == perturb_step and probe.backend == "torch"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prev = fn(*a, **k)  # the program's call
        except Exception:  # noqa: BLE001 - a drawn call may be refused (on both backends alike)
            prev = None
        _ARMED[0] = False
    return prev


def _changed(out):
    """``out`` with one element of its first non-empty Array changed (made here, on the same backend)."""
    if type(out) in (tuple, list):
        for i, v in enumerate(out):
            if type(v) is xb.Array and v.size:
                return type(out)([*out[:i], _changed(v), *out[i + 1:]])
        return out
    h = xb.to_numpy(out).copy()
    flat = h.reshape(-1)
    v = flat[0]
    if h.dtype.kind == "b":
        flat[0] = not v
    elif h.dtype.kind in "iu":
        flat[0] = v - 1 if v == np.iinfo(h.dtype).max else v + 1
    else:
        flat[0] = v + 1 + abs(v) if np.isfinite(v) else 7
    return xb.asarray(h, dtype=out.dtype, backend=out.backend, device=out.device)


def _perturbing(fn):
    @functools.wraps(fn)
    def perturbing(*a, **k):
        out = fn(*a, **k)
        if _ARMED[0]:
            _ARMED[0] = False
            return _changed(out)
        return out

    return perturbing


def _step_calls(trace):
    """The trace entries of the program's own calls (materialising the arguments makes calls too)."""
    return [c for c in trace.calls if c.file == __file__ and c.source.endswith(_STEP)]


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])  # fmt: skip
@given(programs(), st.data())
def test_diverge_names_exactly_the_changed_call(steps, data):
    probe = np.zeros(1)
    base = diverge(run_program, probe, steps, backends=("numpy", "torch"))
    if base.found:  # the program already parts (an error text, a tolerance): not what is tested here
        return
    mine = _step_calls(base.traces["torch-cpu"])
    assert len(mine) == len(steps)
    changeable = [j for j, c in enumerate(mine) if c.error is None and any(
        lf.kind == "array" and lf.host is not None and lf.host.size for lf in c.outputs)]  # fmt: skip
    if not changeable:
        return
    j = data.draw(st.sampled_from(changeable), label="changed step")
    name = steps[j][0]
    orig = getattr(xb, name)
    setattr(xb, name, _perturbing(orig))
    try:
        report = diverge(run_program, probe, steps, j, backends=("numpy", "torch"))
    finally:
        setattr(xb, name, orig)
    want = mine[j]
    assert report.found, f"step {j} ({name}) changed on torch, but:\n{report}"
    assert (report.index, report.call.name, report.call.line) == (want.index, name, want.line), str(report)
    assert report.first.call_b is not None and report.first.call_b.index == want.index

