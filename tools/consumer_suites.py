"""scikit-learn's and SciPy's own array-API test suites on xbackend, next to the libraries they run on.

Usage (from the repository root; installs nothing, patches no installed file)::

    python tools/consumer_suites.py                      # the full run: both suites, every namespace
    python tools/consumer_suites.py --selection ci       # the bounded CI selection (tests/test_consumer_suites.py)
    python tools/consumer_suites.py --suites scipy --namespaces torch,xbackend-torch -- -k logsumexp
    python tools/consumer_suites.py --from-json out.json # the tables again, from a saved run
    python tools/consumer_suites.py --suites scipy --tests special/tests/test_logsumexp.py::TestSoftmax
    python tools/consumer_suites.py --json run.json --out benchmarks/results/consumer_suites.txt --docs docs/ecosystem.md

Each suite runs in one pytest process (``-n`` with pytest-xdist when it is installed and ``--jobs`` > 1)
with tools/consumer_plugin.py loaded by ``-p``: it adds ``xbackend-<backend>`` namespaces to the suite's
own parametrisation (scikit-learn's ``yield_namespace_device_dtype_combinations`` / ``_array_api_for_tests``,
SciPy's ``xp`` fixture) and records each test's outcome. The tables count passed / failed (+ errors) per
namespace, then sort every xbackend failure by what the same test did on the library underneath: it passed
there ("new"), did not run there ("no baseline"), is a deliberate difference of xbackend
(:data:`KNOWN_DIFFERENCES`, "listed") or failed there too ("as baseline"); new and no-baseline failures are
grouped by cause (exception type and normalised message). The exit status is 1 when a namespace of ``--gate``
(xbackend on NumPy and on torch) has a new or no-baseline failure.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from importlib import util as importlib_util
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
BASELINES = ("numpy", "torch", "array_api_strict", "dask")
XB = "xbackend-"
ALL_NAMESPACES = BASELINES + tuple(XB + b for b in BASELINES)
TITLES = {"numpy": "numpy", "torch": "torch", "array_api_strict": "array-api-strict", "dask": "dask",
          "xbackend-numpy": "xbackend on NumPy", "xbackend-torch": "xbackend on torch",
          "xbackend-array_api_strict": "xbackend on array-api-strict", "xbackend-dask": "xbackend on Dask"}  # fmt: skip
SUITE_TITLES = {"sklearn": "scikit-learn", "scipy": "SciPy"}

#: SciPy's array-API modules the full run covers (``-m array_api_backends``: tests that take ``xp``)
SCIPY_MODULES = ("scipy.special", "scipy.stats", "scipy.signal", "scipy.fft", "scipy.linalg", "scipy.cluster",
                 "scipy.ndimage", "scipy.integrate", "scipy.optimize", "scipy._lib")  # fmt: skip

#: the bounded selection CI runs (tests/test_consumer_suites.py, a few hundred tests): test ids below the
#: installed packages, chosen to cover creation, dtypes, devices, reductions, linear algebra and estimators
CI_SELECTION: dict[str, tuple[str, ...]] = {
    "sklearn": (
        "utils/tests/test_array_api.py::test_average", "utils/tests/test_array_api.py::test_median",
        "utils/tests/test_array_api.py::test_fill_diagonal", "utils/tests/test_array_api.py::test_ravel",
        "utils/tests/test_array_api.py::test_logsumexp_like_scipy_logsumexp",
        "utils/tests/test_array_api.py::test_max_precision_float_dtype",
        "decomposition/tests/test_pca.py::test_pca_array_api_compliance",
        "linear_model/tests/test_ridge.py::test_ridge_array_api_compliance",
        "linear_model/tests/test_ridge.py::test_array_api_error_and_warnings_for_solver_parameter",
        "metrics/tests/test_pairwise.py::test_pairwise_distances_array_api",
    ),
    "scipy": (
        "special/tests/test_logsumexp.py::TestSoftmax", "special/tests/test_logsumexp.py::TestLogSoftmax",
        "special/tests/test_logsumexp.py::TestLogSumExp::test_logsumexp",
        "special/tests/test_logsumexp.py::TestLogSumExp::test_device",
        "stats/tests/test_variation.py", "cluster/tests/test_vq.py", "_lib/tests/test_array_api.py::TestArrayAPI",
        "special/tests/test_support_alternative_backends.py::test_support_alternative_backends_mismatched_dtypes",
    ),
}  # fmt: skip
CI_NAMESPACES = ("numpy", "torch", "xbackend-numpy", "xbackend-torch")

class Difference(NamedTuple):
    """A deliberate difference: an xbackend failure of ``namespaces`` (None: all) in ``suite`` ("*": both) whose test
    id, with the namespace part written as the baseline's, matches ``test`` (fnmatch) and whose failure message
    matches the regex ``failure`` (None: any). Each is a choice documented in docs/behaviour.md, never a bug."""

    suite: str
    test: str
    namespaces: tuple[str, ...] | None
    reason: str
    failure: str | None = None


_ALT = "scipy/special/tests/test_support_alternative_backends.py::test_support_alternative_backends_mismatched_dtypes"
_INT_FLOAT32 = ("an integer with float32 is float32 on every backend (xbackend's promotion: no silent float64); "
                "SciPy's reference is NumPy's ufunc promotion, float64 (SciPy xfails torch for the same reason)")
_NO_IMPLICIT_COMPUTE = ("a lazy Dask Array is never computed implicitly (np.asarray, float(), bool() raise "
                        "HostTransferError with the fix); a dask.array computes silently")
_NO_SILENT_RECHUNK = ("xbackend never rechunks silently: sort, argsort, FFTs and take_along_axis along a chunked "
                      "axis raise ChunkingError with the fix (xb.rechunk(x, {axis: -1})); array-api-compat's "
                      "dask.array merges the axis into one chunk itself, which can exhaust a worker's memory")
_UNKNOWN_IS_NONE = ("an unknown size (after a boolean mask, nonzero, unique_*) is None in x.shape, the standard's "
                    "rule; dask.array says nan, which compares False where None raises TypeError")
KNOWN_DIFFERENCES: tuple[Difference, ...] = (
    Difference("scipy", _ALT + "[[]*-rel_entr]", None, _INT_FLOAT32),
    Difference("scipy", _ALT + "[[]*-xlogy]", None, _INT_FLOAT32),
    Difference("*", "*", ("xbackend-dask",), _NO_IMPLICIT_COMPUTE,
               r"HostTransferError: implicit conversion of a lazy Dask Array"),
    Difference("*", "*", ("xbackend-dask",), _UNKNOWN_IS_NONE,
               r"TypeError: '[<>]=?' not supported between instances of '(NoneType' and 'int|int' and 'NoneType)'"),
    Difference("*", "*", ("xbackend-dask",), _NO_SILENT_RECHUNK, r"ChunkingError: .*needs axis \d+ of the Dask Array in one chunk"),
)  # fmt: skip


#: the block of the docs' ecosystem page that holds the committed table (benchmarks/results/consumer_suites.txt)
DOCS_BEGIN, DOCS_END = "<!-- consumer_suites.txt: begin -->", "<!-- consumer_suites.txt: end -->"


def docs_block(page: str) -> str:
    """The table a docs page shows between :data:`DOCS_BEGIN` and :data:`DOCS_END`."""
    return page.partition(DOCS_BEGIN + "\n")[2].partition("\n" + DOCS_END)[0]


# -- running ------------------------------------------------------------------------------------------------
def _package_dir(name: str) -> Path:
    spec = importlib_util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed in {sys.executable}: install it (requirements/test.txt)")
    return Path(spec.origin).parent


def _sklearn_targets(selection: str) -> list[str]:
    base = _package_dir("sklearn")
    if selection == "ci":
        return [str(base / t) for t in CI_SELECTION["sklearn"]]
    found = []
    for path in sorted(base.rglob("test_*.py")):  # every test module that parametrises over namespaces
        text = path.read_text(encoding="utf-8", errors="replace")
        if "yield_namespace" in text or "_array_api_for_tests" in text or path.parent.name == "tests" and \
                path.name == "test_common.py" and path.parent.parent == base:  # fmt: skip
            found.append(str(path))
    return found


def _scipy_targets(selection: str) -> list[str]:
    if selection == "ci":
        base = _package_dir("scipy")
        return [str(base / t) for t in CI_SELECTION["scipy"]]
    return ["--pyargs", *SCIPY_MODULES]


def _xdist_available() -> bool:
    return importlib_util.find_spec("xdist") is not None


def run_suite(suite: str, namespaces: list[str], selection: str, jobs: int, extra: list[str],
              report: Path, tests: list[str] | None = None) -> float:  # fmt: skip
    """Run one suite in a pytest subprocess; the records land in ``report``. Returns the wall time.

    ``tests`` (ids below the installed package, e.g. ``special/tests/test_logsumexp.py::TestSoftmax``)
    replace the selection."""
    if tests:
        targets = [str(_package_dir(suite) / t) for t in tests]
    else:
        targets = _sklearn_targets(selection) if suite == "sklearn" else _scipy_targets(selection)
    work = Path(tempfile.mkdtemp(prefix="xb-consumers-"))
    ini = work / "pytest.ini"  # neither this repository's pytest settings nor a cache directory apply
    ini.write_text("[pytest]\naddopts =\n")
    rootdir = _package_dir(suite).parent  # test ids read "sklearn/utils/tests/test_x.py::test_y[...]"
    cmd = [sys.executable, "-m", "pytest", "-c", str(ini), "--rootdir", str(rootdir), "-p", "consumer_plugin",
           "-p", "no:cacheprovider", f"--xb-suite={suite}", f"--xb-namespaces={','.join(namespaces)}",
           f"--xb-report={report}", "-q", "--tb=line", "-rN", "--no-header"]  # fmt: skip
    if suite == "scipy":
        cmd += ["-m", "array_api_backends"]
    if jobs > 1 and _xdist_available():
        cmd += ["-n", str(jobs)]
    cmd += [*targets, *extra]
    env = dict(os.environ)
    env["SCIPY_ARRAY_API"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "tools"), str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("SKLEARN_SKIP_NETWORK_TESTS", "1")
    log = report.with_suffix(".log")  # pytest's own output, for following a long run (tail -f)
    t0 = time.perf_counter()
    with open(log, "w") as out:
        out.write(shlex.join(cmd) + "\n")
        out.flush()
        proc = subprocess.run(cmd, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    took = time.perf_counter() - t0
    if not report.exists():
        tail = "\n".join(log.read_text().splitlines()[-40:])
        raise SystemExit(f"{suite}: pytest wrote no report (exit {proc.returncode}):\n{tail}")
    return took


# -- tables -------------------------------------------------------------------------------------------------
_RANK = {"error": 5, "failed": 4, "xpassed": 3, "passed": 2, "xfailed": 1, "skipped": 0}


def _outcomes(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """One record per test id (a teardown error after a pass counts as the error)."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        old = out.get(r["nodeid"])
        if old is None or _RANK[r["outcome"]] > _RANK[old["outcome"]]:
            out[r["nodeid"]] = r
    return out


#: the baseline an xbackend namespace is compared with, where it is not the library's own name in the suite
BASELINE_OF = {("sklearn", "xbackend-dask"): "dask.array",  # scikit-learn lists no Dask namespace: the runner adds it
               ("scipy", "xbackend-dask"): "dask.array"}  # fmt: skip
#: device names in test ids that differ: xbackend's generic backend has array-api-strict's default device only
#: ("cpu"); scikit-learn runs strict's float64 tests on CPU_DEVICE and its float32 ones on its fake "device1"
ID_ALIASES = {("sklearn", "xbackend-array_api_strict"): (
    ("-cpu-float64", "-CPU_DEVICE-float64"), ("-cpu-float32", "-device1-float32"),
    ("device_name=cpu,dtype_name=float64", "device_name=CPU_DEVICE,dtype_name=float64"),
    ("device_name=cpu,dtype_name=float32", "device_name=device1,dtype_name=float32"))}  # fmt: skip


def _baseline_id(nodeid: str, ns: str, suite: str = "") -> str:
    """The id of the same test on the library underneath: ``[xbackend-torch-cpu-float64]`` -> ``[torch-...]``."""
    head, sep, params = nodeid.partition("[")
    for mine, theirs in ID_ALIASES.get((suite, ns), ()):
        params = params.replace(mine, theirs)
    return head + sep + params.replace(ns, BASELINE_OF.get((suite, ns), ns.removeprefix(XB)))


_NORMALISE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x…"),
    (re.compile(r"(?<![\w.])[-+]?\d+(\.\d+)?(e[-+]?\d+)?(?!\w)"), "N"),
    (re.compile(r"\s+"), " "),
]


def cause(failure: str) -> str:
    """A failure's cause: exception type and first line, numbers and addresses normalised, ≤ 110 characters."""
    line = failure.strip().splitlines()[0] if failure.strip() else "?"
    line = re.sub(r"^E\s+", "", line)
    for pattern, repl in _NORMALISE:
        line = pattern.sub(repl, line)
    return line if len(line) <= 110 else line[:109] + "…"


def _listed(suite: str, base_id: str, ns: str, failure: str) -> str | None:
    for d in KNOWN_DIFFERENCES:
        if (d.suite in ("*", suite) and (d.namespaces is None or ns in d.namespaces)
                and fnmatch.fnmatchcase(base_id, d.test) and (d.failure is None or re.search(d.failure, failure))):
            return d.reason
    return None


def summarise(reports: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Counts per suite and namespace, and the xbackend failures the baseline does not have."""
    counts: dict[str, dict[str, Counter[str]]] = {}
    new: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for suite, rep in reports.items():
        tests = _outcomes(rep["records"])
        per_ns: dict[str, Counter[str]] = defaultdict(Counter)
        for r in tests.values():
            per_ns[r["ns"]][r["outcome"]] += 1
        counts[suite] = dict(per_ns)
        new[suite] = defaultdict(list)
        for r in tests.values():
            ns = r["ns"]
            if not ns.startswith(XB) or r["outcome"] not in ("failed", "error"):
                continue
            bid = _baseline_id(r["nodeid"], ns, suite)
            base = tests.get(bid)
            if base is not None and base["outcome"] in ("failed", "error", "xfailed"):
                kind = "as baseline"
            elif (reason := _listed(suite, bid, ns, r.get("failure", ""))) is not None:
                kind = "listed: " + reason
            elif base is None or base["outcome"] == "skipped":  # e.g. a test body skipping `if is_torch(xp)`
                kind = "no baseline"
            else:
                kind = "new"
            new[suite][ns].append({**r, "kind": kind, "baseline": None if base is None else base["outcome"]})
    return {"counts": counts, "xb_failures": new}


def _cell(c: Counter[str] | None) -> str:
    if not c:
        return "—"
    s = f"{c['passed']} / {c['failed']}"
    if c["error"]:
        s += f" + {c['error']} err"
    return s


def versions() -> str:
    """The libraries of this run, one line."""
    from importlib.metadata import PackageNotFoundError, version

    parts = []
    for dist in ("scikit-learn", "scipy", "numpy", "torch", "dask", "array-api-strict"):
        try:
            parts.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            pass
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return ", ".join(parts) + f"; xbackend {commit}; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs"


def tables(summary: dict[str, Any], namespaces: list[str], times: dict[str, float] | None = None,
           header: str | None = None) -> str:  # fmt: skip
    counts, fails = summary["counts"], summary["xb_failures"]
    cols = [n for n in ALL_NAMESPACES if n in namespaces]
    lines = [header, ""] if header else []
    lines += ["passed / failed (+ errors) per namespace; skipped tests are not counted", ""]
    lines.append("| suite | " + " | ".join(TITLES[n] for n in cols) + " |")
    lines.append("|---" * (len(cols) + 1) + "|")
    for suite in counts:
        lines.append(f"| {SUITE_TITLES[suite]} | " + " | ".join(_cell(counts[suite].get(n)) for n in cols) + " |")
    xcols = [n for n in cols if n.startswith(XB)]
    if xcols:
        lines += ["", "xbackend failures: the same test passes on the library underneath (new), does not run there "
                      "(no baseline), a deliberate difference (listed, see KNOWN_DIFFERENCES), fails there too "
                      "(as baseline)", ""]  # fmt: skip
        lines.append("| suite | " + " | ".join(TITLES[n] + ": new / no baseline / listed / as baseline"
                                                for n in xcols) + " |")  # fmt: skip
        lines.append("|---" * (len(xcols) + 1) + "|")
        for suite in counts:
            cells = []
            for n in xcols:
                if n not in counts[suite]:
                    cells.append("—")
                    continue
                k = Counter(("listed" if f["kind"].startswith("listed") else f["kind"]) for f in fails[suite][n])
                cells.append(f"**{k['new']}** / {k['no baseline']} / {k['listed']} / {k['as baseline']}")
            lines.append(f"| {SUITE_TITLES[suite]} | " + " | ".join(cells) + " |")
        groups: dict[str, Counter[str]] = defaultdict(Counter)
        example: dict[str, str] = {}
        for suite in fails:
            for n, fs in fails[suite].items():
                for f in fs:
                    if f["kind"] in _COUNTED:
                        c = cause(f.get("failure", "?"))
                        groups[c][f"{SUITE_TITLES[suite]}:{TITLES[n]}"] += 1
                        example.setdefault(c, f["nodeid"])
        if groups:
            lines += ["", "new and no-baseline failures grouped by cause (exception and normalised message)", ""]
            lines.append("| failures | cause | where | one test |")
            lines.append("|---|---|---|---|")
            for c, where in sorted(groups.items(), key=lambda kv: -sum(kv[1].values())):
                w = ", ".join(f"{k} {v}" for k, v in where.most_common())
                lines.append(f"| {sum(where.values())} | `{c.replace('|', '/')}` | {w} | `{example[c]}` |")
    if times:
        lines += ["", "wall time: " + ", ".join(f"{SUITE_TITLES[s]} {t / 60:.1f} min" for s, t in times.items())]
    return "\n".join(lines)


_COUNTED = ("new", "no baseline")  # failures that make the run fail
#: the namespaces whose new failures fail the run (the others' rows are shown, with their causes)
GATED = ("xbackend-numpy", "xbackend-torch")


def new_failures(summary: dict[str, Any], gated: tuple[str, ...] = GATED) -> list[dict[str, Any]]:
    """xbackend failures on ``gated`` namespaces that are neither the baseline's own nor listed differences."""
    return [f for suite in summary["xb_failures"].values() for ns, fs in suite.items() if ns in gated
            for f in fs if f["kind"] in _COUNTED]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--suites", default="sklearn,scipy", help="comma-separated: sklearn, scipy")
    ap.add_argument("--namespaces", default=None,
                    help=f"comma-separated (default: all for --selection full, {','.join(CI_NAMESPACES)} for ci)")
    ap.add_argument("--selection", choices=("full", "ci"), default="full")
    ap.add_argument("--tests", default=None,
                    help="comma-separated test ids below the package (one suite), instead of --selection")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="pytest-xdist workers, when installed")
    ap.add_argument("--gate", default=",".join(GATED),
                    help="namespaces whose new failures make the exit status 1 (default: %(default)s)")
    ap.add_argument("--json", type=Path, default=None, help="save the records (and re-render with --from-json)")
    ap.add_argument("--from-json", type=Path, default=None, help="print the tables of a saved run")
    ap.add_argument("--out", type=Path, default=None, help="also write the tables here")
    ap.add_argument("--docs", type=Path, default=None,
                    help=f"also put them into this page between {DOCS_BEGIN!r} and {DOCS_END!r}")
    ap.add_argument("pytest_args", nargs="*", help="after --: passed to pytest (e.g. -k logsumexp)")
    args = ap.parse_args(argv)
    if args.from_json is not None:
        saved = json.loads(args.from_json.read_text())
        reports, namespaces, times = saved["reports"], saved["namespaces"], saved.get("times")
        header = saved.get("header") or (f"{time.strftime('%Y-%m-%d', time.localtime(args.from_json.stat().st_mtime))}"
                                         f": {versions()}")  # a run saved without its header: this environment
    else:
        default = ALL_NAMESPACES if args.selection == "full" else CI_NAMESPACES
        namespaces = args.namespaces.split(",") if args.namespaces else list(default)
        reports, times = {}, {}
        header = f"{time.strftime('%Y-%m-%d')}, selection {args.selection}: {versions()}"
        tmp = Path(tempfile.mkdtemp(prefix="xb-consumers-"))
        for suite in args.suites.split(","):
            path = tmp / f"{suite}.json"
            print(f"{SUITE_TITLES[suite]}: running, pytest's output in {path.with_suffix('.log')}", file=sys.stderr)
            tests = args.tests.split(",") if args.tests else None
            times[suite] = run_suite(suite, namespaces, args.selection, args.jobs, args.pytest_args, path, tests)
            reports[suite] = json.loads(path.read_text())
        if args.json is not None:
            args.json.write_text(json.dumps({"reports": reports, "namespaces": namespaces, "times": times,
                                             "header": header}))  # fmt: skip
    summary = summarise(reports)
    text = tables(summary, namespaces, times, header)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n")
    if args.docs is not None:
        page = args.docs.read_text()
        head, _, rest = page.partition(DOCS_BEGIN + "\n")
        _, _, tail = rest.partition(DOCS_END)
        if not tail:
            raise SystemExit(f"{args.docs} has no {DOCS_BEGIN!r} ... {DOCS_END!r} block")
        args.docs.write_text(f"{head}{DOCS_BEGIN}\n{text}\n{DOCS_END}{tail}")
    return 1 if new_failures(summary, tuple(args.gate.split(","))) else 0


if __name__ == "__main__":
    sys.exit(main())
