"""The Cubed backend: ``cubed`` arrays, lazy and chunked, computed within a memory bound.

Design constraint: **the standard's namespace, lazily**. Cubed implements the Array API standard over
chunked Zarr storage, so this class is the generic backend's (every operation is Cubed's own, named by the
standard, with xbackend's dtype rules and special cases on top) with what a lazy library changes:

- nothing computes until ``to_host``/``item``/``tolist`` (``x.numpy()``, ``float(x)``, ``xb.compute``); an
  implicit conversion (``np.asarray(x)``) and DLPack export are refused, as on Dask;
- chunks come from ``chunks=``/``xb.rechunk`` (``default_chunks`` otherwise); Arrays made here take Cubed's
  configured ``Spec`` (its memory bound and work directory: ``cubed.config.set({"spec.allowed_mem": "4GB"})``),
  and what is computed from a Cubed array keeps that array's spec;
- Cubed arrays are immutable: a write (``x[k] = v``, ``x += y``) builds the updated array with ``where``
  and the Array holds it from then on (no views, as on JAX);
- Cubed's own random generator takes no seed; ``xb.random`` draws the portable stream block by block
  (``xbackend/random/_cubed.py``), equal to NumPy's draws.

What Cubed lacks (sorts, ``take_along_axis``, most of ``linalg``, ``fft``) runs the NumPy backend's own code on
blocks that hold the needed axes whole (``blocks.py``); what needs a shape that depends on values (``nonzero``,
``unique_*``, boolean-mask indexing) is refused with a typed error naming the fix (:data:`REFUSALS`). Where Cubed
0.27 answers wrongly (``x[perm]`` of the axis's length, a matmul of misfit shapes, reductions of empty arrays) the
class corrects it. ``cubed`` is imported when this module is (never by ``import xbackend``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import _dtypes as D
from ..._devices import Device
from ..._dtypes import DType
from ..._errors import CopyError, InvalidIndexError, OutOfMemoryError, ShapeError
from ..common.chunks import NoMemoryMixin
from ..generic.backend import GenericBackend
from .blocks import Namespace, along, in_one_block

__all__ = ["CubedBackend", "REFUSALS"]

#: what the Cubed backend refuses, and the alternative (docs/behaviour.md lists the same)
REFUSALS: dict[str, str] = {
    "nonzero, unique_*, boolean-mask indexing (shapes that depend on values)":
        "compute first (xb.nonzero(x.compute())), or use backend='dask' (unknown sizes)",
    "repeat with an Array of counts": "pass Python ints (e.g. repeats.tolist()), which computes them explicitly",
    "a negative-step slice next to an index Array": "flip that axis first: xb.flip(x, axis=0)[::2, idx]",
    "DLPack export": "x.compute() (or x.numpy()) first",
    "np.asarray(x) / __array__": "x.numpy() or x.compute() (an implicit conversion would compute silently)",
}


#: the core axes of linear algebra on matrices: held whole in each block (the batch axes keep their chunks)
_MATRIX = (-2, -1)


def _value_shaped(what: str, fix: str = "compute first (e.g. xb.nonzero(x.compute()))") -> ShapeError:
    return ShapeError(f"{what} has a shape that depends on the values, and Cubed plans every shape before it "
                      f"computes. Fix: {fix}, or use backend='dask', whose Arrays may have unknown sizes")


def _checked_matmul(fn: Any) -> Any:
    """Cubed's matmul with the shapes checked: Cubed (0.27) multiplies (2, 3) by (4, 5) into (2, 5)."""

    def matmul(a: Any, b: Any) -> Any:
        inner_b = b.shape[-2 if b.ndim > 1 else 0] if b.ndim else None
        fits = a.ndim and b.ndim and a.shape[-1] == inner_b
        try:
            np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        except ValueError:
            fits = False
        if not fits:
            raise ShapeError(f"matmul (x @ y) of cubed Arrays: shapes {tuple(a.shape)} and {tuple(b.shape)} do not fit "
                             "(the inner sizes must be equal, the batch sizes broadcast). Fix: make the inner sizes "
                             "equal, e.g. transpose one (y.mT) or reshape it")  # fmt: skip
        return fn(a, b)

    return matmul


class CubedBackend(NoMemoryMixin, GenericBackend):
    """Cubed (``cubed``; device ``cpu``, NumPy chunks)."""

    name = module = "cubed"
    lazy = True
    pickle_via_host = frozenset(D.ALL)  # a plan holds local functions: a pickle carries the computed values
    exception_modules = ("zarr", "numcodecs")
    lazy_names = ("Cubed", "plan")
    #: chunks of Arrays made from host data or by creation functions (``chunks=`` / ``xb.rechunk`` override)
    default_chunks: Any = "auto"

    def __init__(self) -> None:
        super().__init__()
        self.xp = Namespace(self.xp)

    # -- moving data: explicit only ---------------------------------------------------------------
    def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any:
        if copy is False:
            raise CopyError("a Cubed Array owns its data (a lazy graph would see later writes to the NumPy "
                            "source), so making one from host data copies it. Fix: copy=None")  # fmt: skip
        h = np.array(a, dtype=self.native_dtype(dt), copy=True)
        return self.xp.asarray(h, chunks=self._chunks(h.shape))

    def _chunks(self, shape: tuple[int, ...]) -> Any:
        """``default_chunks``, or one chunk when ``shape`` holds nothing (Cubed's "auto" divides by the size)."""
        sizes = (shape,) if type(shape) is int else tuple(shape)
        return sizes if 0 in sizes else self.default_chunks

    def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray:
        return self.compute([x])[0]

    def compute(self, xs: list[Any]) -> list[Any]:
        """Compute several plans in one pass (shared parts once): NumPy arrays."""
        import cubed

        try:
            with warnings.catch_warnings():  # IEEE results without warnings, as NumPy's backend gives them (Cubed
                warnings.simplefilter("ignore", RuntimeWarning)  # runs tasks in threads: np.errstate would not reach)
                out = cubed.compute(*xs)
            # a copy: an Array made from host data computes to that very array, which x.numpy() must not share
            return [np.array(r, copy=True) for r in out]
        except ValueError as exc:
            if "allowed_mem" not in str(exc):
                raise
            raise OutOfMemoryError(f"a step of this Cubed plan needs more memory than Cubed's bound allows ({exc}). "
                                   "Fix: smaller chunks (xb.rechunk(x, ...) or chunks= when you make the Array), or "
                                   "a larger bound: cubed.config.set({'spec.allowed_mem': '4GB'})") from exc

    def persist(self, x: Any) -> Any:
        """The values computed, held as a Cubed Array of the same chunks (Cubed keeps no cluster memory)."""
        return self.xp.asarray(self.to_host(x), chunks=x.chunksize, spec=x.spec)

    def deepcopy(self, x: Any, memo: dict[int, Any]) -> Any:
        """A new node on the same plan: Cubed arrays are immutable, so the copy may share it (``copy.deepcopy`` of
        the plan would copy the host data it holds)."""
        return self.xp.astype(x, x.dtype, copy=True)

    def rechunk(self, x: Any, chunks: Any) -> Any:
        if 0 in x.shape:  # (one chunk: Cubed cannot divide an empty array)
            return x
        if isinstance(chunks, dict):
            chunks = {(k + x.ndim if k < 0 else k): v for k, v in chunks.items()}
        return x.rechunk(chunks)

    def chunk_backend_name(self, dev: Device) -> str:
        return "numpy"

    def import_dlpack(self, obj: Any) -> Any:
        h = np.from_dlpack(obj)
        return self.xp.asarray(np.array(h, copy=True), chunks=self._chunks(h.shape))

    def format(self, x: Any) -> str:
        return f"<cubed plan: shape {tuple(x.shape)}, chunks {x.chunksize}>"  # never computes

    def make_kernel(self, name: str, dt: DType) -> Any:
        fn = super().make_kernel(name, dt)
        return _checked_matmul(fn) if name == "matmul" else fn

    # -- writes: immutable arrays, rebuilt ----------------------------------------------------------
    def _put(self, x: Any, key: Any, value: Any) -> Any:
        """``x`` with ``value`` written at the complete basic key (ints and slices, or ``...``), as a new array:
        the value is spread over ``x``'s shape with one ``take`` per axis, and chosen where the per-axis masks
        (1-d, made on the host, broadcast lazily: never a host array of ``x``'s size) all hold."""
        xp = self.xp
        value = xp.astype(value, x.dtype)  # (a Cubed array: the generic setitem makes Python scalars one)
        if key is Ellipsis or x.ndim == 0:
            return xp.broadcast_to(value, x.shape).rechunk(x.chunksize)
        sel_shape, gathers, hits = [], [], []
        for k, n in zip(key, x.shape):
            pos = np.arange(n)[k]
            hit = np.zeros(n, dtype=bool)
            hit[pos] = True
            gather = np.zeros(n, dtype=np.int64)
            gather[pos] = np.arange(pos.size) if pos.ndim else 0
            sel_shape.append(pos.size if pos.ndim else 1)
            gathers.append(gather)
            hits.append(hit)
        if not all(h.any() for h in hits):
            return x
        region = tuple(s for s, k in zip(sel_shape, key) if type(k) is not int)
        v = xp.reshape(xp.broadcast_to(value, region), tuple(sel_shape))
        for axis, gather in enumerate(gathers):
            v = xp.take(v, gather, axis=axis)  # (a NumPy index: Cubed computes an index array at planning)
        v = v.rechunk(x.chunksize)  # (take chunks its result by index): the written array keeps x's chunks
        nd = x.ndim
        axes = [xp.asarray(h.reshape((1,) * a + (-1,) + (1,) * (nd - a - 1)), spec=x.spec) for a, h in enumerate(hits)]
        mask = axes[0]
        for m in axes[1:]:
            mask = xp.logical_and(mask, m)
        return xp.where(mask, v, x)

    # -- reading: negative steps as a flip of the positive selection ---------------------------------
    def getitem(self, x: Any, key: Any) -> Any:
        items = self.normalize_key(x, key)
        if not any(hasattr(k, "chunks") for k in items):
            shape = np.broadcast_to(np.empty((), dtype=x.dtype), tuple(x.shape))[items].shape  # (no memory)
            if 0 in shape:  # (Cubed cannot plan an empty selection)
                return self.xp.empty(shape, dtype=x.dtype, chunks=shape, spec=x.spec)
        else:
            if any(type(k) is slice and (k.step or 1) < 0 for k in items):
                raise InvalidIndexError("Cubed cannot take a slice with a negative step next to an index Array. "
                                        "Fix: flip that axis first, e.g. xb.flip(x, axis=0)[::2, idx]")  # fmt: skip
            if any(hasattr(k, "chunks") and k.dtype == self.xp.bool for k in items):
                raise _value_shaped("indexing with a boolean mask")
            return super().getitem(x, items)
        if not any(type(k) is slice and (k.step or 1) < 0 for k in items):
            return super().getitem(x, items)
        plain, flips, out_axis, axis = [], [], 0, 0
        for k in items:
            if type(k) is slice and (k.step or 1) < 0:
                r = range(x.shape[axis])[k]
                plain.append(slice(r[-1], r[0] + 1, -r.step))  # (never empty: empty selections returned above)
                flips.append(out_axis)
            else:
                plain.append(k)
            out_axis += type(k) is not int
            axis += k is not None
        y = super().getitem(x, tuple(plain))
        return self.xp.flip(y, axis=tuple(flips)) if flips else y

    # -- creation: one chunk for empty shapes (Cubed's "auto" divides by the size) -------------------
    def empty(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.empty(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape))

    def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.zeros(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape))

    def ones(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any:
        return self.xp.ones(shape, dtype=self.native_dtype(dt), chunks=self._chunks(shape))

    def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any:
        return self.xp.full(shape, value, dtype=self.native_dtype(dt), chunks=self._chunks(shape))

    def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any:
        out = super().wrap_native(x, dt, dev, copy)
        return self.xp.astype(x, x.dtype, copy=True) if copy and out is x else out  # (asarray(copy=True) is x)

    def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any:
        try:
            return super().reshape(x, shape, copy)
        except NotImplementedError:  # (Cubed reshapes only what merges or splits chunks: one chunk first)
            return super().reshape(x.rechunk(-1), shape, copy)

    def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any:
        if 0 in x.shape:  # (Cubed takes the shift modulo the axis's size, and cannot index empty arrays)
            return x  # (nothing moves; Cubed arrays are immutable, and its asarray(copy=True) gives x itself too)
        return super().roll(x, shifts, axes)

    # -- what Cubed lacks: the NumPy backend's method on blocks holding the core axes whole ------------------
    def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        return along(x, (axis,), "sort_indices", dt, axis, descending)

    def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any:
        return along(x, (axis,), "sort_values", dt, axis, descending)

    def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any:
        return in_one_block([x, indices], "take_along_axis", axis)

    def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any:
        if sorter is not None:  # (Cubed's searchsorted takes no sorter)
            x1 = self.xp.take(x1, sorter)  # (1-d, as the standard's searchsorted asks)
        return super().searchsorted(x1, x2, side, None)

    def cumulative(self, name: str, x: Any, dt: DType, axis: int, include_initial: bool) -> Any:
        out = super().cumulative(name, x, dt, axis, False)
        if not include_initial:  # (Cubed's cumulative functions take no include_initial)
            return out
        shape = tuple(1 if a == axis else n for a, n in enumerate(x.shape))  # (axis: normalised by the caller)
        first = (self.xp.zeros if name == "cumulative_sum" else self.xp.ones)(shape, dtype=out.dtype)
        return self.xp.concat([first, out], axis=axis)

    # -- reductions of empty arrays: known values, NumPy's (Cubed's drop the kept axes of an empty input) ----------
    def _of_empty(self, method: str, x: Any, *args: Any, pre: tuple[Any, ...] = ()) -> Any:
        """NumPy backend's ``method(*pre, x, *args)`` on an empty array of ``x``'s shape, as a Cubed array."""
        from .blocks import _numpy

        h = np.asarray(getattr(_numpy(), method)(*pre, np.empty(tuple(x.shape), dtype=x.dtype), *args))
        return self.xp.asarray(h, chunks=self._chunks(h.shape))

    def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any:
        if 0 in x.shape:
            return self._of_empty("reduce", x, dt, axes, keepdims, pre=(name,))
        return super().reduce(name, x, dt, axes, keepdims)

    def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
        if 0 in x.shape:
            return self._of_empty("count_nonzero", x, axes, keepdims)
        return super().count_nonzero(x, axes, keepdims)

    def repeat(self, x: Any, repeats: Any, axis: int) -> Any:
        if not isinstance(repeats, int):
            raise _value_shaped("repeat() with an Array of counts", "pass Python ints: repeats.tolist()")
        if repeats == 0 or 0 in x.shape:  # (Cubed cannot plan an empty result)
            shape = np.repeat(np.broadcast_to(np.empty((), dtype=x.dtype), tuple(x.shape)), max(repeats, 0), axis).shape
            if repeats >= 0:
                return self.xp.empty(shape, dtype=x.dtype, chunks=shape)
        return super().repeat(x, repeats, axis)

    def flip(self, x: Any, axes: tuple[int, ...]) -> Any:
        if any(x.shape[a] == 0 for a in axes):  # (Cubed divides by the axis's size)
            return x  # (as in roll)
        return super().flip(x, axes)

    def nonzero(self, x: Any) -> tuple[Any, ...]:
        raise _value_shaped("nonzero(x)")

    def unique_sorted(self, x: Any, dt: DType, want_index: bool, want_inverse: bool,
                      want_counts: bool) -> tuple[Any, Any, Any, Any]:  # fmt: skip
        raise _value_shaped("unique_*(x)")

    def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]:
        return along(x, _MATRIX, "la_svd", full_matrices, outputs=3)

    def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]:
        return along(x, _MATRIX, "la_qr", mode, outputs=2)

    def la_svdvals(self, x: Any) -> Any:
        return along(x, _MATRIX, "la_svdvals")

    def la_det(self, x: Any) -> Any:
        return along(x, _MATRIX, "la_det")

    def la_inv(self, x: Any) -> Any:
        return along(x, _MATRIX, "la_inv")

    def la_eigvalsh(self, x: Any) -> Any:
        return along(x, _MATRIX, "la_eigvalsh")

    def la_eigvals(self, x: Any) -> Any:
        return along(x, _MATRIX, "la_eigvals")

    def la_cholesky(self, x: Any, upper: bool) -> Any:
        return along(x, _MATRIX, "la_cholesky", upper)

    def la_slogdet(self, x: Any) -> tuple[Any, Any]:
        return along(x, _MATRIX, "la_slogdet", outputs=2)

    def la_eigh(self, x: Any) -> tuple[Any, Any]:
        return along(x, _MATRIX, "la_eigh", outputs=2)

    def la_eig(self, x: Any) -> tuple[Any, Any]:
        return along(x, _MATRIX, "la_eig", outputs=2)

    def la_pinv(self, x: Any, rtol: Any) -> Any:
        if hasattr(rtol, "chunks"):
            return in_one_block([x, rtol], "la_pinv")
        return along(x, _MATRIX, "la_pinv", rtol)

    def la_matrix_rank(self, x: Any, rtol: Any) -> Any:
        if hasattr(rtol, "chunks"):
            return in_one_block([x, rtol], "la_matrix_rank")
        return along(x, _MATRIX, "la_matrix_rank", rtol)

    def la_matrix_power(self, x: Any, n: int) -> Any:
        return along(x, _MATRIX, "la_matrix_power", n)

    def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any:
        return along(x, _MATRIX, "la_matrix_norm", ord, keepdims)

    def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:
        core = tuple(range(x.ndim)) if axis is None else (axis,) if type(axis) is int else tuple(axis)
        return along(x, core, "la_vector_norm", axis, keepdims, ord)

    def la_cross(self, a: Any, b: Any, axis: int) -> Any:
        return in_one_block([a, b], "la_cross", axis)

    def la_solve(self, a: Any, b: Any) -> Any:
        return in_one_block([a, b], "la_solve")

    def la_trace(self, x: Any, offset: int) -> Any:
        return along(x, _MATRIX, "la_trace", offset)

    def la_diagonal(self, x: Any, offset: int) -> Any:
        return along(x, _MATRIX, "la_diagonal", offset)

    def fft_1d(self, name: str, x: Any, n: int | None, axis: int, norm: str) -> Any:
        return along(x, (axis,), "fft_1d", n, axis, norm, pre=(name,))

    def fft_nd(self, name: str, x: Any, s: list[int] | None, axes: list[int], norm: str) -> Any:
        return along(x, tuple(axes), "fft_nd", s, axes, norm, pre=(name,))

    def fft_shift(self, name: str, x: Any, axes: tuple[int, ...] | None) -> Any:
        return along(x, tuple(range(x.ndim)) if axes is None else axes, "fft_shift", axes, pre=(name,))

    def capabilities(self) -> dict[str, Any]:
        """What the inspection API adds for Cubed: lazy, no views (writes rebind the Array), what it refuses."""
        return {"boolean indexing": False, "data-dependent shapes": False, "lazy": True, "views": False,
                "refusals": dict(REFUSALS)}
