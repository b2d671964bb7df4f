"""Moving data between backends and devices: ``Array.to``, ``asarray(..., backend=)``, DLPack, ``numpy()``.

Design constraint: a move is explicit and its copy semantics are ours, decided by comparing memory
addresses after the fact (producers' copy flags are unreliable: torch never sets DLPack's IS_COPIED,
CuPy refuses ``copy=True``; see reference/interchange.md): ``copy=None`` shares where safe,
``copy=True`` always copies, ``copy=False`` shares or raises :class:`CopyError`. A dtype change is
applied on the side where fewer bytes move. Torch tensors with an autograd graph never leave torch
silently (:class:`GradientError`).

Transport, by where the data is and where it goes:

* same backend: the backend's own device move (``tensor.to``, CuPy peer copy);
* CPU <-> CPU (NumPy <-> torch): ``torch.from_numpy`` / ``tensor.numpy()`` share memory; read-only,
  negatively strided and byte-swapped NumPy memory is copied first (torch writes through read-only
  memory, aborts the process on negative strides);
* GPU <-> GPU on one device (torch <-> CuPy): DLPack through the *consumer's* ``from_dlpack``, which
  hands its current stream to the producer (never ``__cuda_array_interface__``, which has no sync);
  conjugate/negative bits are resolved and negative strides made contiguous before export. When both
  libraries' current streams are the same one (the defaults; ``xb.grad`` on CuPy, which runs torch on
  CuPy's stream) there is nothing to order, and the capsule is made with ``stream=-1``: the check the
  producer's ``__dlpack__`` would make, without its per-call stream objects (torch's took ~10 µs);
* host -> device: from 1 MiB through ``_transfer``'s pinned ring (pipelined, several staging threads),
  smaller ones by the library's copy; device -> host: the backends' blocking copies
  (``xb.device_to_host`` in ``_transfer`` is the pinned, non-blocking variant).
"""

from __future__ import annotations

import contextlib
import types

from typing import Any, Callable, NamedTuple

import numpy as np

from . import _dtypes as D
from ._array import Array, _alloc, _new, wrap_native
from ._backend import Backend
from ._devices import CPU, KNOWN_TYPES as _DEVICE_TYPES, Device, device as _device, split as _split
from ._dispatch import _instances, backend_for_type, get_backend, registered as _KNOWN_NAMES
from ._dtypes import DType
from ._errors import ArgumentTypeError, CopyError, DLPackError, GradientError, HostTransferError, XBackendError

__all__ = ["DLPackError", "Moved", "moved", "to_numpy", "shares_memory"]

# DLPack device types (dlpack.h DLDeviceType)
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_DLPACK_FAILURES = (BufferError, RuntimeError, ValueError, TypeError, AssertionError, NotImplementedError)


class Moved(NamedTuple):
    """What :func:`moved` returns: the moved ``array`` and whether the move ``copied`` the data."""

    array: Array
    copied: bool


def _backend(name: Any) -> Any:
    return get_backend(name)  # a name, a Backend or the library's module (backend=torch)


def _target(backend: Any, device: Any, dtype: Any) -> tuple[Any, Any, Any]:
    """``x.to(...)``'s first argument as torch's and NumPy users pass it: a backend (a name, a Backend, the
    library's module), else a device (``"cuda"``, ``"cpu:0"``, ``x.device``, ``torch.device``) or a dtype
    (``xb.float32``, ``torch.float32``, ``np.float32``), read as ``device=`` or ``dtype=``. Only called when
    ``backend`` is not a plain backend name."""
    if type(backend) is str:
        if backend in _KNOWN_NAMES or backend.partition(":")[0].strip().lower() not in _DEVICE_TYPES:
            return backend, device, dtype
        what = "device"
    elif isinstance(backend, (Device, Backend, types.ModuleType)):
        what = "device" if isinstance(backend, Device) else "backend"
    elif D._spelled(backend, strict=False) not in (None, D._OTHER):
        what = "dtype"
    elif isinstance(getattr(backend, "type", None), str) or isinstance(getattr(backend, "id", None), int):
        what = "device"  # torch.device, cupy.cuda.Device
    else:
        what = "backend"  # backend_name's typed error says what a backend is
    if what == "backend":
        return backend, device, dtype
    given = device if what == "device" else dtype
    if given is not None:
        raise ArgumentTypeError(f"x.to({backend!r}, ...) reads its first argument as the {what}, and {what}= was "
                                f"given too. Fix: pass the {what} once, e.g. x.to({what}={given!r})")  # fmt: skip
    if what == "device":
        return None, backend, dtype
    return None, device, D.dtype(backend)


def _grad_guard(a: Array, where: str) -> None:
    if a._be.requires_grad(a._data):
        raise GradientError(
            f"the {a._be.name} Array on {a._dev} requires grad; {where} would drop its autograd graph silently. "
            "Fix: call x.detach() first (or compute the gradient before leaving torch)"
        )


def _target_device(dst: Any, a: Array, device: Any) -> Device:
    if device is not None:
        return dst.check_device(_device(device))
    if dst is a._be:
        return a._dev
    try:
        return dst.check_device(a._dev)  # stay on the same physical device where the target can
    except XBackendError:
        return dst.default_device()


_STAYS: dict[tuple[Any, Device], bool] = {}  # (target backend, device) -> the target holds data on that device


def cpu_move(src: Any, x: Any, dt: Any, dev: Device, dst: Any) -> Any:
    """``x`` (a native array of backend ``src`` in dtype ``dt`` on the CPU device ``dev``) as a native array of
    another backend ``dst`` on the same device: ``dst``'s import of host memory (``torch.from_numpy`` where that is
    safe, else a copy), which is what moving it there does when nothing else is
    asked; None where the move is not that simple (``dst`` keeps no data on ``dev``, ``x`` carries a graph: the
    move's checks and errors decide). ``Array.to`` and ``xb.asarray`` take it first."""
    try:
        stays = _STAYS[dst, dev]
    except KeyError:
        try:
            stays = dst.check_device(dev) is dev
        except XBackendError:
            stays = False
        _STAYS[dst, dev] = stays
    if not stays or src.requires_grad(x):
        return None
    dst.native_dtype(dt)  # a typed error with the fix (bfloat16 without ml_dtypes) before any work, as a move
    return dst.from_host(src.to_host(x), dt, dev, None)


#: target backend's name -> (that backend, its zero-copy import of NumPy arrays onto its CPU device, or False)
HOST_IMPORTS: dict[str, tuple[Any, Any]] = {}


def host_import(name: str) -> tuple[Any, Any] | None:
    """Backend ``name`` (its instance, made or not) and its zero-copy import of NumPy arrays where it keeps data on
    the CPU (``Backend.host_importer``), else False; cached in ``HOST_IMPORTS`` (the caller checks that the backend
    is still the registry's instance). ``xb.asarray(a, backend=...)`` and ``x.to(backend=...)`` take it first for a
    NumPy array: NumPy data has no graph, and the import checks its dtype and memory (what ``cpu_move`` checks)."""
    dst = _instances.get(name)
    if dst is None:
        return None  # not made yet: the general path makes it
    imp: Any = False
    try:
        if dst is not backend_for_type(np.ndarray) and dst.check_device(CPU) is CPU:
            imp = dst.host_importer() or False
    except XBackendError:
        imp = False
    HOST_IMPORTS[name] = entry = (dst, imp)
    return entry


def _host_imported(a: Array, name: str) -> Array | None:
    """NumPy Array ``a`` on backend ``name``'s CPU device by its zero-copy import, or None where the move decides."""
    entry: Any = HOST_IMPORTS.get(name) or host_import(name)
    be = _instances.get(name)
    if not entry or not entry[1] or be is None or entry[0] is not be:
        return None
    r = entry[1](a._data)
    if r is None or r[1] is not a._dt:
        return None
    y = _alloc()  # (_new: a tensor is never a NumPy scalar)
    y._data, y._dt, y._dev, y._be = r[0], r[1], a._dev, be
    return y


def move(a: Array, *, backend: Any = None, device: Any = None, dtype: DType | None = None,
         copy: bool | None = None) -> Array:  # fmt: skip
    """Move/cast ``a``; see :meth:`Array.to` (this is its implementation)."""
    if device is None and dtype is None and copy is None and type(backend) is str and a._dev.type == "cpu":
        dst = _instances.get(backend)  # to(backend="torch") on the CPU: the target's zero-copy import of host memory
        if dst is not None and dst is not a._be:
            if type(a._data) is np.ndarray:  # NumPy data: the import itself
                y = _host_imported(a, backend)
                if y is not None:
                    return y
            y = cpu_move(a._be, a._data, a._dt, a._dev, dst)
            if y is not None:
                return _new(y, a._dt, a._dev, dst)
    return _move(a, backend, device, dtype, copy)[0]


def moved(x: Any, *, backend: str | None = None, device: Any = None, dtype: DType | None = None,
          copy: bool | None = None) -> Moved:  # fmt: skip
    """Like ``x.to(...)``, and also say whether the data was copied.

    ``x`` may be an Array or a native array of any backend (it is wrapped without a copy first).

    >>> import numpy as np, xbackend as xb
    >>> a = np.arange(3.0)
    >>> xb.moved(a, backend="torch").copied                 # NumPy -> torch on the CPU shares memory
    False
    >>> a.flags.writeable = False
    >>> r = xb.moved(a, backend="torch")                    # torch would write read-only memory: copy
    >>> r.copied, r.array.tolist()
    (True, [0.0, 1.0, 2.0])
    """
    if type(x) is not Array:
        x = wrap_native(x)
    y, copied = _move(x, backend, device, None if dtype is None else D.dtype(dtype), copy)
    return Moved(y, copied)


def _move(a: Array, backend: Any, device: Any, dtype: DType | None, copy: bool | None) -> tuple[Array, bool]:
    if type(backend) is str and device is None and dtype is None and copy is None:
        hop = _HOPS.get((a._be, backend, a._dev))  # a hop seen before: its name was a backend's
        if hop:
            y = hop(a)
            if y is not None:
                return y, False
    if backend is not None and (type(backend) is not str or backend not in _KNOWN_NAMES):
        backend, device, dtype = _target(backend, device, dtype)
    if backend is not None and device is None and dtype is None and copy is None:
        hop = _HOPS.get((a._be, backend, a._dev))
        if hop is None:
            hop = _hop_for(a._be, backend, a._dev)
        if hop:
            y = hop(a)
            if y is not None:
                return y, False
    if device is not None:
        backend, device = _split(backend, device)  # to(device=y.device) moves next to y, backend included
    src = a._be
    dst = src if backend is None else _backend(backend)
    dev = _target_device(dst, a, device)
    dt = a._dt if dtype is None else dtype
    D.check_cast(a._dt, dt)
    if dst is not src:
        _grad_guard(a, f"moving it to {dst.name}")
        dst.native_dtype(dt)  # a typed error with the fix (bfloat16 without ml_dtypes) before any work
    cast = dt is not a._dt
    cross = dev is not a._dev
    if copy is False and (cast or cross):
        what = f"a cast from {a._dt} to {dt}" if cast else f"a copy from {a._dev} to {dev}"
        raise CopyError(
            f"moving a {src.name} Array on {a._dev} to {dst.name} on {dev} needs {what}, but copy=False was given. "
            "Fix: use copy=None (share where possible) or copy=True"
        )
    x, cur = a._data, a._dt
    if cast and dt.itemsize < cur.itemsize:  # narrow on the source: fewer bytes move
        x, cur = src.astype(x, dt), dt
    y = _transport(src, x, cur, a._dev, dst, dev)
    if cur is not dt:  # widen on the destination
        y = dst.astype(y, dt)
    if cast or cross:
        shared = False
    elif a.size == 0:
        shared = True  # nothing to share or copy; copy=True still gives a new object below
    else:  # a move returns the same layout, so shared memory means the same first byte
        shared = src.data_ptr(a._data) == dst.data_ptr(y)
    if copy and shared:
        y = dst.astype(y, dt, copy=True)
        shared = False
    elif copy is False and not shared:
        raise CopyError(
            f"moving a {src.name} Array on {a._dev} ({a._dt}) to {dst.name} on {dev} needs a copy, but copy=False "
            "was given (read-only, negatively strided or byte-swapped NumPy memory, and torch tensors with a "
            "conjugate/negative bit, cannot be shared). Fix: use copy=None (share where possible) or copy=True"
        )
    return _new(y, dt, dev, dst), not shared


_HOPS: dict[Any, Any] = {}  # (source backend, target name, device) -> GPU hand-off, or False (none there)


def _hop_for(src: Any, backend: Any, dev: Device) -> Any:
    """``x.to(backend=...)`` between two GPU libraries on ``dev`` with nothing else asked (the zero-copy
    hand-off: torch <-> CuPy): ``hop(a)`` returns the moved Array, or None when the general path must decide
    (a graph to refuse, a copy to make, a dtype the target refuses, two streams to order). Built once per
    (backend, target, device); False where there is none."""
    hop: Any = False
    if dev.type == "cuda":
        try:
            dst = _backend(backend)
            ddev = dst.check_device(dev)
        except XBackendError:
            dst = None
        if dst is not None and dst is not src and ddev is dev:
            hop = _gpu_hop(src, dst, dev)
    if len(_HOPS) > 64:
        _HOPS.clear()
    _HOPS[(src, backend, dev)] = hop
    return hop


def _gpu_hop(src: Any, dst: Any, dev: Device) -> Callable[[Array], Array | None]:
    """The same-stream hand-off of :func:`_transport` without the general path's bookkeeping: a DLPack
    capsule with ``stream=-1`` when both libraries' current streams on ``dev`` are one (else None: the
    general path orders them), and no copy (else None: the general path decides what ``copy`` allows)."""
    ok: dict[DType, bool] = {}
    requires_grad, export, unsynced, take = src.requires_grad, src.export_dlpack, src.dlpack_unsynced, dst.import_dlpack
    s_stream, d_stream, s_scope, d_scope = src.stream_handle, dst.stream_handle, src.device_scope, dst.device_scope

    def hop(a: Array) -> Array | None:
        dt = a._dt
        holds = ok.get(dt)
        if holds is None:
            try:
                dst.native_dtype(dt)
                holds = ok[dt] = True
            except XBackendError:
                holds = ok[dt] = False
        x = a._data
        if not holds or requires_grad(x):
            return None
        ss, ds = s_scope(dev), d_scope(dev)
        if type(ss) is _NULLTYPE and type(ds) is _NULLTYPE:  # one GPU: it is always current
            y = hand(x)
        else:
            with ss, ds:
                y = hand(x)
        return None if y is None else _new(y, dt, dev, dst)

    def hand(x: Any) -> Any:
        if export(x) is not x:  # a conjugate/negative bit, negative strides: a copy
            return None
        s = s_stream(dev)
        if s is None or s != d_stream(dev):
            return None
        try:
            return take(unsynced(x))
        except _DLPACK_FAILURES:
            return None  # the general path says what failed, as a typed error

    return hop


_NULLTYPE = contextlib.nullcontext


def _transport(src: Any, x: Any, dt: DType, sdev: Device, dst: Any, ddev: Device) -> Any:
    """Native ``x`` (dtype ``dt``, on ``sdev``) as a native array of ``dst`` on ``ddev``; shares where safe."""
    if dst is src:
        return src.to_device(x, ddev)
    if sdev.type == "cuda" and ddev.type == "cuda":
        if sdev is not ddev:
            x = src.to_device(x, ddev)  # peer copy inside the source library, then hand over
        ss, ds = src.device_scope(ddev), dst.device_scope(ddev)
        try:
            if type(ss) is _NULLTYPE and type(ds) is _NULLTYPE:  # one GPU: always current (xb.grad moves 7 a step)
                return _hand_over(src, x, dst, ddev)
            with ss, ds:
                return _hand_over(src, x, dst, ddev)
        except _DLPACK_FAILURES as exc:
            raise DLPackError(f"DLPack hand-off {src.name} -> {dst.name} on {ddev} failed: {exc}") from exc
    if sdev.type != "cpu" and sdev.type != "cuda":
        raise HostTransferError(f"{src.name} data on {sdev} has no values to move (e.g. torch 'meta' tensors)")
    host = src.to_host(x)
    if ddev.type == "cuda" and sdev.type == "cpu" and host.nbytes >= _STAGE_FROM:
        y = STAGED[0](dst, ddev, host, dt)  # the pinned pipeline: the library's pageable copy is ~6x slower
        if y is not None:
            return y
    return dst.from_host(host, dt, ddev, None)


def _hand_over(src: Any, x: Any, dst: Any, dev: Device) -> Any:
    """DLPack between two GPU libraries on ``dev`` (current there): on one stream a capsule with ``stream=-1``
    (the work is already in order), else through the consumer's ``from_dlpack``, which names its stream so
    that the producer orders its work before it."""
    s = src.stream_handle(dev)
    if s is not None and s == dst.stream_handle(dev):
        return dst.import_dlpack(src.dlpack_unsynced(src.export_dlpack(x)))
    return dst.import_dlpack(src.export_dlpack(x))


#: ``xbackend._transfer.staged_to_device`` (the pinned ring), linked by ``xbackend/_assemble.py`` (_transfer builds
#: on this module, so this one cannot import it back); until then: no staged path (None)
STAGED: list[Callable[..., Any]] = [lambda be, dev, host, dt: None]
_STAGE_FROM = 1 << 20  # host->CUDA moves from this many bytes go through xbackend's pinned ring


def _overlap(be1: Any, x1: Any, d1: Device, be2: Any, x2: Any, d2: Device) -> bool:
    if d1 is not d2:
        return False
    lo1, hi1 = be1.memory_range(x1)
    lo2, hi2 = be2.memory_range(x2)
    if hi1 == lo1 or hi2 == lo2:
        return lo1 == lo2 and lo1 != 0
    return lo1 < hi2 and lo2 < hi1


def shares_memory(a: Any, b: Any) -> bool:
    """Whether two Arrays (or native arrays, any backends) use overlapping memory on the same device.

    NumPy pairs are answered exactly (``np.shares_memory``); other pairs by overlapping byte ranges.

    >>> import numpy as np, xbackend as xb
    >>> x = xb.asarray(np.arange(4.0))
    >>> xb.shares_memory(x, x[1:]), xb.shares_memory(x, x + 0)
    (True, False)
    >>> xb.shares_memory(x, x.to(backend="torch"))
    True
    """
    if type(a) is not Array:
        a = wrap_native(a)
    if type(b) is not Array:
        b = wrap_native(b)
    if a._dev is not b._dev:
        return False
    if a._be is b._be and a._be.name == "numpy":
        return bool(np.shares_memory(a._data, b._data))
    if a.size == 0 or b.size == 0:
        return False
    return _overlap(a._be, a._data, a._dev, b._be, b._data, b._dev)


def to_numpy(a: Any, *, copy: bool | None = True, detach: bool = False) -> np.ndarray:
    """The values as a NumPy array: by default an independent copy, on every backend and device (``x.numpy()``).

    One rule gives the same values everywhere: a later in-place update of ``x`` never shows in the result, whether
    ``x`` lives in NumPy, on a GPU or in a Dask graph (torch's ``.numpy()`` aliases on the CPU and copies on
    CUDA). Zero-copy is explicit: ``copy=None`` shares memory on the CPU where possible (a copy elsewhere),
    ``copy=False`` shares or raises :class:`CopyError` (device data, torch conjugate/negative views); on the CPU
    ``np.asarray(x)`` shares too. A torch Array that requires grad raises :class:`GradientError`;
    ``detach=True`` returns its values - with ``copy=None``, as a **read-only** view (NumPy writes would bypass
    autograd's version counter and corrupt gradients silently).

    >>> import numpy as np, xbackend as xb
    >>> x = xb.asarray([1, 2])
    >>> h, view = xb.to_numpy(x), xb.to_numpy(x, copy=None)
    >>> x[0] = 5
    >>> h, view
    (array([1, 2]), array([5, 2]))
    """
    if type(a) is not Array:
        a = wrap_native(a)
    be = a._be
    x = a._data
    readonly = False
    if be.requires_grad(x):
        if not detach:
            raise GradientError(
                f"the {be.name} Array on {a._dev} requires grad; converting it to NumPy would drop its autograd "
                "graph. Fix: x.detach().numpy(), or xb.to_numpy(x, detach=True, copy=None) for a read-only view"
            )
        x = be.detach(x)
        readonly = True
    if copy is False and a._dev.type != "cpu":
        raise CopyError(f"the data is on {a._dev}; NumPy needs a host copy, but copy=False was given. Fix: copy=None")
    h = be.to_host(x)
    if a._dev.type == "cpu":
        shared = a.size == 0 or be.data_ptr(x) == h.__array_interface__["data"][0]
        if copy and shared:
            h = np.array(h, copy=True)
            readonly = False
        elif copy is False and not shared:
            raise CopyError(
                f"the {be.name} Array could not be exported to NumPy without a copy (a torch conjugate or negative "
                "bit view), but copy=False was given. Fix: copy=None"
            )
        elif readonly:
            h = h.view()
            h.flags.writeable = False
    return h


_NP: list[Any] = []


def _numpy() -> Any:
    if not _NP:
        _NP.append(get_backend("numpy"))
    return _NP[0]


# --- DLPack ------------------------------------------------------------------------------------
def export_dlpack(a: Array, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                  copy: bool | None = None) -> Any:  # fmt: skip
    """``Array.__dlpack__``: a capsule of ``a``'s data, made safe for every consumer first.

    Exports resolve torch's conjugate/negative bits (torch would drop the negative bit: wrong signs) and
    make negatively strided or byte-swapped NumPy/CuPy data contiguous (torch aborts the process on
    negative strides) - a copy, refused under ``copy=False``. ``copy=True`` copies in the producer's
    library when the library itself refuses (CuPy). ``stream`` is passed on as given (``None`` means the
    legacy default stream; torch's own default would skip the synchronisation).
    """
    be = a._be
    x = a._data
    if be.requires_grad(x):
        raise GradientError(
            f"cannot export a {be.name} Array that requires grad through DLPack: the consumer would lose the "
            "autograd graph. Fix: x.detach().__dlpack__() (or xb.from_dlpack(x.detach()))"
        )
    y = be.export_dlpack(x)
    if y is not x and copy is False and a.size:
        raise DLPackError("exporting this Array needs a copy (negative strides, byte order or a torch conj/neg bit), "
                          "but copy=False was given. Fix: copy=None")  # fmt: skip
    if y is not x and copy:
        copy = None  # already a fresh copy
    try:
        return be.dlpack(y, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)
    except GradientError:
        raise
    except _DLPACK_FAILURES as exc:
        if copy and dl_device is None:  # CuPy: "copy=True only supported for copy to CPU" (cupy/cupy#9842)
            with contextlib.suppress(*_DLPACK_FAILURES):
                return be.dlpack(be.astype(y, a._dt, copy=True), stream=stream, max_version=max_version,
                                 dl_device=None, copy=None)  # fmt: skip
        raise DLPackError(f"{be.name} could not export this Array on {a._dev} through DLPack: {exc}") from exc


def _natural_backend(dev_type: int) -> Any:
    """Which backend imports a foreign producer on DLPack device type ``dev_type``."""
    if dev_type in (_KDL_CPU, _KDL_CUDA_HOST):
        return _numpy()
    if dev_type in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        for name in ("cupy", "torch"):
            try:
                return get_backend(name)
            except XBackendError:
                continue
        raise DLPackError(f"the producer's data is on a CUDA device (DLPack device type {dev_type}), and neither "
                          "CuPy nor a CUDA build of torch is usable here")  # fmt: skip
    raise DLPackError(f"DLPack device type {dev_type} is not supported by xbackend (CPU and CUDA are)")


def import_dlpack(obj: Any, *, device: Any = None, copy: bool | None = None, backend: Any = None) -> Array:
    """``xb.from_dlpack``: import any DLPack producer (NumPy, torch, CuPy, JAX, an Array, ...).

    Native arrays of a known backend stay on it (unless ``backend=``); foreign producers are imported
    by the library that owns their device (NumPy for the CPU, CuPy - else torch - for CUDA), then moved.
    """
    if type(obj) is Array:
        return move(obj, backend=backend, device=device, copy=copy)
    if isinstance(obj, np.generic):
        obj = np.asarray(obj)  # NumPy scalars have no __dlpack__ (torch mis-reports "invalid capsule")
    src = backend_for_type(type(obj))
    if src is not None:
        return move(_new(obj, src.dtype_of(obj), src.device_of(obj), src), backend=backend, device=device, copy=copy)
    if not hasattr(obj, "__dlpack__"):
        kind = "a raw DLPack capsule" if type(obj).__name__ == "PyCapsule" else type(obj).__name__
        raise ArgumentTypeError(f"from_dlpack() needs a DLPack producer (an object with __dlpack__), got {kind}. "
                        "Fix: pass the array object itself, not obj.__dlpack__()")  # fmt: skip
    try:
        dev_type = int(obj.__dlpack_device__()[0])
    except Exception as exc:
        raise DLPackError(f"{type(obj).__name__}.__dlpack_device__() failed: {exc}") from exc
    nat = _natural_backend(dev_type)
    try:
        native = nat.import_dlpack(obj)
    except _DLPACK_FAILURES as exc:
        raise DLPackError(f"{nat.name} could not import {type(obj).__name__} through DLPack: {exc}") from exc
    a = _new(native, nat.dtype_of(native), nat.device_of(native), nat)
    if backend is None and device is None and not copy:
        return a
    return move(a, backend=backend, device=device, copy=copy)


# --- the Array's methods (xbackend/_assemble.py puts them on it: x.to, x.numpy, x.__dlpack__) ------------------------
def array_to(self: Array, backend: str | None = None, device: Any = None, dtype: DType | None = None, *,
             copy: bool | None = None) -> Array:  # fmt: skip
    """Move/cast to another backend, device or dtype.

    ``copy=None`` shares memory where that is safe, ``copy=True`` always copies, ``copy=False`` raises
    :class:`~xbackend.CopyError` where sharing is impossible.

    >>> import xbackend as xb
    >>> xb.asarray([1, 2]).to(dtype=xb.float32).dtype
    xb.float32
    """
    if type(self._data) is np.ndarray and device is None and dtype is None and copy is None and type(backend) is str:
        y = _host_imported(self, backend)  # NumPy -> torch on the CPU: the target's zero-copy import (move's first)
        if y is not None:
            return y
    dt = None if dtype is None else (dtype if type(dtype) is DType else D.dtype(dtype))
    return move(self, backend=backend, device=device, dtype=dt, copy=copy)


def array_numpy(self: Array, *, copy: bool | None = True) -> np.ndarray:
    """A NumPy array with this Array's values: an independent copy on every backend and device, so a later
    in-place update of the Array never shows in it (``xb.to_numpy``; ``copy=None`` shares on the CPU)."""
    return to_numpy(self, copy=copy)


def array_dlpack(self: Array, /, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                 copy: bool | None = None) -> Any:  # fmt: skip
    """A DLPack capsule of this Array (``__dlpack__``; see :func:`export_dlpack`)."""
    return export_dlpack(self, stream, max_version, dl_device, copy)
