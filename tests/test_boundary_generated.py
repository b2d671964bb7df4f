"""The one way out, generated from the namespace (issue 33): every public name of ``xb``, ``xb.linalg``, ``xb.fft``
and ``xb.random``, every method of a Generator and every method, dunder and property of the Array, called with bad
arguments on every target, raises only :class:`~xbackend.XBackendError` (or nothing).

The names come from ``__all__`` and ``dir(xb.Array)``, not from the boundary's own lists
(``xbackend/_boundary.py``'s ``METHODS``, ``INLINE``, ``NOT_WRAPPED``; ``_assemble.py``'s installs), so a name
dropped from those lists lets the library's native exception out and fails here: ``Array.__format__`` left outside
makes ``format(x, "d")`` on a float Array a bare ValueError.
"""

from __future__ import annotations

import inspect
import math
import warnings

import pytest

import xbackend as xb
from xbackend.testing import available_targets

TARGETS = available_targets()

#: bad arguments: of no type xbackend takes, of the wrong kind, out of range, malformed, or an Array of another backend
BAD = [object(), "text", None, -1, 2.5, math.nan, 1e300, (1, 2), [[1], [2, 3]], 3 + 4j, True, slice(None),
       lambda v: v]  # fmt: skip
BAD_KEYWORDS = [object(), "text", -7, 2.5, math.nan]

#: names not called here, and why
NOT_CALLED = {
    "set_default": "changes the process-wide configuration for the tests after it (tests/test_config.py)",
    "register_backend": "changes the registry (tests/test_plugin.py)",
    "Backend": "the abstract base a plugin subclasses; instantiating it is a plugin author's step (test_plugin.py)",
}
#: Array protocol hooks that Python or NumPy call with arguments of their own making (a ufunc, a memo dict), never
#: with a user's: called here through the protocol instead (copy.deepcopy, np.add(x, ...) in tests/test_array.py)
PROTOCOL_HOOKS = {"__array_ufunc__", "__array_function__", "__deepcopy__", "__reduce__", "__reduce_ex__",
                  "__init_subclass__", "__subclasshook__", "__class__", "__new__", "__init__", "__getattribute__",
                  "__setattr__", "__delattr__", "__dir__", "__sizeof__", "__getstate__", "__setstate__",
                  "__class_getitem__"}  # fmt: skip


def _receivers(t):
    on = {"backend": t.backend, "device": t.device}
    return [xb.asarray(1.5, **on), xb.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], **on), xb.asarray([1, 2, 3], **on),
            xb.asarray([True, False], **on), xb.asarray(1 + 2j, **on)]  # fmt: skip


def _positional(fn):
    """How many positional arguments a call takes (the required ones; 1 where all have defaults)."""
    try:
        ps = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return 1, []
    pos = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    n = sum(1 for p in ps if p.default is p.empty and p.kind in pos)
    if n == 0 and any(p.kind in pos or p.kind is inspect.Parameter.VAR_POSITIONAL for p in ps):
        n = 1
    keywords = [p.name for i, p in enumerate(ps) if i >= n and p.default is not p.empty and
                p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]  # fmt: skip
    return n, keywords


def _public(t):
    """(name, callable) of every public name, the Generator's methods included."""
    out = [(n, getattr(xb, n)) for n in xb.__all__ if n != "random"]
    out += [(f"linalg.{n}", getattr(xb.linalg, n)) for n in xb.linalg.__all__]
    out += [(f"fft.{n}", getattr(xb.fft, n)) for n in xb.fft.__all__]
    out += [(f"random.{n}", getattr(xb.random, n)) for n in xb.random.__all__]
    rng = xb.random.default_rng(0, backend=t.backend, device=t.device)
    out += [(f"random.Generator.{n}", getattr(rng, n)) for n in dir(rng) if not n.startswith("_")
            and callable(getattr(rng, n))]  # fmt: skip
    return [(n, f) for n, f in out if callable(f) and n not in NOT_CALLED and not
            (inspect.isclass(f) and issubclass(f, BaseException))]  # fmt: skip


class _Leaks:
    def __init__(self):
        self.found: dict[str, str] = {}
        self.calls = 0

    def call(self, name, fn, *args, **kwargs):
        self.calls += 1
        try:
            fn(*args, **kwargs)
        except xb.XBackendError:
            pass
        except Exception as exc:  # noqa: BLE001 - the point: anything else leaked through the boundary
            kinds = ", ".join(type(a).__name__ for a in args) + "".join(f", {k}=" for k in kwargs)
            self.found.setdefault(name, f"{type(exc).__module__}.{type(exc).__name__}({kinds}): {str(exc)[:120]}")


@pytest.fixture
def kept_settings():
    limit = xb.staging_limit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # IEEE signals of bad values are warnings, not what is checked
        yield
    xb.staging_limit(limit)


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_every_public_name_raises_only_typed_errors(t, kept_settings):
    leaks = _Leaks()
    good = _receivers(t)
    other = xb.asarray([1.0, 2.0], backend="torch" if t.backend == "numpy" else "numpy")
    for name, fn in _public(t):
        n, keywords = _positional(fn)
        for b in BAD + [other]:
            leaks.call(name, fn, *[b] * n)
            if n:
                for a in good:
                    leaks.call(name, fn, a, *[b] * (n - 1))
        if n:
            for k in keywords:
                for b in BAD_KEYWORDS:
                    leaks.call(name, fn, good[1], *[good[1]] * (n - 1), **{k: b})
    assert leaks.calls > 4000, leaks.calls  # (each name called, with every bad argument in every position)
    assert not leaks.found, "\n".join(f"{k}: {v}" for k, v in sorted(leaks.found.items()))


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_every_array_method_dunder_and_property_raises_only_typed_errors(t, kept_settings):
    leaks = _Leaks()
    other = xb.asarray([1.0, 2.0], backend="torch" if t.backend == "numpy" else "numpy")
    names = [n for n in dir(xb.Array) if n not in PROTOCOL_HOOKS]
    assert {"__format__", "__getitem__", "__setitem__", "__index__", "to", "astype"} <= set(names)
    for x in _receivers(t):
        for name in names:
            static = inspect.getattr_static(xb.Array, name)
            if isinstance(static, property) or not callable(static):
                leaks.call(f"Array.{name}", getattr, x, name)
                continue
            m = getattr(x, name)
            n, keywords = _positional(m)
            for b in BAD + [other]:
                leaks.call(f"Array.{name}", m, *[b] * n)
            for k in keywords:
                for b in BAD_KEYWORDS:
                    leaks.call(f"Array.{name}", m, *[x] * n, **{k: b})
        for spec in ("d", "x", "c", ".3q", "=^10", "+,.2%"):  # the format mini-language through format()
            leaks.call("format()", format, x, spec)
    assert not leaks.found, "\n".join(f"{k}: {v}" for k, v in sorted(leaks.found.items()))


@pytest.mark.parametrize("t", TARGETS, ids=str)
def test_format_d_of_a_float_array_is_a_typed_error(t):
    """The issue's example: ``format(x, "d")`` on a float Array is Python's ValueError from float.__format__
    unless ``Array.__format__`` is inside the boundary."""
    for x in (xb.asarray(1.5, backend=t.backend, device=t.device), xb.asarray(2.0, backend=t.backend) / 3):
        with pytest.raises(xb.XBackendError) as info:
            format(x, "d")
        assert isinstance(info.value, ValueError) and "Array.__format__" in str(info.value)
        assert f"{x:.3f}" == format(float(x), ".3f")
