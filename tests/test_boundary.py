"""The one way out (xbackend/_boundary.py): what each native exception becomes, what passes through untouched
(ours, users' own, programming errors in xbackend), and the generated wrapper's faithfulness to the signature."""

from __future__ import annotations

import inspect
import types

import numpy as np
import pytest

import xbackend as xb
from xbackend import _boundary as B


def _caught(fn):
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - the point
        return exc
    raise AssertionError("nothing raised")


@pytest.mark.parametrize(
    "exc,cls,msg",
    [
        (MemoryError("x"), xb.OutOfMemoryError, "f(): the host or the device has no memory left for the result. "
         "Fix: work on smaller pieces, or free memory (on a GPU: del unused Arrays)"),
        (RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"), xb.OutOfMemoryError, None),
        (RuntimeError("DefaultCPUAllocator: can't allocate memory"), xb.OutOfMemoryError, None),
        (ValueError("Cannot allocate 8 bytes"), xb.OutOfMemoryError, None),
        (RuntimeError("not enough memory: you tried"), xb.OutOfMemoryError, None),
        (RuntimeError("Failed to allocate"), xb.OutOfMemoryError, None),
        (ValueError("Unable to allocate 8 TiB"), xb.OutOfMemoryError, None),
        (np.linalg.LinAlgError("Singular matrix"), xb.LinAlgError, "f(): the matrix has no answer for this routine "
         "(Singular matrix). Fix: check the input (xb.linalg.matrix_rank finds singular matrices), or use "
         "xb.linalg.pinv"),
        (OverflowError("too big"), xb.ScalarOverflowError, "f(): too big. Fix: pass values that fit the dtype, or a "
         "wider dtype"),
        (ZeroDivisionError("division by zero"), xb.DomainError, "f(): division by zero. Fix: keep divisors away from "
         "zero"),
        (IndexError("index 5 is out of bounds for axis 0"), xb.IndexOutOfRangeError, "f(): index 5 is out of bounds "
         "for axis 0. Fix: along an axis of size n, use indices -n..n-1"),
        (IndexError("Index OUT OF RANGE"), xb.IndexOutOfRangeError, None),
        (IndexError("only integers are valid indices"), xb.InvalidIndexError, "f(): only integers are valid indices. "
         "Fix: index with ints, slices, ..., None, or integer/bool Arrays"),
        (TypeError("bad type"), xb.ArgumentTypeError, "f(): bad type. Fix: check the arguments' types against "
         "help(xb.f)"),
        (ValueError("operands could not be broadcast"), xb.ShapeError, "f(): operands could not be broadcast. Fix: "
         "check the arguments' shapes against help(xb.f)"),
        (ValueError("bad SHAPE"), xb.ShapeError, None),
        (ValueError("wrong dimension"), xb.ShapeError, None),
        (RuntimeError("size mismatch, m1: [2 x 3]"), xb.BackendFailure, None),  # a RuntimeError is no ValueError
        (ValueError("size mismatch"), xb.ShapeError, None),
        (ValueError("bad value"), xb.ArgumentValueError, "f(): bad value. Fix: check the arguments against "
         "help(xb.f)"),
        (RuntimeError("weird\nsecond line"), xb.BackendFailure, "f(): the backend failed with RuntimeError: weird. "
         "xbackend does not check for this case yet: please report it (the library's error is attached as "
         "__cause__)"),
        (RuntimeError("  "), xb.BackendFailure, "f(): the backend failed with RuntimeError: RuntimeError. xbackend "
         "does not check for this case yet: please report it (the library's error is attached as __cause__)"),
        (ValueError(), xb.ArgumentValueError, "f(): ValueError. Fix: check the arguments against help(xb.f)"),
    ],
)
def test_translate_by_what_went_wrong(exc, cls, msg):
    t = B.translate(exc, "f")
    assert type(t) is cls, (type(t), cls)
    if msg is not None:
        assert str(t) == msg
    with pytest.raises(cls) as info:
        B.raise_translated(exc, "f")
    assert info.value.__cause__ is exc


class UsersOwnError(ValueError):
    pass


def _in_module(name, src):
    ns = {"__name__": name}
    exec(compile(src, f"<{name}>", "exec"), ns)  # noqa: S102 - test helper
    return ns


def test_ours_users_and_programming_errors_pass_through():
    ours = xb.ShapeError("already typed")
    assert B.translate(ours, "f") is ours
    stop = KeyboardInterrupt()
    assert B.translate(stop, "f") is stop  # not an Exception
    user = UsersOwnError("from a callback")
    assert B.translate(user, "f") is user  # a class of neither Python nor a backend library
    with pytest.raises(UsersOwnError):
        B.raise_translated(user, "f")
    core = _in_module("xbackend.fake", "def boom(inner=None):\n    if inner: inner()\n    {}['k']\n")
    lib = _in_module("numpy.fake", "def boom(inner=None):\n    if inner: inner()\n    {}['k']\n")
    bug = _caught(core["boom"])
    assert B.translate(bug, "f") is bug  # a KeyError in xbackend's own code: the bug it is
    assert type(B.translate(_caught(lib["boom"]), "f")) is xb.BackendFailure  # in a library: translated
    # the frame that raised decides, not the first one
    assert type(B.translate(_caught(lambda: core["boom"](lib["boom"])), "f")) is xb.BackendFailure
    deep = _caught(lambda: lib["boom"](core["boom"]))
    assert B.translate(deep, "f") is deep
    for e in (NameError("n"), AttributeError("a"), AssertionError(), RecursionError(), ImportError("i")):
        raised = _caught(lambda e=e: _in_module("xbackend.fake2", "def f(e):\n    raise e\n")["f"](e))
        assert B.translate(raised, "f") is raised
    plain = ValueError("not a bug class")
    raised = _caught(lambda: _in_module("xbackend.fake3", "def f(e):\n    raise e\n")["f"](plain))
    assert type(B.translate(raised, "f")) is xb.ArgumentValueError  # ValueError: never "our bug"


def test_a_backend_declares_the_modules_whose_exceptions_are_translated(monkeypatch):
    """A plugin's library raises its own exception classes: translated once the backend that declares the module
    (``Backend.exception_modules``) is registered; before that, and for an undeclared module, they are a user's."""
    from xbackend import _dispatch
    from xbackend._backends.numpy.backend import NumpyBackend

    monkeypatch.setattr(_dispatch, "EXCEPTION_MODULES", set(_dispatch.EXCEPTION_MODULES))
    monkeypatch.setattr(B, "EXCEPTION_MODULES", _dispatch.EXCEPTION_MODULES)
    for d in ("_paths", "_classes", "_instances", "_by_module"):
        monkeypatch.setattr(_dispatch, d, dict(getattr(_dispatch, d)))
    errors = types.ModuleType("fancylib_errors")
    exec("class Fault(ValueError):\n    pass\n", errors.__dict__)
    errors.Fault.__module__ = "fancylib_errors.core"
    other = type("Fault", (ValueError,), {"__module__": "unrelated.core"})
    before = errors.Fault("shape mismatch in fancylib")
    assert B.translate(before, "f") is before  # nobody declared fancylib_errors yet

    class FancyBackend(NumpyBackend):
        name = "fancy"
        module = "fancylib"
        exception_modules = ("fancylib_errors",)

    xb.register_backend("fancy", FancyBackend)
    t = B.translate(errors.Fault("shape mismatch in fancylib"), "f")
    assert type(t) is xb.ShapeError and "shape mismatch in fancylib" in str(t)
    assert type(B.translate(type("E", (TypeError,), {"__module__": "fancylib.sub"})("x"), "f")) is xb.ArgumentTypeError
    stray = other("shape")
    assert B.translate(stray, "f") is stray  # a module no backend declared: a user's exception


def _sample(a, /, b, c=2, *args, d, e=3, **kw):
    """A docstring."""
    if a == "raise":
        raise ValueError("broadcast failed")
    return a, b, c, args, d, e, kw


def _kwonly(a, *, k=1):
    return a, k


def test_boundary_keeps_the_signature_and_translates():
    w = B.boundary(_sample)
    assert inspect.signature(w) == inspect.signature(_sample)
    assert w.__name__ == "_sample" and w.__doc__ == "A docstring." and w.__wrapped__ is _sample
    assert w.__xb_boundary__ is True
    assert w(1, 2, d=4) == (1, 2, 2, (), 4, 3, {})
    assert w(1, b=2, c=5, d=4, e=6, z=7) == (1, 2, 5, (), 4, 6, {"z": 7})
    assert w(1, 2, 3, 8, 9, d=4) == (1, 2, 3, (8, 9), 4, 3, {})
    with pytest.raises(TypeError):
        w(a=1, b=2, d=4)  # a is positional-only, as in _sample
    with pytest.raises(xb.ShapeError, match=r"^named\(\): broadcast failed\.") as info:
        B.boundary(_sample, "named")("raise", 2, d=4)
    assert type(info.value.__cause__) is ValueError
    k = B.boundary(_kwonly)
    assert inspect.signature(k) == inspect.signature(_kwonly)
    assert k(1) == (1, 1) and k(1, k=5) == (1, 5)
    with pytest.raises(TypeError):
        k(1, 5)  # k stays keyword-only


def test_install_wraps_once_and_skips_what_it_must():
    def f(x):
        raise TypeError("no")

    def sum(x):  # noqa: A001 - an INLINE name
        raise TypeError("no")

    def sin(x):  # an elementwise name
        raise TypeError("no")

    def jit(x):
        raise TypeError("no")

    mod = types.SimpleNamespace(f=f, sum=sum, sin=sin, jit=jit, const=3)
    B.install(mod, ["f", "sum", "sin", "jit", "const", "missing"])
    assert mod.f is not f and mod.f.__wrapped__ is f
    assert mod.sum is sum and mod.sin is sin and mod.jit is jit and mod.const == 3
    wrapped = mod.f
    B.install(mod, ["f"])
    assert mod.f is wrapped  # idempotent
    with pytest.raises(xb.ArgumentTypeError, match=r"^f\(\): no"):
        mod.f(1)
    sub = types.SimpleNamespace(sum=sum, jit=jit)
    B.install(sub, ["sum", "jit"], prefix="linalg.")  # inside a namespace, INLINE names are wrapped
    assert sub.sum is not sum and sub.jit is jit
    with pytest.raises(xb.ArgumentTypeError, match=r"^linalg\.sum\(\): no"):
        sub.sum(1)


def test_install_methods_wraps_the_listed_methods_once():
    class K:
        def item(self):
            raise ValueError("bad value")

        def other(self):
            raise ValueError("bad value")

    B.install_methods(K)
    first = K.__dict__["item"]
    B.install_methods(K)
    assert K.__dict__["item"] is first and K.__dict__["item"].__xb_boundary__
    with pytest.raises(xb.ArgumentValueError, match=r"^Array\.item\(\): bad value"):
        K().item()
    with pytest.raises(ValueError) as info:
        K().other()
    assert type(info.value) is ValueError  # not listed: untouched


def test_every_public_function_is_behind_the_boundary():
    for name in dir(xb):
        f = getattr(xb, name)
        if inspect.isfunction(f) and not name.startswith("_") and name not in B.NOT_WRAPPED:
            inline = name in B.INLINE or name in B.ELEMENTWISE
            assert getattr(f, "__xb_boundary__", False) or inline, name


def test_install_methods_takes_the_names_and_the_prefix():
    class G:
        def draw(self):
            raise ValueError("bad value")

    B.install_methods(G, ("draw",), "random.Generator.")
    with pytest.raises(xb.ArgumentValueError, match=r"^random\.Generator\.draw\(\): bad value"):
        G().draw()


def test_xb_random_is_behind_the_boundary_like_every_other_public_name():
    """The lazy package wraps its own names when it is imported: its functions, and every public method of the
    Generator (a method added without being listed fails here)."""
    import xbackend.random as R

    for name in R.__all__:
        f = getattr(R, name)
        if inspect.isfunction(f):
            assert getattr(f, "__xb_boundary__", False), f"xb.random.{name}"
    public = {n for n, f in vars(R.Generator).items() if inspect.isfunction(f) and not n.startswith("_")}
    assert public == set(R.GENERATOR_METHODS)
    for name in public:
        assert getattr(vars(R.Generator)[name], "__xb_boundary__", False), f"Generator.{name}"


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("method", ["random", "standard_normal", "integers"])
def test_a_native_exception_from_a_one_call_method_leaves_typed(backend, method):
    """The native generators' one-call methods (one library call, no wrapper frame) translate inline: the library's
    own refusal to allocate 2**50 numbers leaves as OutOfMemoryError, named after the method."""
    if not xb.backends()[backend].usable:
        pytest.skip(f"{backend} is not installed")
    rng = xb.random.default_rng(0, backend=backend, stream="native")
    call = (lambda: rng.integers(0, 2, 2**50)) if method == "integers" else (lambda: getattr(rng, method)(2**50))
    exc = _caught(call)
    assert type(exc) is xb.OutOfMemoryError, repr(exc)
    assert str(exc).startswith(f"random.Generator.{method}(): ") and "Fix: " in str(exc)
    assert exc.__cause__ is not None and not isinstance(exc.__cause__, xb.XBackendError)


@pytest.mark.parametrize("stream", ["portable", "native"])
def test_a_native_exception_from_a_generator_method_leaves_typed(monkeypatch, stream):
    """A library's exception escaping from any Generator method (here the engine's draw, made to fail as NumPy
    does) is translated at the boundary, the library's exception kept as __cause__."""
    from xbackend.random import _engine

    def refuse(*args, **kwargs):
        raise MemoryError("Unable to allocate 8.00 PiB for an array")

    monkeypatch.setattr(_engine.Portable, "exponential", refuse)
    monkeypatch.setattr(_engine.Native, "exponential", refuse)
    rng = xb.random.default_rng(0, backend="numpy", stream=stream)
    exc = _caught(lambda: rng.exponential(2.0, 3))
    assert type(exc) is xb.OutOfMemoryError and type(exc.__cause__) is MemoryError
    assert str(exc).startswith("random.Generator.exponential(): ")
    exc = _caught(lambda: rng.choice(5, 2, replace=False, p=[0.2] * 5))  # through a method's inner draw
    assert type(exc) is xb.OutOfMemoryError and str(exc).startswith("random.Generator.choice(): ")


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_a_native_exception_from_the_gradient_engine_leaves_typed(monkeypatch, backend):
    """xb.grad's engine (torch's autograd, also for NumPy Arrays) failing for a reason xbackend does not check leaves
    as a typed error with the library's exception as __cause__; an exception of the user's function passes through
    untouched (it is theirs, not xbackend's)."""
    if not xb.backends()["torch"].usable:
        pytest.skip("torch is not installed")
    from xbackend._backends.torch.grad import TorchGradMixin

    def loss(w):
        return xb.sum(w * w)

    w = xb.asarray([1.0, 2.0], backend=backend)
    assert xb.grad(loss)(w).tolist() == [2.0, 4.0]

    def mine(w):
        raise ValueError("the user's own")

    exc = _caught(lambda: xb.grad(mine)(w))
    assert type(exc) is ValueError and str(exc) == "the user's own"

    def engine_fails(self, fn, xs, wrt, nested):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(TorchGradMixin, "value_and_grad", engine_fails)
    exc = _caught(lambda: xb.grad(loss)(w))
    assert type(exc) is xb.BackendFailure and type(exc.__cause__) is RuntimeError
    assert str(exc).startswith("grad(): the backend failed with RuntimeError: CUDA error")
