"""The contract every backend implements.

Design constraint: the core (``_array.py``, the function modules) never names a backend library. It
calls the methods below on a :class:`Backend` instance with *native* arrays and xbackend value
objects (:class:`~xbackend.DType`, :class:`~xbackend.Device`), and gets native arrays back. Every
quirk of a library lives in its own package under ``xbackend/_backends/``.

Required (a backend is unusable without them)
    ``name``, ``module`` (top-level module name, used for type dispatch without importing),
    ``probe()`` (classmethod: installed? usable? why not? - quiet, never raises),
    ``native_dtype(dt)`` / ``dtype_of(x)``, ``device_of(x)``, ``default_device()``, ``devices()``,
    ``check_device(dev)``, ``from_host(np_array, dt, dev, copy)``, ``to_host(x, copy)``,
    ``wrap_native(x, dt, dev, copy)`` (a native array of this backend -> dtype/device/copy applied),
    ``astype(x, dt, copy)``, ``make_kernel(name, dt)`` (an elementwise kernel for inputs of dtype ``dt``),
    the creation primitives ``empty/zeros/ones/full/arange/linspace/eye/tril/triu/meshgrid``,
    ``getitem``, ``setitem`` (writes into ``x`` and returns None; a library of immutable arrays returns the
    updated array, which the Array then holds), ``item``, ``tolist``, ``reshape``.

Optional (defaults here raise a typed error or fall back to a generic implementation)
    ``exception_modules`` (the modules besides ``module`` whose exceptions the library's calls raise: translated
    into typed errors at the boundary), ``dlpack``, ``dlpack_device``, ``synchronize``, ``compile`` (``@xb.jit``:
    None, the default, runs eagerly),
    and the autograd methods inherited from :class:`AutogradContract` (``requires_grad``,
    ``detach``, ``grad_of``, ``backward``, ``value_and_grad``, ...; defaults: no autograd, refused with a fix).

Fast-path hooks (optional; the defaults below call the general methods, so overriding them only buys speed)
    ``forward_kernel(name, dt)`` (the kernel when the first argument is a native array),
    ``creator(method, dt, dev)`` (``empty/zeros/ones`` with dtype and device converted once: ``(fn, arg)``,
    called ``fn(shape)`` when ``arg`` is None, else ``fn(shape, arg)``),
    ``caster(dt)`` (``astype`` to ``dt`` from another dtype), ``default_device_probe()``,
    ``full_reducer(name, dt)`` (``reduce`` over every axis), ``reshaper()``, and the flags
    ``native_basic_indexing`` and ``native_reshape``. Each must give exactly what the general method gives; ``tests/test_fast_paths.py`` compares them.

Kernels are looked up through ``backend.kernels[name][dtype]`` (plain dicts; on a miss,
``backend.kernel(name, dtype)`` builds the kernel with ``make_kernel`` and caches it), so per-dtype emulation (torch's uint32 arithmetic, say) costs nothing on the
hot path of the dtypes that need none.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, ContextManager

from ._dtypes import DType
from ._errors import GradientError, UnsupportedDTypeError

if TYPE_CHECKING:  # annotations only
    import numpy as np

    from ._devices import Device

__all__ = ["Backend", "BackendInfo", "AutogradContract", "GRAD_FIX", "runs_own"]


def runs_own(be: "Backend", mixin: type, name: str) -> bool:
    """True when ``be``'s class runs the method ``name`` of the backend class that mixes in ``mixin`` (no
    subclass overrides it): a fast-path hook written for that method must not bypass a subclass's own."""
    owner = next(c for c in type(be).__mro__ if mixin in c.__bases__)
    return getattr(type(be), name) is getattr(owner, name)


@dataclass(frozen=True)
class BackendInfo:
    """What :func:`xbackend.backends` reports for one backend."""

    name: str
    installed: bool
    usable: bool
    version: str | None = None
    devices: tuple[str, ...] = ()
    reason: str | None = None
    extra: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        state = "usable" if self.usable else ("installed, unusable" if self.installed else "not installed")
        line = f"{self.name:<6} {self.version or '-':<14} {state}"
        if self.devices:
            line += f"  devices: {', '.join(self.devices)}"
        if self.reason:
            line += f"  ({self.reason})"
        return line


def byte_bounds(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, int]:
    """``[lo, hi)`` byte addresses touched by a strided array (strides in bytes)."""
    if any(n == 0 for n in shape):
        return ptr, ptr
    lo = hi = ptr
    for n, s in zip(shape, strides):
        if s < 0:
            lo += s * (n - 1)
        else:
            hi += s * (n - 1)
    return lo, hi + itemsize


def dlpack_kwargs(stream: Any, max_version: Any, dl_device: Any, copy: bool | None) -> dict[str, Any]:
    """Keywords for a producer's ``__dlpack__``: ``stream`` always (its meaning differs between None and
    absent for some producers), the rest only when given (older producers reject unknown keywords)."""
    kw: dict[str, Any] = {"stream": stream}
    if max_version is not None:
        kw["max_version"] = max_version
    if dl_device is not None:
        kw["dl_device"] = dl_device
    if copy is not None:
        kw["copy"] = copy
    return kw


#: the registry's ``get_backend``, linked by ``xbackend/_assemble.py`` (the registry imports this module, so this
#: module cannot import it back)
_lookup: list[Callable[[str], "Backend"]] = []


def call_creator(pair: tuple[Callable[..., Any], Any], shape: Any) -> Any:
    """Call a :meth:`Backend.creator` pair as the core does: ``fn(shape)``, or ``fn(shape, arg)``."""
    fn, arg = pair
    return fn(shape) if arg is None else fn(shape, arg)


def _registered(name: str) -> "Backend":
    """The registry's instance of backend ``name`` (what a pickled backend unpickles to)."""
    return _lookup[0](name)


# --- the autograd part of the contract ------------------------------------------------------------------------
# The defaults are those of a backend with no autograd (NumPy, Dask, array-api-strict): they answer "nothing requires
# grad" and refuse everything else with GradientError, whose fix is the backend's ``grad_fix``. A backend with
# autograd (torch: ``_backends/torch/grad.py``; JAX: ``_backends/generic/grad.py``) overrides them; a backend whose
# Arrays another backend can differentiate without a copy (NumPy and CuPy, through torch) names it in ``grad_via``.
# The core (``xbackend/_grad/``) calls only these methods and never names a library.
#: the fix for a backend without autograd of its own that ``xb.grad`` can differentiate (through ``grad_via``)
GRAD_FIX = (
    "differentiate a function instead, g = xb.grad(loss)(w) (it works on NumPy and CuPy Arrays through torch), "
    "or keep the parameters on torch: w = xb.asarray(w, backend='torch', requires_grad=True)"
)

#: ``fn(xs) -> (value, aux)`` on native arrays: the function ``value_and_grad`` differentiates
NativeFn = Callable[[list[Any]], tuple[Any, list[Any]]]


class AutogradContract:
    """Optional backend methods for gradients; the defaults are those of a backend without autograd.

    ``requires_grad(x)``, ``detach(x)``, ``grad_of(x)``, ``set_grad(x, g)``, ``set_requires_grad(x, flag)``,
    ``is_leaf(x)``, ``backward(x, gradient, retain_graph, create_graph)`` back the Array attributes of the
    same names (``xbackend/_grad/autograd.py``); ``no_grad()`` is this backend's part of ``xb.no_grad()``;
    ``value_and_grad(fn, xs, wrt, nested)`` is ``xb.grad``'s engine (``xbackend/_grad/transform.py``);
    ``watch_grad(x, callback)`` reports the gradient reaching ``x`` in a backward pass (``diverge``'s trace);
    ``stream_handle``/``use_stream`` let a ``grad_via`` backend run on the stream of the Arrays it borrows.
    """

    name: ClassVar[str]
    #: the backend whose autograd differentiates this backend's Arrays in ``xb.grad`` (they are moved there
    #: without a copy, the gradients moved back); None: this backend's own :meth:`value_and_grad`
    grad_via: ClassVar[str | None] = None
    #: the one-line fix named when this backend is asked for autograd it does not have
    grad_fix: ClassVar[str] = GRAD_FIX
    #: True when the library has a global grad mode (torch) that ``xb.no_grad()`` switches off
    has_grad_mode: ClassVar[bool] = False

    def no_autograd(self, what: str) -> GradientError:
        """The refusal for ``what`` (an Array method or ``xb.grad``) on this backend, with its fix."""
        return GradientError(f"{what}: {self.name} Arrays record no autograd graph. Fix: {self.grad_fix}")

    def requires_grad(self, x: Any) -> bool:
        return False

    def detach(self, x: Any) -> Any:
        return x

    def grad_of(self, x: Any) -> Any:
        """The accumulated gradient of ``x`` (a native array) or None."""
        return None

    def set_grad(self, x: Any, g: Any) -> None:
        if g is not None:
            raise self.no_autograd("setting x.grad")

    def set_requires_grad(self, x: Any, flag: bool) -> Any:
        """``x`` with ``requires_grad`` set to ``flag``, changed in place (torch's ``requires_grad_``)."""
        if flag:
            raise self.no_autograd("requires_grad=True")
        return x

    def is_leaf(self, x: Any) -> bool:
        return True

    def backward(self, x: Any, gradient: Any, retain_graph: bool | None, create_graph: bool) -> None:
        raise self.no_autograd("x.backward()")

    def no_grad(self) -> ContextManager[Any] | None:
        """A context that stops this backend recording operations for autograd, or None (nothing to stop)."""
        return None

    def value_and_grad(self, fn: NativeFn, xs: list[Any], wrt: tuple[int, ...],
                       nested: bool) -> tuple[Any, list[Any], list[Any]]:  # fmt: skip
        """``fn(xs)``'s value, its gradients with respect to ``xs[i]`` for ``i`` in ``wrt``, and its aux
        natives. ``nested``: called inside another ``xb.grad``'s function, so inputs that require grad keep
        their graph (the gradients are differentiable again)."""
        raise self.no_autograd("xb.grad")

    def watch_grad(self, x: Any, callback: Callable[[Any], None]) -> bool:
        """Have ``callback(g)`` called with the gradient that reaches ``x`` (a native array that requires grad)
        when a backward pass computes it; False when this backend cannot (the default). Used only while
        ``xbackend.testing.diverge`` records a function (its backward pass, call by call)."""
        return False

    def stream_handle(self, dev: Device) -> int | None:
        """The raw handle of the stream current on ``dev`` (CUDA: ``cudaStream_t`` as an int), or None."""
        return None

    def use_stream(self, handle: int | None, dev: Device) -> ContextManager[Any]:
        """A context in which this backend's work on ``dev`` goes to the stream ``handle`` (another
        library's, from its :meth:`stream_handle`); a no-op by default."""
        return contextlib.nullcontext()


class Backend(AutogradContract):
    """Base class of all backends; see the module docstring for the contract."""

    name: ClassVar[str] = "?"
    module: ClassVar[str] = "?"
    #: True when ``default_device()`` can never change in this process (lets creation cache it)
    fixed_default_device: ClassVar[bool] = False
    #: True when ``native[key]`` for an int or a step-less slice key already has the standard's semantics
    #: (bounds checked, a view): ``Array.__getitem__`` then skips ``normalize_key``/``getitem``
    native_basic_indexing: ClassVar[bool] = False
    #: dtypes whose native arrays the library cannot pickle *and load back*: pickles carry a NumPy host copy
    pickle_via_host: ClassVar[frozenset[DType]] = frozenset()
    #: True when ``x.shape`` may hold unknown sizes (lazy backends): ``Array.shape`` then asks ``shape_of``
    unknown_shapes: ClassVar[bool] = False
    #: True when ``native[i]`` (an int) is an array on every input (torch); False when it is a scalar on a 1-d
    #: array (NumPy): the fast path then indexes with ``(i, ...)``, the 0-d view
    int_key_view: ClassVar[bool] = True
    #: True when index lists/NumPy arrays stay NumPy arrays in native keys (known values: known shapes)
    host_index_keys: ClassVar[bool] = False
    #: True for a lazy library (Dask): values are not known until computed, so checks that read values (the finite
    #: check of iterative linalg routines) run on each chunk when it is computed instead of at the call
    lazy: ClassVar[bool] = False
    #: top-level modules, besides ``module``, whose exceptions this backend's calls may raise: the boundary translates
    #: them into xbackend's typed errors (``xbackend/_boundary.py``); an exception of an undeclared module is taken
    #: for a user's (a callback's) and passes through untouched
    exception_modules: ClassVar[tuple[str, ...]] = ()
    #: True when ``native.reshape(shape)`` is ``reshape(x, shape, copy=None)`` for shapes whose entries are all
    #: ``>= -1`` (errors included: they fall through to the checks): ``xb.reshape`` then calls it directly
    native_reshape: ClassVar[bool] = False

    def __init__(self) -> None:
        #: ``kernels[name][dtype]`` -> native callable: plain dicts (the hot path does two lookups in a
        #: ``try``), filled on a miss by :meth:`kernel`
        self.kernels: dict[str, dict[DType, Callable[..., Any]]] = {}
        # the flags the hot paths read, as instance attributes (Python 3.11 reads those ~15 ns faster than
        # class attributes)
        for flag in ("native_basic_indexing", "native_reshape", "int_key_view"):
            setattr(self, flag, getattr(type(self), flag))
        #: the ``caster`` hook's results, cached by ``xb.astype``: ``casters[dt]`` (the operators, ``xb.matmul``
        #: and ``xb.sum`` keep their own tables, keyed by backend)
        self.casters: dict[DType, Callable[[Any], Any]] = {}
        #: what ``xb.reshape``'s fast path calls (see :meth:`reshaper`)
        self.reshape_fn = self.reshaper()

    def kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        """The kernel for ``name`` on inputs of dtype ``dt`` (built by ``make_kernel`` once, then cached)."""
        table = self.kernels.get(name)
        if table is None:
            table = self.kernels[name] = {}
        fn = table.get(dt)
        if fn is None:
            fn = table[dt] = self.make_kernel(name, dt)
        return fn

    # -- fast-path hooks: each returns a callable that does what the general method does ----------------
    def forward_kernel(self, name: str, dt: DType) -> Callable[..., Any]:
        """``kernel(name, dt)`` for calls whose first argument is a native array of this backend (the second:
        a native array or a Python scalar); the binary operators' fast paths use it. A library function can
        be cheaper there than the operator the general kernel calls (torch: ``torch.add`` skips the
        ``Tensor.__add__`` slot lookup)."""
        return self.kernel(name, dt)

    def creator(self, method: str, dt: DType, dev: Device | None) -> tuple[Callable[..., Any], Any]:
        """``(fn, arg)`` such that ``fn(shape)`` (``arg`` None) or ``fn(shape, arg)`` (otherwise) is
        ``getattr(self, method)(shape, dt, dev)``, for ``method`` in empty, zeros, ones: a pair, so that a
        library function taking the dtype second needs no wrapper, and one taking the shape alone (a bound
        method of a prototype array) no second argument. ``dev=None``: on ``default_device()`` as it is at
        the call."""
        fn = getattr(self, method)
        if dev is None:
            default = self.default_device
            return (lambda shape: fn(shape, dt, default())), None
        return (lambda shape: fn(shape, dt, dev)), None

    def scalar_maker(self, dt: DType, dev: Device) -> Callable[[Any], Any]:
        """``v -> self.full((), v, dt, dev)``: the 0-d array of a Python scalar ``v`` (already fit to ``dt``) that
        an operand becomes; the core caches it per (backend, dtype, device)."""
        full = self.full
        return lambda v: full((), v, dt, dev)

    def reshaper(self) -> Callable[[Any, Any], Any] | None:
        """``fn`` such that ``fn(x, shape)`` is ``self.reshape(x, shape)`` (``copy=None``) for shapes whose entries
        are all ``>= -1``, or None where the native method ``x.reshape(shape)`` is (``native_reshape``): what
        ``xb.reshape`` calls on its fast path. Default: ``self.reshape``."""
        return None if self.native_reshape else self.reshape

    def default_device_probe(self) -> tuple[Callable[[], Any], Any]:
        """``(probe, token)``: while ``probe() is token``, ``default_device()`` answers what it answers now
        (creation reuses a cached entry for the default device under that condition). Default:
        ``default_device`` itself and its answer."""
        return self.default_device, self.default_device()

    def caster(self, dt: DType) -> Callable[[Any], Any]:
        """``x -> self.astype(x, dt, True)`` for ``x`` of another dtype than ``dt`` (cached by ``xb.astype``)."""
        astype = self.astype
        return lambda x: astype(x, dt, True)

    def full_reducer(self, name: str, dt: DType) -> Callable[[Any], Any]:
        """``x -> self.reduce(name, x, dt, every axis, False)`` for ``x`` of dtype ``dt``; a 0-d ``x`` is reduced
        as its one-element 1-d reshape (``reduce`` never sees an empty axis tuple)."""
        reduce, reshape = self.reduce, self.reshape

        def full(x: Any) -> Any:
            n = x.ndim
            if n == 0:
                x, n = reshape(x, (1,)), 1
            return reduce(name, x, dt, tuple(range(n)), False)

        return full

    def host_importer(self) -> Callable[[Any], tuple[Any, DType] | None] | None:
        """A function ``a -> (native array, dtype)`` that takes NumPy array ``a`` onto this backend's CPU device
        sharing its memory, giving what ``from_host(a, its dtype, cpu, None)`` gives, or None where it cannot
        (that call decides then); None: no such import (default)."""
        return None

    def adopt(self, x: Any) -> Any:
        """``x`` (a native array of this library) as the array an Array holds: the library's plain array type.
        Default: ``x``. NumPy views ``matrix`` and ``memmap`` as plain ndarrays (no copy) and refuses masked
        arrays, whose mask would be dropped silently."""
        return x

    def __repr__(self) -> str:
        return f"<xbackend backend {self.name!r}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """A backend pickles as its name (the receiving process loads its own), never its kernel tables,
        whose entries are local closures that cannot be pickled."""
        return (_registered, (self.name,))

    @classmethod
    def probe(cls) -> BackendInfo:  # pragma: no cover - every backend overrides
        raise NotImplementedError(f"backend {cls.name} must implement probe()")

    # -- helpers shared by all backends ---------------------------------------------------------
    def unsupported(self, dt: DType, alternatives: str = "") -> UnsupportedDTypeError:
        alt = alternatives or "cast first, e.g. x.astype(xb.float32), or use another backend"
        return UnsupportedDTypeError(f"the {self.name} backend cannot hold dtype {dt}. Fix: {alt}")

    def native_array_types(self) -> tuple[type, ...]:
        return ()

    # -- optional parts -------------------------------------------------------------------------
    def shape_of(self, x: Any) -> tuple[int | None, ...]:
        return tuple(x.shape)

    def compute(self, xs: list[Any]) -> list[Any]:
        """Concrete results of lazy arrays, in one pass (eager backends: the arrays themselves)."""
        return list(xs)

    def persist(self, x: Any) -> Any:
        return x

    def deepcopy(self, x: Any, memo: dict[int, Any]) -> Any:
        """An independent copy of native ``x`` for ``copy.deepcopy(Array)`` (the library's own deepcopy)."""
        import copy

        return copy.deepcopy(x, memo)

    def rechunk(self, x: Any, chunks: Any) -> Any:
        from ._errors import BackendMismatchError

        raise BackendMismatchError(f"chunks apply to chunked (Dask) Arrays, not to {self.name} ones. "
                                   "Fix: x.to(backend='dask') (or xb.asarray(..., backend='dask', chunks=...))")

    def chunk_backend_name(self, dev: Any) -> str:
        """The backend whose arrays hold this backend's computed values (itself for eager backends)."""
        return self.name

    def synchronize(self, dev: Device) -> None:
        return None

    def dlpack(self, x: Any, stream: Any = None, max_version: Any = None, dl_device: Any = None,
               copy: bool | None = None) -> Any:  # fmt: skip
        given = (("stream", stream), ("max_version", max_version), ("dl_device", dl_device), ("copy", copy))
        return x.__dlpack__(**{k: v for k, v in given if v is not None})

    def dlpack_device(self, x: Any) -> tuple[int, int]:
        return x.__dlpack_device__()

    def dlpack_unsynced(self, x: Any) -> Any:
        """A DLPack capsule of ``x`` (already made safe by :meth:`export_dlpack`) for a consumer that works on
        this library's current stream: DLPack's ``stream=-1``, no synchronisation (the hand-off between two
        GPU libraries on one stream, ``xbackend/_interchange.py``)."""
        return x.__dlpack__(stream=-1)

    def saturating_cast(self, x: Any, src: DType, dst: DType, dev: Any) -> Any:
        """``x`` (native, float dtype ``src``) cast to the integer dtype ``dst``, saturating (the rule and this
        generic version: :mod:`xbackend._saturate`). NumPy/CuPy and torch override it with fewer passes."""
        from ._saturate import saturating_cast

        return saturating_cast(self, x, src, dst, dev)

    def compile(self, fn: Callable[..., Any], example: list[Any], options: dict[str, Any]) -> Callable[..., Any] | None:
        """Compile ``fn`` (native arrays in, a list of native arrays out) for inputs like ``example``.

        Returns a callable with ``fn``'s signature, or ``None``: this backend runs jitted functions
        eagerly (the default; NumPy and Dask keep it). Raise :class:`xbackend._errors.JitUnsupported` (or
        any error) with the reason when ``fn`` cannot be compiled; ``@xb.jit`` then runs it eagerly
        and warns once. A compiled callable must check its own shape assumptions (retrace when they
        fail) and never return what ``fn`` would not. Torch (``torch.compile``) and JAX (``jax.jit``) override it.
        """
        return None

    # -- the rest of the contract, as type checkers see it -------------------------------------
    # Every built-in backend defines these (signatures as NumpyBackend, the reference backend, writes them); the
    # core calls them on a ``Backend``. Declared for mypy only: at run time a missing one is an AttributeError
    # naming the method, and no stub here can shadow a subclass's method.
    if TYPE_CHECKING:
        def astype(self, x: Any, dt: DType, copy: bool = True) -> Any: ...
        def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any: ...
        def check_device(self, dev: Device) -> Device: ...
        def concat(self, xs: list[Any], axis: int) -> Any: ...
        def count_nonzero(self, x: Any, axes: tuple[int, ...], keepdims: bool) -> Any: ...
        def data_ptr(self, x: Any) -> int: ...
        def default_device(self) -> Device: ...
        def device_of(self, x: Any) -> Device: ...
        def devices(self) -> list[Device]: ...
        def diff(self, x: Any, dt: DType, axis: int, n: int) -> Any: ...
        def dtype_of(self, x: Any) -> DType: ...
        def export_dlpack(self, x: Any) -> Any: ...
        def export_for_numpy(self, x: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray: ...
        def flip(self, x: Any, axes: tuple[int, ...]) -> Any: ...
        def format(self, x: Any) -> str: ...
        def from_host(self, a: np.ndarray, dt: DType, dev: Device, copy: bool | None) -> Any: ...
        def full(self, shape: tuple[int, ...], value: Any, dt: DType, dev: Device) -> Any: ...
        # backends with unknown_shapes: x's shape and chunks filled with value (None: uninitialised)
        def filled_like(self, x: Any, value: Any, dt: DType, dev: Device) -> Any: ...
        def getitem(self, x: Any, key: Any) -> Any: ...
        def inplace(self, op: Callable[[Any, Any], Any], name: str, x: Any, y: Any) -> Any: ...
        def isin(self, x1: Any, x2: Any, dt: DType, invert: bool) -> Any: ...
        def item(self, x: Any) -> Any: ...
        def la_cholesky(self, x: Any, upper: bool) -> Any: ...
        def la_cross(self, a: Any, b: Any, axis: int) -> Any: ...
        def la_det(self, x: Any) -> Any: ...
        def la_diagonal(self, x: Any, offset: int) -> Any: ...
        def la_eig(self, x: Any) -> tuple[Any, Any]: ...
        def la_eigh(self, x: Any) -> tuple[Any, Any]: ...
        def la_eigvals(self, x: Any) -> Any: ...
        def la_eigvalsh(self, x: Any) -> Any: ...
        def la_inv(self, x: Any) -> Any: ...
        def la_matrix_norm(self, x: Any, ord: Any, keepdims: bool) -> Any: ...
        def la_matrix_power(self, x: Any, n: int) -> Any: ...
        def la_matrix_rank(self, x: Any, rtol: Any) -> Any: ...
        def la_pinv(self, x: Any, rtol: Any) -> Any: ...
        def la_qr(self, x: Any, mode: str) -> tuple[Any, Any]: ...
        def la_slogdet(self, x: Any) -> tuple[Any, Any]: ...
        def la_solve(self, a: Any, b: Any) -> Any: ...
        def la_svd(self, x: Any, full_matrices: bool) -> tuple[Any, Any, Any]: ...
        def la_svdvals(self, x: Any) -> Any: ...
        def la_tensordot(self, a: Any, b: Any, axes: Any) -> Any: ...
        def la_trace(self, x: Any, offset: int) -> Any: ...
        def la_vecdot(self, a: Any, b: Any, axis: int) -> Any: ...
        def la_vector_norm(self, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any: ...
        @property
        def linalg_errors(self) -> tuple[type[Exception], ...]: ...
        def make_kernel(self, name: str, dt: DType) -> Callable[..., Any]: ...
        def meshgrid(self, xs: list[Any], indexing: str) -> list[Any]: ...
        def native_dtype(self, dt: DType) -> Any: ...
        def nonzero(self, x: Any) -> tuple[Any, ...]: ...
        def normalize_key(self, x: Any, key: Any) -> Any: ...
        def permute(self, x: Any, axes: tuple[int, ...]) -> Any: ...
        def reduce(self, name: str, x: Any, dt: DType, axes: tuple[int, ...], keepdims: bool) -> Any: ...
        def repeat(self, x: Any, repeats: Any, axis: int) -> Any: ...
        def reshape(self, x: Any, shape: tuple[int, ...], copy: bool | None = None) -> Any: ...
        def roll(self, x: Any, shifts: tuple[int, ...], axes: tuple[int, ...]) -> Any: ...
        def searchsorted(self, x1: Any, x2: Any, side: str, sorter: Any) -> Any: ...
        def setitem(self, x: Any, key: Any, value: Any) -> Any: ...  # None, or the new array (immutable libraries)
        def sort_indices(self, x: Any, dt: DType, axis: int, descending: bool) -> Any: ...
        def sort_values(self, x: Any, dt: DType, axis: int, descending: bool) -> Any: ...
        def stack(self, xs: list[Any], axis: int) -> Any: ...
        def take_along_axis(self, x: Any, indices: Any, axis: int) -> Any: ...
        def tile(self, x: Any, reps: tuple[int, ...]) -> Any: ...
        def to_device(self, x: Any, dev: Device) -> Any: ...
        def to_host(self, x: Any, copy: bool | None = None) -> np.ndarray: ...
        def tolist(self, x: Any) -> Any: ...
        def tril(self, x: Any, k: int) -> Any: ...
        def triu(self, x: Any, k: int) -> Any: ...
        def where(self, condition: Any, x1: Any, x2: Any) -> Any: ...
        def wrap_native(self, x: Any, dt: DType | None, dev: Device | None, copy: bool | None) -> Any: ...
        def zeros(self, shape: tuple[int, ...], dt: DType, dev: Device) -> Any: ...
