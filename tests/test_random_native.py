"""NumPy's native stream (``stream="native"``) against NumPy's own ``Generator``, call for call.

The native stream answers the common calls - ``random``, ``standard_normal``, ``normal``, ``integers`` with an int
shape, float32/float64 or int64 and Python numbers - by one NumPy call each, and hands every other call to the
general path. Both must give NumPy's numbers, in an Array with the right dtype, backend and device, so each call
here is made on xbackend and on ``np.random.default_rng`` with the same seed, one after the other (a call that
took the wrong path, or drew a different amount, shows in every later value).
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb

# (xbackend call, the same call on NumPy's Generator, dtype xbackend promises, dtype NumPy returns)
F64, F32, I64 = xb.float64, xb.float32, xb.int64
CALLS = [
    (lambda r: r.random(5), lambda g: g.random(5), F64),
    (lambda r: r.random(0), lambda g: g.random(0), F64),
    (lambda r: r.random(4, dtype=F32), lambda g: g.random(4, np.float32), F32),
    (lambda r: r.random((2, 3)), lambda g: g.random((2, 3)), F64),
    (lambda r: r.random(size=3), lambda g: g.random(3), F64),
    (lambda r: r.random(), lambda g: g.random(), F64),
    (lambda r: r.standard_normal(6), lambda g: g.standard_normal(6), F64),
    (lambda r: r.standard_normal(3, dtype=F32), lambda g: g.standard_normal(3, np.float32), F32),
    (lambda r: r.standard_normal((2, 2)), lambda g: g.standard_normal((2, 2)), F64),
    (lambda r: r.standard_normal(size=2), lambda g: g.standard_normal(2), F64),
    (lambda r: r.normal(1.0, 2.0, 5), lambda g: g.normal(1.0, 2.0, 5), F64),
    (lambda r: r.normal(-3, 1, 4), lambda g: g.normal(-3, 1, 4), F64),
    (lambda r: r.normal(0.5, 0.0, 3), lambda g: g.normal(0.5, 0.0, 3), F64),  # scale 0: every value is loc
    (lambda r: r.normal(1.0, 2.0, (2, 3)), lambda g: g.normal(1.0, 2.0, (2, 3)), F64),
    (lambda r: r.normal(1.0, 2.0, size=3), lambda g: g.normal(1.0, 2.0, 3), F64),
    (lambda r: r.normal(1.0, 2.0, 4, dtype=F32),
     lambda g: g.standard_normal(4, np.float32) * np.float32(2.0) + np.float32(1.0), F32),
    (lambda r: r.integers(0, 50, 6), lambda g: g.integers(0, 50, 6), I64),
    (lambda r: r.integers(-(2**63), 2**63 - 1, 4), lambda g: g.integers(-(2**63), 2**63 - 1, 4), I64),
    (lambda r: r.integers(-5, 5, 7, endpoint=True), lambda g: g.integers(-5, 5, 7, endpoint=True), I64),
    (lambda r: r.integers(0, 2**63, 3, endpoint=False), lambda g: g.integers(0, 2**63, 3), I64),
    (lambda r: r.integers(3, 9, (2, 2)), lambda g: g.integers(3, 9, (2, 2)), I64),
    (lambda r: r.integers(3, 9, size=4), lambda g: g.integers(3, 9, 4), I64),
    (lambda r: r.integers(7, size=3), lambda g: g.integers(7, size=3), I64),
]


@pytest.mark.parametrize("i", range(len(CALLS)))
def test_each_common_call_is_numpys_own_and_a_proper_array(i):
    """Each call after every other (so one that draws too much or too little shows in the later ones)."""
    rng, ref = xb.random.default_rng(7, stream="native", backend="numpy"), np.random.default_rng(7)
    order = CALLS[i:] + CALLS[:i]
    for ours, theirs, dt in order:
        got, want = ours(rng), np.asarray(theirs(ref))
        assert (got.dtype, got.backend, got.device, got.shape) == (dt, "numpy", "cpu", want.shape)
        assert got.numpy().tolist() == want.astype(got.numpy().dtype).tolist()
        assert (got + 0).dtype is dt  # a working Array (its fields set)


@pytest.mark.parametrize("default", [xb.float32, xb.float64])
def test_the_default_float_is_the_one_in_force(default):
    rng, ref = xb.random.default_rng(3, stream="native", backend="numpy"), np.random.default_rng(3)
    np_dt = np.float32 if default is xb.float32 else np.float64
    with xb.using(default_float=default):
        for got, want in [(rng.random(4), ref.random(4, np_dt)), (rng.standard_normal(4), ref.standard_normal(4, np_dt))]:
            assert got.dtype is default and got.numpy().tolist() == want.tolist()
        assert rng.normal(1.0, 2.0, 3).dtype is default
    with xb.using(default_int=xb.int32):
        got = rng.integers(0, 9, 5)
        assert got.dtype is xb.int32
    assert rng.random(2).dtype is xb.float64  # and back outside


def test_the_one_call_methods_say_where_their_numbers_come_from():
    rng = xb.random.default_rng(0, stream="native", backend="numpy")
    for name in ("random", "standard_normal", "normal", "integers"):
        assert "NumPy's own generator" in getattr(rng, name).__doc__, name


def test_half_precision_uniforms_keep_the_top_bits_of_numpys_float32_ones():
    """float16 (bfloat16) from NumPy's float32 uniforms: the top 11 (8) bits, floor(u * 2**11) / 2**11, so rounding
    never reaches 1.0."""
    rng, ref = xb.random.default_rng(9, stream="native", backend="numpy"), np.random.default_rng(9)
    got = rng.random(500, dtype=xb.float16)
    want = (np.floor(ref.random(500, np.float32) * 2.0**11) / 2.0**11).astype(np.float16)
    assert got.dtype is xb.float16 and got.numpy().tolist() == want.tolist()
    got = rng.random((20, 25), dtype=xb.bfloat16)
    want = np.floor(ref.random((20, 25), np.float32) * 2.0**8) / 2.0**8
    assert got.dtype is xb.bfloat16 and xb.astype(got, xb.float32).numpy().tolist() == want.tolist()


def test_a_native_permutation_is_the_stable_argsort_of_numpys_62_bit_keys():
    rng, ref = xb.random.default_rng(4, stream="native", backend="numpy"), np.random.default_rng(4)
    assert rng.permutation(40).tolist() == np.argsort(ref.integers(0, 2**62, 40), kind="stable").tolist()


BAD_CALLS = [
    lambda r: r.random(-1), lambda r: r.standard_normal(-2), lambda r: r.normal(0.0, 1.0, -1),
    lambda r: r.normal(0.0, -1.0, 3), lambda r: r.normal(0.0, float("nan"), 3), lambda r: r.integers(0, 10, -1),
    lambda r: r.integers(-(2**63) - 1, 0, 3), lambda r: r.integers(0, 2**63 + 1, 3), lambda r: r.integers(5, 5, 3),
    lambda r: r.integers(0, 2**63, 3, endpoint=True), lambda r: r.random(3, dtype=xb.int64),
    lambda r: r.random(3, size=4), lambda r: r.standard_normal(3, size=4), lambda r: r.normal(0.0, 1.0, 3, size=4),
    lambda r: r.integers(0, 5, 3, size=4),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(BAD_CALLS)))
def test_a_bad_call_raises_the_portable_streams_typed_error(i):
    """The one-call paths refuse what the general path refuses, with the same typed error (never NumPy's own)."""
    errors = []
    for stream in ("portable", "native"):
        with pytest.raises(xb.XBackendError) as e:
            BAD_CALLS[i](xb.random.default_rng(0, stream=stream, backend="numpy"))
        errors.append(type(e.value))
    assert errors[0] is errors[1], errors
