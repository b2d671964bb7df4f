"""portable_stats on every backend, with only the public xbackend testing kit: the xb_backend/xb_device
fixtures, assert_close and the hypothesis strategies. The oracle is NumPy in float64."""

from __future__ import annotations

import numpy as np
import xbackend as xb
from hypothesis import given, settings
from xbackend.testing import assert_close
from xbackend.testing.strategies import host_arrays, shapes

from portable_stats import logsumexp, pairwise_distances, softmax, standardize

settings.register_profile("example", max_examples=25, deadline=None)
settings.load_profile("example")

finite = {"min_value": -50.0, "max_value": 50.0}
matrices = host_arrays(xb.float64, shapes(min_dims=2, max_dims=2, min_side=1), elements=finite)


def native(host, backend, device):
    """The caller's view: a native array of the backend under test."""
    return xb.asarray(host, backend=backend, device=device).native


def np_logsumexp(a, axis=-1):
    m = a.max(axis=axis, keepdims=True)
    return np.squeeze(np.log(np.exp(a - m).sum(axis=axis, keepdims=True)) + m, axis=axis)


@given(a=matrices)
def test_softmax(xb_backend, xb_device, a):
    x = native(a, xb_backend, xb_device)
    out = softmax(x)
    assert type(out) is type(x)
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    assert_close(out, e / e.sum(axis=-1, keepdims=True), atol=1e-12)
    assert_close(xb.sum(xb.asarray(softmax(x, axis=0)), axis=0), np.ones(a.shape[1]))  # (any native type: strict arrays have no .sum)


@given(a=matrices)
def test_logsumexp(xb_backend, xb_device, a):
    x = native(a, xb_backend, xb_device)
    assert_close(logsumexp(x), np_logsumexp(a))
    assert_close(logsumexp(x, axis=0), np_logsumexp(a, axis=0))


def test_logsumexp_of_infinities(xb_backend, xb_device):
    a = np.array([[-np.inf, -np.inf], [np.inf, 0.0], [1e300, 1e300]])
    out = logsumexp(native(a, xb_backend, xb_device))
    assert_close(out, np.array([-np.inf, np.inf, 1e300 + np.log(2.0)]))


@given(a=host_arrays(xb.float64, shapes(min_dims=2, max_dims=2, min_side=2), elements=finite))
def test_standardize(xb_backend, xb_device, a):
    a = a + np.arange(a.shape[0])[:, None]  # no constant columns
    out = standardize(native(a, xb_backend, xb_device))
    assert_close(out, (a - a.mean(0)) / a.std(0), rtol=1e-9, atol=1e-9)


@given(a=matrices, b=matrices)
def test_pairwise_distances(xb_backend, xb_device, a, b):
    d = min(a.shape[1], b.shape[1])
    a, b = a[:, :d], b[:, :d]
    out = pairwise_distances(native(a, xb_backend, xb_device), native(b, xb_backend, xb_device))
    expected = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
    assert_close(out, expected, rtol=1e-6, atol=1e-5)  # the matmul form loses digits near 0


def test_float32_stays_float32(xb_backend, xb_device):
    host = np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])
    x = xb.asarray(host, dtype=xb.float32, backend=xb_backend, device=xb_device).native
    for f in (softmax, logsumexp, standardize):
        out = f(x)
        assert type(out) is type(x)
        assert xb.asarray(out).dtype is xb.float32
