"""Mutation testing over every core module, one command (docs/contributing.md, "Mutation testing").

    python tools/mutation.py run _rules _dtypes ...   # mutate these modules (names from MODULES; "all" = every one)
    python tools/mutation.py table                    # the table from the last runs (benchmarks/results/mutation.txt)
    python tools/mutation.py survivors _rules         # the diff of every non-equivalent survivor

mutmut 2.x edits the source in place: run this in a scratch copy or a worktree of your own, never in a tree
you are editing. It keeps its state in ``.mutmut-cache`` and ``.mutation/`` (both git-ignored); a second ``run``
re-tests only the survivors (mutmut's cache), so the loop is: run, read the survivors, add tests, run again.

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

import json
import os
import socket
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATE = os.path.join(ROOT, ".mutation")
SOCK = os.path.join(STATE, "server.sock")
CAP_S = float(os.environ.get("XB_MUT_CAP_S", "6"))  # measured test seconds per mutant at most
EQUIVALENTS = os.path.join(ROOT, "tools", "mutation_equivalents.txt")
TABLE = os.path.join(ROOT, "benchmarks", "results", "mutation.txt")

_NP = "numpy"
_NT = "numpy,torch"
_S = True  # mutmut's string mutations (``"a"`` -> ``"XXaXX"``) on: the module's strings are names with a meaning
_M = False  # off: the module's strings are messages (a ``match=`` search still finds an XX-wrapped message)
# name: (path, backends the subset runs on, test files, sample: 1 = every mutant, k = about one in k, strings)
_COERCE_TESTS = ["tests/test_coerce.py", "tests/test_parity_cases.py", "tests/test_creation.py",
                 "tests/test_elementwise.py", "tests/test_array.py", "tests/test_errors.py",
                 "tests/test_indexing.py"]  # the one way in (a package)
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
    "_boundary": ("xbackend/_boundary.py", _NT, ["tests/test_boundary.py", "tests/test_errors.py", "tests/test_error_fixes.py",
                                                "tests/test_parity_cases.py", "tests/test_linalg.py",
                                                "tests/test_fft.py"], 2, _M),
    "_rules": ("xbackend/_rules.py", _NP, ["tests/test_dtypes.py", "tests/test_elementwise.py",
                                          "tests/test_statistical.py", "tests/test_linalg.py"], 3, _S),
    "_dtypes": ("xbackend/_dtypes.py", _NP, ["tests/test_dtypes.py", "tests/test_errors.py",
                                            "tests/test_elementwise.py", "tests/test_creation.py",
                                            "tests/test_array.py", "tests/test_info.py"], 5, _S),
    "_devices": ("xbackend/_devices.py", _NT, ["tests/test_devices.py", "tests/test_interchange.py",
                                              "tests/test_creation.py", "tests/test_errors.py"], 2, _S),
    "_keys": ("xbackend/_backends/common/keys.py", "numpy,torch,dask", ["tests/test_indexing.py", "tests/test_dask.py",
                                                                       "tests/test_parity_cases.py"], 1, _M),
    "_creation": ("xbackend/_creation.py", _NT, ["tests/test_creation.py", "tests/test_parity_cases.py",
                                                "tests/test_errors.py", "tests/test_config.py"], 12, _M),
    "dask": ("xbackend/_backends/dask", "dask", ["tests"], 12, _M),  # the backend, its graph tasks, linalg, indexing
    "_torch_uint": ("xbackend/_backends/torch/uint.py", "torch", ["tests/test_elementwise.py", "tests/test_array.py",
                                                                  "tests/test_dtypes.py", "tests/test_statistical.py",
                                                                  "tests/test_sorting.py", "tests/test_searching.py",
                                                                  "tests/test_parity_cases.py"], 5, _M),
    "_torch_jit": ("xbackend/_backends/torch/jit.py", _NT, ["tests/test_jit_contract.py", "tests/test_jit.py"], 3, _M),
    "_jit": ("xbackend/_jit.py", _NT, ["tests/test_jit_contract.py", "tests/test_jit.py"], 4, _M),
    "_transfer": ("xbackend/_transfer.py", _NT, ["tests/test_transfer.py", "tests/test_gpu_fixes.py"], 6, _M),
    "numpy": ("xbackend/_backends/numpy/backend.py", _NP, ["tests"], 10, _M),
    "_numpy_kernels": ("xbackend/_backends/numpy/kernels.py", _NP, ["tests"], 10, _M),
    "torch": ("xbackend/_backends/torch/backend.py", "torch", ["tests"], 8, _M),
    "_torch_reductions": ("xbackend/_backends/torch/reductions.py", "torch", ["tests"], 8, _M),
    "testing": ("xbackend/testing", _NT, ["tests/test_testing_kit.py", "tests/test_plugin.py"], 10, _M),
}
_WIDE = ["tests/test_elementwise.py", "tests/test_statistical.py", "tests/test_indexing.py", "tests/test_manipulation.py",
         "tests/test_linalg.py", "tests/test_fft.py", "tests/test_sorting.py", "tests/test_searching.py",
         "tests/test_set.py", "tests/test_creation.py", "tests/test_array.py", "tests/test_parity_cases.py"]
MODULES["dask"] = MODULES["dask"][:2] + (["tests/test_dask.py", *_WIDE],) + MODULES["dask"][3:]
MODULES["numpy"] = MODULES["numpy"][:2] + (["tests/test_numpy_backend.py", *_WIDE],) + MODULES["numpy"][3:]
MODULES["_numpy_kernels"] = MODULES["_numpy_kernels"][:2] + (["tests/test_np_rules.py", *_WIDE],) + MODULES["_numpy_kernels"][3:]
_TORCH = ["tests/test_torch_backend.py", "tests/test_numpy_backend.py", "tests/test_autograd.py",
          "tests/test_interchange.py", *_WIDE]
MODULES["torch"] = MODULES["torch"][:2] + (_TORCH,) + MODULES["torch"][3:]
MODULES["_torch_reductions"] = MODULES["_torch_reductions"][:2] + (_TORCH,) + MODULES["_torch_reductions"][3:]
_PREIMPORT = ["torch", "dask", "dask.array", "dask.base", "ml_dtypes", "array_api_strict", "scipy", "scipy.special",
              "hypothesis.extra.array_api"]


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


def _order(nodeids: set[str], tests: dict[str, dict], own: str | None = None) -> list[str]:
    """Fastest first, one per test function before any second parametrisation, up to CAP_S measured seconds;
    with ``own`` (a test file), that file's tests before any other's."""
    usable = sorted((own is not None and not n.startswith(own + "::"), tests[n]["dur"], n)
                    for n in nodeids if n in tests and tests[n]["ok"])  # fmt: skip
    firsts, rest, seen = [], [], set()
    for _own, dur, n in usable:
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
        self.own = MODULES[mod][2][0]  # the module's own test file: first for lines that run at import
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
            return _order(ctx - {""}, self.tests, self.own)
        return _order(ctx - {""}, self.tests)


# ---------------------------------------------------------------- orchestration
def _paths(mod: str) -> list[str]:
    path = MODULES[mod][0]
    if path.endswith(".py"):
        return [path]
    return sorted(os.path.join(path, f) for f in os.listdir(os.path.join(ROOT, path)) if f.endswith(".py"))


def _modname(path: str) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


def run(mods: list[str]) -> None:
    import subprocess
    import time

    os.makedirs(STATE, exist_ok=True)
    for mod in mods:
        path, backends, tests, sample, strings = MODULES[mod]
        t0 = time.time()
        if os.path.exists(SOCK):
            os.unlink(SOCK)
        server = subprocess.Popen([sys.executable, __file__, "serve", backends], cwd=ROOT,
                                  env={**os.environ, "PYTHONPATH": ROOT,
                                       "XB_MUT_PATHS": os.pathsep.join(os.path.join(ROOT, p) for p in _paths(mod))})
        try:
            for _ in range(600):
                if os.path.exists(SOCK):
                    break
                time.sleep(0.1)
            out = os.path.join(STATE, f"map-{_config_key(mod)}.json")
            paths = _paths(mod)
            _send({"include": [os.path.join(ROOT, p) for p in paths], "modules": [_modname(p) for p in paths],
                   "tests": tests, "out": out})
            with open(out) as f:
                m = json.load(f)
            bad = sorted(n for n, t in m["tests"].items() if not t["ok"])
            print(f"[{mod}] coverage map: {len(m['tests'])} tests, {len(bad)} failing (left out), "
                  f"{time.time() - t0:.0f} s", flush=True)
            for n in bad[:20]:
                print("   failing:", n, flush=True)
            sel = Selector(mod)
            baseline = _order(sel.covering(paths[0], 0, 10**9) if len(paths) == 1 else
                              set().union(*(sel.covering(p, 0, 10**9) for p in paths)), sel.tests)
            with open(os.path.join(STATE, "baseline.json"), "w") as f:
                json.dump(baseline or ["tests/test_info.py"], f)
            _reset_survivors(mod)  # a survivor is always re-tested (mutmut would only when the tests' hash changed)
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.path.join(ROOT, "tools")]),
                   "XB_MUT_MODULE": mod}
            cmd = [sys.executable, "-m", "mutmut", "run", "--paths-to-mutate", ",".join(paths), "--tests-dir", "tests",
                   "--runner", f"{sys.executable} -S {__file__} client {os.path.join(STATE, 'baseline.json')}",
                   "--no-progress"]
            if not strings:
                cmd.append("--disable-mutation-types=string,fstring")
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
            with open(os.path.join(STATE, "mutmut.pgid"), "w") as f:
                f.write(str(proc.pid))
            proc.wait()
        finally:
            try:
                _send("stop")
            except OSError:
                pass
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        print(f"[{mod}] done in {time.time() - t0:.0f} s", flush=True)
        print(table([mod]), flush=True)


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


# ---------------------------------------------------------------- results
def _equivalents() -> dict[tuple[str, int, str], str]:
    out = {}
    if os.path.exists(EQUIVALENTS):
        with open(EQUIVALENTS) as f:
            for raw in f:
                if not raw.strip() or raw.startswith("#"):
                    continue
                path, index, line, reason = raw.rstrip("\n").split("\t")
                out[(path, int(index), line.strip())] = reason
    return out


def _statuses(mod: str) -> list[tuple[int, str, int, int, str]]:
    """(mutant id, path, line number, index, status, source line) from mutmut's cache."""
    import sqlite3

    db = sqlite3.connect(os.path.join(ROOT, ".mutmut-cache"))
    rows = []
    for path in _paths(mod):
        rows += db.execute(
            "SELECT m.id, s.filename, l.line_number, m.\"index\", m.status, l.line FROM Mutant m "
            "JOIN Line l ON m.line = l.id JOIN SourceFile s ON l.sourcefile = s.id WHERE s.filename = ?", (path,)
        ).fetchall()
    return rows


def table(mods: list[str]) -> str:
    eq = _equivalents()
    head = (f"{'module':<34} {'mutants':>7} {'tested':>6} {'killed':>6} {'timeout':>7} {'survived':>8} "
            f"{'equiv':>5} {'non-eq surv %':>13}  sampled")
    out = [head, "-" * len(head)]
    for mod in mods:
        rows = _statuses(mod)
        if not rows:
            continue
        st = [r[4] for r in rows]
        killed = st.count("ok_killed") + st.count("ok_suspicious")
        timeout = st.count("bad_timeout")
        survived = [r for r in rows if r[4] == "bad_survived"]
        n_eq = sum((r[1], r[3], r[5].strip()) in eq for r in survived)
        tested = killed + timeout + len(survived)
        rate = 100.0 * (len(survived) - n_eq) / max(1, tested - n_eq)
        sample = MODULES[mod][3]
        out.append(f"{MODULES[mod][0]:<34} {len(rows):>7} {tested:>6} {killed:>6} {timeout:>7} {len(survived):>8} "
                   f"{n_eq:>5} {rate:>12.1f}%  {'1 in ~' + str(sample) if sample > 1 else 'all'}")
    return "\n".join(out)


def report() -> None:
    """benchmarks/results/mutation.txt: the table, how it was made, and the equivalent mutants with their reasons."""
    import platform
    import time

    mods = [m for m in MODULES if _statuses(m)]
    lines = [
        "Mutation testing of xbackend's core modules (tools/mutation.py; docs/contributing.md, \"Mutation testing\").",
        f"mutmut 2.5.1, {time.strftime('%Y-%m-%d')}, {platform.machine()} with {os.cpu_count()} cores shared with "
        "other jobs; each mutant ran the tests that executed its line (coverage map), fastest first, one per test "
        f"function first, up to {CAP_S:g} s of measured test time; hypothesis profile 'mutation' (10 derandomised "
        "examples), survivors re-checked after new tests.",
        "mutants: all mutmut makes of the module; tested: those in the sample (sampled: a hash of file, source line and "
        "index; the rest are mutmut's 'skipped'); killed: a test failed; timeout: the tests ran 10x the baseline; "
        "equiv: survivors that change nothing observable (listed below); non-eq surv % = (survived - equiv) / "
        "(tested - equiv).",
        "String mutations (\"a\" -> \"XXaXX\") are on where a module's strings are names with a meaning (_assign, "
        "_args, _coerce, _rules, _dtypes, _devices) and off where they are messages.",
        "",
        table(mods),
        "",
        "Equivalent mutants (tools/mutation_equivalents.txt): file:line, the mutated line, why nothing observable "
        "changes",
    ]
    eq = _equivalents()
    for mod in mods:
        for mid, path, lineno, index, status, line in sorted(_statuses(mod), key=lambda r: (r[1], r[2], r[3])):
            reason = eq.get((path, index, line.strip()))
            if status == "bad_survived" and reason:
                lines.append(f"  {path}:{lineno + 1} (mutant {index} of the line) {line.strip()}")
                lines.append(f"      {reason}")
    os.makedirs(os.path.dirname(TABLE), exist_ok=True)
    with open(TABLE, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def mark(mid: int, reason: str) -> None:
    import sqlite3

    db = sqlite3.connect(os.path.join(ROOT, ".mutmut-cache"))
    path, index, line = db.execute(
        "SELECT s.filename, m.\"index\", l.line FROM Mutant m JOIN Line l ON m.line = l.id "
        "JOIN SourceFile s ON l.sourcefile = s.id WHERE m.id = ?", (mid,)).fetchone()
    assert reason and "\t" not in reason
    with open(EQUIVALENTS, "a") as f:
        f.write(f"{path}\t{index}\t{line.strip()}\t{reason}\n")


def survivors(mod: str, show_equivalent: bool = False) -> None:
    """Print each survivor's diff. Never ``mutmut show`` while a run is going: it re-reads the file being mutated
    and rewrites mutmut's line table from it (the run then fails with "Attribute Mutant.line is required")."""
    import difflib

    from mutmut import Context, RelativeMutationID, mutate

    eq = _equivalents()
    for mid, path, lineno, index, status, line in sorted(_statuses(mod), key=lambda r: (r[1], r[2], r[3])):
        if status != "bad_survived" or ((path, index, line.strip()) in eq and not show_equivalent):
            continue
        src_path = os.path.join(ROOT, path)
        with open(src_path + ".bak" if os.path.exists(src_path + ".bak") else src_path) as f:
            source = f.read()  # the pristine source (mutmut keeps it as .bak while a mutant is on disk)
        ctx = Context(source=source, mutation_id=RelativeMutationID(line, index, lineno), filename=path)
        mutated, _ = mutate(ctx)
        diff = difflib.unified_diff(source.splitlines(), mutated.splitlines(), lineterm="", n=0)
        body = [d for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---"))]
        print(f"#{mid} {path}:{lineno + 1} index {index}")
        for d in body:
            print("   ", d)


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "client":
        sys.exit(client(rest[0]))
    if cmd == "serve":
        serve(rest[0])
    elif cmd == "run":
        run(list(MODULES) if rest == ["all"] else rest)
    elif cmd == "mark":  # mark ID REASON: record a survivor as equivalent
        mark(int(rest[0]), " ".join(rest[1:]))
    elif cmd == "stop":
        stop()
    elif cmd == "report":  # the committed results file
        report()
    elif cmd == "table":
        print(table(rest or list(MODULES)))
    elif cmd == "survivors":
        survivors(rest[0], show_equivalent="--all" in rest)
    else:
        raise SystemExit(__doc__)
