"""xb.grad / xb.value_and_grad (issue 22): right gradients on every backend that has them, the same on all of
them, zero-copy for NumPy (and CuPy) through torch, and typed refusals with working fixes elsewhere.

Right means: equal to the analytic gradient (NumPy, float64) and to central finite differences of the same
function, for generated inputs. Targets come from the xbackend pytest plugin; the backends without gradients
(Dask, array-api-strict) are data here (``NO_GRADIENTS``), and their refusal is tested, fix applied.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from xbackend import _demo
from xbackend.testing import available_targets

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
#: backends whose Arrays have no gradients, with a phrase of the fix their refusal names
NO_GRADIENTS = {"dask": "x.compute()", "array_api_strict": "x.to(backend=", "cubed": "x.to(backend="}


def _has_gradients(target) -> bool:
    return target.backend not in NO_GRADIENTS


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# (function of a 1-d Array written against xbackend, its analytic gradient in NumPy float64)
FUNCTIONS = {
    "sin_times_x": (lambda x: xb.sum(xb.sin(x) * x), lambda x: np.cos(x) * x + np.sin(x)),
    "softplus": (lambda x: xb.sum(xb.logaddexp(0.0, x)), _sigmoid),
    "smooth_norm": (lambda x: xb.sqrt(xb.sum(x * x) + 1.0), lambda x: x / np.sqrt(np.sum(x * x) + 1.0)),
    "tanh_squared_mean": (lambda x: xb.mean(xb.tanh(x) ** 2),
                          lambda x: 2 * np.tanh(x) * (1 - np.tanh(x) ** 2) / x.size),
    "rational": (lambda x: xb.sum(xb.exp(-x * x) / (1.0 + x * x)),
                 lambda x: np.exp(-x * x) * (-2 * x * (1 + x * x) - 2 * x) / (1 + x * x) ** 2),
    "logsumexp": (lambda x: xb.log(xb.sum(xb.exp(x - xb.max(x)))) + xb.max(x),
                  lambda x: np.exp(x - x.max()) / np.exp(x - x.max()).sum()),
    "cumsum_and_where": (lambda x: xb.sum(xb.cumulative_sum(x) * xb.where(x > 0.0, 2.0, -xb.ones_like(x))),
                         lambda x: np.cumsum(np.where(x > 0, 2.0, -1.0)[::-1])[::-1]),
}  # fmt: skip

vectors = hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(-3, 3).map(lambda v: v if abs(v) > 1e-3 else 0.5))


def _finite_differences(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of ``f`` (an xbackend function) evaluated on NumPy float64 Arrays."""
    g = np.empty_like(x)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        g[i] = (float(f(xb.asarray(up))) - float(f(xb.asarray(down)))) / (2 * h)
    return g


def _refused(target, call):
    with pytest.raises(xb.GradientError) as info:
        call()
    assert NO_GRADIENTS[target.backend] in str(info.value), str(info.value)
    return info.value


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradient_is_analytic_and_matches_finite_differences(xb_target, name):
    f, analytic = FUNCTIONS[name]

    @given(vectors)
    def check(x_np):
        x = xb_target.asarray(x_np)
        if not _has_gradients(xb_target):
            _refused(xb_target, lambda: xb.grad(f)(x))
            return
        g = xb.grad(f)(x)
        assert g.backend == xb_target.backend and g.device == x.device and g.dtype == xb.float64
        assert g.shape == x.shape
        got = g.numpy()
        np.testing.assert_allclose(got, analytic(x_np), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, _finite_differences(f, x_np), rtol=1e-5, atol=1e-6)

    check()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_value_and_gradients_are_the_same_on_every_backend(dtype):
    """Logistic loss of a 2-d weight and a bias: every target's value and gradients equal NumPy's (via torch)
    to the dtype's rounding, and have the input's dtype."""
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(50, 3)).astype(dtype), (rng.random(50) < 0.4).astype(dtype)
    W, b = rng.normal(size=(3, 2)).astype(dtype), np.float32(0.3).astype(dtype)

    def loss(W, b, X, y):
        z = xb.sum(X @ W, axis=1) + b
        return xb.mean(xb.logaddexp(0.0, z) - y * z)

    results = {}
    for t in available_targets():
        if not _has_gradients(t) or not t.holds(xb.dtype(dtype)):
            continue
        v, (gW, gb) = xb.value_and_grad(loss, argnums=(0, 1))(*(t.asarray(a) for a in (W, b, X, y)))
        assert (v.dtype, gW.dtype, gb.dtype) == (xb.dtype(dtype),) * 3
        assert v.shape == () and gb.shape == () and gW.shape == (3, 2)
        results[t.id] = (float(v), gW.numpy(), float(gb))
    z = (X @ W).sum(axis=1).astype(np.float64) + float(b)
    err = _sigmoid(z) - y
    want_gW = np.repeat((X.T.astype(np.float64) @ err / 50)[:, None], 2, axis=1)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for tid, (v, gW, gb) in results.items():
        np.testing.assert_allclose(v, np.mean(np.logaddexp(0, z) - y * z), rtol=tol, err_msg=tid)
        np.testing.assert_allclose(gW, want_gW, rtol=tol * 10, atol=tol, err_msg=tid)
        np.testing.assert_allclose(gb, err.mean(), rtol=tol * 10, atol=tol, err_msg=tid)


def test_second_derivative_by_nesting(xb_target):
    if not _has_gradients(xb_target):
        pytest.skip("no gradients on this backend (refusal tested elsewhere)")
    x_np = np.array([-1.5, 0.25, 2.0])
    x = xb_target.asarray(x_np)

    def f(x):
        return xb.sum(xb.sin(x) * x)

    d2 = xb.grad(lambda x: xb.sum(xb.grad(f)(x)))(x)  # d/dx (cos x * x + sin x) = 2 cos x - x sin x
    assert d2.backend == xb_target.backend
    np.testing.assert_allclose(d2.numpy(), 2 * np.cos(x_np) - x_np * np.sin(x_np), rtol=1e-12)


def test_structured_arguments_has_aux_and_argnums(xb_target):
    if not _has_gradients(xb_target):
        pytest.skip("no gradients on this backend (refusal tested elsewhere)")
    params = {"w": xb_target.asarray([1.0, -2.0]), "pair": (xb_target.asarray(0.5), xb_target.asarray([3.0]))}
    scale = xb_target.asarray(2.0)

    def f(scale, params, offset=0.0):
        a, c = params["pair"]
        s = xb.sum(params["w"] ** 2) * a + xb.sum(c) * scale + offset
        return s, {"a_times_2": a * 2.0, "label": "aux"}

    (value, aux), (g_scale, g_params) = xb.value_and_grad(f, argnums=(0, 1), has_aux=True)(scale, params, offset=1.0)
    assert float(value) == pytest.approx(5 * 0.5 + 3 * 2 + 1)
    assert aux["label"] == "aux" and float(aux["a_times_2"]) == 1.0 and aux["a_times_2"].backend == xb_target.backend
    assert not aux["a_times_2"].requires_grad
    assert float(g_scale) == 3.0
    assert set(g_params) == {"w", "pair"} and type(g_params["pair"]) is tuple
    assert g_params["w"].tolist() == [1.0, -2.0]  # 2 w a, a = 0.5
    assert float(g_params["pair"][0]) == 5.0 and g_params["pair"][1].tolist() == [2.0]
    g_only, aux2 = xb.grad(f, argnums=1, has_aux=True)(scale, params)
    assert g_only["w"].tolist() == [1.0, -2.0] and aux2["label"] == "aux"
    unused = xb.grad(lambda a, b: xb.sum(a * 2.0), argnums=1)(params["w"], params["w"])  # b not used: zeros
    assert unused.tolist() == [0.0, 0.0]


def test_numpy_inputs_are_differentiated_without_copies():
    """Inside f the NumPy Arrays are torch views of the same memory; the gradients are NumPy arrays over the
    memory torch's autograd allocated (no copy back), and writable."""
    x_np = np.array([1.0, 2.0, 3.0])
    X_np = np.arange(6.0).reshape(3, 2)
    seen = {}

    def f(x, X):
        seen["x"], seen["X"] = x, X
        return xb.sum(xb.sin(x)) + xb.sum(X) * 0.0, x  # aux: the view itself

    (value, aux), g = xb.value_and_grad(f, has_aux=True)(xb.asarray(x_np), xb.asarray(X_np))
    assert seen["x"].backend == "torch" and seen["X"].backend == "torch"
    assert seen["x"].native.data_ptr() == x_np.ctypes.data and seen["X"].native.data_ptr() == X_np.ctypes.data
    assert np.shares_memory(aux.native, x_np)  # and back to NumPy without a copy
    assert g.backend == "numpy" and type(g.native.base) is torch.Tensor and not g.native.flags.owndata
    assert g.native.flags.writeable and value.backend == "numpy" and value.native.shape == ()
    g.native[:] += 1.0  # an independent gradient: the input is untouched
    np.testing.assert_array_equal(x_np, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("layout", ["read-only", "negative strides", "byte-swapped", "sum gradient (stride 0)"])
def test_numpy_memory_torch_cannot_share_is_handled(layout):
    """torch writes through read-only NumPy memory, aborts on negative strides and refuses byte-swapped data
    (reference/interchange.md): those inputs are copied for torch, the gradients stay right, the input is
    untouched. The gradient of a sum, a broadcast view in torch, comes back with its own memory."""
    base = np.array([0.5, -1.0, 2.0, 3.0])
    x_np = base.copy()
    if layout == "read-only":
        x_np.flags.writeable = False
    elif layout == "negative strides":
        x_np = base[::-1].copy()[::-1]
    elif layout == "byte-swapped":
        x_np = base.astype(base.dtype.newbyteorder())
    seen = []  # the address of the torch tensor f works on

    def f(x):
        seen.append(x.native.data_ptr())
        return xb.sum(x) if layout.startswith("sum") else xb.sum(x * x * x)

    g = xb.grad(f)(xb.asarray(x_np))
    g = xb.grad(f)(xb.asarray(x_np))  # twice: the first call and the ones after (which use cached lookups)
    if not layout.startswith("sum"):
        assert x_np.ctypes.data not in seen  # copied for torch, not shared
    want = np.ones(4) if layout.startswith("sum") else 3 * base**2
    np.testing.assert_array_equal(g.numpy(), want)
    np.testing.assert_array_equal(x_np, base)
    h = g.numpy()
    h[0] = 10.0  # its own memory: one element changes
    assert h.tolist()[1:] == want.tolist()[1:]


def test_numpy_views_run_inside_a_torch_context():
    """Creation functions inside f land next to the torch views, and f's result is a 0-d NumPy Array."""

    def f(x):
        return xb.sum(x * xb.ones(x.shape, dtype=x.dtype))

    value, g = xb.value_and_grad(f)(xb.asarray([1.0, 2.0]))
    assert value.backend == "numpy" and float(value) == 3.0 and g.tolist() == [1.0, 1.0]


def test_a_numpy_array_captured_by_f_is_a_constant_as_on_torch():
    """Issue 32 ("written once"): a closure Array trains on NumPy as it does on torch - read as a constant next to
    the differentiated views; a write into it is refused with a fix that runs (torch would record it)."""
    data = xb.asarray([1.0, 2.0])

    def f(w):
        return xb.sum(w * data) + xb.sum(xb.where(data > 1.5, w, 0.0))  # data is not an argument

    g = xb.grad(f)(xb.asarray([0.0, 0.0]))
    assert g.backend == "numpy" and g.tolist() == [1.0, 3.0]
    assert data.backend == "numpy"  # the closure itself is untouched
    g2 = xb.grad(lambda w, data: xb.sum(w * data) + xb.sum(xb.where(data > 1.5, w, 0.0)))(xb.asarray([0.0, 0.0]),
                                                                                         data)  # fmt: skip
    assert g2.tolist() == g.tolist()

    def writes(w):
        data[...] = w
        return xb.sum(data * w)

    with pytest.raises(xb.BackendMismatchError, match="pass that Array as an argument of f") as info:
        xb.grad(writes)(xb.asarray([1.0, 1.0]))
    assert "move one explicitly" not in str(info.value)  # no fix that cannot work inside xb.grad (issue 32)

    def fixed(w):
        c = xb.asarray([1.0, 2.0], backend="numpy")
        exec(str(info.value).rsplit("e.g. ", 1)[1], {"xb": xb}, ns := {"c": c})  # noqa: S102 - the printed fix
        c = ns["c"]
        c[...] = w
        return xb.sum(c * w)

    assert xb.grad(fixed)(xb.asarray([1.0, 3.0])).tolist() == [2.0, 6.0]


def test_the_numpy_route_works_on_the_inputs_stream(monkeypatch):
    """The engine runs under ``use_stream(stream_handle of the inputs)``: the wiring CuPy needs, seen on the CPU
    through fakes (torch-CUDA and CuPy run the real streams in the gpu tests)."""
    from xbackend._backends.numpy.backend import NumpyBackend
    from xbackend._backends.torch.backend import TorchBackend
    import contextlib

    calls = []

    @contextlib.contextmanager
    def use_stream(self, handle, dev):
        calls.append(("enter", handle, str(dev)))
        yield
        calls.append(("exit", handle, str(dev)))

    monkeypatch.setattr(NumpyBackend, "stream_handle", lambda self, dev: 1234)
    monkeypatch.setattr(TorchBackend, "use_stream", use_stream)
    g = xb.grad(lambda x: xb.sum(x * x))(xb.asarray([1.0, 2.0]))
    assert calls == [("enter", 1234, "cpu"), ("exit", 1234, "cpu")]
    assert g.tolist() == [2.0, 4.0]


# -- refusals and errors -----------------------------------------------------------------------------
def test_backends_without_gradients_refuse_with_a_fix_that_works(xb_target):
    if _has_gradients(xb_target):
        pytest.skip("this backend has gradients")
    w = xb_target.asarray([1.0, 2.0])

    def f(w):
        return xb.sum(w * w)

    err = _refused(xb_target, lambda: xb.grad(f)(w))
    assert xb_target.backend in str(err)
    fixed = w.compute() if xb_target.backend == "dask" else w.to(backend="numpy")  # what the message says
    assert xb.grad(f)(fixed).tolist() == [2.0, 4.0]
    assert xb.grad(f)(w.to(backend="torch")).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("case", ["vector output", "integer input", "python float output", "argnums out of range",
                                  "non-Array argument", "integer output"])
def test_misuse_raises_typed_errors_with_the_fix(case):
    x = xb.asarray([1.0, 2.0])
    if case == "vector output":
        with pytest.raises(xb.GradientError, match=r"0-d Array .* got shape \(2,\).*xb.sum"):
            xb.grad(lambda x: x * 2.0)(x)
    elif case == "integer input":
        with pytest.raises(xb.GradientError, match="astype"):
            xb.grad(lambda x: xb.sum(x))(xb.asarray([1, 2]))
    elif case == "python float output":
        with pytest.raises(xb.GradientError, match="float.*leave the graph"):
            xb.grad(lambda x: float(xb.sum(x)))(x)
    elif case == "argnums out of range":
        with pytest.raises(TypeError, match="argnums"):
            xb.grad(lambda x: xb.sum(x), argnums=1)(x)
    elif case == "non-Array argument":
        with pytest.raises(TypeError, match=r"xb.asarray\(value\)"):
            xb.grad(lambda x: x * 2.0)(3.0)
    else:
        with pytest.raises(xb.GradientError, match="floating"):
            xb.grad(lambda x: xb.sum(xb.astype(x, xb.int64)))(x)


def test_without_torch_numpy_gradients_name_the_install(tmp_path):
    """A Python that sees NumPy and xbackend but no torch: xb.grad on NumPy raises BackendUnavailableError naming
    the install; ``import xbackend`` and the rest still work."""
    site = tmp_path / "site"
    site.mkdir()
    for name in ("numpy", "numpy.libs"):
        src = Path(np.__file__).resolve().parents[1] / name
        if src.exists():
            (site / name).symlink_to(src)
    (site / "xbackend").symlink_to(ROOT / "xbackend")
    code = textwrap.dedent("""
        import sys
        import xbackend as xb
        try:
            xb.grad(lambda x: xb.sum(x))(xb.asarray([1.0]))
        except xb.BackendUnavailableError as exc:
            print("RAISED", exc)
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {str(site)!r})\n" + code],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": ""})
    assert out.returncode == 0, out.stderr
    assert "RAISED" in out.stdout and "pip install" in out.stdout and "torch" in out.stdout, out.stdout
    assert out.stdout.strip().endswith("False")


# -- composition with @xb.jit on torch ----------------------------------------------------------------
def test_jit_composes_with_grad_on_torch():
    rng = np.random.default_rng(2)
    X = xb.asarray(rng.normal(size=(40, 3)), backend="torch")
    y = xb.asarray((rng.random(40) < 0.5).astype(float), backend="torch")
    w, b = xb.zeros(3, backend="torch"), xb.zeros((), backend="torch")

    def step(w, b, X, y):
        loss, (gw, gb) = xb.value_and_grad(_demo.log_loss, argnums=(0, 1))(w, b, X, y)
        return w - 0.5 * gw, b - 0.5 * gb, loss

    jitted = xb.jit(step, backend_options={"backend": "aot_eager"})
    loss_jit = xb.jit(_demo.log_loss, backend_options={"backend": "aot_eager"})
    want = step(w, b, X, y)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", xb.JitFallbackWarning)  # compiled, not an eager fallback
        got = jitted(w, b, X, y)
        g_of_jit = xb.grad(loss_jit, argnums=(0, 1))(w, b, X, y)
    for a, e in zip(got, want):
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-12)
    eager_g = xb.grad(_demo.log_loss, argnums=(0, 1))(w, b, X, y)
    for a, e in zip(g_of_jit, eager_g):
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-12)
    assert jitted.cache_info().compiles == 1 and loss_jit.cache_info().compiles == 1


# -- the training loops of the guide and the demo --------------------------------------------------------
def _clicks(n=300, d=4):
    from xbackend._demo import make_clicks

    X, y, _ = make_clicks(n, d, seed=5)
    return X, y


def test_training_loops_reach_the_same_loss_on_every_target_with_gradients():
    """The logistic regression and the MLP, written once, train to the same losses (float64 rounding) on
    every CPU target with gradients; the logistic regression also matches the hand-derived NumPy gradient."""
    from xbackend._demo import _numpy_reference

    X_np, y_np = _clicks()
    ref_w = _numpy_reference(X_np, y_np, 30, 0.5)
    runs = {}
    for t in available_targets():
        if not _has_gradients(t) or t.is_gpu:
            continue
        X, y = t.asarray(X_np), t.asarray(y_np)
        w, b, lr_losses = _demo.train_logistic(X, y, 30, 0.5, log_every=10)
        np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-10, atol=1e-12, err_msg=t.id)
        params, mlp_losses = _demo.train_mlp(X, y, 30, 0.5, log_every=10)
        assert mlp_losses[-1] < mlp_losses[0] and lr_losses[-1] < lr_losses[0]
        runs[t.id] = (lr_losses, mlp_losses, {k: p.numpy() for k, p in params.items()})
    assert "numpy-cpu" in runs and "torch-cpu" in runs
    base = runs["numpy-cpu"]
    for tid, (lr_l, mlp_l, params) in runs.items():
        np.testing.assert_allclose(lr_l, base[0], rtol=1e-12, err_msg=tid)
        np.testing.assert_allclose(mlp_l, base[1], rtol=1e-12, err_msg=tid)
        for k in params:
            np.testing.assert_allclose(params[k], base[2][k], rtol=1e-10, atol=1e-12, err_msg=f"{tid} {k}")


def test_the_pytorch_style_loop_equals_the_functional_one():
    X_np, y_np = _clicks()
    X, y = xb.asarray(X_np, backend="torch"), xb.asarray(y_np, backend="torch")
    w1, b1, l1 = _demo.train_logistic(X, y, 20, 0.5, log_every=5)
    w2, b2, l2 = _demo.train_logistic_backward(X, y, 20, 0.5, log_every=5)
    np.testing.assert_allclose(l2, l1, rtol=1e-13)
    np.testing.assert_allclose(w2.detach().numpy(), w1.numpy(), rtol=1e-12)
    assert w2.requires_grad and w2.is_leaf and w2.grad is None


def test_the_guide_shows_the_training_code_the_demo_runs():
    """docs/guide/gradients.md shows xbackend/_demo.py's functions exactly (the demo imports them)."""
    page = (ROOT / "docs" / "guide" / "gradients.md").read_text()
    blocks = re.findall(r"```python\n(.*?)\n```", page, re.S)
    text = "\n".join(blocks)
    for name in ("log_loss", "train_logistic", "train_logistic_backward", "init_mlp", "mlp_loss", "train_mlp"):
        src = inspect.getsource(getattr(_demo, name)).strip()
        assert src in text, f"the guide does not show {name} as xbackend/_demo.py defines it"


@pytest.mark.gpu
def test_gpu_gradients_match_numpy_and_stay_on_the_device(monkeypatch):
    """torch-CUDA and CuPy: the same gradients as NumPy (float64), on the input's device and backend; CuPy's
    come back without a copy (DLPack) and the engine ran on CuPy's current stream (a non-default one here)."""
    X_np, y_np = _clicks(2000, 8)
    ref = xb.value_and_grad(_demo.log_loss, argnums=(0, 1))(xb.zeros(8), xb.zeros(()), xb.asarray(X_np),
                                                                 xb.asarray(y_np))  # fmt: skip
    targets = [t for t in available_targets() if t.is_gpu and _has_gradients(t)]
    assert targets
    for t in targets:
        X, y = t.asarray(X_np), t.asarray(y_np)
        w, b = xb.zeros(8, device=X.device), xb.zeros((), device=X.device)
        if t.backend == "cupy":
            import cupy
            from xbackend._backends.torch.backend import TorchBackend

            handles = []
            real = TorchBackend.use_stream
            monkeypatch.setattr(TorchBackend, "use_stream",
                                lambda self, h, dev: handles.append(h) or real(self, h, dev))  # fmt: skip
            with cupy.cuda.Stream(non_blocking=True) as s:
                v, (gw, gb) = xb.value_and_grad(_demo.log_loss, argnums=(0, 1))(w, b, X, y)
                assert handles == [s.ptr] and torch.cuda.current_stream().cuda_stream != s.ptr  # restored
                s.synchronize()
            monkeypatch.undo()
            assert type(gw.native) is cupy.ndarray
        else:
            v, (gw, gb) = xb.value_and_grad(_demo.log_loss, argnums=(0, 1))(w, b, X, y)
        assert gw.backend == t.backend and gw.device == X.device and v.device == X.device
        np.testing.assert_allclose(gw.numpy(), ref[1][0].numpy(), rtol=1e-10, atol=1e-13, err_msg=t.id)
        np.testing.assert_allclose(float(gb), float(ref[1][1]), rtol=1e-10, err_msg=t.id)
        np.testing.assert_allclose(float(v), float(ref[0]), rtol=1e-12, err_msg=t.id)
        _, _, losses = _demo.train_logistic(X, y, 20, 0.5, log_every=5)
        _, _, ref_losses = _demo.train_logistic(xb.asarray(X_np), xb.asarray(y_np), 20, 0.5, log_every=5)
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-10, err_msg=t.id)


def test_jax_has_no_grad_mode_so_no_grad_inside_its_gradient_raises():
    """JAX would differentiate through ``with xb.no_grad():`` (torch would not): it raises with the fix, and the
    fix (``x.detach()``, ``jax.lax.stop_gradient`` there) gives torch's answer. Runs when JAX is installed."""
    pytest.importorskip("jax")
    try:
        x = xb.asarray([1.0, 2.0], backend="jax")
    except xb.XBackendError as exc:  # JAX without x64 refuses float64 (tests/conftest.py turns it on)
        pytest.skip(str(exc))

    def f(x):
        with xb.no_grad():
            c = x * 3.0
        return xb.sum(c * x)

    with pytest.raises(xb.GradientError, match=r"x.detach\(\)"):
        xb.grad(f)(x)
    assert xb.grad(lambda x: xb.sum(x.detach() * 3.0 * x))(x).tolist() == [3.0, 6.0]
    assert xb.grad(f)(xb.asarray([1.0, 2.0], backend="torch")).tolist() == [3.0, 6.0]
    with xb.no_grad():  # outside xb.grad it is harmless on JAX (nothing is recorded)
        assert (x * 2.0).tolist() == [2.0, 4.0]
