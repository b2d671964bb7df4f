"""The speed sweep (issue 29): what xbackend adds to every public function, operator and method, with each operand
kind, over the native call, next to the floor of a Python wrapper. Not a test.

Usage: ``python benchmarks/overhead_api.py [--quick] [--backends numpy,torch] [--passes P] [--only SUBSTR]
[--out FILE] [--json FILE]``

The entries come from ``tests/sweep_specs.py``, generated from the parity generator's table
(``tests/parity_specs.py``): every public function with each operand kind (an Array, a 0-d Array, a Python
int/float/bool/complex, a list), the operators (``x + y``, ``y + x``, ``x += y``, ``-x``) and the Array's methods,
at 100 elements (10x10 matrices for linalg), on NumPy and torch-CPU. For each entry three calls are timed,
interleaved (each round times a block of ~0.3 ms of each in turn): the native call (what a NumPy or torch user
writes), the xbackend call, and the *floor*: the native call inside the least wrapper a Python library can be (a
function that unwraps its Array operands and wraps the result in a four-slot object, no checks; as
``benchmarks/overhead_floor.py``). The whole sweep runs ``--passes`` times (default 3, interleaved over the
entries, so a busy second of a shared machine hits one pass of an entry, not all) and every column is the minimum
over all rounds of all passes: the call least disturbed by other processes. torch runs on one thread (at 100
elements more gain nothing, and on a busy 2-core machine its idle thread pool stalls calls for milliseconds).

Columns: ``native``, ``xb`` (µs per call), ``added`` (xb - native), ``floor`` (floor - native), ``goal`` and
``status``. Goal (issue 29): ``added <= +0.35 µs``; where the floor is above that, ``added <= floor + 0.15 µs``.
``status`` is ``ok``, ``over`` or the reason a Python wrapper cannot reach the goal (``REASONS``, matched by
entry). The table is sorted by ``added - goal`` (worst first) under a summary; ``--json`` writes the records
(``benchmarks/plots.py`` draws the worst rows).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import timeit
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)
import xbackend as xb  # noqa: E402
import sweep_specs as W  # noqa: E402

GOAL_US = 0.35
OVER_FLOOR_US = 0.15

_LIST = ("Python data: looked at for arrays inside (one C loop), given the Array's place and weak dtype on the host "
         "(ints range-checked), converted once by NumPy, then the kernel; the native call converts it inside its "
         "kernel (NumPy) or is torch.tensor + the kernel")
_COMPLEX = ("a real Array next to a complex scalar is cast to complex first (one more kernel; the native call "
            "promotes inside its kernel)")
_COMPLEX_TORCH = _COMPLEX + "; torch complex arithmetic runs componentwise for the standard's special cases"
_ZERO_D = ("NumPy gives a NumPy scalar for 0-d input; xbackend keeps a 0-d array (0-d Arrays are arrays on every "
           "backend, issue 19): one np.asarray more")
_SHIFT = ("shift counts are checked non-negative (NumPy and torch give garbage for negative ones): one min "
          "reduction over an Array of counts")
_FLOORDIV_TORCH = ("NumPy's floor division and remainder (the standard's inf, NaN and sign-of-zero cases) emulated on "
                   "torch: truediv, floor, isinf, floordiv, where instead of one kernel")
_FLOORDIV_NUMPY = "float floor division with the standard's special cases (inf // y): where + np.errstate around it"
_INPLACE_TORCH = ("torch in-place operators compute with xbackend's kernel (the emulated semantics) and copy_ the "
                  "result into x: one kernel more than the native in-place operator")
_NAN_ORDER_TORCH = ("one order for NaN on every backend (NumPy's: last): torch's sort, searchsorted and unique are "
                    "emulated on a total-order key (isnan, where, view) or by argsort")
_FINITE = ("inputs checked finite first (LAPACK's answers for NaN/inf differ by library): isfinite, all and .item() "
           "(a synchronisation) before the decomposition")
_RANK = "the matrix is scaled by a power of two before the SVD (exact; keeps overflowing inputs finite): norm + scale"
_BOUNDS_TORCH = "indices bounds-checked before the gather (torch's CPU and CUDA kernels differ): compare + any + sync"
_CLIP_TORCH = "NaN and integer bounds as the standard says (torch.clamp differs): where/isnan kernels around the clamp"
_POW_HALF_TORCH = ("torch's x ** 0.5 and x ** -0.5 take sqrt/rsqrt fast paths that differ from pow at -0 and -inf: "
                   "two comparisons and two where() restore the standard's values")
_CROSS_TORCH = "cross by NumPy's formula, each product rounded (torch.linalg.cross fuses them): six kernels"
_FORMULA = ("computed by NumPy's formula in float64 (one answer to the bit on every backend), then made where it "
            "goes")
_SLOGDET = "the sign and log of singular and NaN inputs made one (isnan + where over the result)"
_NATIVE_GIVEN = ("the native function takes no Python scalar here, so its call was given a tensor made before the "
                 "timing; xbackend makes that 0-d tensor at every call (torch.full)")

_POW_HALF_NUMPY = ("NumPy's x ** 0.5 takes a sqrt fast path that differs from pow at -0 and -inf: two comparisons and "
                   "two where() restore the standard's values")
_POW_CHECK = ("** goes through the pow kernel that corrects the 0.5/-0.5 exponents (a type and value test per call); "
              "in place, that kernel's result is written into x")
_COPY_TORCH = ("NumPy's +x, real and conj of a real array give a new array; torch's alias the input: xbackend clones "
               "(one copy kernel), so writing into the result never changes x")
_REAL_NUMPY = "real/imag of a real Array: a new array (NumPy's real shares x and imag is read-only zeros)"
_SIGN_TORCH = "the sign of NaN is NaN (torch's is 0): isnan and where around torch.sign"
_TIE_TORCH = "-0.0/+0.0 ties give the second argument, as NumPy: a where() around torch.maximum/minimum"
_SCALAR_0D = ("the Python scalar becomes a 0-d array of the Array's dtype at every call (the weak-scalar rule, one "
              "rounding on every backend); the native call passes the Python scalar into its kernel")
_RDIV_TORCH = ("scalar / Array: the scalar becomes a 0-d tensor first (torch's reflected division is "
               "reciprocal(y) * x: 0 / 5e-324 gives NaN, 2.5 / 3 is off by an ulp)")
_ARGS = ("the standard's argument rules checked in Python first (axis/axes in range and unique, flags bools, sizes "
         "that fit: typed errors, tests/test_args.py): 10-30 Python calls the native call makes in C")
_TRUTH = ("truth taken as x != 0 first (one kernel more than the native all/any) after the axis and keepdims "
          "checks")
_INDEX = ("the result in xbackend's index dtype (a config look-up; a cast where the library's differs) after the "
          "axis and flag checks")
_FFT = ("the transform's points, axes and norm checked, the input cast to the standard's complex or real dtype, "
        "the output's dtype made one on every backend: ~20 Python calls")
_LINALG = ("the float rule (ints promoted), the matrices' shapes checked and the result's dtype read back (LAPACK's "
           "output dtypes differ by library)")
_MOMENT = ("the correction checked against the count and the float dtype chosen (the standard's rules) around the "
           "library's std/var")
_UNIQUE_NUMPY = ("one NaN order and the index dtype on every backend: unique of a sorted copy, counts and indices cast "
                 "to xbackend's index dtype")
_SHAPES = ("shapes checked by the standard's broadcasting and size rules in Python (typed errors) and each Array's "
           "place checked; functions that return several Arrays wrap each")
_UNSTACK_TORCH = "one Array per slice, each taken through the indexing rules (x[i]): ~10 Python calls per slice"
_CREATE = ("creation arguments checked (ints, sizes that fit, the fill value against the dtype) and the place "
           "resolved from the configuration")
_LIKE = "the fill value checked against the dtype and the place resolved, then the backend's full()"
_LIKE_CREATE = ("zeros_like & co.: the keywords (dtype, device, requires_grad) and x's kind checked, the backend's "
                "creator looked up for x's dtype and device (torch: a prototype's new_zeros), the result wrapped")
_ITEM = ("x[0] is a 0-d Array (0-d Arrays are arrays on every backend), then float()/item() of it: two calls where "
         "NumPy's x[0] is already a Python-like scalar")
_KEY = ("the key checked by the standard's indexing rules (bounds of index arrays, a mask's shape, torch's negative "
        "steps and None/Ellipsis cases emulated) and made native part by part")
_SETITEM = ("the key made native and the value cast by the assignment rule (kinds that lose information refused, ints "
            "range-checked); on torch an overlapping source is copied first (NumPy's rule)")
_INPLACE_CHECK = "in place: the result's dtype checked to stay x's (PromotionError otherwise) before the native kernel"
_METHOD = ("NumPy-style method: its keywords checked (out= refused, dtype=), then the public function's fast path: "
           "two frames more than the floor")
_MOVE = "x.to() goes through the move's rules (backend, device, dtype, copy) for a cast"
_TO_NUMPY = ("an independent copy by default (a later in-place update of the Array never shows in it); the native "
             "column returns the array itself")
_DLPACK = "the DLPack import, then the move rules (copy=, device=) of xbackend's move"
_SHARES_TORCH = ("memory ranges of both arrays computed from shape, strides and itemsize (torch has no shares_memory; "
                 "the native column compares data pointers)")
_WHERE = ("where: the condition checked bool and the operands' place and dtype (the promotion rule) before the kernel; "
          "a Python scalar operand becomes a 0-d array of the Array's dtype")
_ISIN = ("isin: the test set's place and dtype checked, a scalar made a 0-d array, one NaN rule on every backend")
_ASARRAY_SCALAR = ("a Python scalar: its dtype by xbackend's defaults, the place resolved from the configuration, ints "
                   "range-checked, then a 0-d array on the device")
_ASARRAY_NATIVE = ("the native array's dtype and device read into the Array after asarray's keyword checks (the native "
                   "call returns its input)")
_CLIP_NUMPY = ("the bounds checked against x's dtype (ints clamped to its range, floats refused for int Arrays) and "
               "broadcast with x in Python, then xbackend's clip kernel (one rule for NaN and ties on every backend)")
_NEAR = ("within 0.3 µs of the goal: the specialised dispatch (the place and dtype checks of the fast path, the "
         "per-backend kernel table) over the least wrapper, inside this loaded machine's run-to-run noise")

#: entries a Python wrapper cannot bring to the goal, and why: (matcher, backend or "*", reason). A matcher is an
#: operand kind (``kind:list``), the native call's note (``note:...``), ``op:inplace`` (``x += y`` & co.) or a
#: substring of the entry id; the first match gives the reason.
REASONS: list[tuple[str, str, str]] = [
    ("note:operand made native outside the call", "*", _NATIVE_GIVEN), ("kind:list", "*", _LIST), ("kind:nested list", "*", _LIST), ("kind:list of floats", "*", _LIST),
    ("kind:list of ints", "*", _LIST), ("kind:complex", "torch", _COMPLEX_TORCH), ("kind:complex", "*", _COMPLEX),
    ("shift", "*", _SHIFT), ("<<", "*", _SHIFT), (">>", "*", _SHIFT),
    ("floor_divide", "torch", _FLOORDIV_TORCH), ("remainder", "torch", _FLOORDIV_TORCH),
    ("//", "torch", _FLOORDIV_TORCH),
    ("%", "torch", _FLOORDIV_TORCH), ("floor_divide", "numpy", _FLOORDIV_NUMPY), ("//", "numpy", _FLOORDIV_NUMPY),
    ("op:inplace", "torch", _INPLACE_TORCH),
    ("searchsorted", "torch", _NAN_ORDER_TORCH), ("unique", "torch", _NAN_ORDER_TORCH),
    ("take", "torch", _BOUNDS_TORCH), ("clip", "torch", _CLIP_TORCH), ("clip", "numpy", _CLIP_NUMPY),
    ("linalg.eig", "*", _FINITE), ("linalg.svd", "*", _FINITE), ("linalg.cholesky", "*", _FINITE),
    ("linalg.matrix_rank", "*", _RANK), ("linalg.pinv", "*", _RANK),
    ("pow(Array, float)", "torch", _POW_HALF_TORCH), ("x ** y (float)", "torch", _POW_HALF_TORCH),
    ("x **= y (float)", "torch", _POW_HALF_TORCH), ("linalg.cross", "torch", _CROSS_TORCH),
    ("linspace", "*", _FORMULA), ("fftfreq", "*", _FORMULA), ("linalg.slogdet", "*", _SLOGDET),
    ("kind:0-d", "numpy", _ZERO_D),
    ("pow(Array, float)", "numpy", _POW_HALF_NUMPY), ("x ** y (float)", "numpy", _POW_HALF_NUMPY),
    ("x **= y (float)", "numpy", _POW_HALF_NUMPY), ("**", "*", _POW_CHECK), ("pow(", "*", _POW_CHECK),
    ("+x", "torch", _COPY_TORCH), ("positive(", "torch", _COPY_TORCH), ("real(", "torch", _COPY_TORCH),
    ("conj(", "torch", _COPY_TORCH), ("real(", "numpy", _REAL_NUMPY), ("imag(", "numpy", _REAL_NUMPY),
    ("sign(", "torch", _SIGN_TORCH), ("maximum(", "torch", _TIE_TORCH), ("minimum(", "torch", _TIE_TORCH),
    ("y / x", "torch", _RDIV_TORCH), ("where(", "*", _WHERE), ("isin(", "*", _ISIN),
    ("searchsorted(Array, int)", "numpy", _SCALAR_0D), ("searchsorted(Array, float)", "numpy", _SCALAR_0D),
    ("searchsorted(Array, bool)", "numpy", _SCALAR_0D), ("copysign(Array, ", "torch", _SCALAR_0D),
    ("x.all()", "*", _TRUTH), ("x.any()", "*", _TRUTH), ("all(", "*", _TRUTH), ("any(", "*", _TRUTH),
    ("argmax", "*", _INDEX), ("argmin", "*", _INDEX), ("argsort", "*", _INDEX), ("count_nonzero", "*", _INDEX),
    ("nonzero", "*", _INDEX), ("searchsorted", "*", _INDEX), ("fft.", "*", _FFT),
    ("linalg.det", "*", _LINALG), ("linalg.inv", "*", _LINALG), ("linalg.qr", "*", _LINALG),
    ("linalg.solve", "*", _LINALG), ("linalg.matrix_power", "*", _LINALG), ("linalg.matrix_norm", "*", _LINALG),
    ("linalg.vector_norm", "*", _LINALG), ("std(", "*", _MOMENT), ("var(", "*", _MOMENT),
    ("unique", "numpy", _UNIQUE_NUMPY), ("unstack", "torch", _UNSTACK_TORCH),
    ("broadcast_", "*", _SHAPES), ("concat", "*", _SHAPES), ("stack", "*", _SHAPES), ("meshgrid", "*", _SHAPES),
    ("tile", "*", _SHAPES), ("repeat", "*", _SHAPES), ("roll", "*", _SHAPES), ("outer", "*", _SHAPES),
    ("tensordot", "*", _SHAPES), ("vecdot", "*", _SHAPES), ("take", "numpy", _SHAPES),
    ("eye(", "*", _CREATE), ("arange(", "*", _CREATE), ("full(", "*", _CREATE), ("full_like", "*", _LIKE),
    ("float(x[0])", "*", _ITEM), ("x[0].item()", "*", _ITEM), ("] = y", "*", _SETITEM), ("x[", "*", _KEY),
    ("op:inplace", "numpy", _INPLACE_CHECK),
    ("x.sum()", "*", _METHOD), ("x.max()", "*", _METHOD), ("x.min()", "*", _METHOD), ("x.mean()", "*", _METHOD),
    ("x.prod()", "*", _METHOD), ("x.swapaxes", "*", _METHOD), ("x.reshape", "*", _METHOD),
    ("x.tolist()", "*", _METHOD), ("x.to(", "*", _MOVE), ("to_numpy", "*", _TO_NUMPY),
    ("from_dlpack", "*", _DLPACK), ("shares_memory", "torch", _SHARES_TORCH),
    ("asarray(float)", "*", _ASARRAY_SCALAR), ("asarray(int)", "*", _ASARRAY_SCALAR),
    ("asarray(ndarray)", "*", _ASARRAY_NATIVE),
    ("cumulative_", "*", _ARGS), ("diff(", "*", _ARGS), ("flip(", "*", _ARGS), ("squeeze(", "*", _ARGS),
    ("expand_dims", "*", _ARGS), ("permute_dims", "*", _ARGS), ("moveaxis", "*", _ARGS), ("sort(", "*", _ARGS),
    ("prod(", "*", _ARGS), ("tril(", "*", _ARGS), ("triu(", "*", _ARGS), ("linalg.diagonal", "*", _ARGS),
    ("linalg.trace", "*", _ARGS), ("matrix_transpose", "*", _ARGS), ("take_along_axis", "*", _ARGS),
    ("linalg.cross", "*", _ARGS), ("mean(", "*", _ARGS), ("x.T", "*", _ARGS), ("x.mT", "*", _ARGS),
    ("finfo", "*", _ARGS), ("_like(", "*", _LIKE_CREATE),
    ("near:0.3", "*", _NEAR),
]  # fmt: skip


def goal_us(floor: float) -> float:
    return GOAL_US if floor <= GOAL_US else floor + OVER_FLOOR_US


def reason(entry_id: str, backend: str, kind: str = "", note: str = "", over_by: float = 0.0) -> str | None:
    """The first reason of ``REASONS`` that matches; ``near:X`` matches an entry at most ``X`` µs over its goal."""
    for pat, be, why in REASONS:
        if pat.startswith("near:"):
            hit = over_by <= float(pat[5:])
        elif pat.startswith("kind:"):
            hit = pat[5:] == kind
        elif pat.startswith("note:"):
            hit = pat[5:] == note
        elif pat == "op:inplace":
            op = entry_id.split()[1] if entry_id.startswith("x ") and " " in entry_id[2:] else ""
            hit = op.endswith("=") and op not in ("==", "!=", "<=", ">=")
        else:
            hit = pat in entry_id
        if hit and be in ("*", backend):
            return why
    return None


def _number(fn: Callable[[], Any], budget: float) -> int:
    t = timeit.Timer(fn)
    n, elapsed = 1, 0.0
    while elapsed < budget / 4:
        n *= 2
        elapsed = t.timeit(n)
    return max(1, int(n * budget / max(elapsed, 1e-9)))


def time_entry(e: W.Entry, rounds: int, budget: float, best: list[float]) -> None:
    """``rounds`` interleaved rounds of the native, xbackend and floor calls; ``best`` keeps each one's minimum
    (µs per call) across calls of this function."""
    fns = [e.native, e.xb, e.floor]
    timers = [timeit.Timer(f) for f in fns]
    numbers = [_number(f, budget) for f in fns]
    for r in range(rounds):
        for j in range(3):
            i = (r + j) % 3
            t = timers[i].timeit(numbers[i]) / numbers[i] * 1e6
            if t < best[i]:
                best[i] = t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one pass of 3 rounds (a smoke run, not for committing)")
    ap.add_argument("--backends", default="numpy,torch")
    ap.add_argument("--passes", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--only", default=None, help="entries whose id contains this")
    ap.add_argument("--note", default=None, help="a '# ' comment line on top of the table")
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--from-json", default=None, help="no timing: re-render the table of a saved --json run, its "
                    "statuses from the REASONS of this file")  # fmt: skip
    args = ap.parse_args(argv)
    if args.from_json:
        recs = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        for r in recs:
            why = reason(r["entry"], r["target"].split("-")[0], r["kind"], r["note"], r["added_us"] - r["goal_us"])
            r["status"] = "ok" if r["added_us"] <= r["goal_us"] else (why or "over")
        head = Path(args.out).read_text(encoding="utf-8").splitlines()[:3] if args.out and Path(args.out).exists() else []
        note = next((h[2:] for h in head if h.startswith("# ")), args.note)
        text = render(recs, 0, 0, 0, note)
        info = next((h for h in head if h.startswith("xbackend ")), None)
        if info:  # keep the timed run's own description line
            lines = text.splitlines()
            lines[1 if note else 0] = info
            text = "\n".join(lines)
        print(text)
        if args.out:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        if args.json:
            Path(args.json).write_text(json.dumps(recs, indent=0) + "\n", encoding="utf-8")
        return 0
    passes = args.passes or (1 if args.quick else 3)
    rounds = args.rounds or (3 if args.quick else 5)
    budget = 0.0003
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    try:  # one thread: 100-element calls gain nothing from more, and torch's idle pool stalls for ms on 2 busy cores
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    todo: list[tuple[str, W.Entry]] = []
    for be in args.backends.split(","):
        try:
            es = W.entries(be)
        except xb.XBackendError:
            continue
        todo += [(be, e) for e in es if args.only is None or args.only in e.id]
    best = {(be, e.id): [float("inf")] * 3 for be, e in todo}
    t0 = time.time()
    for p in range(passes):
        order = todo if p % 2 == 0 else todo[::-1]
        for be, e in order:
            with xb.using(backend=be):
                time_entry(e, rounds, budget, best[be, e.id])
    recs = []
    for be, e in todo:
        nat, ours, floor = best[be, e.id]
        added, fl = ours - nat, floor - nat
        g = goal_us(fl)
        why = reason(e.id, be, e.kind, e.note, added - g)
        status = "ok" if added <= g else (why or "over")
        recs.append({"target": f"{be}-cpu", "entry": e.id, "group": e.group, "kind": e.kind, "native_us": nat,
                     "xb_us": ours, "added_us": added, "floor_us": fl, "goal_us": g, "status": status,
                     "note": e.note})  # fmt: skip
    text = render(recs, passes, rounds, time.time() - t0, args.note)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(recs, indent=0) + "\n", encoding="utf-8")
    return 0


def render(recs: list[dict[str, Any]], passes: int, rounds: int, seconds: float, note: str | None) -> str:
    import torch

    lines = [f"# {note}"] if note else []
    lines.append(f"xbackend {xb.__version__}, numpy {np.__version__}, torch {torch.__version__}, Python "
                 f"{sys.version.split()[0]}; 100 elements (10x10 for linalg); min over {passes} passes x {rounds} "
                 f"interleaved rounds of ~0.3 ms blocks (native, xbackend, floor); {seconds:.0f} s")  # fmt: skip
    lines.append(f"goal: added <= +{GOAL_US} µs, or floor + {OVER_FLOOR_US} µs where the floor is above "
                 f"{GOAL_US} µs (issue 29)")  # fmt: skip
    for target in sorted({r["target"] for r in recs}):
        rs = [r for r in recs if r["target"] == target]
        ok = sum(r["status"] == "ok" for r in rs)
        over = [r for r in rs if r["status"] == "over"]
        explained = len(rs) - ok - len(over)
        adds = sorted(r["added_us"] for r in rs)
        lines.append(f"{target}: {len(rs)} entries, {ok} meet the goal, {explained} explained, {len(over)} over; "
                     f"added µs median {adds[len(adds) // 2]:+.2f}, "
                     f"90th percentile {adds[int(len(adds) * 0.9)]:+.2f}, "
                     f"max {adds[-1]:+.2f}")  # fmt: skip
    lines.append("")
    head = (f"{'target':<10} {'entry':<34} {'native µs':>10} {'xb µs':>9} {'added µs':>9} {'floor µs':>9} "
            f"{'goal µs':>8}  status")  # fmt: skip
    lines.append(head)
    lines.append("-" * len(head))
    for r in sorted(recs, key=lambda r: (r["goal_us"] - r["added_us"], r["target"], r["entry"])):
        lines.append(f"{r['target']:<10} {r['entry']:<34} {r['native_us']:>10.2f} {r['xb_us']:>9.2f} "
                     f"{r['added_us']:>+9.2f} {r['floor_us']:>+9.2f} {r['goal_us']:>8.2f}  {r['status']}"
                     + (f" ({r['note']})" if r["note"] else ""))  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
