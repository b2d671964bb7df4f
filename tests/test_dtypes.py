"""DType objects, the promotion table, result_type, can_cast, isdtype, finfo and iinfo.

The promotion table is checked against the Array API standard's table, written out here by hand from
the spec's "Type Promotion Rules" page (not derived from ``_dtypes.py``), plus the project's cross-kind
rules documented in the ``_dtypes`` module docstring.
"""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import xbackend as xb
from xbackend import _dtypes as D

ALL = [xb.bool, xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64,
       xb.float16, xb.bfloat16, xb.float32, xb.float64, xb.complex64, xb.complex128]  # fmt: skip

# --- the standard's table (https://data-apis.org/array-api/latest/API_specification/type_promotion.html) -----
b, i1, i2, i4, i8 = "bool", "int8", "int16", "int32", "int64"
u1, u2, u4, u8 = "uint8", "uint16", "uint32", "uint64"
f4, f8, c8, c16 = "float32", "float64", "complex64", "complex128"
STANDARD = {
    (b, b): b,
    # signed integers
    (i1, i1): i1, (i1, i2): i2, (i1, i4): i4, (i1, i8): i8,
    (i2, i2): i2, (i2, i4): i4, (i2, i8): i8,
    (i4, i4): i4, (i4, i8): i8,
    (i8, i8): i8,
    # unsigned integers
    (u1, u1): u1, (u1, u2): u2, (u1, u4): u4, (u1, u8): u8,
    (u2, u2): u2, (u2, u4): u4, (u2, u8): u8,
    (u4, u4): u4, (u4, u8): u8,
    (u8, u8): u8,
    # mixed signed and unsigned integers
    (i1, u1): i2, (i2, u1): i2, (i4, u1): i4, (i8, u1): i8,
    (i1, u2): i4, (i2, u2): i4, (i4, u2): i4, (i8, u2): i8,
    (i1, u4): i8, (i2, u4): i8, (i4, u4): i8, (i8, u4): i8,
    # floating point (real and complex)
    (f4, f4): f4, (f4, f8): f8, (f8, f8): f8,
    (c8, c8): c8, (c8, c16): c16, (c16, c16): c16,
    (f4, c8): c8, (f4, c16): c16, (f8, c8): c16, (f8, c16): c16,
}  # fmt: skip
STANDARD.update({(y, x): r for (x, y), r in list(STANDARD.items())})


@pytest.mark.parametrize("pair", sorted(STANDARD), ids=lambda p: f"{p[0]}-{p[1]}")
def test_promotion_within_kind_is_the_standards(pair):
    a, b_ = (xb.dtype(n) for n in pair)
    assert xb.result_type(a, b_) is xb.dtype(STANDARD[pair])
    assert D.PROMOTION[a, b_] is xb.dtype(STANDARD[pair])


KIND_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def project_rule(a: D.DType, b_: D.DType) -> D.DType | None:
    """The project's cross-kind rules (``_dtypes`` docstring); None where there is no rule."""
    if (a.name, b_.name) in STANDARD:
        return xb.dtype(STANDARD[a.name, b_.name])
    if xb.uint64 in (a, b_) and "i" in (a.kind, b_.kind):
        return None  # uint64 with a signed integer: no common type
    half = {xb.float16, xb.bfloat16}
    if a in half or b_ in half:
        if {a, b_} == half:
            return xb.float32
        if a is b_:
            return a
        lo, hi = (a, b_) if KIND_ORDER[a.kind] <= KIND_ORDER[b_.kind] else (b_, a)
        if lo.kind in "biu":
            return hi
        if lo.kind == "f" and hi.kind == "f":
            return lo if lo.itemsize > hi.itemsize else hi
        # a half float with complex: complex keeps its precision (complex64 at least)
        return hi
    ka, kb = KIND_ORDER[a.kind], KIND_ORDER[b_.kind]
    if ka != kb:
        lo, hi = (a, b_) if ka < kb else (b_, a)
        if hi.kind == "c" and lo.kind == "f":
            return {f4: xb.complex64, f8: xb.complex128}[lo.name] if lo.itemsize * 2 > hi.itemsize else hi
        return hi  # bool < int < float < complex: the higher kind keeps its own precision
    return None


@pytest.mark.parametrize("a", ALL, ids=str)
def test_every_pair_follows_the_documented_rules(a):
    for b_ in ALL:
        want = project_rule(a, b_)
        if want is None:
            with pytest.raises(xb.PromotionError, match="Fix"):
                xb.result_type(a, b_)
            assert (a, b_) not in D.PROMOTION
        else:
            assert xb.result_type(a, b_) is want, (a, b_)
            assert xb.result_type(b_, a) is want


def test_cross_kind_examples_from_the_docs():
    assert xb.result_type(xb.int64, xb.float32) is xb.float32  # no silent float64
    assert xb.result_type(xb.uint8, xb.float16) is xb.float16
    assert xb.result_type(xb.bool, xb.int8) is xb.int8
    assert xb.result_type(xb.int32, xb.complex64) is xb.complex64
    assert xb.result_type(xb.float64, xb.complex64) is xb.complex128
    assert xb.result_type(xb.bfloat16, xb.float16) is xb.float32
    with pytest.raises(xb.PromotionError):
        xb.result_type(xb.uint64, xb.int8)
    with pytest.raises(TypeError):  # PromotionError is a TypeError
        xb.result_type(xb.int64, xb.uint64)


@given(st.lists(st.sampled_from(ALL), min_size=1, max_size=4))
def test_result_type_is_a_fold_and_order_free(dts):
    try:
        want = dts[0]
        for d in dts[1:]:
            want = D.promote(want, d)
    except xb.PromotionError:
        return
    try:
        got = xb.result_type(*reversed(dts))
    except xb.PromotionError:
        # the fold can depend on order only where uint64 meets a signed type through a wider type
        assert xb.uint64 in dts
        return
    assert got is want or xb.uint64 in dts


def test_result_type_with_arrays_scalars_and_names():
    x = xb.asarray(np.zeros(2, dtype=np.int8))
    assert xb.result_type(x, 1) is xb.int8
    assert xb.result_type(x, 1.0) is xb.float64
    assert xb.result_type(xb.float32, 1.0, 2) is xb.float32
    assert xb.result_type(xb.float32, 1j) is xb.complex64
    assert xb.result_type(1) is xb.int64 and xb.result_type(True) is xb.bool
    assert xb.result_type(1.0) is xb.float64 and xb.result_type(1j) is xb.complex128
    assert xb.result_type("int16", xb.uint8) is xb.int16
    with xb.using(default_float=xb.float32, default_int=xb.int32):
        assert xb.result_type(1.5) is xb.float32 and xb.result_type(2) is xb.int32
        assert xb.result_type(x, 1.5) is xb.float32
    with pytest.raises(ValueError):
        xb.result_type()
    with pytest.raises(TypeError):
        xb.result_type(np.float32)
    with pytest.raises(xb.ScalarOverflowError):
        xb.result_type(xb.int8, 1000)


def test_dtype_objects():
    for d in ALL:
        assert xb.dtype(d.name) is d and xb.dtype(d) is d
        assert repr(d) == f"xb.{d.name}" and str(d) == d.name
        assert pickle.loads(pickle.dumps(d)) is d
        assert d.bits == 8 * d.itemsize
        assert d == d and hash(d) == hash(d)
    assert xb.float32 != xb.float64
    assert len({d.name for d in ALL}) == len(ALL)
    assert xb.complex64.itemsize == 8 and xb.bfloat16.itemsize == 2
    with pytest.raises(xb.UnsupportedDTypeError, match="float32"):
        xb.dtype("float128")
    with pytest.raises(TypeError):
        xb.dtype(np.str_)  # a NumPy dtype xbackend has no counterpart of (np.float32 is xb.float32: issue 32)


@pytest.mark.parametrize("py", [float, int, complex, bool])
def test_python_types_are_dtypes(xb_target, py):
    """``dtype=float`` and friends, as NumPy and torch accept them (scikit-learn and SciPy write them): the
    default float/int/complex dtype, and bool - NumPy's own answer under the default configuration."""
    expected = xb.dtype(np.dtype(py).name)  # float64, int64, complex128, bool
    x = xb.asarray([1, 0, 2], backend=xb_target.backend, device=xb_target.device)
    made = {
        "asarray": xb.asarray([1, 0], dtype=py, backend=xb_target.backend, device=xb_target.device),
        "zeros": xb.zeros(3, dtype=py, backend=xb_target.backend, device=xb_target.device),
        "full": xb.full(2, py(1), dtype=py, backend=xb_target.backend, device=xb_target.device),
        "ones_like": xb.ones_like(x, dtype=py), "astype": xb.astype(x, py), "method astype": x.astype(py),
        "namespace asarray": x.__array_namespace__().asarray([1, 0], dtype=py),
    }  # fmt: skip
    if py is not bool:
        made["sum"] = xb.sum(x, dtype=py)
    for what, r in made.items():
        assert r.dtype is expected, (what, r.dtype)
    assert xb.dtype(py) is expected and D._as_dtype(py) is expected
    single = {float: xb.float32, complex: xb.complex64}.get(py)
    if single is not None:
        with xb.using(default_float=xb.float32):  # xbackend's defaults are configurable; the types follow them
            assert xb.zeros(1, dtype=py, backend=xb_target.backend, device=xb_target.device).dtype is single
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.dtype(str)


def test_numpy_reads_xbackend_dtypes():
    """NumPy takes an xbackend dtype wherever it takes a dtype (it reads ``.dtype``): scikit-learn keeps
    ``X.dtype`` of an Array and, with array-API dispatch off, casts its NumPy results with it."""
    for d in ALL:
        if d is xb.bfloat16:
            continue
        nd = np.dtype(d.name)
        assert np.dtype(d) == nd and nd == d and d == nd and d != np.dtype("U3")
        assert np.ones(2).astype(d).dtype == nd and np.asarray([1], dtype=d).dtype == nd
        assert np.zeros(1, dtype=d).dtype == nd
    assert np.dtype("float32") != xb.float64 and xb.int8 != np.dtype("uint8")
    assert np.issubdtype(xb.float32, np.floating) and not np.issubdtype(xb.int32, np.floating)
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert np.dtype(xb.bfloat16) == np.dtype(ml_dtypes.bfloat16)


def test_numpy_dtype_mapping():
    for d in ALL:
        if d is xb.bfloat16:
            continue
        assert D.from_numpy_dtype(np.dtype(d.name)) is d
    with pytest.raises(xb.UnsupportedDTypeError):
        D.from_numpy_dtype(np.dtype("U3"))


def test_can_cast():
    assert xb.can_cast(xb.int8, xb.int16) and xb.can_cast(xb.uint8, xb.int16)
    assert not xb.can_cast(xb.int16, xb.int8)
    assert not xb.can_cast(xb.float64, xb.float32)
    assert xb.can_cast(xb.float32, xb.complex64) and not xb.can_cast(xb.float64, xb.complex64)
    assert not xb.can_cast(xb.uint64, xb.int64)
    assert xb.can_cast(xb.asarray([1.0]), xb.float64)
    for a, b_ in itertools.product(ALL, ALL):
        assert xb.can_cast(a, b_) == (D.PROMOTION.get((a, b_)) is b_)


@pytest.mark.parametrize(
    "kind, members",
    [
        ("bool", {xb.bool}),
        ("signed integer", {xb.int8, xb.int16, xb.int32, xb.int64}),
        ("unsigned integer", {xb.uint8, xb.uint16, xb.uint32, xb.uint64}),
        ("integral", {xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64}),
        ("real floating", {xb.float16, xb.bfloat16, xb.float32, xb.float64}),
        ("complex floating", {xb.complex64, xb.complex128}),
        ("numeric", set(ALL) - {xb.bool}),
    ],
)
def test_isdtype(kind, members):
    for d in ALL:
        assert xb.isdtype(d, kind) == (d in members), (d, kind)
        assert xb.isdtype(d, (kind, "bool")) == (d in members or d is xb.bool)
        assert xb.isdtype(d, d) and not xb.isdtype(d, xb.float32 if d is not xb.float32 else xb.int8)


def test_isdtype_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        xb.isdtype(xb.int8, "integer")


@pytest.mark.parametrize("d", [xb.float16, xb.float32, xb.float64, xb.complex64, xb.complex128])
def test_finfo_matches_numpy(d):
    f = xb.finfo(d)
    real = {xb.complex64: "float32", xb.complex128: "float64"}.get(d, d.name)
    nf = np.finfo(real)
    assert f.bits == nf.bits and f.dtype is xb.dtype(real)
    assert f.eps == float(nf.eps) and f.max == float(nf.max) and f.min == float(nf.min)
    assert f.smallest_normal == float(nf.smallest_normal)
    assert all(type(v) is float for v in (f.eps, f.max, f.min, f.smallest_normal))
    assert xb.finfo(xb.zeros(1, dtype=d)).eps == f.eps


def test_finfo_bfloat16():
    f = xb.finfo(xb.bfloat16)
    assert f.bits == 16 and f.eps == 2.0**-7 and f.smallest_normal == 2.0**-126
    assert f.max == -f.min and 3.38e38 < f.max < 3.4e38


@pytest.mark.parametrize("d", [xb.int8, xb.int16, xb.int32, xb.int64, xb.uint8, xb.uint16, xb.uint32, xb.uint64])
def test_iinfo_matches_numpy(d):
    i, ni = xb.iinfo(d), np.iinfo(d.name)
    assert (i.bits, i.min, i.max) == (ni.bits, int(ni.min), int(ni.max))
    assert i.dtype is d and type(i.max) is int


def test_info_errors():
    with pytest.raises(xb.UnsupportedDTypeError, match="iinfo"):
        xb.finfo(xb.int8)
    with pytest.raises(xb.UnsupportedDTypeError, match="finfo"):
        xb.iinfo(xb.float32)
    with pytest.raises(xb.UnsupportedDTypeError):
        xb.iinfo(xb.bool)


#: CuPy has no bfloat16; array-api-strict only the standard's dtypes; JAX's bfloat16 has no NumPy
#: (DLPack) exchange, so xbackend does not wrap it yet
DOCUMENTED_GAPS = {("cupy", xb.bfloat16), ("array_api_strict", xb.float16), ("array_api_strict", xb.bfloat16),
                   ("jax", xb.bfloat16), ("cubed", xb.float16), ("cubed", xb.bfloat16)}  # fmt: skip


def test_backends_map_every_dtype(xb_target):
    """Each target holds every dtype it claims, with the same DType back, or refuses with the typed error."""
    for d in ALL:
        try:
            x = xb.zeros(3, dtype=d, backend=xb_target.backend, device=xb_target.device)
        except xb.UnsupportedDTypeError as e:  # only the documented gaps (docs/behaviour.md)
            assert (xb_target.backend, d) in DOCUMENTED_GAPS, (d, e)
            assert "Fix" in str(e) and not xb_target.holds(d)
            continue
        assert x.dtype is d
        assert x._be.dtype_of(x.native) is d
        assert x._be.native_dtype(d) == x.native.dtype


def test_elementwise_arity_is_the_standards():
    """ELEMENTWISE's argument count builds each function (unary or binary): it must be the standard's, read from
    array-api-strict's own signatures, and the built function must take exactly that many Arrays."""
    import inspect

    array_api_strict = pytest.importorskip("array_api_strict")
    from xbackend._rules import ELEMENTWISE

    one = xb.asarray(np.full(2, 0.5))
    for name, (n, _cat) in ELEMENTWISE.items():
        ref = getattr(array_api_strict, name, None)
        if ref is None or name == "matmul":
            continue
        ps = inspect.signature(ref).parameters.values()
        want = sum(p.kind is p.POSITIONAL_ONLY and p.default is p.empty for p in ps)
        assert n == want, name
        fn = getattr(xb, name)
        args = [one.astype(xb.bool) if name.startswith("logical") else
                one.astype(xb.int64) if name.startswith("bitwise") else one] * n  # fmt: skip
        with np.errstate(all="ignore"):
            assert fn(*args).shape == (2,), name
        with pytest.raises(TypeError):
            fn(*args, one)  # one Array too many


# a dtype each category refuses, and a call of that category
_REFUSED = [
    ("add", xb.bool, "a numeric dtype"), ("negative", xb.bool, "a numeric dtype"),
    ("bitwise_and", xb.float64, "an integer or bool dtype"), ("bitwise_invert", xb.float32, "an integer or bool dtype"),
    ("bitwise_left_shift", xb.float64, "an integer dtype"), ("bitwise_left_shift", xb.bool, "an integer dtype"),
    ("logical_and", xb.float64, "a bool dtype"), ("logical_not", xb.int8, "a bool dtype"),
    ("floor_divide", xb.complex128, "a real numeric dtype"), ("ceil", xb.complex64, "a real numeric dtype"),
    ("atan2", xb.complex128, "a real dtype"), ("signbit", xb.complex64, "a real dtype"),
    ("less", xb.complex128, "a real numeric or bool dtype"), ("abs", xb.bool, "a numeric dtype"),
]  # fmt: skip


@pytest.mark.parametrize("name,dt,needs", _REFUSED, ids=lambda v: str(v))
def test_refused_dtypes_name_the_call_and_a_fix_that_works(name, dt, needs):
    """The refusal says which function, which dtype and what it needs; its "e.g. ..." fix, applied to the
    Array, makes the same call succeed (issue 19: every printed fix runs)."""
    import re

    from xbackend._rules import ELEMENTWISE

    n = ELEMENTWISE[name][0]
    x = xb.asarray(np.array([1, 0, 1]).astype(np.dtype(dt.name) if dt is not xb.bfloat16 else np.float32))
    with pytest.raises(xb.UnsupportedDTypeError) as info:
        getattr(xb, name)(*[x] * n)
    msg = str(info.value)
    assert msg.startswith(f"{name}() is not defined for dtype {dt}; it needs {needs}. Fix: "), msg
    fix = re.search(r"(?:e\.g\.|Fix: cast with) (\S.*)$", msg)
    assert fix, msg
    fixed = eval(fix.group(1), {"xb": xb, "x": x})  # noqa: S307 - the message's own fix
    getattr(xb, name)(*[fixed] * n)  # runs


def test_result_type_refusals_say_what_it_takes():
    with pytest.raises(xb.ArgumentTypeError) as info:
        xb.result_type(xb.int8, object())
    assert str(info.value) == "result_type() takes Arrays, xbackend dtypes and Python scalars, got object"
    with pytest.raises(xb.ArgumentValueError) as info:
        xb.result_type()
    assert str(info.value) == "result_type() needs at least one argument"


def _fix_of(msg):
    """The code after the message's last "e.g. " (the fix a user would paste)."""
    assert "e.g. " in msg, msg
    return msg.rsplit("e.g. ", 1)[1]


def test_dtype_refusals_say_what_and_offer_a_fix_that_works(monkeypatch):
    import sys

    with pytest.raises(xb.UnsupportedDTypeError) as info:
        xb.zeros(2, dtype="float33")
    msg = str(info.value)
    assert msg.startswith("'float33' is not an xbackend dtype; use one of bool, int8, "), msg
    assert xb.zeros(2, dtype=eval(msg.rsplit("e.g. ", 1)[1].rstrip(")"), {"xb": xb})).dtype is xb.float32
    # complex -> real: the fix takes the real part first, and runs
    x = xb.asarray(np.array([1 + 2j, 3 - 1j]))
    with pytest.raises(xb.UnsupportedDTypeError) as info:
        x.astype(xb.float32)
    msg = str(info.value)
    assert msg.startswith("casting complex128 to float32 would drop the imaginary part silently. Fix: "), msg
    fixed = eval(_fix_of(msg).split(", or ")[0], {"xb": xb, "x": x})  # noqa: S307
    assert fixed.dtype is xb.float32 and fixed.tolist() == [1.0, 3.0]
    # bfloat16 without ml_dtypes: says what to install
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)
    with pytest.raises(xb.UnsupportedDTypeError) as info:
        np.dtype(xb.bfloat16)
    assert str(info.value) == "bfloat16 has no NumPy dtype without ml_dtypes: pip install ml_dtypes"


def test_promotion_refusal_offers_the_float64_fix_and_warns_about_int64():
    x = xb.asarray(np.array([2**64 - 1, 3], dtype=np.uint64))
    y = xb.asarray(np.array([-1, 2], dtype=np.int64))
    with pytest.raises(xb.PromotionError) as info:
        x + y
    msg = str(info.value)
    assert msg.startswith("no promotion rule for uint64 and int64: "), msg
    ns = {"xb": xb, "x": x, "y": y}
    fix = msg.split("e.g. ", 1)[1].split("; or, ", 1)[0]
    exec(fix, ns)  # noqa: S102 - the message's own fix: both sides to float64
    assert ns["x"].dtype is ns["y"].dtype is xb.float64, fix
    assert (ns["x"] + ns["y"]).tolist() == [float(2**64 - 2), 5.0]
    assert msg.endswith("no cast of the uint64 side to int64 is safe without that check (2**64-1 becomes -1)"), msg
    assert "check bool(xb.max(x) < 2**63)" in msg and bool(eval("xb.max(x) < 2**63", ns)) is False  # noqa: S307


@pytest.mark.parametrize("dt,value", [(xb.int8, 300), (xb.uint8, -1), (xb.int16, -40000), (xb.uint32, 2**40)])
def test_int_overflow_refusal_names_the_range_and_a_dtype_that_holds_it(dt, value):
    x = xb.asarray(np.array([1, 2], dtype=dt.name))
    with pytest.raises(xb.ScalarOverflowError) as info:
        x + value
    msg = str(info.value)
    info_ = np.iinfo(dt.name)
    assert msg.startswith(f"Python int {value} does not fit {dt} (range {info_.min}..{info_.max}); "
                          "xbackend never wraps around. Fix: "), msg
    ns = {"xb": xb, "x": x}
    exec(_fix_of(msg), ns)  # noqa: S102 - the message's own fix
    assert (ns["x"] + value).tolist() == [1 + value, 2 + value]  # exact, in a dtype that holds it


def test_non_python_scalars_are_refused_by_type_name():
    from xbackend._dtypes import python_scalar_dtype, scalar_result

    for call in (lambda: scalar_result(xb.int8, "1", xb.float64, xb.int64),
                 lambda: python_scalar_dtype(b"1", xb.float64, xb.int64)):
        with pytest.raises(xb.ArgumentTypeError) as info:
            call()
        assert str(info.value).startswith("expected a Python bool, int, float or complex scalar, got ")
        assert str(info.value).endswith(("got str", "got bytes"))


def test_finfo_repr_reads_like_numpys_fields():
    r = repr(xb.finfo(xb.float32))
    assert r.startswith("finfo(bits=32, ") and r.endswith(", dtype=xb.float32)"), r
    assert f"eps={float(np.finfo(np.float32).eps)!r}" in r


# -- dtype facts against NumPy's, and the dtype a refusal suggests ---------------------------------------------------
def test_every_dtype_has_numpys_itemsize_and_limits():
    for dt in xb.__array_namespace_info__().dtypes().values():
        nd = np.dtype(dt)  # (bfloat16: ml_dtypes')
        assert dt.itemsize == nd.itemsize, dt
        if dt.kind in "iu":
            ii = np.iinfo(nd)
            assert repr(xb.iinfo(dt)) == f"iinfo(bits={ii.bits}, min={ii.min}, max={ii.max}, dtype={dt!r})"
        elif dt.kind == "f":
            fi = np.finfo(nd)
            want = f"finfo(bits={fi.bits}, eps={float(fi.eps)!r}, max={float(fi.max)!r}, dtype={dt!r})"
            assert repr(xb.finfo(dt)) == want


@pytest.mark.parametrize("value, dt, want", [
    (32767, xb.int8, "int16"), (-32768, xb.int8, "int16"), (32768, xb.int8, "int32"), (65535, xb.uint8, "uint16"),
    (65536, xb.uint8, "uint32"), (-1, xb.uint8, "int8"), (2**63 - 1, xb.int8, "int64"), (2**64 - 1, xb.int8, "uint64"),
])  # fmt: skip
def test_a_refusal_suggests_the_smallest_dtype_that_holds_the_value(value, dt, want):
    """The same kind first (unsigned for a non-negative value next to an unsigned dtype), the smallest that holds
    it, its bounds included."""
    from xbackend import _dtypes as D

    assert D.holder(value, dt).name == want
    bits = int(want.lstrip("uint"))
    lo, hi = (0, 2**bits - 1) if want.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    assert lo <= value <= hi
