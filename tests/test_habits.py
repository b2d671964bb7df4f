"""The first hour of a NumPy or torch user (issue 32): every habit either works or raises a typed error whose
printed fix works. Each test reproduces one item of the issue, as a newcomer types it."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")


# --- 1, 2: x.to(dev), x.to(torch), x.to("cuda"), x.to("cpu") --------------------------------------------------
def test_to_takes_a_device_positionally():
    x = xb.asarray(np.arange(3.0))
    dev = xb.preferred_device("torch")  # the README's own spelling
    y = x.to(dev)
    assert y.backend == "torch" and y.device == dev and y.tolist() == [0.0, 1.0, 2.0]
    assert x.to(torch).backend == "torch"  # the module, as asarray(backend=torch) accepts it
    assert x.to(torch.device("cpu")).backend == "numpy"  # a place alone keeps the backend
    assert x.to(xb.float32).dtype is xb.float32 and x.to(torch.float32).dtype is xb.float32  # torch's x.to(dtype)
    with pytest.raises(xb.ArgumentTypeError, match=r"Fix: .*e\.g\. x\.to\(device="):
        x.to("cpu", device="cpu")


def test_to_reads_a_device_string_as_the_device():
    x = xb.asarray([1.0, 2.0], backend="torch")
    y = x.to("cpu")
    assert y.backend == "torch" and y.device == "cpu"
    assert x.to("cpu:0" if False else "cpu").backend == "torch"
    # no CUDA here: the error is the device's (it says device=), never "unknown backend 'cuda'"
    for a in (x, xb.asarray([1.0])):
        if a.backend == "torch" and torch.cuda.is_available():
            assert a.to("cuda").device.type == "cuda"
            continue
        with pytest.raises(xb.UnknownDeviceError, match="device="):
            a.to("cuda")
    with pytest.raises(xb.UnknownBackendError, match="names a device, not a library.*e.g. device='cuda'"):
        xb.asarray([1.0], backend="cuda")


# --- 3: backend=<any name> imports nothing that is not registered ---------------------------------------------
def test_backend_names_never_import_unregistered_modules(capsys):
    assert "this" not in sys.modules  # (nothing in the suite imports it; the Zen would print)
    with pytest.raises(xb.UnknownBackendError) as info:
        xb.asarray([1], backend="this")
    assert "this" not in sys.modules and "Zen of Python" not in capsys.readouterr().out
    assert "this" not in xb.backends() and "this" not in xb.backend_names()  # no pollution of the known names
    msg = str(info.value)
    assert msg.startswith("unknown backend 'this'; known backends: ")
    listed = msg.split("known backends: ")[1].split(" (")[0].split(", ")  # (the test session registers cupy_on_numpy)
    assert {"array_api_strict", "cupy", "dask", "numpy", "torch"} <= set(listed) and listed == sorted(listed)
    with pytest.raises(xb.UnknownBackendError, match=r"Fix: pass a known name, e\.g\. backend='torch'"):
        xb.asarray([1], backend="tourch")
    assert issubclass(xb.UnknownBackendError, xb.BackendUnavailableError) and issubclass(xb.UnknownBackendError,
                                                                                         ValueError)  # fmt: skip


# --- 9: dtype habits ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_dtype_compares_with_every_libraries_spelling(backend):
    x = xb.asarray([1.0], dtype=xb.float32, backend=backend)
    for same in (np.float32, np.dtype("float32"), torch.float32, "float32", "f4", xb.float32):
        assert x.dtype == same and same == x.dtype and not (x.dtype != same), same
    for other in (np.float64, np.dtype("float64"), torch.float64, "float64", torch.int8, np.dtype("U3"), None, 3):
        assert x.dtype != other and not (x.dtype == other), other
    assert x.dtype in (torch.float16, torch.float32)  # `if t.dtype in (...)` takes the right branch
    with pytest.raises(xb.UnsupportedDTypeError, match=r"^'float33' names no dtype, so a comparison with it would "
                       r"always be False\. Fix: compare with a dtype, e\.g\. x\.dtype == xb\.float32 \(names: bool, "
                       r"int8, int16, "):
        _ = x.dtype == "float33"  # a typo is never silently False
    assert hash(xb.float32) == hash(xb.float32) and {xb.float32: 1}[xb.float32] == 1  # still a cheap dict key
    for spelling in (np.float64, torch.float64, "float64", np.dtype("float64")):
        y = x.astype(spelling)
        assert y.dtype is xb.float64 and y.backend == backend
    assert xb.zeros(2, dtype=np.int16, backend=backend).dtype is xb.int16


def test_dtype_comparison_imports_no_torch():
    code = ("import sys, numpy as np, xbackend as xb\n"
            "assert xb.float32 == np.float32 and xb.float32 == 'float32' and xb.float32 != 'int8'\n"
            "assert 'torch' not in sys.modules\n")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


# --- 10: seed habits --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch", "dask"])
def test_seed_habits_work_where_their_meaning_is_clear(backend):
    h = np.arange(6.0).reshape(1, 2, 3)
    x = xb.asarray(h, backend=backend)
    for name in ("copy", "clone"):
        y = getattr(x, name)()
        assert y.backend == backend and y.device == x.device and y.tolist() == h.tolist()
        if backend != "dask":  # a copy: writing into it leaves x alone
            y[0, 0, 0] = 9.0
            assert float(x[0, 0, 0]) == 0.0
    c = x.cpu()
    assert c.backend == backend and c.device == "cpu" and c.tolist() == h.tolist()
    np.testing.assert_array_equal(x.transpose(2, 0, 1).numpy(), h.transpose(2, 0, 1))  # NumPy's permutation
    np.testing.assert_array_equal(x.transpose((1, 2, 0)).numpy(), h.transpose(1, 2, 0))
    np.testing.assert_array_equal(x.transpose().numpy(), h.transpose())
    np.testing.assert_array_equal(x.transpose(0, 2).numpy(), h.swapaxes(0, 2))  # torch's swap (NumPy would refuse)
    m = xb.asarray(h[0], backend=backend)
    np.testing.assert_array_equal(m.transpose(1, 0).numpy(), h[0].T)  # both libraries agree
    with pytest.raises(xb.ArgumentValueError, match=r"means two things.*e\.g\. x\.swapaxes\(0, 1\)"):
        m.transpose(0, 1)  # NumPy: the identity; torch: the transpose
    r = round(xb.asarray([0.5, 1.5, 2.567], backend=backend))
    assert type(r) is xb.Array and r.tolist() == [0.0, 2.0, 3.0]
    assert round(xb.asarray([2.567], backend=backend), 2).tolist() == [2.57]


def test_habits_cost_the_operations_nothing():
    """The habits' errors are properties, never ``Array.__getattr__``: CPython stops specialising attribute loads
    (``x._data`` in every operator) on a class that has one - measured +0.1 µs per operation
    (benchmarks/overhead.py) before this guard."""
    assert "__getattr__" not in vars(xb.Array) and "__getattribute__" not in vars(xb.Array)
    assert all("__getattr__" not in vars(c) for c in xb.Array.__mro__)


def test_clone_keeps_the_autograd_graph_as_torch_does():
    w = xb.ones(3, backend="torch", requires_grad=True)
    loss = xb.sum(w.clone() * 2.0)
    loss.backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("name, code", [("float", "x.astype(xb.float32)"), ("double", "x.astype(xb.float64)"),
                                        ("long", "x.astype(xb.int64)"), ("numel", "x.size"), ("dim", "x.ndim"),
                                        ("std", "xb.std(x)"), ("flatten", "xb.reshape(x, (-1,))")])  # fmt: skip
def test_other_libraries_methods_name_the_spelling(name, code):
    x = xb.asarray([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(xb.UnknownAttributeError, match=r"Fix: .*e\.g\. " + code.replace("(", r"\(").replace(
            ")", r"\)").replace(".", r"\.")) as info:  # fmt: skip
        getattr(x, name)
    assert isinstance(info.value, AttributeError) and not hasattr(x, name)
    eval(code, {"xb": xb, "x": x})  # noqa: S307 - the printed fix runs
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        x.no_such_thing


def test_cuda_habit_names_a_library_with_cuda():
    x = xb.asarray([1.0])
    with pytest.raises(xb.UnknownDeviceError, match=r"Fix: .*e\.g\. x\.to\(backend='torch', device='cuda'\)"):
        x.cuda()
    t = xb.asarray([1.0], backend="torch")
    if torch.cuda.is_available():
        assert t.cuda().device.type == "cuda"
    else:
        with pytest.raises(xb.UnknownDeviceError, match="x.cuda()"):
            t.cuda()


def test_no_grad_decorates_without_parentheses():
    w = xb.ones(3, backend="torch", requires_grad=True)

    @xb.no_grad
    def step(p):
        return p * 2.0

    @xb.no_grad()
    def step2(p):
        return p * 2.0

    assert not step(w).requires_grad and not step2(w).requires_grad and step.__name__ == "step"
    assert (w * 2.0).requires_grad
    with pytest.raises(xb.ArgumentTypeError, match="e.g. with xb.no_grad"):
        xb.no_grad(3)


# --- 4, 8: stores: the printed fixes fix; a store that overflows raises ----------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch", "dask", "array_api_strict"])
def test_float_data_into_an_int8_array_fix_runs(backend):
    x = xb.asarray([1, 2], dtype=xb.int8, backend=backend)
    v = np.array([1.5, 2.5])
    with pytest.raises(xb.PromotionError) as info:
        x[...] = v
    exec(str(info.value).split("e.g. ", 1)[1].split(", or ")[0], {"xb": xb, "x": x, "v": v})  # noqa: S102
    assert x.tolist() == [2, 2]  # half to even, then stored


@pytest.mark.parametrize("backend", ["numpy", "torch", "dask", "array_api_strict"])
def test_a_store_beyond_float32s_range_raises_and_the_fix_runs(backend, recwarn):
    x = xb.asarray([1.0, 2.0], dtype=xb.float32, backend=backend)
    v = np.array([1e40, 1.0])
    with pytest.raises(xb.ScalarOverflowError, match="would become infinite") as info:
        x[...] = v
    assert x.tolist() == [1.0, 2.0]  # nothing written
    assert not [w for w in recwarn if "overflow" in str(w.message)]  # one message, not NumPy's warning too
    exec(str(info.value).split("e.g. ", 1)[1].split(", or ")[0], {"xb": xb, "x": x, "v": v})  # noqa: S102
    assert x.tolist() == [float(np.finfo(np.float32).max), 1.0]
    x[...] = np.array([np.inf, 1.0000000001])  # infinities stay infinities; rounding is no loss of range
    assert x.tolist() == [np.inf, 1.0]
    if backend in ("numpy", "torch"):  # float32 into float16 likewise
        y = xb.asarray([1.0], dtype=xb.float16, backend=backend)
        with pytest.raises(xb.ScalarOverflowError):
            y[...] = xb.asarray([1e5], dtype=xb.float32, backend=backend)


# --- 5: closures under xb.grad --------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_loss_reading_closure_arrays_trains_the_same_on_every_backend(backend):
    rng = np.random.default_rng(1)
    Xh, yh = rng.normal(size=(40, 3)), (rng.random(40) < 0.4).astype(float)
    X, y = xb.asarray(Xh, backend=backend), xb.asarray(yh, backend=backend)
    mask = xb.asarray(np.array([True, False, True]), backend=backend)

    def loss(w, b):  # X, y and mask are globals of the loss, as in a tutorial
        z = X @ w + b
        reg = xb.sum(xb.where(mask, w * w, 0.0))
        return xb.mean(xb.logaddexp(0.0, z) - y * z) + 0.1 * reg + 0.0 * xb.sum(X[0] * w)

    w, b = xb.zeros(3, backend=backend), xb.zeros((), backend=backend)
    value, (gw, gb) = xb.value_and_grad(loss, argnums=(0, 1))(w + 0.5, b)
    # the gradient by hand, in NumPy: X.T (sigmoid(z) - y) / n + 0.2 w on the masked entries
    wh = np.full(3, 0.5)
    z = Xh @ wh
    expect = Xh.T @ (1 / (1 + np.exp(-z)) - yh) / 40 + 0.2 * wh * np.array([1.0, 0.0, 1.0])
    assert gw.backend == backend and X.backend == backend
    np.testing.assert_allclose(gw.numpy(), expect, rtol=1e-12)
    np.testing.assert_allclose(float(gb), np.mean(1 / (1 + np.exp(-z)) - yh), rtol=1e-12)


# --- 6: warnings as errors give the IEEE result on every backend -------------------------------------------------
_IEEE = {  # the call on Arrays of backend B, and NumPy's IEEE answer (computed with its signals off)
    "log(0)": (lambda B: xb.log(xb.asarray([0.0, 1.0], backend=B)), lambda: np.log([0.0, 1.0])),
    "1/0": (lambda B: xb.asarray([1.0, -1.0, 0.0], backend=B) / 0.0, lambda: np.array([1.0, -1.0, 0.0]) / 0.0),
    "exp(1000)": (lambda B: xb.exp(xb.asarray([1000.0], backend=B)), lambda: np.exp([1000.0])),
    "inf - inf": (lambda B: xb.asarray([np.inf], backend=B) - xb.asarray([np.inf], backend=B),
                  lambda: np.array([np.inf]) - np.inf),
    "sqrt(-1)": (lambda B: xb.sqrt(xb.asarray([-1.0], backend=B)), lambda: np.sqrt([-1.0])),
    "x /= 0": (lambda B: (lambda x: (x.__itruediv__(0.0), x)[1])(xb.asarray([1.0, 0.0], backend=B)),
               lambda: np.array([1.0, 0.0]) / 0.0),
    "x **= 400": (lambda B: (lambda x: (x.__ipow__(400.0), x)[1])(xb.asarray([10.0], backend=B)),
                  lambda: np.array([10.0]) ** 400.0),
    "sum overflow": (lambda B: xb.sum(xb.asarray([3e38, 3e38], dtype=xb.float32, backend=B)),
                     lambda: np.float32(3e38) + np.float32(3e38)),
    "mean overflow": (lambda B: xb.mean(xb.asarray([1e308, 1e308], backend=B)), lambda: np.inf),
    "astype overflow": (lambda B: xb.asarray([1e300], backend=B).astype(xb.float32), lambda: np.float32(np.inf)),
    "matmul overflow": (lambda B: xb.asarray([[1e200]], backend=B) @ xb.asarray([[1e200]], backend=B),
                        lambda: np.array([[np.inf]])),
    "float(log(0))": (lambda B: float(xb.log(xb.asarray(0.0, backend=B))), lambda: -np.inf),
}


@pytest.mark.parametrize("mode", ["np.seterr(all='raise')", "pytest -W error"])
def test_warnings_as_errors_give_the_ieee_result_on_every_backend(xb_target, mode):
    import warnings

    if xb_target.device != "cpu":
        pytest.skip("CPU targets")
    with np.errstate(all="ignore"):
        expected = {k: np.asarray(ref()) for k, (_, ref) in _IEEE.items()}
    with warnings.catch_warnings(), np.errstate(all="raise" if mode.startswith("np") else "warn"):
        if mode == "pytest -W error":
            warnings.simplefilter("error")
        for name, (call, _) in _IEEE.items():
            r = call(xb_target.backend)
            got = np.asarray(r.numpy() if isinstance(r, xb.Array) else r)
            np.testing.assert_array_equal(got, expected[name].astype(got.dtype), err_msg=name)
        # the user's own settings still apply to their own NumPy calls
        with pytest.raises((FloatingPointError, RuntimeWarning)):
            np.log(np.zeros(1))


# --- 7: x.numpy() follows one rule ----------------------------------------------------------------------------------
def test_numpy_gives_the_same_values_on_every_backend_after_an_in_place_update(xb_target):
    x = xb_target.asarray(np.array([1.0, 2.0]))
    h = x.numpy()
    x[0] = 5.0
    x += 1.0
    assert h.tolist() == [1.0, 2.0] and h.flags.writeable  # a snapshot everywhere: NumPy, torch, Dask, GPUs
    h[1] = 7.0
    assert x.tolist() == [6.0, 3.0]  # and writing into it leaves x alone
    h2 = xb.to_numpy(x)  # the function follows the same rule
    x[1] = 0.0
    assert h2.tolist() == [6.0, 3.0]


# --- 11: xb.random speaks NumPy -------------------------------------------------------------------------------------
@pytest.mark.parametrize("stream", ["portable", "native"])
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_random_takes_numpys_size(backend, stream):
    rng = xb.random.default_rng(0, backend=backend, stream=stream)
    assert rng.normal(size=3).shape == (3,) and rng.random(size=(2, 2)).shape == (2, 2)
    assert rng.integers(0, 5, size=4).shape == (4,) and rng.standard_normal(size=2).shape == (2,)
    assert rng.uniform(size=2).shape == (2,) and rng.exponential(size=2).shape == (2,)
    assert rng.choice(5, size=2).shape == (2,) and rng.bernoulli(0.5, size=3).shape == (3,)
    with pytest.raises(xb.ArgumentTypeError, match="size= is NumPy's name for shape="):
        rng.random(3, size=4)
    if stream == "portable":  # the same numbers as with shape=, and as NumPy's Philox
        a = xb.random.default_rng(7, backend=backend).random(size=5).tolist()
        assert a == np.random.Generator(np.random.Philox(7)).random(5).tolist()


@pytest.mark.parametrize("seed, cls, fix", [(-1, xb.ArgumentValueError, "abs(seed)"),
                                            (1.5, xb.ArgumentTypeError, "int(seed)"),
                                            ("abc", xb.ArgumentTypeError, "42"),
                                            (xb.asarray(3), xb.ArgumentTypeError, "int(seed)")])  # fmt: skip
def test_bad_seeds_get_typed_errors_whose_fix_runs(seed, cls, fix):
    with pytest.raises(cls, match="Fix:") as info:
        xb.random.default_rng(seed)
    msg = str(info.value)
    assert "SeedSequence" not in msg and f"default_rng({fix})" in msg
    code = msg.split("e.g. ", 1)[1].split(" (or")[0]
    rng = eval(code, {"xb": xb, "seed": seed})  # noqa: S307 - the printed fix
    assert rng.random(2).shape == (2,)


# --- 13: configuration ----------------------------------------------------------------------------------------------
def test_environment_dtypes_as_python_spells_them_and_a_typo_flagged_by_info(monkeypatch, capsys):
    import warnings

    from xbackend import _config
    from xbackend.__main__ import info

    monkeypatch.setattr(_config, "_FROM_ENV", {})
    monkeypatch.setenv("XBACKEND_DEFAULT_FLOAT", "xb.float32")
    monkeypatch.setenv("XBACKEND_DEFAULT_INT", "np.int32")
    monkeypatch.setenv("XBACKEND_BACKEND", "tourch")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is ignored with a warning
        cfg = _config._from_environment()  # what `import xbackend` reads
    assert cfg.default_float is xb.float32 and cfg.default_int is xb.int32 and cfg.backend == "tourch"
    monkeypatch.setattr(_config, "_base", cfg)
    assert info() == 0
    flag = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("!")]
    assert len(flag) == 1 and "XBACKEND_BACKEND='tourch'" in flag[0], flag
    assert "Fix: e.g. XBACKEND_BACKEND=torch" in flag[0]
    monkeypatch.setenv("XBACKEND_BACKEND", "torch")
    monkeypatch.setenv("XBACKEND_DEFAULT_FLOAT", "float33")
    with pytest.warns(RuntimeWarning) as rec:
        monkeypatch.setattr(_config, "_base", _config._from_environment())
    msg = str(rec[0].message)
    assert "Fix: e.g. XBACKEND_DEFAULT_FLOAT=float32" in msg and "xb.float32" not in msg, msg
    assert _config.environment_problems() == []


# --- 14: a quick tier next to the full run ------------------------------------------------------------------------
def test_the_quick_tier_is_data_that_names_real_tests_and_the_readme_offers_it():
    import re
    from pathlib import Path

    import tiers

    root = Path(__file__).resolve().parent.parent
    for f in tiers.FULL_FILES:
        assert (root / f).is_file(), f
    for node in tiers.FULL_TESTS:
        path, _, name = node.partition("::")
        assert re.search(rf"^def {name}\(", (root / path).read_text(), re.M), node
    assert tiers.is_full("tests/test_parity.py::test_x[numpy-cpu]", "numpy", "cpu")
    assert tiers.is_full("tests/test_array.py::test_x[dask-cpu]", "dask", "cpu")
    assert not tiers.is_full("tests/test_array.py::test_x[torch-cpu]", "torch", "cpu")
    readme = (root / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert setup.count("```bash") == 2  # exactly two set-up commands: the demo, and the tests
    assert "python -m pytest --quick" in setup and "full" in setup


def test_quick_option_deselects_the_full_tests():
    """The suite's hook (tests/conftest.py) on items as pytest collects them: ``--quick`` keeps the core's tests on
    NumPy and torch-CPU and deselects the rest, which carries the ``full`` mark either way."""
    import types

    import conftest

    def item(nodeid, backend=None):
        target = None if backend is None else types.SimpleNamespace(backend=backend, device=xb.Device("cpu"))
        spec = types.SimpleNamespace(params={"xb_target": target})
        it = types.SimpleNamespace(nodeid=nodeid, marks=[], callspec=spec)
        it.add_marker = it.marks.append
        return it

    for quick in (True, False):
        deselected = []
        hook = types.SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items))
        config = types.SimpleNamespace(getoption=lambda name: quick, hook=hook)
        items = [item("tests/test_array.py::test_a[numpy-cpu]", "numpy"),
                 item("tests/test_array.py::test_a[dask-cpu]", "dask"),
                 item("tests/test_parity.py::test_p"), item("tests/test_dtypes.py::test_d")]
        every = list(items)
        conftest.pytest_collection_modifyitems(None, config, items)
        full = [it.nodeid for it in every if any(m.name == "full" for m in it.marks)]
        assert full == ["tests/test_array.py::test_a[dask-cpu]", "tests/test_parity.py::test_p"]
        kept = [it.nodeid for it in items]
        if quick:
            assert kept == ["tests/test_array.py::test_a[numpy-cpu]", "tests/test_dtypes.py::test_d"]
            assert [it.nodeid for it in deselected] == full
        else:
            assert len(kept) == 4 and not deselected
