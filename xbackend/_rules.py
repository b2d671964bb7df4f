"""Which dtypes an elementwise operation accepts, and the dtype it computes in and returns.

Design constraint: tables, not branches. Every elementwise function and operator names one
*category*; a category maps the promoted input dtype to ``(compute dtype, result dtype)`` or raises.
The backend then only ever sees inputs that already have the compute dtype.

Integer or bool input to a floating-point function (``exp``, ``/``, ``atan2``, ...) is computed in
the default float dtype (``float64`` unless ``xb.using(default_float=...)``) on every backend.
"""

from __future__ import annotations

from . import _dtypes as D
from ._dtypes import DType
from ._errors import UnsupportedDTypeError

__all__ = ["ELEMENTWISE", "resolve", "same_ok", "same_compute", "bool_result"]

# name -> (number of array arguments, category): the kernels a backend builds (``Backend.make_kernel``), their arities
ELEMENTWISE: dict[str, tuple[int, str]] = {}
for _names, _n, _cat in (
    ("add subtract multiply pow", 2, "numeric"),
    ("divide", 2, "float"),
    ("atan2 copysign hypot logaddexp nextafter", 2, "real_float"),
    ("floor_divide remainder maximum minimum", 2, "real"),
    ("bitwise_and bitwise_or bitwise_xor", 2, "intbool"),
    ("bitwise_left_shift bitwise_right_shift", 2, "int"),
    ("logical_and logical_or logical_xor", 2, "bool"),
    ("equal not_equal", 2, "eq"),
    ("less less_equal greater greater_equal", 2, "cmp"),
    ("negative positive square sign round conj", 1, "numeric"),
    ("abs real imag", 1, "to_real"),
    ("acos acosh asin asinh atan atanh cos cosh exp expm1 log log1p log2 log10 sin sinh sqrt tan tanh reciprocal",
     1, "float"),
    ("cbrt", 1, "real_float"),  # beyond the standard (IEEE 754's rootn(x, 3)): NumPy, CuPy and JAX have it
    ("ceil floor trunc", 1, "real"),
    ("signbit", 1, "real_float_bool"),
    ("isfinite isinf isnan", 1, "any_bool"),
    ("bitwise_invert", 1, "intbool"),
    ("logical_not", 1, "bool"),
    ("matmul", 2, "numeric"),  # x @ y: no elementwise function, but a kernel of two arrays like the others
):  # fmt: skip
    for _name in _names.split():
        ELEMENTWISE[_name] = (_n, _cat)

_NUMERIC = frozenset(D.NUMERIC)
_REAL = frozenset(D.REAL)
_INT = frozenset(D.INTEGER)
_INTBOOL = _INT | {D.bool}
_ALL = frozenset(D.ALL)

# category -> (accepted promoted dtypes, what an integer/bool input becomes, result rule)
_ACCEPT = {
    "numeric": _NUMERIC, "real": _REAL, "intbool": _INTBOOL, "int": _INT, "bool": frozenset([D.bool]),
    "eq": _ALL, "cmp": _REAL | {D.bool}, "float": _ALL, "real_float": _REAL | {D.bool},
    "to_real": _NUMERIC, "real_float_bool": _REAL | {D.bool}, "any_bool": _ALL,
}  # fmt: skip
_FLOAT_CATS = frozenset(["float", "real_float", "real_float_bool"])
_BOOL_RESULT = frozenset(["eq", "cmp", "real_float_bool", "any_bool"])
_WHAT = {
    "numeric": "a numeric dtype", "real": "a real numeric dtype", "intbool": "an integer or bool dtype",
    "int": "an integer dtype", "bool": "a bool dtype", "cmp": "a real numeric or bool dtype",
    "real_float": "a real dtype", "to_real": "a numeric dtype", "real_float_bool": "a real dtype",
}  # fmt: skip
_FIX = {
    "numeric": "for bool data use logical_and/logical_or, or cast first, e.g. x.astype(xb.int64)",
    "bool": "compare first (x != 0), or cast first, e.g. x.astype(xb.bool)",
    "intbool": "cast first, e.g. x.astype(xb.int64)",
    "int": "cast first, e.g. x.astype(xb.int64)",
}
_FIX_COMPLEX = "take the part you mean first (xb.abs(x) for the magnitude), e.g. xb.real(x)"
_cache: dict[tuple[str, DType, DType], tuple[DType, DType]] = {}


def resolve(name: str, category: str, p: DType, default_float: DType) -> tuple[DType, DType]:
    """``(compute dtype, result dtype)`` for an operation of ``category`` whose inputs promote to ``p``."""
    key = (category, p, default_float)
    try:
        return _cache[key]
    except KeyError:
        pass
    if p not in _ACCEPT[category]:
        # complex data cannot be cast to a real dtype (_dtypes.check_cast): the fix takes the part meant first
        fix = _FIX.get(category) or (_FIX_COMPLEX if p.kind == "c" else "cast with x.astype(xb.float64)")
        raise UnsupportedDTypeError(
            f"{name}() is not defined for dtype {p}; it needs {_WHAT.get(category, 'another dtype')}. Fix: {fix}"
        )
    cd = p
    if category in _FLOAT_CATS and p.kind in "biu":
        cd = default_float
    if category in _BOOL_RESULT:
        rd = D.bool
    elif category == "to_real":
        rd = D.real_of(cd) if name != "imag" or cd.kind == "c" else cd
    else:
        rd = cd
    _cache[key] = (cd, rd)
    return cd, rd


def same_ok(category: str) -> frozenset[DType]:
    """Dtypes for which the category computes and returns the input dtype unchanged (the fast path)."""
    acc = _ACCEPT[category]
    if category in _BOOL_RESULT:
        return frozenset()
    if category in _FLOAT_CATS:
        return frozenset(d for d in acc if d.kind in "fc")
    if category == "to_real":
        return frozenset(d for d in acc if d.kind != "c")
    return acc


def same_compute(category: str) -> frozenset[DType]:
    """Dtypes an operation of the category computes in as they are, whatever its result (a comparison's is bool):
    what the operators' fast path may pass through."""
    acc = _ACCEPT[category]
    if category in _FLOAT_CATS:
        return frozenset(d for d in acc if d.kind in "fc")
    return acc


def bool_result(category: str) -> bool:
    return category in _BOOL_RESULT
