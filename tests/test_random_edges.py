"""The generator's edges, each against what the definition (or NumPy's ``Generator``) says directly: the bounds of a
probability, a sample as large as its population, axes counted from the end, data placed where the generator
lives, the text that names the generator.

The draws themselves are checked bit for bit in tests/test_random_reference.py; a slip here moves a bound by one
(``0 < p`` for ``0 <= p``, ``k >= n`` for ``k > n``) or an axis, and gives numbers that still look random.
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import available_targets

TARGETS = [t for t in available_targets() if t.backend != "dask"]


def _rng(t, seed=5):
    return xb.random.default_rng(seed, backend=t.backend, device=t.device)


def _host(x):
    return np.asarray(x.tolist())  # (on any device)


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_bernoulli_takes_every_probability_in_the_closed_unit_interval(t):
    r = _rng(t)
    assert _host(r.bernoulli(0.0, 50)).tolist() == [False] * 50
    assert _host(r.bernoulli(1.0, 50)).tolist() == [True] * 50
    half = _host(r.bernoulli(shape=2000))  # the default p is 1/2
    assert 900 < int(half.sum()) < 1100
    for bad in (-1e-9, 1.0 + 1e-9, float("nan")):
        with pytest.raises(xb.ArgumentValueError, match=r"p must be in \[0, 1\]"):
            r.bernoulli(bad, 3)


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_a_sample_without_replacement_may_take_the_whole_population_and_no_more(t):
    r = _rng(t)
    for n in (1, 2, 7):
        assert sorted(_host(r.choice(n, n, replace=False)).tolist()) == list(range(n))
        with pytest.raises(xb.ArgumentValueError, match=f"cannot take {n + 1} samples from {n} without"):
            r.choice(n, n + 1, replace=False)
    assert _host(r.choice(1, 4)).tolist() == [0, 0, 0, 0]  # a population of one: always its entry
    assert _host(r.choice(0, 0)).tolist() == []  # an empty sample of an empty population
    with pytest.raises(xb.ArgumentValueError, match="empty population"):
        r.choice(0, 1)


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_choice_refuses_weights_that_are_not_probabilities(t):
    r = _rng(t)
    for p in ([0.5, 0.5, -0.0 - 1e-3, 1e-3], [0.5, float("nan"), 0.25, 0.25], [0.25, 0.25, 0.25, 0.25 + 2e-8]):
        with pytest.raises(xb.ArgumentValueError, match="non-negative probabilities that sum to 1"):
            r.choice(4, 3, p=p)
    assert _host(r.choice(4, 3, p=[0.0, 0.0, 1.0, 0.0])).tolist() == [2, 2, 2]  # exact weights work


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_permutation_permutes_the_first_axis_unless_told_and_counts_axes_from_the_end(t):
    data = np.arange(12).reshape(3, 4)
    x = xb.asarray(data, backend=t.backend, device=t.device)
    rows = _host(_rng(t).permutation(x))  # axis 0 by default: whole rows move
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, data.tolist()))
    for axis in (1, -1):
        cols = _host(_rng(t).permutation(x, axis=axis))
        assert sorted(map(tuple, cols.T.tolist())) == sorted(map(tuple, data.T.tolist()))
        assert cols.tolist() == _host(_rng(t).permutation(x, axis=1)).tolist()  # -1 is 1 here: the same draw
    got = _host(_rng(t).choice(x, 2, replace=False, axis=-1))  # two of the four columns, every row kept
    assert got.shape == (3, 2) and got.tolist() == _host(_rng(t).choice(x, 2, replace=False, axis=1)).tolist()
    assert all(c in data.T.tolist() for c in got.T.tolist())
    with pytest.raises(xb.AxisError, match=r"pass an axis in -2\.\.1$"):
        _rng(t).permutation(x, axis=2)


def test_a_placed_generator_puts_python_data_where_it_lives_and_says_where():
    pytest.importorskip("torch")
    r = xb.random.default_rng(0, backend="torch", device="cpu")
    assert repr(r) == "Generator(portable, on torch:cpu)"
    assert repr(xb.random.default_rng(0)) == "Generator(portable, on xb.using(...))"
    got = r.choice([10.0, 20.0, 30.0], 2, replace=False)  # a list: made an Array on the generator's place
    assert got.backend == "torch" and got.device == "cpu" and set(got.tolist()) <= {10.0, 20.0, 30.0}


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_array_bounds_and_scales_transform_the_same_uniforms_and_normals(t):
    """uniform(low, high) is low + (high - low) u and normal(loc, scale) loc + scale z, on the float64 uniforms
    (normals) of the same stream, computed here in NumPy float64."""
    lo, hi = np.array([-2.0, 0.0, 5.0]), np.array([3.0, 1e-3, 5.5])
    on = dict(backend=t.backend, device=t.device)
    u = _host(_rng(t, 11).random(3))
    got = _host(_rng(t, 11).uniform(xb.asarray(lo, **on), xb.asarray(hi, **on)))
    np.testing.assert_allclose(got, lo + (hi - lo) * u, rtol=1e-15)
    z = _host(_rng(t, 12).standard_normal(3))
    got = _host(_rng(t, 12).normal(xb.asarray(lo, **on), xb.asarray(hi, **on)))
    np.testing.assert_allclose(got, lo + hi * z, rtol=1e-15)
    assert _host(_rng(t).normal(1.5, 0.0, 4)).tolist() == [1.5] * 4  # a scale of 0 is allowed: every value is loc


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_shape_parameters_are_refused_outside_their_domain_by_name(t):
    r = _rng(t)
    for a, b in ((0.0, 1.0), (1.0, 0.0), (-1.0, 2.0)):
        with pytest.raises(xb.ArgumentValueError, match=r"^beta\(\): [ab] must be finite and > 0"):
            r.beta(a, b, 3)
    with pytest.raises(xb.ArgumentValueError, match=r"^gamma\(\): shape must be finite and >= 0"):
        r.gamma(-1.0, 1.0, 3)
    with pytest.raises(xb.ArgumentTypeError, match=r"got shape=3 and size=4"):
        r.random(3, size=4)
