"""What the torch backend (xbackend/_backends/torch/) does itself: host data it must fix before torch may
share it, copies it must make, byte ranges, device names, full reductions, wide unsigned diffs, complex unique
values and its probe. GPU-only branches are driven through stand-in tensor objects (no CUDA here); values are
checked against NumPy, never against this backend's own output."""

from __future__ import annotations

import types

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")
if not xb.backends()["torch"].usable:
    pytest.skip("torch is not usable here", allow_module_level=True)

from xbackend._backends.torch import backend as T  # noqa: E402


def _be():
    return xb._dispatch.get_backend("torch")


def test_a_broken_torch_is_reported_unusable(monkeypatch):
    def broken():
        raise ImportError("libtorch_cpu.so: cannot open shared object file")

    monkeypatch.setattr(T, "_import_torch", broken)
    info = T.TorchBackend.probe()
    assert info.installed and not info.usable and "cannot open shared object" in info.reason


@pytest.mark.parametrize("spec,want", [("cuda:1", "cuda:1"), ("cuda", "cuda:0"), ("cpu", "cpu"), ("meta", "meta")])
def test_device_names_of_native_tensors(spec, want):
    """A tensor's device as xbackend names it: an index-less CUDA device is the current one, cuda:0."""
    stand_in = types.SimpleNamespace(device=torch.device(spec))
    assert _be().device_of(stand_in) is xb.device(want)


def test_torchs_default_device_mode_is_followed():
    """Inside ``with torch.device(...)`` torch's own factories create there, and so does xbackend's."""
    with torch.device("meta"):
        x = xb.zeros(2, backend="torch")
    assert x.device.type == "meta"
    assert xb.zeros(2, backend="torch").device.type == "cpu"


@pytest.mark.parametrize("dt", [">i4", ">f8", "<i8", np.longlong, np.ulonglong, np.intc])
def test_host_data_in_any_byte_order_and_c_type(dt):
    a = np.array([1, 2, 3], dtype=dt)
    x = xb.asarray(a, backend="torch")
    assert x.tolist() == a.tolist() and x.dtype is xb.dtype(np.dtype(dt).newbyteorder("=").name)


def test_copy_true_never_shares_the_callers_memory():
    a = np.ones(3)
    x = xb.asarray(a, backend="torch", copy=True)
    t = torch.ones(3, dtype=torch.float64)
    y = xb.asarray(t, copy=True)
    a[0] = 5.0
    t[0] = 5.0
    assert x.tolist() == [1.0, 1.0, 1.0] and y.tolist() == [1.0, 1.0, 1.0]


def test_copy_false_refuses_a_dtype_change():
    t = torch.ones(3, dtype=torch.float64)
    with pytest.raises(xb.CopyError):
        xb.asarray(t, dtype=xb.float32, copy=False)
    assert xb.asarray(t, copy=False).native is t


def test_to_numpy_of_a_grad_tensor_and_of_device_data():
    w = torch.ones(2, dtype=torch.float64, requires_grad=True)
    assert xb.to_numpy(xb.asarray(w), detach=True).tolist() == [1.0, 1.0]
    assert "1." in repr(xb.asarray(w)) and xb.asarray(w).tolist() == [1.0, 1.0]  # shown without the graph

    class OnCuda:  # a stand-in for a CUDA tensor: to_host must bring it to the CPU first
        requires_grad = False
        is_cpu = False
        device = torch.device("cuda", 0)
        dtype = torch.float32

        def is_conj(self):
            return False

        def is_neg(self):
            return False

        def cpu(self):
            return torch.arange(3, dtype=torch.float32)

    assert _be().to_host(OnCuda()).tolist() == [0.0, 1.0, 2.0]


def test_shares_memory_between_torch_views_by_byte_ranges():
    t = torch.arange(10, dtype=torch.float64)
    assert xb.shares_memory(t[:5], t[4:])
    assert not xb.shares_memory(t[:4], t[4:])
    assert xb.shares_memory(t[::3], t[9:])
    assert xb.shares_memory(xb.asarray(t.numpy()[2:]), t[:3])  # NumPy with torch


def test_device_scope_switches_to_the_indexed_gpu(monkeypatch):
    entered = []
    monkeypatch.setattr(T, "_one_cuda_device", lambda: False)
    monkeypatch.setattr(torch.cuda, "device", lambda i: entered.append(i) or "scope")
    be = _be()
    assert be.device_scope(xb.device("cuda:1")) == "scope" and be.device_scope(xb.device("cuda:0")) == "scope"
    assert entered == [1, 0]


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "float32", "float64", "bool"])
def test_full_min_and_max_reductions(dt):
    a = np.array([3, 1, 2, 1], dtype=dt) if dt != "bool" else np.array([True, False, True])
    x = xb.asarray(a, backend="torch")
    for fn, ref in ((xb.min, np.min), (xb.max, np.max)):
        r = fn(x)
        assert r.dtype is xb.dtype(dt) and r.tolist() == ref(a).tolist()


@pytest.mark.parametrize("dt", ["uint16", "uint32", "uint64", "uint8", "int8", "int64", "float32"])
def test_diff_wraps_like_numpy(dt):
    """Differences of unsigned ints wrap modulo 2**bits (NumPy's rule); torch has no wide unsigned kernel."""
    a = np.array([5, 3, 9, 0, 7], dtype=dt)
    x = xb.asarray(a, backend="torch")
    for n in (1, 2):
        r = xb.diff(x, n=n)
        assert r.dtype is xb.dtype(dt) and r.tolist() == np.diff(a, n=n).tolist()


def test_unique_complex_values_are_sorted_lexicographically():
    a = np.array([1 + 2j, 1 + 1j, 0 + 5j, 1 + 1j, -1 - 1j])
    x = xb.asarray(a, backend="torch")
    assert xb.unique_values(x).tolist() == np.unique(a).tolist()
    r = xb.unique_all(x)
    assert r.values.tolist() == np.unique(a).tolist() and r.counts.tolist() == [1, 1, 2, 1]


# -- torch's CUDA checks on a machine without CUDA (torch's answers faked), and its leaf-write refusal --------------
def test_a_cuda_index_beyond_the_devices_names_the_ones_there(monkeypatch):
    torch = pytest.importorskip("torch")
    from xbackend._backends.torch import backend as TB

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    be = xb.zeros(0, backend="torch")._be
    with pytest.raises(xb.UnknownDeviceError, match=r"^torch sees 2 CUDA device\(s\), so cuda:5 does not exist; use "
                                                    r"cuda:0\.\.cuda:1$"):  # fmt: skip
        be.check_device(xb.device("cuda:5"))
    assert xb.device("cuda:5") not in TB._CUDA_OK


def test_the_backend_report_says_why_a_cuda_check_failed(monkeypatch):
    torch = pytest.importorskip("torch")

    def broken():
        raise RuntimeError("driver mismatch")

    monkeypatch.setattr(torch.cuda, "is_available", broken)
    info = type(xb.zeros(0, backend="torch")._be).probe()
    assert info.usable and info.extra["cuda"] == "CUDA check failed: RuntimeError('driver mismatch')"


def test_an_in_place_write_into_a_parameter_names_the_operation_first():
    torch = pytest.importorskip("torch")
    w = xb.asarray(torch.ones(2, requires_grad=True))
    with pytest.raises(xb.GradientError, match=r"^in-place add on a torch Array that requires grad \(a leaf: a "
                                               r"parameter\).*Fix: update it under `with xb.no_grad\(\):`"):  # fmt: skip
        w += 1.0
