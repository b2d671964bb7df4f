"""Comparing two recorded values, and naming recorded calls as the user wrote them.

Design constraint: "differs" means what :func:`~xbackend.testing.assert_close` means - beyond the dtype's
tolerance (:func:`~xbackend.testing.default_tolerance`, or the caller's ``rtol``/``atol``), NaN equal to NaN,
infinities exact, integers and bools exact - so a report and the failing assertion that asked for it agree.
Below that line a comparison still says how equal two values are: bit-identical, equal but for the last bits
(how many ulps apart), or equal as numbers with zeros of different signs.

>>> from xbackend.testing._compare import display
>>> display("Array.__radd__"), display("mean"), display("linalg.solve"), display("Array.__getitem__")
('y + x', 'xb.mean', 'xb.linalg.solve', 'x[key]')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _dtypes as D
from ._assert import default_tolerance
from ._reference import ulp
from ._trace import Leaf

__all__ = ["LeafDiff", "compare_leaf", "tolerance", "ulp_dtype", "display", "DIFFERENT"]

#: comparison outcomes that count as a difference (the rest: "same", "bits", "sign of zero")
DIFFERENT = frozenset({"values", "dtype", "shape", "kind"})


@dataclass
class LeafDiff:
    """How two recorded values compare: ``what`` is ``"same"`` (bit-identical), ``"bits"`` (equal within the
    tolerance, not bit-identical), ``"sign of zero"``, or a difference: ``"values"`` (``bad`` marks the elements
    beyond the tolerance), ``"dtype"``, ``"shape"``, ``"kind"``."""

    what: str
    a: Leaf
    b: Leaf
    bad: np.ndarray | None = None
    zeros: int = 0
    ulps: float = 0.0
    rtol: float = 0.0
    atol: float = 0.0


def ulp_dtype(leaf: Leaf, inputs: list[Leaf]) -> str:
    """The floating dtype whose ulps measure ``leaf``: its own, else its call's loosest floating input's."""
    if leaf.dtype in D.BY_NAME and D.dtype(leaf.dtype).kind in "fc":
        return leaf.dtype
    fl = [lf.dtype for lf in inputs if lf.kind == "array" and lf.dtype in D.BY_NAME and D.dtype(lf.dtype).kind in "fc"]
    return max(fl, key=lambda n: float(D.finfo(D.dtype(n)).eps)) if fl else "float64"


def tolerance(leaf: Leaf, inputs: list[Leaf], rtol: float | None, atol: float | None) -> tuple[float, float]:
    """``(rtol, atol)`` for ``leaf``: the caller's, else its dtype's (a Python number: its call's inputs')."""
    if leaf.kind == "array" and leaf.dtype in D.BY_NAME:
        r, a = default_tolerance(D.dtype(leaf.dtype))
    else:
        r, a = default_tolerance(D.dtype(ulp_dtype(leaf, inputs)))
    return (r if rtol is None else rtol, a if atol is None else atol)


def compare_leaf(a: Leaf, b: Leaf, rtol: float, atol: float, uname: str) -> LeafDiff:
    """Compare two recorded values (see :class:`LeafDiff`)."""
    if a.kind != b.kind:
        return LeafDiff("kind", a, b)
    if a.kind == "other":
        return LeafDiff("same" if a.where == b.where else "kind", a, b)
    if a.dtype != b.dtype:
        return LeafDiff("dtype", a, b)
    if a.shape != b.shape:
        return LeafDiff("shape", a, b)
    ha, hb = a.host, b.host
    if ha is None or hb is None or ha.size == 0:
        return LeafDiff("same", a, b)
    if ha.dtype.kind in "biu" and hb.dtype.kind in "biu":
        bad = np.asarray(ha != hb)
        return LeafDiff("values" if bad.any() else "same", a, b, bad, rtol=0.0, atol=0.0)
    cplx = ha.dtype.kind == "c" or hb.dtype.kind == "c"
    ac = ha.astype(np.complex128 if cplx else np.float64)
    bc = hb.astype(ac.dtype)
    with np.errstate(all="ignore"):
        bad = ~np.isclose(ac, bc, rtol=rtol, atol=atol, equal_nan=True)
        fin = np.isfinite(ac) & np.isfinite(bc)
        mag = np.maximum(np.abs(ac), np.abs(bc))
        dist = np.where(fin, np.abs(ac - bc), 0.0) / ulp(mag, uname)
        ulps = float(dist.max()) if dist.size else 0.0
    if bad.any():
        return LeafDiff("values", a, b, bad, ulps=ulps, rtol=rtol, atol=atol)
    zeros = 0
    for part in (np.real, np.imag) if cplx else (np.real,):
        pa, pb = part(ac), part(bc)
        zeros += int(np.count_nonzero((pa == 0) & (pb == 0) & (np.signbit(pa) != np.signbit(pb))))
    if zeros:
        return LeafDiff("sign of zero", a, b, zeros=zeros, ulps=ulps, rtol=rtol, atol=atol)
    identical = bool(np.array_equal(ac, bc, equal_nan=True))
    return LeafDiff("same" if identical else "bits", a, b, ulps=ulps, rtol=rtol, atol=atol)


def how_equal(d: LeafDiff) -> str:
    """One phrase for a comparison of two inputs."""
    if d.what == "same":
        return "bit-identical on both"
    if d.what == "bits":
        return f"equal within the tolerance, not bit-identical (up to {d.ulps:.3g} ulp apart)"
    if d.what == "sign of zero":
        return f"equal as numbers, but {d.zeros} zero(s) differ in sign"
    if d.what == "values":
        n = int(np.count_nonzero(d.bad)) if d.bad is not None else 0
        return f"DIFFERENT at {n} element(s)"
    return f"DIFFERENT {d.what}: {d.a.dtype} {d.a.shape} vs {d.b.dtype} {d.b.shape}"


# --- names as written -------------------------------------------------------------------------------------------
_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>", "lt": "<", "le": "<=",
           "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}  # fmt: skip
_UNARY = {"neg": "-x", "pos": "+x", "abs": "abs(x)", "invert": "~x", "bool": "bool(x)", "int": "int(x)",
          "float": "float(x)", "complex": "complex(x)", "index": "operator.index(x)", "len": "len(x)",
          "getitem": "x[key]", "setitem": "x[key] = value"}  # fmt: skip


def display(name: str) -> str:
    """A recorded call's name as the user's code spells it (``x + y``, ``xb.mean``, ``x.astype``)."""
    if name.startswith("Array.__") and name.endswith("__"):
        core = name[8:-2]
        if core in _BINARY:
            return f"x {_BINARY[core]} y"
        if core[:1] == "r" and core[1:] in _BINARY:
            return f"y {_BINARY[core[1:]]} x"
        if core[:1] == "i" and core[1:] in _BINARY:
            return f"x {_BINARY[core[1:]]}= y"
        return _UNARY.get(core, name)
    if name.startswith("Array."):
        return f"x.{name[6:]}"
    if name.startswith(("np.", "grad of", "xb.")):
        return name
    return f"xb.{name}"
