"""The error path's diagnoses (``xbackend/_boundary.py``), checked against references that share none of its code.

When a native kernel raises, the boundary works out what went wrong from the operands themselves - which shapes do
not broadcast, which index is outside which axis, which value does not fit a selection - so the message is the same
on every backend. A slip there agrees with itself on every backend (they all run it), so the references here are
NumPy's own rules (``np.broadcast_shapes``, NumPy indexing on the host) and a plain-Python walk of the key, and the
message is read back field by field: what ran, the shapes in order, why, and the fix.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from hypothesis import assume, example, given, strategies as st

import xbackend as xb
from xbackend import _boundary
from xbackend.testing import available_targets

TARGETS = [t for t in available_targets() if t.backend != "dask"]  # Dask's errors: tests/test_dask.py (lazy keys)

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple)


def _np_broadcast(s1, s2):
    try:
        return tuple(np.broadcast_shapes(s1, s2))
    except ValueError:
        return None


def _on(t, shape, dtype=xb.float64):
    return xb.ones(shape, dtype=dtype, backend=t.backend, device=t.device)


_SHAPE_MSG = re.compile(r"^(?P<what>.+?): shapes (?P<a>\([\d, ]*\)) and (?P<b>\([\d, ]*\)) (?P<why>.+?)\. Fix: (?P<fix>.+)$")


def _fields(exc):
    m = _SHAPE_MSG.match(str(exc))
    assert m, str(exc)
    return m


# --- broadcasting ---------------------------------------------------------------------------------------------------
@given(shapes, shapes)
@example((2, 1), (3,))
@example((), (4, 1))
@example((3,), (2, 1, 1))
def test_the_broadcast_rule_is_numpys(s1, s2):
    assert _boundary.broadcast(s1, s2) == _np_broadcast(s1, s2)


@pytest.mark.parametrize("t", TARGETS, ids=str)
@given(shapes, shapes)
@example((2, 3), (4,))
@example((3,), (2, 3))
@example((1, 3), (2, 1))
def test_operands_that_do_not_broadcast_are_named_in_order(t, sa, sb):
    x, y = _on(t, sa), _on(t, sb)
    r = _np_broadcast(sa, sb)
    if r is None:
        with pytest.raises(xb.ShapeError) as e:
            x + y
        m = _fields(e.value)
        assert m["what"] == f"add of {t.backend} Arrays on {x.device}"
        assert (m["a"], m["b"]) == (str(sa), str(sb))
        assert m["why"] == "cannot be broadcast together", m["why"]
        assert "xb.broadcast_to" in m["fix"]
    if r is not None and r != sa:  # broadcasts, but not to the left operand's shape: refused in place
        with pytest.raises(xb.ShapeError) as e:
            x += y
        m = _fields(e.value)
        assert m["what"] == f"in-place add of {t.backend} Arrays on {x.device}"
        assert (m["a"], m["b"]) == (str(sa), str(sb))
        assert m["why"] == f"broadcast to {r}, not to the left operand's shape", m["why"]
        assert m["fix"].startswith("write x = x op y")
    if r is not None and r == sa:
        x += y
        assert x.shape == sa


# --- matmul: inner sizes, then batch dimensions ----------------------------------------------------------------------
mm_shapes = st.lists(st.integers(1, 3), min_size=1, max_size=4).map(tuple)


@pytest.mark.parametrize("t", TARGETS, ids=str)
@given(mm_shapes, mm_shapes)
@example((2, 3), (5, 4, 6))  # y's inner size is y.shape[-2], not y.shape[0]
@example((2, 2, 3), (3, 3, 4))  # batch dimensions (2,) and (3,)
@example((2, 3), (3, 3, 4))  # a 2-d x has no batch dimensions to disagree with
@example((2, 2, 3), (4,))  # a 1-d y: its inner size is its only one
def test_matmul_says_which_sizes_do_not_fit(t, sa, sb):
    try:
        want = np.matmul(np.ones(sa), np.ones(sb)).shape
    except ValueError:
        want = None
    x, y = _on(t, sa), _on(t, sb)
    if want is not None:
        assert (x @ y).shape == want
        return
    with pytest.raises(xb.ShapeError) as e:
        x @ y
    m = _fields(e.value)
    assert m["what"] == f"matmul (x @ y) of {t.backend} Arrays on {x.device}"
    assert (m["a"], m["b"]) == (str(sa), str(sb))
    inner_x = sa[-1]
    inner_y = sb[0] if len(sb) == 1 else sb[len(sb) - 2]  # the standard: y's second-to-last axis, or its only one
    if inner_x != inner_y:
        assert m["why"] == f"do not fit: x.shape[-1] is {inner_x} but y.shape[-2] is {inner_y}", m["why"]
        assert m["fix"].startswith("make the inner sizes equal")
    else:
        bx, by = sa[: len(sa) - 2], sb[: len(sb) - 2]
        assert len(sa) > 2 and len(sb) > 2 and _np_broadcast(bx, by) is None
        assert m["why"] == f"have batch dimensions {bx} and {by} that cannot be broadcast together", m["why"]
        assert m["fix"] == "make each batch dimension equal or 1"


# --- an index outside its axis: the first one in the key, found by a plain walk of the key ---------------------------
def _first_bad(shape, items):
    """(index, axis, size) of the first out-of-range index in ``items`` (Python ints, integer lists standing for
    index arrays, bool lists for masks, slices, None, Ellipsis), by the indexing rules read directly."""
    used = sum(np.ndim(k) if _is_mask(k) else 0 if k is None or k is Ellipsis else 1 for k in items)
    axis = 0
    for k in items:
        if k is None:
            continue
        if k is Ellipsis:
            axis += len(shape) - used
            continue
        if isinstance(k, slice):
            axis += 1
            continue
        if _is_mask(k):  # a mask takes as many axes as it has dimensions
            axis += np.ndim(k)
            continue
        n = shape[axis]
        for v in k if isinstance(k, list) else [k]:
            if not -n <= int(v) < n:
                return int(v), axis, n
        axis += 1
    return None


def _is_mask(k):
    return isinstance(k, list) and np.asarray(k).dtype == bool


@st.composite
def bad_keys(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    alen = draw(st.integers(1, 3))  # every index array of one key has this length (they broadcast together)
    items = []
    for n in shape:
        kind = draw(st.sampled_from(["slice", "int", "npint", "array", "mask"]))
        if kind == "slice":
            items.append(slice(None))
        elif kind in ("int", "npint"):
            v = draw(st.integers(-n - 2, n + 2))
            items.append(v if kind == "int" else np.int64(v))
        elif kind == "array":
            items.append(draw(st.lists(st.integers(-n - 3, n + 3), min_size=alen, max_size=alen)))
        elif alen <= n:  # a mask of alen Trues: alen indices, which broadcast with the index arrays
            items.append([True] * alen + [False] * (n - alen))
        else:
            items.append(slice(None))
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), None)
    if draw(st.booleans()):  # an Ellipsis standing for the trailing slices
        while items and isinstance(items[-1], slice):
            items.pop()
        items.append(Ellipsis)
    return shape, items


def _key(t, items):
    return tuple(xb.asarray(k, backend=t.backend, device=t.device) if isinstance(k, list) else k for k in items)


@pytest.mark.parametrize("t", TARGETS, ids=str)
@given(bad_keys())
@example(((2, 3, 4), [slice(None), 5]))
@example(((2, 3, 4), [1, slice(None), [0, 7, 9]]))
@example(((2, 3, 4), [Ellipsis, 4]))  # the Ellipsis stands for two axes
@example(((2, 3, 4), [None, 0, 3]))  # None adds an axis of its own: 3 is still axis 1's
@example(((2, 3), [np.int64(5)]))
@example(((3, 2), [[True, True, True], 2]))  # a mask takes its axis
@example(((4, 4), [[0, 1], [-9, 9]]))  # the first offending value of the array, in order
@example(((2, 3, 4), [[[True, False, True], [False, True, False]], 7]))  # a 2-d mask takes two axes: 7 is axis 2's
@example(((1, 1), [[True], [1]]))  # a mask, then an index array (the generic backend compared the array with a slice)
def test_an_index_out_of_range_is_named_with_its_axis(t, case):
    shape, items = case
    hit = _first_bad(shape, items)
    assume(hit is not None)
    host = np.arange(int(np.prod(shape))).reshape(shape)
    with pytest.raises(IndexError):  # NumPy agrees that the key is out of range
        host[tuple(np.asarray(k) if isinstance(k, list) else k for k in items)]
    x = xb.asarray(host, backend=t.backend, device=t.device)
    with pytest.raises(xb.IndexOutOfRangeError) as e:
        x[_key(t, items)]
    i, axis, n = hit
    assert str(e.value).startswith(f"index {i} is out of range for axis {axis} of size {n} "), (str(e.value), hit)
    with pytest.raises(xb.IndexOutOfRangeError) as e:
        x[_key(t, items)] = 0
    assert str(e.value).startswith(f"index {i} is out of range for axis {axis} of size {n} "), (str(e.value), hit)


@given(bad_keys())
@example(((2, 3, 4), [[[True, False, True], [False, True, False]], 7]))
@example(((2, 3, 4), [Ellipsis, [[True, False, True, True]] * 3]))
def test_the_boundarys_own_walk_of_a_key_finds_the_first_bad_index(case):
    """The walk the error path runs when a native kernel refused a key (most keys are checked before any kernel
    runs, so the examples above rarely reach it), against the plain-Python walk."""
    shape, items = case
    key = tuple(np.asarray(k) if isinstance(k, list) else k for k in items)
    assert _boundary._first_out_of_range(shape, key) == _first_bad(shape, items)


@given(st.integers(1, 5), st.lists(st.integers(-8, 8), min_size=1, max_size=6), st.booleans(), st.integers(0, 2))
@example(3, [0, 5], False, 0)  # a bare index array: the whole array is read, not its first element
@example(3, [0, 1, -4], True, 2)
def test_a_library_message_without_the_index_is_completed_from_the_key(n, values, as_tuple, ax):
    """Dask names no index for an index array ("Index is out of bounds for axis 1 with size 3"): the first
    offending value is read from the key's array on that axis."""
    want = next((v for v in values if not -n <= v < n), None)
    m = _boundary._OUT_OF_RANGE.search(f"Index is out of bounds for axis {ax if as_tuple else 0} with size {n}")
    arr = np.asarray(values)
    key = (*[slice(None)] * ax, arr) if as_tuple else arr
    got = _boundary._name_bad_index(m, key)
    assert got == (None if want is None else (str(want), str(ax if as_tuple else 0), str(n)))
    xkey = (*[slice(None)] * ax, xb.asarray(values)) if as_tuple else xb.asarray(values)
    assert _boundary._name_bad_index(m, xkey) == got  # an Array's data is read the same way
    short = _boundary._OUT_OF_RANGE.search(f"Index is out of bounds for axis 1 with size {n}")
    _boundary._name_bad_index(short, (arr,))  # an axis past the key's items (a library's count): no IndexError


# --- a value that does not fit the selection --------------------------------------------------------------------------
@pytest.mark.parametrize("t", TARGETS, ids=str)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), shapes, st.data())
@example((2, 3), (2, 3), None)
@example((2, 3), (1, 3), None)
@example((3,), (1, 3), None)  # more dimensions than the selection, leading 1s: NumPy drops them, and so does xbackend
@example((3,), (2, 3), None)  # more dimensions than the selection: refused
def test_a_value_that_does_not_fit_the_selection_is_refused_with_both_shapes(t, shape, vshape, data):
    key = (slice(None),) if data is None else tuple(
        data.draw(st.sampled_from([slice(None), 0, slice(0, 1)])) for _ in shape)
    sel = np.empty(shape)[key].shape
    x = xb.zeros(shape, backend=t.backend, device=t.device)
    v = xb.asarray(np.arange(1.0, 1.0 + int(np.prod(vshape))).reshape(vshape), backend=t.backend, device=t.device)
    stripped = tuple(vshape)
    while len(stripped) > len(sel) and stripped[0] == 1:  # NumPy's rule: leading 1s beyond the selection dropped
        stripped = stripped[1:]  # (NumPy 2.4 refuses them for a one-element selection, x[0] = ones(1); xbackend
    fits = _np_broadcast(stripped, sel) == sel  # writes it as NumPy's x[...] = ones(1) and torch do)
    want = np.zeros(shape)
    if fits:
        x[key] = v
        want[key] = np.arange(1.0, 1.0 + int(np.prod(vshape))).reshape(stripped)
        np.testing.assert_array_equal(np.asarray(x.tolist()), want)
        return
    with pytest.raises(xb.ShapeError) as e:
        x[key] = v
    assert str(e.value).startswith(f"cannot write a value of shape {vshape} into a selection of shape {sel}; "), (
        str(e.value))


# --- the wrappers themselves ------------------------------------------------------------------------------------------
def _wrapped_functions():
    out = []
    for name in sorted(dir(xb)):
        f = getattr(xb, name)
        if inspect.isfunction(f) and getattr(f, "__xb_boundary__", False):
            out.append((name, f))
    for name in _boundary.METHODS:
        f = xb.Array.__dict__.get(name)
        if inspect.isfunction(f) and getattr(f, "__xb_boundary__", False):
            out.append((f"Array.{name}", f))
    return out


def _params(sig):
    return [(p.name, p.kind, p.default) for p in sig.parameters.values()]


def test_every_wrapper_takes_exactly_its_functions_parameters():
    """Positional-only stays positional-only up to the last such parameter (``xb.add(x1, x2, /)``), keyword-only
    stays keyword-only, and the defaults are the function's own: the generated wrapper, not the signature that
    ``inspect`` reads through ``__wrapped__``."""
    funcs = _wrapped_functions()
    assert len(funcs) > 50  # (the collection itself works: a broken walk would find none)
    several = 0
    for name, w in funcs:
        own = inspect.signature(w, follow_wrapped=False)
        assert _params(own) == _params(inspect.signature(w.__wrapped__)), name
        several += sum(p.kind is p.POSITIONAL_ONLY for p in own.parameters.values()) > 1
    assert several > 5  # functions with several positional-only parameters are among them


def test_a_failed_retry_is_translated_under_the_functions_name():
    def raises(*args, **kwargs):
        raise ValueError("bad input")

    for call in (lambda: _boundary.quiet("frob", raises, 1), lambda: _boundary.rebased("frob", raises, lambda v: v, 1)):
        with pytest.raises(xb.ArgumentValueError) as e:
            call()
        assert "help(xb.frob)" in str(e.value) and isinstance(e.value.__cause__, ValueError), str(e.value)


# --- the error path's fallbacks, driven directly (a native failure the operands do not explain) -----------------------
def test_an_unexplained_matmul_failure_is_translated_under_matmul():
    x, y = xb.ones((2, 3)), xb.ones((3, 4))  # shapes that fit: the failure is something else
    with pytest.raises(xb.ArgumentValueError, match=r"help\(xb\.matmul\)") as e:
        _boundary.matmul_failed(x, y, ValueError("the library's own complaint"))
    assert isinstance(e.value.__cause__, ValueError)


@pytest.mark.parametrize("text, want", [
    ("index 7 is out of bounds for axis 1 with size 4", "index 7 is out of range for axis 1 of size 4 "),
    ("Index is out of bounds for axis 0 with size 3", "index 5 is out of range for axis 0 of size 3 "),  # from the key
    ("the index is out of range somewhere", "an index is out of range for a numpy Array of shape (3,)"),
])
def test_a_key_the_walk_cannot_follow_is_named_from_the_librarys_message(text, want):
    """Too many indices for the walk of the key: the library's numbers, else the key's array, else no numbers."""
    x = xb.arange(3.0)
    key = (np.asarray([0, 5]), slice(None))  # two items for a 1-d Array: the walk gives up
    with pytest.raises(xb.IndexOutOfRangeError) as e:
        _boundary.index_failed(x, key, IndexError(text))
    assert str(e.value).startswith(want), str(e.value)


def test_a_failed_write_is_diagnosed_from_the_value_and_the_selection():
    x = xb.zeros((2, 3))
    whole = (slice(None), slice(None))
    with pytest.raises(xb.ArgumentValueError):  # a value of the selection's shape: not a shape problem
        _boundary.setitem_failed(x, whole, whole, xb.ones((2, 3)), ValueError("something else"))
    with pytest.raises(xb.ShapeError, match=r"^cannot write a value of shape \(4,\) into a selection of shape"):
        _boundary.setitem_failed(x, whole, whole, xb.ones(4), ValueError("could not broadcast"))
    with pytest.raises(xb.ArgumentValueError):  # a Python scalar has no shape: translated as it is
        _boundary.setitem_failed(x, whole, whole, 5.0, ValueError("something else"))
    with pytest.raises(xb.IndexOutOfRangeError, match="^index 5 is out of range for axis 0 of size 2 "):
        # the selection itself fails (an index outside the axis): the index is named, whatever the value's shape
        _boundary.setitem_failed(x, (5,), (5,), xb.ones(7), ValueError("index 5 is out of bounds for axis 0"))
