#!/usr/bin/env bash
# Every CPU benchmark, then the pictures, from a fresh checkout:
#
#   benchmarks/run_cpu.sh [RESULTS_DIR] [PNG_DIR]     (defaults: benchmarks/results, docs/_static)
#   QUICK=1 benchmarks/run_cpu.sh /tmp/r /tmp/png     (fewer repeats: a smoke run, not for committing)
#
# Tables (text, plus JSON for the plots) go to RESULTS_DIR; benchmarks/plots.py then draws the PNGs from RESULTS_DIR,
# together with the committed GPU results (gpu_*.txt, copied there when RESULTS_DIR is elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS="${1:-benchmarks/results}"
PNGS="${2:-docs/_static}"
PY="${PYTHON:-$(command -v python || command -v python3)}"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
Q=()
[ "${QUICK:-0}" = "1" ] && Q=(--quick)
mkdir -p "$RESULTS" "$PNGS"
[ "$RESULTS" != "benchmarks/results" ] && cp benchmarks/results/gpu_*.txt "$RESULTS"/
"$PY" benchmarks/overhead.py "${Q[@]}" --out "$RESULTS/cpu_overhead.txt" --json "$RESULTS/cpu_overhead.json"
"$PY" benchmarks/overhead_api.py "${Q[@]}" --out "$RESULTS/cpu_overhead_api.txt" --json "$RESULTS/cpu_overhead_api.json" > /dev/null
"$PY" benchmarks/interchange.py "${Q[@]}" --out "$RESULTS" > "$RESULTS/cpu_interchange.txt"
"$PY" benchmarks/random_streams.py "${Q[@]}" --out "$RESULTS/cpu_random.txt"
"$PY" benchmarks/random_streams.py "${Q[@]}" --host-path --out "$RESULTS/cpu_random_cuda_host_path.txt"
"$PY" benchmarks/plots.py --results "$RESULTS" --out "$PNGS"
