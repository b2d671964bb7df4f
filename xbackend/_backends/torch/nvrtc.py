"""Raw CUDA kernels next to torch without a build step: NVRTC compiles them, the driver API launches them on
torch's current stream.

Design constraint: one launch per call and nothing else on the host. ``torch.cuda.jiterator`` can only map
input tensors to output tensors element by element (an index tensor in, four outputs stacked afterwards:
three extra passes over memory and ~20 µs of Python per call, which made ``xb.random`` on torch-CUDA 3-18x
slower than ``torch.rand``); CuPy's ``RawKernel`` launches a kernel that writes its outputs directly. This is
the same for torch: the source is compiled once per device on first use (never at import), through the NVRTC
library torch itself loads, and each call packs its 64-bit arguments into a reused per-thread parameter block
and calls ``cuLaunchKernel`` through ``ctypes`` on ``torch.cuda.current_stream()`` - ordered with torch's work
like any torch op, no synchronisation. Everything that can fail (no NVRTC, no driver, an old torch) raises at
the first call, so the caller can fall back (``xbackend/random/_torch.py``).

The driver is a seam: :attr:`RawKernel.driver` builds ``(launch, stream_of)`` for a device; tests put a host
build of the same kernel there (``xbackend/random/_cuda.py``'s ``host_source``), so the argument
packing and the callers run on the CPU.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable

__all__ = ["RawKernel", "cuda_driver", "pack_buffers", "THREADS"]

THREADS = 256  # threads per CUDA block
_CUDA_ERROR_INVALID_CONTEXT, _CUDA_ERROR_INVALID_HANDLE = 201, 400

#: ``launch(grid, block, stream, params) -> CUresult`` (``params``: the address of the pointer array) and
#: ``stream_of(index) -> cudaStream_t``
Driver = tuple[Callable[[int, int, int, Any], int], Callable[[int], int]]


def pack_buffers(nargs: int) -> tuple[Any, Any, int]:
    """A kernel's parameter block: ``nargs`` 64-bit slots, the array of pointers to them that ``cuLaunchKernel``
    takes (every argument of the kernels here is 8 bytes: an integer or a pointer), and that array's address."""
    vals = (ctypes.c_uint64 * nargs)()
    base = ctypes.addressof(vals)
    params = (ctypes.c_void_p * nargs)(*range(base, base + 8 * nargs, 8))
    return vals, params, ctypes.addressof(params)


class RawKernel:
    """The ``extern "C"`` kernel ``name`` of ``source()`` (``nargs`` 8-byte parameters), loaded per device."""

    def __init__(self, source: Callable[[], str], name: str, nargs: int) -> None:
        self.source, self.name, self.nargs = source, name, nargs
        self.broken: str | None = None  # why a caller stopped using it (set by the caller, after its warning)
        self.driver: Callable[[Any, int, str, str], Driver] = cuda_driver
        self._devices: dict[int, Driver] = {}
        self._tls = threading.local()
        self._lock = threading.Lock()

    def __call__(self, torch: Any, index: int, grid: int, values: list[int]) -> None:
        """Launch ``grid`` blocks of :data:`THREADS` threads on CUDA device ``index`` (torch's current stream
        there) with the kernel's arguments ``values`` (``nargs`` ints, pointers as ints; ctypes stores each
        modulo 2**64 - a negative int arrives as its two's complement, a 256-bit counter as its low lane)."""
        d = self._devices.get(index)
        if d is None:
            with self._lock:
                d = self._devices.get(index)
                if d is None:
                    d = self._devices[index] = self.driver(torch, index, self.source(), self.name)
        buf = getattr(self._tls, "buf", None)
        if buf is None:
            buf = self._tls.buf = pack_buffers(self.nargs)
        vals, _, params = buf
        vals[:] = values
        launch, stream_of = d
        rc = launch(grid, THREADS, stream_of(index), params)
        if rc:
            raise RuntimeError(f"cuLaunchKernel of {self.name} failed with CUDA error {rc}")


def _nvrtc(torch: Any) -> Any:
    try:  # the library torch found for itself (its CUDA major version), else the usual names
        from torch.cuda._utils import _get_nvrtc_library

        return _get_nvrtc_library()
    except Exception:
        major = str(torch.version.cuda).split(".")[0]
        for name in (f"libnvrtc.so.{major}", "libnvrtc.so"):
            try:
                return ctypes.CDLL(name)
            except OSError:
                continue
        raise


def _compile(torch: Any, source: str, arch: str) -> bytes:
    """CUBIN of ``source`` for ``sm_<arch>`` (NVRTC; the log in the error when it does not compile)."""
    lib = _nvrtc(torch)
    prog = ctypes.c_void_p()
    if lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"xbackend.cu", 0, None, None):
        raise RuntimeError("nvrtcCreateProgram failed")
    try:
        opts = [f"--gpu-architecture=sm_{arch}".encode()]
        if lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)):
            size = ctypes.c_size_t()
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(f"NVRTC could not compile the kernel: {log.value.decode(errors='replace')}")
        size = ctypes.c_size_t()
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        if lib.nvrtcGetCUBIN(prog, cubin):
            raise RuntimeError("nvrtcGetCUBIN failed")
        return cubin.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def cuda_driver(torch: Any, index: int, source: str, name: str) -> Driver:
    """Compile ``source`` for device ``index``, load it into the device's primary context (torch's), and return
    the launch and the stream lookup. A launch that finds another context current (a thread that has not
    touched the device, another GPU current) makes the device's context current around it and tries once more."""
    cu = ctypes.CDLL("libcuda.so.1")
    vp, u = ctypes.c_void_p, ctypes.c_uint
    cu.cuLaunchKernel.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
    cu.cuLaunchKernel.restype = ctypes.c_int
    major, minor = torch.cuda.get_device_capability(index)
    cubin = _compile(torch, source, f"{major}{minor}")
    dev, ctx, module, func = ctypes.c_int(), vp(), vp(), vp()
    torch.cuda.init()
    for rc in (cu.cuDeviceGet(ctypes.byref(dev), index), cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)):
        if rc:
            raise RuntimeError(f"the CUDA driver refused device {index} (error {rc})")
    if cu.cuCtxPushCurrent_v2(ctx):
        raise RuntimeError("cuCtxPushCurrent failed")
    try:
        if cu.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)):
            raise RuntimeError("cuModuleLoadData failed")
        if cu.cuModuleGetFunction(ctypes.byref(func), module, name.encode()):
            raise RuntimeError(f"the module has no kernel {name}")
    finally:
        cu.cuCtxPopCurrent_v2(ctypes.byref(vp()))
    raw_launch, f = cu.cuLaunchKernel, func.value

    def launch(grid: int, block: int, stream: int, params: Any) -> int:
        rc = raw_launch(f, grid, 1, 1, block, 1, 1, 0, stream, params, None)
        if rc == _CUDA_ERROR_INVALID_CONTEXT or rc == _CUDA_ERROR_INVALID_HANDLE:
            cu.cuCtxPushCurrent_v2(ctx)
            try:
                rc = raw_launch(f, grid, 1, 1, block, 1, 1, 0, stream, params, None)
            finally:
                cu.cuCtxPopCurrent_v2(ctypes.byref(vp()))
        return int(rc)

    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw_stream is None:  # pragma: no cover - older torch

        def raw_stream(i: int) -> int:
            return int(torch.cuda.current_stream(i).cuda_stream)

    return launch, raw_stream
