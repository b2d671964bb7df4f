"""The speed goals of issue 28 on CUDA, read from the logs of one ``benchmarks/gpu_check.sh`` run.

Usage: ``python benchmarks/gpu_goals.py OUTDIR [--out FILE]`` (OUTDIR: where gpu_check.sh wrote its logs).

Each goal is a ratio measured in one run by the project's own benchmark (the row it comes from is named);
this script only reads them, so a goal is checked exactly as its benchmark printed it:

==========================================  =========================================  ==================
goal                                        benchmark (log)                            2026-12-04 (H200)
==========================================  =========================================  ==================
portable xb.random on torch-CUDA, 1e7       random_streams.py --gpu (gpu_random.md)    0.34x/0.16x/0.07x/
values, >= 0.5x torch's throughput                                                     0.10x
(uniform f32, f64, normal, integers)
portable draw of 100 values on torch-CUDA   random_streams.py --gpu (gpu_random.md)    75 vs 17 µs
<= raw + 5 µs
xb.grad step <= 1.2x raw torch autograd,    grad.py --gpu --quick (grad_gpu_table.txt) 1.34x, 2.44x
torch-CUDA and CuPy
the demo's CuPy row <= 1.3x the raw lib     python -m xbackend demo (demo_gpu.txt)     3.10x
torch-CUDA <-> CuPy moves <= 1.2x raw       interchange.py --gpu (interchange.md)      1.46x, 2.06x
from_dlpack (every size)
NumPy -> torch CPU move <= raw + 1 µs       interchange.py --gpu (interchange.md)      6.6 vs 0.55 µs
@xb.jit on torch-CUDA >= 2x raw eager,      jit.py --quick (jit_gpu.txt)               2.24x, 1.55x, 1.58x
every workload
==========================================  =========================================  ==================

Exit status 0 when every goal is met, 1 when one is missed or its number is missing from the logs.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Callable

NUM = r"([0-9]+(?:\.[0-9]+)?)"


def _lines(path: Path) -> list[str]:
    return path.read_text(errors="replace").splitlines() if path.exists() else []


def random_goals(out: Path) -> list[tuple[str, str, bool | None]]:
    """(goal, measured, met) for the xb.random rows of torch-CUDA."""
    rows: dict[str, tuple[float, ...]] = {}
    pat = re.compile(rf"^(torch-cuda:\d+)\s+(.+?)\s+(\d+)\s+{NUM}\s+{NUM}\s+{NUM}(?:\s+(-?[0-9.]+))?")
    for line in _lines(out / "gpu_random.md"):
        m = pat.match(line)
        if m:
            rows[m.group(2)] = tuple(float(v) for v in m.groups()[3:] if v is not None)
    goals: list[tuple[str, str, bool | None]] = []
    for op in ("random f32 portable", "random f64 portable", "normal f32 portable", "integers portable"):
        v = rows.get(op)
        if v is None:
            goals.append((f"xb.random {op} 1e7: >= 0.5x torch", "not measured", None))
            continue
        thr = v[0] / v[1]  # medians, as the table reads them (the benchmark's ratio is fastest/fastest)
        goals.append((f"xb.random {op} 1e7: >= 0.5x torch", f"{thr:.2f}x ({v[1]:.0f} vs {v[0]:.0f} µs)", thr >= 0.5))
    v = rows.get("random portable")
    if v is None:
        goals.append(("xb.random portable random(100): <= raw + 5 µs", "not measured", None))
    else:
        plus = v[1] - v[0]
        goals.append(("xb.random portable random(100): <= raw + 5 µs", f"+{plus:.1f} µs ({v[1]:.1f} vs {v[0]:.1f})",
                      plus <= 5.0))  # fmt: skip
    return goals


def grad_goals(out: Path) -> list[tuple[str, str, bool | None]]:
    rows = {}
    for line in _lines(out / "grad_gpu_table.txt"):
        m = re.match(rf"^(xb\.grad (?:cupy|torch))\s+{NUM}\s+{NUM}", line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    goals: list[tuple[str, str, bool | None]] = []
    for row in ("xb.grad torch", "xb.grad cupy"):
        v = rows.get(row)
        label = f"{row} step: <= 1.2x raw torch autograd"
        goals.append((label, "not measured", None) if v is None else
                     (label, f"{v[1]:.2f}x ({v[0]:.3f} ms)", v[1] <= 1.2))  # fmt: skip
    return goals


def demo_goals(out: Path) -> list[tuple[str, str, bool | None]]:
    for line in _lines(out / "demo_gpu.txt"):
        m = re.match(rf"^(cupy-cuda:\d+)\s.*?{NUM}s\s+{NUM}s\s+{NUM}x", line)
        if m:
            r = float(m.group(4))
            measured = f"{r:.2f}x ({m.group(2)} vs {m.group(3)} s)"
            return [("demo's CuPy row: <= 1.3x the raw library", measured, r <= 1.3)]
    return [("demo's CuPy row: <= 1.3x the raw library", "not measured", None)]


def interchange_goals(out: Path) -> list[tuple[str, str, bool | None]]:
    worst: dict[str, float] = {}
    cpu: tuple[float, float] | None = None
    for line in _lines(out / "interchange.md"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[1].endswith(" B") and "cupy" in cells[0]:
            try:
                worst[cells[0]] = max(worst.get(cells[0], 0.0), float(cells[4]))
            except ValueError:
                continue
        if len(cells) >= 4 and cells[0] == "numpy -> torch (cpu)" and cells[1] == "1 KB" and cpu is None:
            try:
                cpu = (float(cells[2]), float(cells[3]))
            except ValueError:
                pass
    goals: list[tuple[str, str, bool | None]] = []
    for pair in ("torch (cuda) -> cupy", "cupy -> torch (cuda)"):
        label = f"{pair} move: <= 1.2x raw from_dlpack"
        r = worst.get(pair)
        goals.append((label, "not measured", None) if r is None else (label, f"{r:.2f}x (worst size)", r <= 1.2))
    label = "numpy -> torch (cpu) move: <= raw + 1 µs"
    goals.append((label, "not measured", None) if cpu is None else
                 (label, f"+{cpu[1] - cpu[0]:.2f} µs ({cpu[1]} vs {cpu[0]})", cpu[1] - cpu[0] <= 1.0))  # fmt: skip
    return goals


def jit_goals(out: Path) -> list[tuple[str, str, bool | None]]:
    rows = {}
    for line in _lines(out / "jit_gpu.txt"):
        m = re.match(rf"^(torch-cuda:\d+)\s+(\w+)\s+{NUM}\s+{NUM}\s+{NUM}\s+{NUM}", line)
        if m:
            rows[m.group(2)] = (float(m.group(6)), line[m.end():].strip())
    goals: list[tuple[str, str, bool | None]] = []
    for w in ("chain", "logreg", "xent"):
        label = f"@xb.jit {w} on torch-CUDA: >= 2x raw eager"
        v = rows.get(w)
        goals.append((label, "not measured", None) if v is None else (label, f"{v[0]:.2f}x", v[0] >= 2.0))
    return goals


SECTIONS: tuple[Callable[[Path], list[tuple[str, str, bool | None]]], ...] = (
    random_goals, grad_goals, demo_goals, interchange_goals, jit_goals)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    args = ap.parse_args(argv)
    goals = [g for section in SECTIONS for g in section(args.outdir)]
    lines = [f"speed goals of issue 28, from the logs in {args.outdir}", f"{'goal':<52}{'measured':<34}verdict"]
    for label, measured, met in goals:
        lines.append(f"{label:<52}{measured:<34}{'met' if met else 'MISSED' if met is False else 'NOT MEASURED'}")
    n_met = sum(1 for g in goals if g[2])
    lines.append(f"{n_met} of {len(goals)} goals met")
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    return 0 if n_met == len(goals) else 1


if __name__ == "__main__":
    sys.exit(main())
