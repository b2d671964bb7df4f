"""Which role each parameter of each public function plays in the parity generator (``tests/_parity.py``).

A role is a hypothesis strategy of *specs* (target-independent argument descriptions), given the case drawn so
far (``ctx``: the first Array's spec, for axes and shapes that mostly fit it). Every role draws valid values
most of the time and wrong kinds some of the time: the generator proves that both the results and the errors
agree across backends. Roles come from the parameter's name (``ROLE_BY_NAME``), overridden per function
(``OVERRIDES``); functions that cannot be compared (they start threads, read the machine, take callables) are
listed in ``NOT_COMPARED`` with the reason.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xbackend as xb
from _parity import DTYPES, ArraySpec, Opaque, Seq

_NP = {d: (np.dtype(d.name) if d is not xb.bfloat16 else None) for d in DTYPES}

SHAPES = [(), (0,), (1,), (3,), (2, 3), (3, 1), (0, 2), (2, 1, 3), (1, 1)]


# --- values --------------------------------------------------------------------------------------------
def _elements(dt: Any) -> st.SearchStrategy[Any]:
    nd = _NP[dt]
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(nd)
        edge = st.sampled_from([int(info.min), int(info.max), 0, 1, -1 if dt.kind == "i" else 2])
        return st.one_of(st.integers(-5, 5).filter(lambda v: v >= info.min), edge,
                         st.integers(int(info.min), int(info.max)))  # fmt: skip
    width = 16 if dt is xb.float16 else 32 if dt.itemsize in (4, 8) and dt.kind == "f" and dt.itemsize == 4 else 64
    if dt.kind == "c":
        width = 32 if dt is xb.complex64 else 64
    special = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, float("nan"), float("inf"), -float("inf")])
    finite = st.floats(-1e4, 1e4, width=width, allow_subnormal=False)
    real = st.one_of(special, finite, st.floats(width=width, allow_subnormal=False))
    if dt.kind == "c":
        return st.builds(complex, real, real)
    return real


@st.composite
def host_array(draw: Any, dt: Any = None, shape: Any = None) -> Any:
    dt = dt if dt is not None else draw(st.sampled_from(DTYPES))
    shape = shape if shape is not None else draw(st.sampled_from(SHAPES))
    return draw(hnp.arrays(_NP[dt], shape, elements=_elements(dt))), dt


@st.composite
def arrays(draw: Any, dt: Any = None, shape: Any = None, native_ok: bool = True) -> ArraySpec:
    h, d = draw(host_array(dt, shape))
    native = native_ok and draw(st.integers(0, 9)) == 9  # shrinks towards Arrays
    return ArraySpec(h, d, native)


def python_scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.booleans(),
        st.sampled_from([0, 1, -1, 2, 7, 127, 128, 255, 256, -129, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1,
                         10**30]),
        st.sampled_from([0.0, -0.0, 0.5, 1.5, -2.5, 1e300, float("nan"), float("inf"), -float("inf")]),
        st.sampled_from([1j, 1 + 2j, complex("nan+1j")]),
    )  # fmt: skip


def numpy_scalars() -> st.SearchStrategy[Any]:
    return st.sampled_from([np.float32(1.5), np.float64(-0.0), np.int8(-3), np.uint8(200), np.int64(2), np.bool_(True),
                            np.complex64(1j), np.float16(0.5)])  # fmt: skip


def nested_lists(ctx: ArraySpec | None) -> st.SearchStrategy[Any]:
    """Python (nested) lists: the shape and kind of the Array mostly, sometimes ragged or empty."""
    simple = st.one_of(
        st.lists(python_scalars().filter(lambda v: type(v) is not complex), min_size=0, max_size=3),
        st.sampled_from([[[1, 2], [3, 4]], [[1.5], [2.5]], [True, False, True], [[1, 2], [3]], [], [[]], [1, 2.5],
                         [2**64], [-1, 2**63]]),
    )  # fmt: skip
    if ctx is None or ctx.host.ndim == 0:
        return simple
    same = st.just(ctx.host.tolist()) if ctx.dtype.kind != "c" else st.just(ctx.host.real.tolist())
    return st.one_of(simple, same)


WRONG = st.sampled_from([Opaque("abc", "'abc'"), Opaque(object(), "object()"), Opaque({"a": 1}, "{'a': 1}"),
                         Opaque(b"\x01\x02", "b'\\x01\\x02'")])  # fmt: skip


@st.composite
def operand(draw: Any, ctx: ArraySpec | None) -> Any:
    """A second operand: an Array that (mostly) broadcasts with ``ctx``, a Python or NumPy scalar, a list,
    a native array of the target, None or a wrong type."""
    k = draw(st.integers(0, 19))
    if k < 9:
        if ctx is not None and draw(st.booleans()):
            shape = ctx.host.shape[draw(st.integers(0, ctx.host.ndim)):] if ctx.host.ndim else ()
            dt = ctx.dtype if draw(st.booleans()) else None
            return draw(arrays(dt, shape))
        return draw(arrays())
    if k < 14:
        return draw(python_scalars())
    if k < 16:
        return draw(nested_lists(ctx))
    if k < 17:
        return draw(numpy_scalars())
    if k < 18:
        return None
    return draw(WRONG)


@st.composite
def main_array(draw: Any, ctx: Any = None) -> Any:
    """The first argument of most functions: an Array nearly always, sometimes host data or a wrong type."""
    k = draw(st.integers(0, 24))
    if k < 21:
        return draw(arrays())
    if k < 23:
        return draw(nested_lists(None))
    if k < 24:
        return draw(python_scalars())
    return draw(st.one_of(WRONG, st.none()))


# --- parameters -----------------------------------------------------------------------------------------
def _ndim(ctx: Any) -> int:
    return ctx.host.ndim if isinstance(ctx, ArraySpec) else 1


@st.composite
def axis_int(draw: Any, ctx: Any) -> Any:
    n = _ndim(ctx)
    k = draw(st.integers(0, 9))
    if k < 7:
        return draw(st.integers(-n - 1, n)) if n else draw(st.sampled_from([0, -1]))
    return draw(st.sampled_from([None, 1.0, "0", True, np.int64(0), 2**70]))


@st.composite
def axis_any(draw: Any, ctx: Any) -> Any:
    """None, an int, or a tuple of ints (repeats and out-of-range ones sometimes)."""
    n = _ndim(ctx)
    k = draw(st.integers(0, 9))
    if k < 3:
        return None
    if k < 7:
        return draw(axis_int(ctx))
    return tuple(draw(st.lists(st.integers(-n - 1, n), max_size=3)))


def flags() -> st.SearchStrategy[Any]:
    return st.one_of(st.booleans(), st.sampled_from([np.bool_(True), "yes", 1, None, 0.0]))


@st.composite
def dtypes(draw: Any, ctx: Any = None) -> Any:
    k = draw(st.integers(0, 9))
    if k < 6:
        return draw(st.sampled_from(DTYPES))
    return draw(st.sampled_from([None, "float32", "int8", float, int, bool, complex, np.float32, np.dtype("int16"),
                                 "float128", Opaque(object(), "object()")]))  # fmt: skip


@st.composite
def shapes(draw: Any, ctx: Any = None) -> Any:
    k = draw(st.integers(0, 9))
    if k < 6:
        return draw(st.sampled_from([(), (2,), (0,), (2, 3), (1, 0, 2), 3, 0]))
    return draw(st.sampled_from([-1, (-2,), (2.0,), 2.5, [2, 3], None, "3", (2**64,), 2**64, (True,),
                                 np.int64(2), (np.int32(2), 1)]))  # fmt: skip


@st.composite
def reshape_to(draw: Any, ctx: Any) -> Any:
    """A shape for ``reshape``: one of x's size most of the time (with a -1 sometimes), else any shape."""
    if isinstance(ctx, ArraySpec) and draw(st.integers(0, 3)) < 3:
        size = ctx.host.size
        options = [(size,), (-1,), (1, size), (size, 1), (-1, 1), ()] if size != 1 else [(), (1,), (1, 1), (-1,)]
        if size == 6:
            options += [(2, 3), (3, -1), (-1, -1)]
        if size == 0:
            options += [(0, 5), (5, -1)]
        return draw(st.sampled_from(options))
    return draw(shapes())


@st.composite
def ints(draw: Any, ctx: Any = None) -> Any:
    k = draw(st.integers(0, 9))
    if k < 7:
        return draw(st.integers(-3, 4))
    return draw(st.sampled_from([2**64, -(2**63) - 1, 2.5, 2.0, True, None, np.int64(2), "1"]))


@st.composite
def scalars(draw: Any, ctx: Any = None) -> Any:
    """A fill value, an endpoint, a bound: Python/NumPy scalars, 0-d Arrays, sometimes wrong kinds."""
    k = draw(st.integers(0, 9))
    if k < 6:
        return draw(python_scalars())
    if k < 7:
        return draw(numpy_scalars())
    if k < 9:
        return draw(arrays(shape=(), native_ok=False))
    return draw(st.one_of(st.none(), WRONG, nested_lists(None)))


@st.composite
def sizes(draw: Any, ctx: Any = None) -> Any:
    """Endpoints and counts that size a result: small ones, or ones whose result could not be addressed at all
    (refused up front on every backend). Nothing in between: a 16 GiB allocation is a legal call, not a test."""
    k = draw(st.integers(0, 9))
    if k < 6:
        return draw(st.sampled_from([0, 1, 3, -2, 0.5, 2.5, -0.0, True]))
    if k < 7:
        return draw(st.sampled_from([2**64, 10**30, 2**63, -(2**63) - 1, 1e300, float("inf"), float("nan")]))
    if k < 9:
        dt = draw(st.sampled_from([xb.int64, xb.int8, xb.uint8, xb.float64, xb.float32, xb.bool, xb.complex64]))
        v = draw(st.sampled_from([0, 1, 3, 2.5, -1.5, float("nan")]))
        with np.errstate(all="ignore"):
            return ArraySpec(np.array(v).astype(_NP[dt]), dt)
    return draw(st.one_of(st.none(), WRONG, st.just([1, 2])))


@st.composite
def array_seq(draw: Any, ctx: Any = None) -> Any:
    """A list or tuple of 0-3 arrays for concat/stack: mostly of one shape, sometimes mixed kinds."""
    first = draw(arrays(native_ok=False))
    items: list[Any] = [first]
    for _ in range(draw(st.integers(0, 2))):
        k = draw(st.integers(0, 9))
        if k < 6:
            dt = first.dtype if draw(st.booleans()) else None
            items.append(draw(arrays(dt, first.host.shape)))
        elif k < 8:
            items.append(first.host.tolist() if first.dtype.kind != "c" else [1.0])
        else:
            items.append(draw(operand(first)))
    if draw(st.integers(0, 19)) == 0:
        items = []
    return Seq(tuple(items), draw(st.booleans()))


@st.composite
def index_arrays(draw: Any, ctx: Any) -> Any:
    """Integer indices (in and out of range), lists, bool masks, wrong dtypes."""
    n = ctx.host.shape[0] if isinstance(ctx, ArraySpec) and ctx.host.ndim else 3
    k = draw(st.integers(0, 9))
    if k < 5:
        vals = draw(st.lists(st.integers(-n - 1, n), min_size=0, max_size=4))
        dt = draw(st.sampled_from([xb.int64, xb.int32, xb.int8, xb.uint8]))
        if dt is xb.uint8:
            vals = [abs(v) for v in vals]
        return ArraySpec(np.array(vals, dtype=np.dtype(dt.name)), dt, draw(st.integers(0, 4)) == 0)
    if k < 8:
        return draw(st.lists(st.integers(-n - 1, n), min_size=0, max_size=3))
    return draw(st.one_of(arrays(), st.none(), st.just(1)))


def choice(*values: Any) -> Callable[[Any], st.SearchStrategy[Any]]:
    return lambda ctx: st.sampled_from(list(values))


# --- roles by parameter name -----------------------------------------------------------------------------
Role = Callable[[Any], st.SearchStrategy[Any]]

ROLE_BY_NAME: dict[str, Role] = {
    "x": main_array, "x1": main_array, "x2": operand, "a": main_array, "b": operand,
    "axis": axis_any, "keepdims": lambda c: flags(), "dtype": dtypes, "shape": shapes,
    "k": ints, "n": ints, "offset": ints, "decimals": ints, "num": ints, "n_rows": ints, "n_cols": ints,
    "fill_value": scalars, "start": scalars, "stop": scalars, "step": scalars,
    "descending": lambda c: flags(), "stable": lambda c: flags(), "endpoint": lambda c: flags(),
    "include_initial": lambda c: flags(), "invert": lambda c: flags(), "upper": lambda c: flags(),
    "full_matrices": lambda c: flags(), "copy": lambda c: st.sampled_from([None, True, False]),
    "correction": lambda c: st.sampled_from([0, 1, 0.5, 2, -1, None, "1", 1.0, True]),
    "indices": index_arrays, "arrays": array_seq, "min": scalars, "max": scalars,
    "condition": main_array, "repeats": ints, "shift": ints, "source": axis_int, "destination": axis_int,
    "norm": choice("backward", "ortho", "forward", "sideways", None),
    "side": choice("left", "right", "middle"), "indexing": choice("xy", "ij", "zz"),
    "mode": choice("reduced", "complete", "r"), "rtol": lambda c: st.sampled_from([None, 1e-3, 0.0, -1.0]),
    "ord": lambda c: st.sampled_from([None, 1, 2, -1, -2, float("inf"), -float("inf"), "fro", "nuc", 0, 3, 0.5]),
    "axes": axis_any, "s": lambda c: st.sampled_from([None, (2,), (2, 2), (0,), 3]),
    "d": lambda c: st.sampled_from([1.0, 0.5, -1.0, 0]), "prepend": scalars, "append": scalars,
    "sorter": lambda c: st.sampled_from([None]), "repetitions": shapes, "kind": lambda c: st.sampled_from(
        ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric",
         xb.float32, ("integral", xb.float64), "nope"]),  # fmt: skip
    "from_": dtypes, "to": dtypes, "type": dtypes,
    "shapes": shapes, "obj": dtypes,
    "arrays_and_dtypes": lambda c: st.one_of(arrays(), dtypes(), python_scalars()),
}  # fmt: skip

# per-function overrides: {function: {parameter: role}}
OVERRIDES: dict[str, dict[str, Role]] = {
    "reshape": {"shape": reshape_to},
    "broadcast_to": {"shape": shapes},
    "tile": {"repetitions": shapes},
    "squeeze": {"axis": axis_any},
    "expand_dims": {"axis": axis_any},
    "permute_dims": {"axes": lambda c: st.one_of(st.permutations(range(_ndim(c))).map(tuple), axis_any(c))},
    "argsort": {"axis": axis_int}, "sort": {"axis": axis_int}, "unstack": {"axis": axis_int},
    "cumulative_sum": {"axis": axis_int}, "cumulative_prod": {"axis": axis_int}, "diff": {"axis": axis_int},
    "take_along_axis": {"axis": axis_int}, "stack": {"axis": axis_int}, "concat": {"axis": axis_int},
    "vecdot": {"axis": axis_int}, "argmax": {"axis": axis_int}, "argmin": {"axis": axis_int},
    "take": {"axis": axis_int},
    "where": {"x1": operand, "x2": operand},
    "clip": {"min": scalars, "max": scalars},
    "searchsorted": {"x2": operand},
    "isin": {"x2": operand},
    "arange": {"start": sizes, "stop": sizes, "step": sizes},
    "linspace": {"start": scalars, "stop": scalars, "num": sizes},
    "eye": {"n_rows": sizes, "n_cols": sizes},
    "full": {"fill_value": scalars},
    "asarray": {"obj": lambda c: st.one_of(main_array(c), numpy_scalars(), nested_lists(None))},
    "tensordot": {"axes": lambda c: st.sampled_from([0, 1, 2, -1, ((0,), (0,)), ((1,), (0,)), 3])},
}

# functions whose outcome cannot be compared across backends, and why
NOT_COMPARED: dict[str, str] = {
    "__array_namespace_info__": "describes the backend itself (tests/test_info.py)",
    "backend_names": "lists the machine's backends", "backends": "reports the machine",
    "devices": "lists the machine's devices", "preferred_device": "depends on the machine",
    "device": "parses device strings for the configured backend (tests/test_devices.py)",
    "get_config": "returns the configuration", "set_default": "changes the process-wide configuration",
    "using": "a context manager", "register_backend": "changes the registry", "jit": "takes a callable",
    "jit_cache_info": "reports the jit cache", "portable": "takes a callable", "prefetch": "starts a thread",
    "synchronize": "waits for a device", "timer": "measures time", "staging_limit": "process-wide setting",
    "compute": "identity on eager backends (tests/test_dask.py)", "persist": "identity on eager backends",
    "rechunk": "Dask only: refused elsewhere by design", "from_dlpack": "tests/test_interchange.py",
    "moved": "reports a move", "to_numpy": "host copies", "device_to_host": "transfers",
    "host_to_device": "transfers", "shares_memory": "memory identity", "empty": "uninitialised values",
    "empty_like": "uninitialised values",
}

# outcomes compared without values (the values are not unique or not defined by the standard)
SHAPES_AND_DTYPES_ONLY = {"empty", "empty_like", "eig", "eigh", "svd", "qr", "eigvals"}


def public_functions() -> dict[str, Callable[..., Any]]:
    """Every public function of the namespace, linalg and fft, by qualified name."""
    out: dict[str, Callable[..., Any]] = {}
    for prefix, mod in (("", xb), ("linalg.", xb.linalg), ("fft.", xb.fft)):
        for name in mod.__all__:
            f = getattr(mod, name)
            if callable(f) and not isinstance(f, type) and not isinstance(f, xb.DType):
                out[prefix + name] = f
    return out


def parameters(qualname: str, fn: Callable[..., Any]) -> list[tuple[str, Any, Role]]:
    """``(name, inspect kind, role)`` for each parameter (``backend=`` and ``device=`` are the target's)."""
    short = qualname.rpartition(".")[2]
    over = OVERRIDES.get(short, {})
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name in ("backend", "device", "chunks", "stream"):
            continue
        role = over.get(p.name) or ROLE_BY_NAME.get(p.name)
        if role is None:
            raise KeyError(f"{qualname}: no role for parameter {p.name!r}; add it to ROLE_BY_NAME or OVERRIDES")
        out.append((p.name, p, role))
    return out


@st.composite
def calls(draw: Any, qualname: str, fn: Callable[..., Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Arguments for one call of ``fn``: positional ones always, keyword ones half of the time each."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    ctx: Any = None
    skipped_positional = False
    for name, p, role in parameters(qualname, fn):
        if p.kind is p.VAR_POSITIONAL:
            n = draw(st.integers(0, 3))
            vals = [draw(role(ctx)) for _ in range(n)]
            if vals and ctx is None:
                ctx = vals[0]
            args.extend(vals)
            continue
        required = p.default is p.empty
        if p.kind is p.POSITIONAL_ONLY and not required and (skipped_positional or not draw(st.booleans())):
            skipped_positional = True  # a later positional-only argument cannot be given without this one
            continue
        if not required and p.kind is not p.POSITIONAL_ONLY and not draw(st.booleans()):
            continue
        v = draw(role(ctx))
        if ctx is None and isinstance(v, ArraySpec):
            ctx = v
        if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and required):
            args.append(v)
        else:
            kwargs[name] = v
    return tuple(args), kwargs
