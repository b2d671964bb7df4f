"""Run one function on every usable backend with the same inputs; report every disagreement at once.

Design constraint: inputs are copied to each target (``copy=True``), so a function that writes into
its arguments on one backend cannot change what the next backend sees; results are compared with
:func:`assert_close` (values *and* dtypes, since xbackend promises both do not depend on the backend).
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, Iterable, TypeVar, overload

from .. import _dtypes as D
from .._array import Array
from .._dispatch import backend_for_type
from .._errors import ArgumentTypeError, ArgumentValueError
from ._assert import assert_close, to_host
from ._moving import _generator, _on
from ._targets import Target, available_targets, selected_targets

__all__ = ["across_backends"]

F = TypeVar("F", bound=Callable[..., Any])


def _on_host(x: Any) -> Any:
    """``x`` with every array replaced by a NumPy copy (for a callable reference); a generator by a copy that
    draws on NumPy."""
    if _generator(x):
        return x._placed("numpy", "cpu")
    if type(x) is Array or backend_for_type(type(x)) is not None:
        if type(x) is Array and x.dtype is D.bfloat16:
            return to_host(x)
        return to_host(x).copy()
    if isinstance(x, dict):
        return {k: _on_host(v) for k, v in x.items()}
    if isinstance(x, tuple):
        items = [_on_host(v) for v in x]
        return type(x)(*items) if hasattr(x, "_fields") else tuple(items)
    if isinstance(x, list):
        return [_on_host(v) for v in x]
    return x


def _pick_targets(backends: Iterable[str] | str | None) -> tuple[Target, ...]:
    if backends is None:
        return selected_targets()
    spec = backends if isinstance(backends, str) else ",".join(backends)
    return selected_targets(spec)


def _reference_target(reference: str) -> Target:
    for t in available_targets():
        if reference in (t.backend, t.id):
            return t
    raise ArgumentValueError(
        f"reference {reference!r} is not usable here (available: {', '.join(t.id for t in available_targets())}). "
        "Fix: pass reference='numpy' or a callable that computes the expected result with NumPy"
    )


def _compatible(exc: BaseException, ref: BaseException) -> bool:
    return isinstance(exc, type(ref)) or isinstance(ref, type(exc))


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:300]}"


def _nothing_to_compare(name: str, ref_id: str, targets: tuple[Target, ...]) -> None:
    """Only the reference ran: a comparison with nothing must never pass. Under pytest the test is
    skipped with the reason (a NumPy-only machine is a normal place to run a suite); elsewhere it raises."""
    why = (f"across_backends({name}): only the reference {ref_id} is selected "
           f"(targets: {', '.join(t.id for t in targets)}), so there is nothing to compare it with. "
           "Fix: install a second backend (torch), select more targets (backends=... or XBACKEND_TEST_BACKENDS), "
           "or pass a callable reference")  # fmt: skip
    if "pytest" in sys.modules:
        import pytest

        pytest.skip(why)
    raise ArgumentValueError(why)


@overload
def across_backends(fn: None = None, /, *, reference: str | Callable[..., Any] = "numpy",
                    backends: Iterable[str] | str | None = None, rtol: float | None = None,
                    atol: float | None = None, check_dtype: bool = True,
                    equal_nan: bool = True) -> Callable[[Callable[..., Any]], Callable[..., dict[str, Any]]]: ...
@overload
def across_backends(fn: Callable[..., Any], /, *args: Any, reference: str | Callable[..., Any] = "numpy",
                    backends: Iterable[str] | str | None = None, rtol: float | None = None,
                    atol: float | None = None, check_dtype: bool = True, equal_nan: bool = True,
                    **kwargs: Any) -> dict[str, Any]: ...


def across_backends(fn: Callable[..., Any] | None = None, /, *args: Any, reference: str | Callable[..., Any] = "numpy",
                    backends: Iterable[str] | str | None = None, rtol: float | None = None,
                    atol: float | None = None, check_dtype: bool = True, equal_nan: bool = True,
                    **kwargs: Any) -> Any:  # fmt: skip
    """Run ``fn(*args, **kwargs)`` on every usable backend with the same inputs and compare each result
    with the reference; all disagreements are reported together in one :class:`AssertionError`.

    Array arguments (NumPy arrays, Arrays or native arrays of any backend, also inside tuples, lists,
    dicts) are copied onto each target as :class:`~xbackend.Array`; an ``xb.random`` generator (portable stream)
    is copied in its state and placed on each target, so ``fn`` draws the same data on every device itself, with
    no host copy (``across_backends(f, xb.random.default_rng(0))``, ``f(rng)`` calling ``rng.normal(...)``);
    other arguments pass unchanged.
    Each result (an Array, a native array, a scalar, or tuples/lists/dicts of them) is compared with
    the reference's by :func:`assert_close` (``rtol``/``atol`` default to the dtype's; dtypes must match
    unless ``check_dtype=False``).

    ``reference`` is a backend name or target id (``"numpy"``, ``"torch-cpu"``) or a callable that gets
    the same arguments as NumPy arrays and returns the expected result. ``backends`` chooses targets
    (names or ids, as in ``--xb-backends``; default: ``XBACKEND_TEST_BACKENDS``, else every usable
    one). If the reference raises, every target must raise a compatible exception, and that exception
    is re-raised (so ``pytest.raises`` works around the call). Returns ``{target id: result}``.
    With a backend as the reference, the failure message ends with :func:`diverge`'s report for each failing
    target: the first xbackend call whose result differs, its line, and why (the function runs once more per
    target, recorded, only when something failed).
    When only the reference target is selected (``backends="numpy"``, a NumPy-only machine) nothing can
    be compared: under pytest the calling test is skipped with that reason, elsewhere ``ValueError``
    is raised - it never passes having compared nothing.

    Called without ``fn`` it is a decorator: ``@across_backends(rtol=1e-6)`` turns ``f`` into a function
    that runs ``across_backends(f, ...)`` on its arguments. Keyword arguments of ``fn`` that share a
    name with an option here can be bound with :func:`functools.partial`.

    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import across_backends
    >>> out = across_backends(lambda x: xb.exp(x) - 1, np.array([0.0, 1.0]))
    >>> out["numpy-cpu"].tolist()
    [0.0, 1.718281828459045]
    >>> @across_backends(reference=lambda x: np.sqrt(x))
    ... def root(x):
    ...     return xb.sqrt(x)
    >>> root(np.array([4.0, 9.0]))["numpy-cpu"].tolist()
    [2.0, 3.0]
    >>> out = across_backends(lambda rng: rng.random(3) * 2, xb.random.default_rng(0))  # drawn on each target
    >>> out["numpy-cpu"].tolist() == (xb.random.default_rng(0).random(3) * 2).tolist()
    True
    >>> across_backends(lambda x: x * 2, np.array([1.0]), reference=lambda x: x * 3)
    Traceback (most recent call last):
    ...
    AssertionError: ... disagree with the reference ...
    """
    opts: dict[str, Any] = dict(reference=reference, backends=backends, rtol=rtol, atol=atol,
                                check_dtype=check_dtype, equal_nan=equal_nan)  # fmt: skip
    if fn is None:
        if args:
            raise ArgumentTypeError("across_backends(): the function to run comes first. Fix: pass it first, e.g. "
                                    "across_backends(f, x)")  # fmt: skip

        def decorate(f: F) -> F:
            @functools.wraps(f)
            def run(*a: Any, **k: Any) -> dict[str, Any]:
                return across_backends(f, *a, **opts, **k)

            return run  # type: ignore[return-value]

        return decorate
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    targets = _pick_targets(backends)
    if not targets:
        raise ArgumentValueError(f"across_backends({name}): no target selected by backends={backends!r}. Fix: name "
                                 "a backend installed here, e.g. backends=('numpy', 'torch')")  # fmt: skip
    ref_target = None if callable(reference) else _reference_target(reference)
    run_on = list(targets) if ref_target is None or ref_target in targets else [ref_target, *targets]

    results: dict[str, Any] = {}
    errors: dict[str, BaseException] = {}
    for t in run_on:
        try:
            results[t.id] = fn(*_on(args, t), **_on(kwargs, t))
        except Exception as exc:  # report, never stop at the first backend
            errors[t.id] = exc

    if ref_target is None:
        ref_id = "reference()"
        try:
            ref_result: Any = reference(*_on_host(args), **_on_host(kwargs))  # type: ignore[operator]
            ref_error: BaseException | None = None
        except Exception as exc:
            ref_result, ref_error = None, exc
    else:
        ref_id = ref_target.id
        ref_result, ref_error = results.get(ref_id), errors.get(ref_id)

    problems: list[str] = []
    failed: list[Target] = []
    checked = [t for t in targets if t.id != ref_id]
    if not checked:
        _nothing_to_compare(name, ref_id, targets)
    for t in checked:
        before = len(problems)
        _check_target(t, ref_id, ref_result, ref_error, results, errors, problems, rtol, atol, check_dtype, equal_nan)
        if len(problems) > before:
            failed.append(t)
    if problems:
        head = (f"{len(problems)} of {len(checked)} targets disagree with the reference {ref_id} "
                f"for {name}():")  # fmt: skip
        lines = [head] + [f"  {p}" for p in problems]
        if ref_target is not None:  # where the first disagreement is made: the divergence report of each target
            lines.append(_where_they_part(fn, args, kwargs, ref_target, failed, rtol, atol))
        raise AssertionError("\n".join(lines))
    if ref_error is not None:
        raise ref_error
    return results


def _check_target(t: Target, ref_id: str, ref_result: Any, ref_error: BaseException | None, results: dict[str, Any],
                  errors: dict[str, BaseException], problems: list[str], rtol: float | None, atol: float | None,
                  check_dtype: bool, equal_nan: bool) -> None:  # fmt: skip
    """Append what target ``t`` did differently from the reference to ``problems``."""
    if ref_error is not None:
        if t.id not in errors:
            problems.append(f"{t.id}: returned a result, but the reference {ref_id} raised {_short(ref_error)}")
        elif not _compatible(errors[t.id], ref_error):
            problems.append(f"{t.id}: raised {_short(errors[t.id])}; the reference {ref_id} raised "
                            f"{_short(ref_error)}")  # fmt: skip
        return
    if t.id in errors:
        problems.append(f"{t.id}: raised {_short(errors[t.id])}")
        return
    try:
        assert_close(results[t.id], ref_result, rtol=rtol, atol=atol, check_dtype=check_dtype, equal_nan=equal_nan)
    except AssertionError as exc:
        problems.append(f"{t.id}: " + str(exc).replace("\n", "\n    "))


def _where_they_part(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], ref: Target,
                     failed: list[Target], rtol: float | None, atol: float | None) -> str:  # fmt: skip
    """:func:`~xbackend.testing.diverge`'s report for each failing target against the reference (the function
    runs again, recorded, on each); never raises: a failure to trace is said in one line."""
    from ._diverge import compare_traces, run_traced

    lines = ["", "Where they part (xbackend.testing.diverge, the first xbackend call that differs):"]
    try:
        base = run_traced(fn, args, kwargs, ref)
        for t in failed:
            report = str(compare_traces(base, run_traced(fn, args, kwargs, t), rtol, atol))
            lines += [f"  {line}" for line in report.splitlines()]
    except Exception as exc:  # noqa: BLE001 - the assertion above is the failure; this only explains it
        lines.append(f"  (diverge could not trace it: {type(exc).__name__}: {exc})")
    return "\n".join(lines)
