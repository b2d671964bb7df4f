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
from xbackend import _boundary as B
from xbackend._assemble import SURFACE
from xbackend._rules import ELEMENTWISE
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


#: the names that translate inline instead of through a wrapper (xbackend/_boundary.py): the operators and the
#: elementwise functions. Their fast paths translate the kernel's own failure; the dtype casts and kernel look-ups
#: before it do not (a failure planted there leaks: a known gap, listed in issue 33's report, not checked here)
_INLINE = B.INLINE | set(ELEMENTWISE) | {"__round__"}  # (round(x) is xb.round(x))

_PLANTED = "planted native failure in "  # a builtin RuntimeError: a library's kind (a subclass defined here would
# be a user's exception, which the boundary passes through untouched)


#: what the backend needs to hand out kernels and check devices; everything else raises the planted failure
_INFRASTRUCTURE = {"kernel", "forward_kernel", "make_kernel", "native_dtype", "check_device", "devices", "probe",
                   "dtype_of", "info", "format", "default_device"}  # fmt: skip


def _arguments(fn, good):
    """Argument lists that reach the backend: as many Arrays as the call needs, a list of them, an index."""
    n, _ = _positional(fn)
    x = good[0]
    out = [[g] * max(n, 1) for g in good] + [[g] * 2 for g in good] + [[list(good[:2])], [x, 0, 1.0]]
    out += [[3], [3, 1.0], [0, 1, 3], [2, 3], [x, xb.float32], [x, 0], [x, (1, 0)], [x, (2, 2)], [x, 0, 1],
            [good[5], good[5]], [xb.float32], [xb.float32, xb.float64], [x, good[3]]]  # fmt: skip
    if n >= 3:
        out.append([good[4], good[0], good[0]])
    return out


@pytest.mark.parametrize("backend", [t.backend for t in TARGETS if t.backend in ("numpy", "torch")])
def test_a_failing_backend_surfaces_only_typed_errors(backend, monkeypatch, kept_settings):
    """Every method of the backend raises a native RuntimeError: every public function and Array method that
    reaches the backend must turn it into an XBackendError. The functions are called unwrapped too (their
    ``__wrapped__``): where that lets the RuntimeError out, the wrapper is what stops it, so the name dropped from
    the boundary's lists would leak - the listed names must each be that, or translate inline."""
    from xbackend._dispatch import get_backend

    on = {"backend": backend}
    good = [xb.asarray([[1.0, 2.0], [3.0, 4.0]], **on), xb.asarray([1.0, 2.0], **on), xb.asarray(1.5, **on),
            xb.asarray([1, 0], **on), xb.asarray([True, False], **on), xb.asarray([1.0, 2.0, 3.0], **on),
            xb.asarray(1, **on)]  # fmt: skip
    cls = type(get_backend(backend))
    for name in dir(cls):
        v = inspect.getattr_static(cls, name)
        if not name.startswith(("__", "_k_")) and inspect.isfunction(v) and name not in _INFRASTRUCTURE:

            def planted(*args, _name=name, **kwargs):
                raise RuntimeError(_PLANTED + _name)

            monkeypatch.setattr(cls, name, planted)
    # the caches of backend callables made before the plant would answer without the backend: start them empty
    from xbackend import _config, _interchange

    for cache in (_config.current().places, _interchange.HOST_IMPORTS):
        for key in list(cache):
            monkeypatch.delitem(cache, key)  # put back when the test ends
    names = [(n, getattr(xb, n)) for n in xb.__all__ if n != "random" and n not in NOT_CALLED]
    names += [(f"linalg.{n}", getattr(xb.linalg, n)) for n in xb.linalg.__all__]
    names += [(f"fft.{n}", getattr(xb.fft, n)) for n in xb.fft.__all__]
    names += [(f"Array.{n}", getattr(xb.Array, n)) for n in dir(xb.Array) if n not in PROTOCOL_HOOKS and
              (n.startswith("__") or not n.startswith("_")) and inspect.isfunction(inspect.getattr_static(xb.Array, n))]
    leaks, reached = {}, set()
    for name, fn in names:
        if not callable(fn) or inspect.isclass(fn):
            continue
        if name.startswith("Array."):  # every receiver, with no more arguments, an Array, a spec, an index
            n, _ = _positional(fn)
            calls = [[x, *rest] for x in good for rest in ([], [x] * max(n - 1, 0), [""], [0, 1.0], [xb.float32],
                                                           ["cpu"], [x.device])]  # fmt: skip
        else:
            calls = _arguments(fn, good)
        for args in calls:
            for f in (fn, getattr(fn, "__wrapped__", None)):
                if f is None:
                    continue
                try:
                    f(*args)
                except RuntimeError as exc:
                    if not str(exc).startswith(_PLANTED) or isinstance(exc, xb.XBackendError):
                        continue
                    if f is fn:
                        leaks.setdefault(name, str(exc))
                    else:
                        reached.add(name)
                except Exception:  # noqa: BLE001 - typed errors, or the arguments were wrong: not what is checked
                    pass
    inline = {n for n in leaks if n.removeprefix("Array.") in _INLINE or SURFACE.get(n.removeprefix("Array.")) ==
              "_operators"}  # fmt: skip
    leaks = {k: v for k, v in leaks.items() if k not in inline}
    assert not leaks, "\n".join(f"{k}: {v}" for k, v in sorted(leaks.items()))
    wrapped = {n for n, f in names if getattr(f, "__xb_boundary__", False)}
    # the wrapper is what stops the failure for most listed names (the rest never reach a backend with these
    # arguments: finfo, result_type, ...); dropping any of those from the lists makes the first assert fail
    assert len(reached & wrapped) >= 0.8 * len(wrapped), " ".join(sorted(wrapped - reached))
