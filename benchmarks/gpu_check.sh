#!/usr/bin/env bash
# Every GPU check of xbackend in one command, for a machine with one CUDA GPU (budget: under 8 minutes).
#
#   benchmarks/gpu_check.sh [OUTDIR]        (OUTDIR default: benchmarks/results; when $OUT is set, a tarball of
#                                            OUTDIR and summary.txt are also copied there: few files travel back)
#
# Runs from the repository root with PYTHONPATH=. (no install, no network):
#   1. environment report (torch/CUDA/CuPy versions, device)            -> gpu_env.txt
#   2. pytest -m gpu tests/  (every GPU test of the suite)              -> gpu_tests.txt, gpu_tests.xml
#      + the oracle tests that loop over every target (CUDA included)   -> gpu_oracle_tests.txt, .xml
#   3. benchmarks/interchange.py --gpu                                  -> interchange.{md,json,txt}, PNG if matplotlib
#   4. every other benchmarks/*.py that takes --gpu (overhead.py, ...)  -> <name>_gpu.txt
# Each step has its own timeout; a failing step does not stop the others. Exit status: 0 only if all passed.
# summary.txt lists each step's exit status and seconds.
set -u
cd "$(dirname "$0")/.."
OUTDIR="${1:-benchmarks/results}"
mkdir -p "$OUTDIR"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"  # bounded, deterministic property tests
PY="${PYTHON:-$(command -v python || command -v python3)}"
SUMMARY="$OUTDIR/summary.txt"
: > "$SUMMARY"
status=0

BUDGET="${GPU_CHECK_BUDGET_S:-460}"  # whole run stays under 8 minutes

step() {  # step NAME TIMEOUT_S LOGFILE CMD...   (the timeout is cut to what is left of BUDGET)
    local name="$1" limit="$2" log="$3"
    shift 3
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt 15 ]; then
        echo "== $name: SKIPPED (time budget of ${BUDGET}s used up)" | tee -a "$SUMMARY"
        status=1
        return 0
    fi
    [ "$limit" -gt "$left" ] && limit=$left
    local t0=$SECONDS
    echo "== $name (timeout ${limit}s): $*" | tee -a "$SUMMARY"
    timeout --kill-after=10 "$limit" "$@" > "$log" 2>&1
    local rc=$?
    tail -n 40 "$log"
    echo "   -> rc=$rc in $((SECONDS - t0))s (log: $log)" | tee -a "$SUMMARY"
    [ "$rc" -ne 0 ] && status=1
    return 0
}

step "environment" 30 "$OUTDIR/gpu_env.txt" "$PY" - <<'EOF'
import platform, numpy, torch
print("python", platform.python_version(), "| numpy", numpy.__version__, "| torch", torch.__version__,
      "| torch CUDA", torch.version.cuda, "| available", torch.cuda.is_available())
if torch.cuda.is_available():
    print("device:", torch.cuda.get_device_name(0), "| count", torch.cuda.device_count())
try:
    import cupy
    print("cupy", cupy.__version__, "| runtime", cupy.cuda.runtime.runtimeGetVersion(),
          "| driver", cupy.cuda.runtime.driverGetVersion())
except Exception as exc:
    print("cupy unusable:", repr(exc))
try:
    import ml_dtypes
    print("ml_dtypes", ml_dtypes.__version__)
except ImportError:
    print("ml_dtypes not installed (bfloat16 host paths raise the typed error)")
for mod in ("pytest", "hypothesis"):  # the pytest step needs both (tests/conftest.py imports hypothesis)
    try:
        print(mod, __import__(mod).__version__)
    except ImportError:
        print(mod, "NOT INSTALLED: the pytest step cannot run")
import xbackend as xb
for info in xb.backends().values():
    print(info)
EOF

step "pytest -m gpu tests/" 240 "$OUTDIR/gpu_tests.txt" \
    "$PY" -m pytest -m gpu tests/ -q -p no:cacheprovider -rfEsx --durations=15 --junitxml="$OUTDIR/gpu_tests.xml"

if [ -f benchmarks/interchange.py ]; then
    step "benchmarks/interchange.py --gpu" 130 "$OUTDIR/interchange.txt" \
        "$PY" benchmarks/interchange.py --gpu --out "$OUTDIR"
fi

for b in benchmarks/*.py; do
    [ "$b" = benchmarks/interchange.py ] && continue
    grep -q -- '"--gpu"' "$b" || continue
    name="$(basename "$b" .py)"
    extra=()
    grep -q -- '"--quick"' "$b" && extra+=(--quick)
    grep -q -- '"--out"' "$b" && extra+=(--out "$OUTDIR/${name}_gpu.md")
    step "$b --gpu" 60 "$OUTDIR/${name}_gpu.txt" "$PY" "$b" --gpu "${extra[@]}"
done

# Tests that loop over every target inside one test (the elementwise oracle, creation, Array) carry no gpu
# marker, yet include the CUDA targets automatically when a device exists: run them too.
step "cross-target oracle tests" 150 "$OUTDIR/gpu_oracle_tests.txt" \
    "$PY" -m pytest tests/test_elementwise.py tests/test_creation.py tests/test_array.py -m "not gpu" -q \
    -p no:cacheprovider -rfEsx --junitxml="$OUTDIR/gpu_oracle_tests.xml"

echo "== overall: $([ $status -eq 0 ] && echo PASS || echo FAIL)" | tee -a "$SUMMARY"
if [ -n "${OUT:-}" ] && [ "$OUT" != "$OUTDIR" ]; then
    tar czf "$OUT/gpu_results.tar.gz" -C "$OUTDIR" . && cp "$SUMMARY" "$OUT/summary.txt"
fi
exit $status
