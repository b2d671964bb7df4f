"""No public call raises a bare builtin: every ``raise`` of a builtin exception class in ``xbackend/`` is on the
allow-list below, with the reason it may stay (issue 30).

Errors a user meets are xbackend's typed errors (``xbackend/_errors.py``): each subclasses the builtin a user would
catch and says the fix. A builtin may still be raised where no user meets it as xbackend's error: a backend's
stand-in for its library's own exception (translated at the boundary, ``xbackend/_boundary.py``, like the library's
own), a failure caught on the spot, an abstract hook, a Python protocol, a failed assertion of the testing kit. A new
``raise ValueError(...)`` anywhere else fails here: raise the typed error instead, or add the site with its reason.
"""

from __future__ import annotations

import ast
import builtins
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "xbackend"

#: every builtin exception class (ValueError, TypeError, RuntimeError, KeyError, IndexError, AssertionError, ...)
BUILTIN_EXCEPTIONS = frozenset(n for n in dir(builtins)
                               if isinstance(getattr(builtins, n), type) and issubclass(getattr(builtins, n),
                                                                                       BaseException))  # fmt: skip

_STAND_IN = ("the backend's stand-in for its library's own exception (the text NumPy gives); the boundary "
             "translates it into the typed error every backend raises for that case")  # fmt: skip
_CAUGHT_NVRTC = ("raised inside RawKernel's launch, which random/_torch.py catches: it falls back to the jiterator "
                 "or the emulated rounds (the same numbers) and warns; it never reaches a user")  # fmt: skip
_ABSTRACT = "an abstract hook every engine or backend overrides (Python's NotImplementedError convention)"
_TEST_FAILURE = "a failed assertion of the testing kit: the failure a test reports, not an error of xbackend's"

#: (file relative to the package root's parent, enclosing function or class path, exception) -> why it may stay;
#: a function path "*" allows the exception anywhere in that file
ALLOWED: dict[tuple[str, str, str], str] = {
    # import-time invariants of the package itself: a bug in xbackend, never a user's call
    ("xbackend/_assemble.py", "_put", "RuntimeError"): "an attribute put twice on the Array: a bug in _assemble",
    ("xbackend/_elementwise.py", "<module>", "ImportError"): "__all__ out of date with _rules: a bug, at import",
    # Python protocols
    ("xbackend/_devices.py", "Device.__setattr__", "AttributeError"):
        "the immutable-object protocol (as dataclasses' FrozenInstanceError, an AttributeError)",
    ("xbackend/_backends/generic/backend.py", "GenericBackend.__getattr__", "AttributeError"):
        "__getattr__ of an internal backend object: hasattr() and getattr(..., default) rely on it",
    # abstract hooks
    ("xbackend/_backend.py", "Backend.probe", "NotImplementedError"): _ABSTRACT,
    ("xbackend/random/_engine.py", "Native._uniform", "NotImplementedError"): _ABSTRACT,
    ("xbackend/random/_engine.py", "Native._normal", "NotImplementedError"): _ABSTRACT,
    ("xbackend/random/_engine.py", "Native._exponential", "NotImplementedError"): _ABSTRACT,
    ("xbackend/random/_engine.py", "Native._integers", "NotImplementedError"): _ABSTRACT,
    ("xbackend/random/_engine.py", "Native.set_state", "NotImplementedError"): _ABSTRACT,
    # the testing kit's assertions
    ("xbackend/testing/_assert.py", "*", "AssertionError"): _TEST_FAILURE,
    ("xbackend/testing/_across.py", "across_backends", "AssertionError"): _TEST_FAILURE,
    # caught on the spot
    ("xbackend/_backends/torch/nvrtc.py", "*", "RuntimeError"): _CAUGHT_NVRTC,
    # the backends' stand-ins for their libraries' exceptions (below the boundary)
    ("xbackend/_backends/common/keys.py", "map_index_arrays", "IndexError"): _STAND_IN,
    ("xbackend/_backends/common/keys.py", "_raise_out_of_bounds", "IndexError"): _STAND_IN,
    ("xbackend/_backends/cupy/backend.py", "CupyBackend.reshaper.reshape", "TypeError"): _STAND_IN,
    ("xbackend/_backends/cupy/backend.py", "CupyBackend.repeat", "ValueError"): _STAND_IN,
    ("xbackend/_backends/cupy/fixes.py", "check_integer_power", "ValueError"): _STAND_IN,
    ("xbackend/_backends/dask/backend.py", "_matmul", "ValueError"): _STAND_IN,
    ("xbackend/_backends/dask/backend.py", "DaskBackend.reshaper.reshape", "TypeError"): _STAND_IN,
    ("xbackend/_backends/dask/backend.py", "DaskBackend.inplace", "ValueError"): _STAND_IN,
    ("xbackend/_backends/dask/index.py", "check_reshape", "ValueError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend._check_ints", "IndexError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend.normalize_key", "IndexError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend.reshape", "ValueError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend.reshape", "TypeError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend.repeat", "ValueError"): _STAND_IN,
    ("xbackend/_backends/generic/backend.py", "GenericBackend.take_along_axis", "IndexError"): _STAND_IN,
    ("xbackend/_backends/generic/index.py", "_plan", "IndexError"): _STAND_IN,
    ("xbackend/_backends/numpy/backend.py", "NumpyBackend.inplace", "ValueError"): _STAND_IN,
    ("xbackend/_backends/numpy/backend.py", "NumpyBackend.repeat", "ValueError"): _STAND_IN,
    ("xbackend/_backends/numpy/backend.py", "NumpyBackend.take_along_axis", "IndexError"): _STAND_IN,
    ("xbackend/_backends/torch/backend.py", "TorchBackend.repeat", "ValueError"): _STAND_IN,
    ("xbackend/_backends/torch/backend.py", "TorchBackend.take_along_axis", "IndexError"): _STAND_IN,
    ("xbackend/_backends/torch/index.py", "TorchIndexMixin._index_tensor", "IndexError"): _STAND_IN,
    ("xbackend/_backends/torch/index.py", "TorchIndexMixin.setitem", "ValueError"): _STAND_IN,
}


def bare_raises(source: str) -> list[tuple[str, str, int]]:
    """``(enclosing path, exception, line)`` of every ``raise X(...)`` or ``raise X`` in ``source`` where ``X`` is a
    builtin exception class (re-raising a caught exception, ``raise exc``, names no class and is not counted)."""
    found: list[tuple[str, str, int]] = []

    def walk(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                walk(child, (*scope, child.name))
                continue
            if isinstance(child, ast.Raise) and child.exc is not None:
                e = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
                if isinstance(e, ast.Name) and e.id in BUILTIN_EXCEPTIONS:
                    found.append((".".join(scope) or "<module>", e.id, child.lineno))
            walk(child, scope)

    walk(ast.parse(source), ())
    return found


def _sites() -> list[tuple[str, str, str, int]]:
    return [(path.relative_to(ROOT).as_posix(), scope, exc, line)
            for path in sorted(PACKAGE.rglob("*.py"))
            for scope, exc, line in bare_raises(path.read_text(encoding="utf-8"))]  # fmt: skip


def _allowed(path: str, scope: str, exc: str) -> bool:
    return (path, scope, exc) in ALLOWED or (path, "*", exc) in ALLOWED


def test_no_public_call_raises_a_bare_builtin():
    bad = [f"{path}:{line} ({scope}) raises a bare {exc}" for path, scope, exc, line in _sites()
           if not _allowed(path, scope, exc)]  # fmt: skip
    assert not bad, ("raise xbackend's typed error (xbackend/_errors.py: it subclasses the builtin, and the message "
                     "ends with a 'Fix:'), or add the site to ALLOWED with the reason it may stay:\n  "
                     + "\n  ".join(bad))  # fmt: skip


def test_every_allowed_site_still_exists():
    """The allow-list shrinks with the code: an entry whose raise is gone must go too."""
    seen = {(path, scope, exc) for path, scope, exc, _ in _sites()}
    seen |= {(path, "*", exc) for path, _, exc, _ in _sites()}
    stale = sorted(k for k in ALLOWED if k not in seen)
    assert not stale, f"remove these entries of ALLOWED, their raises are gone: {stale}"


def test_every_allowed_site_has_a_reason():
    assert all(isinstance(why, str) and len(why) > 20 for why in ALLOWED.values())


@pytest.mark.parametrize("source, expected", [
    ("def f(x):\n    raise ValueError(f'bad {x}')\n", [("f", "ValueError", 2)]),
    ("class C:\n    def m(self):\n        raise KeyError\n", [("C.m", "KeyError", 3)]),
    ("raise RuntimeError('at import')\n", [("<module>", "RuntimeError", 1)]),
    ("def f():\n    def g():\n        raise IndexError('i')\n    return g\n", [("f.g", "IndexError", 3)]),
    ("def f():\n    try:\n        pass\n    except ValueError as exc:\n        raise exc\n", []),  # a re-raise
    ("from xbackend._errors import ShapeError\ndef f():\n    raise ShapeError('x. Fix: y')\n", []),  # typed
    ("def f():\n    raise\n", []),
])  # fmt: skip
def test_the_scan_finds_bare_raises(source, expected):
    assert bare_raises(source) == expected
