"""Dtypes as value objects and the one promotion table every operation uses.

Design constraint: result dtypes never depend on the backend. Backends only map these objects to
their native dtypes (that map lives in each backend module); every decision about *which* dtype a
result has is taken here, from tables, before any backend is called.

Rules (documented in README and DESIGN.md §2):

* within a kind, the Array API standard's promotion table;
* bool < int/uint < float < complex across kinds: ``intN + float32 -> float32`` (no silent float64);
* ``uint64`` with any signed integer has no common type and raises :class:`PromotionError`;
* ``bfloat16 + float16 -> float32``;
* Python scalars are *weak* (see :func:`scalar_result`): they take the Array's dtype, and an int that
  does not fit raises :class:`ScalarOverflowError`.
"""

from __future__ import annotations

import builtins
import itertools
from typing import Any, Iterable

from ._errors import ArgumentTypeError, ArgumentValueError, PromotionError, ScalarOverflowError, UnsupportedDTypeError

__all__ = [
    "DType",
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "can_cast",
    "isdtype",
    "finfo",
    "iinfo",
]

_builtin_bool = bool


class DType:
    """A backend-independent dtype. Compare with ``is`` or ``==``; there is one object per dtype.

    ``==`` also answers the other libraries' spellings of the same dtype, so the habits ``x.dtype == np.float32``,
    ``x.dtype == torch.float32`` and ``x.dtype == "float32"`` are right on every backend (never silently False);
    a string that names no dtype raises :class:`~xbackend.UnsupportedDTypeError`. Hashing stays the identity's
    (cheap, and DTypes are dictionary keys): look dtypes up with ``xb.dtype(spelling)`` first.

    >>> import numpy as np, xbackend as xb
    >>> xb.float32, xb.float32.itemsize, xb.float32.kind
    (xb.float32, 4, 'f')
    >>> xb.dtype("int8") is xb.int8
    True
    >>> xb.float32 == np.float32, xb.float32 == "float32", xb.float32 == np.dtype("float64"), xb.int8 == "f4"
    (True, True, False, False)
    """

    __slots__ = ("name", "kind", "itemsize", "_rank")

    def __init__(self, name: str, kind: str, itemsize: int, rank: int) -> None:
        self.name = name
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        self.itemsize = itemsize
        self._rank = rank

    def __repr__(self) -> str:
        return f"xb.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name  # pickles as the module-level singleton

    def __eq__(self, other: object) -> builtins.bool:
        if other is self:
            return True
        if type(other) is DType:
            return False
        d = _spelled(other)
        if d is None:
            return NotImplemented
        return d is self

    def __ne__(self, other: object) -> builtins.bool:
        if other is self:
            return False
        if type(other) is DType:
            return True
        d = _spelled(other)
        if d is None:
            return NotImplemented
        return d is not self

    __hash__ = object.__hash__  # one object per dtype: identity hashing, as before (``==`` above is wider)

    @property
    def bits(self) -> int:
        return self.itemsize * 8

    @property
    def dtype(self) -> Any:
        """The NumPy dtype of the same name, so ``np.dtype(xb.float32)`` and NumPy's comparisons
        (``np.dtype("float32") == xb.float32``) accept it: NumPy reads any object's ``.dtype``. scikit-learn
        keeps ``X.dtype`` and casts NumPy results with it when array-API dispatch is off. bfloat16 needs ml_dtypes.

        >>> import numpy as np, xbackend as xb
        >>> np.dtype(xb.float32), np.dtype("float64") == xb.float64, np.ones(2).astype(xb.int8).dtype
        (dtype('float32'), True, dtype('int8'))
        """
        import numpy as np

        if self is bfloat16:
            try:
                import ml_dtypes
            except ImportError:
                msg = "bfloat16 has no NumPy dtype without ml_dtypes: pip install ml_dtypes"
                raise UnsupportedDTypeError(msg) from None
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(self.name)


bool = DType("bool", "b", 1, 0)  # noqa: A001 - the standard's name
int8 = DType("int8", "i", 1, 1)
int16 = DType("int16", "i", 2, 2)
int32 = DType("int32", "i", 4, 3)
int64 = DType("int64", "i", 8, 4)
uint8 = DType("uint8", "u", 1, 1)
uint16 = DType("uint16", "u", 2, 2)
uint32 = DType("uint32", "u", 4, 3)
uint64 = DType("uint64", "u", 8, 4)
float16 = DType("float16", "f", 2, 1)
bfloat16 = DType("bfloat16", "f", 2, 1)
float32 = DType("float32", "f", 4, 2)
float64 = DType("float64", "f", 8, 3)
complex64 = DType("complex64", "c", 8, 2)
complex128 = DType("complex128", "c", 16, 3)

ALL: tuple[DType, ...] = (
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, bfloat16, float32, float64, complex64, complex128,
)  # fmt: skip
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}
SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
REAL_FLOAT = (float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
FLOATING = REAL_FLOAT + COMPLEX
NUMERIC = INTEGER + FLOATING
REAL = INTEGER + REAL_FLOAT
_COMPLEX_OF = {float16: complex64, bfloat16: complex64, float32: complex64, float64: complex128}
_REAL_OF = {complex64: float32, complex128: float64}


def complex_of(dt: DType) -> DType:
    """The complex dtype with ``dt``'s precision (complex dtypes map to themselves)."""
    return _COMPLEX_OF.get(dt, dt)


def real_of(dt: DType) -> DType:
    """The real dtype of a complex one (others map to themselves): ``abs(complex64) -> float32``."""
    return _REAL_OF.get(dt, dt)


#: ``xbackend._config.current``, linked by ``xbackend/_assemble.py`` (that module imports this one)
_CURRENT_CONFIG: list[Any] = []
#: Python's types as dtypes (``dtype=float``, as NumPy and torch accept them): the configured defaults' names
_BUILTIN_DEFAULTS = {builtins.float: "default_float", builtins.int: "default_int", builtins.complex: "default_complex"}


def dtype(obj: Any) -> DType:
    """Parse a dtype name (``"float32"``) or Python's ``float``/``int``/``complex``/``bool`` (the configured
    default float, int and complex dtypes, and bool), or return a DType unchanged. The other libraries'
    spellings of a dtype xbackend has are accepted too: ``np.float32``, ``np.dtype("float32")``, ``"f4"``,
    ``torch.float32`` (read by name: torch is never imported to answer).

    >>> import numpy as np, xbackend as xb
    >>> xb.dtype("complex64"), xb.dtype(float), xb.dtype(bool), xb.dtype(np.float32), xb.dtype("i2")
    (xb.complex64, xb.float64, xb.bool, xb.float32, xb.int16)
    >>> with xb.using(default_float=xb.float32):
    ...     xb.dtype(float), xb.dtype(complex)
    (xb.float32, xb.complex64)
    """
    if type(obj) is DType:
        return obj
    if isinstance(obj, str) and obj in BY_NAME:
        return BY_NAME[obj]
    d = _spelled(obj, strict=False)
    if d is not None and d is not _OTHER:
        return d
    raise UnsupportedDTypeError(
        f"{obj!r} is not an xbackend dtype; use one of {', '.join(BY_NAME)} (e.g. xb.float32)"
    )


#: what :func:`_spelled` answers for a dtype of another library that xbackend has no counterpart of (``"U5"``)
_OTHER: Any = object()
_PY_NAMES = {"float": builtins.float, "int": builtins.int, "complex": builtins.complex, "bool": builtins.bool}


def _spelled(obj: Any, strict: builtins.bool = True) -> Any:
    """The DType another library's spelling names: a name or NumPy string (``"f4"``; ``"float"``, ``"int"`` and
    ``"complex"`` as Python's types), a NumPy dtype or scalar type, a torch dtype (by its name: torch is not
    imported), Python's ``float``/``int``/``complex``/``bool`` (the configured defaults). ``_OTHER`` for a real
    dtype xbackend lacks (``"U5"``, ``torch.qint8``), None for an object that is no dtype spelling. ``strict``: a
    string that names nothing raises :class:`~xbackend.UnsupportedDTypeError` (what ``==`` does; never False)."""
    t = type(obj)
    if t is DType:
        return obj
    if t is str:
        d = BY_NAME.get(obj)
        if d is not None:
            return d
        py = _PY_NAMES.get(obj.strip())
        if py is not None:
            return _spelled(py)
        import numpy as np

        try:
            nd = np.dtype(obj)
        except TypeError:
            if not strict:
                return None
            raise UnsupportedDTypeError(f"{obj!r} names no dtype, so a comparison with it would always be False. "
                                        f"Fix: compare with a dtype, e.g. x.dtype == xb.float32 (names: "
                                        f"{', '.join(BY_NAME)})") from None  # fmt: skip
        return BY_NAME.get(nd.name, _OTHER)
    if t is type:  # Python's types: NumPy's and torch's meaning, with xbackend's configured defaults
        if obj is builtins.bool:
            return bool
        default = _BUILTIN_DEFAULTS.get(obj)
        if default is not None:
            return getattr(_CURRENT_CONFIG[0](), default)  # linked by _assemble (_config imports this module)
    mod = t.__module__
    if mod == "torch" and t.__name__ == "dtype":  # torch.float32 prints as "torch.float32"
        return BY_NAME.get(str(obj).rpartition(".")[2], _OTHER)
    if mod.startswith("numpy"):
        import numpy as np

        if isinstance(obj, np.dtype):
            return BY_NAME.get(obj.name, _OTHER) if obj.names is None else _OTHER
        return None
    if isinstance(obj, type) and obj.__module__.startswith(("numpy", "ml_dtypes")):  # np.float32, ml_dtypes.bfloat16
        import numpy as np

        try:
            nd = np.dtype(obj)
        except TypeError:
            return None
        return BY_NAME.get(nd.name, _OTHER)
    return None


def from_numpy_dtype(nd: Any) -> DType:
    """The DType of a NumPy dtype (``np.dtype('float32') -> xb.float32``)."""
    try:
        return BY_NAME[nd.name]
    except (KeyError, AttributeError):
        raise UnsupportedDTypeError(f"NumPy dtype {nd} has no xbackend dtype; convert it first, e.g. a.astype('float64')") from None


def check_cast(src: DType, dst: DType) -> None:
    """Refuse the one cast that silently loses a whole component: complex -> real (or bool)."""
    if src.kind == "c" and dst.kind != "c":
        raise UnsupportedDTypeError(
            f"casting {src} to {dst} would drop the imaginary part silently. "
            f"Fix: take the part you mean first, e.g. xb.real(x).astype(xb.{dst.name}), or xb.abs(x)"
        )


# --- the promotion table -----------------------------------------------------------------------
def _build_table() -> dict[tuple[DType, DType], DType]:
    t: dict[tuple[DType, DType], DType] = {}

    def chain(types: Iterable[DType]) -> None:
        types = tuple(types)
        for a, b in itertools.product(types, repeat=2):
            t[a, b] = types[max(types.index(a), types.index(b))]

    chain(SIGNED)
    chain(UNSIGNED)
    chain((float16, float32, float64))
    chain((bfloat16, float32, float64))
    chain(COMPLEX)
    t[bool, bool] = bool
    half: dict[tuple[DType, DType], DType] = {
        (bfloat16, float16): float32,
        # unsigned with signed: the smallest signed type that holds both (standard table)
        (uint8, int8): int16, (uint8, int16): int16, (uint8, int32): int32, (uint8, int64): int64,
        (uint16, int8): int32, (uint16, int16): int32, (uint16, int32): int32, (uint16, int64): int64,
        (uint32, int8): int64, (uint32, int16): int64, (uint32, int32): int64, (uint32, int64): int64,
    }  # fmt: skip
    # cross-kind: the "higher" kind wins and keeps its own precision
    for lo, hi in itertools.product((bool,), INTEGER + FLOATING):
        half[lo, hi] = hi
    for lo, hi in itertools.product(INTEGER, FLOATING):
        half[lo, hi] = hi
    for r, c in itertools.product(REAL_FLOAT, COMPLEX):
        half[r, c] = complex_of(r) if complex_of(r).itemsize > c.itemsize else c
    for (a, b), r in half.items():  # write half, symmetrise
        t[a, b] = t[b, a] = r
    return t


PROMOTION: dict[tuple[DType, DType], DType] = _build_table()


def promote(a: DType, b: DType) -> DType:
    """Promote two dtypes by the table, raising :class:`PromotionError` where there is no rule."""
    try:
        return PROMOTION[a, b]
    except KeyError:
        raise PromotionError(
            f"no promotion rule for {a} and {b}: no dtype of either kind holds every value of both (uint64 with a "
            f"signed integer). Fix: compute in float64 (exact up to 2**53), e.g. x = x.astype(xb.float64); "
            f"y = y.astype(xb.float64); or, when every uint64 value is below 2**63 (check bool(xb.max(x) < 2**63)), "
            f"cast it to int64: no cast of the uint64 side to int64 is safe without that check (2**64-1 becomes -1)"
        ) from None


# --- Python scalars (weak) ---------------------------------------------------------------------
_INT_RANGE = {d: (-(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1) for d in SIGNED}
_INT_RANGE.update({d: (0, (1 << d.bits) - 1) for d in UNSIGNED})


def holder(value: int, dt: DType) -> DType:
    """The smallest integer dtype that holds ``value`` (of ``dt``'s signedness when one does), else float64.

    >>> import xbackend as xb
    >>> from xbackend._dtypes import holder
    >>> holder(300, xb.int8), holder(300, xb.uint8), holder(-1, xb.uint8), holder(2**70, xb.int64)
    (xb.int16, xb.uint16, xb.int8, xb.float64)
    """
    order = (UNSIGNED + SIGNED) if dt.kind == "u" and value >= 0 else (SIGNED + UNSIGNED)
    for d in order:
        lo, hi = _INT_RANGE[d]
        if lo <= value <= hi:
            return d
    return float64


def check_int_fits(value: int, dt: DType, fix: str | None = None) -> None:
    """Raise :class:`ScalarOverflowError` unless ``dt`` holds ``value``; ``fix`` is the message's fix (default: cast
    the Array to a dtype that holds the value)."""
    lo, hi = _INT_RANGE[dt]
    if not lo <= value <= hi:
        h = holder(value, dt)
        raise ScalarOverflowError(
            f"Python int {value} does not fit {dt} (range {lo}..{hi}); xbackend never wraps around. "
            f"Fix: {fix or f'cast the Array to a dtype that holds it first, e.g. x = x.astype(xb.{h.name})'}"
        )


def scalar_result(dt: DType, value: Any, default_float: DType, default_int: DType) -> DType:
    """Result dtype of ``Array[dt] op value`` for a Python scalar ``value`` (weak typing).

    * same kind or lower (bool < int < float < complex): the Array's dtype; ints must fit;
    * a float with an int/bool Array: the default float dtype; an int with a bool Array: default int;
    * a complex with a real Array: the complex dtype of the Array's precision.
    """
    t = type(value)
    k = dt.kind
    if t is int:
        if k == "i" or k == "u":
            check_int_fits(value, dt)
            return dt
        if k == "b":
            check_int_fits(value, default_int)
            return default_int
        return dt
    if t is float:
        return default_float if k in "biu" else dt
    if t is _builtin_bool:
        return dt
    if t is complex:
        if k == "c":
            return dt
        return complex_of(default_float if k in "biu" else dt)
    raise ArgumentTypeError(f"expected a Python bool, int, float or complex scalar, got {t.__name__}")


def python_scalar_dtype(value: Any, default_float: DType, default_int: DType) -> DType:
    """The dtype a lone Python scalar gets when it becomes an Array."""
    t = type(value)
    if t is _builtin_bool:
        return bool
    if t is int:
        return default_int
    if t is float:
        return default_float
    if t is complex:
        return complex_of(default_float)
    raise ArgumentTypeError(f"expected a Python bool, int, float or complex scalar, got {t.__name__}")


# --- public helpers ----------------------------------------------------------------------------


def can_cast(from_: Any, to: DType, /) -> builtins.bool:
    """Whether ``from_`` (a dtype or Array) promotes to ``to`` without loss, by the promotion table.

    >>> import xbackend as xb
    >>> xb.can_cast(xb.int8, xb.int32), xb.can_cast(xb.float64, xb.float32)
    (True, False)
    """
    f = from_ if type(from_) is DType else from_.dtype if type(getattr(from_, "dtype", None)) is DType else dtype(from_)
    return PROMOTION.get((f, dtype(to))) is dtype(to)


_KIND_NAMES = {
    "bool": frozenset([bool]),
    "signed integer": frozenset(SIGNED),
    "unsigned integer": frozenset(UNSIGNED),
    "integral": frozenset(INTEGER),
    "real floating": frozenset(REAL_FLOAT),
    "complex floating": frozenset(COMPLEX),
    "numeric": frozenset(NUMERIC),
}


def isdtype(dtype: DType, kind: Any) -> _builtin_bool:
    """Whether ``dtype`` is of ``kind`` (a dtype, a kind name, or a tuple of them).

    >>> import xbackend as xb
    >>> xb.isdtype(xb.uint8, "integral"), xb.isdtype(xb.float32, ("bool", "complex floating"))
    (True, False)
    """
    if type(kind) is tuple:
        return any(isdtype(dtype, k) for k in kind)
    if type(kind) is DType:
        return dtype is kind
    try:
        return dtype in _KIND_NAMES[kind]
    except (KeyError, TypeError):
        raise ArgumentValueError(f"unknown dtype kind {kind!r}; use one of {sorted(_KIND_NAMES)} or a dtype") from None


class finfo_object:
    """Machine limits of a floating dtype (fields as in the Array API standard)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, bits: int, eps: float, max: float, min: float, smallest_normal: float, dtype: DType):
        self.bits, self.eps, self.max, self.min = bits, eps, max, min
        self.smallest_normal, self.dtype = smallest_normal, dtype

    def __repr__(self) -> str:
        return f"finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, dtype={self.dtype!r})"


class iinfo_object:
    """Limits of an integer dtype (fields as in the Array API standard)."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, bits: int, max: int, min: int, dtype: DType):
        self.bits, self.max, self.min, self.dtype = bits, max, min, dtype

    def __repr__(self) -> str:
        return f"iinfo(bits={self.bits}, min={self.min}, max={self.max}, dtype={self.dtype!r})"


def _as_dtype(type: Any) -> DType:
    if isinstance(type, DType):
        return type
    if hasattr(type, "dtype") and isinstance(type.dtype, DType):
        return type.dtype
    return dtype(type)


def finfo(type: Any, /) -> finfo_object:
    """Limits of a floating dtype; complex dtypes report their real component.

    >>> import xbackend as xb
    >>> xb.finfo(xb.float32).eps == 2.0 ** -23, xb.finfo(xb.complex64).dtype
    (True, xb.float32)
    """
    dt = real_of(_as_dtype(type))
    fields = _FINFO.get(dt)
    if fields is None:
        if dt.kind != "f":
            raise UnsupportedDTypeError(f"finfo() needs a floating dtype, got {dt}; use xb.iinfo() for integers")
        if dt is bfloat16:
            fields = (16, 2.0**-7, float.fromhex("0x1.fep127"), -float.fromhex("0x1.fep127"), 2.0**-126, dt)
        else:
            import numpy as np

            f = np.finfo(dt.name)
            fields = (f.bits, float(f.eps), float(f.max), float(f.min), float(f.smallest_normal), dt)
        _FINFO[dt] = fields
    return finfo_object(*fields)  # a new object each call: a caller may write into it


_FINFO: dict[DType, tuple[Any, ...]] = {}  # a floating dtype's fields, read from np.finfo once


def iinfo(type: Any, /) -> iinfo_object:
    """Limits of an integer dtype.

    >>> import xbackend as xb
    >>> xb.iinfo(xb.int8).min, xb.iinfo(xb.uint16).max
    (-128, 65535)
    """
    dt = _as_dtype(type)
    if dt not in _INT_RANGE:
        raise UnsupportedDTypeError(f"iinfo() needs an integer dtype, got {dt}; use xb.finfo() for floats")
    lo, hi = _INT_RANGE[dt]
    return iinfo_object(dt.bits, hi, lo, dt)
