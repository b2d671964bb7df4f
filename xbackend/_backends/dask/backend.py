"""The Dask backend: ``dask.array`` on NumPy chunks (``device="cpu"``) or CuPy chunks (``device="cuda"``),
on one machine or on a ``dask.distributed`` cluster.

Design constraint: **lazy, with explicit results**. No method here computes: every operation adds to
the task graph, and only ``to_host``/``item``/``tolist`` (reached from ``x.numpy()``, ``float(x)``,
``x.item()``, ``xb.compute``) run it. Values are NumPy's bit for bit where the work is per chunk:
elementwise kernels, sorts, linear algebra and set functions run the *NumPy backend's own* code (with
its special-case patches) on each chunk (:class:`~.chunks.ChunkCall`), so a quirk fixed for NumPy is fixed here
too. Reductions and cumulative functions use Dask's chunked algorithms (tree reductions: sums may differ
from NumPy's in the last bits, as any reordering does).

What needs a whole axis in one chunk (sort/argsort along it, an FFT along it, linear algebra on the
matrix dimensions, ``take_along_axis``) raises :class:`ChunkingError` naming ``xb.rechunk``; what needs
values to build the graph (``repeat`` with an Array of counts) raises and names the alternative. The
list is :data:`REFUSALS` (also in ``xb.__array_namespace_info__(backend="dask").capabilities()``).
Shapes that depend on values (boolean masks, ``nonzero``, ``unique_*``) are ``None`` in ``x.shape``.

``dask`` is imported when this module is (never by ``import xbackend``); ``distributed`` never is: a
``dask.distributed.Client`` the user created becomes Dask's default scheduler and everything here
runs on it unchanged. Beside the class: the graphs' tasks (``chunks.py``), linear algebra and FFT (``linalg.py``)
and indexing (``index.py``).
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from typing import Any, Callable

import numpy as np

from ... import _dtypes as D
from ..._backend import Backend, BackendInfo
from ..._devices import CPU, Device, device as _device
from ..._dtypes import DType
from ..._errors import (
    ChunkingError,
    CopyError,
    UnknownDeviceError,
    XBackendError,
)
from . import index as I, linalg as L
from ..common.chunks import NoMemoryMixin
from ..common.keys import check_bounds, map_index_arrays
from ..common.kernels import negative_integer_power
from ..numpy.backend import NumpyBackend
from .chunks import ChunkCall, ChunkKernel, _SearchSorted
from .linalg import DaskLinalgMixin

da: Any = None
dask: Any = None

__all__ = ["DaskBackend", "ChunkingError", "REFUSALS"]


#: what the Dask backend refuses, and the alternative (docs/behaviour.md lists the same)
REFUSALS: dict[str, str] = {
    "sort/argsort along a chunked axis": "xb.rechunk(x, {axis: -1}) first",
    "fft along a chunked axis": "xb.rechunk(x, {axis: -1}) first",
    "linalg on chunked matrix dimensions": "xb.rechunk(x, {-2: -1, -1: -1}) first (batch axes may stay chunked)",
    "take_along_axis along a chunked axis": "xb.rechunk(x, {axis: -1}) first",
    "unique_* of a multi-chunk Array": "xb.rechunk(xb.reshape(x, (-1,)), -1) first",
    "repeat with an Array of counts": "pass Python ints (e.g. repeats.tolist()), which computes them explicitly",
    "several integer-array indices in one key": "index one axis at a time: x[i][:, j]",
    "DLPack export": "x.compute() (or x.numpy()) first",
    "np.asarray(x) / __array__": "x.numpy() or x.compute() (an implicit conversion would compute silently)",
}


def _import() -> Any:
    global da, dask
    if da is None:
        import dask as _dask
        import dask.array as _da

        dask, da = _dask, _da
        I.da = L.da = _da
    return da


def _matmul(a: Any, b: Any) -> Any:
    """``da.matmul`` with the shape checks NumPy makes at once (Dask would fail only when computing)."""
    if a.ndim and b.ndim:
        k1, k2 = a.shape[-1], (b.shape[-2] if b.ndim > 1 else b.shape[0])
        if k1 == k1 and k2 == k2 and k1 != k2:  # sizes known (not NaN) and different
            raise ValueError(f"matmul: inner sizes {k1} and {k2} differ")
        if a.ndim > 2 and b.ndim > 2:
            np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))  # ValueError when they do not broadcast
    return da.matmul(a, b)


def _complex_from_parts(re: Any, im: Any) -> Any:
    out = np.empty(re.shape, dtype=np.result_type(re.dtype, np.complex64))
    out.real = re
    out.imag = im
    return out


class DaskBackend(NoMemoryMixin, DaskLinalgMixin, NumpyBackend):
    name = "dask"
    module = "dask"
    exception_modules = ("distributed",)
    lazy_names = ("Dask", "graph")
    fixed_default_device = True
    native_basic_indexing = False
    lazy = True
    native_reshape = False  # reshape checks unknown sizes and merges chunks
    index_checks = False
    #: ``x.shape`` may hold ``None`` (sizes that depend on values)
    unknown_shapes = True
    host_index_keys = True
    grad_via = None  # no autograd through lazy graphs (NumpyBackend's torch route needs values)
    grad_fix = ("compute the values first: x = x.compute() gives NumPy Arrays, which xb.grad differentiates "
                "(through torch), or move them: x.to(backend='torch')")
    #: chunks of Arrays made from host data or by creation functions (``chunks=`` / ``xb.rechunk`` override)
    default_chunks: Any = "auto"
    sort_kind = "stable"

    def reshaper(self) -> Any:
        """``self.reshape``, except that a bool entry goes to ``xb.reshape``'s checks (Dask reads True as 1; NumPy and
        torch refuse it, and the fast path's cache cannot tell ``(True,)`` from ``(1,)``)."""
        own = self.reshape

        def reshape(x: Any, shape: tuple[Any, ...]) -> Any:
            for s in shape:
                if type(s) is bool:
                    raise TypeError("a bool shape entry")
            return own(x, shape)

        return reshape

    def saturating_cast(self, x: Any, src: DType, dst: DType, dev: Device) -> Any:
        return Backend.saturating_cast(self, x, src, dst, dev)  # the generic graph (Dask has no putmask)

    def _chunks(self, shape: tuple[int, ...]) -> Any:
        """``default_chunks``, or one chunk when ``shape`` holds nothing: Dask's "auto" divides by the
        size and fails on ``(2**62, 0)``, a shape NumPy and torch hold (and an empty Array needs one chunk)."""
        sizes = shape if isinstance(shape, tuple) else (shape,)
        return sizes if 0 in sizes else self.default_chunks

    def __init__(self) -> None:
        self.xp = _import()
        base = NumpyBackend()
        self.__dict__.update(base.__dict__)
        Backend.__init__(self)  # Dask's own kernel tables, fast-path caches and flags, not NumPy's
        self._array_type = da.Array
        self._np = base
        self._out_dtypes: dict[tuple[str, DType], Any] = {}

    @classmethod
    def probe(cls) -> BackendInfo:
        if importlib.util.find_spec("dask") is None:
            return BackendInfo("dask", installed=False, usable=False,
                               reason="dask is not installed (pip install 'xbackend[dask]')")  # fmt: skip
        try:
            _import()
        except Exception as exc:  # dask without its array extra (toolz, ...)
            return BackendInfo("dask", installed=True, usable=False,
                               reason=f"import dask.array failed: {exc!r}. Fix: pip install 'dask[array]'")  # fmt: skip
        extra = {"distributed": "installed" if importlib.util.find_spec("distributed") else "not installed"}
        devs = ("cpu",) + tuple(d for d in _cuda_devices())
        return BackendInfo("dask", installed=True, usable=True, version=dask.__version__, devices=devs, extra=extra)

    def native_array_types(self) -> tuple[type, ...]:
        return (da.Array,)

    # -- shapes, devices ------------------------------------------------------------------------
    def shape_of(self, x: Any) -> tuple[int | None, ...]:
        return tuple(None if s != s else int(s) for s in x.shape)

    def device_of(self, x: Any) -> Device:
        meta = getattr(x, "_meta", None)
        if meta is None or type(meta) is np.ndarray:
            return CPU
        dev = getattr(meta, "device", None)
        return _device(f"cuda:{getattr(dev, 'id', 0)}") if dev is not None else CPU

    def devices(self) -> list[Device]:
        return [CPU] + [_device(d) for d in _cuda_devices()]

    def check_device(self, dev: Device) -> Device:
        if dev is CPU:
            return dev
        if dev.type == "cuda":
            from ..._dispatch import get_backend

            try:
                return get_backend("cupy").check_device(dev)
            except XBackendError as exc:
                raise UnknownDeviceError(
                    f"the dask backend keeps CUDA chunks with CuPy, which is not usable here ({exc}). "
                    "Fix: use device='cpu' (NumPy chunks), or install CuPy on a CUDA machine"
                ) from None
        raise UnknownDeviceError(f"the dask backend has devices 'cpu' (NumPy chunks) and 'cuda:N' (CuPy chunks), "
                                 f"not {dev}. Fix: device='cpu'")  # fmt: skip

    # -- moving data ----------------------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        if copy is False:
            raise CopyError("a Dask Array owns its data (a lazy graph would see later writes to the NumPy "
                            "source), so making one from host data copies it. Fix: copy=None")  # fmt: skip
        h = np.array(a, dtype=self.native_dtype(dt), copy=True)
        out = da.from_array(h, chunks=self._chunks(h.shape), name=False, asarray=False)
        return out if dev is CPU else self.to_device(out, dev)

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        r = x.compute()
        if type(r) is not np.ndarray:
            r = np.asarray(r) if not hasattr(r, "get") else r.get()
        return r

    def compute(self, xs: list[Any]) -> list[Any]:
        """Compute several graphs in one pass (shared parts once): native chunk-library arrays."""
        return list(dask.compute(*xs))

    def persist(self, x: Any) -> Any:
        (y,) = dask.persist(x)
        if any(s != s for s in y.shape):
            y.compute_chunk_sizes()
        return y

    def rechunk(self, x: Any, chunks: Any) -> Any:
        if isinstance(chunks, dict):
            chunks = {(k + x.ndim if k < 0 else k): v for k, v in chunks.items()}
        return x.rechunk(chunks)

    def chunk_backend_name(self, dev: Device) -> str:
        return "numpy" if dev is CPU else "cupy"

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        if dev is not None and self.device_of(x) is not self.check_device(dev):
            x = self.to_device(x, dev)
        if dt is not None and x.dtype != self.to_np.get(dt):
            if copy is False:
                raise CopyError(f"casting {x.dtype} to {dt} needs a copy, but copy=False was given")
            return x.astype(self.native_dtype(dt))
        return x.copy() if copy else x

    def to_device(self, x: Any, dev: Device) -> Any:
        dev = self.check_device(dev)
        if self.device_of(x) is dev:
            return x
        if dev is CPU:
            return x.map_blocks(_to_numpy_chunk, dtype=x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))
        cp = _cupy_backend().xp
        return x.map_blocks(cp.asarray, dtype=x.dtype, meta=cp.empty((0,) * x.ndim, x.dtype))

    def import_dlpack(self, obj: Any) -> Any:
        return self.from_host(np.from_dlpack(obj), self.dtype_of(np.from_dlpack(obj)), CPU, None)

    def format(self, x: Any) -> str:
        return repr(x)  # never computes

    def astype(self, x: Any, dt: DType, copy: bool = True) -> Any:
        nd = self.native_dtype(dt)
        if x.dtype == nd:
            return x.copy() if copy else x
        return x.astype(nd)

    def item(self, x: Any) -> Any:
        return x.compute().item()

    def tolist(self, x: Any) -> Any:
        return self.to_host(x).tolist()

    # -- kernels: the chunk backend's kernel on every chunk -------------------------------------
    def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        if name == "matmul":
            return _matmul
        if name == "pow" and dt.kind in "iu":
            inner = self.make_kernel("_pow_checked", dt)
            return inner
        checked = name == "_pow_checked"
        name = "pow" if checked else name
        fn = ChunkKernel(name, dt)
        out = self._kernel_dtype(name, dt)
        elemwise = da.core.elemwise
        tokenize = dask.base.tokenize

        def kernel(*args: Any) -> Any:
            if checked and type(args[1]) is int and args[1] < 0 and getattr(args[0], "size", 1) != 0:
                raise negative_integer_power()  # known now (a Python int); an empty base gives an empty result
            return elemwise(fn, *args, dtype=out, name=f"{name}-{tokenize(name, dt.name, *args)}")

        kernel.__name__ = name
        return kernel

    def _kernel_dtype(self, name: str, dt: DType) -> Any:
        """The NumPy result dtype of kernel ``name`` on ``dt`` inputs (one tiny call, once per pair)."""
        from ..._rules import ELEMENTWISE

        nd = self.native_dtype(dt)
        if name == "clip":
            return nd
        n = ELEMENTWISE.get(name, (1, ""))[0]
        with np.errstate(all="ignore"):
            return self._np.kernel(name, dt)(*[np.ones(1, nd)] * n).dtype

    def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any:
        out = self.kernel(name, self.from_np[x.dtype])(x, y)  # a new graph; Dask Arrays are never aliased
        if out.shape != x.shape:  # an in-place result keeps x's shape (NumPy raises here; the core types it)
            raise ValueError(f"non-broadcastable output operand with shape {x.shape} doesn't match the "
                             f"broadcast shape {out.shape}")
        return out

    # -- creation -------------------------------------------------------------------------------
    def _on(self, x: Any, dev: Device) -> Any:
        return x if dev is CPU else self.to_device(x, dev)

    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self._on(da.empty(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape)), dev)

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self._on(da.zeros(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape)), dev)

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self._on(da.ones(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape)), dev)

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        nd = self.native_dtype(dt)
        return self._on(da.full(shape, nd.type(value), dtype=nd, chunks=self._chunks(shape)), dev)

    def arange(self, start: Any, stop: Any, step: Any, dt: DType, dev: Device, n: int) -> Any:
        return self._on(self.from_host(self._np.arange(start, stop, step, dt, CPU, n), dt, CPU, None), dev)

    def linspace(self, start: Any, stop: Any, num: int, dt: DType, dev: Device, endpoint: bool) -> Any:
        h = self._np.linspace(start, stop, num, dt, CPU, endpoint)  # NumPy's values (the count is small)
        return self._on(self.from_host(h, dt, CPU, None), dev)

    def eye(self, n: int, m: int, k: int, dt: DType, dev: Device) -> Any:
        if n != m or n == 0:  # da.eye mis-builds non-square graphs (missing keys at compute time)
            return self._on(self.from_host(self._np.eye(n, m, k, dt, CPU), dt, CPU, None), dev)
        return self._on(da.eye(n, M=m, k=k, dtype=self.native_dtype(dt), chunks=self.default_chunks), dev)

    def tril(self, x: Any, k: int) -> Any:
        return self._gufunc("tril", "(m,n)->(m,n)", [x], (k,), x.dtype)

    def triu(self, x: Any, k: int) -> Any:
        return self._gufunc("triu", "(m,n)->(m,n)", [x], (k,), x.dtype)

    def empty_like_native(self, x: Any) -> Any:
        return da.empty_like(x)

    def filled_like(self, x: Any, value: Any, dt: DType, dev: Device) -> Any:
        """``x``'s shape and chunks filled with ``value`` (None: uninitialised), also where sizes are unknown
        (after a boolean mask): creation from a shape cannot express those."""
        nd = self.native_dtype(dt)
        out = da.empty_like(x, dtype=nd) if value is None else da.full_like(x, nd.type(value), dtype=nd)
        return self._on(out, dev)

    # -- access ---------------------------------------------------------------------------------
    def normalize_key(self, x: Any, key: Any) -> Any:
        return key  # Dask Arrays never hold scalars (NumPy's backend adds a trailing ... for that)

    def getitem(self, x: Any, key: Any) -> Any:
        if not any(s != s for s in x.shape):  # Dask would wrap or clip out-of-range indices: host index arrays
            check_bounds(tuple(x.shape), key, I.is_host_index, I.is_mask)  # (known values) are checked now, as NumPy
            key = map_index_arrays(tuple(x.shape), key, I.is_lazy_index, I.is_mask,  # does; lazy ones when computed
                                   lambda k, dim, n: k.map_blocks(I.InBounds(n, dim, tuple(x.shape)), dtype=k.dtype))
        key, falses = I.bool_scalars(key)
        k = key[0] if type(key) is tuple and len(key) == 1 else key
        if I.is_lazy_index(k) and k.ndim == 0 and k.dtype == bool:  # x[m] with m 0-d: a new axis of 0 or 1
            return x[None][k[None]]  # (Dask's own indexing refuses a 0-d mask)
        wide = I.mask_beside_arrays(x, key)  # a mask of 2+ dimensions beside another index: NumPy's answer
        if wide is not None:
            return wide
        try:
            out = x[key]
            if falses:  # x[False] selects nothing along the new axis
                out = out[tuple(slice(0, 0) if i in falses else slice(None) for i in range(max(falses) + 1))]
            return out
        except NotImplementedError as exc:
            raise ChunkingError(f"Dask cannot index with this key ({exc}). Fix: index one axis at a time, "
                                "e.g. x[i][:, j], or x.compute() first")  # fmt: skip
        except (TypeError, AttributeError, IndexError) as exc:  # Dask's own indexing trips over None next to an
            items = key if type(key) is tuple else (key,)  # index array on some shapes (checked keys: its bug)
            if any(k is None for k in items) and any(hasattr(k, "shape") for k in items):
                raise ChunkingError("Dask cannot place new axes (None) next to an index array in this key. Fix: "
                                    "index in two steps, e.g. x[None][:, i] for x[None, i]") from exc  # fmt: skip
            raise

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        key, value = I.drop_new_axes(x, key, value)
        if key is None:
            return  # x[False] = v writes nothing
        key, value = I.positive_steps(x, key, value)
        if key is None:
            return  # an empty selection writes nothing (Dask's setitem trips over some)
        try:
            x[key] = value
        except NotImplementedError as exc:
            raise ChunkingError(f"Dask cannot assign with this key ({exc}). Fix: build the result with "
                                "xb.where(mask, value, x) instead")  # fmt: skip

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        if any(s != s for s in x.shape):
            raise ChunkingError("reshape of a Dask Array whose shape is unknown (after a boolean mask, nonzero or "
                                "unique). Fix: x = x.persist() first (it resolves the sizes)")  # fmt: skip
        shape = I.check_reshape(tuple(x.shape), tuple(shape))
        if 0 in shape or 0 in x.shape:
            return self._empty_result(shape, x.dtype)
        out = x.reshape(shape, merge_chunks=True) if x.shape != shape else x
        return out.copy() if copy and out is x else out

    def _empty_result(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """A size-0 result: no data to compute, so no graph (Dask's algorithms trip over empty chunks)."""
        return da.from_array(np.empty(shape, dtype), chunks=-1, name=False, asarray=False)

    def permute(self, x: Any, axes: tuple[int, ...]) -> Any:
        return da.transpose(x, axes)

    # -- per-chunk helpers ----------------------------------------------------------------------
    def _whole(self, x: Any, axes: tuple[int, ...], what: str) -> None:
        for a in axes:
            if len(x.chunks[a]) > 1:
                raise ChunkingError(
                    f"{what} needs axis {a} of the Dask Array in one chunk, but it has {len(x.chunks[a])} "
                    f"chunks {x.chunks[a]}. Fix: x = xb.rechunk(x, {{{a}: -1}}) first (that axis must fit in "
                    "a worker's memory)"
                )

    def _gufunc(self, method: str, sig: str, xs: list[Any], args: tuple[Any, ...], out: Any,
                sizes: dict[str, int] | None = None) -> Any:  # fmt: skip
        """``method`` of the chunk backend through ``da.apply_gufunc`` (core dimensions in one chunk)."""
        ins = sig.split("->")[0]
        for x, core in zip(xs, _parse_cores(ins)):
            self._whole(x, tuple(range(x.ndim - len(core), x.ndim)), method.removeprefix("la_") + "()")
        outs = out if type(out) is tuple else (out,)
        call = ChunkCall(method, args, out, nargs=len(xs))
        with warnings.catch_warnings():  # Dask casts an empty complex meta array to a real output dtype
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return da.apply_gufunc(call, sig, *xs, output_dtypes=outs if type(out) is tuple else out,
                                   output_sizes=sizes, allow_rechunk=False)  # fmt: skip

    # -- sorting / set / searching --------------------------------------------------------------
    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        self._whole(x, (axis,), "argsort()")
        return x.map_blocks(ChunkCall("sort_indices", (dt, axis, descending)), dtype=np.int64)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        self._whole(x, (axis,), "sort()")
        return x.map_blocks(ChunkCall("sort_values", (dt, axis, descending)), dtype=x.dtype)

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        if len(x.chunks[0]) > 1:
            raise ChunkingError(
                f"unique_*() of a Dask Array with {len(x.chunks[0])} chunks: xbackend's unique (sorted, every NaN "
                "distinct) runs on one chunk. Fix: x = xb.rechunk(xb.reshape(x, (-1,)), -1) first"
            )
        blk = x.to_delayed().ravel()[0]
        res = dask.delayed(ChunkCall("unique_sorted", (dt, want_index, want_inverse, want_counts)), pure=True,
                           nout=4)(blk)  # fmt: skip
        n = x.shape[0]
        vals = da.from_delayed(res[0], shape=(math.nan,), dtype=x.dtype, meta=x._meta)
        idx = lambda r, shape: da.from_delayed(r, shape=shape, dtype=np.int64)  # noqa: E731
        return (vals, idx(res[1], (math.nan,)) if want_index else None, idx(res[2], (n,)) if want_inverse else None,
                idx(res[3], (math.nan,)) if want_counts else None)  # fmt: skip

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        self._whole(x1, (0,), "searchsorted()")
        if sorter is None:
            return da.apply_gufunc(_SearchSorted(side, False), "(n),()->()", x1, x2, output_dtypes=np.int64,
                                   allow_rechunk=False)  # fmt: skip
        sorter = sorter.astype(np.int64)
        self._whole(sorter, (0,), "searchsorted()")
        return da.apply_gufunc(_SearchSorted(side, True), "(n),(n),()->()", x1, sorter, x2, output_dtypes=np.int64,
                               allow_rechunk=False)  # fmt: skip

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        self._whole(x, (axis,), "take_along_axis()")
        batch = np.broadcast_shapes(*(tuple(s for i, s in enumerate(a.shape) if i != axis) for a in (x, indices)))
        full = lambda a: batch[:axis] + (a.shape[axis],) + batch[axis:]  # noqa: E731
        x, indices = da.broadcast_to(x, full(x)), da.broadcast_to(indices, full(indices))
        if 0 in indices.shape or 0 in x.shape:
            return self._empty_result(indices.shape, x.dtype)
        indices = indices.rechunk({axis: -1})
        x = x.rechunk({i: c for i, c in enumerate(indices.chunks) if i != axis})
        return da.map_blocks(ChunkCall("take_along_axis", (axis,), nargs=2), x, indices, dtype=x.dtype,
                             chunks=indices.chunks)  # fmt: skip

    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        if isinstance(repeats, int) and (repeats == 0 or x.shape[axis] == 0):
            shape = tuple(x.shape[:axis]) + (x.shape[axis] * repeats,) + tuple(x.shape[axis + 1 :])
            return self._empty_result(shape, x.dtype)
        if not isinstance(repeats, int):
            raise ChunkingError("repeat() with an Array of counts on Dask: the result's shape depends on the "
                                "counts' values. Fix: pass Python ints, e.g. xb.repeat(x, r.tolist()) "
                                "(this computes r explicitly)")  # fmt: skip
        return da.repeat(x, repeats, axis=axis)

    def flip(self, x: Any, axes: tuple[int, ...]) -> Any:
        if not axes or 0 in x.shape:
            return x.copy()
        return x[tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(x.ndim))]

    def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any:
        return da.isin(x1, x2, invert=invert)

    # -- statistical ----------------------------------------------------------------------------
    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        if name == "mean" and dt.kind == "c":  # the real and imaginary parts separately (NaN stays in its part)
            re = self.reduce("mean", x.real, D.real_of(dt), axes, keepdims)
            im = self.reduce("mean", x.imag, D.real_of(dt), axes, keepdims)
            return da.map_blocks(_complex_from_parts, re, im, dtype=x.dtype)
        if 0 in x.shape:  # sum/prod/all/any of nothing: the identity, built by NumPy's code on empty data
            return self._via_numpy_empty(lambda e: self._np.reduce(name, e, dt, axes, keepdims), x)
        return super().reduce(name, x, dt, axes, keepdims)

    def _via_numpy_empty(self, fn: Any, x: Any) -> Any:
        """``fn`` (NumPy backend code) on size-0 ``x``: no values to compute, so the result comes from NumPy."""
        r = fn(np.empty(x.shape, x.dtype))
        r = np.asarray(r)
        return da.from_array(r, chunks=self._chunks(r.shape), name=False, asarray=False)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        if 0 in x.shape:
            return self._via_numpy_empty(lambda e: self._np.cumulative(name, e, dt, axis, include_initial), x)
        return super().cumulative(name, x, dt, axis, include_initial)

    def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any:
        if 0 in x.shape or x.shape[axis] <= n:
            return self._via_numpy_empty(lambda h: self._np.diff(h, dt, axis, n), x)
        op = self.kernel("not_equal" if dt is D.bool else "subtract", dt)
        hi = tuple(slice(1, None) if i == axis else slice(None) for i in range(x.ndim))
        lo = tuple(slice(None, -1) if i == axis else slice(None) for i in range(x.ndim))
        for _ in range(n):
            x = op(x[hi], x[lo])
        return x

    def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        return x.copy() if 0 in x.shape else da.roll(x, shifts, axis=axes)

    def tile(self, x: Any, reps: tuple[int, ...]) -> Any:
        if 0 in x.shape or 0 in reps:
            return self._empty_result(tuple(s * r for s, r in zip(x.shape, reps)), x.dtype)
        return da.tile(x, reps) if reps else x.copy()

    def info_max_dims(self) -> int | None:
        return 64 if int(np.__version__.split(".")[0]) >= 2 else 32

    def capabilities(self) -> dict[str, Any]:
        return {"lazy": True, "refusals": dict(REFUSALS)}


def _parse_cores(ins: str) -> list[tuple[str, ...]]:
    out = []
    for part in ins.replace(" ", "").split("),"):
        part = part.strip("()")
        out.append(tuple(p for p in part.split(",") if p))
    return out


def _to_numpy_chunk(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") and type(x) is not np.ndarray else np.asarray(x)


def _cupy_backend() -> Any:
    from ..._dispatch import get_backend

    return get_backend("cupy")


def _cuda_devices() -> tuple[str, ...]:
    """CUDA devices CuPy can use here (CuPy chunks), without importing CuPy when it is not installed."""
    if importlib.util.find_spec("cupy") is None:
        return ()
    from ..._dispatch import get_backend_class

    info = get_backend_class("cupy").probe()
    return tuple(info.devices) if info.usable else ()
