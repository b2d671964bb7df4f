"""Random exploration with the parity generator: many examples per function, every disagreement collected.

``tests/test_parity.py`` stops at the first disagreement of a function and shrinks it; this tool keeps going and
prints the disagreements grouped by function and kind, with one (unshrunk) example each - a work list. Its finds
become explicit examples in ``tests/test_parity_cases.py``.

Usage (from the repository root)::

    python tools/parity_explore.py [--examples N] [--seed S] [NAME ...]

NAME filters the functions (a substring of ``linalg.inv``, ``x + y``, ...). Exits 1 when it found anything.
"""

from __future__ import annotations

import argparse
import operator
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, Phase, given, settings, strategies as st  # noqa: E402

import parity_specs as S  # noqa: E402
from _parity import check_call  # noqa: E402


def _key(msg: str) -> str:
    """A disagreement's kind: its message without numbers and values, first two lines."""
    lines = [ln.strip() for ln in msg.splitlines()[1:3]]
    text = " | ".join(lines)
    text = re.sub(r"Array\(\[.*?\], ", "Array(..., ", text)
    text = re.sub(r"-?\d+(\.\d+)?(e[+-]?\d+)?", "N", text)
    return text[:260]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()

    cases = {n: f for n, f in S.public_functions().items() if n.rpartition(".")[2] not in S.NOT_COMPARED}
    ops = {f"x {k} y": v for k, v in {
        "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
        "%": operator.mod, "**": operator.pow, "&": operator.and_, "|": operator.or_, "^": operator.xor,
        "<<": operator.lshift, ">>": operator.rshift, "@": operator.matmul, "<": operator.lt, "==": operator.eq,
    }.items()}  # fmt: skip
    found: dict[str, dict[str, str]] = defaultdict(dict)
    todo = [(n, f, False) for n, f in cases.items()] + [(n, f, True) for n, f in ops.items()]
    if args.names:
        todo = [t for t in todo if any(s in t[0] for s in args.names)]
    for name, fn, is_op in todo:
        values = name.rpartition(".")[2] not in S.SHAPES_AND_DTYPES_ONLY

        def record(call_args, call_kwargs, name=name, fn=fn, values=values):
            try:
                check_call(name, fn, call_args, call_kwargs, values=values)
            except AssertionError as e:
                found[name].setdefault(_key(str(e)), str(e).splitlines()[0][:300] + "\n      " +
                                       "\n      ".join(str(e).splitlines()[1:3]))  # fmt: skip
            except Exception as e:  # noqa: BLE001 - the generator itself failed: report, go on
                found[name].setdefault("generator: " + type(e).__name__, repr(e)[:300])

        strat = (st.tuples(S.arrays(native_ok=False), st.data()) if is_op else S.calls(name, fn))

        @settings(max_examples=args.examples, phases=[Phase.generate], database=None, deadline=None,
                  suppress_health_check=list(HealthCheck), derandomize=False)  # fmt: skip
        @given(strat)
        def run(case):
            if is_op:
                x, data = case
                record((x, data.draw(S.operand(x))), {})
            else:
                record(*case)

        import random

        random.seed(args.seed)
        run()
    total = 0
    for name in sorted(found):
        print(f"== {name}: {len(found[name])} kind(s)")
        for example in found[name].values():
            print("   ", example)
            total += 1
    print(f"{total} kind(s) of disagreement in {len(found)} function(s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
