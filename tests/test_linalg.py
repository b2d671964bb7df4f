"""xb.linalg and the main-namespace linear algebra on every target: identities, a NumPy float64/complex128
oracle, dtypes and shapes equal across backends, batching, and the documented error behaviour."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
import xbackend.testing.strategies as xst
from xbackend.testing import assert_close, available_targets, to_host

# xb_target is an immutable (backend, device) pair, so sharing it across hypothesis examples is safe
fixture_ok = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                             HealthCheck.differing_executors])  # fmt: skip
FLOATS = (xb.float32, xb.float64, xb.complex64, xb.complex128)
# backends that do not check for singular input (that would cost a device sync): they return inf/NaN
NO_SINGULAR_CHECK = {"cupy"}


def xa(a, t, dtype=None):
    return xb.asarray(a, backend=t.backend, device=t.device, dtype=dtype)


def tol(dt):
    """(rtol, atol) for identities after a factorisation of small, well-scaled matrices."""
    return (1e-4, 1e-4) if dt in (xb.float32, xb.complex64) else (1e-9, 1e-10)


@st.composite
def matrices(draw, dtypes=FLOATS, square=True, max_side=4, max_batch=2):
    """(oracle data in float64/complex128, xbackend dtype): values exactly representable in the dtype."""
    dt = draw(xst.dtypes(dtypes))
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=max_batch, min_side=1, max_side=3))
    m = draw(st.integers(1, max_side))
    n = m if square else draw(st.integers(1, max_side))
    real = dt.name.replace("complex", "float") if dt.kind == "c" else dt.name
    real = {"float64": "float32" if dt is xb.complex64 else "float64"}.get(real, real)
    # multiples of 2**-10 in [-1, 1]: exact in every dtype and well scaled (no 1e-229 entries whose products
    # underflow, which make LAPACK's eigenvector residuals meaningless on every backend)
    el = st.integers(-1024, 1024).map(lambda i: i / 1024.0)
    a = draw(hnp.arrays(np.dtype(real), batch + (m, n), elements=el)).astype(np.float64)
    if dt.kind == "c":
        a = a + 1j * draw(hnp.arrays(np.dtype(real), batch + (m, n), elements=el)).astype(np.float64)
    return a, dt


def herm(a):
    return np.swapaxes(a, -1, -2).conj()


def well_conditioned(a):
    n = a.shape[-1]
    return a + (n + 1) * np.eye(n)  # strictly diagonally dominant for entries in [-1, 1]


def spd(a):
    n = a.shape[-1]
    return a @ herm(a) + n * np.eye(n)


def oracle(a, dt):
    """The oracle input: the data as the dtype would hold it, in float64/complex128."""
    return a.astype(dt.name).astype(np.complex128 if dt.kind == "c" else np.float64)


# --- identities --------------------------------------------------------------------------------
@fixture_ok
@given(data=matrices(square=False), mode=st.sampled_from(["reduced", "complete"]))
def test_qr_reconstructs_and_is_orthonormal(xb_target, data, mode):
    a, dt = data
    x = xa(a, xb_target, dt)
    q, r = xb.linalg.qr(x, mode=mode)
    m, n = a.shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    assert (q.dtype, r.dtype) == (dt, dt)
    assert q.shape == a.shape[:-2] + (m, k) and r.shape == a.shape[:-2] + (k, n)
    rt, at = tol(dt)
    assert_close(q @ r, x, rtol=rt, atol=at)
    qh = to_host(q)
    assert_close(herm(qh) @ qh, np.broadcast_to(np.eye(k), qh.shape[:-2] + (k, k)), rtol=rt, atol=at, check_dtype=False)
    rh = to_host(r)
    assert np.all(np.tril(rh, -1) == 0)


@fixture_ok
@given(data=matrices(square=False), full=st.booleans())
def test_svd_reconstructs(xb_target, data, full):
    a, dt = data
    x = xa(a, xb_target, dt)
    u, s, vh = xb.linalg.svd(x, full_matrices=full)
    m, n = a.shape[-2:]
    k = min(m, n)
    real = xb.float32 if dt in (xb.float32, xb.complex64) else xb.float64
    assert (u.dtype, s.dtype, vh.dtype) == (dt, real, dt)
    assert u.shape[-2:] == ((m, m) if full else (m, k)) and vh.shape[-2:] == ((n, n) if full else (k, n))
    uh, sh, vhh = to_host(u)[..., :, :k], to_host(s), to_host(vh)[..., :k, :]
    rt, at = tol(dt)
    assert_close((uh * sh[..., None, :]) @ vhh, oracle(a, dt), rtol=rt, atol=at, check_dtype=False)
    assert np.all(np.diff(sh, axis=-1) <= 1e-6)  # descending
    assert_close(xb.linalg.svdvals(x), np.linalg.svd(oracle(a, dt), compute_uv=False), rtol=rt, atol=at,
                 check_dtype=False)  # fmt: skip
    assert xb.linalg.svdvals(x).dtype is real


@fixture_ok
@given(data=matrices())
def test_inv_times_matrix_is_identity(xb_target, data):
    a, dt = data
    a = well_conditioned(a)
    x = xa(a, xb_target, dt)
    xi = xb.linalg.inv(x)
    assert xi.dtype is dt and xi.shape == a.shape
    rt, at = tol(dt)
    n = a.shape[-1]
    assert_close(xi @ x, np.broadcast_to(np.eye(n), a.shape).astype(dt.name), rtol=rt, atol=at)
    assert_close(xi, np.linalg.inv(oracle(a, dt)), rtol=rt, atol=at, check_dtype=False)


@fixture_ok
@given(data=matrices(), upper=st.booleans())
def test_cholesky_reconstructs(xb_target, data, upper):
    a, dt = data
    a = spd(a)
    x = xa(a, xb_target, dt)
    f = xb.linalg.cholesky(x, upper=upper)
    assert f.dtype is dt and f.shape == a.shape
    fh = to_host(f)
    rt, at = tol(dt)
    recon = herm(fh) @ fh if upper else fh @ herm(fh)
    assert_close(recon, oracle(a, dt), rtol=rt, atol=at * a.shape[-1], check_dtype=False)
    assert np.all((np.tril(fh, -1) if upper else np.triu(fh, 1)) == 0)


@fixture_ok
@given(data=matrices())
def test_eigh_reconstructs(xb_target, data):
    a, dt = data
    a = (a + herm(a)) / 2
    x = xa(a, xb_target, dt)
    w, v = xb.linalg.eigh(x)
    real = xb.float32 if dt in (xb.float32, xb.complex64) else xb.float64
    assert (w.dtype, v.dtype) == (real, dt)
    wh, vhost = to_host(w), to_host(v)
    rt, at = tol(dt)
    assert_close((vhost * wh[..., None, :]) @ herm(vhost), oracle(a, dt), rtol=rt, atol=at, check_dtype=False)
    assert_close(xb.linalg.eigvalsh(x), np.linalg.eigvalsh(oracle(a, dt)), rtol=rt, atol=at, check_dtype=False)
    assert np.all(np.diff(wh, axis=-1) >= -1e-6)  # ascending on every backend


@fixture_ok
@given(data=matrices())
def test_eig_satisfies_definition(xb_target, data):
    a, dt = data
    x = xa(a, xb_target, dt)
    w, v = xb.linalg.eig(x)
    c = xb.complex64 if dt in (xb.float32, xb.complex64) else xb.complex128
    assert (w.dtype, v.dtype) == (c, c)  # complex even when every eigenvalue is real
    assert xb.linalg.eigvals(x).dtype is c
    wh, vhost = to_host(w), to_host(v)
    rt, at = tol(dt)
    assert_close(oracle(a, dt) @ vhost, vhost * wh[..., None, :], rtol=rt, atol=at * 10, check_dtype=False)
    # zero vectors satisfy A v = v w too: each eigenvector must have unit 2-norm (LAPACK's and torch's normalisation)
    eps = float(np.finfo(np.float32 if c is xb.complex64 else np.float64).eps)
    norms = np.linalg.norm(vhost.astype(np.complex128), axis=-2)
    assert_close(norms, np.ones_like(norms), rtol=0, atol=100 * eps * vhost.shape[-1], check_dtype=False)
    # eigenvalues as a multiset: compare sorted
    key = lambda z: np.sort_complex(np.round(z, 3))  # noqa: E731
    assert_close(key(to_host(xb.linalg.eigvals(x))), key(np.linalg.eigvals(oracle(a, dt))), rtol=1e-2, atol=1e-2,
                 check_dtype=False)  # fmt: skip


@fixture_ok
@given(data=matrices(), k=st.integers(0, 3), bcast=st.booleans())
def test_solve_residual_and_shapes(xb_target, data, k, bcast):
    a, dt = data
    a = well_conditioned(a)
    n = a.shape[-1]
    rng = np.random.default_rng(0)
    bshape = (n,) if k == 0 else ((n, k) if bcast else a.shape[:-2] + (n, k))
    b = rng.uniform(-1, 1, bshape).astype(dt.name)
    x = xb.linalg.solve(xa(a, xb_target, dt), xa(b, xb_target))
    expected_shape = a.shape[:-1] if k == 0 else a.shape[:-2] + (n, k)
    assert x.shape == expected_shape and x.dtype is dt
    rt, at = tol(dt)
    xh = to_host(x)
    lhs = oracle(a, dt) @ (xh[..., None] if k == 0 else xh)
    rhs = np.broadcast_to(b[..., None] if k == 0 else b, lhs.shape)
    assert_close(lhs, rhs, rtol=rt, atol=at, check_dtype=False)


def test_solve_does_not_guess_vectors(xb_target):
    """A (3, 3, 3) with b (3, 3): b is one matrix broadcast over the batch (torch would read a batch of vectors)."""
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (3, 3, 3)) + 3 * np.eye(3)
    b = rng.uniform(-1, 1, (3, 3))
    x = xb.linalg.solve(xa(a, xb_target), xa(b, xb_target))
    assert_close(x, np.linalg.solve(a, np.broadcast_to(b, (3, 3, 3))))


@fixture_ok
@given(data=matrices())
def test_det_and_slogdet_match_oracle(xb_target, data):
    a, dt = data
    x = xa(a, xb_target, dt)
    o = oracle(a, dt)
    d = xb.linalg.det(x)
    sign, logabs = xb.linalg.slogdet(x)
    real = xb.float32 if dt in (xb.float32, xb.complex64) else xb.float64
    assert d.dtype is dt and sign.dtype is dt and logabs.dtype is real
    assert d.shape == sign.shape == logabs.shape == a.shape[:-2]
    rt, at = tol(dt)
    assert_close(d, np.linalg.det(o), rtol=rt * 10, atol=at * 10, check_dtype=False)
    recon = to_host(sign) * np.exp(to_host(logabs).astype(np.float64))
    assert_close(recon, np.linalg.det(o), rtol=rt * 10, atol=at * 10, check_dtype=False)


@fixture_ok
@given(data=matrices(square=False))
def test_pinv_and_matrix_rank(xb_target, data):
    a, dt = data
    x = xa(a, xb_target, dt)
    p = xb.linalg.pinv(x)
    assert p.dtype is dt and p.shape == a.shape[:-2] + (a.shape[-1], a.shape[-2])
    o = oracle(a, dt)
    # Penrose condition A A+ A = A holds whatever the rank
    rt, at = tol(dt)
    assert_close(o @ to_host(p) @ o, o, rtol=rt * 10, atol=at * 10, check_dtype=False)
    r = xb.linalg.matrix_rank(x)
    assert r.dtype is xb.int64 and r.shape == a.shape[:-2]


def test_matrix_rank_of_rank_one_and_rtol(xb_target):
    u = np.arange(1.0, 5.0)
    a = np.stack([np.outer(u, u), np.eye(4)])
    x = xa(a, xb_target)
    assert xb.linalg.matrix_rank(x).tolist() == [1, 4]
    assert xb.linalg.matrix_rank(x, rtol=0.5).tolist() == [1, 4]
    assert xb.linalg.matrix_rank(xa(np.diag([1.0, 1e-3]), xb_target), rtol=1e-2).item() == 1
    assert xb.linalg.matrix_rank(xa(np.diag([1.0, 1e-3]), xb_target), rtol=xa(1e-4, xb_target)).item() == 2


@fixture_ok
@given(data=matrices(square=False), ord=st.sampled_from(["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]),
       keepdims=st.booleans())  # fmt: skip
def test_matrix_norm_matches_oracle(xb_target, data, ord, keepdims):
    a, dt = data
    r = xb.linalg.matrix_norm(xa(a, xb_target, dt), ord=ord, keepdims=keepdims)
    real = xb.float32 if dt in (xb.float32, xb.complex64) else xb.float64
    assert r.dtype is real
    rt, at = tol(dt)
    assert_close(r, np.linalg.matrix_norm(oracle(a, dt), ord=ord, keepdims=keepdims), rtol=rt, atol=at,
                 check_dtype=False)  # fmt: skip


@fixture_ok
@given(data=matrices(square=False, max_batch=1), ord=st.sampled_from([1, 2, 3, 0.5, 0, math.inf, -math.inf, -1]),
       axis=st.sampled_from([None, -1, 0, (-2, -1)]), keepdims=st.booleans())  # fmt: skip
def test_vector_norm_matches_oracle(xb_target, data, ord, axis, keepdims):
    a, dt = data
    if ord == -1:
        a = a + 2  # no zeros: the -1 "norm" of a vector with a zero is 0 by the 1/inf limit on every backend
    r = xb.linalg.vector_norm(xa(a, xb_target, dt), axis=axis, keepdims=keepdims, ord=ord)
    real = xb.float32 if dt in (xb.float32, xb.complex64) else xb.float64
    assert r.dtype is real
    rt, at = tol(dt)
    expected = np.linalg.vector_norm(oracle(a, dt), axis=axis, keepdims=keepdims, ord=ord)
    assert_close(r, expected, rtol=rt, atol=at, check_dtype=False)


@fixture_ok
@given(data=matrices(), n=st.integers(-2, 4))
def test_matrix_power_matches_oracle(xb_target, data, n):
    a, dt = data
    a = well_conditioned(a) / a.shape[-1]
    r = xb.linalg.matrix_power(xa(a, xb_target, dt), n)
    assert r.dtype is dt and r.shape == a.shape
    rt, at = tol(dt)
    assert_close(r, np.linalg.matrix_power(oracle(a, dt), n), rtol=rt * 10, atol=at * 10, check_dtype=False)


# --- numeric functions: exact on integers ------------------------------------------------------
INTS = (xb.int8, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64)


@fixture_ok
@given(dt=st.sampled_from(INTS + (xb.float64, xb.complex128)),
       batch=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
def test_numeric_functions_exact(xb_target, dt, batch):
    rng = np.random.default_rng(len(batch))
    a = rng.integers(0, 5, batch + (3, 3)).astype(dt.name)
    b = rng.integers(0, 5, batch + (3, 3)).astype(dt.name)
    x, y = xa(a, xb_target), xa(b, xb_target)
    xb_ = xb.linalg
    assert_close(xb_.cross(x, y), np.cross(a, b))
    assert_close(xb_.cross(x, y, axis=-2), np.cross(a, b, axis=-2))
    assert_close(xb_.vecdot(x, y), np.sum(np.conj(a) * b, axis=-1, dtype=a.dtype))
    for axes in (([-1], [-1]), ([-1, -2], [-2, -1]), 0):
        if axes == 0 and len(batch) > 1:
            continue
        assert_close(xb_.tensordot(x, y, axes=axes), np.tensordot(a, b, axes=axes).astype(dt.name))
    assert_close(xb_.outer(x[(0,) * len(batch) + (0,)], y[(0,) * len(batch) + (1,)]),
                 np.outer(a[(0,) * len(batch) + (0,)], b[(0,) * len(batch) + (1,)]).astype(dt.name))  # fmt: skip
    assert_close(xb_.diagonal(x, offset=1), np.diagonal(a, 1, -2, -1))
    expected_trace = np.trace(a, axis1=-2, axis2=-1, dtype=xb_.trace(x).dtype.name)
    assert_close(xb_.trace(x), expected_trace)
    assert_close(xb_.matrix_transpose(x), np.swapaxes(a, -1, -2))


def test_trace_accumulator_dtypes(xb_target):
    for dt, want in ((xb.int8, xb.int64), (xb.uint8, xb.uint64), (xb.uint64, xb.uint64), (xb.float32, xb.float32),
                     (xb.bool, xb.int64)):  # fmt: skip
        assert xb.linalg.trace(xa(np.ones((2, 2)), xb_target, dt)).dtype is want
    assert xb.linalg.trace(xa(np.ones((2, 2)), xb_target, xb.int8), dtype=xb.int16).dtype is xb.int16


def test_uint64_wraps_like_numpy(xb_target):
    a = np.array([[2**63, 1], [1, 2**63]], dtype=np.uint64)
    assert_close(xb.linalg.trace(xa(a, xb_target)), np.array(0, dtype=np.uint64))
    assert_close(xb.linalg.tensordot(xa(a, xb_target), xa(a, xb_target), axes=1), np.tensordot(a, a, axes=1))


def test_diagonal_is_a_copy(xb_target):
    x = xa(np.eye(3), xb_target)
    d = xb.linalg.diagonal(x)
    d[0] = 5.0
    assert x[0, 0].item() == 1.0


# --- dtypes ------------------------------------------------------------------------------------
FLOAT_FUNCS = {
    "inv": lambda x: xb.linalg.inv(x), "det": lambda x: xb.linalg.det(x), "pinv": lambda x: xb.linalg.pinv(x),
    "svdvals": lambda x: xb.linalg.svdvals(x), "eigvalsh": lambda x: xb.linalg.eigvalsh(x),
    "matrix_norm": lambda x: xb.linalg.matrix_norm(x), "vector_norm": lambda x: xb.linalg.vector_norm(x),
    "cholesky": lambda x: xb.linalg.cholesky(x), "matrix_power": lambda x: xb.linalg.matrix_power(x, 2),
    "qr": lambda x: xb.linalg.qr(x).R, "solve": lambda x: xb.linalg.solve(x, x),
}  # fmt: skip
SPD_INT = np.array([[4, 1], [1, 3]])


@pytest.mark.parametrize("name", sorted(FLOAT_FUNCS))
def test_integer_input_computes_in_default_float(xb_target, name):
    f = FLOAT_FUNCS[name]
    for dt in (xb.int32, xb.uint8, xb.int64):
        assert f(xa(SPD_INT, xb_target, dt)).dtype is xb.float64
    with xb.using(default_float=xb.float32):
        assert f(xa(SPD_INT, xb_target, xb.int64)).dtype is xb.float32
    if xb_target.holds(xb.float16):
        assert f(xa(SPD_INT, xb_target, xb.float16)).dtype is xb.float16  # computed in float32, cast back
    expected = f(xa(SPD_INT, xb_target, xb.float64))
    assert_close(f(xa(SPD_INT, xb_target, xb.int16)), expected)


def _all_results(x):
    la = xb.linalg
    sq = x @ x.mT + 3 * xb.eye(x.shape[-1], dtype=x.dtype, backend=x.backend, device=x.device)
    out = {"cholesky": la.cholesky(sq), "det": la.det(x), "inv": la.inv(sq), "pinv": la.pinv(x),
           "matrix_rank": la.matrix_rank(x), "matrix_power": la.matrix_power(x, 3), "trace": la.trace(x),
           "diagonal": la.diagonal(x), "svdvals": la.svdvals(x), "eigvalsh": la.eigvalsh(sq),
           "eigvals": la.eigvals(x), "matrix_norm": la.matrix_norm(x, ord="nuc"),
           "vector_norm": la.vector_norm(x, axis=(0, -1), ord=3), "solve": la.solve(sq, x),
           "vecdot": la.vecdot(x, x), "tensordot": la.tensordot(x, x, axes=([0, 1], [0, 1])),
           "cross": la.cross(x, x, axis=-2)}  # fmt: skip
    for name, res in (("eigh", la.eigh(sq)), ("eig", la.eig(x)), ("qr", la.qr(x, mode="complete")),
                      ("slogdet", la.slogdet(x)), ("svd", la.svd(x, full_matrices=False))):  # fmt: skip
        for field, v in res._asdict().items():
            out[f"{name}.{field}"] = v
    return out


@pytest.mark.parametrize("dt", FLOATS + (xb.int32,), ids=str)
def test_dtypes_and_shapes_equal_across_backends(xb_target, dt):
    a = np.random.default_rng(2).uniform(-2, 2, (2, 3, 3)).round(0 if dt is xb.int32 else 6)
    ref = _all_results(xb.asarray(a, dtype=dt, backend="numpy"))
    got = _all_results(xa(a, xb_target, dt))
    assert {k: (v.dtype, v.shape) for k, v in got.items()} == {k: (v.dtype, v.shape) for k, v in ref.items()}
    for k in ("det", "inv", "pinv", "matrix_rank", "trace", "svdvals", "eigvalsh", "matrix_norm", "vector_norm",
              "solve", "vecdot", "tensordot", "cross", "cholesky", "slogdet.logabsdet"):  # fmt: skip
        rt, at = tol(ref[k].dtype if ref[k].dtype.kind in "fc" else xb.float64)
        assert_close(got[k], ref[k], rtol=rt * 10, atol=at * 10, msg=k)


# --- errors ------------------------------------------------------------------------------------
def test_non_square_and_bad_arguments_raise(xb_target):
    x = xa(np.ones((2, 3)), xb_target)
    for f in (xb.linalg.inv, xb.linalg.det, xb.linalg.cholesky, xb.linalg.eigh, xb.linalg.eig, xb.linalg.slogdet):
        with pytest.raises(ValueError, match="square"):
            f(x)
    with pytest.raises(ValueError, match="square"):
        xb.linalg.solve(x, xa(np.ones(3), xb_target))
    with pytest.raises(ValueError, match="does not fit"):
        xb.linalg.solve(xa(np.eye(3), xb_target), xa(np.ones(2), xb_target))
    with pytest.raises(ValueError, match="at least 2"):
        xb.linalg.svd(xa(np.ones(3), xb_target))
    with pytest.raises(ValueError, match="mode"):
        xb.linalg.qr(x, mode="r")
    with pytest.raises(ValueError, match="ord"):
        xb.linalg.matrix_norm(x, ord=3)
    with pytest.raises(ValueError, match="3-element"):
        xb.linalg.cross(x.mT, x.mT)
    with pytest.raises(xb.AxisError, match="negative int"):
        xb.linalg.cross(xa(np.ones(3), xb_target), xa(np.ones(3), xb_target), axis=0)
    with pytest.raises(ValueError, match="1-D"):
        xb.linalg.outer(x, x)
    with pytest.raises(ValueError, match="differ"):
        xb.linalg.tensordot(x, x, axes=1)
    with pytest.raises(TypeError):
        xb.linalg.matrix_power(xa(np.eye(2), xb_target), 1.5)
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.linalg.vecdot(xa([True], xb_target), xa([True], xb_target))


def test_mixing_backends_raises(xb_target):
    if xb_target.backend == "numpy":
        pytest.skip("needs a second backend")
    with pytest.raises((xb.BackendMismatchError, xb.DeviceMismatchError)):
        xb.linalg.solve(xa(np.eye(2), xb_target), xb.asarray(np.ones(2), backend="numpy"))


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("name", ["inv", "solve", "cholesky"])
def test_singular_input(xb_target, name):
    """Documented: LinAlgError on backends that check; inf/NaN from CuPy (no device sync to check)."""
    x = xa(SINGULAR, xb_target)
    f = {"inv": xb.linalg.inv, "solve": lambda a: xb.linalg.solve(a, a), "cholesky": xb.linalg.cholesky}[name]
    if xb_target.backend in NO_SINGULAR_CHECK:
        assert not np.all(np.isfinite(to_host(f(x))))
        return
    with pytest.raises(xb.linalg.LinAlgError, match=f"linalg.{name}") as info:
        f(x)
    assert isinstance(info.value, ValueError) and isinstance(info.value, xb.XBackendError)


def test_singular_det_and_slogdet(xb_target):
    x = xa(SINGULAR, xb_target)
    assert xb.linalg.det(x).item() == 0.0
    sign, logabs = xb.linalg.slogdet(x)
    assert sign.item() == 0.0 and logabs.item() == -math.inf


def test_torch_autograd_flows_through_linalg():
    if not any(t.backend == "torch" for t in available_targets()):
        pytest.skip("torch is not usable here")
    import torch

    t = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    x = xb.asarray(t)
    y = xb.linalg.det(xb.linalg.inv(x)) + xb.linalg.matrix_norm(x) + xb.linalg.svdvals(x)[0]
    assert y.requires_grad
    y.native.backward()
    assert t.grad is not None and torch.isfinite(t.grad).all()


_LINALG_GRADS = {  # each maps a float64 tensor (3x3, well conditioned) to a tensor, through xbackend
    "inv": lambda x: xb.linalg.inv(x),
    "det": lambda x: xb.linalg.det(x),
    "solve": lambda x: xb.linalg.solve(x, x[:, :1] + 1.0),
    "cholesky": lambda x: xb.linalg.cholesky(x @ x.mT + xb.eye(3, dtype=xb.float64, backend="torch")),
    "eigvalsh": lambda x: xb.linalg.eigvalsh(x + x.mT),
    "svdvals": lambda x: xb.linalg.svdvals(x),
    "matrix_norm": lambda x: xb.linalg.matrix_norm(x),
    "vector_norm": lambda x: xb.linalg.vector_norm(x, axis=0),
    "matmul": lambda x: x @ x.mT,
    "slogdet": lambda x: xb.linalg.slogdet(x)[1],
    "pinv": lambda x: xb.linalg.pinv(x),
    "tensordot": lambda x: xb.linalg.tensordot(x, x, axes=1),
}


@pytest.mark.parametrize("name", sorted(_LINALG_GRADS))
def test_torch_gradients_through_linalg_are_right(name):
    """The gradient's *values*, not only its existence: torch.autograd.gradcheck in float64 compares the
    analytic gradient through xbackend with finite differences."""
    if not any(t.backend == "torch" for t in available_targets()):
        pytest.skip("torch is not usable here")
    import torch

    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.3, 0.4, 2.0]])
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    fn = _LINALG_GRADS[name]
    assert torch.autograd.gradcheck(lambda u: fn(xb.asarray(u)).native, (t,), eps=1e-6, atol=1e-5)


def test_torch_cuda_integer_tensordot_fallback_is_exact():
    """CUDA has no integer GEMM; the torch backend's fallback is checked here on the CPU."""
    torch = pytest.importorskip("torch")
    from xbackend._backends.torch.linalg import _int_tensordot

    rng = np.random.default_rng(3)
    for sa, sb, axes in (((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((3,), (3,), ([0], [0])), ((2, 3), (4,), ([], []))):
        a, b = rng.integers(-50, 50, sa), rng.integers(-50, 50, sb)
        got = _int_tensordot(torch.from_numpy(a), torch.from_numpy(b), axes).numpy()
        assert got.shape == np.tensordot(a, b, axes=axes).shape
        assert (got == np.tensordot(a, b, axes=axes)).all()


def test_negative_rtol_is_zero(xb_target):
    # the cutoff rtol * max(sv) is never below zero (torch's rule), so a zero singular value never counts as rank;
    # NumPy's own matrix_rank counted it (2 here) - the parity explorer's find
    a = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    x = xb_target.asarray(a)
    for rtol in (-1.0, xb_target.asarray(np.array(-1.0))):
        assert int(xb.linalg.matrix_rank(x, rtol=rtol)) == int(xb.linalg.matrix_rank(x, rtol=0.0)) == 1
        np.testing.assert_allclose(xb.linalg.pinv(x, rtol=rtol).numpy(), np.linalg.pinv(a, rcond=0.0), atol=1e-12)
