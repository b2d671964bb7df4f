"""Float to integer casts saturate on every target (``xbackend/_saturate.py``): NaN is 0, values beyond the range
are its bound, the rest truncate towards zero. The oracle is Python's own integers, not any library's cast."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, strategies as st

import xbackend as xb
from xbackend import _dtypes as D
from xbackend.testing import available_targets

TARGETS = available_targets()
INTS = [xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64]
FLOATS = [xb.float16, xb.float32, xb.float64]
EDGES = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 127.5, 128.0, -129.0, 255.9, 256.0, 2.0**31, -2.0**31 - 1,
         2.0**32, 2.0**63, -2.0**63, 2.0**64, 9.2e18, 1e30, -1e30, 65504.0, -65504.0]  # fmt: skip


def _oracle(values, dst):
    lo, hi = D._INT_RANGE[dst]
    return [0 if v != v else hi if v >= hi else lo if v <= lo else math.trunc(v) for v in values]


@given(values=st.lists(st.sampled_from(EDGES) | st.floats(-1e20, 1e20), min_size=1, max_size=8),
       src=st.sampled_from(FLOATS), dst=st.sampled_from(INTS))  # fmt: skip
def test_float_to_int_casts_saturate_everywhere(values, src, dst):
    with np.errstate(over="ignore"):
        held = np.array(values, dtype=np.float64).astype(src.name).astype(np.float64).tolist()  # as src holds them
    want = _oracle(held, dst)
    for t in TARGETS:
        if not (t.holds(src) and t.holds(dst)):
            continue
        x = xb.asarray(held, dtype=src, backend=t.backend, device=t.device)
        for got in (xb.astype(x, dst), x.astype(dst), xb.asarray(x, dtype=dst)):
            assert got.dtype is dst and got.tolist() == want, (t, src, dst, held)


def test_every_edge_saturates_for_every_pair():
    """Every edge value, for every float source and integer destination, on every target (no sampling: the
    bounds that are not floats - int64's, uint64's, float16's - need their own values to show)."""
    for src in FLOATS:
        with np.errstate(over="ignore"):
            held = np.array(EDGES, dtype=np.float64).astype(src.name).astype(np.float64).tolist()
        for dst in INTS:
            want = _oracle(held, dst)
            for t in TARGETS:
                if t.holds(src) and t.holds(dst):
                    got = xb.astype(xb.asarray(held, dtype=src, backend=t.backend, device=t.device), dst)
                    assert got.tolist() == want, (t, src, dst)
