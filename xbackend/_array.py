"""The backend-agnostic Array.

Design constraint: this module names no backend library. An Array holds four things in
``__slots__``: the native array, its :class:`DType`, its :class:`Device` and its backend object.
Every operator has the same shape: check backend and device -> decide the dtype from the tables in
``_rules``/``_dtypes`` -> ask the backend's kernel -> ``_new``. Result dtypes and devices are known
before the backend runs, so nothing is read back from the native result on the hot path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as _np

from . import _boundary, _config, _dtypes as D
from ._grad import closures as _GH
from ._backend import Backend
from ._devices import Device, bind as _bind
from ._dispatch import get_backend
from ._dtypes import DType
from ._errors import (
    ArgumentTypeError,
    ArgumentValueError,
    ShapeError,
    BackendMismatchError,
    DeviceMismatchError,
    HostTransferError,
    XBackendError,
    mismatch,
)

__all__ = ["Array"]

_BOOL = D.bool
_PROMO = D.PROMOTION
_INT_RANGE = D._INT_RANGE
_current = _config.current
_SCALARS = (int, float, complex, bool)
API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")


class _NoDirectCalls(type):
    """Array's metaclass: ``Array(...)`` raises with the fix. xbackend itself builds Arrays with :data:`_alloc`
    (``type.__call__`` bound to Array: an empty instance at C speed, ~35 ns less than ``object.__new__(Array)``,
    which matters on a path whose whole budget is a few hundred ns)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("Array() cannot be called directly; use xb.asarray(data) or a creation function")


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
    # __array_ufunc__ (NumPy's ufuncs run xbackend's functions) and NumPy's methods: installed by xbackend._methods
    __array_priority__ = 1000

    # The operators are installed by xbackend._operators when it loads (one implementation per arity, shared
    # with xb.add & co.; ``import xbackend`` imports it); declared here for type checkers.
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

        # autograd, installed by xbackend._autograd (torch; other backends: None/False, or GradientError)
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

        # other libraries' habits, installed by xbackend._habits
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

    def numpy(self, *, copy: bool | None = True) -> Any:
        """A NumPy array with this Array's values: an independent copy on every backend and device, so a later
        in-place update of the Array never shows in it (``xb.to_numpy``; ``copy=None`` shares on the CPU)."""
        return _Late.to_numpy(self, copy=copy)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """The Array API namespace bound to this Array's backend and device (cached: one object per device).

        It is the xbackend namespace, except that its creation functions default to this backend and
        device, so standard-conforming code (``xp.arange(n)``, ``xp.asarray(host_data)``) creates next
        to this Array.
        """
        if api_version is not None and api_version not in API_VERSIONS:
            raise ArgumentValueError(f"unsupported Array API version {api_version!r}; supported: {', '.join(API_VERSIONS)}")
        d = self.device
        ns = _NAMESPACES.get(d)
        if ns is None:
            ns = _NAMESPACES[d] = _Late.namespace_for(d)
        return ns

    def __dlpack__(self, /, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:  # fmt: skip
        return _Late.export_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._be.dlpack_device(self._data)

    def to(self, backend: str | None = None, device: Any = None, dtype: DType | None = None, *,
           copy: bool | None = None) -> "Array":  # fmt: skip
        """Move/cast to another backend, device or dtype.

        ``copy=None`` shares memory where that is safe, ``copy=True`` always copies, ``copy=False`` raises
        :class:`~xbackend.CopyError` where sharing is impossible.

        >>> import xbackend as xb
        >>> xb.asarray([1, 2]).to(dtype=xb.float32).dtype
        xb.float32
        """
        dt = None if dtype is None else (dtype if type(dtype) is DType else D.dtype(dtype))
        return _Late.move(self, backend=backend, device=device, dtype=dt, copy=copy)

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

    # -- pickle and copy ----------------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as (backend name, the native array pickled by its own library, dtype, device); see
        ``xbackend/_pickling.py``."""
        return _Late.reduce(self)

    def __copy__(self) -> "Array":
        """A new Array object sharing the data (like a view)."""
        return _new(self._data, self._dt, self._dev, self._be)

    def __deepcopy__(self, memo: dict[int, Any]) -> "Array":
        """An independent copy on the same backend and device (``xbackend/_pickling.py``)."""
        return _Late.deepcopy(self, memo)

    # -- indexing -------------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> "Array":
        be = self._be
        t = type(key)  # a step-less slice first: x[1:-1] is the commonest key
        if (t is slice and key.step is None or t is int) and be.native_basic_indexing:
            out = _alloc()
            try:  # x[i] of a 1-d NumPy array is a scalar; x[i, ...] the 0-d view every other library returns
                out._data = self._data[key] if t is slice or be.int_key_view else self._data[key, ...]
            except Exception as exc:  # free while nothing is raised
                _index_failed(self, key, exc)
                raise
            out._dt = self._dt
            out._dev = self._dev
            out._be = be
            return out
        try:
            nkey = _Late.native_key(self, key)
            return _new(be.getitem(self._data, nkey), self._dt, self._dev, be)
        except Exception as exc:  # free while nothing is raised
            _index_failed(self, key, exc)
            raise

    def __setitem__(self, key: Any, value: Any) -> None:
        nkey = _Late.native_key(self, key)
        v = _Late.setitem_value(self, value)
        try:
            new = self._be.setitem(self._data, nkey, v)
        except Exception as exc:  # free while nothing is raised
            _setitem_failed(self, key, nkey, v, exc)
            raise
        if new is not None:  # a library of immutable arrays (JAX): the backend returns the updated one
            self._data = new


_alloc: Callable[[], Array] = type.__call__.__get__(Array, _NoDirectCalls)  # an empty Array (see _NoDirectCalls)

_NAMESPACES: dict[Device, Any] = {}  # bound Device -> its namespace (xbackend._namespace builds them)


class _Late:
    """The parts of an Array that are implemented above this module: moving and exporting data
    (``xbackend._interchange``), index keys and ``__setitem__`` values (``xbackend._coerce``, the one way in) and
    the bound namespace (``xbackend._namespace``). Those modules import :class:`Array`, so this one cannot import
    them back; each installs its function here when it is imported, and ``import xbackend`` imports them
    all. A class attribute costs what a module global does on the hot path (no import machinery per call).
    """

    to_numpy: Callable[..., Any]
    export_dlpack: Callable[..., Any]
    move: Callable[..., "Array"]
    transport: Callable[..., Any]
    import_dlpack: Callable[..., "Array"]
    namespace_for: Callable[[Device], Any]
    native_key: Callable[["Array", Any], Any]
    setitem_value: Callable[["Array", Any], Any]
    stack: Callable[..., "Array"]
    reduce: Callable[["Array"], tuple[Any, tuple[Any, ...]]]
    deepcopy: Callable[["Array", dict[int, Any]], "Array"]


def _computed(a: Array, native: Any) -> Array:
    """``a`` after its backend's ``compute`` returned ``native``: ``a`` itself when nothing changed (eager
    backends), else an Array of the chunk library (NumPy for a Dask Array on the CPU)."""
    if native is a._data:
        return a
    dst = get_backend(a._be.chunk_backend_name(a._dev))
    return _new(native, a._dt, dst.device_of(native), dst)


def _new(data: Any, dt: DType, dev: Device, be: Any) -> Array:
    if isinstance(data, _np.generic):  # 0-d Arrays are 0-d arrays: never a NumPy scalar inside (issue 19)
        data = _np.asarray(data)
    a = _alloc()
    a._data = data
    a._dt = dt
    a._dev = dev
    a._be = be
    return a


Array._new = staticmethod(_new)  # type: ignore[attr-defined]
_GH.NEW[:] = [_new]


# --- operands ----------------------------------------------------------------------------------
def _check_partner(a: Array, b: Array, native: bool = False, write: bool = False) -> None:
    """Raise the mismatch error for two operands of one call on different backends or devices. The fix names the
    explicit move, spelled so that it works for an Array and a native array alike (``xb.asarray(y, ...)``).
    Inside ``xb.grad`` a closure Array next to the differentiated views raises what ``xbackend._gradhomes`` says
    (the boundary then runs the call again with the closure as a constant)."""
    in_grad = _GH.mismatch_in_grad(a, b, write)
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
    on the engine (``xbackend._gradhomes``; ``inplace``: only ``b``); otherwise the mismatch error. Called on the
    mismatch path only."""
    pair = _GH.partners(a, b, inplace=inplace)
    if pair is None:
        _check_partner(a, b, native, write=inplace)
    return pair  # type: ignore[return-value]


# --- native errors, translated (xbackend/_boundary.py; called only after a native kernel raised) ----------
def _failed(name: str, a: Array, b: Any, exc: BaseException, inplace: bool = False) -> None:
    """An operator's kernel raised: shapes that do not broadcast raise ShapeError, anything else its translation."""
    if type(b) is Array:
        _boundary.binary_failed(name, a, b, exc, inplace)
    _boundary.any_failed(name, exc)


_matmul_failed = _boundary.matmul_failed
_index_failed = _boundary.index_failed


def _setitem_failed(a: Array, key: Any, nkey: Any, value: Any, exc: BaseException) -> None:
    """A write raised natively: a value that does not broadcast to the selection raises ShapeError, an index
    outside an axis IndexOutOfRangeError, anything else its translation (called only on the error path)."""
    vshape = getattr(value, "shape", None)
    if vshape is not None and not isinstance(exc, IndexError):
        try:
            sel = tuple(a._be.getitem(a._data, nkey).shape)
        except Exception:  # noqa: BLE001 - the key itself is wrong: the index checks below say how
            sel = None
        if sel is not None and (len(vshape) > len(sel) or _boundary.broadcast(tuple(vshape), sel) != sel):
            raise ShapeError(f"cannot write a value of shape {tuple(vshape)} into a selection of shape {sel}; a value "
                             "must broadcast to the selection. Fix: reshape the value, or select a region of its "
                             "shape") from exc  # fmt: skip
    _index_failed(a, key, exc)
