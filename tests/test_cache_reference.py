"""Every cache gives what a fresh process would (issue 33).

xbackend caches per call site and per process: ``xb.grad``'s config for the function it runs on the autograd engine
(and its routes and movers), ``xb.jit``'s compiled entries, the creation functions' fast entries (per config, and
the last hit), the places ``asarray`` resolved, and Dask graph keys (names that must differ whenever the values
do). A cache keyed on too little returns the first call's answer to a later call made under other settings. So
each scenario below makes a sequence of calls in this (warm) process - under different ``xb.using(...)`` settings,
dtypes, ndims, backends and devices (this machine has only CPU devices) - and compares every call with the same
call made alone in a fresh process: a child forked from a process that imported xbackend and the backends but
called nothing. Where the answer is easy to state the test also checks it from first principles (the dtype the
settings ask for, NumPy's values). Dask graph keys are checked against the values themselves: a merged graph with
two tasks under one name gives wrong numbers everywhere, so a fresh process would repeat the slip.

Planted by hand and seen red (issue 33): xb.grad's config cache keyed without the config in force (calls 1, 2, 5, 7
of the grad scenario keep the first call's float64/int64); xb.jit's key without ``default_float``; the creation fast
path's last hit checked without the dtype; the Dask random task's token without its counter. Two defects of the
clean tree showed up here and are fixed: a retrace after an earlier trace raised ``BackendFailure`` (a creation
prototype made under fake tensors reached eager code), and torch's ``value_and_grad`` raised ``AttributeError`` on
aux Arrays of another backend. Dropping the compute dtype from the Dask kernels' names is an equivalent mutant: the
kernels' inputs are cast first, so their names already differ.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xbackend as xb

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# how a result is compared: backend, dtype, shape and the bits of every value (recursively through tuples)
DESCRIBE = textwrap.dedent('''
    import numpy as _np
    import xbackend as _xb

    def describe(r):
        if isinstance(r, BaseException):
            return ["raised", type(r).__name__]
        if type(r) is _xb.Array:
            x = _xb.astype(r, _xb.float32) if r.dtype is _xb.bfloat16 else r
            v = _np.ascontiguousarray(_np.asarray(x.numpy()))
            bits = v.view(f"u{v.dtype.itemsize}") if v.dtype.kind in "fc" else v
            return {"backend": r.backend, "dtype": r.dtype.name, "shape": list(r.shape),
                    "bits": bits.reshape(-1).tolist(), "values": v.reshape(-1).tolist()}
        if isinstance(r, (tuple, list)):
            return [describe(v) for v in r]
        return repr(r)

    def run(ns, code):
        try:
            exec(code, ns)
            return describe(ns["result"])
        except Exception as exc:  # the error is the answer (a fresh process raises it too)
            return describe(exc)
''')

# the fresh processes: one interpreter imports everything, then forks a child per call (caches empty in each)
FRESH = DESCRIBE + textwrap.dedent('''
    import json, os, sys, warnings
    import numpy as np
    import torch, dask, dask.array
    import xbackend as xb
    torch.set_num_threads(1)
    # loaded here once, as a fresh process loads them at its first call (loading fills none of the caches under test)
    from xbackend._dispatch import get_backend
    for name in ("numpy", "torch", "dask"):
        get_backend(name)
    import torch._dynamo, torch.fx.experimental.proxy_tensor, torch._functorch.aot_autograd  # noqa: E401
    warnings.simplefilter("ignore")
    jobs = json.loads(sys.stdin.read())
    out = []
    for setup, call in jobs:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            ns = {}
            exec(setup, ns)
            data = json.dumps(run(ns, call)).encode()
            with os.fdopen(w, "wb") as f:
                f.write(data)
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            data = f.read()
        os.waitpid(pid, 0)
        out.append(json.loads(data))
    print("RESULTS" + json.dumps(out))
''')

_NS: dict = {}
exec(DESCRIBE, _NS)
describe, run = _NS["describe"], _NS["run"]

PRELUDE = "import numpy as np\nimport torch\nimport xbackend as xb\nFAST = {'backend': 'aot_eager'}\n"

# -- the scenarios: setup, then calls (each sets ``result``) -------------------------------------------------------
GRAD_SETUP = PRELUDE + textwrap.dedent('''
    def f(x):  # a creation that follows default_float, and aux Arrays that follow default_float and default_int
        return xb.sum(x * xb.asarray(0.1, device=x.device)), (xb.zeros(2), xb.arange(2))
    vg = xb.value_and_grad(f, has_aux=True)
    xn = xb.asarray([1.0, 2.0, 3.0])
    xt = xb.asarray([1.0, 2.0, 3.0], backend="torch")
''')
GRAD_CALLS = [
    "result = vg(xn)",
    "with xb.using(default_float=xb.float32):\n    result = vg(xn)",
    "with xb.using(default_int=xb.int32):\n    result = vg(xn)",
    "result = vg(xn)",
    "with xb.using(backend='dask'):\n    result = vg(xn)",
    "with xb.using(backend='torch', default_float=xb.float32):\n    result = vg(xn)",
    "result = vg(xb.astype(xn, xb.float32))",
    "with xb.using(default_float=xb.float32):\n    result = vg(xb.astype(xn, xb.float32))",
    "result = vg(xt)",
    "with xb.using(default_float=xb.float32):\n    result = vg(xt)",
    "result = vg(xb.reshape(xn, (3, 1)))",
    "result = xb.grad(lambda x: xb.sum(x * xb.asarray(0.1)))(xb.asarray([1.0, 2.0], backend='dask'))",
]

JIT_SETUP = PRELUDE + textwrap.dedent('''
    f = xb.jit(lambda x: x * xb.asarray(0.1, device=x.device) + xb.ones(x.shape, device=x.device),
               backend_options=FAST)
    q = xb.jit(lambda x: x + xb.asarray(1.0), backend_options=FAST)  # lands where xb.using says
    h = xb.jit(lambda x, c: 1.0 / (x * c), backend_options=FAST)
    k = xb.jit(lambda x, s: x * s, backend_options=FAST)
    g = xb.jit(lambda x: x + xb.arange(3, device=x.device), backend_options=FAST)
    t32 = xb.asarray([1.0, 2.0, 3.0], dtype=xb.float32, backend="torch")
    ti = xb.asarray([1, 2, 3], dtype=xb.int32, backend="torch")
''')
JIT_CALLS = [
    "result = f(t32)",
    "with xb.using(default_float=xb.float32):\n    result = f(t32)",
    "result = f(t32)",
    "result = f(xb.astype(t32, xb.float64))",
    "result = f(xb.reshape(t32, (3, 1)))",
    "result = f(xb.asarray([1.0, 2.0, 3.0, 4.0, 5.0], dtype=xb.float32, backend='torch'))",
    "result = f(xb.asarray([1.0, 2.0, 3.0], dtype=xb.float32))",
    "with xb.using(default_float=xb.float32):\n    result = f(xb.asarray([1.0, 2.0, 3.0], dtype=xb.float32))",
    "with xb.using(backend='dask'):\n    result = f(t32)",
    "result = q(t32)",
    "with xb.using(backend='torch'):\n    result = q(t32)",
    "result = q(t32)",
    "result = h(t32, 0.0)",
    "result = h(t32, -0.0)",
    "result = h(t32, float('nan'))",
    "result = k(ti, 2)",
    "result = k(ti, 2.0)",
    "result = k(ti, True)",
    "result = g(ti)",
    "with xb.using(default_int=xb.int32):\n    result = g(ti)",
    "result = g(ti)",
    "result = [fn.cache_info().fallbacks for fn in (f, g, h, k)]",  # a fresh process compiles them all
]

CREATION_SETUP = PRELUDE
CREATION_CALLS = [
    "result = xb.zeros(3)",
    "with xb.using(default_float=xb.float32):\n    result = xb.zeros(3)",
    "result = xb.zeros(3)",
    "result = xb.ones(3)",
    "with xb.using(backend='torch'):\n    result = xb.ones(2)",
    "with xb.using(backend='torch', default_float=xb.float32):\n    result = xb.ones(2)",
    "result = xb.zeros(3, backend='torch')",
    ("old = torch.get_default_dtype()\ntorch.set_default_dtype(torch.float32)\ntry:\n"
     "    result = xb.zeros(3, backend='torch')\nfinally:\n    torch.set_default_dtype(old)"),
    "result = xb.zeros(3, dtype='float32', backend='torch')",
    "result = xb.ones(3, dtype=xb.int8, device='cpu')",
    "result = xb.ones(3, device='cpu')",
    ("old = xb.set_default(default_float=xb.float32)\ntry:\n    result = xb.zeros(2)\nfinally:\n"
     "    xb.set_default(default_float=old.default_float)"),
    "result = xb.zeros(2)",
    "with xb.using(backend='dask'):\n    result = xb.ones((2, 3))",
    "result = xb.asarray([1.5, 2.5])",
    "with xb.using(default_float=xb.float32, backend='torch'):\n    result = xb.asarray([1.5, 2.5])",
    "with xb.using(default_int=xb.int32):\n    result = xb.asarray([1, 2])",
    "result = xb.asarray([1, 2])",
    "result = (xb.empty(4, dtype=xb.int16).dtype, xb.empty(2).dtype, xb.empty(2, backend='torch').dtype)",
    ("with xb.using(default_float=xb.float32):\n"
     "    result = (xb.empty(2).dtype, xb.empty(2, backend='torch').dtype, xb.empty(2).backend)"),
    "with xb.using(default_int=xb.int32):\n    result = (xb.arange(3), xb.full(2, 1.5), xb.full(2, 7))",
    "result = (xb.arange(3), xb.full(2, 1.5), xb.full(2, 7))",
    "result = xb.zeros(3, dtype=xb.float32, backend='numpy')",
    "with xb.using(default_float=xb.float32):\n    result = xb.zeros(3, dtype=None, backend='numpy')",
]

SCENARIOS = {"grad": (GRAD_SETUP, GRAD_CALLS), "jit": (JIT_SETUP, JIT_CALLS),
             "creation": (CREATION_SETUP, CREATION_CALLS)}  # fmt: skip


@pytest.fixture(scope="module")
def fresh():
    """What each call of each scenario gives alone in a fresh process."""
    pytest.importorskip("dask")
    if not hasattr(os, "fork"):
        pytest.skip("the fresh processes are forked")
    jobs = [(setup, call) for setup, calls in SCENARIOS.values() for call in calls]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps(jobs), capture_output=True, text=True,
                          env=env, timeout=600, cwd=ROOT)  # fmt: skip
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULTS")), None)
    assert line is not None, proc.stderr[-3000:]
    out, i = {}, 0
    results = json.loads(line[len("RESULTS"):])
    for name, (_, calls) in SCENARIOS.items():
        out[name] = results[i : i + len(calls)]
        i += len(calls)
    return out


def _in_this_process(name):
    import warnings

    setup, calls = SCENARIOS[name]
    ns: dict = {}
    exec(setup, ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [run(ns, call) for call in calls]


def _same_as_fresh(name, got, want):
    bad = [f"call {i}:\n{SCENARIOS[name][1][i]}\n  this process: {g}\n  a fresh one:  {w}"
           for i, (g, w) in enumerate(zip(got, want)) if _bits_only(g) != _bits_only(w)]  # fmt: skip
    assert not bad, "a cache answered a later call with an earlier call's result:\n" + "\n".join(bad)


def _bits_only(d):
    """A description without its values (NaN != NaN): the bits say it all."""
    if isinstance(d, dict):
        return {k: v for k, v in d.items() if k != "values"}
    return [_bits_only(v) for v in d] if isinstance(d, list) else d


def _f32(v):
    return float(np.float32(v))


def test_grad_caches_give_what_a_fresh_process_gives(fresh):
    got = _in_this_process("grad")
    _same_as_fresh("grad", got, fresh["grad"])
    # first principles: ((value, (zeros(2), arange(2))), grad); 0.1 made under the config in force
    (_, (z, i)), g = got[1]
    assert z["dtype"] == "float32" and i["dtype"] == "int64" and g["dtype"] == "float64"
    assert g["values"] == [_f32(0.1)] * 3 and z["backend"] == "numpy"  # (float32 0.1, widened exactly)
    (_, (z, i)), g = got[2]
    assert z["dtype"] == "float64" and i["dtype"] == "int32" and g["values"] == [0.1] * 3
    (_, (z, i)), g = got[3]
    assert z["dtype"] == "float64" and i["dtype"] == "int64" and g["values"] == [0.1] * 3
    (v, _), g = got[6]
    assert g["dtype"] == "float32" and v["dtype"] == "float64"  # float32 x * float64 0.1
    (v, _), g = got[7]
    assert g["dtype"] == "float32" and v["dtype"] == "float32" and g["values"] == [_f32(0.1)] * 3
    assert got[8][1] == {**got[0][1], "backend": "torch"}  # aux Arrays of another backend come back as they are
    (_, (z, _)), g = got[9]
    assert z["dtype"] == "float32" and z["backend"] == "numpy" and g["values"] == [_f32(0.1)] * 3
    assert g["backend"] == "torch"
    assert got[11] == ["raised", "GradientError"]


def test_jit_cache_gives_what_a_fresh_process_gives(fresh):
    got = _in_this_process("jit")
    _same_as_fresh("jit", got, fresh["jit"])
    want64 = [v * 0.1 + 1.0 for v in (1.0, 2.0, 3.0)]  # float32 x * float64 0.1 (exact widening), + 1
    assert got[0]["dtype"] == "float64" and got[0]["values"] == want64 and got[2] == got[0]
    w32 = (np.array([1, 2, 3], np.float32) * np.float32(0.1) + np.float32(1)).tolist()
    assert got[1]["dtype"] == "float32" and got[1]["values"] == w32
    assert got[4]["shape"] == [3, 1] and got[5]["shape"] == [5] and got[6]["backend"] == "numpy"
    assert got[7]["dtype"] == "float32" and got[8] == got[0]
    assert got[9] == got[11] == ["raised", "BackendMismatchError"]  # 1.0 made on NumPy, the default
    assert (got[10]["backend"], got[10]["dtype"], got[10]["values"]) == ("torch", "float64", [2.0, 3.0, 4.0])
    got = got[3:]
    assert got[9]["values"] == [math.inf] * 3 and got[10]["values"] == [-math.inf] * 3
    assert all(math.isnan(v) for v in got[11]["values"])
    assert (got[12]["dtype"], got[12]["values"]) == ("int32", [2, 4, 6])
    assert (got[13]["dtype"], got[13]["values"]) == ("float64", [2.0, 4.0, 6.0])
    assert (got[14]["dtype"], got[14]["values"]) == ("int32", [1, 2, 3])
    assert [got[i]["dtype"] for i in (15, 16, 17)] == ["int64", "int32", "int64"]
    assert got[18] == ["0", "0", "0", "0"]  # nothing an earlier call cached made a later trace fall back


def test_creation_caches_give_what_a_fresh_process_gives(fresh):
    got = _in_this_process("creation")
    _same_as_fresh("creation", got, fresh["creation"])
    dt = [g["dtype"] if isinstance(g, dict) else None for g in got]
    assert dt[:4] == ["float64", "float32", "float64", "float64"]
    assert (got[4]["backend"], dt[4], got[5]["backend"], dt[5]) == ("torch", "float64", "torch", "float32")
    assert dt[6] == dt[7] == "float64" and dt[8] == "float32"  # torch's own default dtype is not xbackend's
    assert dt[9:13] == ["int8", "float64", "float32", "float64"]
    assert got[13]["backend"] == "dask" and got[15]["backend"] == "torch" and dt[14:18] == [
        "float64", "float32", "int32", "int64"]  # fmt: skip
    assert got[18] == ["xb.int16", "xb.float64", "xb.float64"]
    assert got[19] == ["xb.float32", "xb.float32", "'numpy'"]
    assert [g["dtype"] for g in got[20]] == ["int32", "float64", "int32"]
    assert [g["dtype"] for g in got[21]] == ["int64", "float64", "int64"]
    assert dt[22:] == ["float32", "float32"]


# -- Dask graph keys: equal names only for equal values ---------------------------------------------------------------
def test_dask_random_graph_keys_differ_whenever_the_draws_do():
    dask = pytest.importorskip("dask")
    from test_random_reference import Ref

    r, ref = xb.random.default_rng(1, backend="dask", chunks=4), Ref(1)
    calls = [
        ("random", lambda: r.random(10), lambda: ref.uniform(10, "float64")),
        ("random again", lambda: r.random(10), lambda: ref.uniform(10, "float64")),
        ("float32", lambda: r.random(10, dtype=xb.float32), lambda: ref.uniform(10, "float32").astype(np.float32)),
        ("under float32", lambda: _using_f32(lambda: r.random(10)), lambda: ref.uniform(10, "float32").astype(
            np.float32)),  # fmt: skip
        ("ints", lambda: r.integers(0, 5, 10), lambda: np.array(ref.integers(0, 5, 10))),
        ("other low", lambda: r.integers(1, 6, 10), lambda: np.array(ref.integers(1, 6, 10))),
        ("int8", lambda: r.integers(0, 5, 10, dtype=xb.int8), lambda: np.array(ref.integers(0, 5, 10))),
        ("normal", lambda: r.standard_normal(10), lambda: ref.normal(10)),
        ("exponential", lambda: r.exponential(1.0, 10), lambda: ref.exponential(10)),
        ("other seed", lambda: xb.random.default_rng(2, backend="dask", chunks=4).random(10),
         lambda: Ref(2).uniform(10, "float64")),
        ("other chunks", lambda: xb.random.default_rng(1, backend="dask", chunks=3).random(10),
         lambda: Ref(1).uniform(10, "float64")),
    ]  # fmt: skip
    arrays, wants = [], []
    for _, draw, want in calls:
        arrays.append(draw())
        wants.append(want())
    values = dask.compute(*[a.native for a in arrays])  # one merged graph: a shared name would show here
    for (what, _, _), a, v, w in zip(calls, arrays, values, wants):
        if what in ("normal", "exponential"):
            assert np.allclose(v, w, rtol=1e-15, atol=0), what
        else:
            assert np.asarray(v).tolist() == w.tolist(), what
    names = [a.native.name for a in arrays]
    assert len(set(names)) == len(names)
    assert xb.random.default_rng(1, backend="dask", chunks=4).random(10).native.name == names[0]  # deterministic


def _using_f32(fn):
    with xb.using(default_float=xb.float32):
        return fn()


def test_dask_kernel_graph_keys_differ_whenever_the_results_do():
    dask = pytest.importorskip("dask")
    data = np.arange(6.0) / 7
    a = xb.asarray(data, backend="dask", chunks=4)
    b = xb.astype(a, xb.float32)
    ai = xb.asarray(np.arange(6), backend="dask", chunks=4)
    with xb.using(default_float=xb.float32):
        half32 = xb.asarray(data.tolist(), backend="dask") * 0.5  # Python floats: float32 here
        sin32, div32 = xb.sin(ai), ai / ai[1:2]  # ints to floats: the default float's kernel, on the same inputs
    exprs = [
        (xb.sin(a), np.sin(data)),
        (xb.sin(b), np.sin(data.astype(np.float32))),
        (a * 2, data * 2),
        (b * 2, data.astype(np.float32) * np.float32(2)),
        (xb.astype(a, xb.int64) * 2, data.astype(np.int64) * 2),
        (a * xb.asarray(0.5, backend="dask"), data * 0.5),
        (half32, data.astype(np.float32) * np.float32(0.5)),
        (xb.exp(b), np.exp(data.astype(np.float32))),
        (xb.exp(a), np.exp(data)),
        (a ** 2, data**2),
        (b ** 2, data.astype(np.float32) ** np.float32(2)),
        (xb.sin(ai), np.sin(np.arange(6.0))),
        (sin32, np.sin(np.arange(6, dtype=np.float32))),
        (ai / ai[1:2], np.arange(6.0) / 1.0),
        (div32, np.arange(6, dtype=np.float32) / np.float32(1)),
    ]  # fmt: skip
    values = dask.compute(*[x.native for x, _ in exprs])
    for i, ((x, want), v) in enumerate(zip(exprs, values)):
        assert v.dtype == want.dtype and v.tolist() == want.tolist(), i
    mixed = xb.stack([xb.sin(a), xb.astype(xb.sin(b), xb.float64), xb.exp(a), xb.astype(xb.exp(b), xb.float64)])
    want = np.stack([np.sin(data), np.sin(data.astype(np.float32)).astype(np.float64), np.exp(data),
                     np.exp(data.astype(np.float32)).astype(np.float64)])  # fmt: skip
    assert mixed.numpy().tolist() == want.tolist()
