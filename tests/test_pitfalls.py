"""The seeds' pitfalls: each one either works or raises an error whose message carries the one-line fix."""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")


def gpu_or_meta() -> str:
    """A non-host device: CUDA when there is one, else torch's ``meta`` device (no values, same device logic)."""
    return "cuda" if torch.cuda.is_available() else "meta"


# 1. a CUDA Array handed to NumPy ---------------------------------------------------------------
def test_device_array_to_numpy_raises_with_the_fix():
    x = xb.ones(3, backend="torch", device=gpu_or_meta())
    with pytest.raises(xb.HostTransferError, match=r"x\.numpy\(\)"):
        np.asarray(x)
    with pytest.raises(TypeError):  # HostTransferError is a TypeError too
        np.asarray(x)


@pytest.mark.gpu
def test_cuda_array_numpy_is_the_explicit_way():
    x = xb.asarray([1.0, 2.0], backend="torch", device="cuda")
    assert x.numpy().tolist() == [1.0, 2.0]


def test_meta_tensors_have_no_values_to_move():
    x = xb.ones(3, backend="torch", device="meta")
    with pytest.raises(xb.HostTransferError, match="meta"):
        x.numpy()
    with pytest.raises(xb.HostTransferError, match="meta"):
        x.to(backend="numpy")


# 2. .numpy() on a grad tensor ------------------------------------------------------------------
def test_numpy_of_grad_tensor_names_detach():
    x = xb.asarray(torch.ones(2, requires_grad=True))
    with pytest.raises(xb.GradientError, match=r"detach\(\)"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


# 3. float64 NumPy data sent to a GPU -------------------------------------------------------------
def test_float64_host_data_keeps_its_dtype_no_silent_downcast():
    a = np.random.default_rng(0).random(4)
    x = xb.asarray(a, backend="torch", device=gpu_or_meta())
    assert x.dtype == xb.float64 and x.native.dtype == torch.float64
    y = xb.asarray(a, backend="torch", device=gpu_or_meta(), dtype=xb.float32)
    assert y.dtype == xb.float32 and y.native.dtype == torch.float32


def test_dtype_cast_moves_fewer_bytes(monkeypatch):
    """Narrowing casts run on the host before the copy (half the bytes cross the bus)."""
    seen = []
    be = xb.asarray(np.zeros(1), backend="torch")._be
    orig = be.from_host

    def spy(a, dt, dev, copy):
        seen.append(a.dtype)
        return orig(a, dt, dev, copy)

    monkeypatch.setattr(be, "from_host", spy)
    xb.asarray(np.zeros(4)).to(backend="torch", device=gpu_or_meta(), dtype=xb.float32)
    assert seen and seen[-1] == np.float32


@pytest.mark.gpu
def test_float64_to_gpu_values_exact():
    a = np.random.default_rng(1).random(100)
    x = xb.asarray(a, backend="torch", device="cuda")
    assert x.dtype == xb.float64 and np.array_equal(x.numpy(), a)


# 4. assigning NumPy data into a device Array -------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_setitem_numpy_scalar_is_moved_and_cast(backend):
    x = xb.zeros(3, dtype=xb.float32, backend=backend)
    x[1] = np.float64(2.5)  # NumPy scalars are weak, like Python scalars
    x[2] = np.float32(1.5)
    assert x.tolist() == [0.0, 2.5, 1.5] and x.dtype == xb.float32


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_setitem_numpy_array_is_moved(backend):
    x = xb.zeros(4, dtype=xb.float32, backend=backend)
    x[1:3] = np.array([1.0, 2.0], dtype=np.float32)
    assert x.tolist() == [0.0, 1.0, 2.0, 0.0]
    x[1:3] = np.array([3.0, 4.0])  # float64 into float32: moved and cast within the kind (issue 9)
    assert x.tolist() == [0.0, 3.0, 4.0, 0.0] and x.dtype is xb.float32
    with pytest.raises(xb.PromotionError, match=r"astype"):
        x[1:3] = np.array([1j, 2j])  # complex into float32 loses information: the fix is named


@pytest.mark.gpu
def test_setitem_numpy_into_cuda_array():
    x = xb.zeros(3, dtype=xb.float32, backend="torch", device="cuda")
    x[0] = np.float64(4.0)
    x[1:] = np.array([5.0, 6.0], dtype=np.float32)
    assert x.tolist() == [4.0, 5.0, 6.0]
    y = xb.zeros((2, 3), dtype=xb.float32, backend="torch", device="cuda")
    y[0] = np.array([1.0, 2.0, 3.0])  # the seeds' pitfall: float64 host data, moved and cast (issue 9)
    assert y.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]] and y.dtype is xb.float32


# 5. torch.bool <-> np.bool_ ------------------------------------------------------------------------
def test_bool_round_trips_every_path():
    a = np.array([True, False, True])
    t = xb.asarray(a).to(backend="torch")
    assert t.native.dtype == torch.bool and t.dtype == xb.bool
    assert t.numpy().dtype == np.bool_ and t.numpy().tolist() == [True, False, True]
    assert np.from_dlpack(t).dtype == np.bool_
    assert xb.from_dlpack(torch.tensor([False, True]), backend="numpy").native.dtype == np.bool_
    assert bool(xb.asarray(np.bool_(True), backend="torch"))


# 6. .item() for scalars ----------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("value,dtype,kind", [(3, "int64", int), (2.5, "float32", float), (True, "bool", bool),
                                              (1 + 2j, "complex64", complex)])  # fmt: skip
def test_item_gives_python_scalars(backend, value, dtype, kind):
    x = xb.asarray(value, dtype=xb.dtype(dtype), backend=backend)
    assert type(x.item()) is kind and x.item() == value
    assert type(xb.asarray([value], dtype=xb.dtype(dtype), backend=backend).item()) is kind
    with pytest.raises(TypeError, match="one element"):
        xb.zeros(2, backend=backend).item()


# 7. from_numpy-style sharing and copy=True ---------------------------------------------------------
def test_sharing_makes_mutations_visible_and_copy_true_isolates():
    a = np.zeros(3)
    shared = xb.asarray(a, backend="torch")
    a[0] = 1.0
    assert shared.tolist()[0] == 1.0  # like torch.from_numpy: one memory
    shared[1] = 2.0
    assert a[1] == 2.0
    own = xb.asarray(a, backend="torch", copy=True)  # the documented way to an independent copy
    a[2] = 3.0
    assert own.tolist() == [1.0, 2.0, 0.0] and not xb.shares_memory(own, xb.asarray(a))
    h = shared.numpy(copy=None)  # zero-copy is explicit: x.numpy() alone is a snapshot (issue 32)
    assert np.shares_memory(h, a) and not np.shares_memory(shared.numpy(), a)
    assert not np.shares_memory(xb.to_numpy(shared, copy=True), a)
