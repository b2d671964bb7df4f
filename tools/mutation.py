"""Mutation testing over every core module, one command (docs/contributing.md, "Mutation testing").

    python tools/mutation.py run _rules _dtypes ...   # mutate these modules (names from MODULES; "all" = every one)
    python tools/mutation.py run --only swaps _arange # one family only: mutmut or swaps
    python tools/mutation.py table                    # the table from the last runs (benchmarks/results/mutation.txt)
    python tools/mutation.py survivors _rules         # the diff of every non-equivalent survivor
    python tools/mutation.py report                   # write benchmarks/results/mutation.txt

Two families of mutants per module: mutmut's one-token changes, then the swap mutants of tools/mutation_ops.py
(cos <-> sin, ``<`` <-> ``<=``, swapped operands and arguments, a dropped modulo, a dropped key field: the slips
of issue 33 that mutmut never makes), run by tools/mutation_swaps.py on the same coverage map and server.
Tables: tools/mutation_table.py; every row states its sample (tested of all, rule, seed ``XB_MUT_SEED``) and the
hypothesis examples per test (``XB_MUT_PROFILE``: ``mutation`` = 10, ``ci`` = 40).

mutmut 2.x edits the source in place: run this in a scratch copy or a worktree of your own, never in a tree
you are editing. It keeps its state in ``.mutmut-cache`` and ``.mutation/`` (both git-ignored); a second ``run``
re-tests only the survivors (mutmut's cache; the swaps' own file, unless ``XB_MUT_FRESH=1``), so the loop is: run,
read the survivors, add tests, run again.

Why it is fast enough for ~8,000 mutants on two cores:

1. **Per-line test selection.** Before a module is mutated, its test subset (``MODULES``: test files and the
   backends, NumPy only where the module allows) runs once under coverage with one coverage context per test.
   A mutant then runs only the tests that executed its line in that run, fastest first, one per test function
   before any second parametrisation, until ``CAP_S`` seconds of measured test time. A test that never executes
   a line cannot see a mutation of it, so this loses nothing but the cap; a line no test executes survives
   without running anything (mutmut's status for it is *survived*, which is what it is). Lines that run at
   import time (``def`` lines, defaults, tables) take the tests of the function they define, or of the whole
   module.
2. **A fork server.** NumPy, pytest, hypothesis and (where a module needs them) torch and Dask are imported
   once by a server process; each mutant's pytest runs in a fresh fork of it, which imports the mutated
   ``xbackend`` from disk. ``-p no:xdist``, no addopts, the deterministic ``ci`` hypothesis profile.
3. **Sampling** of the largest modules (``sample``: a mutant is tested when a hash of its file, source line and
   index falls in the sample; the others are mutmut's *skipped*). The table says which.

Equivalent mutants (a change with no observable behaviour) are data: ``tools/mutation_equivalents.txt``, one
per line as ``path<TAB>index<TAB>source line<TAB>reason``. The table reports the survival rate of the others.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import socket
import sys
from typing import Iterator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATE = os.path.join(ROOT, ".mutation")
SOCK = os.path.join(STATE, "server.sock")
CAP_S = float(os.environ.get("XB_MUT_CAP_S", "6"))  # measured test seconds per mutant at most
SEED = os.environ.get("XB_MUT_SEED", "")  # salts the sample's hash: another seed, another sample of the same size
# a time-boxed run: every module's k times this (a subset of the full sample, since sha1 % (k t) == 0 implies
# sha1 % k == 0); the table states the k each row ran with
THIN = max(1, int(os.environ.get("XB_MUT_THIN", "1")))
EQUIVALENTS = os.path.join(ROOT, "tools", "mutation_equivalents.txt")
TABLE = os.path.join(ROOT, "benchmarks", "results", "mutation.txt")

_NP = "numpy"
_NT = "numpy,torch"
_S = True  # mutmut's string mutations (``"a"`` -> ``"XXaXX"``) on: the module's strings are names with a meaning
_M = False  # off: the module's strings are messages (a ``match=`` search still finds an XX-wrapped message)
# (with _S, the messages of ``raise`` statements are still skipped: tools/mutmut_config.message_only)
# name: (path, backends the subset runs on, test files, sample: 1 = every mutant, k = about one in k, strings)
_COERCE_TESTS = ["tests/test_coerce.py", "tests/test_parity_cases.py", "tests/test_creation.py",
                 "tests/test_elementwise.py", "tests/test_array.py", "tests/test_errors.py",
                 "tests/test_indexing.py", "tests/test_call_budgets.py"]  # the one way in (a package)
#: the call-budget guard (Python calls per public call, counted in a subprocess, so no coverage context shows it): run
#: for every mutant of a module on the hot path, as a slower path that gives the same result is a regression too
BUDGET_TEST = "tests/test_call_budgets.py::test_every_sweep_entry_stays_within_its_call_budget"
#: a line that at most this many tests ran also takes the module's own test files (see Selector.select)
FEW = 2
# the random draws (the CUDA/CuPy sources only run on a GPU: not mutated here); globs take in the reference tests
_RANDOM = ["tests/test_random.py", "tests/test_random*.py", "tests/test_*reference*.py"]
# array-api-strict too: NumPy's and torch's sources draw through fast paths, and the portable code of _draws (the
# one a library without an engine module runs, as CuPy's fallback) runs on CPU only there
_RND = "numpy,torch,array_api_strict"
MODULES: dict[str, tuple[str, str, list[str], int, bool]] = {
    "_assign": ("xbackend/_assign.py", _NT, ["tests/test_indexing.py", "tests/test_array.py",
                                            "tests/test_parity_cases.py", "tests/test_errors.py"], 1, _S),
    "_args": ("xbackend/_args.py", _NP, ["tests/test_args.py", "tests/test_creation.py", "tests/test_manipulation.py",
                                        "tests/test_errors.py", "tests/test_parity_cases.py",
                                        "tests/test_statistical.py", "tests/test_searching.py",
                                        "tests/test_random.py", "tests/test_linalg.py", "tests/test_fft.py"], 1, _S),
    "_coerce_asarray": ("xbackend/_coerce/_asarray.py", _NT, _COERCE_TESTS, 2, _S),
    "_coerce_operands": ("xbackend/_coerce/_operands.py", _NT, _COERCE_TESTS, 2, _S),
    "_coerce_scalars": ("xbackend/_coerce/_scalars.py", _NT, _COERCE_TESTS, 1, _S),
    "_coerce_sequences": ("xbackend/_coerce/_sequences.py", _NT, _COERCE_TESTS, 2, _S),
    "_coerce_keys": ("xbackend/_coerce/_keys.py", _NT, _COERCE_TESTS, 2, _S),
    "_coerce_natives": ("xbackend/_coerce/_natives.py", _NT, _COERCE_TESTS, 1, _S),
    "_coerce_place": ("xbackend/_coerce/_place.py", _NT, _COERCE_TESTS, 2, _S),
    "_boundary": ("xbackend/_boundary.py", _NT, ["tests/test_boundary*.py", "tests/test_errors.py",
                                                "tests/test_error_fixes.py", "tests/test_parity_cases.py",
                                                "tests/test_linalg.py", "tests/test_fft.py"], 2, _M),
    "_rules": ("xbackend/_rules.py", _NP, ["tests/test_dtypes.py", "tests/test_elementwise.py",
                                          "tests/test_statistical.py", "tests/test_linalg.py",
                                          "tests/test_call_budgets.py"], 3, _S),
    "_dtypes": ("xbackend/_dtypes.py", _NP, ["tests/test_dtypes.py", "tests/test_call_budgets.py",
                                            "tests/test_errors.py", "tests/test_habits.py",
                                            "tests/test_elementwise.py", "tests/test_creation.py",
                                            "tests/test_array.py", "tests/test_info.py"], 5, _S),
    "_devices": ("xbackend/_devices.py", _NT, ["tests/test_devices.py", "tests/test_interchange.py",
                                              "tests/test_creation.py", "tests/test_errors.py"], 2, _S),
    "_keys": ("xbackend/_backends/common/keys.py", "numpy,torch,dask", ["tests/test_indexing.py", "tests/test_dask.py",
                                                                       "tests/test_parity_cases.py"], 1, _M),
    "_creation": ("xbackend/_creation.py", "numpy,torch,dask", ["tests/test_creation.py", "tests/test_parity_cases.py",
                                                               "tests/test_errors.py", "tests/test_config.py",
                                                               "tests/test_dask.py", "tests/test_call_budgets.py",
                                                               "tests/test_*reference*.py"], 12, _M),
    "dask": ("xbackend/_backends/dask", "dask", ["tests"], 12, _M),  # the backend, its graph tasks, linalg, indexing
    # the backend and its blocks: what CI runs on Cubed (its own tests, the parity generator, the lazy refusals)
    "cubed": ("xbackend/_backends/cubed", "numpy,cubed", ["tests/test_cubed.py", "tests/test_parity_cubed.py",
                                                          "tests/test_interchange.py", "tests/test_info.py",
                                                          "tests/test_dtypes.py"], 3, _M),
    "_torch_uint": ("xbackend/_backends/torch/uint.py", "torch", ["tests/test_elementwise.py", "tests/test_array.py",
                                                                  "tests/test_dtypes.py", "tests/test_statistical.py",
                                                                  "tests/test_sorting.py", "tests/test_searching.py",
                                                                  "tests/test_parity_cases.py",
                                                                  "tests/test_*exact*.py"], 5, _M),
    "_torch_jit": ("xbackend/_backends/torch/jit.py", _NT, ["tests/test_jit_contract.py", "tests/test_jit.py"], 3, _M),
    "_jit": ("xbackend/_jit.py", _NT, ["tests/test_jit_contract.py", "tests/test_jit.py"], 4, _M),
    "_transfer": ("xbackend/_transfer.py", _NT, ["tests/test_transfer.py", "tests/test_gpu_fixes.py"], 6, _M),
    "numpy": ("xbackend/_backends/numpy/backend.py", _NP, ["tests"], 10, _M),
    "_numpy_kernels": ("xbackend/_backends/numpy/kernels.py", _NP, ["tests"], 10, _M),
    "torch": ("xbackend/_backends/torch/backend.py", "torch", ["tests"], 8, _M),
    "_torch_reductions": ("xbackend/_backends/torch/reductions.py", "torch", ["tests"], 8, _M),
    "testing": ("xbackend/testing", _NT, ["tests/test_testing_kit.py", "tests/test_plugin.py",
                                         "tests/test_diverge*.py", "tests/test_differential.py"], 10, _M),
    # issue 33: the code xbackend computes itself, whose slips agree with themselves on every backend
    "_linspace": ("xbackend/_backends/common/linspace.py", _NT, ["tests/test_creation.py", "tests/test_parity_cases.py",
                                                               "tests/test_*reference*.py", "tests/test_*exact*.py"],
                  1, _M),
    "_arange": ("xbackend/_backends/common/arange.py", _NT, ["tests/test_creation.py", "tests/test_torch_backend.py",
                                                           "tests/test_parity_cases.py", "tests/test_*reference*.py",
                                                           "tests/test_*exact*.py"], 1, _M),
    "_grad": ("xbackend/_grad", _NT, ["tests/test_grad*.py", "tests/test_autograd.py", "tests/test_*cache*.py",
                                     "tests/test_habits.py", "tests/test_error_fixes.py", "tests/test_diverge.py",
                                     "tests/test_boundary.py"], 3, _M),
    "random_draws": ("xbackend/random/_draws.py", _RND, _RANDOM, 2, _M),
    "random_philox": ("xbackend/random/_philox.py", _RND, _RANDOM, 2, _M),
    "random_generator": ("xbackend/random/_generator.py", _RND, _RANDOM, 4, _M),
    "random_engine": ("xbackend/random/_engine.py", _RND, _RANDOM, 2, _M),
    "random_source": ("xbackend/random/_source.py", _RND, _RANDOM, 1, _M),
    "random_numpy": ("xbackend/random/_numpy.py", _NT, _RANDOM, 2, _M),
    "random_torch": ("xbackend/random/_torch.py", "torch", ["tests/test_random_torch*.py"] + _RANDOM, 4, _M),
    "random_dask": ("xbackend/random/_dask.py", "numpy,dask", _RANDOM, 2, _M),
    "random_chunks": ("xbackend/random/_chunks.py", "numpy,dask", _RANDOM, 1, _M),
    "random_cubed": ("xbackend/random/_cubed.py", "numpy,cubed", ["tests/test_cubed.py"], 1, _M),
}
#: swap mutants (tools/mutation_ops.py): about one in k tested (1: all); fewer per line than mutmut's, so most run all
# (issue 33's modules - random_*, _linspace, _arange, _boundary, _grad - run all but the two largest random ones)
SWAP_SAMPLE: dict[str, int] = {"dask": 4, "numpy": 3, "_numpy_kernels": 3, "torch": 3, "_torch_reductions": 3,
                               "testing": 6, "_creation": 3, "_transfer": 2, "_coerce_asarray": 2, "_dtypes": 2,
                               "_jit": 2, "random_generator": 2, "random_torch": 2}
_WIDE = ["tests/test_elementwise.py", "tests/test_statistical.py", "tests/test_indexing.py", "tests/test_manipulation.py",
         "tests/test_linalg.py", "tests/test_fft.py", "tests/test_sorting.py", "tests/test_searching.py",
         "tests/test_set.py", "tests/test_creation.py", "tests/test_array.py", "tests/test_parity_cases.py"]
_REF = ["tests/test_*reference*.py", "tests/test_call_budgets.py"]  # the independent references; the call budgets
_DASK_TESTS = ["tests/test_dask.py", *_WIDE, "tests/test_error_fixes.py", "tests/test_info.py", *_REF]
MODULES["dask"] = MODULES["dask"][:2] + (_DASK_TESTS,) + MODULES["dask"][3:]
MODULES["numpy"] = MODULES["numpy"][:2] + (["tests/test_numpy_backend.py", *_WIDE, *_REF],) + MODULES["numpy"][3:]
MODULES["_numpy_kernels"] = (MODULES["_numpy_kernels"][:2] + (["tests/test_np_rules.py", *_WIDE, *_REF],)
                             + MODULES["_numpy_kernels"][3:])
_TORCH = ["tests/test_torch_backend.py", "tests/test_numpy_backend.py", "tests/test_autograd.py",
          "tests/test_interchange.py", "tests/test_torch_*.py", *_WIDE, *_REF]
MODULES["torch"] = MODULES["torch"][:2] + (_TORCH,) + MODULES["torch"][3:]
MODULES["_torch_reductions"] = MODULES["_torch_reductions"][:2] + (_TORCH,) + MODULES["_torch_reductions"][3:]
_PREIMPORT = ["torch", "dask", "dask.array", "dask.base", "ml_dtypes", "array_api_strict", "scipy", "scipy.special",
              "hypothesis.extra.array_api"]


def sample(mod: str, family: str) -> int:
    """The k of ``mod``'s sample for ``family`` ("mutmut" or "swaps"): about one mutant in k is tested."""
    k = MODULES[mod][3] if family == "mutmut" else SWAP_SAMPLE.get(mod, 1)
    return k * THIN


def _config_key(mod: str) -> str:
    backends = MODULES[mod][1]
    return backends.replace(",", "+") + "-" + mod


# ---------------------------------------------------------------- the client (run by mutmut per mutant: stdlib only)
def client(args_file: str) -> int:
    """Send one pytest argument list to the server; exit 0 (passed) or 1 (failed), as mutmut expects."""
    with open(args_file) as f:
        args = json.load(f)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(SOCK)
    s.sendall(json.dumps(args).encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = s.recv(64)
        if not chunk:
            return 3  # the server went away: neither killed nor survived (mutmut: survived; rerun)
        reply += chunk
    return int(reply)


# ---------------------------------------------------------------- the server
def serve(backends: str) -> None:
    """Import the heavy libraries once, then fork a fresh pytest per request (it imports xbackend itself)."""
    import contextlib
    import importlib.util
    import select
    import signal
    import time

    os.environ["XBACKEND_TEST_BACKENDS"] = backends
    # 10 derandomised examples per test (tests/conftest.py); XB_MUT_PROFILE=ci re-checks survivors with 40
    os.environ["HYPOTHESIS_PROFILE"] = os.environ.get("XB_MUT_PROFILE", "mutation")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("SCIPY_ARRAY_API", "1")  # as tests/conftest.py sets it, before SciPy's import reads it
    import hypothesis  # noqa: F401
    import hypothesis.extra.numpy  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401

    # the plugin probes every backend while collecting (xbackend.testing._targets), whatever the selection: import
    # them all once here (about 9 s a mutant otherwise)
    for module in _PREIMPORT:
        try:
            __import__(module)
        except ImportError:
            pass
    assert not any(m == "xbackend" or m.startswith("xbackend.") for m in sys.modules)
    if os.path.exists(SOCK):
        os.unlink(SOCK)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(SOCK)
    srv.listen(1)
    log = os.path.join(STATE, "last-run.log")
    while True:
        conn, _ = srv.accept()
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        if not data.endswith(b"\n"):
            conn.close()
            continue
        request = json.loads(data)
        if request == "stop":
            conn.sendall(b"0\n")
            conn.close()
            return
        pid = os.fork()
        if pid == 0:  # the child: a fresh pytest
            os.setpgid(0, 0)
            code = 1
            # the mutated module's .pyc: its header holds the source's mtime (seconds) and size, which a mutant
            # written in the same second with the same size as the previous one would match
            for path in os.environ.get("XB_MUT_PATHS", "").split(os.pathsep):
                if path:
                    with contextlib.suppress(OSError):
                        os.unlink(importlib.util.cache_from_source(path))
            try:
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                code = _child(request)
            except BaseException:  # os._exit below would swallow it: the log says why the run failed
                import traceback

                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        status = None
        while status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                break
            readable, _, _ = select.select([conn], [], [], 0.02)
            if readable and not conn.recv(1):  # mutmut's timeout killed the client: stop the test run too
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                break
        if status is not None:
            code = os.waitstatus_to_exitcode(status)
            try:
                conn.sendall(b"%d\n" % (0 if code == 0 else 1))
            except OSError:
                pass
        conn.close()
        time.sleep(0)


def _child(request: dict | list) -> int:
    import pytest

    if isinstance(request, dict):  # the coverage map run
        return _map_run(request)
    rc = pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", *request])
    return 0 if rc == 0 else 1


def _map_run(request: dict) -> int:
    """Run the subset under coverage, one context per test; write lines -> tests and each test's outcome."""
    import importlib

    import coverage
    import pytest

    cov = coverage.Coverage(data_file=None, include=request["include"], config_file=False)
    cov.start()
    import xbackend  # noqa: F401  (import-time lines get the empty context)

    for name in request["modules"]:
        importlib.import_module(name)
    tests: dict[str, dict] = {}

    class Contexts:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):  # noqa: ANN001
            cov.switch_context(item.nodeid)
            yield
            cov.switch_context("")

        def pytest_runtest_logreport(self, report):  # noqa: ANN001
            t = tests.setdefault(report.nodeid, {"dur": 0.0, "ok": True})
            t["dur"] += report.duration
            if report.outcome == "failed":
                t["ok"] = False

    rc = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "addopts=", "-m", "not slow and not gpu",
                      *request["tests"]], plugins=[Contexts()])
    cov.stop()
    data = cov.get_data()
    lines = {}
    for path in data.measured_files():
        rel = os.path.relpath(path, ROOT)
        lines[rel] = {str(n): sorted(c) for n, c in data.contexts_by_lineno(path).items()}
    with open(request["out"], "w") as f:
        json.dump({"tests": tests, "lines": lines, "rc": int(rc)}, f)
    return 0


def _send(request: object) -> int:
    args_file = os.path.join(STATE, "request.json")
    with open(args_file, "w") as f:
        json.dump(request, f)
    return client(args_file)


# ---------------------------------------------------------------- selecting tests for a line (used by mutmut_config)
def _headers(path: str) -> list[tuple[int, int, int, int]]:
    """(first header line, last header line, body first, body last) of every def/class in the file."""
    import ast

    with open(os.path.join(ROOT, path)) as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            body = node.body[0]
            if isinstance(body, ast.Expr) and isinstance(getattr(body, "value", None), ast.Constant) and len(node.body) > 1:
                body = node.body[1]  # skip the docstring
            out.append((first, body.lineno - 1, body.lineno, node.end_lineno or body.lineno))
    return out


def _statements(path: str) -> list[tuple[int, int]]:
    """(first line, last line) of every statement; a compound statement's header only (not its body)."""
    import ast

    with open(os.path.join(ROOT, path)) as f:
        tree = ast.parse(f.read())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                out.append((node.lineno, body[0].lineno - 1))
            else:
                out.append((node.lineno, node.end_lineno or node.lineno))
    return out


def _order(nodeids: set[str], tests: dict[str, dict], own: frozenset[str] = frozenset(),
           first: frozenset[str] | set[str] = frozenset()) -> list[str]:  # fmt: skip
    """Fastest first, one per test function before any second parametrisation, up to CAP_S measured seconds;
    the tests in ``first`` (those that executed the line) before all others, then with ``own`` (test files)
    those files' tests before any other's."""
    usable = sorted((n not in first, n.partition("::")[0] not in own, tests[n]["dur"], n)
                    for n in nodeids if n in tests and tests[n]["ok"])  # fmt: skip
    firsts, rest, seen = [], [], set()
    for _first, _own, dur, n in usable:
        fn = n.split("[", 1)[0]
        (rest if fn in seen else firsts).append((dur, n))
        seen.add(fn)
    picked, total = [], 0.0
    for dur, n in firsts + rest:
        if picked and total + dur > CAP_S:
            continue
        picked.append(n)
        total += dur
    return picked


class Selector:
    """Line number -> the node ids to run, from a module's coverage map."""

    def __init__(self, mod: str) -> None:
        # the module's own test files (its first entry, a glob): first for lines that run at import, and all of
        # them for those lines (a test of what the import built - a wrapper's signature - never runs the line)
        self.own = frozenset(os.path.relpath(f, ROOT) for f in glob.glob(os.path.join(ROOT, MODULES[mod][2][0])))
        with open(os.path.join(STATE, f"map-{_config_key(mod)}.json")) as f:
            m = json.load(f)
        self.tests = m["tests"]
        self.lines = {p: {int(k): set(v) for k, v in ls.items()} for p, ls in m["lines"].items()}
        self.headers: dict[str, list[tuple[int, int, int, int]]] = {}
        self.statements: dict[str, list[tuple[int, int]]] = {}

    def covering(self, path: str, first: int, last: int) -> set[str]:
        out: set[str] = set()
        for n, ctx in self.lines.get(path, {}).items():
            if first <= n <= last:
                out |= ctx
        out.discard("")
        return out

    def select(self, path: str, lineno: int) -> list[str]:
        ctx = self.lines.get(path, {}).get(lineno)
        if ctx is None:  # a continuation line of a statement (coverage reports statements by their first line)
            if path not in self.statements:
                self.statements[path] = _statements(path)
            spans = [sp for sp in self.statements[path] if sp[0] <= lineno <= sp[1]]
            if spans:
                first, last = min(spans, key=lambda sp: sp[1] - sp[0])
                found = [self.lines.get(path, {}).get(n) for n in range(first, last + 1)]
                ctx = set().union(*(c for c in found if c)) if any(found) else None
        if ctx is None:
            return []
        if "" in ctx:  # runs at import: the tests of the def/class it heads, else the module's tests
            if path not in self.headers:
                self.headers[path] = _headers(path)
            inner = [h for h in self.headers[path] if h[0] <= lineno <= h[1]]
            if inner:
                h = max(inner, key=lambda h: h[0])
                ctx = ctx | self.covering(path, h[2], h[3])
            else:  # a module-level table or constant: every test of the module may read it
                ctx = ctx | self.covering(path, 0, 10**9)
            ran = ctx - {""}
            ctx = ctx | {n for n in self.tests if n.partition("::")[0] in self.own}
            return self._with_budget(_order(ctx - {""}, self.tests, self.own, ran))
        if len(ctx - {""}) <= FEW:  # maybe a line that runs once per process (a cached object's __init__): the map
            # names the first test that got there, so the module's own tests run too (after the ones it names)
            ran = ctx - {""}
            ctx = ctx | {n for n in self.tests if n.partition("::")[0] in self.own}
            return self._with_budget(_order(ctx - {""}, self.tests, self.own, ran))
        return self._with_budget(_order(ctx - {""}, self.tests))

    def _with_budget(self, ids: list[str]) -> list[str]:
        """``ids``, then the call-budget guard where the module's subset has it (it runs a subprocess: no line of
        the module is ever attributed to it)."""
        return ids + [BUDGET_TEST] if ids and BUDGET_TEST in self.tests and BUDGET_TEST not in ids else ids


# ---------------------------------------------------------------- orchestration
def _paths(mod: str) -> list[str]:
    path = MODULES[mod][0]
    if path.endswith(".py"):
        return [path]
    return sorted(os.path.join(path, f) for f in os.listdir(os.path.join(ROOT, path)) if f.endswith(".py"))


def _modname(path: str) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


def _tests(mod: str) -> list[str]:
    """The module's test files, globs expanded (``tests/test_random*.py`` takes new reference tests in)."""
    import glob

    out: list[str] = []
    for t in MODULES[mod][2]:
        found = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, t))) if "*" in t else [t]
        out += [p for p in found if p not in out]
    return out


def examples(profile: str) -> int:
    """``max_examples`` of a hypothesis profile of tests/conftest.py (tests/test_mutation_tool.py checks them)."""
    return {"mutation": 10, "gpu": 10, "quick": 10, "ci": 40, "dev": 40, "explore": 1000, "thorough": 1000}[profile]


def _record(mod: str, family: str, **extra: object) -> None:
    """How a family's figures of ``mod`` were made (tools/mutation_table.py prints it next to them)."""
    import time

    path = os.path.join(STATE, f"meta-{mod}.json")
    info = {}
    if os.path.exists(path):
        with open(path) as f:
            info = json.load(f)
    profile = os.environ.get("XB_MUT_PROFILE", "mutation")
    info[family] = {"date": time.strftime("%Y-%m-%d"), "profile": profile, "max_examples": examples(profile),
                    "cap_s": CAP_S, "seed": SEED, **extra}
    with open(path, "w") as f:
        json.dump(info, f, indent=1)


@contextlib.contextmanager
def serving(mod: str) -> Iterator[Selector]:
    """The fork server for ``mod``'s test subset, and the coverage map of that subset (its Selector)."""
    import subprocess
    import time

    os.makedirs(STATE, exist_ok=True)
    backends = MODULES[mod][1]
    t0 = time.time()
    if os.path.exists(SOCK):
        os.unlink(SOCK)
    paths = _paths(mod)
    server = subprocess.Popen([sys.executable, __file__, "serve", backends], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": ROOT,
                                   "XB_MUT_PATHS": os.pathsep.join(os.path.join(ROOT, p) for p in paths)})
    try:
        for _ in range(600):
            if os.path.exists(SOCK):
                break
            time.sleep(0.1)
        out = os.path.join(STATE, f"map-{_config_key(mod)}.json")
        _send({"include": [os.path.join(ROOT, p) for p in paths], "modules": [_modname(p) for p in paths],
               "tests": _tests(mod), "out": out})
        if not os.path.exists(out):
            with open(os.path.join(STATE, "last-run.log")) as f:
                raise SystemExit(f"[{mod}] the coverage map run failed (needs coverage and mutmut 2.5.1: "
                                 f"requirements/dev.txt):\n{f.read()[-3000:]}")
        with open(out) as f:
            m = json.load(f)
        bad = sorted(n for n, t in m["tests"].items() if not t["ok"])
        print(f"[{mod}] coverage map: {len(m['tests'])} tests, {len(bad)} failing (left out), "
              f"{time.time() - t0:.0f} s", flush=True)
        for n in bad[:20]:
            print("   failing:", n, flush=True)
        yield Selector(mod)
    finally:
        try:
            _send("stop")
        except OSError:
            pass
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def run(mods: list[str], families: tuple[str, ...] = ("mutmut", "swaps")) -> None:
    """Each module's mutmut mutants, then its swap mutants (tools/mutation_swaps.py), on one coverage map."""
    import subprocess
    import time

    import mutation_swaps
    import mutation_table

    for mod in mods:
        path, backends, tests, _k, strings = MODULES[mod]
        t0 = time.time()
        with serving(mod) as sel:
            paths = _paths(mod)
            if "mutmut" in families:
                baseline = _order(set().union(*(sel.covering(p, 0, 10**9) for p in paths)), sel.tests)
                with open(os.path.join(STATE, "baseline.json"), "w") as f:
                    json.dump(baseline or ["tests/test_info.py"], f)
                _reset_survivors(mod)  # a survivor is always re-tested (mutmut would only when the tests' hash changed)
                env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.path.join(ROOT, "tools")]),
                       "XB_MUT_MODULE": mod}
                runner = f"{sys.executable} -S {__file__} client {os.path.join(STATE, 'baseline.json')}"
                cmd = [sys.executable, "-m", "mutmut", "run", "--paths-to-mutate", ",".join(paths), "--tests-dir",
                       "tests", "--runner", runner, "--no-progress"]
                if not strings:
                    cmd.append("--disable-mutation-types=string,fstring")
                proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
                with open(os.path.join(STATE, "mutmut.pgid"), "w") as f:
                    f.write(str(proc.pid))
                proc.wait()
                _record(mod, "mutmut", k=sample(mod, "mutmut"))
            if "swaps" in families:
                mutation_swaps.run_swaps(mod, sel)
                _record(mod, "swaps", k=sample(mod, "swaps"))
        print(f"[{mod}] done in {time.time() - t0:.0f} s", flush=True)
        print(mutation_table.table([mod]), flush=True)


def _reset_survivors(mod: str) -> None:
    import sqlite3

    if not os.path.exists(os.path.join(ROOT, ".mutmut-cache")):
        return
    db = sqlite3.connect(os.path.join(ROOT, ".mutmut-cache"))
    with db:
        for path in _paths(mod):
            db.execute("UPDATE Mutant SET status = 'untested' WHERE status IN ('bad_survived', 'bad_timeout') AND line IN "
                       "(SELECT l.id FROM Line l JOIN SourceFile s ON l.sourcefile = s.id WHERE s.filename = ?)", (path,))


def stop() -> None:
    """End a run (mutmut, its worker, the server) and put back any source file it had mutated."""
    import glob
    import signal

    for name in ("mutmut.pgid",):
        try:
            with open(os.path.join(STATE, name)) as f:
                os.killpg(int(f.read()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
    try:
        _send("stop")
    except OSError:
        pass
    import time

    time.sleep(1)
    for bak in glob.glob(os.path.join(ROOT, "xbackend", "**", "*.py.bak"), recursive=True):
        os.replace(bak, bak[:-4])
        print("restored", os.path.relpath(bak[:-4], ROOT))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "client":
        sys.exit(client(rest[0]))
    if cmd == "serve":
        serve(rest[0])
        sys.exit(0)
    import mutation_table as T

    if cmd == "run":  # run [--only mutmut|swaps] MODULE... | all
        fam = ("mutmut", "swaps")
        if rest[:1] == ["--only"]:
            fam, rest = (rest[1],), rest[2:]
        run(list(MODULES) if rest == ["all"] else rest, fam)
    elif cmd == "mark":  # mark ID REASON: record a mutmut survivor as equivalent
        T.mark(int(rest[0]), " ".join(rest[1:]))
    elif cmd == "mark-swap":  # mark-swap MODULE N REASON: swap survivor N (as `survivors` numbers it)
        T.mark_swap(rest[0], int(rest[1]), " ".join(rest[2:]))
    elif cmd == "stop":
        stop()
    elif cmd == "report":  # the committed results file
        T.report()
    elif cmd == "table":
        print(T.table(rest or list(MODULES)))
    elif cmd == "survivors":
        T.survivors(rest[0], show_equivalent="--all" in rest)
    else:
        raise SystemExit(__doc__)
