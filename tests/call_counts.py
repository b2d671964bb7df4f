"""Python calls made inside xbackend per public call, counted with ``sys.setprofile``: the deterministic stand-in for
speed that CI can guard (issue 29; timing is never a test on a shared machine).

For every entry of the speed sweep (``tests/sweep_specs.py``: every public function, operator and method with each
operand kind, on NumPy and torch-CPU) one call is counted after two warm-up calls (caches filled). A call counts when
xbackend makes it or receives it: a Python function of xbackend entered (from anywhere), or any function - C or
Python, of any library - called from an xbackend frame. Calls a library makes inside itself do not count (they
change with its version, not with xbackend), nor do list/dict/set comprehension frames (Python 3.12 inlines them).

``python tests/call_counts.py --write`` records the counts as the budgets (``tests/call_budgets.json``);
``tests/test_call_budgets.py`` fails when an entry needs more calls than its budget and prints the table.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
for _p in (str(HERE), str(HERE.parent)):  # this checkout's xbackend, not an installed one
    if _p not in sys.path:
        sys.path.insert(0, _p)

import numpy as np  # noqa: E402

import xbackend as xb  # noqa: E402

BUDGETS = HERE / "call_budgets.json"
_XB_DIR = os.path.dirname(os.path.realpath(xb.__file__)) + os.sep
_INLINED = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>"})
_OURS: dict[Any, bool] = {}


def _ours(code: Any) -> bool:
    """Whether ``code`` is xbackend's (its file under the package, however it was imported, or code xbackend
    compiles: the operators' fast paths, the boundary wrappers)."""
    try:
        return _OURS[code]
    except KeyError:
        f = code.co_filename
        r = _OURS[code] = f.startswith("<xbackend") or os.path.realpath(f).startswith(_XB_DIR)
        return r


def count_calls(fn: Callable[[], Any]) -> int:
    """The calls one ``fn()`` makes into and from xbackend (see the module docstring)."""
    n = 0

    def prof(frame: Any, event: str, arg: Any) -> None:
        nonlocal n
        if event == "call":
            code = frame.f_code
            if code.co_name in _INLINED:
                return
            back = frame.f_back
            if _ours(code) or (back is not None and _ours(back.f_code)):
                n += 1
        elif event == "c_call":
            if _ours(frame.f_code):
                n += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return n


def versions() -> dict[str, str]:
    import torch

    return {"python": ".".join(map(str, sys.version_info[:2])), "numpy": ".".join(np.__version__.split(".")[:2]),
            "torch": ".".join(torch.__version__.split(".")[:2])}  # fmt: skip


def measure(backends: tuple[str, ...] = ("numpy", "torch")) -> dict[str, dict[str, int]]:
    """``{backend: {entry id: calls}}`` for every sweep entry."""
    import sweep_specs as W

    out: dict[str, dict[str, int]] = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for be in backends:
            counts: dict[str, int] = {}
            with xb.using(backend=be):
                for e in W.entries(be):
                    e.xb()
                    e.xb()
                    counts[e.id] = count_calls(e.xb)
            out[be] = counts
    return out


def table(counts: dict[str, dict[str, int]], budgets: dict[str, dict[str, int]]) -> str:
    """One row per entry: calls and budget on each backend, changes marked."""
    bes = list(counts)
    ids = sorted({i for be in bes for i in counts[be]})
    head = f"{'entry':<36}" + "".join(f"{be + ' calls':>14}{'budget':>8}" for be in bes)
    lines = [head, "-" * len(head)]
    for i in ids:
        row = f"{i:<36}"
        mark = ""
        for be in bes:
            c, b = counts[be].get(i), budgets.get(be, {}).get(i)
            row += f"{'-' if c is None else c:>14}{'-' if b is None else b:>8}"
            if c is not None and b is not None and c != b:
                mark = "  <- over" if c > b else "  (under)"
        lines.append(row + mark)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"record the counts as the budgets ({BUDGETS.name})")
    ap.add_argument("--json", default=None, help="write the counts here (what tests/test_call_budgets.py reads)")
    ap.add_argument("--backends", default="numpy,torch")
    args = ap.parse_args(argv)
    counts = measure(tuple(args.backends.split(",")))
    if args.json:
        Path(args.json).write_text(json.dumps({"versions": versions(), "counts": counts}))
        return 0
    budgets = json.loads(BUDGETS.read_text()) if BUDGETS.exists() else {}
    print(table(counts, budgets.get("budgets", {})))
    if args.write:
        BUDGETS.write_text(json.dumps({"versions": versions(), "budgets": counts}, indent=0, sort_keys=True) + "\n")
        print(f"wrote {BUDGETS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
