"""The speed sweep's entries (issue 29): every public function, operator and method, with each operand kind, as
ready-to-call pairs (xbackend, the native call it stands for) on one backend.

Generated from the parity generator's table (``tests/parity_specs.py``): the same public functions, the same
parameter roles. Where the parity generator *draws* values of a role, the sweep takes one typical valid value
(a 100-element Array; a 10x10 matrix for linalg), and for each array-like parameter it varies the operand kind:

* ``x``-like parameters (role ``main_array``): an ``Array``, a ``0-d`` Array and a Python ``list``;
* operand parameters (role ``operand``: ``x2``, ``b``, where's ``x1``/``x2``): an ``Array``, a ``0-d`` Array,
  a Python ``int``, ``float``, ``bool``, ``complex`` and a ``list``;
* the operators (``x + y``, the reflected ``y + x``, ``x += y``, ``-x``) with the same kinds, and the Array's
  methods (NumPy's: ``x.sum()``; indexing; ``astype``/``to``).

An entry whose xbackend call raises (``x @ 2``, ``bitwise_and`` of a float) is not an entry: the parity generator
covers errors. The native call spells what a NumPy or torch user writes for the same result; where the library
refuses the operand kind (``torch.maximum(t, 2)``), the operand is made native first, outside the call
(``note`` says so: the native time is then the cheaper one). ``entries(backend)`` builds them;
``benchmarks/overhead_api.py`` times them, ``tests/test_call_budgets.py`` counts their Python calls.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import xbackend as xb
import parity_specs as S

N = 100  # elements of the main Array
KINDS_MAIN = ("Array", "0-d", "list")
KINDS_OPERAND = ("Array", "0-d", "int", "float", "bool", "complex", "list")

BINARY_OPERATORS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<<": operator.lshift, ">>": operator.rshift, "@": operator.matmul, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
           "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
           "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift}  # fmt: skip
UNARY = {"-x": operator.neg, "+x": operator.pos, "abs(x)": operator.abs, "~x": operator.invert}
_OP_NAME = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide", "%": "remainder",
            "**": "pow", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<<": "bitwise_left_shift",
            ">>": "bitwise_right_shift", "@": "matmul", "<": "less", "<=": "less_equal", ">": "greater",
            ">=": "greater_equal", "==": "equal", "!=": "not_equal", "-x": "negative", "+x": "positive",
            "abs(x)": "abs", "~x": "bitwise_invert"}  # fmt: skip

#: the dtype of the main Array, by the elementwise category (xbackend/_rules.py); float64 elsewhere
_BY_CATEGORY = {"intbool": "int64", "int": "int64", "bool": "bool"}
#: functions that need a matrix (10x10) or another shape, by name
MATRIX = {"matmul", "tensordot", "vecdot", "tril", "triu", "permute_dims", "matrix_transpose", "moveaxis", "unstack",
          "linalg.matmul", "linalg.tensordot", "linalg.vecdot", "linalg.diagonal", "linalg.trace",
          "linalg.matrix_transpose", "linalg.matrix_norm", "linalg.matrix_power", "linalg.det", "linalg.slogdet",
          "linalg.inv", "linalg.solve", "linalg.pinv", "linalg.matrix_rank", "linalg.svd", "linalg.svdvals",
          "linalg.qr", "linalg.eig", "linalg.eigvals", "linalg.cholesky", "linalg.eigh", "linalg.eigvalsh",
          "fft.fftn", "fft.ifftn", "fft.rfftn", "fft.irfftn"}  # fmt: skip
SPD = {"linalg.cholesky", "linalg.eigh", "linalg.eigvalsh"}
VEC10 = {"linalg.outer", "meshgrid"}
CROSS = {"linalg.cross"}

#: typical values for the non-array parameters a call needs (the parity roles' valid values)
REQUIRED = {
    "reshape": {"shape": (10, 10)}, "broadcast_to": {"shape": (2, N)}, "tile": {"repetitions": (2,)},
    "squeeze": {"axis": 1}, "expand_dims": {"axis": 0}, "permute_dims": {"axes": (1, 0)},
    "moveaxis": {"source": 0, "destination": 1}, "repeat": {"repeats": 2}, "roll": {"shift": 1},
    "astype": {"dtype": xb.float32}, "full": {"shape": N, "fill_value": 1.0}, "full_like": {"fill_value": 1.0},
    "zeros": {"shape": N}, "ones": {"shape": N}, "empty": {"shape": N}, "arange": {"start": N},
    "linspace": {"start": 0.0, "stop": 1.0, "num": N}, "eye": {"n_rows": 10}, "clip": {"min": 0.1, "max": 0.9},
    "can_cast": {"from_": xb.float32, "to": xb.float64}, "isdtype": {"dtype": xb.float64, "kind": "real floating"},
    "finfo": {"type": xb.float32}, "iinfo": {"type": xb.int32}, "dtype": {"obj": "float32"},
    "broadcast_shapes": {"shapes": [(10, 1), (1, 10)]}, "fft.fftfreq": {"n": N}, "fft.rfftfreq": {"n": N},
    "linalg.matrix_power": {"n": 2}, "tensordot": {"axes": 1}, "linalg.tensordot": {"axes": 1},
    "result_type": {"arrays_and_dtypes": [xb.float32, xb.float64]},
}  # fmt: skip
#: functions whose entries are written out (``_special_entries``): their first argument is not an Array
SPECIAL = {"asarray", "empty", "empty_like", "from_dlpack", "to_numpy", "shares_memory"}
#: functions not timed, and why (the rest of the public namespace is swept)
NOT_SWEPT = {
    **{k: v for k, v in S.NOT_COMPARED.items() if k not in ("empty", "empty_like", "from_dlpack", "to_numpy",
                                                              "shares_memory")},
}  # fmt: skip


@dataclass
class Entry:
    """One sweep row: ``xb()`` and ``native()`` compute the same result; ``floor()`` is the least a Python wrapper
    does for it (the native call, its Array operands unwrapped, its result wrapped in a four-slot object)."""

    id: str
    group: str  # "function", "operator", "method"
    kind: str  # the operand kind varied
    xb: Callable[[], Any]
    native: Callable[[], Any]
    floor: Callable[[], Any]
    note: str = ""
    args: tuple[Any, ...] = field(default=(), repr=False)


# --- the least wrapper (benchmarks/overhead_floor.py's ``_Least``) ---------------------------------------
class Least:
    """Four slots, no checks: the cheapest wrapper object a Python library can hand back."""

    __slots__ = ("_data", "_dt", "_dev", "_be")


_least_new: Callable[[], Least] = type.__call__.__get__(Least, type)


def _floor_of(native: Callable[..., Any], nargs: tuple[Any, ...], nkw: dict[str, Any],
              wrapped: tuple[Any, ...]) -> Callable[[], Any]:  # fmt: skip
    """``lambda: wrap(native(*unwrap(args)))``: a wrapper function's frame, one attribute read per wrapped
    operand, one call, one object built."""
    positions = [i for i, a in enumerate(wrapped) if type(a) is Least]

    if len(positions) == 1 and positions[0] == 0:
        rest = nargs[1:]
        w0 = wrapped[0]

        def call(w: Least = w0) -> Least:
            out = _least_new()
            out._data = native(w._data, *rest, **nkw)
            out._dt = w._dt
            out._dev = w._dev
            out._be = w._be
            return out

        return call

    def call_any() -> Least:
        out = _least_new()
        out._data = native(*[a._data if type(a) is Least else a for a in wrapped], **nkw)
        out._dt = out._dev = out._be = None
        return out

    return call_any


def _least(native_value: Any) -> Least:
    w = _least_new()
    w._data, w._dt, w._dev, w._be = native_value, None, None, None
    return w


# --- values ------------------------------------------------------------------------------------------------
def _host(name: str, dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if name in SPD:
        a = rng.random((10, 10))
        return a @ a.T + 10 * np.eye(10)
    if name in MATRIX:
        return rng.random((10, 10)) + 10 * np.eye(10)
    if name in VEC10:
        return rng.random(10)
    if name in CROSS:
        return rng.random((33, 3))
    if name in ("squeeze",):
        return rng.random((N, 1))
    if name.startswith("unique") or name in ("take", "searchsorted"):
        return np.sort(np.round(rng.random(N) * 20)) if name == "searchsorted" else np.round(rng.random(N) * 20)
    if dtype == "bool":
        return rng.random(N) > 0.5
    if name == "acosh":
        return rng.random(N) + 1.1
    if dtype == "int64":
        return rng.integers(0, 10, N)
    return rng.random(N) * 0.8 + 0.1


def _category_dtype(name: str) -> str:
    from xbackend._rules import ELEMENTWISE

    short = name.rpartition(".")[2]
    return _BY_CATEGORY.get(ELEMENTWISE.get(short, (0, ""))[1], "float64")


def _operand(kind: str, main: Any, host: np.ndarray) -> Any:
    """The operand of ``kind`` next to Array ``main`` (host values ``host``)."""
    if kind == "Array":
        return main
    if kind == "0-d":
        return xb.asarray(host.ravel()[0], dtype=main.dtype, backend=main.backend)
    if kind == "int":
        return 2
    if kind == "float":
        return 0.5
    if kind == "bool":
        return True
    if kind == "complex":
        return 1 + 1j
    if kind == "list":
        return host.tolist()
    raise AssertionError(kind)


def _to_native(v: Any, be: str) -> Any:
    """An argument as the native library takes it: Arrays unwrapped, xbackend dtypes as native ones, host data
    (lists) as the user would pass it (NumPy: as is; torch: ``torch.tensor(...)`` at each call)."""
    if type(v) is xb.Array:
        return v.native
    if isinstance(v, xb.DType):
        if be == "torch":
            import torch

            return getattr(torch, v.name)
        return np.dtype(v.name)
    if isinstance(v, (list, tuple)) and v and any(type(i) is xb.Array for i in v):
        return type(v)(_to_native(i, be) for i in v)
    return v


_TORCH_NAMES = {
    "acos": "arccos", "asin": "arcsin", "atan": "arctan", "acosh": "arccosh", "asinh": "arcsinh",
    "atanh": "arctanh", "atan2": "atan2", "bitwise_left_shift": "bitwise_left_shift", "concat": "cat",
    "pow": "pow", "expand_dims": "unsqueeze", "permute_dims": "permute", "matrix_transpose": None,
    "bitwise_invert": "bitwise_not", "unique_values": "unique", "cumulative_sum": "cumsum",
    "cumulative_prod": "cumprod", "repeat": "repeat_interleave", "take_along_axis": "take_along_dim",
    "vecdot": "linalg.vecdot", "linalg.outer": "outer", "linalg.tensordot": "tensordot",
    "linalg.trace": "trace", "unstack": "unbind", "isin": "isin", "astype": None, "equal": "eq", "not_equal": "ne",
}  # fmt: skip
_NUMPY_NAMES: dict[str, str] = {}


def _lookup(mod: Any, path: str) -> Any:
    obj = mod
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _torch_dtype_of(data: list[Any]) -> Any:
    """What a torch user passes to ``torch.tensor(data, dtype=...)`` for xbackend's defaults (float64, int64)."""
    import torch

    leaf = data
    while type(leaf) is list and leaf:
        leaf = leaf[0]
    return {float: torch.float64, complex: torch.complex128}.get(type(leaf))


def _native_fn(name: str, be: str) -> Callable[..., Any] | None:
    """The native function a user of ``be`` calls for xbackend's ``name`` (same positional arguments)."""
    if be == "numpy":
        return _lookup(np, _NUMPY_NAMES.get(name, name))
    import torch

    special = {
        "matrix_transpose": lambda t: t.mT, "linalg.matrix_transpose": lambda t: t.mT,
        "astype": lambda t, dt: t.to(dt), "max": torch.amax, "min": torch.amin,
        "unique_all": lambda t: torch.unique(t, return_inverse=True, return_counts=True),
        "unique_counts": lambda t: torch.unique(t, return_counts=True),
        "unique_inverse": lambda t: torch.unique(t, return_inverse=True),
        "broadcast_arrays": torch.broadcast_tensors, "meshgrid": lambda *a: torch.meshgrid(*a, indexing="xy"),
        "cumulative_sum": lambda t: torch.cumsum(t, 0), "cumulative_prod": lambda t: torch.cumprod(t, 0),
        "tensordot": lambda a, b, axes: torch.tensordot(a, b, dims=axes),
        "linalg.tensordot": lambda a, b, axes: torch.tensordot(a, b, dims=axes),
        "concat": lambda arrays: torch.cat(arrays),
        "stack": lambda arrays: torch.stack(arrays), "linalg.diagonal": lambda t: torch.diagonal(t, dim1=-2, dim2=-1),
        "linalg.cross": lambda a, b: torch.linalg.cross(a, b), "sort": lambda t: torch.sort(t).values,
        "searchsorted": lambda a, v: torch.searchsorted(a, v), "nonzero": lambda t: torch.nonzero(t, as_tuple=True),
        "take": lambda t, i: torch.index_select(t, 0, i), "squeeze": lambda t, axis: torch.squeeze(t, axis),
        "tile": torch.tile, "std": lambda t: torch.std(t, correction=0), "var": lambda t: torch.var(t, correction=0),
        "fft.fftshift": torch.fft.fftshift, "linalg.vector_norm": torch.linalg.vector_norm,
        "round": torch.round, "full": lambda shape, v: torch.full((shape,), v, dtype=torch.float64),
        "zeros": lambda shape: torch.zeros(shape, dtype=torch.float64),
        "ones": lambda shape: torch.ones(shape, dtype=torch.float64),
        "empty": lambda shape: torch.empty(shape, dtype=torch.float64),
        "arange": lambda n: torch.arange(n), "linspace": lambda a, b, n: torch.linspace(a, b, n, dtype=torch.float64),
        "eye": lambda n: torch.eye(n, dtype=torch.float64), "asarray": torch.asarray,
        "fft.fftfreq": lambda n: torch.fft.fftfreq(n, dtype=torch.float64),
        "fft.rfftfreq": lambda n: torch.fft.rfftfreq(n, dtype=torch.float64),
        "can_cast": torch.can_cast, "result_type": torch.promote_types,
        "finfo": torch.finfo, "iinfo": torch.iinfo, "isdtype": lambda d, k: d.is_floating_point,
        "dtype": lambda s: getattr(torch, s), "broadcast_shapes": torch.broadcast_shapes,
        "clip": torch.clamp, "count_nonzero": torch.count_nonzero, "signbit": torch.signbit,
        "from_dlpack": torch.from_dlpack, "empty_like": torch.empty_like, "to_numpy": lambda t: t.numpy(),
        "shares_memory": lambda a, b: a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(),
        "reshape": torch.reshape, "diff": torch.diff, "argsort": torch.argsort, "flip": lambda t: torch.flip(t, (0,)),
    }  # fmt: skip
    if name in special:
        return special[name]
    alias = _TORCH_NAMES.get(name, name)
    return None if alias is None else _lookup(torch, alias)


_NP_SPECIAL: dict[str, Callable[..., Any]] = {
    "concat": np.concat, "stack": np.stack,
    "astype": lambda a, dt: a.astype(dt), "linalg.diagonal": np.linalg.diagonal, "nonzero": np.nonzero,
    "isdtype": np.isdtype, "dtype": np.dtype, "from_dlpack": np.from_dlpack, "empty_like": np.empty_like,
    "to_numpy": np.asarray, "shares_memory": np.shares_memory, "full": lambda shape, v: np.full(shape, v),
    "zeros": np.zeros, "ones": np.ones, "empty": np.empty, "arange": np.arange, "linspace": np.linspace,
    "eye": np.eye, "asarray": np.asarray, "fft.fftfreq": np.fft.fftfreq, "fft.rfftfreq": np.fft.rfftfreq,
    "take": lambda a, i: np.take(a, i), "flip": lambda a: np.flip(a, 0),
}  # fmt: skip


def _numpy_fn(name: str) -> Callable[..., Any] | None:
    return _NP_SPECIAL.get(name) or _native_fn(name, "numpy")


# --- building the calls -------------------------------------------------------------------------------------
def _prepare(be: str, native: Callable[..., Any], nargs: tuple[Any, ...], nkw: dict[str, Any],
             xargs: tuple[Any, ...]) -> tuple[Callable[[], Any], str]:  # fmt: skip
    """The native call as a zero-argument callable: as the user writes it (lists to torch through
    ``torch.tensor`` per call), or, where the library refuses a Python operand, with that operand made native once,
    outside the call (``note``)."""
    if be == "torch":
        import torch

        lists = [i for i, a in enumerate(nargs) if isinstance(a, list) and a and not isinstance(a[0], torch.Tensor)]
        if lists:
            dts = {i: _torch_dtype_of(nargs[i]) for i in lists}

            def with_tensors() -> Any:
                return native(*[torch.tensor(a, dtype=dts[i]) if i in lists else a for i, a in enumerate(nargs)], **nkw)

            try:
                with_tensors()
                return with_tensors, "list via torch.tensor"
            except Exception:  # noqa: BLE001 - try the other spellings
                pass

    def plain() -> Any:
        return native(*nargs, **nkw)

    try:
        plain()
        return plain, ""
    except Exception:  # noqa: BLE001 - the library refuses a Python operand: make it native first
        pass
    made = tuple(_to_native(xb.asarray(a, backend=be), be) if type(a) in (int, float, bool, complex, list) and
                 type(x) is not xb.Array else n for a, n, x in zip(xargs, nargs, xargs))  # fmt: skip

    def made_native() -> Any:
        return native(*made, **nkw)

    made_native()  # raises when there is no native spelling: the caller drops the entry
    return made_native, "operand made native outside the call"


def _function_entries(be: str) -> list[Entry]:
    funcs = S.public_functions()
    out: list[Entry] = []
    for name in sorted(funcs):
        short = name.rpartition(".")[2]
        if short in NOT_SWEPT or name in SPECIAL:
            continue
        fn = funcs[name]
        params = S.parameters(name, fn)
        dt = _category_dtype(name)
        host = _host(name, dt)
        main = xb.asarray(host, dtype=xb.dtype(dt), backend=be)
        req = {**REQUIRED.get(name, {}), **REQUIRED.get(short, {})}
        # which parameters are arrays, and of which role
        roles = []
        for pname, p, role in params:
            r = role.__name__ if hasattr(role, "__name__") else ""
            required = p.default is p.empty
            if pname in req:
                roles.append((pname, p, "value"))
            elif r == "main_array":
                roles.append((pname, p, "main"))
            elif r == "operand":
                roles.append((pname, p, "operand"))
            elif r == "array_seq":
                roles.append((pname, p, "seq"))
            elif r == "index_arrays" and required:
                roles.append((pname, p, "indices"))
            elif required:
                roles.append((pname, p, "missing"))
        if any(r == "missing" for _, _, r in roles):
            raise KeyError(f"sweep: {name} needs a typical value for a required parameter; add it to REQUIRED")
        varied = [pname for pname, _, r in roles if r in ("main", "operand")]
        native_fn = _numpy_fn(name) if be == "numpy" else _native_fn(name, be)
        for vary in varied or [None]:
            role_of = {pname: r for pname, _, r in roles}
            kinds = (KINDS_MAIN if role_of.get(vary) == "main" else KINDS_OPERAND) if vary else ("Array",)
            for kind in kinds:
                if kind == "Array" and varied and vary != varied[0]:
                    continue  # all Arrays: the first varied parameter's entry already has it
                xargs: list[Any] = []
                xkw: dict[str, Any] = {}
                labels = []
                for pname, p, r in roles:
                    if r == "value":
                        v = req[pname]
                    elif r == "main":
                        if pname == "condition":
                            v = _main_kind(kind if pname == vary else "Array", main > 0.5, host > 0.5)
                        else:
                            v = main if pname != vary else _main_kind(kind, main, host)
                    elif r == "operand":
                        v = main if pname != vary else _operand(kind, main, host)
                    elif r == "seq":
                        v = [main, main]
                    elif r == "indices":
                        v = xb.asarray(np.arange(10) * 3 % N, backend=be) if short == "take" else \
                            xb.asarray(np.argsort(host), backend=be)  # fmt: skip
                    else:
                        continue
                    if r in ("main", "operand"):
                        labels.append(kind if pname == vary else "Array")
                    elif r == "seq":
                        labels.append("[Array, Array]")
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
                        xargs.append(v)
                    elif p.kind is p.VAR_POSITIONAL:
                        xargs.extend(v)
                    else:
                        xkw[pname] = v
                label = f"{name}({', '.join(labels)})"
                entry = _make_entry(label, "function", kind, be, fn, tuple(xargs), xkw, native_fn, name)
                if entry is not None:
                    out.append(entry)
    return out


def _main_kind(kind: str, main: Any, host: np.ndarray) -> Any:
    if kind == "Array":
        return main
    if kind == "0-d":
        return xb.asarray(host.ravel()[0], dtype=main.dtype, backend=main.backend)
    return host.tolist()


def _make_entry(label: str, group: str, kind: str, be: str, fn: Callable[..., Any], xargs: tuple[Any, ...],
                xkw: dict[str, Any], native_fn: Callable[..., Any] | None, name: str) -> Entry | None:  # fmt: skip
    try:
        fn(*xargs, **xkw)
    except Exception:  # noqa: BLE001 - an xbackend error: not a sweep entry (the parity generator covers errors)
        return None
    if native_fn is None:
        return None
    nargs = tuple(_to_native(a, be) for a in xargs)
    nkw = {k: _to_native(v, be) for k, v in xkw.items()}
    nkw = _native_kwargs(name, be, nkw)
    try:
        native, note = _prepare(be, native_fn, nargs, nkw, xargs)
    except Exception:  # noqa: BLE001 - no native spelling of this call: not timed
        return None
    wrapped = tuple(_least(a.native) if type(a) is xb.Array else a for a in xargs)
    floor_native = native_fn
    floor_args = tuple(w if type(w) is Least else n for w, n in zip(wrapped, nargs))
    floor = _floor_of(floor_native, nargs, nkw, floor_args) if not note else _floor_of(
        lambda *a, **k: native(), (), {}, ())  # fmt: skip
    if be == "torch" and note.startswith("list"):
        floor = _floor_of(lambda *a, **k: native(), (), {}, ())

    def xcall() -> Any:
        return fn(*xargs, **xkw)

    return Entry(label, group, kind, xcall, native, floor, note, xargs)


def _native_kwargs(name: str, be: str, nkw: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments renamed for the native library (``axis`` -> ``dim`` on torch)."""
    if be == "torch" and "axis" in nkw:
        nkw = {("dim" if k == "axis" else k): v for k, v in nkw.items()}
    if be == "torch" and name.rpartition(".")[2] in ("clip",):
        return nkw
    if name in ("clip",) and be == "numpy":
        return nkw
    return nkw


def _operator_entries(be: str) -> list[Entry]:
    out: list[Entry] = []
    for op, fn in BINARY_OPERATORS.items():
        name = _OP_NAME[op]
        dt = _category_dtype(name)
        host = _host("matmul" if op == "@" else name, dt)
        main = xb.asarray(host, dtype=xb.dtype(dt), backend=be)
        for kind in KINDS_OPERAND:
            y = _operand(kind, main, host)
            out += _op_entry(f"x {op} y ({kind})", kind, be, fn, main, y)
            if kind != "Array":
                out += _op_entry(f"y {op} x ({kind})", kind, be, lambda a, b, f=fn: f(b, a), main, y, reflected=True)
    for op, fn in INPLACE.items():
        name = _OP_NAME[op[:-1]]
        dt = _category_dtype(name)
        host = _host(name, dt)
        for kind in KINDS_OPERAND:
            main = xb.asarray(host, dtype=xb.dtype(dt), backend=be)
            y = _operand(kind, main, host)
            if kind in ("Array", "0-d"):
                y = xb.asarray(host if kind == "Array" else host.ravel()[0], dtype=xb.dtype(dt), backend=be)
            out += _op_entry(f"x {op} y ({kind})", kind, be, fn, main, y)
    for op, fn in UNARY.items():
        name = _OP_NAME[op]
        dt = _category_dtype(name)
        main = xb.asarray(_host(name, dt), dtype=xb.dtype(dt), backend=be)
        out += _op_entry(f"{op}", "Array", be, lambda a, b, f=fn: f(a), main, None)
    return out


def _op_entry(label: str, kind: str, be: str, fn: Callable[..., Any], x: Any, y: Any,
              reflected: bool = False) -> list[Entry]:  # fmt: skip
    try:
        fn(x, y)
    except Exception:  # noqa: BLE001 - an xbackend error: not an entry
        return []
    a = x.native
    b = y.native if type(y) is xb.Array else y
    try:
        native, note = _prepare(be, lambda p, q: fn(p, q), (a, b), {}, (x, y))
    except Exception:  # noqa: BLE001
        return []
    m = _least(a)
    n = _least(b) if type(y) is xb.Array else y
    if type(n) is Least:
        def floor() -> Any:
            out = _least_new()
            out._data = fn(m._data, n._data)
            out._dt, out._dev, out._be = m._dt, m._dev, m._be
            return out
    else:
        def floor() -> Any:
            out = _least_new()
            out._data = native()
            out._dt, out._dev, out._be = m._dt, m._dev, m._be
            return out

    return [Entry(label, "operator", kind, lambda: fn(x, y), native, floor, note, (x, y))]


def _method_entries(be: str) -> list[Entry]:
    host = _host("", "float64")
    x = xb.asarray(host, backend=be)
    m2 = xb.asarray(host.reshape(10, 10), backend=be)
    a, a2 = x.native, m2.native
    idx = xb.asarray(np.arange(10) * 3, backend=be)
    mask = x > 0.5
    torch_ = be == "torch"
    calls: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = [
        ("x.sum()", lambda: x.sum(), lambda: a.sum()),
        ("x.mean()", lambda: x.mean(), lambda: a.mean()),
        ("x.max()", lambda: x.max(), lambda: a.max()),
        ("x.min()", lambda: x.min(), lambda: a.min()),
        ("x.prod()", lambda: x.prod(), lambda: a.prod()),
        ("x.any()", lambda: x.any(), lambda: a.any()),
        ("x.all()", lambda: x.all(), lambda: a.all()),
        ("x.reshape(10, 10)", lambda: x.reshape(10, 10), lambda: a.reshape(10, 10)),
        ("x.swapaxes(0, 1)", lambda: m2.swapaxes(0, 1), lambda: a2.swapaxes(0, 1)),
        ("x.astype(float32)", lambda: x.astype(xb.float32),
         (lambda: a.to(__import__("torch").float32)) if torch_ else (lambda: a.astype(np.float32))),
        ("x.to(dtype=float32)", lambda: x.to(dtype=xb.float32),
         (lambda: a.to(__import__("torch").float32)) if torch_ else (lambda: a.astype(np.float32))),
        ("x.T", lambda: m2.T, lambda: a2.T),
        ("x.mT", lambda: m2.mT, lambda: a2.mT),
        ("x[1:-1]", lambda: x[1:-1], lambda: a[1:-1]),
        ("x[3]", lambda: x[3], lambda: a[3]),
        ("x[::2]", lambda: x[::2], lambda: a[::2]),
        ("x[2, 3]", lambda: m2[2, 3], lambda: a2[2, 3]),
        ("x[..., 1]", lambda: m2[..., 1], lambda: a2[..., 1]),
        ("x[None]", lambda: x[None], lambda: a[None]),
        ("x[idx] (Array)", lambda: x[idx], lambda: a[idx.native]),
        ("x[[1, 2, 3]] (list)", lambda: x[[1, 2, 3]], lambda: a[[1, 2, 3]]),
        ("x[mask] (Array)", lambda: x[mask], lambda: a[mask.native]),
        ("x.shape", lambda: x.shape, lambda: a.shape),
        ("x.ndim", lambda: x.ndim, lambda: a.ndim),
        ("x.dtype", lambda: x.dtype, lambda: a.dtype),
        ("x.device", lambda: x.device, lambda: a.device),
        ("len(x)", lambda: len(x), lambda: len(a)),
        ("float(x[0])", lambda: float(x[0]), lambda: float(a[0])),
        ("x[0].item()", lambda: x[0].item(), lambda: a[0].item()),
        ("x.tolist()", lambda: x.tolist(), lambda: a.tolist()),
    ]  # fmt: skip
    sets: list[tuple[str, str, Callable[[Any], Any], Callable[[Any], Any]]] = []
    for kind, v in (("int", 2), ("float", 0.5), ("bool", True), ("Array", None), ("0-d", None), ("list", None)):
        sets.append((kind, f"x[1:11] = y ({kind})", v, None))
    out = []
    for label, xcall, ncall in calls:
        try:
            xcall()
            ncall()
        except Exception:  # noqa: BLE001
            continue
        w = _least(a)

        def floor(ncall: Callable[[], Any] = ncall, w: Least = w) -> Any:
            r = _least_new()
            r._data = ncall()
            r._dt, r._dev, r._be = w._dt, w._dev, w._be
            return r

        out.append(Entry(label, "method", "Array", xcall, ncall, floor))
    # writes: a fresh target each time is not needed (the values are the same every call)
    y10 = xb.asarray(host[:10], backend=be)
    z0 = xb.asarray(0.5, backend=be)
    values = {"int": 2, "float": 0.5, "bool": True, "Array": y10, "0-d": z0, "list": host[:10].tolist()}
    for kind, v in values.items():
        nv = v.native if type(v) is xb.Array else v
        if torch_ and kind == "list":
            import torch

            def nset(nv: Any = nv) -> None:
                a[1:11] = torch.tensor(nv, dtype=a.dtype)
        else:
            def nset(nv: Any = nv) -> None:
                a[1:11] = nv

        def xset(v: Any = v) -> None:
            x[1:11] = v

        try:
            xset()
            nset()
        except Exception:  # noqa: BLE001
            continue
        w = _least(a)

        def floor_set(nset: Callable[[], None] = nset, w: Least = w) -> None:
            nset()

        out.append(Entry(f"x[1:11] = y ({kind})", "method", kind, xset, nset, floor_set,
                         "floor: the native write in a function"))  # fmt: skip
    return out


def _special_entries(be: str) -> list[Entry]:
    """``asarray`` of each kind of data: Python lists (flat and nested, ints and floats), a NumPy array, an Array, a
    Python scalar; on torch also a NumPy array moved to torch (``torch.from_numpy``: zero-copy)."""
    host = _host("", "float64")
    floats, ints = host.tolist(), list(range(N))
    nested = host.reshape(10, 10).tolist()
    x = xb.asarray(host, backend=be)
    if be == "torch":
        import torch

        native: dict[str, Callable[[], Any]] = {
            "list of floats": lambda: torch.tensor(floats, dtype=torch.float64),
            "list of ints": lambda: torch.tensor(ints),
            "nested list": lambda: torch.tensor(nested, dtype=torch.float64),
            "ndarray": lambda: torch.from_numpy(host), "Array": lambda: torch.asarray(x.native),
            "float": lambda: torch.tensor(0.5, dtype=torch.float64),
        }  # fmt: skip
    else:
        native = {"list of floats": lambda: np.asarray(floats), "list of ints": lambda: np.asarray(ints),
                  "nested list": lambda: np.asarray(nested), "ndarray": lambda: np.asarray(host),
                  "Array": lambda: np.asarray(x.native), "float": lambda: np.asarray(0.5)}  # fmt: skip
    data = {"list of floats": floats, "list of ints": ints, "nested list": nested, "ndarray": host, "Array": x,
            "float": 0.5}  # fmt: skip
    out = []
    a = x.native
    if be == "torch":
        import torch

        more = {"empty(100)": (lambda: xb.empty(N, backend=be), lambda: torch.empty(N, dtype=torch.float64)),
                "empty_like(Array)": (lambda: xb.empty_like(x), lambda: torch.empty_like(a)),
                "from_dlpack(native)": (lambda: xb.from_dlpack(a), lambda: torch.from_dlpack(a)),
                "to_numpy(Array)": (lambda: xb.to_numpy(x), lambda: a.numpy()),
                "shares_memory(Array, Array)": (lambda: xb.shares_memory(x, x),
                                                lambda: a.untyped_storage().data_ptr() == a.data_ptr())}
    else:
        more = {"empty(100)": (lambda: xb.empty(N, backend=be), lambda: np.empty(N)),
                "empty_like(Array)": (lambda: xb.empty_like(x), lambda: np.empty_like(a)),
                "from_dlpack(native)": (lambda: xb.from_dlpack(a), lambda: np.from_dlpack(a)),
                "to_numpy(Array)": (lambda: xb.to_numpy(x), lambda: np.asarray(a)),
                "shares_memory(Array, Array)": (lambda: xb.shares_memory(x, x), lambda: np.shares_memory(a, a))}
    for label, (xcall, ncall) in more.items():
        def floor(ncall: Callable[[], Any] = ncall) -> Any:
            r = _least_new()
            r._data = ncall()
            r._dt = r._dev = r._be = None
            return r

        out.append(Entry(label, "function", "Array", xcall, ncall, floor))
    for kind, obj in data.items():
        ncall = native[kind]

        def xcall(obj: Any = obj) -> Any:
            return xb.asarray(obj, backend=be)

        def floor(ncall: Callable[[], Any] = ncall) -> Any:
            r = _least_new()
            r._data = ncall()
            r._dt = r._dev = r._be = None
            return r

        out.append(Entry(f"asarray({kind})", "function", kind, xcall, ncall, floor))
    return out


def entries(backend: str) -> list[Entry]:
    """Every sweep entry on ``backend`` ("numpy" or "torch"; the CPU)."""
    import warnings

    with xb.using(backend=backend), np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (_function_entries(backend) + _special_entries(backend) + _operator_entries(backend)
                + _method_entries(backend))
