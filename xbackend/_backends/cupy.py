"""The CuPy backend (CUDA). CuPy mirrors NumPy's API, so this subclasses the NumPy backend and
overrides only what differs: devices, host transfers, DLPack, and detection.

Design constraint: "installed but no usable device" is detected quickly and quietly
(``cupy.cuda.is_available()``, then the runtime's own error for the reason) and reported, never
raised as a traceback from ``import xbackend`` or ``xb.backends()``.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from .._backend import BackendInfo, byte_bounds
from .._devices import Device, device as _device
from .._dtypes import DType
from .._errors import HostTransferError, UnknownDeviceError
from .numpy import NumpyBackend

cupy: Any = None


def _import_cupy() -> Any:
    global cupy
    if cupy is None:
        import cupy as _cupy

        cupy = _cupy
    return cupy


class CupyBackend(NumpyBackend):
    name = "cupy"
    module = "cupy"
    fixed_default_device = False  # the current CUDA device can change

    def __init__(self) -> None:
        self.xp = _import_cupy()
        super().__init__()
        self._devs: dict[int, Device] = {}

    def _supports_ml_bfloat16(self) -> bool:
        major = int(cupy.__version__.split(".")[0])
        return major >= 14  # CuPy 14 maps kDLBfloat to ml_dtypes.bfloat16

    @classmethod
    def probe(cls) -> BackendInfo:
        if importlib.util.find_spec("cupy") is None:
            return BackendInfo("cupy", installed=False, usable=False, reason="cupy is not installed")
        try:
            cp = _import_cupy()
        except Exception as exc:
            return BackendInfo("cupy", installed=True, usable=False, reason=f"import cupy failed: {exc!r}")
        version = cp.__version__
        try:
            n = cp.cuda.runtime.getDeviceCount()
        except Exception as exc:  # CUDARuntimeError: cudaErrorInsufficientDriver / cudaErrorNoDevice / ...
            return BackendInfo("cupy", installed=True, usable=False, version=version,
                               reason=f"cupy {version} installed, no usable CUDA device: {exc}")  # fmt: skip
        if n == 0:
            return BackendInfo("cupy", installed=True, usable=False, version=version,
                               reason=f"cupy {version} installed, but CUDA reports 0 devices")  # fmt: skip
        return BackendInfo("cupy", installed=True, usable=True, version=version,
                           devices=tuple(f"cuda:{i}" for i in range(n)))  # fmt: skip

    def native_array_types(self) -> tuple[type, ...]:
        return (cupy.ndarray,)

    # -- devices --------------------------------------------------------------------------------
    def device_of(self, x: Any) -> Device:
        i = x.device.id
        try:
            return self._devs[i]
        except KeyError:
            d = self._devs[i] = _device(f"cuda:{i}")
            return d

    def default_device(self) -> Device:
        return _device(f"cuda:{cupy.cuda.runtime.getDevice()}")

    def devices(self) -> list[Device]:
        return [_device(f"cuda:{i}") for i in range(cupy.cuda.runtime.getDeviceCount())]

    def check_device(self, dev: Device) -> Device:
        if dev.type != "cuda":
            raise UnknownDeviceError(
                f"the cupy backend only has CUDA devices, not {dev}. Fix: use device='cuda:0', or x.numpy() for the host"
            )
        if dev.index is None:
            return self.default_device()
        n = cupy.cuda.runtime.getDeviceCount()
        if dev.index >= n:
            raise UnknownDeviceError(f"CuPy sees {n} CUDA device(s), so {dev} does not exist; use cuda:0..cuda:{n - 1}")
        return dev

    def _on(self, dev: Device) -> Any:
        return cupy.cuda.Device(dev.index or 0)

    # -- moving data ----------------------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        nd = self.native_dtype(dt)
        if a.dtype != nd and a.dtype.itemsize > nd.itemsize:
            a = a.astype(nd)  # cast on the host: fewer bytes cross the bus
        with self._on(dev):
            return cupy.asarray(a).astype(nd, copy=False)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        return x.get()

    def to_device(self, x: Any, dev: Device) -> Any:
        if self.device_of(x) is dev:
            return x
        with self._on(dev):
            return cupy.asarray(x)

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None and self.device_of(x) is not dev:
            x = self.to_device(x, dev)
            copy = False
        return super().wrap_native(x, dt, None, copy)

    def memory_range(self, x: Any) -> tuple[int, int]:
        return byte_bounds(x.data.ptr, x.shape, x.strides, x.itemsize)

    def import_dlpack(self, obj: Any) -> Any:
        return cupy.from_dlpack(obj)

    # -- creation (device-aware) ----------------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().empty(shape, dt, dev)

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().zeros(shape, dt, dev)

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().ones(shape, dt, dev)

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().full(shape, value, dt, dev)

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        with self._on(dev):
            return super().arange(start, stop, step, dt, dev, n)

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        with self._on(dev):
            return super().linspace(start, stop, num, dt, dev, endpoint)

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        with self._on(dev):
            return super().eye(n, m, k, dt, dev)

    def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise HostTransferError("implicit conversion of CuPy data to NumPy; use x.numpy()")

    def format(self, x: Any) -> str:
        return np.array2string(x.get(), separator=", ", threshold=50)

    def synchronize(self, dev: Device) -> None:
        with self._on(dev):
            cupy.cuda.Device().synchronize()
