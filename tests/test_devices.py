"""Device value objects, and the rule that devices and backends never mix silently.

The mixing rules are tested without a GPU: torch's ``cpu`` vs ``meta`` devices, and a fake backend
with two fake devices (array-api-strict's trick).
"""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dispatch
from xbackend._backend import BackendInfo
from xbackend._backends.numpy.backend import NumpyBackend
from xbackend._devices import device as _device


# -- Device objects ---------------------------------------------------------------------------------
def test_parsing_and_interning():
    d = xb.Device("cuda:1")
    assert (d.type, d.index, str(d), repr(d)) == ("cuda", 1, "cuda:1", "Device('cuda:1')")
    assert xb.device("cuda:1") is d is xb.Device("cuda", 1) is xb.Device(d)
    assert xb.device(" CUDA:1 ") is d
    assert xb.device("cpu") is xb.Device() and xb.device("cpu").index is None
    assert d.is_gpu and not xb.device("cpu").is_gpu and not xb.device("meta").is_gpu
    assert d == "cuda:1" and d != "cuda:0" and d != "nonsense" and d != 3
    assert {d: 1}[xb.device("cuda:1")] == 1
    assert pickle.loads(pickle.dumps(d)) is d


def test_device_is_immutable():
    with pytest.raises(AttributeError):
        xb.device("cpu").type = "cuda"


@pytest.mark.parametrize("bad", ["tpu", "cuda:x", "cuda:-1", "", 3.5, None])
def test_unknown_devices(bad):
    with pytest.raises(xb.UnknownDeviceError):
        xb.device(bad)
    with pytest.raises(ValueError):  # UnknownDeviceError is a ValueError
        xb.device(bad)


def test_foreign_device_objects():
    torch = pytest.importorskip("torch")
    assert xb.device(torch.device("cpu")) is xb.device("cpu")
    assert xb.device(torch.device("cuda", 2)) is xb.device("cuda:2")
    assert xb.device(torch.device("meta")) is xb.device("meta")

    class CupyLike:
        id = 3

    assert xb.device(CupyLike()) is xb.device("cuda:3")


def test_devices_listing():
    assert xb.devices("numpy") == [xb.Device("numpy", "cpu")]
    with xb.using(backend="numpy"):
        assert xb.devices() == [xb.Device("numpy", "cpu")]
    pytest.importorskip("torch")
    assert xb.Device("torch", "cpu") in xb.devices("torch") and xb.Device("numpy", "cpu") not in xb.devices("torch")


def test_backend_device_checks(xb_target):
    x = xb.zeros(2, backend=xb_target.backend, device=xb_target.device)
    assert x.device is xb.Device(xb_target.backend, xb_target.device)
    assert x.device.physical is xb.device(xb_target.device)
    with pytest.raises(xb.UnknownDeviceError, match="Fix|available"):
        xb.zeros(2, backend=xb_target.backend, device="fake:0")


def test_numpy_has_only_the_cpu():
    with pytest.raises(xb.UnknownDeviceError, match="Fix"):
        xb.zeros(2, backend="numpy", device="cuda:0")
    with pytest.raises(xb.UnknownDeviceError):
        xb.asarray([1.0], device="meta")


def test_torch_without_cuda_says_why():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(xb.UnknownDeviceError, match="cpu"):
        xb.zeros(2, backend="torch", device="cuda")


# -- mixing devices: torch cpu vs meta ----------------------------------------------------------------
@pytest.fixture
def cpu_meta():
    pytest.importorskip("torch")
    return (xb.asarray(np.arange(3.0), backend="torch", device="cpu"),
            xb.zeros(3, backend="torch", device="meta"))  # fmt: skip


def _mixes(a, b):
    return [
        ("a + b", lambda: a + b), ("b * a", lambda: b * a), ("xb.atan2(a, b)", lambda: xb.atan2(a, b)),
        ("a == b", lambda: a == b), ("a @ b", lambda: a @ b), ("a[b > 0]", lambda: a[b > 0]),
        ("xb.clip(a, b, None)", lambda: xb.clip(a, b, None)), ("a + b.native", lambda: a + b.native),
        ("xb.meshgrid(a, b)", lambda: xb.meshgrid(a, b)),
    ]  # fmt: skip


def test_device_mismatch_raises_naming_both(cpu_meta):
    a, b = cpu_meta
    for what, call in _mixes(a, b):
        with pytest.raises(xb.DeviceMismatchError) as info:
            call()
        msg = str(info.value)
        # a meta tensor has no data: the fix cannot be a move (to_device on meta raises), so it says so
        assert "cpu" in msg and "meta" in msg and "Fix" in msg and "cannot be moved" in msg, (what, msg)
    with pytest.raises(ValueError):  # DeviceMismatchError is a ValueError
        a - b


def test_device_mismatch_in_place_and_setitem(cpu_meta):
    a, b = cpu_meta
    with pytest.raises(xb.DeviceMismatchError):
        a += b
    with pytest.raises(xb.DeviceMismatchError):
        a[:] = b
    with pytest.raises(xb.DeviceMismatchError):
        a[xb.zeros((), dtype=xb.int64, backend="torch", device="meta")]
    assert a.tolist() == [0.0, 1.0, 2.0]  # nothing was written


def test_same_device_works_on_meta(cpu_meta):
    _, b = cpu_meta
    r = xb.exp(b) + b * 2
    assert r.device == "meta" and r.shape == (3,) and r.dtype is xb.float64


# -- mixing backends --------------------------------------------------------------------------------------
def test_backend_mismatch_raises_naming_both():
    pytest.importorskip("torch")
    a = xb.asarray([1.0, 2.0], backend="numpy")
    t = xb.asarray([1.0, 2.0], backend="torch")
    calls = [(lambda y: a + y, t), (lambda y: t - y, a), (lambda y: xb.maximum(a, y), t), (lambda y: a + y, t.native),
             (lambda y: t + y, a.native), (lambda y: a.__setitem__(0, y), t[0])]  # fmt: skip
    for call, y in calls:
        with pytest.raises(xb.BackendMismatchError) as info:
            call(y)
        msg = str(info.value)
        assert "numpy" in msg and "torch" in msg and "xb.asarray(y, backend=" in msg
        ns = {"xb": xb, "y": y}
        exec(msg.split("e.g. ")[-1], ns)  # noqa: S102 - the printed fix runs, for an Array and a native array alike
        call(ns["y"])
    with pytest.raises(TypeError):  # BackendMismatchError is a TypeError
        a * t


# -- a fake backend with two devices ---------------------------------------------------------------------------
class FakeBackend(NumpyBackend):
    """NumPy data that pretends to live on ``fake:0`` / ``fake:1`` (the Array carries the device)."""

    name = "fakedev"
    module = "xbackend_fake_module"

    @classmethod
    def probe(cls) -> BackendInfo:
        return BackendInfo("fakedev", installed=True, usable=True, version="0", devices=("fake:0", "fake:1"))

    def default_device(self):
        return _device("fake:0")

    def devices(self):
        return [_device("fake:0"), _device("fake:1")]

    def device_of(self, x):
        return _device("fake:0")

    def check_device(self, dev):
        if dev.type != "fake":
            raise xb.UnknownDeviceError(f"fakedev has devices fake:0 and fake:1, not {dev}")
        return dev

    def to_device(self, x, dev):
        self.check_device(dev)
        return x.copy()


@pytest.fixture
def fake():
    xb.register_backend("fakedev", FakeBackend, modules=("xbackend_fake_module",))
    try:
        yield
    finally:
        _dispatch._classes.pop("fakedev", None)
        _dispatch._instances.pop("fakedev", None)
        _dispatch._by_module.pop("xbackend_fake_module", None)
        _dispatch._by_type.clear()


def test_fake_devices(fake):
    a = xb.ones(3, backend="fakedev", device="fake:0")
    b = xb.ones(3, backend="fakedev", device="fake:1")
    assert a.device == "fake:0" and b.device == "fake:1" and a.backend == "fakedev"
    assert (a + a).device == "fake:0" and (b * 2).device == "fake:1"
    with pytest.raises(xb.DeviceMismatchError, match="fake:0.*fake:1|fake:1.*fake:0"):
        a + b
    with pytest.raises(xb.DeviceMismatchError):
        xb.clip(a, b, None)
    c = b.to_device("fake:0")
    assert c.device == "fake:0"
    assert (a + c).tolist() == [2.0, 2.0, 2.0]
    with xb.using(backend="fakedev", device="fake:1"):
        assert xb.zeros(2).device == "fake:1"
    with pytest.raises(xb.UnknownDeviceError):
        xb.zeros(2, backend="fakedev", device="cpu")
    with pytest.raises(xb.BackendMismatchError):
        a + xb.ones(3)  # numpy backend on the cpu


def test_meta_arrays_refuse_to_give_values():
    import pytest

    import xbackend as xb

    if not xb.backends()["torch"].usable:
        pytest.skip("needs torch")
    m = xb.ones((2,), backend="torch", device="meta")
    assert m.shape == (2,) and (m + 1).device is xb.Device("torch", "meta")
    for read in (m.tolist, lambda: m[0].item(), lambda: bool(m[0]), lambda: float(m[0]), lambda: int(m[0])):
        with pytest.raises(xb.HostTransferError, match="meta"):
            read()


# -- devices name their backend (issue 9) ----------------------------------------------------------------
def test_bound_device_objects():
    pytest.importorskip("torch")
    t = xb.asarray([1.0], backend="torch").device
    n = xb.asarray([1.0], backend="numpy").device
    assert repr(t) == "Device('torch', 'cpu')" and str(t) == "cpu" and (t.type, t.index) == ("cpu", None)
    assert t.backend == "torch" and t.physical is xb.Device("cpu") and xb.Device("cpu").backend is None
    assert t is xb.Device("torch", "cpu") is xb.Device("cpu", backend="torch") is xb.Device(t)
    assert eval(repr(t), {"Device": xb.Device}) is t
    g = xb.Device("torch", "cuda:1")
    assert (g.type, g.index, str(g), g.backend, g.is_gpu) == ("cuda", 1, "cuda:1", "torch", True)
    assert g is xb.Device("torch", xb.Device("cuda", 1))
    # equality is identity: the same place and the same backend; a string compares with the place alone
    assert t != n and not (t == n) and n != t and t != xb.Device("cpu") and xb.Device("cpu") != n
    assert t == "cpu" and n == "cpu" and t != "meta" and t.physical == xb.Device("cpu")
    assert t != xb.Device("torch", "meta") and t != xb.Device("numpy", "cpu")
    assert len({t, n, t, xb.Device("cpu")}) == 3 and {t: 1}[xb.Device("torch", "cpu")] == 1
    assert pickle.loads(pickle.dumps(t)) is t and pickle.loads(pickle.dumps(g)) is g
    with pytest.raises(AttributeError):
        t.backend = "numpy"


def test_bound_device_errors():
    with pytest.raises(xb.BackendUnavailableError, match="tourch"):
        xb.Device("tourch", "cpu")
    pytest.importorskip("torch")
    t = xb.Device("torch", "cpu")
    with pytest.raises(xb.BackendMismatchError, match="Fix"):
        xb.Device(t, backend="numpy")


def _other_backend(name: str) -> str:
    """A usable backend other than ``name`` (so a wrong default would show)."""
    for other in ("numpy", "torch"):
        if other != name and xb.backends()[other].usable:
            return other
    pytest.skip("needs a second backend")


def _lands_next_to(x, other):
    """Every function that takes device=, called with device=x.device (``other``: an Array elsewhere)."""
    d = x.device
    return {
        "asarray(list)": lambda: xb.asarray([1.0, 2.0], device=d),
        "asarray(numpy)": lambda: xb.asarray(np.ones(2), device=d),
        "asarray(other Array)": lambda: xb.asarray(other, device=d),
        "asarray(other native)": lambda: xb.asarray(other.native, device=d),
        "arange": lambda: xb.arange(3, device=d),
        "empty": lambda: xb.empty(2, device=d),
        "zeros": lambda: xb.zeros(2, device=d),
        "ones": lambda: xb.ones((1, 2), device=d),
        "full": lambda: xb.full(2, 3.0, device=d),
        "linspace": lambda: xb.linspace(0, 1, 3, device=d),
        "eye": lambda: xb.eye(2, device=d),
        "empty_like": lambda: xb.empty_like(other, device=d),
        "zeros_like": lambda: xb.zeros_like(other, device=d),
        "ones_like": lambda: xb.ones_like(other, device=d),
        "full_like": lambda: xb.full_like(other, 2.0, device=d),
        "from_dlpack": lambda: xb.from_dlpack(np.ones(2), device=d),
        "to(device=)": lambda: other.to(device=d),
        "to_device": lambda: other.to_device(d),
        "astype(device=)": lambda: xb.astype(other, xb.float32, device=d),
        "moved": lambda: xb.moved(other, device=d).array,
        "host_to_device": lambda: xb.host_to_device(np.ones(2), device=d),
        "fft.fftfreq": lambda: xb.fft.fftfreq(4, device=d),
        "fft.rfftfreq": lambda: xb.fft.rfftfreq(4, device=d),
    }  # fmt: skip


def test_device_of_an_array_lands_next_to_it(xb_target):
    other_name = _other_backend(xb_target.backend)
    x = xb_target.asarray([1.0, 2.0])
    other = xb.asarray([1.0, 2.0], backend=other_name)
    with xb.using(backend=other_name):  # the configured default is elsewhere: only device= can say where
        for what, call in _lands_next_to(x, other).items():
            r = call()
            assert r.backend == x.backend and r.device is x.device, (what, r.backend, r.device)
        with xb.using(device=x.device):  # the context takes a bound device too, backend included
            assert xb.ones(2).device is x.device
        info = xb.__array_namespace_info__(backend=x.backend)  # its devices name the backend as well
        assert x.device in info.devices() and info.default_device().backend == x.backend
        assert all(xb.zeros(1, device=dv).device is dv for dv in info.devices() + (info.default_device(),))
    # plain strings keep working with backend= or the configured backend
    assert xb.zeros(2, backend=other_name, device="cpu").backend == other_name
    with xb.using(backend=other_name):
        assert xb.zeros(2, device="cpu").backend == other_name


def test_device_of_another_backend_with_backend_raises(xb_target):
    other_name = _other_backend(xb_target.backend)
    d = xb_target.asarray([1.0]).device
    other = xb.asarray([1.0], backend=other_name)
    for call in (lambda: xb.zeros(2, backend=other_name, device=d),
                 lambda: xb.asarray([1.0], backend=other_name, device=d),
                 lambda: xb.arange(2, backend=other_name, device=d), lambda: other.to(backend=other_name, device=d),
                 lambda: xb.fft.fftfreq(2, backend=other_name, device=d),
                 lambda: xb.using(backend=other_name, device=d).__enter__(),
                 lambda: xb.__array_namespace_info__(backend=other_name).dtypes(device=d)):  # fmt: skip
        with pytest.raises(xb.BackendMismatchError, match=f"Fix: pass device={str(d)!r}") as info:
            call()
        assert isinstance(info.value, TypeError) and xb_target.backend in str(info.value)
    assert xb.zeros(2, backend=xb_target.backend, device=d).device is d  # agreeing backend= is fine


def test_fake_device_index_is_kept(fake):
    b = xb.ones(3, backend="fakedev", device="fake:1")
    assert b.device is xb.Device("fakedev", "fake:1") and repr(b.device) == "Device('fakedev', 'fake:1')"
    for what, call in _lands_next_to(b, xb.asarray([1.0, 2.0])).items():
        r = call()
        assert r.backend == "fakedev" and r.device is b.device, (what, r.backend, r.device)
    xp = b.__array_namespace__()
    assert xp.zeros(2).device is b.device and xp.arange(2).device is b.device
    assert xp is not xb.ones(3, backend="fakedev", device="fake:0").__array_namespace__()


# -- the namespace of an Array is bound to its backend and device ------------------------------------------
def test_array_namespace_is_bound_and_cached(xb_target):
    other_name = _other_backend(xb_target.backend)
    x = xb_target.asarray([1.0, 2.0])
    xp = x.__array_namespace__()
    assert xp is xb_target.asarray([[3]]).__array_namespace__()
    assert xp is not xb.asarray([1.0], backend=other_name).__array_namespace__()
    assert xp.__name__ == f"xbackend:{xb_target.backend}:{xb_target.device}" and xb_target.backend in repr(xp)
    # scikit-learn's tests match error messages that quote the name with pytest.raises(match=...), a regex
    assert re.search(xp.__name__, f"dispatch to namespace {xp.__name__} only supports")
    assert xp.__array_api_version__ == "2025.12"
    missing = [n for n in xb.__all__ if not hasattr(xp, n)]
    assert not missing
    assert xp.sum is xb.sum and xp.linalg is xb.linalg and xp.float32 is xb.float32 and xp.device is xb.device
    assert pickle.loads(pickle.dumps(xp)) is xp  # by its device, like the Device itself
    other = xb.asarray([1.0, 2.0], backend=other_name)
    with xb.using(backend=other_name):
        made = {
            "zeros": xp.zeros(2), "ones": xp.ones(2), "empty": xp.empty(2), "full": xp.full(2, 1.0),
            "arange": xp.arange(2), "linspace": xp.linspace(0, 1, 2), "eye": xp.eye(2),
            "asarray(list)": xp.asarray([1.0]), "asarray(numpy)": xp.asarray(np.ones(2)),
            "asarray(other)": xp.asarray(other), "from_dlpack": xp.from_dlpack(np.ones(2)),
            "fft.fftfreq": xp.fft.fftfreq(4), "zeros_like": xp.zeros_like(x),
            "info": xp.zeros(1, device=xp.__array_namespace_info__().default_device()),
        }  # fmt: skip
        for what, r in made.items():
            assert r.backend == x.backend and r.device is x.device, (what, r.backend, r.device)
        assert xp.asarray(x) is x  # data already on this backend stays where it is
        assert xp.zeros(2, backend=other_name).backend == other_name  # explicit arguments still win
        assert xp.zeros(2, device="cpu").backend == other_name
    assert xp.__array_namespace_info__().default_device() is x.device
    assert xp.__array_namespace_info__(backend=other_name).default_device().backend == other_name


def test_array_api_compat_sees_the_bound_namespace(xb_target):
    compat = pytest.importorskip("array_api_compat")
    x = xb_target.asarray([1.0, 2.0])
    assert compat.array_namespace(x) is x.__array_namespace__()
    assert compat.array_namespace(x, xb_target.asarray([3.0])) is x.__array_namespace__()
    assert compat.device(x) is x.device
    other = xb.asarray([1.0], backend=_other_backend(xb_target.backend))
    with pytest.raises(TypeError, match="[Mm]ultiple namespaces"):
        compat.array_namespace(x, other)


def test_bound_namespace_imports_no_backend():
    code = ("import sys, xbackend as xb; x = xb.asarray([1.0]); xp = x.__array_namespace__(); "
            "assert xp.zeros(2).backend == 'numpy' and xp.asarray([1]).device is x.device; "
            "bad = [m for m in ('torch', 'cupy', 'dask') if m in sys.modules]; assert not bad, bad; "
            "print('ok')")  # fmt: skip
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_a_device_with_an_index_takes_the_index():
    assert xb.Device(xb.Device("cuda"), 1) is xb.Device("cuda:1")
    assert xb.Device(xb.Device("cuda"), 0) is xb.Device("cuda", 0)
    assert xb.Device(xb.Device("cuda:2")) is xb.Device("cuda:2")


def _message(fn, cls):
    with pytest.raises(cls) as info:
        fn()
    return str(info.value)


def test_device_errors_say_what_was_wrong_and_how_to_write_it():
    assert _message(lambda: xb.Device("torch", "cpu", backend="numpy"), TypeError) == (
        "Device(backend, place) takes the backend once; drop backend=")
    assert _message(lambda: setattr(xb.device("cpu"), "type", "cuda"), AttributeError) == "Device is immutable"
    msg = _message(lambda: xb.device("cuda:x"), xb.UnknownDeviceError)
    assert msg == "cannot parse device 'cuda:x'; write it like 'cpu', 'cuda' or 'cuda:1'"
    for example in re.findall(r"'([^']+)'", msg.split(";")[1]):
        xb.device(example)  # every spelling it shows parses
    msg = _message(lambda: xb.device(3.5), xb.UnknownDeviceError)
    assert msg == "cannot interpret 3.5 as a device; use a string like 'cpu' or 'cuda:0'"
    msg = _message(lambda: xb.device("tpu"), xb.UnknownDeviceError)
    assert msg.startswith("unknown device type 'tpu' in 'tpu'; known types: "), msg
    known = msg.split("known types: ", 1)[1].split(". Fix: ", 1)[0].split(", ")
    assert "cpu" in known and "cuda" in known
    for t in known:
        assert xb.device(t).type == t  # every type it lists is one


def test_backend_mismatch_fix_runs():
    pytest.importorskip("torch")
    t = xb.Device("torch", "cpu")
    msg = _message(lambda: xb.zeros(2, device=t, backend="numpy"), xb.BackendMismatchError)
    assert msg.startswith("device=Device('torch', 'cpu') belongs to backend 'torch', but backend='numpy' was given. "
                          "Fix: pass device='cpu' (the place alone) to create on 'numpy', or drop backend="), msg
    place = re.search(r"Fix: pass device=('[^']+')", msg).group(1)
    assert xb.zeros(2, device=eval(place), backend="numpy").backend == "numpy"  # noqa: S307 - the fix
    assert msg.endswith("or drop backend=")
    assert xb.zeros(2, device=t).backend == "torch"  # the other fix
