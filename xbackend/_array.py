"""The backend-agnostic Array.

Design constraint: this module names no backend library. An Array holds four things in
``__slots__``: the native array, its :class:`DType`, its :class:`Device` and its backend object.
Every operator has the same shape: check backend and device -> decide the dtype from the tables in
``_rules``/``_dtypes`` -> ask the backend's kernel -> ``_new``. Result dtypes and devices are known
before the backend runs, so nothing is read back from the native result on the hot path.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as _np

from . import _config, _dtypes as D
from ._backend import Backend
from ._devices import Device, bind as _bind
from ._dispatch import backend_for_type, get_backend
from ._dtypes import DType
from ._errors import (
    ArgumentTypeError,
    ShapeError,
    BackendMismatchError,
    DeviceMismatchError,
    HostTransferError,
    mismatch,
)

__all__ = ["Array", "wrap_native"]

_BOOL = D.bool
_PROMO = D.PROMOTION
_INT_RANGE = D._INT_RANGE
_current = _config.current
_SCALARS = (int, float, complex, bool)


class _NoDirectCalls(type):
    """Array's metaclass: ``Array(...)`` raises with the fix. xbackend itself builds Arrays with :data:`_alloc`
    (``type.__call__`` bound to Array: an empty instance at C speed, ~35 ns less than ``object.__new__(Array)``,
    which matters on a path whose whole budget is a few hundred ns)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise ArgumentTypeError("Array() cannot be called directly. Fix: make one from data or with a creation "
                                "function, e.g. xb.asarray([1.0, 2.0])")  # fmt: skip


class Array(metaclass=_NoDirectCalls):
    """An n-dimensional array on one backend and one device.

    Build Arrays with :func:`xbackend.asarray` or a creation function, never with ``Array(...)``.

    >>> import xbackend as xb
    >>> x = xb.asarray([1.0, 2.0, 3.0])
    >>> (x * 2 + 1).tolist(), x.dtype, x.backend, str(x.device)
    ([3.0, 5.0, 7.0], xb.float64, 'numpy', 'cpu')
    """

    __slots__ = ("_data", "_dt", "_dev", "_be", "__weakref__")
    _data: Any  # the native array (numpy.ndarray, torch.Tensor, cupy.ndarray, ...)
    _dt: DType
    _dev: Device  # the physical device (no backend): what backends understand
    _be: Backend
    __array_priority__ = 1000  # NumPy hands its ufuncs and operators with an ndarray on the left to Array's

    # The rest of the Array is implemented above this module and put on it by ``xbackend/_assemble.py``, which lists
    # the whole surface with each part's provider; what the core calls is declared here for type checkers.
    if TYPE_CHECKING:
        def __add__(self, other: Any, /) -> Array: ...
        def __radd__(self, other: Any, /) -> Array: ...
        def __iadd__(self, other: Any, /) -> Array: ...
        def __sub__(self, other: Any, /) -> Array: ...
        def __rsub__(self, other: Any, /) -> Array: ...
        def __isub__(self, other: Any, /) -> Array: ...
        def __mul__(self, other: Any, /) -> Array: ...
        def __rmul__(self, other: Any, /) -> Array: ...
        def __imul__(self, other: Any, /) -> Array: ...
        def __truediv__(self, other: Any, /) -> Array: ...
        def __rtruediv__(self, other: Any, /) -> Array: ...
        def __itruediv__(self, other: Any, /) -> Array: ...
        def __floordiv__(self, other: Any, /) -> Array: ...
        def __rfloordiv__(self, other: Any, /) -> Array: ...
        def __ifloordiv__(self, other: Any, /) -> Array: ...
        def __mod__(self, other: Any, /) -> Array: ...
        def __rmod__(self, other: Any, /) -> Array: ...
        def __imod__(self, other: Any, /) -> Array: ...
        def __pow__(self, other: Any, /) -> Array: ...
        def __rpow__(self, other: Any, /) -> Array: ...
        def __ipow__(self, other: Any, /) -> Array: ...
        def __and__(self, other: Any, /) -> Array: ...
        def __rand__(self, other: Any, /) -> Array: ...
        def __iand__(self, other: Any, /) -> Array: ...
        def __or__(self, other: Any, /) -> Array: ...
        def __ror__(self, other: Any, /) -> Array: ...
        def __ior__(self, other: Any, /) -> Array: ...
        def __xor__(self, other: Any, /) -> Array: ...
        def __rxor__(self, other: Any, /) -> Array: ...
        def __ixor__(self, other: Any, /) -> Array: ...
        def __lshift__(self, other: Any, /) -> Array: ...
        def __rlshift__(self, other: Any, /) -> Array: ...
        def __ilshift__(self, other: Any, /) -> Array: ...
        def __rshift__(self, other: Any, /) -> Array: ...
        def __rrshift__(self, other: Any, /) -> Array: ...
        def __irshift__(self, other: Any, /) -> Array: ...
        def __matmul__(self, other: Any, /) -> Array: ...
        def __rmatmul__(self, other: Any, /) -> Array: ...
        def __imatmul__(self, other: Any, /) -> Array: ...
        def __lt__(self, other: Any, /) -> Array: ...
        def __le__(self, other: Any, /) -> Array: ...
        def __gt__(self, other: Any, /) -> Array: ...
        def __ge__(self, other: Any, /) -> Array: ...
        def __eq__(self, other: Any, /) -> Array: ...  # type: ignore[override]  # elementwise, as the standard says
        def __ne__(self, other: Any, /) -> Array: ...  # type: ignore[override]  # elementwise, as the standard says
        def __neg__(self, /) -> Array: ...
        def __pos__(self, /) -> Array: ...
        def __abs__(self, /) -> Array: ...
        def __invert__(self, /) -> Array: ...

        # moving data (xbackend/_interchange.py), indexing (_indexing.py), pickle and deep copy (_pickling.py), the
        # bound namespace (_namespace.py)
        def to(self, backend: str | None = None, device: Any = None, dtype: DType | None = None, *,
               copy: bool | None = None) -> Array: ...  # fmt: skip
        def numpy(self, *, copy: bool | None = True) -> Any: ...
        def __dlpack__(self, /, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                       copy: bool | None = None) -> Any: ...  # fmt: skip
        def __getitem__(self, key: Any) -> Array: ...
        def __setitem__(self, key: Any, value: Any) -> None: ...
        def __reduce__(self) -> tuple[Any, tuple[Any, ...]]: ...
        def __deepcopy__(self, memo: dict[int, Any]) -> Array: ...
        def __array_namespace__(self, /, *, api_version: str | None = None) -> Any: ...

        # autograd (xbackend/_grad/autograd.py; torch; other backends: None/False, or GradientError)
        @property
        def grad(self) -> Array | None: ...
        @grad.setter
        def grad(self, value: Array | None) -> None: ...
        @property
        def requires_grad(self) -> bool: ...
        @requires_grad.setter
        def requires_grad(self, flag: bool) -> None: ...
        @property
        def is_leaf(self) -> bool: ...
        def requires_grad_(self, requires_grad: bool = True) -> Array: ...
        def backward(self, gradient: Array | None = None, *, retain_graph: bool | None = None,
                     create_graph: bool = False) -> None: ...  # fmt: skip

        # NumPy's methods and ufuncs (xbackend/_methods.py)
        def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> Array: ...
        def swapaxes(self, axis1: int, axis2: int, /) -> Array: ...
        def sum(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def prod(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def mean(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def max(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def min(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def any(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def all(self, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> Array: ...
        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any: ...

        # other libraries' habits (xbackend/_habits.py)
        def copy(self) -> Array: ...
        def clone(self) -> Array: ...
        def cpu(self) -> Array: ...
        def cuda(self, device: Any = None) -> Array: ...
        def transpose(self, *axes: Any) -> Array: ...
        def __round__(self, ndigits: int | None = None) -> Array: ...

    # -- properties -----------------------------------------------------------------------------
    @property
    def dtype(self) -> DType:
        return self._dt

    @property
    def device(self) -> Device:
        """Where the data lives, bound to the backend: ``Device('torch', 'cuda:0')``.

        ``device=x.device`` in any function lands on x's backend and device.
        """
        try:
            return self._dev._bound[self._be.name]
        except KeyError:
            return _bind(self._dev, self._be.name)

    @property
    def backend(self) -> str:
        """The backend's name: ``"numpy"``, ``"torch"``, ``"cupy"``, ..."""
        return self._be.name

    @property
    def native(self) -> Any:
        """The wrapped native array (no copy)."""
        return self._data

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The sizes; ``None`` where a lazy backend does not know one yet (after a boolean mask on Dask)."""
        if self._be.unknown_shapes:
            return self._be.shape_of(self._data)
        return tuple(self._data.shape)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int | None:
        n = 1
        for s in self.shape if self._be.unknown_shapes else self._data.shape:
            if s is None:
                return None
            n *= s
        return n

    @property
    def T(self) -> "Array":
        if self._data.ndim != 2:
            raise ShapeError(f"x.T needs a 2-d Array, got a {self._data.ndim}-d one. Fix: use x.mT (the last two axes) or "
                             "xb.permute_dims()")
        return _new(self._be.permute(self._data, (1, 0)), self._dt, self._dev, self._be)

    @property
    def mT(self) -> "Array":
        n = self._data.ndim
        if n < 2:
            raise ShapeError(f"x.mT needs at least 2 dimensions, got {n}. Fix: xb.reshape(x, (1, -1)).mT for a row")
        axes = tuple(range(n - 2)) + (n - 1, n - 2)
        return _new(self._be.permute(self._data, axes), self._dt, self._dev, self._be)

    # -- conversion -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        body = self._be.format(self._data)
        return f"Array({body}, backend={self._be.name!r}, device={str(self._dev)!r}, dtype={self._dt.name})"

    __str__ = __repr__

    def _scalar(self, kind: str) -> Any:
        if self.size != 1:
            if kind == "bool":  # NumPy's ValueError, with the standard's spelling of the fix
                raise ShapeError(f"the truth value of an Array with {self.size} elements (shape {self.shape}) is "
                                 "ambiguous. Fix: use xb.any(x) or xb.all(x), e.g. bool(xb.any(x))")  # fmt: skip
            raise ArgumentTypeError(f"{kind}() needs an Array with one element, got shape {self.shape}. Fix: reduce "
                                    f"it first (e.g. {kind}(xb.sum(x))) or index one element ({kind}(x[0]))")
        return self._be.item(self._data)

    def __format__(self, spec: str) -> str:
        """A 0-d Array formats like the number it holds (``f"{loss:.4f}"``; synchronises a GPU, like
        ``.item()``); larger ones only with an empty spec, as NumPy.

        >>> import xbackend as xb
        >>> x = xb.asarray(2.0) / 3
        >>> f"{x:.4f}", format(x, "e"), "%.3f" % x
        ('0.6667', '6.666667e-01', '0.667')
        """
        if self._data.ndim == 0:
            return format(self._be.item(self._data), spec)
        if not spec:
            return str(self)
        raise ArgumentTypeError(f"unsupported format string passed to Array.__format__ (a {self.ndim}-d Array; only "
                                "0-d Arrays format like numbers). Fix: format x.tolist(), or each element")  # fmt: skip

    def __bool__(self) -> bool:
        return bool(self._scalar("bool"))

    def __int__(self) -> int:
        if self._dt.kind == "c":
            raise ArgumentTypeError("int() of a complex Array. Fix: int(xb.real(x))")
        return int(self._scalar("int"))

    def __float__(self) -> float:
        if self._dt.kind == "c":
            raise ArgumentTypeError("float() of a complex Array. Fix: float(xb.real(x)), or complex(x)")
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._dt.kind not in "iu" or self._data.ndim != 0:
            raise ArgumentTypeError(f"only 0-d integer Arrays can be used as an index, got a {self.ndim}-d {self._dt} "
                                    "Array")  # fmt: skip
        return int(self._be.item(self._data))

    def item(self) -> Any:
        """The single element as a Python scalar (synchronises a GPU, computes a lazy Array)."""
        return self._scalar("item")

    def compute(self) -> "Array":
        """The concrete values (a lazy Dask Array computes into its chunk library); eager Arrays: ``self``."""
        return _computed(self, self._be.compute([self._data])[0])

    def persist(self) -> "Array":
        """A lazy Array whose values are computed and kept in (cluster) memory; eager Arrays: ``self``."""
        y = self._be.persist(self._data)
        return self if y is self._data else _new(y, self._dt, self._dev, self._be)

    def tolist(self) -> Any:
        """Nested Python lists (a scalar for 0-d Arrays)."""
        return self._be.tolist(self._data)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise ArgumentTypeError("len() of a 0-d Array (it has no length). Fix: use x.shape, or x.item()")
        n = self.shape[0]
        if n is None:
            raise ArgumentTypeError("len() of an Array whose length is unknown until computed. Fix: x = x.persist() first")
        return n

    def __iter__(self) -> Iterator["Array"]:
        """The sub-Arrays along the first axis. A 0-d Array raises at ``iter(x)`` already (as NumPy and torch do,
        so ``iter()``-based checks for iterables answer right), not at the first ``next()``."""
        if self._data.ndim == 0:
            raise ArgumentTypeError("iteration over a 0-d Array. Fix: use x.item() for its value")
        return (self[i] for i in range(self._data.shape[0]))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        if self._dev.type != "cpu":
            raise HostTransferError(
                f"implicit conversion of a {self._be.name} Array on {self._dev} to a NumPy array; xbackend never "
                "copies device memory to the host silently. Fix: call x.numpy() (or xb.to_numpy(x))"
            )
        return self._be.export_for_numpy(self._data, dtype=dtype, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._be.dlpack_device(self._data)

    def to_device(self, device: Any, /, *, stream: Any = None) -> "Array":
        """Move to ``device`` on the same backend (Array API)."""
        return self.to(device=device)

    def astype(self, dtype: DType, /, *, copy: bool = True) -> "Array":
        dt = dtype if type(dtype) is DType else D.dtype(dtype)
        if dt is self._dt and not copy:
            return self
        if self._dt.kind == "c" and dt.kind != "c":
            D.check_cast(self._dt, dt)
        out = _alloc()
        if self._dt.kind == "f" and dt.kind in "iu":  # saturating (C leaves out-of-range casts undefined)
            out._data = self._be.saturating_cast(self._data, self._dt, dt, self._dev)
        else:
            out._data = self._be.astype(self._data, dt, True)
        out._dt = dt
        out._dev = self._dev
        out._be = self._be
        return out

    def detach(self) -> "Array":
        """The same data without an autograd graph (torch; on JAX ``jax.lax.stop_gradient``, so ``xb.grad`` treats it as
        a constant); other backends: the same data."""
        return _new(self._be.detach(self._data), self._dt, self._dev, self._be)

    def __copy__(self) -> "Array":
        """A new Array object sharing the data (like a view)."""
        return _new(self._data, self._dt, self._dev, self._be)

    @staticmethod
    def _new(data: Any, dt: DType, dev: Device, be: Any) -> "Array":
        """The private constructor: an Array of native ``data`` with its dtype, device and backend (xbackend's only
        way to make one; ``Array(...)`` raises)."""
        if isinstance(data, _np.generic):  # 0-d Arrays are 0-d arrays: never a NumPy scalar inside
            data = _np.asarray(data)
        a = _alloc()
        a._data = data
        a._dt = dt
        a._dev = dev
        a._be = be
        return a


_alloc: Callable[[], Array] = type.__call__.__get__(Array, _NoDirectCalls)  # an empty Array (see _NoDirectCalls)

def _computed(a: Array, native: Any) -> Array:
    """``a`` after its backend's ``compute`` returned ``native``: ``a`` itself when nothing changed (eager
    backends), else an Array of the chunk library (NumPy for a Dask Array on the CPU)."""
    if native is a._data:
        return a
    dst = get_backend(a._be.chunk_backend_name(a._dev))
    return _new(native, a._dt, dst.device_of(native), dst)


_new = Array._new  # the private constructor, as a plain function (what the rest of the house imports)


def wrap_native(v: Any) -> Array:
    """A native array as an Array of its own backend and device (no copy); a NumPy scalar as a 0-d NumPy Array.
    Anything else raises :class:`~xbackend.ArgumentTypeError` naming ``xb.asarray``."""
    be = backend_for_type(type(v))
    if be is None:
        if not isinstance(v, _np.generic):
            raise ArgumentTypeError(f"expected an xbackend Array or a native array, got {type(v).__name__}; use "
                                    "xb.asarray()")  # fmt: skip
        v = _np.asarray(v)
        be = backend_for_type(_np.ndarray)
    v = be.adopt(v)  # type: ignore[union-attr]
    return _new(v, be.dtype_of(v), be.device_of(v), be)  # type: ignore[union-attr]

#: while ``xb.grad`` differentiates a function through another backend (NumPy and CuPy Arrays through torch): how an
#: Array of the inputs' place meets the engine's views, an object with ``partners(a, b, inplace=)`` and
#: ``mismatch(a, b, write)`` (``xbackend/_grad/closures.py``); None elsewhere. Read on the mismatch paths only.
MIXED_PLACES: contextvars.ContextVar[Any] = contextvars.ContextVar("xbackend_mixed_places", default=None)


# --- operands ----------------------------------------------------------------------------------
def _check_partner(a: Array, b: Array, native: bool = False, write: bool = False) -> None:
    """Raise the mismatch error for two operands of one call on different backends or devices. The fix names the
    explicit move, spelled so that it works for an Array and a native array alike (``xb.asarray(y, ...)``).
    Inside ``xb.grad`` a closure Array next to the differentiated views raises what :data:`MIXED_PLACES` says
    (the boundary then runs the call again with the closure as a constant)."""
    rule = MIXED_PLACES.get()
    if rule is not None:
        in_grad = rule.mismatch(a, b, write)
        if in_grad is not None:
            raise in_grad
    here = f"backend={a._be.name!r}, device={str(a._dev)!r}"
    what = f"Arrays (one a native {type(b._data).__module__.partition('.')[0]} array)" if native else "Arrays"
    if "meta" in (a._dev.type, b._dev.type):  # a meta tensor has no data: nothing can move to or from it
        cls = BackendMismatchError if b._be is not a._be else DeviceMismatchError
        raise cls(mismatch("devices", f"{a._dev} ({a._be.name})", f"{b._dev} ({b._be.name})",
                           "a 'meta' Array has shape and dtype but no data, so it cannot be moved; create both "
                           "operands on a real device (e.g. device='cpu')"))  # fmt: skip
    if b._be is not a._be:
        raise BackendMismatchError(
            mismatch("backends", f"{a._be.name} ({a._dev})", f"{b._be.name} ({b._dev})",
                     f"move one explicitly, e.g. y = xb.asarray(y, {here})").replace("Arrays", what, 1)
        )  # fmt: skip
    raise DeviceMismatchError(
        mismatch("devices", f"{a._dev} ({a._be.name})", f"{b._dev} ({b._be.name})",
                 f"move one explicitly, e.g. y = xb.asarray(y, {here})").replace("Arrays", what, 1)
    )  # fmt: skip


def _partners(a: Array, b: Array, inplace: bool = False, native: bool = False) -> tuple[Array, Array]:
    """Operands of two places: inside ``xb.grad``, a closure Array next to a differentiated view becomes a constant
    on the engine (:data:`MIXED_PLACES`; ``inplace``: only ``b``); otherwise the mismatch error. Called on the
    mismatch path only."""
    rule = MIXED_PLACES.get()
    pair = None if rule is None else rule.partners(a, b, inplace=inplace)
    if pair is None:
        _check_partner(a, b, native, write=inplace)
    return pair  # type: ignore[return-value]
