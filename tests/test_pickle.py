"""Arrays behave as ordinary Python objects: pickle, copy, formatting, processes (issue 14).

Everything runs on every target (the plugin's ``xb_target``; CUDA targets carry the ``gpu`` marker).
The device-index logic of GPU pickles is tested without a GPU through a fake backend whose devices
are ``cuda:0``/``cuda:1`` and which has no CPU arrays (as CuPy).
"""

from __future__ import annotations

import copy
import io
import multiprocessing
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dispatch
from xbackend._backends.numpy.backend import NumpyBackend
from xbackend._devices import device as _device
from xbackend.testing import assert_close, available_targets

CPU_TARGETS = [t for t in available_targets() if not t.is_gpu]
TORCH_TARGETS = [pytest.param(t, id=t.id, marks=[pytest.mark.gpu] if t.is_gpu else [])
                 for t in available_targets() if t.backend == "torch"]  # fmt: skip


def _same_array(y, x):
    """``y`` is a faithful copy of ``x``: type, backend, device (the identical object), dtype, values."""
    assert type(y) is xb.Array and y.backend == x.backend and y.device is x.device and y.dtype is x.dtype
    assert y.shape == x.shape
    assert_close(y, x, rtol=0, atol=0, check_sign_of_zero=True)


def _samples(t):
    """Arrays of many dtypes and layouts on target ``t``."""
    base = np.array([[1.5, -0.0, np.inf], [np.nan, -2.25, 3.0]])
    cplx = base.astype(np.complex128)
    cplx.imag = base[::-1]
    out = {
        "float64": t.asarray(base),
        "float32": t.asarray(base, dtype=xb.float32),
        "complex128": t.asarray(cplx),
        "int8": t.asarray([[-128, 0, 127]], dtype=xb.int8),
        "uint64": t.asarray(np.array([0, 2**63 + 5, 2**64 - 1], dtype=np.uint64)),
        "bool": t.asarray([True, False, True]),
        "0-d": t.asarray(2.5),
        "empty": t.asarray(np.zeros((0, 3))),
        "view": t.asarray(np.arange(12.0).reshape(3, 4))[:, 1::2],
    }
    try:
        out["bfloat16"] = t.asarray([1.0, -2.5, 3.0], dtype=xb.bfloat16)
    except xb.UnsupportedDTypeError:
        pass  # NumPy without ml_dtypes
    return out


# -- pickle -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("protocol", [2, pickle.DEFAULT_PROTOCOL, pickle.HIGHEST_PROTOCOL])
def test_pickle_round_trip(xb_target, protocol):
    for what, x in _samples(xb_target).items():
        y = pickle.loads(pickle.dumps(x, protocol=protocol))
        _same_array(y, x)
        if x.size:
            assert not xb.shares_memory(x, y), what


def test_pickle_holds_the_native_array_and_a_name_only(xb_target):
    x = xb_target.asarray(np.arange(1000.0))
    _ = (x**2 + xb.exp(x / 1000) - x // 3).tolist()  # fill the backend's kernel tables (local closures)
    blob = pickle.dumps(x)
    for part in (b"Backend", b"kernels", b"_backends", b"<locals>"):
        assert part not in blob, part
    assert xb_target.backend.encode() in blob
    # the payload is the native array pickled by its own library: hardly bigger than the native's pickle
    native = x.native
    if xb_target.is_gpu:  # GPU data travels as the library's own CPU array (torch), else as NumPy (CuPy)
        try:
            native = x.to_device("cpu").native
        except xb.UnknownDeviceError:
            native = x.numpy()
    assert len(blob) < len(pickle.dumps(native)) + 400


def test_backend_objects_pickle_by_name():
    be = xb.asarray([1.0])._be
    _ = xb.asarray([1.0]) ** 2  # kernels now hold local closures
    assert pickle.loads(pickle.dumps(be)) is be


@pytest.mark.parametrize("t", TORCH_TARGETS)
def test_pickle_keeps_requires_grad_and_refuses_graphs(t):
    torch = pytest.importorskip("torch")
    leaf = xb.asarray(torch.tensor([1.0, 2.0], dtype=torch.float64, device=t.device, requires_grad=True))
    y = pickle.loads(pickle.dumps(leaf))
    assert y.requires_grad and y.native.is_leaf and y.device is leaf.device
    (y * y).native.sum().backward()
    assert y.native.grad.tolist() == [2.0, 4.0]
    with pytest.raises(xb.GradientError, match="Fix: pickle x.detach"):
        pickle.dumps(leaf * 2)
    assert not pickle.loads(pickle.dumps((leaf * 2).detach())).requires_grad


@pytest.mark.parametrize("t", TORCH_TARGETS)
def test_torch_save_and_load(t, tmp_path):
    torch = pytest.importorskip("torch")
    x = xb.asarray(np.arange(6.0).reshape(2, 3), backend="torch", device=t.device)
    g = xb.asarray(torch.ones(3, device=t.device, requires_grad=True))
    path = tmp_path / "arrays.pt"
    torch.save({"x": x, "g": g, "dt": xb.float32, "dev": x.device}, path)
    # torch >= 2.6 loads weights only by default, which allows no foreign classes: Arrays need weights_only=False
    back = torch.load(path, weights_only=False)
    _same_array(back["x"], x)
    _same_array(back["g"], g)
    assert back["g"].requires_grad and back["dt"] is xb.float32 and back["dev"] is x.device


# -- GPU pickles: the device index is kept, or the load fails with the fix ---------------------------------------
class FakeCuda(NumpyBackend):
    """NumPy memory pretending to live on cuda:0/cuda:1, with no CPU arrays of its own (like CuPy)."""

    name = "fakecuda"
    module = "xbackend_fakecuda_module"
    present = ("cuda:0", "cuda:1")

    def default_device(self):
        return _device("cuda:0")

    def devices(self):
        return [_device(d) for d in self.present]

    def check_device(self, dev):
        if str(dev) not in self.present:
            raise xb.UnknownDeviceError(f"fakecuda has {', '.join(self.present)}, not {dev}")
        return dev

    def to_device(self, x, dev):
        self.check_device(dev)
        return x.copy()

    def wrap_native(self, x, dt, dev, copy):
        return super().wrap_native(x, dt, None, copy)


@pytest.fixture
def fakecuda():
    xb.register_backend("fakecuda", FakeCuda, modules=("xbackend_fakecuda_module",))
    try:
        yield
    finally:
        _dispatch._classes.pop("fakecuda", None)
        _dispatch._instances.pop("fakecuda", None)
        _dispatch._by_module.pop("xbackend_fakecuda_module", None)
        _dispatch._by_type.clear()


def test_gpu_pickle_lands_on_the_same_index(fakecuda, monkeypatch):
    x = xb.asarray([1.0, 2.0, 3.0], backend="fakecuda", device="cuda:1")
    blob = pickle.dumps(x)
    assert b"fakecuda" in blob and b"cuda:1" in blob
    y = pickle.loads(blob)
    _same_array(y, x)
    assert y.device is xb.Device("fakecuda", "cuda:1")  # not the default cuda:0
    monkeypatch.setattr(FakeCuda, "present", ("cuda:0",))  # a machine with one GPU
    with pytest.raises(xb.UnknownDeviceError, match=r"cuda:1.*Fix: unpickle it on a machine where cuda:1 exists"):
        pickle.loads(blob)
    with pytest.raises(ValueError):  # UnknownDeviceError is a ValueError
        pickle.loads(blob)


def test_torch_cuda_pickle_without_that_device_raises_the_typed_error():
    torch = pytest.importorskip("torch")
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    x = xb.asarray([1.0, 2.0], backend="torch")
    fn, args = x.__reduce__()

    class Forged:  # what a pickle made on a machine with more GPUs carries
        def __reduce__(self):
            return fn, (args[0], args[1], args[2], f"cuda:{n + 3}", False)

    with pytest.raises(xb.UnknownDeviceError, match=rf"cuda:{n + 3}.*Fix: "):
        pickle.loads(pickle.dumps(Forged()))


# -- copy ---------------------------------------------------------------------------------------------------
def test_copy_shares_and_deepcopy_does_not(xb_target):
    x = xb_target.asarray([1.0, 2.0, 3.0])
    c = copy.copy(x)
    assert c is not x and xb.shares_memory(c, x) and c.device is x.device and c.dtype is x.dtype
    d = copy.deepcopy(x)
    _same_array(d, x)
    assert not xb.shares_memory(d, x)
    x[0] = 10.0
    assert c[0].item() == 10.0 and d[0].item() == 1.0
    both = copy.deepcopy([x, x, {"k": x}])  # the memo keeps shared references shared
    assert both[0] is both[1] is both[2]["k"] and not xb.shares_memory(both[0], x)


@pytest.mark.parametrize("t", TORCH_TARGETS)
def test_deepcopy_keeps_requires_grad(t):
    torch = pytest.importorskip("torch")
    leaf = xb.asarray(torch.tensor([1.0, 2.0], device=t.device, requires_grad=True))
    d = copy.deepcopy(leaf)
    assert d.requires_grad and d.native.is_leaf and not xb.shares_memory(d, leaf) and d.device is leaf.device
    assert not copy.deepcopy(leaf.detach()).requires_grad
    with pytest.raises(xb.GradientError, match="Fix"):
        copy.deepcopy(leaf * 2)
    assert copy.copy(leaf * 2).requires_grad  # a shallow copy is a view: the graph stays attached


# -- formatting ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, dtype, specs", [
    (2.0 / 3.0, xb.float64, [".4f", "e", ".3g", "10.2f", "", "+.1%"]),
    (2.0 / 3.0, xb.float32, [".4f", "e", ""]),
    (-42, xb.int32, ["d", "5d", "x", ".2f", ""]),
    (True, xb.bool, ["", "d"]),
    (1.5 - 2j, xb.complex128, [".2f", ""]),
])  # fmt: skip
def test_0d_arrays_format_like_numbers(xb_target, value, dtype, specs):
    x = xb_target.asarray(value, dtype=dtype)
    number = x.item()  # the element as a Python number (float32 rounding included)
    for spec in specs:
        assert format(x, spec) == format(number, spec), spec
        assert f"{x:{spec}}" == format(number, spec)
    if dtype.kind == "f":
        assert "%.3f" % x == "%.3f" % number and "%e" % x == "%e" % number
    if dtype.kind in "iu":
        assert "%d" % x == "%d" % number
    assert str(x) == repr(x) and str(x).startswith("Array(")  # str/repr unchanged


def test_larger_arrays_refuse_format_specs_like_numpy(xb_target):
    x = xb_target.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="unsupported format string") as ours:
        f"{x:.2f}"
    with pytest.raises(TypeError) as numpys:
        f"{np.array([1.0, 2.0]):.2f}"
    assert isinstance(ours.value, type(numpys.value)) and "Fix" in str(ours.value)
    y = xb_target.asarray([[1]])  # one Array: a lazy (Dask) Array's text names its graph, new for each asarray
    assert f"{x}" == str(x) and format(y, "") == str(y)


# -- Device and DType objects ----------------------------------------------------------------------------------
def _identity_objects():
    objs = [xb.Device("cpu"), xb.Device("cuda:1"), xb.Device("numpy", "cpu"), getattr(xb, "float64")]
    objs += [xb.dtype(n) for n in ("bool", "int8", "uint64", "float32", "complex64", "bfloat16")]
    if xb.backends()["torch"].installed:
        objs += [xb.Device("torch", "cpu"), xb.Device("torch", "cuda:3"), xb.Device("torch", "meta")]
    return objs


def test_devices_and_dtypes_unpickle_to_the_same_object():
    objs = _identity_objects()
    for o in objs:
        for protocol in (0, 2, pickle.HIGHEST_PROTOCOL):
            assert pickle.loads(pickle.dumps(o, protocol=protocol)) is o, (o, protocol)
        assert copy.copy(o) is o and copy.deepcopy(o) is o
    # in a fresh process: the unpickled objects are that process's singletons
    code = ("import pickle, sys, xbackend as xb; objs = pickle.loads(bytes.fromhex(sys.stdin.read())); "
            "fresh = [xb.Device(o.backend, str(o)) if isinstance(o, xb.Device) and o.backend else "
            "xb.Device(str(o)) if isinstance(o, xb.Device) else xb.dtype(o.name) for o in objs]; "
            "print(all(a is b for a, b in zip(objs, fresh)), len(objs))")  # fmt: skip
    r = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(objs).hex(), capture_output=True, text=True,
                       timeout=120, env=os.environ)  # fmt: skip
    assert r.returncode == 0 and r.stdout.split() == ["True", str(len(objs))], r.stderr


# -- estimators and processes --------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # sklearn's 0/0, test_consumers.py
def test_fitted_estimators_pickle_and_joblib_dump(xb_target, tmp_path):
    sklearn = pytest.importorskip("sklearn")
    joblib = pytest.importorskip("joblib")
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X_np = rng.normal(size=(40, 4))
    X, y = xb_target.asarray(X_np), xb_target.asarray(X_np @ np.arange(1.0, 5.0))
    labels = xb_target.asarray((X_np[:, 0] > 0).astype(np.int64))
    with sklearn.config_context(array_api_dispatch=True):
        models = {
            "pca": (PCA(n_components=2).fit(X), "transform"),
            "lda": (LinearDiscriminantAnalysis().fit(X, labels), "predict_proba"),
            "ridge": (make_pipeline(StandardScaler(), Ridge(solver="svd")).fit(X, y), "predict"),
        }
        for name, (model, method) in models.items():
            before = getattr(model, method)(X)
            path = tmp_path / f"{name}.joblib"
            joblib.dump(model, path)
            for loaded in (pickle.loads(pickle.dumps(model)), joblib.load(path)):
                after = getattr(loaded, method)(X)
                _same_array(after, before)


def _cpu_arrays():
    return [t.asarray(np.arange(5.0) + i) for i, t in enumerate(CPU_TARGETS)]


def _check_mapped(results, arrays):
    assert len(results) == len(arrays)
    for r, a in zip(results, arrays):
        _same_array(r, xb.sum(a))


def test_multiprocessing_spawn_pool_map():
    arrays = _cpu_arrays()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        # map_async + a timeout: a task a worker cannot unpickle kills the worker and Pool.map waits forever
        results = pool.map_async(xb.sum, arrays).get(timeout=120)
        echoed = pool.map_async(copy.copy, arrays).get(timeout=120)  # Arrays cross the process boundary both ways
    _check_mapped(results, arrays)
    for e, a in zip(echoed, arrays):
        _same_array(e, a)


def test_joblib_parallel_loky():
    joblib = pytest.importorskip("joblib")
    arrays = _cpu_arrays()
    results = joblib.Parallel(n_jobs=2, backend="loky")(joblib.delayed(xb.sum)(a) for a in arrays)
    _check_mapped(results, arrays)


@pytest.mark.gpu
def test_multiprocessing_spawn_with_gpu_arrays():
    gpu = [t for t in available_targets() if t.is_gpu]
    arrays = [t.asarray(np.arange(5.0) + i) for i, t in enumerate(gpu)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(xb.sum, arrays)
    _check_mapped(results, arrays)
