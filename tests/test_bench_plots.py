"""benchmarks/plots.py: the result-file parsers read every column back, and the PNGs render from a fresh checkout."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
# appended, never inserted first: benchmarks/dask_graphs.py would shadow the dask package for every later import,
# and spawned worker processes (multiprocessing, loky, dask.distributed) inherit sys.path
if str(BENCH) not in sys.path:
    sys.path.append(str(BENCH))
import _results  # noqa: E402

TABLE = """xbackend 0.1.0, numpy 2.4.6; medians of 25 repeats
target      op                      n     raw µs      xb µs  added µs   ratio  compat µs
numpy-cpu   a + b                 100      0.342      0.740     0.398   2.166      0.500
torch-cpu   matmul 1000x1000  1000000  22729.194  22803.180    73.986   1.003        n/a
import numpy 59.2 ms, import xbackend 74.2 ms (+14.9 ms; target <= +20 ms)
"""


def test_parse_overhead_keeps_every_column_and_skips_other_lines() -> None:
    recs = _results.parse_overhead(TABLE)
    assert [r["op"] for r in recs] == ["a + b", "matmul 1000x1000"]
    first, second = recs
    assert (first["target"], first["n"], first["raw_us"], first["xb_us"]) == ("numpy-cpu", 100, 0.342, 0.740)
    assert first["compat_us"] == 0.5 and first["ratio"] == 2.166  # a peer column a later overhead.py may add
    assert second["n"] == 1_000_000 and second["compat_us"] is None  # "n/a" reads as missing, not as a number


def test_parse_markdown_tables_by_section() -> None:
    text = "# title\n\n### Zero-copy (median)\n\n| pair | size | raw µs |\n|---|---|---|\n| a -> b | 1 KB | 0.5 |\n\n### Other\n| x |\n|---|\n| 1 |\n"
    tables = _results.parse_markdown_tables(text)
    assert tables == {"Zero-copy (median)": [{"pair": "a -> b", "size": "1 KB", "raw µs": "0.5"}], "Other": [{"x": "1"}]}
    assert _results.size_bytes("1 KB") == 1024 and _results.size_bytes("256 MB") == 256 << 20


def test_committed_results_parse() -> None:
    recs = _results.parse_overhead((BENCH / "results" / "cpu_overhead.txt").read_text())
    assert {r["target"] for r in recs} >= {"numpy-cpu", "torch-cpu"} and all(r["xb_us"] > 0 for r in recs)
    gpu = _results.parse_markdown_tables((BENCH / "results" / "gpu_2026-11-30_interchange.txt").read_text())
    bw = next(rows for title, rows in gpu.items() if title.startswith("Host <-> device bandwidth"))
    assert {r["direction"] for r in bw} == {"H2D", "D2H"} and len(bw) == 30


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="plots need matplotlib: pip install matplotlib")
def test_plots_render_every_png(tmp_path: Path) -> None:
    import plots

    assert plots.main(["--out", str(tmp_path)]) == 0
    for name in ("bench_overhead", "bench_zero_copy", "bench_bandwidth", "bench_throughput"):
        png = tmp_path / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert png.stat().st_size > 10_000, f"{name} is suspiciously small"
