"""Render the benchmark pictures (PNG) from the committed result files; measures nothing itself.

Usage: ``python benchmarks/plots.py [--results benchmarks/results] [--out docs/_static]``

Reads (what exists; a missing file leaves its part of a figure marked "not measured"):

- ``cpu_overhead.json`` (``overhead.py --json``) or else ``cpu_overhead.txt``: per-call time, raw vs xbackend (and
  any peer columns), at 100 and 1e6 elements, NumPy and torch-CPU;
- ``interchange.json`` (``interchange.py``, CPU run): zero-copy move time by size;
- ``gpu_*_interchange.txt``: the committed GPU run of ``interchange.py --gpu`` (zero-copy torch-CUDA <-> CuPy,
  host <-> device bandwidth by size);
- ``gpu_*_percall.txt`` and ``overhead_gpu.txt``: per-call times on torch-CUDA and CuPy;
- ``cpu_random.txt`` (and ``gpu_*_random.txt``): ``random.py``, xb.random against each library's generator.

- ``cpu_overhead_api.json`` (``overhead_api.py --json``): the speed sweep over the whole API.

Writes ``bench_overhead.png``, ``bench_zero_copy.png``, ``bench_bandwidth.png``, ``bench_throughput.png``,
``bench_random.png``, ``bench_sweep_worst.png``. Needs
matplotlib (``pip install 'xbackend[docs]'``); uses the Agg backend, no display.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # appended: benchmarks/dask_graphs.py must not shadow dask
    sys.path.append(str(Path(__file__).resolve().parent))
from _results import parse_markdown_tables, parse_overhead, read, size_bytes  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET_COLORS = {"numpy-cpu": "#4C72B0", "torch-cpu": "#DD8452", "torch-cuda": "#C44E52", "cupy-cuda": "#55A868"}
THROUGHPUT_TARGETS = ("numpy-cpu", "torch-cpu", "torch-cuda", "cupy-cuda")


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False})
    return plt


def _size_label(nbytes: float) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes:g} B"


# ---------------------------------------------------------------------------------------------------- loading


def load_overhead(results: Path) -> list[dict[str, Any]]:
    """CPU overhead records: the JSON of ``overhead.py --json`` when present, else its text table."""
    js = results / "cpu_overhead.json"
    if js.exists():
        return list(json.loads(read(js)))
    txt = results / "cpu_overhead.txt"
    return parse_overhead(read(txt)) if txt.exists() else []


def load_gpu_percall(results: Path) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = []
    for path in sorted(results.glob("gpu_*_percall.txt")) + sorted(results.glob("overhead_gpu.txt")):
        recs += parse_overhead(read(path))
    return recs


def load_gpu_interchange(results: Path) -> tuple[str, dict[str, list[dict[str, str]]]]:
    """(label of the run, its Markdown tables) of the newest committed GPU interchange run."""
    files = sorted(results.glob("gpu_*_interchange.txt"))
    if not files:
        return "", {}
    path = files[-1]
    label = "GPU run " + path.name.split("_")[1]
    return label, parse_markdown_tables(read(path))


def _table(tables: dict[str, list[dict[str, str]]], prefix: str) -> list[dict[str, str]]:
    return next((rows for title, rows in tables.items() if title.startswith(prefix)), [])


# ---------------------------------------------------------------------------------------------------- figures


def plot_overhead(recs: list[dict[str, Any]], path: Path) -> str:
    """Raw vs xbackend (vs peers) per op, one panel per target and size, log scale."""
    if not recs:
        return f"skipped {path.name}: no overhead results"
    plt = _plt()
    targets = sorted({r["target"] for r in recs}, key=lambda t: list(TARGET_COLORS).index(t) if t in TARGET_COLORS else 99)
    sizes = sorted({r["n"] for r in recs})
    series = ["raw_us", "xb_us"] + sorted(
        {k for r in recs for k in r if k.endswith("_us") and k not in ("raw_us", "xb_us", "added_us", "best_us")}
    )
    names = {"raw_us": "raw call", "xb_us": "xbackend"}
    colors = ["#9a9a9a", "#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860"]
    ops = list(dict.fromkeys(r["op"].split()[0] if r["op"].startswith("matmul") else r["op"] for r in recs))
    fig, axes = plt.subplots(len(targets), len(sizes), figsize=(5.2 * len(sizes), 0.32 * len(ops) * len(targets) + 1.6),
                             squeeze=False)  # fmt: skip
    height = 0.8 / len(series)
    for i, target in enumerate(targets):
        for j, n in enumerate(sizes):
            ax = axes[i][j]
            rows = {(r["op"].split()[0] if r["op"].startswith("matmul") else r["op"]): r
                    for r in recs if r["target"] == target and r["n"] == n}  # fmt: skip
            labels = [r["op"] for op in ops if (r := rows.get(op))]
            present = [rows[op] for op in ops if op in rows]
            for k, key in enumerate(series):
                ys = [p + (k - (len(series) - 1) / 2) * height for p in range(len(present))]
                vals = [r.get(key) or 0.0 for r in present]
                ax.barh(ys, vals, height=height, color=colors[k % len(colors)],
                        label=names.get(key, key.removesuffix("_us")))  # fmt: skip
            for p, r in enumerate(present):
                if r.get("xb_us") and r.get("raw_us"):
                    added = r["best_us"] if isinstance(r.get("best_us"), (int, float)) else r["xb_us"] - r["raw_us"]
                    note = f"{added:+.2f} µs" if n <= 1000 else f"{r['xb_us'] / r['raw_us']:.2f}×"
                    right = max(v for key in series if isinstance(v := r.get(key), (int, float)))  # past every bar
                    ax.text(right * 1.08, p, note, va="center", fontsize=7.5)
            ax.set_yticks(range(len(present)), labels)
            ax.invert_yaxis()
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(plt.NullFormatter())  # decades only: minor labels overlap on short axes
            ax.set_xlim(right=ax.get_xlim()[1] * 4)
            ax.set_xlabel("µs per call (median, log scale)")
            ax.set_title(f"{target}, {n:,} elements: " + ("time added over the raw call (best+)" if n <= 1000 else
                                                          "xbackend / raw"), fontsize=9)  # fmt: skip
            if i == 0 and j == 0:
                ax.legend(loc="lower right", fontsize=8)
    fig.suptitle("Per-call overhead of xbackend over the raw library call (benchmarks/overhead.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def plot_zero_copy(cpu: list[dict[str, Any]], gpu_rows: list[dict[str, str]], gpu_label: str, path: Path) -> str:
    """Zero-copy move time vs size: flat lines."""
    lines: dict[str, list[tuple[int, float, float]]] = {}
    for r in cpu:
        lines.setdefault(f"{r['pair']} (CPU run)", []).append((r["size"], r["raw_s"] * 1e6, r["xb_s"] * 1e6))
    for r in gpu_rows:
        if "cuda" in r["pair"]:
            lines.setdefault(f"{r['pair']} ({gpu_label})", []).append(
                (size_bytes(r["size"]), float(r["raw µs"]), float(r["xbackend µs"])))
    if not lines:
        return f"skipped {path.name}: no zero-copy results"
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    palette = ["#4C72B0", "#DD8452", "#C44E52", "#55A868", "#8172B3"]
    for (name, pts), color in zip(lines.items(), palette):
        pts.sort()
        xs = [p[0] for p in pts]
        ax.plot(xs, [p[2] for p in pts], marker="o", color=color, label=f"{name}: xbackend")
        ax.plot(xs, [p[1] for p in pts], marker=".", ls="--", color=color, alpha=0.6, label=f"{name}: raw DLPack call")
    ax.set_xscale("log", base=2)
    sizes = sorted({p[0] for pts in lines.values() for p in pts})
    ax.set_xticks(sizes, [_size_label(s) for s in sizes])
    ax.set_ylim(0, max(p[2] for pts in lines.values() for p in pts) * 1.35)
    ax.set_xlabel("array size")
    ax.set_ylabel("µs per move (median)")
    ax.set_title("Zero-copy moves take the same time at every size (x.to(backend=...))", fontsize=10)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def plot_bandwidth(rows: list[dict[str, str]], gpu_label: str, path: Path) -> str:
    """Host <-> device bandwidth vs size, per method, from the committed GPU run."""
    if not rows:
        return f"skipped {path.name}: no GPU bandwidth results committed"
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, direction in zip(axes, ("H2D", "D2H")):
        methods = list(dict.fromkeys(r["method"] for r in rows if r["direction"] == direction))
        for m in methods:
            pts = sorted((size_bytes(r["size"]), float(r["GB/s"])) for r in rows
                         if r["direction"] == direction and r["method"] == m)  # fmt: skip
            style = {"ls": ":", "color": "#555555"} if "peak" in m else {}
            ax.plot(*zip(*pts), marker="o", label=m, **style)
        sizes = sorted({size_bytes(r["size"]) for r in rows})
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [_size_label(s) for s in sizes])
        ax.set_xlabel("transfer size")
        ax.set_title({"H2D": "host -> device", "D2H": "device -> host"}[direction])
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("GB/s (CUDA-synchronised median)")
    fig.suptitle(f"Host <-> device bandwidth, torch on CUDA ({gpu_label}, benchmarks/interchange.py --gpu)",
                 fontsize=10)  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def plot_throughput(cpu: list[dict[str, Any]], gpu: list[dict[str, Any]], gpu_label: str, path: Path) -> str:
    """Throughput of a few representative ops per target through xbackend; unmeasured targets say so."""
    recs = cpu + gpu
    if not recs:
        return f"skipped {path.name}: no results"
    plt = _plt()
    big = max((r["n"] for r in recs), default=0)
    elementwise = ["a + b", "a * 2.0", "exp", "sum", "astype"]
    panels: list[tuple[str, list[str], str, Any]] = [
        (f"elementwise and reductions, {big:,} float64 elements", elementwise,
         "G elements / s (higher is better)", lambda r: r["n"] / (r["xb_us"] * 1e-6) / 1e9),
        ("matmul 1000 x 1000, float64", ["matmul"], "GFLOP/s (higher is better)",
         lambda r: 2 * 1000**3 / (r["xb_us"] * 1e-6) / 1e9),
        ("per call at 100 elements (latency)", ["a + b", "sum"], "µs per call (lower is better)",
         lambda r: r["xb_us"]),
    ]  # fmt: skip
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2), gridspec_kw={"width_ratios": [2.6, 1, 1.3]})
    width = 0.8 / len(THROUGHPUT_TARGETS)
    for ax, (title, ops, ylabel, value) in zip(axes, panels):
        n = 100 if "100 elements" in title else big
        top = 0.0
        missing: list[tuple[float, str]] = []
        for k, target in enumerate(THROUGHPUT_TARGETS):
            for p, op in enumerate(ops):
                x = p + (k - (len(THROUGHPUT_TARGETS) - 1) / 2) * width
                r = next((r for r in recs if r["target"] == target and r["n"] == n and r["op"].split()[0] ==
                          op.split()[0] and (op != "a + b" or r["op"] == "a + b") and r.get("xb_us")), None)  # fmt: skip
                if r is None:
                    missing.append((x, target))
                    continue
                v = value(r)
                top = max(top, v)
                ax.bar(x, v, width=width, color=TARGET_COLORS[target], label=target if p == 0 else None)
        for x, target in missing:
            ax.bar(x, top * 0.06, width=width, color="none", edgecolor=TARGET_COLORS[target], hatch="///")
            ax.text(x, top * 0.08, "not measured", rotation=90, ha="center", va="bottom", fontsize=6.5,
                    color=TARGET_COLORS[target])  # fmt: skip
        ax.set_xticks(range(len(ops)), ops)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.set_ylim(0, top * 1.25 if top else 1)
    handles = [plt.Rectangle((0, 0), 1, 1, color=TARGET_COLORS[t]) for t in THROUGHPUT_TARGETS]
    fig.legend(handles, THROUGHPUT_TARGETS, loc="upper right", bbox_to_anchor=(0.99, 0.92), ncol=4, fontsize=8,
               frameon=False)  # fmt: skip
    fig.suptitle("NumPy vs torch-CPU vs torch-CUDA vs CuPy, through xbackend", fontsize=10, x=0.01, ha="left")
    gpu_note = (f"GPU bars: {gpu_label}, per-call figures measured by hand on the same machine (gpu_*_percall.txt)"
                if gpu else "GPU: no committed results")  # fmt: skip
    fig.text(0.01, 0.01, f"CPU bars: benchmarks/overhead.py (results/cpu_overhead.*), medians. {gpu_note}; "
             "hatched = not measured yet (run benchmarks/overhead.py --gpu).", fontsize=7.5, color="#444444")  # fmt: skip
    fig.tight_layout(rect=(0, 0.04, 1, 0.88))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def load_random(results: Path) -> list[dict[str, Any]]:
    """``random.py`` records (CPU, then any committed GPU run)."""
    recs: list[dict[str, Any]] = []
    for path in [results / "cpu_random.txt", *sorted(results.glob("gpu_*_random.txt"))]:
        if path.exists():
            recs += parse_overhead(read(path))
    return recs


def plot_random(recs: list[dict[str, Any]], path: Path) -> str:
    """xb.random against each library's own generator: time ratios at 1e7 (left), time added per call (right)."""
    if not recs:
        return f"skipped {path.name}: no random.py results"
    plt = _plt()
    big = [r for r in recs if r["n"] > 1000 and r.get("ratio")]
    small = [r for r in recs if r["n"] <= 1000 and isinstance(r.get("best_us"), (int, float))]
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.34 * max(len(big), 2 * len(small)) + 1.8),
                             gridspec_kw={"width_ratios": [1.6, 1]})  # fmt: skip
    goals = {("numpy-cpu", "random f32 portable"): 2.0, ("torch-cpu", "random f32 portable"): 4.0}
    for ax, rows, key, label, line in (
        (axes[0], big, "ratio", "time of xbackend / time of the raw call (fastest of each; lower is better)", None),
        (axes[1], small, "best_us", "µs added per call at 100 elements (best+)", 0.35),
    ):
        names = [f"{r['target']}  {r['op']}" for r in rows]
        vals = [r[key] for r in rows]
        colors = [TARGET_COLORS.get(r["target"].split(":")[0], "#4C72B0") for r in rows]
        ax.barh(range(len(rows)), vals, color=colors)
        for i, r in enumerate(rows):
            goal = goals.get((r["target"], r["op"])) if line is None else (line if r["op"] == "random native" else None)
            if r["target"].endswith("cuda:0") and r["op"] == "random f32 portable":
                goal = 2.0
            if goal is not None:
                ax.plot([goal, goal], [i - 0.4, i + 0.4], color="#C44E52", lw=1.5)
            ax.text(max(vals + [0]) * 0.02 + max(r[key], 0), i, f"{r[key]:.2f}", va="center", fontsize=7.5)
        ax.set_yticks(range(len(rows)), names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(label, fontsize=8.5)
        if line is None:
            ax.axvline(1.0, color="#888888", lw=0.8, ls=":")
    axes[0].set_title(f"{big[0]['n']:,} variates per call; red ticks: the goals" if big else "not measured", fontsize=9)
    axes[1].set_title("vs the raw call; red: the +0.35 µs goal (native random)", fontsize=9)
    fig.suptitle("xb.random against each library's own generator (benchmarks/random_streams.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def load_sweep(results: Path) -> list[dict[str, Any]]:
    """The speed sweep's records (``overhead_api.py --json``), or none."""
    js = results / "cpu_overhead_api.json"
    return json.loads(read(js)) if js.exists() else []


def plot_sweep(recs: list[dict[str, Any]], path: Path, worst: int = 25) -> str:
    """The sweep: every entry's added µs per target (left); the worst rows overall (middle) and the worst of those
    no reason explains (right), each bar the µs it adds over the native call with its goal (tick) and the floor of
    a Python wrapper (dot); ``*`` marks a row whose reason is listed in the table."""
    if not recs:
        return f"skipped {path.name}: no cpu_overhead_api.json"
    plt = _plt()
    fig, (dist, left, right) = plt.subplots(1, 3, figsize=(17, 0.24 * worst + 2.4),
                                            gridspec_kw={"width_ratios": [1, 1.6, 1.6]})  # fmt: skip
    for target in sorted({r["target"] for r in recs}):
        vals = sorted(r["added_us"] for r in recs if r["target"] == target)
        dist.plot(vals, [i / len(vals) for i in range(len(vals))], label=target, color=TARGET_COLORS.get(target))
    dist.axvline(0.35, color="grey", ls="--", lw=0.8)
    dist.set_xscale("symlog", linthresh=1)
    dist.set_xlabel("µs added over the native call (symlog)")
    dist.set_ylabel("fraction of entries")
    dist.set_title(f"every entry ({len(recs)}); dashed: +0.35 µs")
    dist.legend(loc="lower right")
    order = sorted(recs, key=lambda r: r["goal_us"] - r["added_us"])
    for ax, rows, title in ((left, order[:worst], "worst rows (added - goal)"),
                            (right, [r for r in order if r["status"] == "over"][:worst], "worst rows no reason explains")):
        rows = rows[::-1]
        ys = range(len(rows))
        ax.barh(ys, [max(r["added_us"], 0.0) for r in rows], color=[TARGET_COLORS.get(r["target"], "grey") for r in rows])
        ax.scatter([r["goal_us"] for r in rows], ys, marker="|", color="black", s=60, zorder=3, label="goal")
        ax.scatter([max(r["floor_us"], 0.0) for r in rows], ys, marker="o", color="white", edgecolor="black", s=14,
                   zorder=3, label="wrapper floor")  # fmt: skip
        labels = [f"{r['target'].split('-')[0]}: {r['entry']}" + ("" if r["status"] in ("ok", "over") else " *")
                  for r in rows]  # fmt: skip
        ax.set_yticks(list(ys), labels, fontsize=7)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlim(left=0)
        ax.set_xlabel("µs added (symlog); * = reason listed in the table")
        ax.set_title(title)
        ax.legend(loc="lower right", fontsize=7)
    fig.suptitle("Speed sweep at 100 elements, NumPy and torch-CPU (benchmarks/overhead_api.py)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return f"wrote {path}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", default=str(HERE / "results"), help="directory of result files")
    p.add_argument("--out", default=str(HERE.parent / "docs" / "_static"), help="where to write the PNGs")
    args = p.parse_args(argv)
    results, out = Path(args.results), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        _plt()
    except ImportError:
        print("matplotlib is not installed: pip install 'xbackend[docs]' (or pip install matplotlib)")
        return 1
    overhead = load_overhead(results)
    gpu_percall = load_gpu_percall(results)
    gpu_label, gpu_tables = load_gpu_interchange(results)
    cpu_zero = json.loads(read(results / "interchange.json")).get("zero_copy", []) if (
        results / "interchange.json").exists() else []  # fmt: skip
    for msg in (
        plot_overhead(overhead, out / "bench_overhead.png"),
        plot_zero_copy(cpu_zero, _table(gpu_tables, "Zero-copy"), gpu_label, out / "bench_zero_copy.png"),
        plot_bandwidth(_table(gpu_tables, "Host <-> device bandwidth"), gpu_label, out / "bench_bandwidth.png"),
        plot_throughput(overhead, gpu_percall, gpu_label, out / "bench_throughput.png"),
        plot_random(load_random(results), out / "bench_random.png"),
        plot_sweep(load_sweep(results), out / "bench_sweep_worst.png"),
    ):
        print(msg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
