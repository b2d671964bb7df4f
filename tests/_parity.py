"""The outcome-parity generator (issue 19): the same call on every CPU target, the same outcome.

For every public function and Array method, hypothesis draws arguments of every kind - Arrays of each dtype
and shape (0-d and empty included), Python scalars (huge ints, NaN, inf, -0.0), nested lists and tuples,
native arrays, NumPy scalars, None, wrong types, bad axes and shapes - as *target-independent specs*. Each
spec is then made on every target (``materialize``), the call runs there, and its outcome is recorded:

* a value: every Array in the result as (dtype, shape, host values), other results as normalised reprs;
* an error: its class and its message, with backend names, device strings and native type names
  normalised (a message may name the backend it is about; it must say the same thing on every backend).

The outcomes on every target must equal NumPy's (values to dtype-aware tolerances). A 0-d result must hold
the backend's array type, never a NumPy scalar, and no native (untranslated) exception may escape.

This module holds the machinery and the argument roles; ``tests/test_parity.py`` holds the tests and
``tests/parity_specs.py`` which role each parameter of each public function plays.
"""

from __future__ import annotations

import contextlib
import math
import re
import signal
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

import xbackend as xb
from xbackend._dispatch import backend_for_type
from xbackend.testing import available_targets
from xbackend.testing._assert import default_tolerance

# --- targets ----------------------------------------------------------------------------------------
CPU_TARGETS = [t for t in available_targets() if t.device == "cpu" and t.backend in
               ("numpy", "torch", "array_api_strict", "dask")]  # fmt: skip
REFERENCE = "numpy"
_BACKENDS = [t.backend for t in CPU_TARGETS]

# dtypes every comparison may draw; a case runs on the targets that hold all of its dtypes
DTYPES = [d for d in xb._dtypes.ALL if d is not xb.bfloat16]


# --- specs: what to build on each target --------------------------------------------------------------
@dataclass(frozen=True)
class ArraySpec:
    """An Array of ``dtype`` with the values of ``host`` (a NumPy array); ``native=True``: the target's native
    array instead (numpy.ndarray, torch.Tensor, ...)."""

    host: Any
    dtype: Any
    native: bool = False

    def __repr__(self) -> str:
        kind = "native" if self.native else "Array"
        shape = f", shape={self.host.shape}" if self.host.size == 0 and self.host.ndim != 1 else ""
        return f"{kind}({self.host.tolist()!r}, {self.dtype}{shape})"


@dataclass(frozen=True)
class Seq:
    """A list or tuple whose items are specs (built per target)."""

    items: tuple[Any, ...]
    tuple_: bool = False

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.items))
        return f"({inner},)" if self.tuple_ else f"[{inner}]"


@dataclass(frozen=True)
class Opaque:
    """A Python object passed as it is (a wrong type: an object(), a string, ...), shown by ``label``."""

    value: Any
    label: str

    def __repr__(self) -> str:
        return self.label


def materialize(spec: Any, target: Any) -> Any:
    """The argument ``spec`` describes, made on ``target``."""
    if isinstance(spec, ArraySpec):
        x = xb.asarray(spec.host, dtype=spec.dtype, backend=target.backend, device=target.device, copy=True)
        return x.native if spec.native else x
    if isinstance(spec, Seq):
        items = [materialize(s, target) for s in spec.items]
        return tuple(items) if spec.tuple_ else items
    if isinstance(spec, Opaque):
        return spec.value
    if isinstance(spec, dict):
        return {k: materialize(v, target) for k, v in spec.items()}
    return spec  # Python scalars, None, strings, dtypes: the same object everywhere


def dtypes_in(spec: Any) -> set[Any]:
    if isinstance(spec, ArraySpec):
        return {spec.dtype}
    if isinstance(spec, Seq):
        return set().union(*(dtypes_in(s) for s in spec.items)) if spec.items else set()
    if isinstance(spec, dict):
        return set().union(*(dtypes_in(s) for s in spec.values())) if spec else set()
    if isinstance(spec, xb.DType):
        return {spec}
    if isinstance(spec, np.generic):
        return {xb.dtype(spec.dtype.name)}
    if isinstance(spec, np.dtype) or isinstance(spec, type) and issubclass(spec, np.generic):
        return {xb.dtype(np.dtype(spec).name)} if np.dtype(spec).name in xb._dtypes.BY_NAME else set()
    if isinstance(spec, str) and spec in xb._dtypes.BY_NAME:
        return {xb.dtype(spec)}
    return set()


# --- outcomes ---------------------------------------------------------------------------------------
# every built-in backend's name (a target's message names its own backend), and the library names messages use
_NAMES = sorted({*(_BACKENDS), *xb._dispatch._BUILTIN, "array_api_strict", "array-api-strict", "jax", "cupy_on_numpy"},
                key=len, reverse=True)  # fmt: skip
_NORMALISE = [
    (re.compile(r"Device\('[\w\-]+', '([^']*)'\)"), r"Device('<be>', '\1')"),
    (re.compile("|".join(re.escape(n) for n in _NAMES)), "<be>"),
    (re.compile(r"\b(ndarray|Tensor|Array)\b"), "<array>"),
]


def normalise(msg: str) -> str:
    for pat, rep in _NORMALISE:
        msg = pat.sub(rep, msg)
    return msg


@dataclass
class Outcome:
    kind: str  # "value" or "error"
    value: Any = None  # a tree of ("array", dtype, shape, host) / normalised reprs
    error: tuple[str, str] | None = None
    late: bool = False  # raised while a lazy result was computed, not by the call

    def __repr__(self) -> str:
        if self.kind == "error":
            return f"raises {self.error[0]}: {self.error[1]}"
        return f"returns {_show(self.value)}"


def _show(v: Any) -> str:
    if isinstance(v, tuple) and v and v[0] == "array":
        _, dt, shape, host, _native = v
        return f"Array({host.tolist() if host is not None else '?'}, {dt}, shape={shape})"
    if isinstance(v, list):
        return "[" + ", ".join(_show(i) for i in v) + "]"
    return repr(v)


class NotTranslated(AssertionError):
    """A native exception escaped a public call."""


def _is_ours(exc: BaseException) -> bool:
    return isinstance(exc, xb.XBackendError)


def _python_operator_error(exc: BaseException) -> bool:
    """Python's own TypeError for an operator neither side supports (``x + "abc"``): not a backend's error."""
    text = str(exc)
    return type(exc) is TypeError and (text.startswith(("unsupported operand type", "bad operand type",
                                                        "can only concatenate", "can't multiply sequence",
                                                        "can't concat")) or
                                       "not supported between instances of" in text)  # fmt: skip


def record(result: Any, target: Any) -> Any:
    """A comparable tree for a call's result (Arrays computed and copied to the host)."""
    if type(result) is xb.Array:
        nat = result.native
        native_ok = backend_for_type(type(nat)) is not None and not isinstance(nat, np.generic)
        r = result.compute() if result.backend == "dask" else result
        host = xb.to_numpy(r, copy=True)
        return ("array", result.dtype.name, tuple(host.shape), host, native_ok)
    if isinstance(result, tuple) and not hasattr(result, "_fields"):
        return tuple(record(r, target) for r in result)
    if isinstance(result, tuple):  # named tuples (unique_all & co.)
        return (type(result).__name__, tuple(record(r, target) for r in result))
    if isinstance(result, list):
        return [record(r, target) for r in result]
    if isinstance(result, (bool, int, float, complex, str, type(None))):
        return result
    if isinstance(result, np.generic):
        return ("numpy scalar", result.item())  # never the same as a Python scalar: a finding
    return normalise(repr(result))


class TooSlow(Exception):
    """A call ran longer than ``CALL_LIMIT_S``: a loop over a huge argument, never a legitimate test case."""


CALL_LIMIT_S = 20.0


@contextlib.contextmanager
def _time_limit(seconds: float) -> Any:
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise TooSlow(f"the call ran for more than {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], target: Any) -> Outcome:
    """Build the arguments on ``target``, call, and record what happened."""
    with _time_limit(CALL_LIMIT_S):
        return _run(fn, args, kwargs, target)


def _run(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], target: Any) -> Outcome:
    a = materialize(Seq(args, True), target)
    k = materialize(kwargs, target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        late = False
        try:
            with xb.using(backend=target.backend, device=target.device):
                res = fn(*a, **k)
                late = True
                val = record(res, target)
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            name = type(exc).__name__
            if isinstance(exc, TooSlow):
                name = "RAW TooSlow"
            elif not _is_ours(exc) and not _python_operator_error(exc):
                name = f"RAW {type(exc).__module__}.{name}"  # a native exception escaped: a finding on its own
            elif isinstance(exc, xb.BackendFailure):
                name = "RAW BackendFailure"  # translated by the last resort: a check is missing
            return Outcome("error", error=(name, normalise(str(exc))), late=late)
    return Outcome("value", value=val)


# --- comparing ----------------------------------------------------------------------------------------
def _close(a: Any, b: Any, dt: str, *, exact: bool, scaled: bool = False, cond: float = 1.0,
           norm: float = 0.0) -> bool:  # fmt: skip
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    if dt in ("bool",) or dt.startswith(("int", "uint")) or exact:
        if a.dtype.kind in "fc":
            return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
        return bool(np.array_equal(a, b))
    rtol, atol = default_tolerance(xb.dtype(dt))
    complex_ = a.dtype.kind == "c"
    if scaled:  # a decomposition's small values are only as accurate as eps times the largest one
        finite = np.abs(a[np.isfinite(a)]).astype(np.float64)
        # an inverse is as accurate as eps times the input's condition number (cond > 1 for inv, pinv, solve)
        eps = float(np.finfo(a.real.dtype).eps)
        rtol = max(rtol, 64 * eps * cond)
        atol = max(atol, 64 * rtol * float(finite.max()) if finite.size else 0.0)
        # a decomposition's values are accurate to eps times the input's norm (an input whose norm overflows: any
        # finite value; the non-finite pattern must still agree)
        atol = max(atol, 64 * eps * norm)
    a64 = a.astype(np.complex128 if complex_ else np.float64)
    b64 = b.astype(np.complex128 if complex_ else np.float64)
    real = np.dtype(dt.replace("complex64", "float32").replace("complex128", "float64")) if complex_ else a.dtype
    with np.errstate(all="ignore"):
        # a complex value is close by its distance against its magnitude (a product's cancelling real part may
        # round differently; its error is small against |a||b|); the components' NaN/inf patterns must agree
        mag = np.maximum(np.abs(a64), np.abs(b64))
        near = np.abs(a64 - b64) <= atol + rtol * mag
        # transcendental functions differ by a few ulp between libraries, more near their poles
        big = np.abs(a64 - b64) <= 64 * np.spacing(mag.astype(real))
    if complex_:
        # which component of a complex non-finite result is inf and which NaN follows each library's complex
        # arithmetic where the standard leaves it open (C99's recovery of infinities, or the plain formula): such
        # an element must be non-finite everywhere; finite elements compare by distance against magnitude
        fa, fb = np.isfinite(a64), np.isfinite(b64)
        return bool(np.all((fa == fb) & (~fa | near | big)))
    nan = np.isnan(a64) & np.isnan(b64)
    same = (a64 == b64) | nan
    finite = np.isfinite(a64) & np.isfinite(b64)
    return bool(np.all(same | (finite & (near | big))))


def same(ref: Any, got: Any, *, exact: bool = False, values: bool = True, scaled: bool = False,
         cond: float = 1.0, norm: float = 0.0) -> bool:  # fmt: skip
    if isinstance(ref, tuple) and ref and ref[0] == "array":
        if not (isinstance(got, tuple) and got and got[0] == "array"):
            return False
        if ref[1] != got[1] or ref[2] != got[2]:
            return False
        return not values or _close(ref[3], got[3], ref[1], exact=exact, scaled=scaled, cond=cond, norm=norm)
    if isinstance(ref, (tuple, list)):
        return type(ref) is type(got) and len(ref) == len(got) and all(
            same(r, g, exact=exact, values=values, scaled=scaled, cond=cond, norm=norm) for r, g in zip(ref, got))  # fmt: skip
    if isinstance(ref, float) and isinstance(got, float):
        return ref == got or (math.isnan(ref) and math.isnan(got))
    return bool(ref == got)


def zero_d_ok(v: Any) -> list[str]:
    """Every Array in a recorded result holds a native array of its backend (never a NumPy scalar)."""
    if isinstance(v, tuple) and v and v[0] == "array":
        return [] if v[4] else [f"an Array holds a {type(v[3]).__name__}-like scalar, not an array"]
    if isinstance(v, (tuple, list)):
        return [m for i in v for m in zero_d_ok(i)]
    return []


#: contractions (BLAS and LAPACK underneath): how a library's complex multiply-add treats infinite components (C99's
#: recovery of infinities, or the plain formula) is its own, as the standard leaves it; with a complex input that
#: holds inf or NaN their values are not compared (dtypes and shapes still are)
CONTRACTIONS = frozenset({"matmul", "vecdot", "tensordot", "x @ y", "y @ x", "x @= y"}) | {
    f"linalg.{n}" for n in xb.linalg.__all__} | {f"fft.{n}" for n in xb.fft.__all__}  # FFTs: sums of products too


def _complex_nonfinite(spec: Any) -> bool:
    if isinstance(spec, ArraySpec):
        return spec.dtype.kind == "c" and not bool(np.isfinite(spec.host).all())
    if isinstance(spec, Seq):
        return any(_complex_nonfinite(s) for s in spec.items)
    return isinstance(spec, complex) and not (math.isfinite(spec.real) and math.isfinite(spec.imag))


#: inverses: their results are accurate to eps times the input's condition number, which the comparison allows
INVERSES = frozenset({"linalg.inv", "linalg.pinv", "linalg.solve"})


def _condition(spec: Any) -> float:
    """The largest condition number among the matrices of ``spec`` (1 when it has none, or is singular: results
    of a singular input are compared at the default tolerance)."""
    if not isinstance(spec, ArraySpec) or spec.host.ndim < 2 or spec.host.size == 0:
        return 1.0
    with np.errstate(all="ignore"):
        try:
            c = float(np.max(np.linalg.cond(spec.host.astype(np.complex128 if spec.host.dtype.kind == "c" else
                                                              np.float64))))  # fmt: skip
        except (np.linalg.LinAlgError, ValueError):
            return 1.0
    return c if math.isfinite(c) and 1.0 < c < 1e15 else 1.0


#: decompositions of one matrix: their values are accurate to eps times the input's norm
DECOMPOSITIONS = frozenset({f"linalg.{n}" for n in ("svd", "svdvals", "eigh", "eigvalsh", "eig", "eigvals", "qr",
                                                      "matrix_norm")})  # fmt: skip


def _norm(spec: Any) -> float:
    """The Frobenius norm of ``spec``'s values in float64 (inf when it overflows), 0 when it holds no matrix."""
    if not isinstance(spec, ArraySpec) or spec.host.ndim < 2 or spec.host.size == 0:
        return 0.0
    with np.errstate(all="ignore"):
        h = np.abs(spec.host.astype(np.complex128 if spec.host.dtype.kind == "c" else np.float64))
        return float(np.sqrt(np.sum(h * h)))


def check_call(name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], *,
               exact: bool = False, values: bool = True, targets: Any = None) -> None:  # fmt: skip
    """Run the call on every target that holds its dtypes (the CPU targets unless ``targets`` says otherwise; NumPy
    on the CPU is always the reference); raise AssertionError listing every disagreement."""
    if name in CONTRACTIONS and _complex_nonfinite(Seq(args)):
        values = False
    cond = _condition(args[0]) if name in INVERSES and args else 1.0
    norm = _norm(args[0]) if name in DECOMPOSITIONS and args else 0.0
    used = dtypes_in(Seq(args)) | dtypes_in(kwargs)
    pool = CPU_TARGETS if targets is None else [t for t in CPU_TARGETS if t.backend == REFERENCE] + list(targets)
    targets = [t for t in pool if all(t.holds(d) for d in used)]
    outcomes = {t.id: run(fn, args, kwargs, t) for t in targets}
    ref_id = next((t.id for t in targets if t.backend == REFERENCE), None)
    if ref_id is None:
        return
    ref = outcomes[ref_id]
    problems = []
    for tid, out in outcomes.items():
        if out.kind == "value":
            problems += [f"{tid}: {m}" for m in zero_d_ok(out.value)]
        elif out.error[0].startswith("RAW"):
            problems.append(f"{tid} lets an untranslated error out: {out!r}")
        if tid == ref_id:
            continue
        if out.late and ref.kind == "error" and out.error[0] == ref.error[0]:
            continue  # a lazy backend raises value-dependent errors when it computes (tests/known_failures.py)
        if out.kind != ref.kind or (out.kind == "error" and out.error != ref.error) or (
                out.kind == "value" and not same(ref.value, out.value, exact=exact, values=values,
                                                 scaled=name in CONTRACTIONS, cond=cond, norm=norm)):  # fmt: skip
            problems.append(f"{tid} {out!r}\n      but {ref_id} {ref!r}")
    if problems:
        call = f"{name}({', '.join([*map(repr, args), *(f'{k}={v!r}' for k, v in kwargs.items())])})"
        raise AssertionError(f"{call}:\n    " + "\n    ".join(problems))
