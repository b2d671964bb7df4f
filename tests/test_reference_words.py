"""The Philox words and the small conversions under every draw, against NumPy's own Philox and NumPy's functions.

``words_range`` (xbackend/random/_philox.py) computes the Philox4x64-10 blocks with xbackend operations: the
portable stream on a library without an engine of its own. Its reference is ``np.random.Philox(...).random_raw``:
the same key and counter give the same words, for any start, count, width and counter, including the counter's
wrap-around at 2**256.
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend._backends.common.arange import exact_int_arange
from xbackend.random import _philox
from xbackend.testing import available_targets

TARGETS = [t for t in available_targets() if t.backend != "dask"]
KEY = (0x0123456789ABCDEF, 0xFEDCBA9876543210)


def _raw(ctr, n64):
    return np.random.Philox(key=np.array(KEY, dtype=np.uint64), counter=ctr).random_raw(n64)


@pytest.mark.parametrize("t", TARGETS, ids=str)
@pytest.mark.parametrize("ctr", [0, 7, 2**64 - 1, 2**256 - 1, 2**256 - 3])
@pytest.mark.parametrize("start, n", [(0, 5), (3, 9), (13, 9), (17, 1), (40, 0)])
def test_words_at_any_start_are_numpys_philox(t, ctr, start, n):
    dev = xb.Device(t.backend, t.device)
    for width in (64, 32):
        got = _philox.words_range(dev, ctr, KEY, start, n, width)
        raw = _raw(ctr, (start + n) // (1 if width == 64 else 2) + 4)
        want = raw if width == 64 else raw.view(np.uint32)
        assert got.tolist() == want[start : start + n].tolist(), (width, ctr, start, n)
    assert _philox.reference_words(KEY, ctr, start + n) == _raw(ctr, start + n).tolist()


@pytest.mark.parametrize("start, step, n, name", [(-5, 1, 3, "int64"), (2**63 - 10, 5, 3, "uint64"),
                                                  (-(2**63), 2**63 - 1, 3, "int64"), (100, -7, 4, "int16"),
                                                  (2**64 - 1, -(2**63), 2, "uint64")])  # fmt: skip
def test_exact_integer_arange_is_pythons_range_in_its_dtype(start, step, n, name):
    got = exact_int_arange(start, step, n, name)
    assert got.dtype == np.dtype(name) and got.tolist() == [start + i * step for i in range(n)]


@pytest.mark.parametrize("start, stop", [(1.0, 1.0), (0.0, np.inf), (-np.inf, np.inf), (0.0, 5e-324), (0.1, 0.3),
                                         (2.0, -1.0)])  # fmt: skip
@pytest.mark.parametrize("num", [0, 1, 2, 3])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_of_few_values_is_numpys_bit_for_bit(start, stop, num, endpoint):
    """The short cases - no values, one, two (the endpoint set exactly) - and spans of 0, a subnormal, infinity."""
    if num == 1 and np.isinf(stop - start):
        pytest.skip("one value over an infinite span: xbackend gives [start], NumPy 0 * inf = nan (a known difference)")
    with np.errstate(all="ignore"):
        want = np.linspace(start, stop, num, endpoint=endpoint)
    got = xb.linspace(start, stop, num, endpoint=endpoint).numpy()
    assert got.dtype == want.dtype and got.view(np.uint64).tolist() == want.view(np.uint64).tolist(), (got, want)


@pytest.mark.parametrize("t", [t for t in TARGETS if t.device == "cpu"], ids=str)
def test_a_generator_whose_counter_wraps_at_2_256_draws_numpys_philox_words(t):
    """A generator two blocks before the counter's wrap-around (restored from a state, as a pickle does): its
    uint64 words and float64 uniforms are NumPy's Philox words from that counter on, across the wrap, and the
    counter it leaves is taken modulo 2**256."""
    from xbackend.random._generator import _restore

    rng = xb.random.default_rng(3, backend=t.backend, device=t.device)
    key = np.asarray(rng.state["key"], dtype=np.uint64)
    c = 2**256 - 2
    bits = np.random.Philox(key=key, counter=c).random_raw(40)
    r = _restore(rng._ss, t.backend, t.device, "portable", None, {"key": key, "counter": c})
    assert r.integers(0, 2**64, 20, dtype=xb.uint64).tolist() == bits[:20].tolist()  # 5 blocks of 4 words
    assert r.state["counter"] == (c + 5) % 2**256
    u = r.random(20).tolist()
    assert u == ((bits[20:40] >> np.uint64(11)).astype(np.float64) * 2.0**-53).tolist()
