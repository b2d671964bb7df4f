"""The Dask backend: lazy with explicit results, chunked values equal to NumPy's, refusals that name the fix,
and the same checks on dask.distributed clusters (in-process and two worker processes).

The oracle and property suites run on Dask through the ``xb_target`` fixture (single-chunk arrays:
``chunks="auto"`` keeps small test data in one chunk); this module covers what only several chunks,
laziness or a cluster exercise.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest

import xbackend as xb
from xbackend.testing import assert_close, assert_equal, shapes_match

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


class Computed(AssertionError):
    pass


def _refuse(*args, **kwargs):
    raise Computed("the graph was computed")


@contextlib.contextmanager
def no_compute():
    """Any compute inside the block fails the test (the scheduler itself raises)."""
    with dask.config.set(scheduler=_refuse):
        yield


@pytest.fixture
def a():
    return np.random.default_rng(0).normal(size=(12, 10))


def test_asarray_of_a_dask_array_wraps_without_computing():
    d = da.ones((6, 4), chunks=2)
    with no_compute():
        x = xb.asarray(d)
        y = xb.asarray(d, dtype=xb.float32)
    assert x.backend == "dask" and x.native is d and x.dtype is xb.float64 and x.shape == (6, 4)
    assert y.native.chunks == d.chunks and y.dtype is xb.float32


def test_the_no_compute_guard_can_fail():
    x = xb.asarray(np.arange(4.0), backend="dask", chunks=2)
    with no_compute(), pytest.raises(Computed):
        x.numpy()


def test_a_pipeline_builds_without_computing_then_matches_numpy(a):
    x = xb.asarray(a, backend="dask", chunks=(5, 4))
    with no_compute():
        z = xb.exp(x / 3.0) - x**2
        m = xb.mean(z, axis=0)
        s = xb.std(z, axis=1, correction=1)
        c = xb.cumulative_sum(z, axis=0)
        w = x @ x.mT
        mask = z[z > 0]
        sq = xb.sum(xb.where(x > 0, x, 0.0), axis=(0, 1), keepdims=True)
        r = xb.rechunk(x, {0: -1})
        srt = xb.sort(r, axis=0)
        inv = xb.linalg.inv(xb.rechunk(w, -1) + 12 * xb.eye(12, backend="dask"))
        mx = xb.argmax(x, axis=0)
        moved = xb.asarray(a, backend="numpy").to(backend="dask")
    assert mask.shape == (None,) and mask.size is None
    want = np.exp(a / 3.0) - a**2
    assert_close(m, want.mean(axis=0))
    assert_close(s, want.std(axis=1, ddof=1))
    assert_close(c, np.cumsum(want, axis=0))
    assert_close(w, a @ a.T)
    assert_equal(mask, want[want > 0])
    assert_close(sq, np.where(a > 0, a, 0).sum(keepdims=True))
    assert_equal(srt, np.sort(a, axis=0))
    assert_close(inv, np.linalg.inv(a @ a.T + 12 * np.eye(12)))
    assert_equal(mx, np.argmax(a, axis=0))
    assert moved.backend == "dask"
    assert_equal(moved, a)


def test_explicit_results(a):
    x = xb.asarray(a, backend="dask", chunks=4)
    s = xb.sum(x)
    assert isinstance(float(s), float) and float(s) == pytest.approx(a.sum())
    assert bool(s > -1e9) is True and int(xb.sum(x > 0)) == int((a > 0).sum())
    assert s.item() == pytest.approx(a.sum())
    m, t = xb.compute(xb.mean(x), x)
    assert (m.backend, t.backend) == ("numpy", "numpy") and m.dtype is xb.float64
    assert_close(t, a)
    assert x.compute().backend == "numpy"
    h = x.to(backend="numpy")
    assert h.backend == "numpy" and np.array_equal(h.numpy(), a)
    p = x.persist()
    assert p.backend == "dask"
    assert_equal(p, a)


def test_unknown_sizes_are_none_until_persisted(a):
    x = xb.asarray(a, backend="dask", chunks=5)
    v = x[x > 0.5]
    assert v.shape == (None,) and v.size is None and v.ndim == 1
    with pytest.raises(TypeError, match="persist"):
        len(v)
    nz = xb.nonzero(x > 0.5)
    assert all(i.shape == (None,) for i in nz)
    with pytest.raises(ValueError, match="persist"):  # not a TypeError from None % n (found by mypy)
        xb.reshape(v, (-1, 1))
    u = xb.unique_values(xb.rechunk(xb.reshape(xb.round(x), (-1,)), -1))
    assert u.shape == (None,)
    assert_equal(u, np.unique(np.round(a)))
    p = v.persist()
    assert p.shape == ((a > 0.5).sum(),)
    assert_equal(p, a[a > 0.5])


def test_several_chunks_give_numpy_values_and_dtypes():
    rng = np.random.default_rng(1)
    ai = rng.integers(-50, 50, size=(9, 7)).astype(np.int32)
    af = rng.normal(size=(9, 7)).astype(np.float32)
    xi = xb.asarray(ai, backend="dask", chunks=(2, 3))
    xf = xb.asarray(af, backend="dask", chunks=(4, 2))
    for got, want in [
        (xb.sum(xi, axis=0), np.sum(ai, axis=0, dtype=np.int64)),
        (xb.prod(xi[:3, :3], axis=1), np.prod(ai[:3, :3], axis=1, dtype=np.int64)),
        (xb.max(xi, axis=1), ai.max(axis=1)),
        (xi // 7, ai // 7),
        (xi % -3, ai % -3),
        (xb.cumulative_prod(xi[:4] % 3 + 1, axis=0), np.cumprod(ai[:4] % 3 + 1, axis=0, dtype=np.int64)),
        (xb.diff(xi, axis=0, n=2), np.diff(ai, axis=0, n=2)),
        (xb.roll(xi, 3, axis=1), np.roll(ai, 3, axis=1)),
        (xb.flip(xi, axis=(0, 1)), ai[::-1, ::-1]),
        (xb.concat([xi, xi], axis=1), np.concatenate([ai, ai], axis=1)),
        (xb.argmin(xf, axis=1), np.argmin(af, axis=1)),
        (xb.count_nonzero(xi > 0, axis=0), np.count_nonzero(ai > 0, axis=0)),
        (xi[1:8:3, ::-2], ai[1:8:3, ::-2]),
        (xi[[0, 8, 3]], ai[[0, 8, 3]]),
    ]:
        assert got.dtype is xb.dtype(want.dtype.name), (got.dtype, want.dtype)
        assert_equal(got, want)
    assert xb.mean(xi).dtype is xb.float64
    assert_close(xb.mean(xi), ai.mean())
    assert_close(xb.var(xf, axis=0), af.var(axis=0))
    assert_close(xb.linalg.vector_norm(xf, axis=1), np.linalg.norm(af, axis=1), rtol=1e-5)
    assert_close(xf @ xf.mT, af @ af.T, rtol=1e-5)


def test_setitem_and_inplace_build_new_graphs():
    x = xb.asarray(np.arange(10.0), backend="dask", chunks=3)
    x[2:7] = -1.0
    x[x > 8] = 0.0
    x += 1.0
    want = np.arange(10.0)
    want[2:7] = -1.0
    want[want > 8] = 0.0
    want += 1.0
    assert_equal(x, want)


def test_refusals_are_typed_and_name_the_fix():
    from xbackend._backends.dask.backend import ChunkingError

    x = xb.asarray(np.arange(12.0).reshape(3, 4), backend="dask", chunks=2)
    for call in (lambda: xb.sort(x, axis=1), lambda: xb.argsort(x, axis=0), lambda: xb.fft.fft(x, axis=1),
                 lambda: xb.linalg.inv(x[:, :3]), lambda: xb.unique_values(x),
                 lambda: xb.take_along_axis(x, xb.zeros((3, 4), dtype=xb.int64, backend="dask"), axis=1)):  # fmt: skip
        with pytest.raises(ChunkingError, match="rechunk") as err:
            call()
        assert isinstance(err.value, (xb.XBackendError, ValueError))
    with pytest.raises(ChunkingError, match="tolist"):
        xb.repeat(x, xb.asarray(np.array([1, 2, 1]), backend="dask"), axis=0)
    with pytest.raises(xb.HostTransferError, match="numpy"):
        np.asarray(x)
    with pytest.raises(xb.DLPackError, match="compute"):
        x.__dlpack__()
    with pytest.raises(xb.CopyError):
        xb.asarray(np.arange(3.0), backend="dask", copy=False)
    with pytest.raises(TypeError, match="dask"):
        xb.rechunk(xb.asarray([1.0, 2.0]), 1)  # chunks are a Dask notion
    # with the axis in one chunk, each of these works and matches NumPy
    r = xb.rechunk(x, {1: -1})
    assert_equal(xb.sort(r, axis=1, descending=True), -np.sort(-np.arange(12.0).reshape(3, 4), axis=1))
    assert_close(xb.fft.fft(r, axis=1), np.fft.fft(np.arange(12.0).reshape(3, 4), axis=1))


def test_inspection_lists_the_refusals():
    caps = xb.__array_namespace_info__(backend="dask").capabilities()
    assert caps["lazy"] is True and caps["data-dependent shapes"] is True
    assert any("sort" in k for k in caps["refusals"]) and all("Fix" not in v or v for v in caps["refusals"].values())
    assert "lazy" not in xb.__array_namespace_info__(backend="numpy").capabilities()


def test_moves_from_every_backend_to_dask_and_back():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for t in xb.testing.available_targets():
        if t.is_gpu:
            continue
        x = t.asarray(a)
        d = x.to(backend="dask")
        assert d.backend == "dask" and d.dtype is xb.float32
        back = d.to(backend=t.backend)
        assert back.backend == t.backend
        assert_equal(back, a)


@pytest.mark.gpu
def test_cupy_chunks_on_cuda():  # pragma: no cover - needs a GPU
    x = xb.asarray(np.arange(8.0), backend="dask", device="cuda", chunks=3)
    assert str(x.device).startswith("cuda")
    assert type(x.native._meta).__module__.startswith("cupy")
    assert_close(xb.sum(xb.exp(x)), np.exp(np.arange(8.0)).sum())
    assert x.numpy().tolist() == list(np.arange(8.0))


# --- dask.distributed -----------------------------------------------------------------------------
distributed = pytest.importorskip("distributed")


def _cross_check():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(40, 6))
    x = xb.asarray(a, backend="dask", chunks=(10, 6))
    g = x.mT @ (1.0 / (1.0 + xb.exp(-(x @ xb.ones(6, backend="dask")))))
    assert_close(g, a.T @ (1.0 / (1.0 + np.exp(-(a @ np.ones(6))))))
    assert_close(xb.std(x, axis=0), a.std(axis=0))
    assert_equal(xb.sort(x, axis=1), np.sort(a, axis=1))  # NumPy backend code runs on the workers
    assert_close(xb.linalg.eigvalsh(xb.rechunk(x.mT @ x, -1)), np.linalg.eigvalsh(a.T @ a))
    u = xb.unique_counts(xb.rechunk(xb.reshape(xb.round(x), (-1,)), -1))
    vals, counts = np.unique(np.round(a), return_counts=True)
    assert_equal(u.values, vals)
    assert_equal(u.counts, counts)
    v = x[x > 0].persist()
    assert v.shape == ((a > 0).sum(),)


@pytest.fixture(scope="module", params=["threads", "processes"])
def cluster(request):
    processes = request.param == "processes"
    kw = dict(n_workers=2, threads_per_worker=1, memory_limit="512MiB") if processes else dict(n_workers=1)
    with distributed.LocalCluster(processes=processes, dashboard_address=None, **kw) as c, \
            distributed.Client(c) as client:  # fmt: skip
        yield client


def test_everything_runs_on_a_local_cluster(cluster):
    _cross_check()
    assert cluster.run(lambda: 1)  # the workers are alive and the default scheduler is this client


def test_a_distributed_client_is_the_default_scheduler(cluster):
    x = xb.asarray(np.arange(100.0), backend="dask", chunks=10)
    fut = cluster.compute(xb.sum(x).native)
    assert fut.result() == pytest.approx(4950.0)
    assert xb.sum(x).item() == pytest.approx(4950.0)


# Graph keys (issue 19.7): Dask merges tasks with equal keys, so two computations that differ in one argument
# must get different keys, and one computation built twice the same key (equal graphs share their work).
def _token_pairs():
    from xbackend._backends.dask.index import InBounds as _InBounds
    from xbackend._backends.dask.chunks import ChunkCall, ChunkKernel, _SearchSorted

    base = ChunkCall("sort_values", (xb.float64, 0, False), None, 1)
    return {
        "ChunkCall.method": (base, ChunkCall("sort_indices", (xb.float64, 0, False), None, 1)),
        "ChunkCall.args dtype": (base, ChunkCall("sort_values", (xb.float32, 0, False), None, 1)),
        "ChunkCall.args flag": (base, ChunkCall("sort_values", (xb.float64, 0, True), None, 1)),
        "ChunkCall.out": (base, ChunkCall("sort_values", (xb.float64, 0, False), np.dtype("float32"), 1)),
        "ChunkCall.nargs": (base, ChunkCall("sort_values", (xb.float64, 0, False), None, 2)),
        "ChunkKernel.name": (ChunkKernel("sin", xb.float64), ChunkKernel("cos", xb.float64)),
        "ChunkKernel.dtype": (ChunkKernel("sin", xb.float64), ChunkKernel("sin", xb.float32)),
        "_InBounds.n": (_InBounds(5, 0, (5, 2)), _InBounds(4, 0, (5, 2))),
        "_InBounds.axis": (_InBounds(5, 0, (5, 5)), _InBounds(5, 1, (5, 5))),
        "_InBounds.shape": (_InBounds(5, 0, (5, 2)), _InBounds(5, 0, (5, 3))),
        "_SearchSorted.side": (_SearchSorted("left", False), _SearchSorted("right", False)),
        "_SearchSorted.sorter": (_SearchSorted("left", False), _SearchSorted("left", True)),
    }


@pytest.mark.parametrize("which", list(_token_pairs()))
def test_graph_tokens_differ_in_each_argument(which):
    from dask.base import tokenize

    first, second = _token_pairs()[which]
    assert tokenize(first) != tokenize(second)
    assert tokenize(first) == tokenize(_token_pairs()[which][0])  # deterministic: equal calls, equal keys


def test_computations_that_differ_in_one_argument_get_their_own_keys():
    rng = np.random.default_rng(1)
    h = rng.normal(size=(4, 6))
    s = np.sort(rng.normal(size=7))
    v = np.concatenate([s[:3], rng.normal(size=3)])
    x, xs, xv = (xb.asarray(a, backend="dask") for a in (h, s, v))
    pairs = [  # (xbackend result, NumPy's) for pairs of calls that differ in one argument
        ((xb.sort(x, axis=1), np.sort(h, axis=1)), (xb.sort(x, axis=1, descending=True), -np.sort(-h, axis=1))),
        ((xb.argsort(x, axis=0, stable=True), np.argsort(h, axis=0, kind="stable")),
         (xb.argsort(x, axis=1, stable=True), np.argsort(h, axis=1, kind="stable"))),
        ((xb.searchsorted(xs, xv, side="left"), np.searchsorted(s, v, side="left")),
         (xb.searchsorted(xs, xv, side="right"), np.searchsorted(s, v, side="right"))),
        ((xb.sin(x), np.sin(h)), (xb.cos(x), np.cos(h))),
        ((xb.sin(x), np.sin(h)), (xb.sin(xb.astype(x, xb.float32)), np.sin(h.astype(np.float32)))),
        ((xb.sum(x, axis=0), h.sum(axis=0)), (xb.sum(x, axis=1), h.sum(axis=1))),
        ((x + 1, h + 1), (x + 2, h + 2)),
    ]
    for (a, ea), (b, eb) in pairs:
        assert a.native.name != b.native.name
        ga, gb = dask.compute(a.native, b.native)  # one merged graph: equal keys would give one of the two twice
        assert_close(xb.asarray(ga), ea)
        assert_close(xb.asarray(gb), eb)
    again = xb.sin(x)
    assert again.native.name == xb.sin(x).native.name  # the same call twice: the same key


def test_batched_matmul_shapes_are_checked_when_built_with_numpys_message():
    a, b = np.ones((2, 2, 3)), np.ones((4, 3, 2))
    with pytest.raises(xb.ShapeError) as want:
        xb.asarray(a) @ xb.asarray(b)
    with no_compute(), pytest.raises(xb.ShapeError) as got:
        xb.asarray(a, backend="dask") @ xb.asarray(b, backend="dask")
    assert "batch dimensions (2,) and (4,)" in str(got.value)
    assert str(got.value).replace("dask", "numpy") == str(want.value)


def test_host_index_arrays_are_bounds_checked_when_the_key_is_built():
    x = xb.asarray(np.arange(3.0), backend="dask")
    with no_compute(), pytest.raises(xb.IndexOutOfRangeError):
        x[np.array([0, 5])]  # a host index array: checked at once, as on the eager backends
    with no_compute():
        y = x[np.array([2, 0])]
    assert y.tolist() == [2.0, 0.0]


def test_probe_reports_a_broken_dask_and_the_distributed_extra(monkeypatch):
    from xbackend._backends.dask import backend as xdask

    info = xdask.DaskBackend.probe()
    assert info.usable and info.extra["distributed"] in ("installed", "not installed")
    pytest.importorskip("distributed")
    assert info.extra["distributed"] == "installed"

    def broken():
        raise ImportError("no toolz")

    monkeypatch.setattr(xdask, "_import", broken)
    info = xdask.DaskBackend.probe()
    assert not info.usable and info.installed and "pip install 'dask[array]'" in info.reason


@pytest.mark.parametrize("shape,repeats,axis", [((2, 3), 0, 0), ((0, 3), 2, 0), ((2, 0), 3, 1), ((2, 3), 0, 1)])
def test_repeat_to_nothing_matches_numpy(shape, repeats, axis):
    h = np.ones(shape)
    r = xb.repeat(xb.asarray(h, backend="dask"), repeats, axis=axis)
    want = np.repeat(h, repeats, axis=axis)
    assert r.shape == want.shape and r.numpy().shape == want.shape


@pytest.mark.parametrize("shape,axis,n", [((1, 4), 1, 1), ((4, 1), 0, 2), ((1, 1), 0, 1), ((3, 5), 1, 2)])
def test_diff_with_size_one_axes_matches_numpy(shape, axis, n):
    h = np.arange(float(np.prod(shape))).reshape(shape) ** 2
    r = xb.diff(xb.asarray(h, backend="dask"), axis=axis, n=n)
    assert_equal(r, np.diff(h, axis=axis, n=n))


def test_setitem_through_a_reversed_slice_with_a_broadcast_value():
    h = np.zeros((2, 3))
    x = xb.asarray(h, backend="dask")
    x[::-1, :] = xb.asarray([1.0, 2.0, 3.0], backend="dask")  # the value broadcasts over the reversed axis
    h[::-1, :] = [1.0, 2.0, 3.0]
    assert_equal(x, h)
    x[:, ::-1] = xb.asarray([[4.0, 5.0, 6.0]], backend="dask")  # ... and along it
    h[:, ::-1] = [[4.0, 5.0, 6.0]]
    assert_equal(x, h)


def test_like_functions_of_unknown_sizes_follow_numpy():
    # after a boolean mask the size is unknown until computed: *_like fills the graph instead of asking for a shape
    a = np.array([3.0, -1.0, 2.0, 5.0])
    x = xb.asarray(a, backend="dask")
    y, h = x[x > 0], a[a > 0]
    assert y.shape == (None,)
    for got, want in [(xb.zeros_like(y), np.zeros_like(h)), (xb.ones_like(y, dtype=xb.int8), np.ones_like(h, np.int8)),
                      (xb.full_like(y, 7), np.full_like(h, 7)), (xb.full_like(y, True, dtype=xb.bool), h > -1)]:
        assert got.shape == (None,) and got.backend == "dask"
        np.testing.assert_array_equal(got.numpy(), want, strict=True)
    assert xb.empty_like(y).numpy().shape == h.shape


def test_zero_d_bool_mask_alone_follows_numpy():
    # x[m] with m a 0-d bool Array: a new first axis of length 1 (True) or 0 (False), as NumPy
    for a in (np.float64(3.0), np.arange(6).reshape(2, 3)):
        x = xb.asarray(np.asarray(a), backend="dask")
        for m in (True, False):
            got = x[xb.asarray(np.array(m), backend="dask")].numpy()
            np.testing.assert_array_equal(got, np.asarray(a)[np.array(m)], strict=True)


def _keys_with_one_index_array():
    """Keys of slices, ints, None, bools, ``...`` and one host index array (a list or an ndarray, in range or not)
    for shapes of 1-3 dimensions, every placement: Dask's getitem checks such arrays itself (its own indexing would
    wrap or clip them), so the axis it names must be the one NumPy names."""
    shapes = [(4,), (3, 5), (2, 3, 4)]
    # (Python bools next to index arrays are refused and ints next to them place axes otherwise: documented)
    fillers = [slice(None), None, slice(1, None)]
    for shape in shapes:
        for pos in range(len(shape) + 1):
            for filler in fillers:
                for ell in (False, True):
                    for idx in ([0, -1], [1, 7], np.array([-9, 0]), [2, -6], np.array([], dtype=np.int64)):
                        key = [filler] * pos + [idx]
                        if ell:
                            key = [Ellipsis] + key if pos == 0 else key[:1] + [Ellipsis] + key[1:]
                        yield shape, tuple(key)


def test_host_index_arrays_are_checked_on_the_axis_numpy_names():
    for shape, key in _keys_with_one_index_array():
        a = np.arange(int(np.prod(shape))).reshape(shape)
        try:
            want = a[key]
            err = None
        except IndexError as exc:
            want, err = None, exc
        nk = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
        outs = []
        for backend in ("numpy", "dask"):
            x = xb.asarray(a, backend=backend)
            try:
                outs.append(("value", x[nk].numpy()))
            except IndexError as exc:  # xbackend's IndexOutOfRangeError / InvalidIndexError are IndexErrors
                outs.append(("error", str(exc)))
            except xb.ChunkingError as exc:  # documented: Dask's indexing cannot place None next to some arrays
                assert backend == "dask" and None in key and "Fix: index in two steps" in str(exc), (shape, key)
                outs = None
                break
        if outs is None:
            continue
        if err is None:
            for kind, got in outs:
                assert kind == "value", (shape, key, got)
                np.testing.assert_array_equal(got, want, strict=True)
        else:
            assert outs[0][0] == outs[1][0] == "error", (shape, key, err, outs)
            texts = [t.replace("a numpy Array", "an Array").replace("a dask Array", "an Array") for _, t in outs]
            assert texts[0] == texts[1], (shape, key, outs)  # the same axis, size and index named
            m = re.search(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", str(err))
            if m:
                assert f"index {m[1]} is out of range for axis {m[2]} of size {m[3]}" in texts[1], (shape, key, err)


def test_iterative_linalg_builds_without_computing():
    # the finite check of iterative routines runs per chunk when computed on a lazy backend, never at the call
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = xb.asarray(a, backend="dask")
    with no_compute():
        lazy = [xb.linalg.eigvalsh(x), xb.linalg.svdvals(x), xb.linalg.pinv(x), xb.linalg.matrix_rank(x),
                xb.linalg.matrix_norm(x, ord=2)]
    want = [np.linalg.eigvalsh(a), np.linalg.svd(a, compute_uv=False), np.linalg.pinv(a), np.linalg.matrix_rank(a),
            np.linalg.norm(a, 2)]
    for got, w in zip(lazy, want):
        np.testing.assert_allclose(got.numpy(), w, rtol=1e-12)


def test_batched_matmul_batch_shapes_checked_when_built():
    x = xb.asarray(np.ones((2, 2, 3)), backend="dask")
    y = xb.asarray(np.ones((3, 3, 4)), backend="dask")
    with no_compute(), pytest.raises(xb.ShapeError, match=r"\(2, 2, 3\) and \(3, 3, 4\)"):
        x @ y  # batch dimensions (2,) and (3,) do not broadcast: NumPy says so at once


def test_diff_along_an_axis_next_to_a_size_one_axis_follows_numpy():
    # size-one axes that are not the diff axis: the values are computed (only empty inputs take NumPy's shortcut)
    rng = np.random.default_rng(7)
    keep = []  # every host array stays alive: a freed buffer of the right size must not stand in for the data
    for shape, axis in [((1, 7), 1), ((3, 1, 6), 2), ((1, 1, 5), -1), ((4, 1), 0)]:
        a = rng.normal(size=shape)
        x = xb.asarray(a, backend="dask")
        keep += [a, x]
        for n in (1, 2):
            poison = np.full(shape, 1234.5)  # a freed buffer of this size now holds other numbers: a result made
            del poison  # from uninitialised memory (np.empty) shows them instead of reusing the data's own buffer
            got = xb.diff(x, axis=axis, n=n).numpy()
            keep.append(got)
            np.testing.assert_array_equal(got, np.diff(a, axis=axis, n=n), strict=True)


def test_dask_says_it_is_installed_and_how_to_differentiate_it():
    """xb.backends() reports Dask installed and usable here (dask imports); xb.grad on Dask Arrays refuses with the
    fix that works: compute them first (NumPy Arrays, differentiated through torch)."""
    import importlib.util

    info = xb.backends()["dask"]
    assert (info.installed, info.usable) == (importlib.util.find_spec("dask") is not None, True)
    x = xb.asarray([1.0, 2.0], backend="dask")
    with pytest.raises(xb.GradientError, match=r"Fix: compute the values first: x = x\.compute\(\)"):
        xb.grad(lambda v: xb.sum(v * v))(x)


# -- keys, writes and imports on Dask, against NumPy --------------------------------------------------------------------
@pytest.mark.parametrize("key", [False, True, (None, False), (False, 0), (True, slice(1, None))])
def test_bool_scalar_keys_add_an_axis_of_one_or_none(key):
    h = np.arange(6.0).reshape(2, 3)
    got = xb.asarray(h, backend="dask")[key]
    assert got.shape == h[key].shape and got.numpy().tolist() == h[key].tolist()


def test_writes_broadcast_their_value_as_numpy_does():
    h = np.arange(6.0).reshape(2, 3)
    y = xb.asarray(h.copy(), backend="dask")
    y[0] = xb.asarray([7.0, 8.0, 9.0], backend="dask")
    y[:, 1] = 5.0
    y[1, None] = np.array([[-1.0, -2.0, -3.0]])
    h[0], h[:, 1] = [7.0, 8.0, 9.0], 5.0
    h[1, None] = [[-1.0, -2.0, -3.0]]
    assert y.numpy().tolist() == h.tolist()


def test_a_dlpack_import_onto_dask_is_the_producers_values():
    h = np.arange(5.0)
    z = xb.from_dlpack(h, backend="dask")
    assert (z.backend, z.device, z.dtype) == ("dask", "cpu", xb.float64) and z.numpy().tolist() == h.tolist()
