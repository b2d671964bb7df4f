"""Device value objects, and the rule that devices and backends never mix silently.

The mixing rules are tested without a GPU: torch's ``cpu`` vs ``meta`` devices, and a fake backend
with two fake devices (array-api-strict's trick).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import xbackend as xb
from xbackend import _dispatch
from xbackend._backend import BackendInfo
from xbackend._backends.numpy import NumpyBackend
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
    assert xb.devices("numpy") == [xb.device("cpu")]
    with xb.using(backend="numpy"):
        assert xb.devices() == [xb.device("cpu")]
    pytest.importorskip("torch")
    assert xb.device("cpu") in xb.devices("torch")


def test_backend_device_checks(xb_target):
    x = xb.zeros(2, backend=xb_target.backend, device=xb_target.device)
    assert x.device is xb.device(xb_target.device)
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
        assert "cpu" in msg and "meta" in msg and "Fix" in msg and "to_device" in msg, (what, msg)
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
    for call in (lambda: a + t, lambda: t - a, lambda: xb.maximum(a, t), lambda: a + t.native,
                 lambda: t + a.native, lambda: a.__setitem__(0, t[0])):  # fmt: skip
        with pytest.raises(xb.BackendMismatchError) as info:
            call()
        msg = str(info.value)
        assert "numpy" in msg and "torch" in msg and ".to(backend=" in msg
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
    assert m.shape == (2,) and (m + 1).device == xb.Device("meta")
    for read in (m.tolist, lambda: m[0].item(), lambda: bool(m[0]), lambda: float(m[0]), lambda: int(m[0])):
        with pytest.raises(xb.HostTransferError, match="meta"):
            read()
