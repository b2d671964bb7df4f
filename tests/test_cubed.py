"""The Cubed backend: lazy (nothing computes until asked), values equal to NumPy's own functions on several chunks,
writes that rebuild the array, NumPy's random draws for every chunking, and refusals that name the fix.

The whole suite runs on Cubed when asked (``pytest --xb-backends cubed``; tests/known_failures.py lists what
differs); this module is what CI runs on every change: what only several chunks, laziness or Cubed's own gaps
exercise. References are NumPy's functions called directly, never xbackend's NumPy backend.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xbackend as xb

cubed = pytest.importorskip("cubed")

FEW = settings(max_examples=max(5, settings.default.max_examples // 4), deadline=None)


def cu(h, chunks=2):
    return xb.asarray(np.asarray(h), backend="cubed", chunks=chunks)


def test_nothing_computes_until_asked():
    """A pipeline through Cubed's functions, the whole-axis blocks, a write and a draw plans only (Cubed's
    raise_if_computes fails on any compute); x.numpy() then gives NumPy's values."""
    h = np.arange(24.0).reshape(4, 6) - 7.5
    with cubed.raise_if_computes():
        x = cu(h)
        y = xb.sort(-x * 2, axis=1)
        d = xb.linalg.det(xb.reshape(x[:, :4], (2, 2, 2, 2)) + xb.eye(2, backend="cubed"))
        f = xb.fft.fft(x, axis=0)
        x[1, ::2] = 0.5
        r = xb.random.default_rng(5, backend="cubed").random((3, 5))
        text = repr(x)
    assert "cubed plan" in text and "0.5" not in text
    np.testing.assert_array_equal(y.numpy(), np.sort(-h * 2, axis=1))
    np.testing.assert_allclose(d.numpy(), np.linalg.det(h[:, :4].reshape(2, 2, 2, 2) + np.eye(2)), rtol=1e-12)
    np.testing.assert_allclose(f.numpy(), np.fft.fft(h, axis=0), rtol=1e-12, atol=1e-12)
    w = h.copy()
    w[1, ::2] = 0.5
    np.testing.assert_array_equal(x.numpy(), w)
    assert r.numpy().shape == (3, 5)


@pytest.mark.parametrize("perm", list(itertools.permutations(range(4))), ids=str)
def test_a_permutation_as_long_as_the_axis_permutes(perm):
    """Cubed 0.27 takes any selection of the input's shape for a no-op (x[perm] gave x); every permutation of 4,
    read and written through, is NumPy's (one case per permutation: the mutation tool runs a few of them)."""
    h, p = np.arange(4) * 10, np.array(perm)
    np.testing.assert_array_equal(cu(h)[cu(p)].numpy(), h[p])
    np.testing.assert_array_equal(xb.take(cu(h), cu(p), axis=0).numpy(), h[p])
    x, w = cu(h), h.copy()
    x[cu(p)] = cu(np.arange(4) + 100)
    w[p] = np.arange(4) + 100
    np.testing.assert_array_equal(x.numpy(), w)


_SLICES = [slice(None), slice(None, None, -1), slice(1, None, 2), slice(None, None, -2), slice(3, 0, -1),
           slice(-1, -5, -3), slice(2, 2), 1, -1]  # fmt: skip


@pytest.mark.parametrize("first", _SLICES, ids=str)
def test_basic_keys_read_and_write_as_numpy(first):
    """Every pair of basic keys on a 4x5 Array of 2x2 chunks (negative steps, empty selections, ints): x[k] and
    x[k] = v equal NumPy's, and a write keeps x's chunks."""
    h = np.arange(20).reshape(4, 5)
    for k in ((first, second) for second in _SLICES):
        np.testing.assert_array_equal(cu(h)[k].numpy(), h[k], err_msg=str(k))
        x, w = cu(h), h.copy()
        v = np.arange(w[k].size).reshape(w[k].shape) * 100 + 1000
        w[k] = v
        x[k] = cu(v) if v.ndim else int(v)
        np.testing.assert_array_equal(x.numpy(), w, err_msg=str(k))
        assert x.native.chunks == cu(h).native.chunks


@pytest.mark.parametrize("key", [(None, 1, slice(None, None, -1), slice(None, None, -2)),
                                 (slice(None, None, -1), None, 0, slice(3, 0, -2)),
                                 (Ellipsis, slice(None, None, -3)), (0, None, slice(2, None, -1), None, 1)], ids=str)
def test_negative_steps_on_three_axes_with_new_axes_and_ints(key):
    """A negative step is read as the positive selection, flipped: on the right input axis when None adds axes and
    ints drop them."""
    h = np.arange(60).reshape(3, 4, 5)
    np.testing.assert_array_equal(cu(h)[key].numpy(), h[key])


@FEW
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.sampled_from([0, 1]))
def test_whole_axis_blocks_equal_numpy(n, m, chunk, axis):
    """What Cubed lacks runs NumPy's code on blocks holding the core axes whole: sort, argsort, FFT and linalg
    equal NumPy's own functions for every chunking."""
    rng = np.random.default_rng(n * 7 + m)
    h = np.round(rng.standard_normal((n, m)), 1)  # (ties: the sort must be stable)
    x = cu(h, chunk)
    np.testing.assert_array_equal(xb.sort(x, axis=axis).numpy(), np.sort(h, axis=axis))
    want = np.argsort(h, axis=axis, kind="stable")
    np.testing.assert_array_equal(xb.argsort(x, axis=axis, stable=True).numpy(), want)
    np.testing.assert_allclose(xb.fft.rfft(x, axis=axis).numpy(), np.fft.rfft(h, axis=axis), rtol=1e-12, atol=1e-12)
    s = h[:, :1] * 0 + np.eye(n, n) * (1 + n) + 0.01 * rng.standard_normal((n, n))
    sx = cu(s, chunk)
    np.testing.assert_allclose(xb.linalg.inv(sx).numpy(), np.linalg.inv(s), rtol=1e-10)
    np.testing.assert_allclose(xb.linalg.eigvalsh(sx + xb.matrix_transpose(sx)).numpy(),
                               np.linalg.eigvalsh(s + s.T), rtol=1e-10, atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(xb.linalg.solve(sx, cu(h[:, 0], chunk)).numpy(), np.linalg.solve(s, h[:, 0]), rtol=1e-10)
    np.testing.assert_allclose(xb.linalg.vector_norm(x, axis=axis).numpy(), np.linalg.norm(h, axis=axis), rtol=1e-12)


_DRAWS = {"normal": lambda r, b: r.standard_normal((4, 5)),
          "integers": lambda r, b: r.integers(-3, 2**40, (4, 5)),  # (an argument: the bounds)
          "permuted": lambda r, b: r.permuted(xb.reshape(xb.arange(20, backend=b), (4, 5)), axis=0)}  # (an axis whole)


@pytest.mark.parametrize("chunks", [1, 3, (2, 5), -1])
@pytest.mark.parametrize("call", sorted(_DRAWS))
def test_random_draws_are_numpys_for_every_chunking(chunks, call):
    """The portable stream on Cubed equals NumPy's draws of the same call, whatever the chunks."""
    want = _DRAWS[call](xb.random.default_rng(42), "numpy").numpy()
    got = _DRAWS[call](xb.random.default_rng(42, backend="cubed", chunks=chunks), "cubed")
    np.testing.assert_array_equal(got.numpy(), want)
    assert got.backend == "cubed"
    if call != "permuted":
        assert got.native.numblocks == cu(want, chunks).native.numblocks


def test_cumulative_with_the_initial_value_and_searchsorted_with_a_sorter():
    """Two arguments Cubed's own functions do not take."""
    h = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
    np.testing.assert_array_equal(xb.cumulative_sum(cu(h), include_initial=True).numpy(),
                                  np.concatenate([[0.0], np.cumsum(h)]))  # fmt: skip
    np.testing.assert_array_equal(xb.cumulative_prod(cu(h), include_initial=True).numpy(),
                                  np.concatenate([[1.0], np.cumprod(h)]))  # fmt: skip
    order = np.argsort(h)
    np.testing.assert_array_equal(xb.searchsorted(cu(h), cu([2.5, 0.0, 9.0]), sorter=cu(order)).numpy(),
                                  np.searchsorted(h, [2.5, 0.0, 9.0], sorter=order))  # fmt: skip


@pytest.mark.parametrize("call, error, fix", [
    (lambda x: xb.nonzero(x), xb.ShapeError, "x.compute()"),
    (lambda x: xb.unique_values(x), xb.ShapeError, "backend='dask'"),
    (lambda x: x[x > 2], xb.ShapeError, "x.compute()"),
    (lambda x: xb.reshape(x, (5, 1))[x > 2, :], xb.ShapeError, "x.compute()"),
    (lambda x: xb.repeat(x, cu([1, 2, 1, 1, 1])), xb.ShapeError, "Fix: pass Python ints: repeats.tolist()"),
    (lambda x: xb.reshape(x, (5, 1))[::-1, cu([0])], xb.InvalidIndexError, "xb.flip"),
    (lambda x: np.asarray(x), xb.HostTransferError, "x.numpy()"),
    (lambda x: x.__dlpack__(), xb.DLPackError, "x.compute()"),
])  # fmt: skip
def test_refusals_are_typed_and_name_the_fix(call, error, fix):
    with pytest.raises(error, match=fix.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        call(cu([1.0, 2.0, 3.0, 4.0, 5.0]))


def test_a_step_over_the_memory_bound_is_an_out_of_memory_error():
    """Cubed refuses a step that would need more than its allowed_mem when the plan runs: xbackend's
    OutOfMemoryError (a MemoryError) naming both fixes."""
    with cubed.config.set({"spec.allowed_mem": "200kB", "spec.reserved_mem": 0}):
        x = xb.ones((200, 200), backend="cubed")
        with pytest.raises(xb.OutOfMemoryError, match="allowed_mem") as info:
            xb.linalg.det(x).numpy()
    assert isinstance(info.value, MemoryError) and "xb.rechunk" in str(info.value)


def test_compute_and_persist():
    """xb.compute gives NumPy Arrays in one pass; persist keeps a Cubed Array of the same chunks."""
    x = cu(np.arange(6.0), 2)
    s, m = xb.compute(xb.sum(x), x * 2)
    assert s.backend == m.backend == "numpy" and s.item() == 15.0 and m.tolist() == [0, 2, 4, 6, 8, 10]
    p = xb.persist(x + 1)
    assert p.backend == "cubed" and p.native.chunks == x.native.chunks and p.tolist() == [1, 2, 3, 4, 5, 6]
    y = xb.asarray(x, copy=True)
    assert y.native is not x.native


def test_capabilities_say_what_cubed_does_not_do():
    caps = xb.__array_namespace_info__(backend="cubed").capabilities()
    assert caps["lazy"] and not caps["views"] and not caps["boolean indexing"] and not caps["data-dependent shapes"]
    assert any("nonzero" in k for k in caps["refusals"])


def test_gaps_of_cubed_that_xbackend_closes():
    """Each a wrong or missing answer of Cubed 0.27 (or of the generic backend on NumPy dtypes), checked against
    NumPy: a dtype the library lacks is refused (NumPy dtypes compare equal to None as float64, so the generic check
    once let xb.asarray(x, dtype=float16) label float64 data float16); reductions of empty arrays keep their axes;
    matmul checks the shapes; a bool shape entry is refused (Cubed takes True for 1); x.numpy() is a snapshot; a
    computed log(0) warns nobody."""
    import warnings

    with pytest.raises(xb.UnsupportedDTypeError, match="float16"):
        xb.asarray(cu([1.0, 2.0]), dtype=xb.float16)
    e = np.zeros((0, 2))
    assert xb.all(cu(e), axis=0).tolist() == np.all(e, axis=0).tolist() == [True, True]
    assert xb.sum(cu(e), axis=0).tolist() == [0.0, 0.0] and xb.any(cu(e), axis=1).shape == (0,)
    with pytest.raises(xb.ShapeError, match="inner sizes"):
        xb.ones((2, 3), backend="cubed") @ xb.ones((4, 5), backend="cubed")
    with pytest.raises(xb.ShapeError, match="batch"):
        xb.ones((2, 2, 3), backend="cubed") @ xb.ones((3, 3, 5), backend="cubed")
    v = xb.asarray([0], dtype=xb.int16, backend="cubed")
    assert xb.reshape(v, (1,)).tolist() == [0]  # (1,) now in xb.reshape's cache of valid shapes, and (True,) == (1,)
    with pytest.raises(xb.ArgumentTypeError, match="bool"):
        xb.reshape(v, (True,))
    x = cu([1.0, 2.0])
    h = x.numpy()
    h[1] = 7.0
    assert x.tolist() == [1.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xb.log(cu([0.0, 1.0])).tolist() == [-np.inf, 0.0]


def test_deep_copies_and_pickles_are_independent_of_the_plan():
    """copy.deepcopy gives a new node of the same (immutable) plan; a pickle carries the computed values."""
    import copy
    import pickle

    x = cu([1.0, 2.0, 3.0]) * 2
    y = copy.deepcopy(x)
    a, b = xb.compute(x, y)
    assert a.tolist() == b.tolist() == [2.0, 4.0, 6.0] and y.native is not x.native
    z = pickle.loads(pickle.dumps(x))
    assert z.backend == "cubed" and z.tolist() == [2.0, 4.0, 6.0]


def test_reshape_that_neither_merges_nor_splits_chunks():
    """Cubed reshapes only what merges or splits chunks; the backend rechunks to one chunk first."""
    h = np.arange(12)
    got = xb.reshape(xb.reshape(cu(h, 5), (3, 4)), (2, 6))
    np.testing.assert_array_equal(got.numpy(), h.reshape(2, 6))


def _stack(n=3, batch=2, seed=0):
    """``batch`` symmetric positive definite n x n matrices, well conditioned."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_linalg_of_a_batch_chunked_on_every_axis_is_numpys():
    """Every linalg function on a stack of matrices in 1x1x1 chunks (the core axes must be gathered whole, the batch
    axis kept): NumPy's np.linalg of the same stack, or for decompositions the product that rebuilds it."""
    h = _stack()
    x = cu(h, 1)
    la, T = np.linalg, lambda a: np.swapaxes(a, -1, -2)
    close = {"rtol": 1e-10, "atol": 1e-12}
    np.testing.assert_allclose(xb.linalg.det(x).numpy(), la.det(h), **close)
    np.testing.assert_allclose(xb.linalg.inv(x).numpy(), la.inv(h), **close)
    sign, logdet = xb.linalg.slogdet(x)
    np.testing.assert_allclose(sign.numpy() * np.exp(logdet.numpy()), la.det(h), **close)
    np.testing.assert_allclose(xb.linalg.eigvalsh(x).numpy(), la.eigvalsh(h), **close)
    w, v = xb.linalg.eigh(x)
    np.testing.assert_allclose((v.numpy() * w.numpy()[..., None, :]) @ T(v.numpy()), h, **close)
    np.testing.assert_allclose(np.sort(xb.linalg.eigvals(x).numpy().real, axis=-1), la.eigvalsh(h), **close)
    w, v = xb.linalg.eig(x)
    np.testing.assert_allclose((v.numpy() * w.numpy()[..., None, :]) @ la.inv(v.numpy()), h, **close)
    lo, up = xb.linalg.cholesky(x).numpy(), xb.linalg.cholesky(x, upper=True).numpy()
    np.testing.assert_allclose(lo, la.cholesky(h), **close)
    np.testing.assert_allclose(up, T(la.cholesky(h)), **close)
    q, r = xb.linalg.qr(x)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), h, **close)
    assert np.allclose(np.tril(r.numpy(), -1), 0)
    u, s, vh = xb.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ vh.numpy(), h, **close)
    np.testing.assert_allclose(xb.linalg.svdvals(x).numpy(), la.svd(h, compute_uv=False), **close)
    np.testing.assert_allclose(xb.linalg.pinv(x).numpy(), la.pinv(h), rtol=1e-8, atol=1e-10)
    assert xb.linalg.matrix_rank(x).tolist() == la.matrix_rank(h).tolist() == [3, 3]
    np.testing.assert_allclose(xb.linalg.matrix_power(x, 3).numpy(), la.matrix_power(h, 3), **close)
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf):
        for keepdims in (False, True):
            np.testing.assert_allclose(xb.linalg.matrix_norm(x, ord=ord, keepdims=keepdims).numpy(),
                                       la.norm(h, ord=ord, axis=(-2, -1), keepdims=keepdims), **close,
                                       err_msg=f"{ord} {keepdims}")  # fmt: skip
    for offset in (-1, 0, 2):
        np.testing.assert_allclose(xb.linalg.trace(x, offset=offset).numpy(), np.trace(h, offset, -2, -1), **close)
        np.testing.assert_array_equal(xb.linalg.diagonal(x, offset=offset).numpy(), np.diagonal(h, offset, -2, -1))
    b = h[..., :, :2] + 1
    np.testing.assert_allclose(xb.linalg.solve(x, cu(b, 1)).numpy(), la.solve(h, b), **close)
    np.testing.assert_allclose(xb.linalg.cross(cu(h, 1), cu(h[::-1], 1), axis=-2).numpy(),
                               np.cross(h, h[::-1], axis=-2))  # fmt: skip


@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (0, False), (-1, True), ((0, 2), False)])
def test_vector_norm_over_any_axes_of_a_chunked_batch(axis, keepdims):
    h = _stack()
    want = np.linalg.vector_norm(h, axis=axis, keepdims=keepdims) if hasattr(np.linalg, "vector_norm") else None
    if want is None:
        want = np.sqrt(np.sum(h * h, axis=axis, keepdims=keepdims))
    np.testing.assert_allclose(xb.linalg.vector_norm(cu(h, 1), axis=axis, keepdims=keepdims).numpy(), want, rtol=1e-12)


def test_fft_shifts_of_every_axis_are_numpys():
    h = np.arange(30.0).reshape(5, 6)
    for axes in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(xb.fft.fftshift(cu(h), axes=axes).numpy(), np.fft.fftshift(h, axes=axes))
        np.testing.assert_array_equal(xb.fft.ifftshift(cu(h), axes=axes).numpy(), np.fft.ifftshift(h, axes=axes))


def test_matmul_of_shapes_that_fit():
    """Cubed's matmul is checked for misfit shapes; shapes that fit (rectangular, batched, broadcast, vectors) still
    multiply, as NumPy does."""
    rng = np.random.default_rng(3)
    for sa, sb in [((2, 3), (3, 4)), ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((3,), (3, 4)), ((2, 3), (3,)),
                   ((4, 2, 3), (3,))]:  # fmt: skip
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        np.testing.assert_allclose((cu(a) @ cu(b)).numpy(), a @ b, rtol=1e-12, err_msg=f"{sa} @ {sb}")


def test_rechunk_by_negative_and_positive_axes():
    h = np.arange(24.0).reshape(4, 6)
    cases = [({-1: 2, -2: 1}, ((1, 1, 1, 1), (2, 2, 2))), ({0: 3}, ((3, 1), (4, 2))), ((2, 3), ((2, 2), (3, 3)))]
    for chunks, want in cases:
        x = xb.rechunk(cu(h, 4), chunks)
        assert x.native.chunks == want, chunks
        assert x.tolist() == h.tolist()


def test_take_into_an_empty_result():
    """Cubed cannot plan an empty selection: an empty index, or an empty axis beside the one taken from, gives NumPy's
    empty result."""
    for shape, idx, axis in [((3, 0), [0, 2], 0), ((0, 4), [1, 3], 1), ((3, 4), [], 1), ((2, 0, 3), [1], 2)]:
        h = np.zeros(shape)
        got = xb.take(cu(h), xb.asarray(np.array(idx, dtype=np.int64), backend="cubed"), axis=axis)
        assert got.shape == np.take(h, idx, axis=axis).shape, (shape, idx, axis)
        assert got.numpy().shape == got.shape


def test_reductions_over_an_axis_of_one():
    """An axis of length 1 is not an empty array: var, std, count_nonzero and sum are NumPy's."""
    h = np.array([[1.0, 0.0, 3.0, 7.0, 0.0]])
    for axis in (0, 1, None):
        for keepdims in (False, True):
            kw = {"axis": axis, "keepdims": keepdims}
            np.testing.assert_allclose(xb.var(cu(h), correction=0, **kw).numpy(), np.var(h, **kw))
            np.testing.assert_allclose(xb.std(cu(h), correction=0, **kw).numpy(), np.std(h, **kw))
            np.testing.assert_array_equal(xb.count_nonzero(cu(h), **kw).numpy(), np.count_nonzero(h, **kw))
            np.testing.assert_array_equal(xb.sum(cu(h), **kw).numpy(), np.sum(h, **kw))


def test_repeat_by_python_ints_is_numpys():
    """Cubed cannot plan an empty result: repeats of 0, and repeats of an empty Array, give NumPy's shapes."""
    for h in (np.arange(6).reshape(2, 3), np.zeros((0, 3)), np.zeros((2, 0))):
        for repeats, axis in [(2, None), (3, 0), (1, 1), (0, 1), (0, None), (2, 1)]:
            np.testing.assert_array_equal(xb.repeat(cu(h), repeats, axis=axis).numpy(),
                                          np.repeat(h, repeats, axis=axis), err_msg=f"{h.shape} {repeats} {axis}")


def test_flip_and_roll_of_arrays_with_an_empty_axis():
    """Cubed divides by an axis's size in flip and roll: an Array with any empty axis comes back as it is, as NumPy's
    does, whichever axes are named."""
    for shape in [(0, 3), (3, 0), (2, 0, 2)]:
        h = np.zeros(shape)
        for axes in [None, 0, (0, 1), -1]:
            assert xb.flip(cu(h), axis=axes).shape == np.flip(h, axis=axes).shape
            assert xb.roll(cu(h), shift=1, axis=axes).numpy().shape == np.roll(h, 1, axis=axes).shape


def test_roll_take_along_axis_and_cumulative_along_any_axis():
    h = np.arange(24.0).reshape(4, 6)
    for shift, axis in [(1, 0), (-2, 1), ((1, 3), (0, 1)), (5, None), (2, -1)]:
        np.testing.assert_array_equal(xb.roll(cu(h), shift=shift, axis=axis).numpy(), np.roll(h, shift, axis=axis),
                                      err_msg=f"{shift} {axis}")  # fmt: skip
    idx = np.argsort(-h, axis=1)[:, :4]
    for axis, i in [(1, idx), (-1, idx), (0, np.argsort(-h, axis=0)[:2])]:
        got = xb.take_along_axis(cu(h), cu(i), axis=axis).numpy()
        np.testing.assert_array_equal(got, np.take_along_axis(h, i, axis))
    for axis in (0, 1, -1, -2):
        want = np.cumsum(h, axis=axis)
        want = np.concatenate([np.zeros_like(np.take(want, [0], axis=axis)), want], axis=axis)
        np.testing.assert_array_equal(xb.cumulative_sum(cu(h), axis=axis, include_initial=True).numpy(), want)


def test_statistics_of_empty_arrays_keep_numpys_shapes_and_values():
    """Cubed drops the kept axes of an empty input's reductions; the backend gives NumPy's result (NaN where NumPy's
    var of nothing is NaN, 0 counts)."""
    import warnings

    e = np.zeros((0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis, keepdims, correction in [(0, False, 1), (1, True, 0), (None, True, 1), (0, False, 0)]:
            kw = {"axis": axis, "keepdims": keepdims}
            for fn, ref in ((xb.var, np.var), (xb.std, np.std)):
                got = fn(cu(e), correction=correction, **kw).numpy()
                np.testing.assert_array_equal(got, ref(e, ddof=correction, **kw), err_msg=f"{fn.__name__} {kw}")
            np.testing.assert_array_equal(xb.count_nonzero(cu(e), **kw).numpy(), np.count_nonzero(e, **kw))


def test_fft_over_several_axes_with_sizes_is_numpys():
    h = np.arange(60.0).reshape(3, 4, 5) ** 0.5
    close = {"rtol": 1e-12, "atol": 1e-12}
    for s, axes in [(None, None), ((4, 3), (0, 2)), ((2, 6), (-1, 1)), (None, (1,))]:
        x = cu(h, 2)
        np.testing.assert_allclose(xb.fft.fftn(x, s=s, axes=axes).numpy(), np.fft.fftn(h, s=s, axes=axes), **close)
        np.testing.assert_allclose(xb.fft.rfftn(x, s=s, axes=axes, norm="ortho").numpy(),
                                   np.fft.rfftn(h, s=s, axes=axes, norm="ortho"), **close)  # fmt: skip
        z = np.fft.fftn(h, axes=axes)
        np.testing.assert_allclose(xb.fft.ifftn(cu(z, 2), s=s, axes=axes, norm="forward").numpy(),
                                   np.fft.ifftn(z, s=s, axes=axes, norm="forward"), **close)  # fmt: skip


def test_pinv_and_rank_with_a_tolerance_per_matrix_and_solve_of_a_vector():
    """An Array rtol (one per matrix of the batch) and a vector right-hand side go into one block with the stack."""
    h = _stack()
    h[1, 2] = h[1, 1]  # the second matrix has rank 2
    rtol = np.array([1e-12, 1e-3])
    x = cu(h, 1)
    np.testing.assert_allclose(xb.linalg.pinv(x, rtol=cu(rtol, 1)).numpy(), np.linalg.pinv(h, rtol=rtol), rtol=1e-8,
                               atol=1e-10)  # fmt: skip
    assert xb.linalg.matrix_rank(x, rtol=cu(rtol, 1)).tolist() == np.linalg.matrix_rank(h, rtol=rtol).tolist() == [3, 2]
    b = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(xb.linalg.solve(cu(h[:1], 1), cu(b, 1)).numpy(), np.linalg.solve(h[:1], b), rtol=1e-10)
