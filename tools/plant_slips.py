"""Plant issue 33's six slips by hand, one at a time, and record which test kills each.

    python tools/plant_slips.py                  # every slip, each against its test selection (minutes)
    python tools/plant_slips.py --full           # every slip against the whole suite (pytest -x tests)
    python tools/plant_slips.py box-muller ...   # some slips only (names from SLIPS)

Each slip is a minimal text replacement (``old`` -> ``new``) in one file of a temporary copy of the tree (the
files git tracks or would track: the working tree as it is, never edited); the script stops with an error when
``old`` is not found exactly once, so a slip that no longer matches the code is never reported as killed. The
slip's tests then run in that copy (the whole selection, or ``pytest -x tests`` with ``--full``; one process,
the deterministic ``ci`` hypothesis profile, every usable target unless the slip names some), the file is put
back, and the next slip is planted. A slip is *killed* when a test failed and that test passes on the clean copy
(checked by running it alone); *survived* when every test passed; *error* when pytest could not run (the
output's tail is printed).

Writes ``benchmarks/results/planted_slips.txt``: per slip the file, killed yes/no, the first test that failed,
the selection that ran and its time.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "benchmarks", "results", "planted_slips.txt")
_REFERENCE = ["tests/test_*reference*.py"]  # the independent-reference tests of issue 33, whatever their names


@dataclass(frozen=True)
class Slip:
    name: str
    what: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]  # test files or globs, relative to the root
    backends: str = ""  # XBACKEND_TEST_BACKENDS; "": every usable target (some tests check they all ran)


SLIPS = [
    Slip("box-muller", "Box-Muller cos and sin swapped (variate 2k is r sin t, 2k + 1 is r cos t)",
         "xbackend/random/_draws.py",
         "z = reshape(stack([r * cos(t), r * sin(t)], axis=1), (-1,))",
         "z = reshape(stack([r * sin(t), r * cos(t)], axis=1), (-1,))",
         ("tests/test_random*.py", *_REFERENCE)),
    Slip("lemire-retry", "the Lemire retry drawn from the call's own main stream (counter c + a) instead of the "
         "retry stream c + a * 2**192", "xbackend/random/_draws.py",
         "src.words_at(key, (ctr + attempt * _philox.RETRY_STRIDE) % _philox.C256, pos, width)",
         "src.words_at(key, (ctr + attempt) % _philox.C256, pos, width)",
         ("tests/test_random*.py", *_REFERENCE)),
    Slip("arange-mod", "an integer arange beyond int64 (torch) with `step % 2**64` dropped: a descending one "
         "overflows", "xbackend/_backends/common/arange.py",
         "np.uint64(step % _MOD)", "np.uint64(step)",
         ("tests/test_creation.py", "tests/test_torch_backend.py", "tests/test_parity_cases.py", *_REFERENCE,
          "tests/test_*arange*.py", "tests/test_*exact*.py")),
    Slip("linspace-gh5437", "linspace's gh-5437 branch (step == 0 for a span a few subnormal units wide) taken on "
         "delta == 0 instead", "xbackend/_backends/common/linspace.py",
         "y = y / div * delta if step == 0 else y * step",
         "y = y / div * delta if delta == 0 else y * step",
         ("tests/test_creation.py", "tests/test_parity_cases.py", *_REFERENCE, "tests/test_*linspace*.py",
          "tests/test_*exact*.py")),
    Slip("format-boundary", "Array.__format__ left outside the error boundary (format(x, 'd') raises a bare "
         "ValueError)", "xbackend/_boundary.py",
         '"__array_namespace__", "__format__", "__repr__"',
         '"__array_namespace__", "__repr__"',
         ("tests/test_boundary.py", "tests/test_*boundary*.py", "tests/test_errors.py", "tests/test_error_fixes.py",
          "tests/test_array.py")),
    Slip("grad-cache-key", "xb.grad's cache of the configuration keyed without the configuration (inside "
         "xb.using(default_float=float32) the function keeps the first call's float64)", "xbackend/_grad/transform.py",
         "key = (cur, engine.name, dev)", "key = (engine.name, dev)",
         ("tests/test_grad.py", "tests/test_autograd.py", "tests/test_config.py", "tests/test_*cache*.py",
          "tests/test_*grad*.py")),
]  # fmt: skip


def _files(root: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=root, check=True,
                         capture_output=True).stdout.decode()  # fmt: skip
    return [p for p in out.split("\0") if p and os.path.isfile(os.path.join(root, p))]


def copy_tree(dst: str) -> None:
    for rel in _files(ROOT):
        os.makedirs(os.path.dirname(os.path.join(dst, rel)) or dst, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(dst, rel))


def plant(tree: str, slip: Slip) -> str:
    """Write the slip into ``tree``; return the pristine text (to put back). Refuses a slip that does not match."""
    full = os.path.join(tree, slip.path)
    with open(full) as f:
        text = f.read()
    n = text.count(slip.old)
    if n != 1:
        raise SystemExit(f"slip {slip.name}: {slip.old!r} found {n} times in {slip.path} (expected once): the code "
                         "moved. Fix: update the slip's old/new text in tools/plant_slips.py")  # fmt: skip
    with open(full, "w") as f:
        f.write(text.replace(slip.old, slip.new))
    return text


def selection(tree: str, patterns: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for p in patterns:
        found = sorted(os.path.relpath(f, tree) for f in glob.glob(os.path.join(tree, p))) if "*" in p else [p]
        out += [f for f in found if f not in out and os.path.exists(os.path.join(tree, f))]
    return out


_PLUGIN = """import os


def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.environ["XB_SLIP_FAILED"], "a") as f:
            f.write(report.nodeid + "\\n")
"""


def pytest(tree: str, args: list[str], backends: str, timeout: float, first: bool = True) -> tuple[int, str, list[str]]:
    """Run pytest in ``tree``: its exit status, output and the node ids of the tests that failed (ids may hold
    spaces, which the summary's ``FAILED`` lines do not delimit: a plugin records them)."""
    plugin_dir = os.path.join(tree, ".slip-plugin")
    os.makedirs(plugin_dir, exist_ok=True)
    with open(os.path.join(plugin_dir, "xb_slip_plugin.py"), "w") as f:
        f.write(_PLUGIN)
    failed_file = os.path.join(plugin_dir, "failed.txt")
    if os.path.exists(failed_file):
        os.unlink(failed_file)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tree, plugin_dir]), "PYTHONDONTWRITEBYTECODE": "1",
           "XB_SLIP_FAILED": failed_file,
           "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci"), "OMP_NUM_THREADS": "1"}  # fmt: skip
    env.pop("XBACKEND_TEST_BACKENDS", None)
    if backends:
        env["XBACKEND_TEST_BACKENDS"] = backends
    cmd = [sys.executable, "-m", "pytest", *(["-x"] if first else []), "-q", "-rf", "-p", "no:cacheprovider", "-p",
           "no:xdist", "-o", "addopts=", "-m", "not slow and not gpu", "--tb=line", "-p", "xb_slip_plugin", *args]
    try:
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as exc:
        raw = exc.stdout or ""
        rc, out = -1, raw.decode(errors="replace") if isinstance(raw, bytes) else raw
    failed = []
    if os.path.exists(failed_file):
        with open(failed_file) as f:
            failed = [n for n in f.read().splitlines() if n]
    return rc, out, failed


def check(tree: str, slip: Slip, full: bool, timeout: float) -> dict:
    """Plant, run, put back. A selection runs whole (every test that kills the slip is found, and the first of
    each file named); ``--full`` stops at the first failure (pytest -x over the whole suite)."""
    tests = ["tests"] if full else selection(tree, slip.tests)
    pristine = plant(tree, slip)
    t0 = time.time()
    try:
        rc, out, failed_ids = pytest(tree, tests, slip.backends, timeout, first=full)
    finally:
        with open(os.path.join(tree, slip.path), "w") as f:
            f.write(pristine)
    dur = time.time() - t0
    row = {"slip": slip, "tests": tests, "seconds": dur, "by": "", "killed": "no"}
    if rc == 0:
        return row
    firsts = list({n.split("::")[0]: n for n in reversed(failed_ids)}.values())[::-1]  # the first per file
    if rc == 1 and firsts:
        by, bad = [], []
        for failed in firsts:
            clean_rc, clean_out, _ = pytest(tree, [failed], slip.backends, timeout)
            (by if clean_rc == 0 else bad).append(failed)
            if clean_rc != 0:
                print(clean_out[-2000:], file=sys.stderr)
        more = f" ({len(failed_ids)} failing tests in all)" if len(failed_ids) > len(by) else ""
        if by:
            row.update(killed="yes", by=", ".join(by) + more)
        else:
            row.update(killed="error", by=f"{', '.join(bad)} fail(s) on the clean tree as well")
    else:
        row.update(killed="error", by=f"pytest exit status {rc}" + (" (timeout)" if rc == -1 else ""))
        print(out[-3000:], file=sys.stderr)
    return row


def write(rows: list[dict], full: bool, started: str) -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()  # fmt: skip
    lines = [
        "Issue 33's six slips, planted by hand (tools/plant_slips.py): one at a time in a temporary copy of the tree,",
        "each against " + ("the whole suite (pytest -x tests)." if full else "its test selection (below), run whole."),
        f"tree: {head.strip()}{' with uncommitted changes' if dirty else ''}; {started}; hypothesis profile "
        f"{os.environ.get('HYPOTHESIS_PROFILE', 'ci')!r}; -m 'not slow and not gpu'; one process.",
        "killed: yes = a test failed and passes alone on the clean copy (the first failing test of each file is "
        "named); no = every test of the selection passed; error = pytest could not run, or the failing tests fail "
        "on the clean copy too.",
        "",
        f"{'slip':<16} {'file':<38} {'killed':<6} {'s':>5}  by",
        "-" * 100,
    ]
    for r in rows:
        s = r["slip"]
        lines.append(f"{s.name:<16} {s.path:<38} {r['killed']:<6} {r['seconds']:>5.0f}  {r['by'] or '-'}")
    lines += ["", "The slips (old -> new) and the selections that ran (XBACKEND_TEST_BACKENDS):"]
    for r in rows:
        s = r["slip"]
        lines += [f"  {s.name}: {s.what}", f"      {s.path}: {s.old!r}", f"      -> {s.new!r}",
                  f"      tests ({s.backends or 'every usable target'}): {' '.join(r['tests'])}"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("slips", nargs="*", help="slip names (default: all): " + ", ".join(s.name for s in SLIPS))
    ap.add_argument("--full", action="store_true", help="run the whole suite (pytest -x tests) for each slip")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per pytest run (default 1800)")
    ap.add_argument("--out", default=OUT, help="the results file (default benchmarks/results/planted_slips.txt)")
    a = ap.parse_args(argv)
    unknown = set(a.slips) - {s.name for s in SLIPS}
    if unknown:
        raise SystemExit(f"unknown slips {sorted(unknown)}; known: {[s.name for s in SLIPS]}")
    chosen = [s for s in SLIPS if not a.slips or s.name in a.slips]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = []
    with tempfile.TemporaryDirectory(prefix="xb-slips-") as tree:
        copy_tree(tree)
        for s in chosen:  # every slip must match before any test runs
            with open(os.path.join(tree, s.path)) as f:
                if f.read().count(s.old) != 1:
                    plant(tree, s)  # raises with the reason
        for s in chosen:
            row = check(tree, s, a.full, a.timeout)
            print(f"{s.name:<16} killed={row['killed']:<5} {row['seconds']:.0f} s  {row['by']}", flush=True)
            rows.append(row)
    text = write(rows, a.full, started)
    with open(a.out, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
