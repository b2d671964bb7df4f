"""``xb.testing.diverge``: the first operation whose result differs across backends, and why.

Design constraint: the function runs exactly as :func:`~xbackend.testing.across_backends` runs it (its arguments
copied onto each target, nothing else changed), once per backend, while every public xbackend call and operator it
makes is recorded (``_trace.py``). The two traces are aligned call by call; the report names the first call whose
output differs beyond the dtype's tolerance, or the first point where the control flow parted, and classifies the
difference:

- **dtype rule** / **shape rule**: the outputs have different dtypes or shapes;
- **special case**: NaN, infinity or a signed zero - an output non-finite on one backend only, or inputs equal as
  numbers whose zeros differ in sign (the call where the signs first parted is named);
- **rounding**: within a few ulps, within what a different summation order explains for an accumulating call
  (``2 (n-1) eps sum|x|``), or inputs that differed in the last bits only and that this call amplified - with the
  backend closer to a higher-precision reference of that one call (``_reference.py``);
- **real disagreement**: bit-identical inputs, a difference none of the above explains;
- **error**: one backend raised, or they raised different errors;
- **control flow**: the traces call different things (a Python ``if`` on a value, or an exception raised outside
  xbackend on one backend only);
- **outside xbackend**: a call's inputs already differ although every earlier call agreed, or every call agreed
  and the results differ: the difference was made by code that is not xbackend's (native calls, Python).
"""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np

from .. import _dtypes as D
from .._errors import ArgumentValueError, BackendUnavailableError
from ._moving import _on
from ._compare import DIFFERENT, LeafDiff, compare_leaf, display, how_equal, tolerance, ulp_dtype
from ._reference import ACCUMULATING, core_name, reference, summation_bound, ulp
from ._targets import Target, available_targets
from ._trace import Call, Leaf, Trace, error_site, leaves, recording

__all__ = ["diverge", "Report", "Divergence", "KINDS", "run_traced", "record_run", "compare_traces"]

DTYPE_RULE, SHAPE_RULE, SPECIAL, ROUNDING = "dtype rule", "shape rule", "special case", "rounding"
DISAGREEMENT, ERROR, CONTROL_FLOW, OUTSIDE = "real disagreement", "error", "control flow", "outside xbackend"
KINDS = (DTYPE_RULE, SHAPE_RULE, SPECIAL, ROUNDING, DISAGREEMENT, ERROR, CONTROL_FLOW, OUTSIDE)
FEW_ULPS = 32  # below this a difference of finite values is rounding, whatever the call
_SHOW = 3  # worst elements shown


# --- running -------------------------------------------------------------------------------------------------------
def _target(name: str) -> Target:
    have = available_targets()
    for t in have:
        if name == t.id:
            return t
    for t in have:
        if name == t.backend:
            return t
    raise BackendUnavailableError(f"diverge(): backend {name!r} is not usable here (targets: "
                                  f"{', '.join(t.id for t in have)}). Fix: pass backends= from those, e.g. "
                                  "backends=('numpy', 'torch')")  # fmt: skip


def run_traced(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], target: Target) -> Trace:
    """Run ``fn`` once on ``target`` (arguments copied there, as ``across_backends`` does) and record it."""
    return record_run(target.id, fn, _on(args, target), _on(kwargs, target))


def record_run(label: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Trace:
    """Run ``fn(*args, **kwargs)`` as it is, recorded, into a trace named ``label`` (its exception is recorded)."""
    result: Any = None
    err: BaseException | None = None
    with recording() as rec:
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - recorded: where a backend raises is part of the answer
            err = exc
    trace = Trace(label, rec.calls)
    if err is None:
        out: list[Leaf] = []
        leaves(result, "result", out)
        trace.result = out
    else:
        text = str(err).strip().splitlines()[0] if str(err).strip() else ""
        trace.error = (type(err).__name__, text)
        trace.error_site = error_site(err)
    return trace


def diverge(fn: Callable[..., Any], *args: Any, backends: Iterable[str] = ("numpy", "torch"), rtol: float | None = None,
            atol: float | None = None, **kwargs: Any) -> "Report":  # fmt: skip
    """Run ``fn(*args, **kwargs)`` on each backend and report the first operation whose result differs.

    Every public xbackend call and operator ``fn`` makes is recorded, with the line of ``fn``'s code that made
    it, its inputs and its outputs; the traces are aligned call by call. The report names the first call whose
    output differs beyond the dtype's tolerance (or ``rtol``/``atol``) from the first backend's, or the point
    where the control flow parted; it shows both outputs (the worst elements), that call's inputs (still equal),
    and the kind of difference: ``dtype rule``, ``shape rule``, ``special case`` (NaN, inf, signed zero),
    ``rounding`` (with the backend closer to a float64 or exact reference of that call), ``real
    disagreement``, ``error``, ``control flow`` or ``outside xbackend``. Functions using ``xb.grad`` (the
    gradients, and on torch-differentiated backends the backward pass) and ``@xb.jit`` (run eagerly) are traced
    too. Nothing is recorded outside this call: xbackend's functions are swapped back when it returns.

    Parameters
    ----------
    fn
        The function, written against xbackend.
    *args, **kwargs
        Its arguments; arrays (Arrays, NumPy or other native arrays, also in tuples, lists and dicts) are copied
        onto each backend, as :func:`across_backends` does.
    backends
        Backend names or target ids (``"numpy"``, ``"torch"``, ``"torch-cuda:0"``, ``"cupy"``); the first is
        the one the others are compared with.
    rtol, atol
        Tolerances; default: the dtype's (:func:`default_tolerance`).

    Returns
    -------
    Report
        ``str(report)`` is the readable report; ``report.found``, ``report.index`` (the call's position in the
        trace), ``report.kind``, ``report.call`` (the first backend's recorded :class:`Call`: ``name``,
        ``file``, ``line``), ``report.traces`` and ``report.to_json()`` (the full traces).

    Examples
    --------
    >>> import numpy as np, xbackend as xb
    >>> from xbackend.testing import diverge
    >>> def norm_rows(x):
    ...     return x / xb.sum(x, axis=1, keepdims=True)
    >>> report = diverge(norm_rows, np.ones((2, 3)), backends=("numpy", "numpy"))
    >>> report.found, [c.name for c in report.traces["numpy-cpu"].calls]
    (False, ['sum', 'Array.__truediv__'])
    """
    names = [backends] if isinstance(backends, str) else list(backends)
    if len(names) < 2:
        raise ArgumentValueError(f"diverge() compares at least two backends, got {names!r}. Fix: "
                                 "backends=('numpy', 'torch')")  # fmt: skip
    targets = [_target(n) for n in names]
    traces = [run_traced(fn, args, kwargs, t) for t in targets]
    pairs = [compare_traces(traces[0], tr, rtol, atol) for tr in traces[1:]]
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))
    return Report(name, traces, pairs)


# --- comparing -----------------------------------------------------------------------------------------------------
def _diffs(x: Call, y: Call, rtol: float | None, atol: float | None, outputs: bool = True) -> list[LeafDiff]:
    xs, ys = (x.outputs, y.outputs) if outputs else (x.inputs, y.inputs)
    out = []
    for la, lb in zip(xs, ys):
        r, a = tolerance(la, x.inputs, rtol, atol)
        out.append(compare_leaf(la, lb, r, a, ulp_dtype(la, x.inputs)))
    return out


def _aligned(ta: Trace, tb: Trace) -> tuple[list[Call], list[Call]]:
    """The calls to align: backward entries only when both backends reported a backward pass."""
    ca, cb = ta.calls, tb.calls
    if any(c.phase == "backward" for c in ca) != any(c.phase == "backward" for c in cb):
        ca = [c for c in ca if c.phase != "backward"]
        cb = [c for c in cb if c.phase != "backward"]
    return ca, cb


def compare_traces(ta: Trace, tb: Trace, rtol: float | None = None, atol: float | None = None) -> "Divergence":
    """The first divergence of trace ``tb`` from trace ``ta`` (``found=False`` when they agree)."""
    ca, cb = _aligned(ta, tb)
    state = _State()
    for i in range(min(len(ca), len(cb))):
        x, y = ca[i], cb[i]
        if (x.name, x.file, x.line) != (y.name, y.file, y.line):
            return _parted(ta, tb, ca, cb, i, state)
        if (x.error is None) != (y.error is None) or (x.error and y.error and x.error[0] != y.error[0]):
            return _error(ta, tb, i, x, y, state)
        if x.error is not None:
            continue
        if [lf.path for lf in x.outputs] != [lf.path for lf in y.outputs]:
            d = Divergence(ta.target, tb.target, True, SHAPE_RULE, "the outputs have different structures: "
                           f"{[lf.path for lf in x.outputs]} vs {[lf.path for lf in y.outputs]}", x.index, x, y)  # fmt: skip
            return _finish(d, x, y, rtol, atol, state)
        diffs = _diffs(x, y, rtol, atol)
        bad = next((d for d in diffs if d.what in DIFFERENT), None)
        if bad is not None:
            return _classify(ta, tb, i, x, y, bad, state, rtol, atol)
        state.see(i, x, diffs)
    if len(ca) != len(cb) or (ta.error is None) != (tb.error is None) or (
            ta.error and tb.error and ta.error[0] != tb.error[0]):  # fmt: skip
        return _parted(ta, tb, ca, cb, min(len(ca), len(cb)), state)
    if ta.result is not None and tb.result is not None:
        paths = ([lf.path for lf in ta.result], [lf.path for lf in tb.result])
        res = [compare_leaf(p, q, *tolerance(p, [], rtol, atol), ulp_dtype(p, [])) for p, q in zip(ta.result, tb.result)]
        if paths[0] != paths[1] or any(d.what in DIFFERENT for d in res):
            return Divergence(ta.target, tb.target, True, OUTSIDE,
                              f"every one of the {len(ca)} xbackend calls agreed, but the results differ: they were "
                              "changed by code that is not xbackend's (native calls or Python) after the last call",
                              None, n_calls=(len(ca), len(cb)))  # fmt: skip
    return Divergence(ta.target, tb.target, False, n_calls=(len(ca), len(cb)))


@dataclass
class _State:
    """What the agreeing calls so far showed below the tolerance: where outputs first stopped being
    bit-identical, and where zeros first differed in sign."""

    first_bits: Call | None = None
    first_zero: Call | None = None

    def see(self, i: int, x: Call, diffs: list[LeafDiff]) -> None:
        if self.first_zero is None and any(d.what == "sign of zero" for d in diffs):
            self.first_zero = x
        if self.first_bits is None and any(d.what in ("bits", "sign of zero") for d in diffs):
            self.first_bits = x


def _at(c: Call) -> str:
    return f"#{c.index} {display(c.name)} at {c.site}"


def _classify(ta: Trace, tb: Trace, i: int, x: Call, y: Call, d: LeafDiff, state: _State, rtol: float | None,
              atol: float | None) -> "Divergence":  # fmt: skip
    a, b = ta.target, tb.target
    if d.what == "dtype" or d.what == "kind":
        detail = (f"{d.a.path} is {d.a.dtype} on {a} but {d.b.dtype} on {b}: the backends apply different dtype "
                  "rules" if d.what == "dtype" else f"{d.a.path} is {d.a.where} on {a} but {d.b.where} on {b}")
        return _finish(Divergence(a, b, True, DTYPE_RULE, detail, x.index, x, y, d.a.path), x, y, rtol, atol, state)
    if d.what == "shape":
        detail = f"{d.a.path} has shape {d.a.shape} on {a} but {d.b.shape} on {b}: a shape (broadcasting) rule"
        return _finish(Divergence(a, b, True, SHAPE_RULE, detail, x.index, x, y, d.a.path), x, y, rtol, atol, state)
    ins = _diffs(x, y, rtol, atol, outputs=False)
    n_bad = int(np.count_nonzero(d.bad)) if d.bad is not None else 0
    total = int(d.a.host.size) if d.a.host is not None else 0
    head = f"{n_bad} of {total} element(s) of {d.a.path} differ beyond rtol={d.rtol:g}, atol={d.atol:g}"
    div = Divergence(a, b, True, DISAGREEMENT, head, x.index, x, y, d.a.path)
    upstream = [k for k in ins if k.what in DIFFERENT]
    if upstream:
        div.kind = OUTSIDE
        div.detail = (f"{head}; but its input {upstream[0].a.path} already differs although every earlier xbackend "
                      "call agreed: it was changed by code that is not xbackend's (a native call or Python) "
                      + (f"after call {_at(_prev(ta, x))}" if x.index else "before the first call"))
        return _finish(div, x, y, rtol, atol, state, d)
    ha, hb = d.a.host, d.b.host
    if ha is None or hb is None or d.bad is None:  # (values differ: both hold arrays)
        return _finish(div, x, y, rtol, atol, state)
    with np.errstate(all="ignore"):
        nonfinite = d.bad & ~(np.isfinite(ha.astype(np.complex128)) & np.isfinite(hb.astype(np.complex128)))
    zero_in = [k for k in ins if k.what == "sign of zero"]
    bits_in = [k for k in ins if k.what == "bits"]
    if nonfinite.any() or zero_in:
        div.kind = SPECIAL
        parts = [head]
        if nonfinite.any():
            parts.append(f"{int(np.count_nonzero(nonfinite))} of them NaN or infinite on one backend only")
        if zero_in:
            parts.append(f"the inputs are equal as numbers, but {zero_in[0].a.path} holds {zero_in[0].zeros} zero(s) "
                         "of different sign" + (f" - the signs first parted at call {_at(state.first_zero)}"
                                                if state.first_zero is not None else ""))  # fmt: skip
        elif not bits_in:
            parts.append("from bit-identical inputs: the backends treat NaN, infinity or a signed zero differently")
        div.detail = "; ".join(parts)
        if state.first_zero is not None and zero_in:
            div.origin = state.first_zero
        return _finish(div, x, y, rtol, atol, state, d)
    uname = ulp_dtype(d.a, x.inputs)
    if d.a.dtype in D.BY_NAME and D.dtype(d.a.dtype).kind in "fc":
        bound = summation_bound(x, d.a.path, uname, tuple(d.a.shape or ()))
        diff = np.abs(ha.astype(np.complex128) - hb.astype(np.complex128))
        if d.ulps <= FEW_ULPS:
            div.kind = ROUNDING
            div.detail = f"{head}, by at most {d.ulps:.3g} ulp of {uname}: rounding"
        elif bound is not None and bool(np.all(diff[d.bad] <= np.broadcast_to(bound[0], diff.shape)[d.bad])):
            div.kind = ROUNDING
            worst = int(np.argmax(np.where(d.bad, diff, -1)))
            div.detail = (f"{head} (up to {d.ulps:.3g} ulp), within what a different summation order explains for "
                          f"{core_name(x.name)[0]} of n = {bound[1]} terms: |diff| {diff.flat[worst]:.3g} <= "
                          f"2 (n-1) eps sum|terms| = {float(np.broadcast_to(bound[0], diff.shape).flat[worst]):.3g}")
        elif bits_in:
            div.kind = ROUNDING
            src = state.first_bits
            div.detail = (f"{head} (up to {d.ulps:.3g} ulp); its inputs differ only in the last bits (up to "
                          f"{max(k.ulps for k in bits_in):.3g} ulp" + (f", first at call {_at(src)}" if src else "")
                          + "), and this call amplifies that: rounding, made visible by an ill-conditioned step")
            div.origin = src
        else:
            div.detail = (f"{head} (up to {d.ulps:.3g} ulp), from bit-identical inputs: more than rounding"
                          + ("" if core_name(x.name)[0] not in ACCUMULATING else " or a summation order explains"))
        return _finish(div, x, y, rtol, atol, state, d, with_reference=True)
    if bits_in:  # an exact result (bool, int) from inputs that differ in the last bits: a comparison tipped over
        div.kind = ROUNDING
        src = state.first_bits
        div.detail = (f"{head}: an exact answer ({d.a.dtype}) from inputs that differ only in the last bits (up to "
                      f"{max(k.ulps for k in bits_in):.3g} ulp" + (f", first at call {_at(src)}" if src else "")
                      + "): rounding upstream tipped it")  # fmt: skip
        div.origin = src
        return _finish(div, x, y, rtol, atol, state, d)
    div.detail = f"{head}, from bit-identical inputs"
    return _finish(div, x, y, rtol, atol, state, d)


def _prev(t: Trace, c: Call) -> Call:
    return t.calls[c.index - 1]


def _error(ta: Trace, tb: Trace, i: int, x: Call, y: Call, state: _State) -> "Divergence":
    def what(c: Call) -> str:
        return f"raised {c.error[0]}: {c.error[1]}" if c.error else "returned"

    detail = f"{ta.target} {what(x)}; {tb.target} {what(y)}"
    return _finish(Divergence(ta.target, tb.target, True, ERROR, detail, x.index, x, y), x, y, None, None, state)


def _parted(ta: Trace, tb: Trace, ca: list[Call], cb: list[Call], i: int, state: _State) -> "Divergence":
    def next_step(t: Trace, calls: list[Call]) -> str:
        if i < len(calls):
            return f"call {_at(calls[i])}"
        if t.error is not None:
            f, line, func = t.error_site or ("?", 0, "?")
            return (f"raised {t.error[0]}: {t.error[1]} at {f}:{line} in {func}(), outside any xbackend call (a "
                    "native call or Python code)")  # fmt: skip
        return "returned"

    at = ca[i].index if i < len(ca) else ca[-1].index + 1 if ca else 0  # the first backend's position in its trace
    div = Divergence(ta.target, tb.target, True, CONTROL_FLOW, "the backends do different things next", at,
                     ca[i] if i < len(ca) else None, cb[i] if i < len(cb) else None,
                     n_calls=(len(ca), len(cb)))  # fmt: skip
    div.last_shared = ca[i - 1] if i else None
    div.next = [(ta.target, next_step(ta, ca)), (tb.target, next_step(tb, cb))]
    return div


def _finish(div: "Divergence", x: Call, y: Call, rtol: float | None, atol: float | None, state: _State,
            d: LeafDiff | None = None, with_reference: bool = False) -> "Divergence":  # fmt: skip
    """Attach the inputs' comparison, the worst elements and (for value differences) the reference."""
    div.inputs = [f"{k.a.describe()} - {how_equal(k)}" + _small(k.a) if k.a.kind != "other" else k.a.describe()
                  for k in _diffs(x, y, rtol, atol, outputs=False)]  # fmt: skip
    if d is not None and d.what == "values":
        ref = None
        if with_reference and d.a.dtype is not None and d.a.dtype in D.BY_NAME:
            ref = reference(x, d.a.path, d.a.dtype)
        div.worst, div.reference = _worst(div, d, ref, ulp_dtype(d.a, x.inputs))
    return div


def _small(lf: Leaf) -> str:
    if lf.host is None or lf.host.size > 6:
        return ""
    return f": {lf.host.tolist()!r}"


def _worst(div: "Divergence", d: LeafDiff, ref: tuple[str, np.ndarray] | None,
           uname: str) -> tuple[list[dict[str, Any]], str | None]:  # fmt: skip
    ha, hb = d.a.host, d.b.host
    if ha is None or hb is None or d.bad is None:
        return [], None
    with np.errstate(all="ignore"):
        diff = np.abs(ha.astype(np.complex128) - hb.astype(np.complex128))
        diff = np.where(np.isnan(diff), np.inf, diff)
        order = np.argsort(-np.where(d.bad, diff, -1.0), axis=None, kind="stable")[:_SHOW]
        r = None
        if ref is not None and np.shape(ref[1]) == ha.shape:
            r = np.asarray(ref[1])
    rows = []
    for flat in order:
        idx = np.unravel_index(int(flat), ha.shape) if ha.ndim else ()
        if not d.bad[idx]:
            break
        row: dict[str, Any] = {"index": tuple(int(k) for k in idx), "a": str(ha[idx]), "b": str(hb[idx]),
                               "diff": float(diff[idx])}  # fmt: skip
        if d.a.dtype in D.BY_NAME and D.dtype(d.a.dtype).kind in "fc" and math.isfinite(float(diff[idx])):
            mag = np.maximum(np.abs(ha[idx].astype(np.complex128)), np.abs(hb[idx].astype(np.complex128)))
            row["ulps"] = float(diff[idx] / ulp(mag, uname))
        if r is not None:
            row["ref"] = str(r[idx])
        rows.append(row)
    note = None
    if ref is not None and r is not None:
        with np.errstate(all="ignore"):
            rr = r.astype(np.clongdouble if r.dtype == np.longdouble else np.complex128)
            ea = np.abs(ha.astype(rr.dtype) - rr)[d.bad].astype(np.float64)
            eb = np.abs(hb.astype(rr.dtype) - rr)[d.bad].astype(np.float64)
            ea_m, eb_m = float(np.nanmax(ea)), float(np.nanmax(eb))
        closer = div.a if ea_m < eb_m else div.b if eb_m < ea_m else None
        verdict = f"{closer} is closer" if closer else "neither is closer"
        note = (f"{verdict} to the reference ({ref[0]}): largest error {ea_m:.3g} on {div.a}, {eb_m:.3g} on {div.b}, "
                "over the differing elements")  # fmt: skip
        div.closer = closer
    elif div.kind in (ROUNDING, DISAGREEMENT):
        note = "no higher-precision reference for this call"
    return rows, note


# --- the report ----------------------------------------------------------------------------------------------------
@dataclass
class Divergence:
    """Where trace ``b`` first departs from trace ``a`` (``found=False``: nowhere)."""

    a: str
    b: str
    found: bool
    kind: str | None = None
    detail: str = ""
    index: int | None = None  # the call's position in the first backend's trace
    call_a: Call | None = None
    call_b: Call | None = None
    path: str | None = None
    inputs: list[str] = field(default_factory=list)
    worst: list[dict[str, Any]] = field(default_factory=list)
    reference: str | None = None
    closer: str | None = None
    origin: Call | None = None
    last_shared: Call | None = None
    next: list[tuple[str, str]] = field(default_factory=list)
    n_calls: tuple[int, int] | None = None

    def __str__(self) -> str:
        if not self.found:
            n = f" ({self.n_calls[0]} calls)" if self.n_calls else ""
            return f"{self.a} and {self.b} agree on every xbackend call and on the result{n}"
        c = self.call_a or self.call_b
        lines = []
        if self.kind == CONTROL_FLOW or c is None:
            s = self.last_shared
            lines.append(f"{self.a} and {self.b} part " + (f"after call #{s.index}: {display(s.name)}" if s else
                                                             "before the first xbackend call"))  # fmt: skip
            if s is not None:
                lines.append(f"  at {s.site} in {s.func}(): {s.source}")
        else:
            shown = display(c.name)
            lines.append(f"{self.a} and {self.b} part at call #{self.index}: {shown}"
                         + (f" ({c.name})" if shown not in (f"xb.{c.name}", c.name) else ""))  # fmt: skip
            lines.append(f"  at {c.site} in {c.func}(): {c.source}")
        lines.append(f"  kind: {self.kind} - {self.detail}" + (":" if self.next else ""))
        lines += [f"    {t}: {what}" for t, what in self.next]
        if self.worst:
            lines.append(f"  worst elements of {self.path} ({self.a} | {self.b}):")
            for r in self.worst:
                extra = f", {r['ulps']:.3g} ulp" if "ulps" in r else ""
                ref = f"; reference {r['ref']}" if "ref" in r else ""
                lines.append(f"    {r['index']}: {r['a']} | {r['b']}  (|diff| {r['diff']:.3g}{extra}{ref})")
        if self.reference:
            lines.append(f"  {self.reference}")
        if self.inputs:
            lines.append("  inputs of that call:")
            lines += [f"    {s}" for s in self.inputs]
        if self.origin is not None:
            o = self.origin
            lines.append(f"  origin: call #{o.index} {display(o.name)} at {o.site}: {o.source}")
        return "\n".join(_wrap(line) for line in lines)

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("a", "b", "found", "kind", "detail", "index", "path", "inputs", "worst",
                                             "reference", "closer", "next")}  # fmt: skip
        for k in ("call_a", "call_b", "origin", "last_shared"):
            c = getattr(self, k)
            out[k] = None if c is None else {"index": c.index, "name": c.name, "site": c.site, "source": c.source}
        return out


def _wrap(line: str, width: int = 116) -> str:
    """A long report line folded at spaces, continued 4 columns deeper than it starts."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.fill(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


class Report:
    """What :func:`diverge` found: one :class:`Divergence` per backend compared with the first."""

    def __init__(self, function: str, traces: list[Trace], pairs: list[Divergence]) -> None:
        self.function = function
        self.traces = {t.target: t for t in traces}
        self.pairs = pairs

    @property
    def first(self) -> Divergence:
        """The first pair that parts (else the first pair)."""
        return next((p for p in self.pairs if p.found), self.pairs[0])

    @property
    def found(self) -> bool:
        return any(p.found for p in self.pairs)

    @property
    def index(self) -> int | None:
        return self.first.index

    @property
    def kind(self) -> str | None:
        return self.first.kind

    @property
    def call(self) -> Call | None:
        return self.first.call_a or self.first.call_b

    def __bool__(self) -> bool:
        return self.found

    def __str__(self) -> str:
        head = f"diverge({self.function}):"
        return "\n".join([head] + [str(p) for p in self.pairs])

    def __repr__(self) -> str:
        return f"<diverge report of {self.function}: {self.kind or 'no divergence'} at call #{self.index}>"

    def to_json(self, max_values: int = 1000) -> dict[str, Any]:
        """The report and the full traces as JSON-ready data (array values up to ``max_values`` elements each;
        larger ones as min/max/mean and the NaN and infinity counts)."""
        return {"function": self.function, "divergences": [p.to_json() for p in self.pairs],
                "traces": {k: _trace_json(t, max_values) for k, t in self.traces.items()}}  # fmt: skip

    def write_json(self, path: str, max_values: int = 1000) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(max_values), f, indent=1, default=str)


def _leaf_json(lf: Leaf, max_values: int) -> dict[str, Any]:
    out: dict[str, Any] = {"path": lf.path, "kind": lf.kind, "dtype": lf.dtype, "where": lf.where}
    if lf.kind == "other":
        out["text"] = lf.text
        return out
    h = lf.host
    out["shape"] = list(lf.shape) if lf.shape is not None else None
    if h is not None and h.size <= max_values:
        out["values"] = np.vectorize(str, otypes=[object])(h).tolist() if h.dtype.kind == "c" else h.tolist()
    elif h is not None:
        with np.errstate(all="ignore"):
            f = h.astype(np.float64) if h.dtype.kind != "c" else np.abs(h)
            fin = f[np.isfinite(f)]
            out["summary"] = {"min": float(fin.min()) if fin.size else None, "max": float(fin.max()) if fin.size else None,
                              "mean": float(fin.mean()) if fin.size else None, "nan": int(np.isnan(f).sum()),
                              "inf": int(np.isinf(f).sum())}  # fmt: skip
    return out


def _trace_json(t: Trace, max_values: int) -> dict[str, Any]:
    calls = [{"index": c.index, "name": c.name, "phase": c.phase, "site": c.site, "function": c.func,
              "source": c.source, "error": c.error, "inputs": [_leaf_json(lf, max_values) for lf in c.inputs],
              "outputs": [_leaf_json(lf, max_values) for lf in c.outputs]} for c in t.calls]  # fmt: skip
    return {"calls": calls, "error": t.error, "error_site": t.error_site,
            "result": None if t.result is None else [_leaf_json(lf, max_values) for lf in t.result]}
