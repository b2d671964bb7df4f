"""@xb.jit (issue 12): the compiled function gives the eager function's values and dtypes on every target.

Compiles are slow on a shared CPU, so jitted functions are built once per module, and most torch tests
compile with ``backend="aot_eager"``: the same make_fx trace of xbackend's code and the same AOTAutograd
graphs as Inductor, without generating C++ (what the trace keeps or loses is what these tests check).
One test runs the real Inductor compiler.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xbackend as xb
from xbackend.testing import across_backends, assert_close
from xbackend.testing.strategies import host_arrays

FAST = {"backend": "aot_eager"}  # torch.compile without Inductor's C++ codegen


def _chain(x, y, wide=xb.float64):
    """Promotion (int + float Array), weak Python scalars, special cases, a reduction and a cast."""
    z = xb.exp(-xb.abs(x)) * 2.5 + y
    z = xb.where(z > 1.0, xb.sqrt(xb.abs(z)), z * z) / 3
    q = xb.floor_divide(xb.astype(x, xb.int32), 3)  # integer floor division (torch rounds differently)
    return {"sum": xb.sum(z * z, axis=-1), "z64": xb.astype(z, wide), "q": q, "n": 3}


chain_fast = xb.jit(_chain, backend_options=FAST)


def _mixed(x, k, wide=xb.float64):
    """Integer and unsigned arithmetic (torch lacks uint32 ops: emulated in int64), int -> float functions."""
    return x * k + x, xb.mean(xb.astype(x, wide)), x // 2, xb.maximum(x, x - 1)


mixed_fast = xb.jit(_mixed, static_argnames="k", backend_options=FAST)


def _data(dtype, n=7, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, 3)) * 3).astype(dtype)


# -- semantics -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_jit_matches_eager_on_every_backend(dtype):
    """Every target's jitted result equals the eager NumPy reference in values and dtypes (``z64`` holds
    float32 values for float32 inputs: compared at float32's tolerance)."""
    x, y = _data(dtype), _data(dtype, seed=1)
    across_backends(chain_fast, x, y, reference=lambda a, b: _chain(xb.asarray(a), xb.asarray(b)),
                    backends=[t.id for t in xb.testing.available_targets()],
                    rtol=xb.testing.default_tolerance(xb.dtype(dtype))[0])  # fmt: skip


def test_jit_matches_eager_per_target(xb_target):
    x = xb.asarray(_data("float32"), backend=xb_target.backend, device=xb_target.device)
    got, want = chain_fast(x, x + 1), _chain(x, x + 1)
    assert got["n"] == 3
    for k in ("sum", "z64", "q"):
        assert got[k].dtype == want[k].dtype and got[k].device == want[k].device
        assert_close(got[k], want[k])


@settings(max_examples=6)
@given(data=st.data())
def test_jit_property_random_inputs(xb_target, data):
    """Random dtypes, shapes and values: jitted == eager, dtypes included (uint32 exercises torch's emulation)."""
    dt = data.draw(st.sampled_from([xb.int8, xb.uint8, xb.uint32, xb.int64, xb.float32]), label="dtype")
    a = data.draw(host_arrays(dt, st.integers(2, 6).map(lambda n: (n,)),
                              elements={"min_value": 0, "max_value": 100}), label="x")  # fmt: skip
    x = xb.asarray(a, backend=xb_target.backend, device=xb_target.device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xb.JitFallbackWarning)  # every one of these must compile
        got = mixed_fast(x, k=3)
    want = _mixed(x, 3)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert_close(g, w)


def test_inductor_chain_matches_eager_and_reuses_its_trace_for_new_sizes():
    """The real compiler (Inductor): eager values within the dtype's rounding, same dtypes; the first
    size gets a concrete trace, the second a symbolic one, which a third size reuses (no retrace)."""
    torch = pytest.importorskip("torch")

    @xb.jit
    def f(x):
        return xb.sum(xb.exp(-x) * 2.0 + xb.sin(x)), xb.astype(x * 3, xb.int64)

    for n in (100, 37, 55):
        x = xb.asarray(torch.linspace(-2, 2, n, dtype=torch.float32))
        got, want = f(x), f.eager(x)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            assert_close(g, w)
    assert f.cache_info().compiles == 2 and f.cache_info().misses == 1
    entry = next(iter(f._cache.values()))
    assert entry.run.modes == ["fake", "symbolic"] and len(entry.run.traces) == 2


# -- what cannot be traced falls back, once ---------------------------------------------------------
def test_data_dependent_control_flow_falls_back_with_one_warning(xb_target):
    if xb_target.backend != "torch":
        pytest.skip("only torch compiles on this machine; NumPy runs eagerly by design (no warning)")

    @xb.jit(backend_options=FAST)
    def f(x):
        if float(xb.sum(x)) > 0:  # a value decides the branch: no trace may bake one branch in
            return x + 1
        return x - 1

    x = xb.ones(3, backend=xb_target.backend, device=xb_target.device)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        outs = [f(x), f(-x), f(x), f(-x)]
    assert [o.tolist() for o in outs] == [[2.0] * 3, [-2.0] * 3, [2.0] * 3, [-2.0] * 3]
    caught = [r for r in rec if issubclass(r.category, xb.JitFallbackWarning)]
    assert len(caught) == 1 and "eagerly" in str(caught[0].message)
    assert f.cache_info().fallbacks == 1


def test_numpy_runs_eagerly_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", xb.JitFallbackWarning)
        out = chain_fast(xb.asarray(_data("float64")), xb.asarray(_data("float64")))
    assert out["z64"].dtype == xb.float64


def test_user_errors_propagate_unchanged(xb_target):
    """An error the eager function raises is raised as is, without a fallback warning."""
    a = xb.ones((2, 3), backend=xb_target.backend, device=xb_target.device)
    b = xb.ones((4, 5), backend=xb_target.backend, device=xb_target.device)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xb.JitFallbackWarning)
        with pytest.raises(ValueError):
            chain_fast(a, b)


def test_native_arrays_are_refused_with_the_fix():
    with pytest.raises(TypeError, match="xb.portable"):
        chain_fast(np.ones(3), np.ones(3))


# -- cache -----------------------------------------------------------------------------------------
def test_cache_keys_dtype_static_args_and_evicts_lru():
    calls = []

    @xb.jit(static_argnames=("p",), cache_size=2)
    def f(x, p=1):
        calls.append(p)
        return x**p

    x32, x64 = xb.ones(3, dtype=xb.float32), xb.ones(3)
    f(x32), f(x32), f(x64), f(x64, p=2), f(x64, p=2)
    info = f.cache_info()
    assert (info.hits, info.misses, info.currsize, info.maxsize) == (2, 3, 2, 2)
    f(x32)  # evicted (least recently used): a miss again
    assert f.cache_info().misses == 4
    assert xb.jit_cache_info().misses >= 4


def test_python_scalars_key_the_cache_by_value(xb_target):
    """A non-Array argument is baked into the compiled code, so a new value must not reuse it."""
    f = xb.jit(lambda x, s: x * s, backend_options=FAST)
    x = xb.ones(2, backend=xb_target.backend, device=xb_target.device)
    assert f(x, 2.0).tolist() == [2.0, 2.0] and f(x, 3.0).tolist() == [3.0, 3.0]
    assert f.cache_info().misses == 2


def test_config_is_part_of_the_key(xb_target):
    """``xb.using(default_float=...)`` changes what creation functions inside the trace make."""
    f = xb.jit(lambda x: x + xb.ones(2, device=x.device), backend_options=FAST)
    x = xb.ones(2, dtype=xb.float32, backend=xb_target.backend, device=xb_target.device)
    assert f(x).dtype == xb.float64
    with xb.using(default_float=xb.float32):
        assert f(x).dtype == xb.float32


def test_concurrent_first_calls_compile_once(xb_target):
    f = xb.jit(lambda x: xb.tanh(x) * 2, backend_options=FAST)
    x = xb.ones(4, backend=xb_target.backend, device=xb_target.device)
    outs, errors = [], []

    def work():
        try:
            outs.append(f(x).tolist())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(outs) == 4 and all(o == outs[0] for o in outs)
    assert f.cache_info().compiles <= 1 and f.cache_info().currsize == 1


# -- autograd --------------------------------------------------------------------------------------
def test_gradients_flow_through_a_jitted_torch_function():
    torch = pytest.importorskip("torch")

    @xb.jit(backend_options=FAST)
    def loss(w, x):
        p = 1.0 / (1.0 + xb.exp(-(x @ w)))
        return xb.mean(p * p)

    x = xb.asarray(torch.randn(5, 3, dtype=torch.float64))

    def native_loss(w):
        return loss(xb.asarray(w), x).native

    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(native_loss, (w,))
    assert loss.cache_info().fallbacks == 0 and loss.cache_info().compiles == 1


def test_jit_cache_info_keeps_the_counts_of_collected_functions():
    import gc

    before = xb.jit_cache_info().misses
    f = xb.jit(lambda x: x + 1)
    f(xb.ones(2))
    del f
    gc.collect()
    assert xb.jit_cache_info().misses == before + 1


def test_demo_with_jit_agrees_with_numpy(capsys):
    """``python -m xbackend demo --jit``: every target's jitted training matches the NumPy reference."""
    from xbackend._demo import demo

    assert demo(n=500, d=4, steps=8, jit=True) == 0
    out = capsys.readouterr().out
    assert "(OK)" in out and "compile (first call of the jitted step)" in out


def test_shape_branches_retrace_and_never_reuse_a_wrong_trace():
    """Python branching on a size becomes a shape guard: a new size on the same side reuses the trace,
    one on the other side traces again (a trace reused past its guard would multiply by the wrong k)."""
    torch = pytest.importorskip("torch")

    @xb.jit(backend_options=FAST)
    def f(x):
        return x * 2 if x.shape[0] > 4 else x * 3

    for n, k in ((6, 2), (9, 2), (3, 3), (7, 2), (2, 3)):
        assert f(xb.asarray(torch.ones(n))).tolist() == [float(k)] * n
    run = next(iter(f._cache.values())).run
    assert run.modes == ["fake", "symbolic", "symbolic"] and len(run.traces) == 3  # 6 exactly; > 4; <= 4
    assert f.cache_info().compiles == 3 and f.cache_info().compile_time_s >= run.retrace_seconds > 0


# -- the direct path: our guards instead of Dynamo's ------------------------------------------------
def test_direct_path_retraces_for_requires_grad_and_grad_mode():
    """A directly called graph baked in which inputs need gradients and whether grad mode is on: a call
    that differs in either must get its own trace (reusing the first would return no gradient)."""
    torch = pytest.importorskip("torch")

    @xb.jit(backend_options=FAST)
    def f(w, x):
        return xb.sum(x * w * w)

    x = xb.asarray(torch.arange(1.0, 4.0, dtype=torch.float64))
    w0 = torch.full((3,), 2.0, dtype=torch.float64)
    assert f(xb.asarray(w0), x).native.requires_grad is False
    w = w0.clone().requires_grad_(True)
    out = f(xb.asarray(w), x).native
    out.backward()
    assert torch.equal(w.grad, 2 * w0 * x.native)  # d/dw sum(x w^2) = 2 x w
    with torch.no_grad():
        assert f(xb.asarray(w), x).native.requires_grad is False
    assert f.cache_info().fallbacks == 0
    run = next(iter(f._cache.values())).run
    assert run.paths == ["direct"] * 3 and run.modes == ["fake"] * 3


def test_direct_path_never_reuses_a_trace_across_input_aliasing():
    """The same tensor passed twice: traced that way, the compiler merges the two inputs (AOTAutograd's
    dedup), so that trace goes through Dynamo, which guards aliasing; distinct inputs must not run a
    merged graph (they would read ``a`` for ``b``)."""
    torch = pytest.importorskip("torch")

    @xb.jit(backend_options=FAST)
    def f(a, b):
        return a * 2 + b

    x = xb.asarray(torch.ones(3))
    y = xb.asarray(torch.full((3,), 5.0))
    assert f(x, x).tolist() == [3.0] * 3
    assert f(x, y).tolist() == [7.0] * 3
    assert f(y, x).tolist() == [11.0] * 3
    run = next(iter(f._cache.values())).run
    assert run.paths[0] == "dynamo"


def test_cpu_inductor_keeps_matrix_products_as_blas_calls(monkeypatch):
    """The CPU default keeps ``mv`` a library call: Inductor's multiply-and-sum loops ran 4-5x slower
    (the logistic-regression step of benchmarks/jit.py). With ``CI`` set (as on torch's and many users' CI
    machines) Inductor refuses to lower an op lazily, so the kept ops must be registered up front."""
    torch = pytest.importorskip("torch")
    from xbackend._backends.torch import jit as _torch_jit

    monkeypatch.setenv("CI", "1")
    monkeypatch.setattr(_torch_jit, "_DECOMPS", None)  # register the kept ops here, whatever compiled before
    from torch._inductor.utils import run_and_get_code

    def step(X, w):
        return X.mT @ (1.0 / (1.0 + xb.exp(-(X @ w))))

    X = xb.asarray(torch.randn(64, 4, dtype=torch.float64))
    w = xb.asarray(torch.randn(4, dtype=torch.float64))
    keep = xb.jit(step)
    got, codes = run_and_get_code(lambda: keep(X, w))
    assert codes and all(c.count("aten.mv") >= 2 for c in codes)
    assert_close(got, step(X, w))
    assert next(iter(keep._cache.values())).run.paths == ["direct"]


def test_gradcheck_through_the_real_inductor_direct_path():
    """Autograd through the default CPU compiler (Inductor, called directly): gradcheck in float64."""
    torch = pytest.importorskip("torch")

    @xb.jit
    def loss(w, x):
        return xb.mean(xb.tanh(x @ w) ** 2)

    x = xb.asarray(torch.randn(6, 3, dtype=torch.float64))
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: loss(xb.asarray(v), x).native, (w,))
    run = next(iter(loss._cache.values())).run
    assert "direct" in run.paths and loss.cache_info().fallbacks == 0


# -- JAX: jax.jit for JAX arrays held by the generic Array-API backend ----------------------------------
def _jax_or_skip():
    pytest.importorskip("jax")
    try:
        a = xb.asarray(np.ones(2, np.float32), backend="jax")
    except Exception as exc:  # pragma: no cover - depends on the generic backend of this tree
        pytest.skip(f"the generic backend cannot hold JAX arrays here: {exc!r}")
    if type(a.native).__module__.split(".")[0] not in ("jax", "jaxlib"):
        pytest.skip(f"backend='jax' holds {type(a.native)!r}, not JAX arrays")
    return a


def _jx(a):
    return xb.asarray(a, backend="jax")


jax_chain = xb.jit(_chain)
jax_mixed = xb.jit(_mixed, static_argnames="k")


def test_jax_jit_matches_eager_and_numpy():
    """float32 only (JAX's default width, whatever jax_enable_x64 says): jax.jit'ed == eager on JAX ==
    NumPy, values and dtypes; compiled once."""
    _jax_or_skip()
    x, y = _data("float32"), _data("float32", seed=1)
    w = xb.float32
    got, eager, ref = jax_chain(_jx(x), _jx(y), w), _chain(_jx(x), _jx(y), w), _chain(xb.asarray(x), xb.asarray(y), w)
    assert got["n"] == 3
    for k in ("sum", "z64", "q"):
        assert got[k].dtype == eager[k].dtype == ref[k].dtype and got[k].backend == "jax"
        # float32 tolerance: XLA fuses (and may contract a*b+c into one rounding)
        assert_close(got[k], eager[k], rtol=1e-5, atol=1e-6)
        want = ref[k].numpy()
        assert_close(got[k].numpy(), want, rtol=1e-5, atol=1e-6)
    assert type(got["sum"].native).__module__.startswith("jax")
    info = jax_chain.cache_info()
    assert info.compiles >= 1 and info.fallbacks == 0


@settings(max_examples=6)
@given(data=st.data())
def test_jax_jit_property_random_inputs(data):
    """Random integer dtypes, sizes and values: jitted == eager on JAX, dtypes included; a new size is a
    retrace that jax.jit makes by itself (counted), never a fallback."""
    _jax_or_skip()
    dt = data.draw(st.sampled_from([xb.int8, xb.uint8, xb.int16, xb.int32, xb.float32]), label="dtype")
    a = data.draw(host_arrays(dt, st.integers(2, 6).map(lambda n: (n,)),
                              elements={"min_value": 0, "max_value": 100}), label="x")  # fmt: skip
    x = _jx(a)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xb.JitFallbackWarning)
        got = jax_mixed(x, k=3, wide=xb.float32)
    want = _mixed(x, 3, xb.float32)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert_close(g, w)


def test_jax_data_dependent_control_flow_falls_back_with_one_warning():
    _jax_or_skip()

    @xb.jit
    def f(x):
        if float(xb.sum(x)) > 0:  # a tracer has no value: jax.jit raises, @xb.jit runs it eagerly
            return x + 1
        return x - 1

    x = _jx(np.ones(3, np.float32))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        outs = [f(x), f(-x), f(x)]
    assert [o.tolist() for o in outs] == [[2.0] * 3, [-2.0] * 3, [2.0] * 3]
    caught = [r for r in rec if issubclass(r.category, xb.JitFallbackWarning)]
    assert len(caught) == 1 and f.cache_info().fallbacks == 1 and f.cache_info().compiles == 0


def test_jax_new_shapes_are_counted_as_compiles():
    _jax_or_skip()
    f = xb.jit(lambda x: xb.sum(xb.exp(-x * x)))
    for n in (5, 5, 9):
        x = _jx(np.linspace(-1, 1, n, dtype=np.float32))
        assert_close(f(x), f.eager(x), rtol=1e-5)
    info = f.cache_info()
    assert info.misses == 1 and info.hits == 2 and info.compiles == 2 and info.fallbacks == 0


# The cache key (issue 19.7): two calls that differ in one argument must not share a compiled function (a value
# baked into the trace would be reused), and the same call twice must. Each pair runs A, B, A on torch (a real
# trace) and compares every result with the eager function on the same arguments.
def _one_argument_pairs(be):
    x = xb.asarray([1.0, -2.0, 3.0], backend=be)
    x32, xc = xb.astype(x, xb.float32), xb.astype(x, xb.complex128)
    return {
        "Array dtype": (lambda v: v * 3, ((x32,), {}), ((x,), {})),
        "Array ndim": (lambda v: xb.sum(v, axis=-1), ((x,), {}), ((xb.reshape(x, (1, 3)),), {})),
        "float value": (lambda v, s: v * s, ((x, 2.0), {}), ((x, 3.0), {})),
        "signed zero": (lambda v, s: v * s, ((x, 0.0), {}), ((x, -0.0), {})),
        "NaN": (lambda v, s: v * s, ((x, 1.0), {}), ((x, float("nan")), {})),
        "complex value": (lambda v, s: v * s, ((xc, 1j), {}), ((xc, -1j), {})),
        "int value": (lambda v, n: v**n, ((x, 2), {}), ((x, 3), {})),
        "bool or int": (lambda v, s: v + (10 if s is True else 1), ((x, True), {}), ((x, 1), {})),
        "None or value": (lambda v, s: v if s is None else v * s, ((x, None), {}), ((x, 2.0), {})),
        "string": (lambda v, op: getattr(xb, op)(v), ((x, "sin"), {}), ((x, "cos"), {})),
        "tuple or list": (lambda vs: vs[0] + (1 if type(vs) is tuple else 2), (((x, x),), {}), (([x, x],), {})),
        "length": (lambda vs: sum(vs[1:], vs[0]), (((x, x),), {}), (((x, x, x),), {})),
        "dict key": (lambda d: d["a"] if "a" in d else d["b"] * 2, (({"a": x},), {}), (({"b": x},), {})),
        "keyword value": (lambda v, s=1.0: v * s, ((x,), {"s": 2.0}), ((x,), {"s": 3.0})),
        "keyword or positional": (lambda v, s=1.0: v * s, ((x,), {}), ((x, 2.0), {})),
        "keyword name": (lambda v, s=1.0, t=1.0: v * s + t, ((x,), {"s": 2.0}), ((x,), {"t": 2.0})),
    }


@pytest.mark.parametrize("which", list(_one_argument_pairs("numpy")))
def test_calls_that_differ_in_one_argument_never_share_a_compiled_function(which):
    pytest.importorskip("torch")
    fn, a, b = _one_argument_pairs("torch")[which]
    f = xb.jit(fn, backend_options=FAST)
    for args, kwargs in (a, b, a):
        got, want = f(*args, **kwargs), fn(*args, **kwargs)
        assert got.dtype == want.dtype and got.shape == want.shape, which
        assert_close(got, want.numpy())
        assert np.array_equal(np.signbit(got.numpy().real), np.signbit(want.numpy().real)), which
    info = f.cache_info()
    assert (info.misses, info.hits) == (2, 1), (which, info)


def test_static_arguments_and_backends_key_the_cache():
    @xb.jit(static_argnames=("p",), backend_options=FAST)
    def f(x, p=1):
        return x**p

    x = xb.asarray([2.0, 3.0])
    backends = ["numpy"]
    try:
        import torch  # noqa: F401

        backends.append("torch")
    except ImportError:
        pass
    for be in backends + backends[::-1]:  # the same function on each backend: each gets its own entry
        y = xb.asarray(x, backend=be)
        for p in (1, 2, 1):
            r = f(y, p=p)
            assert r.backend == be and r.tolist() == [2.0**p, 3.0**p]
    assert f.cache_info().misses == 2 * len(backends)
