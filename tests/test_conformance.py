"""Conformance with the Array API standard (2025.12) where a backend's native behaviour differs (issue 9).

Each test states the standard's rule independently of the code under test: the special-case tables of
``floor_divide``, complex ``expm1`` and complex ``tanh`` are written out below from the spec text (with
its symmetries), everything else is compared with NumPy in float64/complex128 or exact Python ints.
Every test runs on every available target through the plugin fixtures.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dtypes as D

nan, inf = math.nan, math.inf
FLOATS = (D.float16, D.float32, D.float64)
SPECIAL = (0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 7.0, -3.0)


def _finite(v: float) -> bool:
    return math.isfinite(v)


def _sgn(v: float) -> float:
    return math.copysign(1.0, v)


# ---------------------------------------------------------------------------------------------
# floor_divide: the standard's special cases (the spec prefers floor(x1 / x2) at infinities)
# ---------------------------------------------------------------------------------------------
def std_floor_divide(a: float, b: float) -> float | None:
    """The standard's result for ``a // b``, or None where it only asks for the rounded quotient."""
    if math.isnan(a) or math.isnan(b):
        return nan
    if math.isinf(a) and math.isinf(b):
        return nan
    if a == 0 and b == 0:
        return nan
    if a == 0:  # +-0 divided by a nonzero number (finite or infinite): a zero of sign(a) * sign(b)
        return math.copysign(0.0, _sgn(a) * _sgn(b))
    if b == 0:  # nonzero divided by +-0
        return math.copysign(inf, _sgn(a) * _sgn(b))
    if math.isinf(a):  # +-inf divided by a nonzero finite number
        return math.copysign(inf, _sgn(a) * _sgn(b))
    if math.isinf(b):  # nonzero finite divided by +-inf: +0 for equal signs, -0 otherwise
        return math.copysign(0.0, _sgn(a) * _sgn(b))
    return None  # both finite and nonzero: the floor of the quotient (Python's float //)


def _same(g: float, e: float) -> bool:
    if math.isnan(e):
        return math.isnan(g)
    return g == e and (e != 0 or _sgn(g) == _sgn(e))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_floor_divide_special_cases(xb_target, dt):
    pairs = [(a, b) for a in SPECIAL for b in SPECIAL]
    x = xb_target.asarray(np.array([p[0] for p in pairs], dtype=dt.name))
    y = xb_target.asarray(np.array([p[1] for p in pairs], dtype=dt.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = {
            "x // y": (x // y).numpy(),
            "xb.floor_divide": xb.floor_divide(x, y).numpy(),
            "x // scalar": np.array([(x[i : i + 1] // b).numpy()[0] for i, (_, b) in enumerate(pairs)]),
            "scalar // y": np.array([(a // y[i : i + 1]).numpy()[0] for i, (a, _) in enumerate(pairs)]),
        }
        z = x * 1
        z //= y
        results["x //= y"] = z.numpy()
        inplace_scalar = []
        for i, (_, b) in enumerate(pairs):
            w = x[i : i + 1] * 1
            w //= b
            inplace_scalar.append(w.numpy()[0])
        results["x //= scalar"] = np.array(inplace_scalar)
    for how, got in results.items():
        assert got.dtype == np.dtype(dt.name), how
        bad = []
        for (a, b), g in zip(pairs, got.tolist()):
            e = std_floor_divide(a, b)
            if e is None:
                e = float(np.floor_divide(np.float64(a), np.float64(b)))  # finite nonzero: NumPy float64
            if not _same(g, e):
                bad.append(((a, b), g, e))
        assert not bad, f"{how} ({dt}) on {xb_target}: (operands, got, standard) {bad[:6]}"


# ---------------------------------------------------------------------------------------------
# complex expm1 and tanh: the standard's special-case tables (a = real(x), b = imag(x))
# ---------------------------------------------------------------------------------------------
ANY = None  # a component whose sign (or value) the standard leaves unspecified


def _std_expm1_upper(a: float, b: float) -> tuple[float | None, float | None] | None:
    """expm1(a + bj) for b with a clear sign bit (the rest follows from conj symmetry)."""
    if a == 0 and b == 0:
        return (0.0, 0.0)
    if _finite(a) and b == inf:
        return (nan, nan)
    if _finite(a) and math.isnan(b):
        return (nan, nan)
    if a == inf and b == 0:
        return (inf, 0.0)
    if a == -inf and _finite(b):
        return (-1.0, math.copysign(0.0, math.sin(b)) if b != 0 else 0.0)
    if a == inf and _finite(b):  # +inf * cis(b) - 1
        return (math.copysign(inf, math.cos(b)), math.copysign(inf, math.sin(b)))
    if a == -inf and (b == inf or math.isnan(b)):
        return (-1.0, ANY)
    if a == inf and (b == inf or math.isnan(b)):
        return (ANY, nan)  # infinity + NaN j, sign of the real part unspecified
    if math.isnan(a):
        return (nan, 0.0) if b == 0 else (nan, nan)
    return None


def std_expm1(a: float, b: float) -> tuple[float | None, float | None] | None:
    if not math.isnan(b) and _sgn(b) < 0:
        r = _std_expm1_upper(a, -b)
        return None if r is None else (r[0], None if r[1] is None else -r[1])
    return _std_expm1_upper(a, b)


def _std_tanh_quadrant(a: float, b: float) -> tuple[float | None, float | None] | None:
    """tanh(a + bj) for a and b with clear sign bits (the rest: tanh(-x) = -tanh(x), conj symmetry)."""
    if a == 0 and b == 0:
        return (0.0, 0.0)
    if _finite(a) and a != 0 and (b == inf or math.isnan(b)):
        return (nan, nan)
    if a == 0 and (b == inf or math.isnan(b)):
        return (0.0, nan)
    if a == inf and _finite(b) and b > 0:
        return (1.0, ANY)  # "1 + 0j"; C99 gives 0 * sin(2b), whose sign varies
    if a == inf and b == 0:
        return (1.0, 0.0)
    if a == inf and (b == inf or math.isnan(b)):
        return (1.0, ANY)
    if math.isnan(a):
        return (nan, 0.0) if b == 0 else (nan, nan)
    return None


def std_tanh(a: float, b: float) -> tuple[float | None, float | None] | None:
    sa = -1.0 if (not math.isnan(a) and _sgn(a) < 0) else 1.0
    sb = -1.0 if (not math.isnan(b) and _sgn(b) < 0) else 1.0
    r = _std_tanh_quadrant(abs(a) if not math.isnan(a) else a, abs(b) if not math.isnan(b) else b)
    if r is None:
        return None
    re, im = r
    # x = -|a| + |b|j is -conj(|a| + |b|j), so tanh(x) = -conj(tanh(|a| + |b|j)): a's sign goes to the real
    # part, b's to the imaginary part (tanh(-x) = -tanh(x), tanh(conj x) = conj(tanh x))
    re = None if re is None else (re * sa if not math.isnan(re) else re)
    im = None if im is None else (im * sb if not math.isnan(im) else im)
    return (re, im)


GRID = (0.0, -0.0, 1.0, -1.0, 2.0, inf, -inf, nan)
CPLX_TABLES = {"expm1": std_expm1, "tanh": std_tanh}


@pytest.mark.parametrize("name", sorted(CPLX_TABLES))
@pytest.mark.parametrize("dt", [D.complex64, D.complex128], ids=str)
def test_complex_special_cases_of_the_standard(xb_target, name, dt):
    pts = [(a, b) for a in GRID for b in GRID]
    x = xb_target.asarray(np.array([complex(a, b) for a, b in pts], dtype=dt.name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(xb, name)(x).numpy()
        ref = getattr(np, name)(np.array([complex(a, b) for a, b in pts], dtype=np.complex128))
    bad = []
    for (a, b), g, r in zip(pts, got.tolist(), ref.tolist()):
        e = CPLX_TABLES[name](a, b)
        if e is None:  # not a special case: NumPy complex128 to the dtype's precision
            tol = 1e-5 if dt is D.complex64 else 1e-12
            if not np.isclose(g, r, rtol=tol, atol=tol):
                bad.append(((a, b), g, r))
            continue
        for gv, ev in ((g.real, e[0]), (g.imag, e[1])):
            if ev is not None and not _same(gv, ev):
                bad.append(((a, b), g, e))
                break
    assert not bad, f"{name} ({dt}) on {xb_target}: (input, got, standard) {bad[:6]}"


# ---------------------------------------------------------------------------------------------
# creation, manipulation and linear algebra
# ---------------------------------------------------------------------------------------------
def test_meshgrid_returns_a_tuple(xb_target):
    a, b = xb_target.asarray([1, 2]), xb_target.asarray([3, 4, 5])
    for indexing in ("xy", "ij"):
        got = xb.meshgrid(a, b, indexing=indexing)
        assert type(got) is tuple and len(got) == 2
        for g, w in zip(got, np.meshgrid([1, 2], [3, 4, 5], indexing=indexing)):
            assert g.tolist() == w.tolist()
    assert xb.meshgrid() == ()


@pytest.mark.parametrize("k", [-(2**63), -(2**63) + 1, -5, -3, -2, 0, 2, 3, 4, 2**31, 2**62, 2**63 - 1, 2**63,
                               2**64])  # fmt: skip
def test_eye_with_any_k(xb_target, k):
    want = np.eye(3, 4, k=k) if abs(k) < 2**63 else np.zeros((3, 4))
    got = xb.eye(3, 4, k=k, backend=xb_target.backend, device=xb_target.device)
    assert got.dtype is xb.float64 and got.tolist() == want.tolist()


@pytest.mark.parametrize("shapes", [((2, 4, 3), (3,)), ((3,), (2, 4, 3)), ((5, 1, 3), (4, 3)), ((3,), (3,)),
                                    ((1, 3), (2, 5, 3))])  # fmt: skip
def test_cross_broadcasts_operands_of_different_ndim(xb_target, shapes):
    rng = np.random.default_rng(0)
    p, q = (rng.integers(-9, 9, s) for s in shapes)
    for dt in (np.int64, np.float32, np.float64):
        got = xb.linalg.cross(xb_target.asarray(p.astype(dt)), xb_target.asarray(q.astype(dt)))
        want = np.cross(p, q)  # exact in int64
        assert got.shape == want.shape and got.dtype is xb.dtype(np.dtype(dt).name)
        assert got.tolist() == want.tolist()


TENSORDOT_CASES = [
    ((), (), 0), ((), (3,), 0), ((2,), (), 0), ((2,), (3,), 0), ((2, 3), (4,), 0),
    ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (2, 3), 2), ((3,), (3,), 1),
    ((2, 3), (2, 3), ([0, 1], [0, 1])), ((2, 3), (3, 2), ([-1], [0])), ((2, 3, 4), (4, 3), ([1, 2], [1, 0])),
    ((3,), (3,), ([0], [-1])), ((2, 3), (2, 3), ((), ())), ((2, 3), (5,), ([], [])), ((4, 2, 3), (3, 4), ((0, -1), (1, 0))),
    ((2, 3, 4), (2, 3, 4), ([-3, -2, -1], [0, 1, 2])), ((2, 3), (3, 2), ((1, 0), (0, 1))),
]  # fmt: skip


@pytest.mark.parametrize("case", TENSORDOT_CASES, ids=str)
def test_tensordot_every_axes_form(xb_target, case):
    sa, sb, axes = case
    rng = np.random.default_rng(1)
    p, q = rng.integers(-5, 5, sa), rng.integers(-5, 5, sb)
    want = np.tensordot(p, q, axes=axes)  # exact in int64
    for dt in (xb.int64, xb.int32, xb.float64, xb.complex64):
        got = xb.tensordot(xb_target.asarray(p, dtype=dt), xb_target.asarray(q, dtype=dt), axes=axes)
        assert got.dtype is dt and got.shape == want.shape
        assert np.array_equal(np.asarray(got.numpy()), want.astype(dt.name)), (case, dt)


def test_tensordot_hands_backends_one_axes_form(monkeypatch):
    """The shared root of CuPy's ValueError (``([], [])`` is not ``((), ())``) and torch-CUDA's ``permute()``
    TypeError: backends get two non-empty tuples, never lists or an empty contraction."""
    from xbackend._dispatch import get_backend

    be = get_backend("numpy")
    seen = []
    orig = be.la_tensordot

    def spy(a, b, axes):
        seen.append(axes)
        return orig(a, b, axes)

    monkeypatch.setattr(be, "la_tensordot", spy)
    for sa, sb, axes in TENSORDOT_CASES:
        xb.tensordot(xb.ones(sa), xb.ones(sb), axes=axes)
    assert seen and all(type(a) is tuple and len(a) == 2 and all(type(s) is tuple and s for s in a) for a in seen)


# ---------------------------------------------------------------------------------------------
# every namespace function on every dtype the standard requires: works as on NumPy, or the same refusal
# ---------------------------------------------------------------------------------------------
REQUIRED = (D.bool, D.int8, D.int16, D.int32, D.int64, D.uint8, D.uint16, D.uint32, D.uint64, D.float32,
            D.float64, D.complex64, D.complex128)  # fmt: skip


def _data(dt: D.DType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values that exercise each dtype (uint64 above 2**63, negative ints, fractions), never zero."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt is D.bool:
        return (np.arange(n) % 3 != 1).reshape(shape)
    if dt.kind in "iu":
        lo, hi = D._INT_RANGE[dt]
        v = rng.integers(max(lo, -100), min(hi, 100), n, endpoint=True)
        if dt is D.uint64:
            v = v.astype(np.uint64) + np.where(np.arange(n) % 2 == 0, np.uint64(2**63), np.uint64(0))
        v = np.where(v == 0, 3, v)
        return v.astype(dt.name).reshape(shape)
    v = rng.uniform(-3, 3, n) + (1j * rng.uniform(-3, 3, n) if dt.kind == "c" else 0)
    return v.astype(dt.name).reshape(shape)


def _small(dt: D.DType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Exponents and shifts: small non-negative values of the dtype."""
    v = np.arange(int(np.prod(shape))) % 4
    return (v != 0 if dt is D.bool else v.astype(dt.name)).reshape(shape)


def _sweep_calls():
    from xbackend._rules import ELEMENTWISE

    calls = {}
    for name, (n, _) in ELEMENTWISE.items():
        if name == "matmul":
            calls["matmul"] = lambda x, y, s: xb.matmul(x, y.mT)
        elif n == 1:
            calls[name] = lambda x, y, s, f=getattr(xb, name): f(x)
        elif name in ("pow", "bitwise_left_shift", "bitwise_right_shift"):
            calls[name] = lambda x, y, s, f=getattr(xb, name): f(x, s)
        else:
            calls[name] = lambda x, y, s, f=getattr(xb, name): f(x, y)
    calls.update({
        "clip": lambda x, y, s: xb.clip(x, x[0, 0], x[1, 1]),
        "astype": lambda x, y, s: xb.astype(x, xb.int64 if x.dtype.kind != "c" else xb.complex128),
        "sum": lambda x, y, s: xb.sum(x, axis=1), "prod": lambda x, y, s: xb.prod(x, axis=0),
        "max": lambda x, y, s: xb.max(x, axis=1), "min": lambda x, y, s: xb.min(x),
        "mean": lambda x, y, s: xb.mean(x, axis=0), "std": lambda x, y, s: xb.std(x, axis=1),
        "var": lambda x, y, s: xb.var(x), "cumulative_sum": lambda x, y, s: xb.cumulative_sum(x, axis=1),
        "cumulative_prod": lambda x, y, s: xb.cumulative_prod(x, axis=0),
        "all": lambda x, y, s: xb.all(x, axis=1), "any": lambda x, y, s: xb.any(x),
        "diff": lambda x, y, s: xb.diff(x, axis=1),
        "argmax": lambda x, y, s: xb.argmax(x, axis=1), "argmin": lambda x, y, s: xb.argmin(x),
        "sort": lambda x, y, s: xb.sort(x, axis=1), "argsort": lambda x, y, s: xb.argsort(x, axis=0, descending=True),
        "searchsorted": lambda x, y, s: xb.searchsorted(xb.sort(xb.reshape(x, (-1,))), y[0]),
        "nonzero": lambda x, y, s: xb.nonzero(x), "count_nonzero": lambda x, y, s: xb.count_nonzero(x, axis=0),
        "where": lambda x, y, s: xb.where(xb.asarray(x.shape[1] * [True], device=x.device,
                                                     backend=x.backend), x, y),
        "unique_all": lambda x, y, s: xb.unique_all(x), "unique_counts": lambda x, y, s: xb.unique_counts(x),
        "unique_inverse": lambda x, y, s: xb.unique_inverse(x), "unique_values": lambda x, y, s: xb.unique_values(x),
        "isin": lambda x, y, s: xb.isin(x, y),
        "concat": lambda x, y, s: xb.concat([x, y], axis=0), "stack": lambda x, y, s: xb.stack([x, y], axis=1),
        "flip": lambda x, y, s: xb.flip(x), "roll": lambda x, y, s: xb.roll(x, 2, axis=1),
        "reshape": lambda x, y, s: xb.reshape(x, (-1,)), "squeeze": lambda x, y, s: xb.squeeze(x[None], 0),
        "expand_dims": lambda x, y, s: xb.expand_dims(x, axis=1), "permute_dims": lambda x, y, s: xb.permute_dims(x, (1, 0)),
        "moveaxis": lambda x, y, s: xb.moveaxis(x, 0, 1), "tile": lambda x, y, s: xb.tile(x, (2, 1)),
        "repeat": lambda x, y, s: xb.repeat(x, 2, axis=0), "broadcast_to": lambda x, y, s: xb.broadcast_to(x, (2, 3, 3)),
        "broadcast_arrays": lambda x, y, s: xb.broadcast_arrays(x, y[0]), "unstack": lambda x, y, s: xb.unstack(x),
        "take": lambda x, y, s: xb.take(x, xb.asarray([2, 0], device=x.device, backend=x.backend), axis=1),
        "take_along_axis": lambda x, y, s: xb.take_along_axis(x, xb.argsort(x, axis=1) if x.dtype.kind != "c" else
                                                               xb.zeros_like(x, dtype=xb.int64), axis=1),
        "tensordot": lambda x, y, s: xb.tensordot(x, y, axes=([1], [1])), "vecdot": lambda x, y, s: xb.vecdot(x, y),
        "matrix_transpose": lambda x, y, s: xb.matrix_transpose(x),
        "empty_like": lambda x, y, s: xb.empty_like(x).shape, "zeros_like": lambda x, y, s: xb.zeros_like(x),
        "ones_like": lambda x, y, s: xb.ones_like(x), "full_like": lambda x, y, s: xb.full_like(x, 1),
        "tril": lambda x, y, s: xb.tril(x), "triu": lambda x, y, s: xb.triu(x, k=1),
        "meshgrid": lambda x, y, s: xb.meshgrid(x[0], y[1]),
        "full": lambda x, y, s: xb.full((2,), 1, dtype=x.dtype, backend=x.backend, device=x.device),
        "zeros": lambda x, y, s: xb.zeros((2,), dtype=x.dtype, backend=x.backend, device=x.device),
        "ones": lambda x, y, s: xb.ones((2,), dtype=x.dtype, backend=x.backend, device=x.device),
        "empty": lambda x, y, s: xb.empty((2,), dtype=x.dtype, backend=x.backend, device=x.device).shape,
        "eye": lambda x, y, s: xb.eye(3, dtype=x.dtype, backend=x.backend, device=x.device),
        "arange": lambda x, y, s: xb.arange(1, 9, 3, dtype=x.dtype, backend=x.backend, device=x.device),
        "linspace": lambda x, y, s: xb.linspace(0, 3, 4, dtype=x.dtype, backend=x.backend, device=x.device),
        "linalg.cross": lambda x, y, s: xb.linalg.cross(x, y), "linalg.outer": lambda x, y, s: xb.linalg.outer(x[0], y[1]),
        "linalg.trace": lambda x, y, s: xb.linalg.trace(x), "linalg.diagonal": lambda x, y, s: xb.linalg.diagonal(x),
        "linalg.matrix_power": lambda x, y, s: xb.linalg.matrix_power(x, 3),
        "linalg.vector_norm": lambda x, y, s: xb.linalg.vector_norm(x),
        "linalg.matrix_norm": lambda x, y, s: xb.linalg.matrix_norm(x),
    })  # fmt: skip
    return calls


SWEEP = _sweep_calls()


def _as_host(r):
    if isinstance(r, xb.Array):
        return ("array", r.dtype, np.asarray(r.numpy()))
    if isinstance(r, tuple):
        return tuple(_as_host(v) for v in r)
    if isinstance(r, list):
        return [_as_host(v) for v in r]
    return r


def _agree(a, b, dt) -> bool:
    if isinstance(a, tuple) and a and a[0] == "array":
        if not (isinstance(b, tuple) and b[0] == "array" and a[1] is b[1] and a[2].shape == b[2].shape):
            return False
        if a[1].kind in "fc":
            tol = 1e-4 if a[1] in (D.float32, D.complex64) else 1e-10
            return bool(np.allclose(a[2], b[2], rtol=tol, atol=tol, equal_nan=True))
        return bool(np.array_equal(a[2], b[2]))
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_agree(p, q, dt) for p, q in zip(a, b))
    return a == b


def _run(call, target, dt):
    x = target.asarray(_data(dt, (3, 3), 0))
    y = target.asarray(_data(dt, (3, 3), 1))
    s = target.asarray(_small(dt, (3, 3), 2))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", _as_host(call(x, y, s))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "raised", e


def test_sweep_covers_the_namespace():
    funcs = {n for n in xb.__all__ if callable(getattr(xb, n)) and n[0].islower()}
    not_array_ops = {"asarray", "compute", "persist", "rechunk", "backend_names", "backends", "broadcast_shapes",
                     "can_cast", "device",
                     "device_to_host", "devices", "dtype", "finfo", "from_dlpack", "get_config", "host_to_device",
                     "iinfo", "isdtype", "moved", "portable", "preferred_device", "prefetch", "register_backend", "result_type",
                     "set_default", "shares_memory", "jit", "jit_cache_info", "staging_limit", "synchronize", "timer", "to_numpy", "using",
                     "grad", "value_and_grad", "no_grad"}  # fmt: skip  (function transformations and a context: tests/test_grad.py)
    missing = funcs - not_array_ops - set(SWEEP)
    assert not missing, f"namespace functions not swept: {sorted(missing)}"


@pytest.mark.parametrize("dt", REQUIRED, ids=str)
def test_every_function_every_required_dtype_like_numpy(xb_target, dt):
    """Each call either agrees with NumPy in dtype and value or raises the same xbackend error class; no
    UnsupportedDTypeError where NumPy computes (torch's missing unsigned kernels are emulated)."""
    from xbackend.testing import Target

    ref = Target("numpy", "cpu")
    bad = []
    for name, call in SWEEP.items():
        want = _run(call, ref, dt)
        got = _run(call, xb_target, dt)
        if want[0] == "raised":
            if got[0] != "raised" or type(got[1]) is not type(want[1]):
                bad.append((name, "numpy raised", type(want[1]).__name__, got[0], got[1] if got[0] == "raised" else ""))
            continue
        if got[0] == "raised":
            bad.append((name, "raised", f"{type(got[1]).__name__}: {got[1]}"[:160]))
        elif not _agree(want[1], got[1], dt):
            bad.append((name, "differs", want[1], got[1]))
    assert not bad, f"{dt} on {xb_target}: {bad}"


@pytest.mark.parametrize("op", ["pow", "floor_divide", "remainder"])
def test_uint64_pow_and_division_exact(xb_target, op):
    """uint64 ** // % against exact Python ints (mod 2**64; division by zero gives 0), arrays and scalars."""
    rng = np.random.default_rng(7)
    top = [0, 1, 2, 3, 2**32, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1]
    a = np.array(top * len(top) + list(rng.integers(0, 2**64, 500, dtype=np.uint64)), dtype=np.uint64)
    if op == "pow":
        b = np.array([t for t in top for _ in top] + list(rng.integers(0, 70, 500)), dtype=np.uint64)
        b[:10] = [0, 1, 2, 63, 64, 65, 2**63, 2**64 - 1, 5, 7]
    else:
        shift = rng.integers(0, 64, 500).astype(np.uint64)
        b = np.array([t for t in top for _ in top] + list(rng.integers(0, 2**64, 500, dtype=np.uint64) >> shift),
                     dtype=np.uint64)  # fmt: skip
    f = {"pow": lambda p, q: pow(p, q, 2**64), "floor_divide": lambda p, q: p // q if q else 0,
         "remainder": lambda p, q: p % q if q else 0}[op]  # fmt: skip
    want = [f(int(p), int(q)) for p, q in zip(a, b)]
    x, y = xb_target.asarray(a), xb_target.asarray(b)
    got = getattr(xb, op)(x, y)
    assert got.dtype is xb.uint64 and got.tolist() == want
    sym = {"pow": "**", "floor_divide": "//", "remainder": "%"}[op]
    for q in (int(b[7]), 2**63 + 5, 3):  # a Python int on the right, also above 2**63
        assert eval(f"x {sym} q").tolist() == [f(int(p), q) for p in a]  # noqa: S307
    z = x * 1
    exec(f"z {sym}= y")  # noqa: S102
    assert z.dtype is xb.uint64 and z.tolist() == want


# ---------------------------------------------------------------------------------------------
# Python bool scalars (docs/behaviour.md): with numeric Arrays they are the ints 0 and 1 (weak)
# ---------------------------------------------------------------------------------------------
BOOL_OPS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "<", "<=", "==", "!=", ">", ">="]


@pytest.mark.parametrize("dt", [D.int8, D.uint8, D.int64, D.uint64, D.float32, D.float64, D.complex64], ids=str)
def test_bool_scalar_is_the_int_zero_or_one(xb_target, dt):
    x = xb_target.asarray(np.array([1, 2, 3], dtype=dt.name))
    for op in BOOL_OPS:
        for b in (True, False):
            for left in (False, True):
                expr = f"{int(b)} {op} x" if left else f"x {op} {int(b)}"
                bexpr = f"{b} {op} x" if left else f"x {op} {b}"
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = eval(expr)  # noqa: S307
                except xb.XBackendError as e:
                    with pytest.raises(type(e)):
                        eval(bexpr)  # noqa: S307
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = eval(bexpr)  # noqa: S307
                assert got.dtype is want.dtype, bexpr
                assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True), (bexpr, dt)
    y = x * 1
    y -= True
    assert y.dtype is dt and np.array_equal(y.numpy(), (x - 1).numpy())


def test_bool_scalar_with_bool_array_stays_bool(xb_target):
    x = xb_target.asarray([True, False])
    assert (x & True).dtype is xb.bool and (x ^ True).tolist() == [False, True]
    assert (True | x).tolist() == [True, True] and (x == False).tolist() == [False, True]  # noqa: E712
    assert (x + 1).dtype is xb.int64 and (x + 1).tolist() == [2, 1]
    with pytest.raises(xb.UnsupportedDTypeError, match="Fix"):
        x - True  # bool - bool is not arithmetic (the standard), on every backend


# ---------------------------------------------------------------------------------------------
# assignment casts (docs/behaviour.md): within a kind and upward across kinds; lossy stores refused
# ---------------------------------------------------------------------------------------------
_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
STORE = (D.bool, D.int8, D.uint8, D.int16, D.int64, D.uint64, D.float32, D.float64, D.complex64, D.complex128)


def _store_outcome(src: D.DType, dst: D.DType, vals: np.ndarray) -> str:
    """The documented rule, restated: 'ok', 'promotion' or 'overflow'."""
    if _RANK[src.kind] > _RANK[dst.kind] or (dst.kind == "b" and src.kind != "b"):
        return "promotion"
    if src.kind in "iu" and dst.kind in "iu":
        lo, hi = D._INT_RANGE[dst]
        if vals.size and (int(vals.min()) < lo or int(vals.max()) > hi):
            return "overflow"
    return "ok"


@pytest.mark.parametrize("dst", STORE, ids=str)
def test_assignment_casts(xb_target, dst):
    for src in STORE:
        for vals in (np.array([1, 0, 1]), np.array([1, 100, 7]), np.array([3, -5, 200])):
            if src is D.bool:
                vals = vals != 0
            elif src.kind == "u":
                vals = np.abs(vals)
            host = vals.astype(src.name)
            if not np.array_equal(host.astype(np.float64), vals.astype(np.float64)):
                continue  # the drawn values do not fit the source dtype itself
            want = _store_outcome(src, dst, host)
            for how, value in (("Array", xb_target.asarray(host)), ("NumPy array", host)):
                x = xb_target.asarray(np.zeros((2, 3), dtype=dst.name))
                ctx = f"{how} {src} {host.tolist()} into {dst} on {xb_target}"
                if want == "promotion":
                    with pytest.raises(xb.PromotionError, match="Fix"):
                        x[0] = value
                elif want == "overflow":
                    with pytest.raises(xb.ScalarOverflowError, match="Fix"):
                        x[1] = value
                else:
                    x[0] = value
                    expect = np.zeros((2, 3), dtype=dst.name)
                    expect[0] = host  # NumPy's own assignment cast (exact for these values)
                    assert x.dtype is dst, ctx
                    assert np.array_equal(np.asarray(x.numpy()), expect), ctx
                assert x.dtype is dst


def test_assignment_float64_into_float32_rounds_like_numpy(xb_target):
    v = np.array([1 / 3, 1e-50, 3.4028235e38, -2.0, np.inf])  # the third rounds down to float32's largest value
    x = xb_target.asarray(np.zeros((2, 5), np.float32))
    x[0] = v
    want = v.astype(np.float32)
    assert x.dtype is xb.float32 and np.array_equal(np.asarray(x.numpy())[0], want)
    # a finite value that would become infinite is a lossy store: it raises, nothing is written (issue 32; NumPy
    # and torch store inf)
    with pytest.raises(xb.ScalarOverflowError, match="would become infinite"):
        x[1] = np.array([1.0, 2.0, 3.5e38, 4.0, 5.0])
    assert np.array_equal(np.asarray(x.numpy())[1], np.zeros(5, np.float32))


def test_asarray_copy_of_a_zero_d_result_is_a_new_array(xb_target):
    """Found by the differential test: on NumPy, 0-d results are NumPy scalars and np.True_.copy() is
    np.True_, so asarray(x, copy=True) returned x itself and an in-place op on the copy changed x."""
    b = xb_target.asarray(np.array(True)) != False  # noqa: E712
    z = xb.asarray(b, copy=True)
    assert z is not b
    z ^= True
    assert b.tolist() is True and z.tolist() is False


def test_negative_integer_power_of_nothing_is_empty(xb_target):
    """Found by the differential test: an empty integer Array to a negative power is empty (NumPy), not an error."""
    e = xb_target.asarray(np.array([], np.int32))
    assert (e**-1).shape == (0,) and (e**-1).dtype is xb.int32
    assert (e ** xb_target.asarray(np.array([-1], np.int32))).shape == (0,)
    with pytest.raises(xb.DomainError, match="Fix"):
        xb_target.asarray(np.array(2, np.int32)) ** -1
