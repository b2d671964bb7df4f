"""xbackend/_backends/common/kernels.py: the kernels written once for NumPy and CuPy, against independent references
(Python's own integers, NumPy's float16 ``nextafter``), on NumPy and on CuPy on NumPy (tests/fakecupy.py: CuPy's
kernels underneath, where the rule must hold too; issue 28)."""

from __future__ import annotations

import numpy as np
import pytest

from fakecupy import FAKE_CUPY
from xbackend._backends.common import kernels as R

XPS = {"numpy": np, "cupy_on_numpy": FAKE_CUPY}


@pytest.mark.parametrize("xp", XPS.values(), ids=XPS.keys())
def test_nextafter16_on_every_float16_towards_every_kind_of_target(xp):
    """Every float16 bit pattern towards -inf, -1, -0, +0, 1, inf, NaN and itself: NumPy's float16 nextafter (on the
    bits, npy_half_nextafter), except x == y, where the standard says y (NumPy returns x: +0 vs -0)."""
    x = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    for t in (-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan, None):
        y = x.copy() if t is None else np.full_like(x, t)
        got = np.asarray(FAKE_CUPY.asnumpy(R.nextafter16(xp)(xp.asarray(x), xp.asarray(y))))
        with np.errstate(all="ignore"):
            want = np.where(x == y, y, np.nextafter(x, y))
        same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (t, x[~same][:5], got[~same][:5], want[~same][:5])


_COUNTS = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 2**32, 2**32 + 1, 2**63, 2**64 - 1, -1, -(2**32), -(2**63)]


def _python_shift(x: int, c: int, bits: int, signed: bool, right: bool) -> int:
    """NumPy's rule in Python integers: a count outside [0, bits) gives 0 (right shift of a negative x: -1)."""
    if not 0 <= c < bits:
        return -1 if right and x < 0 else 0
    v = x >> c if right else x << c
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


@pytest.mark.parametrize("xp", XPS.values(), ids=XPS.keys())
@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "uint8", "uint32", "uint64"])
def test_shifts_follow_numpys_rule_for_every_count(xp, dt):
    """>> and << with counts inside and far outside [0, bits), as arrays and as Python ints on either side, against
    Python's integers. On CuPy on NumPy the library's own shift keeps a 64-bit count's low 32 bits (CUDA's shr), which
    the rule must not see: x >> 2**63 was x on the H200 (2026-12-04)."""
    info = np.iinfo(dt)
    bits, signed = info.bits, info.min < 0
    xs = [0, 1, 5, info.max, info.min, info.max // 3] + ([-1, -7] if signed else [])
    cs = [c for c in _COUNTS if info.min <= c <= info.max]
    x = xp.asarray(np.array([v for v in xs for _ in cs], dtype=dt))
    c = xp.asarray(np.array([k for _ in xs for k in cs], dtype=dt))
    for right, rule, native in ((True, R.shift_right, xp.right_shift), (False, R.shift_left, xp.left_shift)):
        got = np.asarray(FAKE_CUPY.asnumpy(rule(xp, native)(x, c))).tolist()
        assert got == [_python_shift(v, k, bits, signed, right) for v in xs for k in cs], (dt, right)
        for k in cs:  # a Python int count
            got = np.asarray(FAKE_CUPY.asnumpy(rule(xp, native)(xp.asarray(np.array(xs, dtype=dt)), k))).tolist()
            assert got == [_python_shift(v, k, bits, signed, right) for v in xs], (dt, right, k)
        for v in xs[:3]:  # a Python int shifted by an array
            got = np.asarray(FAKE_CUPY.asnumpy(rule(xp, native)(v, xp.asarray(np.array(cs, dtype=dt))))).tolist()
            assert got == [_python_shift(v, k, bits, signed, right) for k in cs], (dt, right, v)
