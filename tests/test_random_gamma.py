"""xb.random's gamma and beta draws: bit for bit a plain-Python reference on every target.

The oracle takes NumPy's ``numpy.random.Philox`` words and runs the construction of
``xbackend/random/_gamma.py`` in Python floats (IEEE doubles, one rounding per operation), with the float functions
of ``xbackend/random/_exact.py`` written again here; it shares no code with xbackend. The float functions
themselves are checked against ``math`` (a few ulps), and the distributions against SciPy in
tests/test_random_stats.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import xbackend as xb
from xbackend.random import _exact

LN2_HI, LN2_LO, INV_LN2 = 6.93147180369123816490e-01, 1.90821492927058770002e-10, 1.44269504088896338700e00
SQRT2, PI_2 = 1.4142135623730951, math.pi / 2
LOG_C = [1 / (2 * j + 1) for j in range(12)]
EXP_C = [1 / math.factorial(j) for j in range(15)]
COS_C = [(-1) ** j / math.factorial(2 * j) for j in range(10)]
SIN_C = [(-1) ** j / math.factorial(2 * j + 1) for j in range(10)]
STEPS = (512, 256, 128, 64, 32, 16, 8, 4, 2, 1)


# -- the reference, in Python floats -------------------------------------------------------------------
def _horner(c, z):
    p = z * c[-1] + c[-2]
    for k in c[-3::-1]:
        p = p * z + k
    return p


def ref_log(x, below_one=False):
    m, e = x, 0.0
    if not below_one:
        for k in STEPS:
            if m >= 2.0**k:
                m, e = m * 2.0**-k, e + k
    for k in STEPS[4:] if below_one else STEPS:
        if m < 2.0 ** (1 - k):
            m, e = m * 2.0**k, e - k
    if m > SQRT2:
        m, e = m * 0.5, e + 1.0
    s = (m - 1.0) / (m + 1.0)
    return e * LN2_HI + (e * LN2_LO + (s + s) * _horner(LOG_C, s * s))


def ref_exp(y):
    y = min(max(y, -1100.0), 1100.0)
    k = float(math.floor(y * INV_LN2 + 0.5))
    r = (y - k * LN2_HI) - k * LN2_LO
    ki = int(k)
    return (_horner(EXP_C, r) * math.ldexp(1.0, ki >> 1)) * math.ldexp(1.0, ki - (ki >> 1))


def ref_cos_2pi(u):
    t = u * 4.0
    q = math.floor(t)
    f = t - q
    hi = f > 0.5
    x = ((1.0 - f) if hi else f) * PI_2
    c, s = _horner(COS_C, x * x), x * _horner(SIN_C, x * x)
    cq, sq = (s, c) if hi else (c, s)
    return (cq, -sq, -cq, sq)[q]


def ref_sqrt(x):
    if not x > 0.0:
        return 0.0
    y = ref_exp(ref_log(x) * 0.5)
    return (y + x / y) * 0.5


def _u(w):
    return (w >> 11) * 2.0**-53


def _block(key, ctr, b):
    """The four 64-bit words of Philox block ``b`` of the stream at counter state ``ctr`` (NumPy's Philox)."""
    return [int(v) for v in np.random.Philox(key=np.array(key, dtype=np.uint64), counter=(ctr + b) % 2**256)
            .random_raw(4)]  # fmt: skip


def ref_gamma_parts(key, ctr, b, alpha):
    """(value before the boost, log of the boost or None, attempts) of the gamma variate on block ``b``."""
    a = alpha if alpha >= 1.0 else alpha + 1.0
    d = a - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    attempt = 0
    while True:
        w = _block(key, ctr + attempt * 2**192, b)
        x = ref_sqrt(ref_log(1.0 - _u(w[0]), True) * -2.0) * ref_cos_2pi(_u(w[1]))
        v1 = x * c + 1.0
        if v1 > 0.0:
            v = (v1 * v1) * v1
            u = 1.0 - _u(w[2])
            x2 = x * x
            if u < 1.0 - (x2 * x2) * 0.0331 or ref_log(u, True) < x2 * 0.5 + ((1.0 - v) + ref_log(v)) * d:
                boost = None if alpha >= 1.0 else ref_log(1.0 - _u(w[3]), True) * (1.0 / alpha)
                return v * d, boost, attempt + 1
        attempt += 1


def ref_gamma(key, ctr, n, alpha):
    out = []
    for i in range(n):
        g, lb, _ = ref_gamma_parts(key, ctr, i, alpha)
        out.append(g if lb is None else g * ref_exp(lb))
    return out


def ref_beta(key, ctr, n, a, b):
    out = []
    for i in range(n):
        gx, lx, _ = ref_gamma_parts(key, ctr, 2 * i, a)
        gy, ly, _ = ref_gamma_parts(key, ctr, 2 * i + 1, b)
        if lx is None and ly is None:
            out.append(gx / (gx + gy))
            continue
        diff = ly if lx is None else -lx if ly is None else ly - lx
        e = ref_exp(-diff if diff > 0.0 else diff)
        out.append((gx * e) / (gx * e + gy) if diff > 0.0 else gx / (gx + gy * e))
    return out


# -- the float functions ---------------------------------------------------------------------------------
def _ulps(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.spacing(np.abs(b))))


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_exact_functions_are_accurate_to_a_few_ulps():
    r = np.random.default_rng(0)
    x = np.exp(r.uniform(-700, 700, 5000))
    u = r.uniform(2.0**-53, 1.0, 5000)
    y = r.uniform(-700, 700, 5000)
    s = r.uniform(0.0, 80.0, 5000)
    f = xb.asarray
    assert _ulps(_exact.log(f(x)).numpy(), np.log(x)) <= 2
    assert _ulps(_exact.log(f(u), below_one=True).numpy(), np.log(u)) <= 2
    assert _ulps(_exact.exp(f(y)).numpy(), np.exp(y)) <= 2
    assert _ulps(_exact.sqrt(f(s)).numpy(), np.sqrt(s)) <= 1
    assert np.max(np.abs(_exact.cos_2pi(f(u)).numpy() - np.cos(2 * np.pi * u))) < 2e-15
    assert _exact.exp(f([-1200.0, 0.0, 1200.0])).tolist() == [0.0, 1.0, math.inf]
    assert _exact.sqrt(f([0.0, 4.0])).tolist() == [0.0, 2.0]


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_exact_functions_give_the_reference_bits_on_every_target(xb_target):
    r = np.random.default_rng(1)
    x = np.concatenate([np.exp(r.uniform(-700, 700, 300)), [1.0, 2.0, 0.5, SQRT2, 2.0**-60]])
    u = r.uniform(0.0, 1.0, 300)
    y = np.concatenate([r.uniform(-800, 800, 300), [0.0, -1100.5, 720.0]])
    on = lambda v: xb_target.asarray(v.tolist(), dtype=xb.float64)  # noqa: E731
    host = lambda a: a.to("numpy").numpy().tolist()  # noqa: E731
    assert host(_exact.log(on(x))) == [ref_log(v) for v in x.tolist()]
    assert host(_exact.log(on(1.0 - u), below_one=True)) == [ref_log(v, True) for v in (1.0 - u).tolist()]
    assert host(_exact.exp(on(y))) == [ref_exp(v) for v in y.tolist()]
    assert host(_exact.cos_2pi(on(u))) == [ref_cos_2pi(v) for v in u.tolist()]
    assert host(_exact.sqrt(on(x[:200] % 80.0))) == [ref_sqrt(v) for v in (x[:200] % 80.0).tolist()]


def test_the_reference_float_functions_are_right():
    """The oracle's own functions against ``math``, so a shared mistake of both sides cannot pass."""
    for v in (1e-300, 0.1, 1.0, 1.5, 2.0**-53, 3.0, 1e300):
        assert abs(ref_log(v) - math.log(v)) <= 2 * math.ulp(abs(math.log(v))) + 1e-300
    for v in (-700.0, -1.0, 0.0, 0.3, 700.0):
        assert abs(ref_exp(v) - math.exp(v)) <= 2 * math.ulp(math.exp(v))
    for v in (0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9):
        assert abs(ref_cos_2pi(v) - math.cos(2 * math.pi * v)) < 2e-15


# -- the draws ---------------------------------------------------------------------------------------------
ALPHAS = (0.3, 1.0, 2.5, 40.0)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_gamma_is_the_reference_on_every_target(xb_target, alpha):
    rng = xb.random.default_rng(7, backend=xb_target.backend, device=xb_target.device)
    rng.random(3)  # a counter that is not 0
    st = rng.state
    key, ctr = (int(st["key"][0]), int(st["key"][1])), st["counter"]
    g = rng.gamma(alpha, 2.0, size=(6, 10))
    assert g.shape == (6, 10) and g.dtype is xb.float64
    want = [v * 2.0 for v in ref_gamma(key, ctr, 60, alpha)]
    assert g.to("numpy").numpy().reshape(-1).tolist() == want
    assert rng.state["counter"] == ctr + 60  # one block a variate
    if xb_target.holds(xb.float32):
        rng2 = xb.random.default_rng(7, backend=xb_target.backend, device=xb_target.device)
        rng2.random(3)
        g32 = rng2.gamma(alpha, size=60, dtype=xb.float32)
        assert g32.to("numpy").numpy().tolist() == np.float32(ref_gamma(key, ctr, 60, alpha)).tolist()


@pytest.mark.parametrize("a, b", [(2.0, 5.0), (0.5, 0.5), (0.02, 3.0), (4.0, 0.01), (1e-3, 2e-3)])
def test_beta_is_the_reference_on_every_target(xb_target, a, b):
    rng = xb.random.default_rng(11, backend=xb_target.backend, device=xb_target.device)
    st = rng.state
    key = (int(st["key"][0]), int(st["key"][1]))
    x = rng.beta(a, b, 40)
    got = x.to("numpy").numpy().tolist()
    assert got == ref_beta(key, 0, 40, a, b)
    assert all(0.0 <= v <= 1.0 for v in got)
    assert rng.state["counter"] == 80


def test_the_reference_cases_include_retries():
    """The cases above reach the retry sub-streams (else they would not test them)."""
    key = tuple(int(k) for k in xb.random.default_rng(7).state["key"])
    attempts = [ref_gamma_parts(key, 1, i, 1.0)[2] for i in range(60)]
    assert max(attempts) >= 2


def test_dask_gamma_does_not_depend_on_chunks():
    want = xb.random.default_rng(3, backend="numpy").gamma(0.7, size=(9, 7)).numpy()
    for chunks in (4, (2, 7), 1):
        got = xb.random.default_rng(3, backend="dask", chunks=chunks).gamma(0.7, size=(9, 7)).numpy()
        assert np.array_equal(got, want)
    want_b = xb.random.default_rng(3, backend="numpy").beta(0.4, 2.0, 23).numpy()
    assert np.array_equal(xb.random.default_rng(3, backend="dask", chunks=5).beta(0.4, 2.0, 23).numpy(), want_b)


def test_gamma_of_shape_zero_is_zero_and_scale_arrays_broadcast():
    rng = xb.random.default_rng(0)
    assert rng.gamma(0.0, size=3).tolist() == [0.0, 0.0, 0.0]
    s = xb.asarray([1.0, 10.0, 100.0])
    g = rng.gamma(2.0, s)
    assert g.shape == (3,)


def test_gamma_and_beta_errors_say_what_and_how_to_fix():
    rng = xb.random.default_rng(0)
    for call, err in [(lambda: rng.gamma(-1.0), xb.ArgumentValueError), (lambda: rng.gamma(math.inf), ValueError),
                      (lambda: rng.gamma(xb.asarray([1.0])), xb.ArgumentTypeError),
                      (lambda: rng.gamma(2.0, -1.0), ValueError), (lambda: rng.beta(0.0, 1.0), ValueError),
                      (lambda: rng.beta(1.0, "2"), TypeError), (lambda: rng.gamma(True), TypeError)]:  # fmt: skip
        with pytest.raises(err) as info:
            call()
        assert isinstance(info.value, xb.XBackendError)
        assert "Fix: " in str(info.value) or "scale" in str(info.value)  # (the shared scale check is not gamma's)


@pytest.mark.parametrize("backend", ["numpy", "torch", "dask"])
def test_native_streams_draw_gamma_and_beta(backend):
    pytest.importorskip(backend)
    rng = xb.random.default_rng(0, backend=backend, stream="native")
    g = rng.gamma(3.0, 2.0, size=2000)
    x = rng.beta(2.0, 3.0, 2000, dtype=xb.float32)
    assert g.backend == backend and x.dtype is xb.float32
    gh, xh = g.to("numpy").numpy(), x.to("numpy").numpy()
    assert abs(gh.mean() - 6.0) < 0.4 and 0.0 <= xh.min() and xh.max() <= 1.0 and abs(xh.mean() - 0.4) < 0.03


# -- the CUDA kernel's gamma mode, compiled for the host (the GPU itself never ran it here) ----------------------
from test_random import _fake_cupy, _launch_on_host, _torch_draws_on_host, host_kernel  # noqa: E402, F401


@pytest.mark.parametrize("alpha", ALPHAS)
def test_kernel_gamma_mode_is_the_reference(host_kernel, alpha):  # noqa: F811
    from xbackend.random._cuda import gamma_mode

    key, ctr = (2**64 - 5, 12345), 2**64 - 3  # a counter that carries into lane 1
    mode, arg, thr, low = gamma_mode(alpha)
    got = _launch_on_host(host_kernel, mode, key, ctr, 300, arg, thr, low).view(np.float64)
    assert got.tolist() == ref_gamma(key, ctr, 300, alpha)  # the launch's blocks are the call's blocks 0 .. 299


@pytest.mark.parametrize("call", ["gamma f64", "gamma f32", "gamma small shape", "beta", "after a gamma"])
def test_torch_kernel_path_draws_the_same_gammas(monkeypatch, host_kernel, call):  # noqa: F811
    draw = {
        "gamma f64": lambda r: r.gamma(2.5, 2.0, size=(7, 11)),
        "gamma f32": lambda r: r.gamma(1.0, size=301, dtype=xb.float32),
        "gamma small shape": lambda r: r.gamma(0.05, size=64),
        "beta": lambda r: r.beta(0.3, 4.0, 50),
        "after a gamma": lambda r: (r.gamma(3.0, size=5), r.random(4))[1],
    }[call]
    launches = []
    _torch_draws_on_host(monkeypatch, host_kernel, launches)
    want = draw(xb.random.default_rng(31, backend="numpy"))
    got = draw(xb.random.default_rng(31, backend="torch"))
    assert launches, "the kernel path did not run"
    assert got.dtype is want.dtype and got.to("numpy").numpy().tolist() == want.numpy().tolist()


def test_cupy_gamma_glue_on_a_fake_cupy(monkeypatch, host_kernel):  # noqa: F811
    import contextlib
    import sys
    import types

    launches = []
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(host_kernel, launches))
    from xbackend.random._cupy import Source

    be = types.SimpleNamespace(device_scope=lambda dev: contextlib.nullcontext(), native_dtype=lambda dt: dt.name)
    src, key, ctr, dev = Source(be), (99, 2**63 + 1), 40, xb.Device("cuda:0")
    got = src.fused("gamma", key, ctr, 5, 30, xb.float64, 0.7, dev)._data
    assert got.tolist() == ref_gamma(key, ctr, 35, 0.7)[5:]
    assert src.fused("gamma", key, ctr, 0, 4, xb.float64, 0.0, dev) is None  # shape 0: the general path
    assert launches == [11]


def test_a_native_engine_without_gamma_says_so():
    """A native engine (a plugin's) that does not define the hooks raises a typed error with the fix."""
    from xbackend.random._engine import Native

    from xbackend._dispatch import get_backend

    eng = Native(get_backend("numpy"), xb.Device("numpy", "cpu"), None)
    for call in (lambda: eng.gamma(2.0, (3,), xb.float64, None, None),
                 lambda: eng.beta(1.0, 2.0, (3,), xb.float32, None, None)):  # fmt: skip
        with pytest.raises(xb.XBackendError, match="no (gamma|beta) sampler. Fix: use the portable stream"):
            call()
