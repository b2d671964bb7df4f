"""What ``@xb.jit`` promises around any compiler, checked on a fake one (issue 19.7: tests that notice).

The compiler hook is :meth:`xbackend.Backend.compile`. Here the NumPy backend gets a fake hook that "compiles"
by returning the traced function itself (so every compiled call re-runs the trace, on the real NumPy code)
and can be told to fail a later call, as a torch retrace for a new shape can. That isolates ``_jit.py``'s own
work - the cache key, keyword and static arguments, the counters, the fallbacks and their warning - from any
real compiler, and runs in milliseconds. ``tests/test_jit.py`` runs the real compilers.
"""

from __future__ import annotations

import time
import warnings

import pytest

import xbackend as xb


class FakeCompiler:
    """``compile(fn, example, options)``: returns ``fn`` wrapped; ``fail_after`` calls later, it raises."""

    def __init__(self) -> None:
        self.compiled: list[tuple[int, dict]] = []
        self.fail_after: int | None = None
        self.calls = 0

    def __call__(self, fn, example, options):  # noqa: ANN001
        self.compiled.append((len(example), dict(options)))

        def run(*natives):  # noqa: ANN002
            self.calls += 1
            if self.fail_after is not None and self.calls > self.fail_after:
                raise RuntimeError("retrace for a new shape failed\nsecond line")
            return fn(*natives)

        return run


@pytest.fixture
def fake(monkeypatch):
    comp = FakeCompiler()
    be = xb.asarray([0.0])._be
    monkeypatch.setattr(type(be), "compile", lambda self, fn, example, options: comp(fn, example, options))
    return comp


def _no_warnings():
    return warnings.catch_warnings(record=True)


def test_the_documented_default_cache_size():
    """docs/jit.md: ``cache_size=64`` by default."""
    assert xb.jit(lambda x: x).cache_info().maxsize == 64


def test_compiled_calls_rebuild_python_constants_and_containers(fake):
    """A Python constant, a list and a dict around the Arrays are rebuilt on every compiled call."""

    def f(x, s, pair, opts):
        return {"y": x * s + pair[0] - pair[1], "k": opts["k"], "t": (x, 2)}

    x, fj = xb.asarray([1.0, 2.0]), xb.jit(f)
    with _no_warnings() as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            r = fj(x, 3.0, [x, x], {"k": "name"})
            assert r["y"].tolist() == [3.0, 6.0] and r["k"] == "name" and r["t"][1] == 2
            assert type(r["t"]) is tuple and r["t"][0].tolist() == [1.0, 2.0]
    assert not caught and fake.compiled == [(3, {})] and fj.cache_info().hits == 1  # x three times, one compile


def test_arrays_passed_by_keyword_are_traced_not_baked_in(fake):
    """An Array given by keyword is an input of the compiled function: a second call with other values and
    the same dtype and ndim reuses it and sees the new values (a static argument would be baked in)."""
    f = xb.jit(lambda x, y=None, p=1: x * p + y, static_argnames=("p",))
    x = xb.asarray([1.0, 2.0])
    with _no_warnings() as caught:
        warnings.simplefilter("always")
        assert f(x, y=xb.asarray([10.0, 20.0]), p=2).tolist() == [12.0, 24.0]
        assert f(x, y=xb.asarray([30.0, 40.0]), p=2).tolist() == [32.0, 44.0]
        assert f(x, y=x, p=3).tolist() == [4.0, 8.0]  # a static value is part of the key
    info = f.cache_info()
    assert not caught and (info.misses, info.hits, info.compiles, info.fallbacks) == (2, 1, 2, 0)
    assert fake.compiled[0][0] == 2  # x and y are the compiled function's inputs


def test_counters_count_every_compile_and_time_it(fake):
    f = xb.jit(lambda x: x + 1)
    t0 = time.perf_counter()
    f(xb.asarray([1.0])), f(xb.asarray([1.0], dtype=xb.float32)), f(xb.asarray([1]))
    wall = time.perf_counter() - t0
    info = f.cache_info()
    assert (info.misses, info.compiles, info.currsize) == (3, 3, 3)
    assert 0.0 < info.compile_time_s <= wall


def test_backend_options_reach_the_compiler(fake):
    xb.jit(lambda x: -x, backend_options={"mode": "max"})(xb.asarray([1.0]))
    assert fake.compiled == [(1, {"mode": "max"})]


def test_arrays_of_two_backends_raise_the_eager_error_without_touching_the_cache(fake):
    torch = pytest.importorskip("torch")
    del torch
    f = xb.jit(lambda x, y: x + y)
    with pytest.raises(xb.BackendMismatchError):
        f(xb.asarray([1.0]), xb.asarray([1.0], backend="torch"))
    info = f.cache_info()
    assert (info.misses, info.currsize, info.compiles, info.fallbacks) == (0, 0, 0, 0) and not fake.compiled


def test_a_failing_compiled_call_falls_back_to_eager_once_with_a_named_warning(fake):
    """A compiled call that raises (a torch retrace for new shapes that fails) gives the eager result, warns
    once naming the function and the error's first line, and that entry runs eagerly from then on."""

    def scaled_sum(x):
        return xb.sum(x) * 2

    f = xb.jit(scaled_sum)
    x = xb.asarray([1.0, 2.0, 3.0])
    assert f(x).item() == 12.0
    fake.fail_after = fake.calls
    with pytest.warns(xb.JitFallbackWarning) as caught:
        r = f(x)
        assert r.item() == 12.0 and f(x).item() == 12.0
    assert len(caught) == 1
    msg = str(caught[0].message)
    assert "scaled_sum()" in msg and "RuntimeError: retrace for a new shape failed" in msg and "second" not in msg
    assert f.cache_info().fallbacks == 1 and fake.calls == fake.fail_after + 1  # eager after the first failure


def test_a_compile_that_fails_runs_eagerly_and_a_user_error_propagates(fake, monkeypatch):
    be = xb.asarray([0.0])._be

    def refuse(self, fn, example, options):  # noqa: ANN001
        raise xb._jit.JitUnsupported("no compiler for this")

    monkeypatch.setattr(type(be), "compile", refuse)
    f = xb.jit(lambda x: x * 2)
    with pytest.warns(xb.JitFallbackWarning, match="no compiler for this"):
        assert f(xb.asarray([1.0])).tolist() == [2.0]
    g = xb.jit(lambda x: xb.reshape(x, (5,)))
    with pytest.raises(ValueError):  # the user's own error, from the eager call, not a fallback
        g(xb.asarray([1.0]))


# -- torch: what TorchJit hands torch.compile, and what its guards keep apart ------------------------------------
class FakeTorchCompile:
    """``torch.compile`` stand-in: records its arguments; the compiled graph writes its outputs into static
    buffers that the next call overwrites, as a CUDA-graph replay does (the reason for xb.jit's copies)."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def __call__(self, gm, dynamic=None, **kw):  # noqa: ANN001
        self.calls.append({"dynamic": dynamic, **kw})
        static: list = []

        def replay(*xs):  # noqa: ANN002
            outs = gm(*xs)
            if [b.shape for b in static] != [o.shape for o in outs]:  # a graph per shape: its own buffers
                static[:] = [o.clone() for o in outs]
            for buf, o in zip(static, outs):
                buf.copy_(o)
            return list(static)

        return replay


@pytest.fixture
def torch_compile(monkeypatch):
    torch = pytest.importorskip("torch")
    fake = FakeTorchCompile()
    monkeypatch.setattr(torch, "compile", fake)
    return fake


def _twice(x):
    return [x * 2]


DYNAMO = {"mode": "default"}  # a mode: torch.compile (Dynamo) drives the compiler, our fake here


def test_dynamo_path_gets_fullgraph_and_the_given_options(torch_compile):
    import torch
    from xbackend._backends.torch.jit import TorchJit

    TorchJit(_twice, {"mode": "default"}, on_cpu=True)(torch.ones(3))
    TorchJit(_twice, {"mode": "default", "fullgraph": False}, on_cpu=False)(torch.ones(3))
    assert torch_compile.calls == [{"dynamic": False, "fullgraph": True, "mode": "default"},
                                   {"dynamic": False, "fullgraph": False, "mode": "default"}]  # fmt: skip


def test_only_the_cpu_default_gets_the_blas_keeping_compiler():
    pytest.importorskip("torch")
    from xbackend._backends.torch.jit import TorchJit, _inductor_keeping_blas

    assert TorchJit(_twice, {}, on_cpu=True).direct is _inductor_keeping_blas
    assert TorchJit(_twice, {}, on_cpu=False).options == {"fullgraph": True}  # CUDA: plain Inductor
    for given in ({"backend": "aot_eager"}, {"mode": "default"}, {"options": {"max_autotune": True}}):
        assert TorchJit(_twice, given, on_cpu=True).options == {**given, "fullgraph": True}


def test_compilers_outside_the_direct_list_go_through_dynamo():
    pytest.importorskip("torch")
    from xbackend._backends.torch.jit import _direct_backend

    assert _direct_backend({"backend": "aot_eager"}) is not None and _direct_backend({}) is not None
    assert _direct_backend({"backend": "cudagraphs"}) is None  # a registered compiler that needs Dynamo
    assert _direct_backend({"backend": lambda gm, ex: gm}) is None and _direct_backend({"mode": "default"}) is None


@pytest.mark.parametrize("opts, copies", [({"mode": "reduce-overhead"}, True), ({"mode": "max-autotune"}, True),
                                          ({"mode": "default", "options": {"triton.cudagraphs": True}}, True),
                                          ({"mode": "default"}, False)])  # fmt: skip
def test_cuda_graph_outputs_are_copied_so_results_keep_their_values(torch_compile, opts, copies):
    """A CUDA-graph replay overwrites its static outputs: an Array returned earlier must keep its values
    (one device copy per output); without CUDA graphs, no copy is made."""
    import torch
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(_twice, opts, on_cpu=False)
    first = run(torch.ones(3))[0]
    second = run(torch.full((3,), 5.0))[0]
    assert second.tolist() == [10.0] * 3
    assert (first.tolist() == [2.0] * 3) is copies  # without copies it is the overwritten static buffer


def test_traces_are_symbolic_from_the_second_shape_or_as_asked(torch_compile):
    import torch
    from xbackend._backends.torch.jit import TorchJit

    auto = TorchJit(_twice, DYNAMO)
    auto(torch.ones(3)), auto(torch.ones(4)), auto(torch.ones(7))
    always = TorchJit(_twice, {**DYNAMO, "dynamic": True})
    always(torch.ones(3)), always(torch.ones(4))
    never = TorchJit(_twice, {**DYNAMO, "dynamic": False})
    never(torch.ones(3)), never(torch.ones(4))
    assert (auto.modes, always.modes, never.modes) == (["fake", "symbolic"], ["symbolic"], ["fake", "fake"])
    assert [c["dynamic"] for c in torch_compile.calls] == [False, True, True, False, False]


def test_at_most_eight_traces_per_entry(torch_compile):
    """docs/jit.md: at most 8 traces per entry; past that, xb.jit runs the entry eagerly."""
    import torch
    from xbackend._backends.torch.jit import TorchJit
    from xbackend._jit import JitUnsupported

    run = TorchJit(_twice, {**DYNAMO, "dynamic": False})
    for n in range(2, 10):
        run(torch.ones(n))
    with pytest.raises(JitUnsupported, match="more than 8 variants"):
        run(torch.ones(10))
    assert len(run.traces) == 8 and run(torch.ones(9))[0].tolist() == [2.0] * 9  # the traced ones still run


def test_symbolic_guards_keep_size_one_strides_and_0_d_inputs_apart(torch_compile):
    """A symbolic trace's guard includes what torch specialised (size 1, contiguous strides): a size-1 or
    contiguous trace is never reused for another size or a strided view; a 0-d input has nothing to check."""
    import torch
    from xbackend._backends.torch.jit import TorchJit

    add = TorchJit(lambda x, y: [x + y], {**DYNAMO, "dynamic": True})
    add(torch.ones(1), torch.ones(3))
    assert add(torch.full((3,), 2.0), torch.ones(3))[0].tolist() == [3.0] * 3
    strided = TorchJit(_twice, {**DYNAMO, "dynamic": True})
    strided(torch.ones(5))
    assert strided(torch.arange(10.0)[::2])[0].tolist() == [0.0, 4.0, 8.0, 12.0, 16.0]
    scalar = TorchJit(_twice, {**DYNAMO, "dynamic": True})
    scalar(torch.tensor(1.0)), scalar(torch.tensor(2.0))
    assert (len(add.traces), len(strided.traces), len(scalar.traces)) == (2, 2, 1)


class FakeDirectCompiler:
    """Inductor called directly on our graph: with ``config_patches={"triton.cudagraphs": True}`` its result
    replays into static buffers that the next call overwrites (as CUDA-graph trees do)."""

    def __init__(self, refuse_graphs=False):
        self.calls, self.refuse_graphs = [], refuse_graphs

    def __call__(self, gm, examples, **kw):
        self.calls.append(kw)
        if not kw.get("config_patches", {}).get("triton.cudagraphs"):
            return gm
        if self.refuse_graphs:
            raise RuntimeError("cudagraphs: not supported here")
        static = []

        def replay(*xs):  # noqa: ANN002
            outs = gm(*xs)
            if not static:
                static[:] = [o.clone() for o in outs]
            for buf, o in zip(static, outs):
                buf.copy_(o)
            return list(static)

        return replay


def test_cuda_default_replays_cuda_graphs_and_copies_their_outputs():
    """Issue 28: on CUDA the default direct path compiles with Inductor's CUDA graphs (one replay per call
    instead of a launch per kernel); the replay's static outputs are copied, so earlier results keep their
    values. Inputs that require grad, backend_options={"cudagraphs": False}, and a compile refusing graphs
    get the plain compile."""
    import torch
    from xbackend._backends.torch.jit import TorchJit

    graphs = {"config_patches": {"triton.cudagraphs": True}}
    run = TorchJit(_twice, {}, on_cuda=True)
    run.direct = fake = FakeDirectCompiler()
    first = run(torch.ones(3))[0]
    second = run(torch.full((3,), 5.0))[0]
    assert second.tolist() == [10.0] * 3 and first.tolist() == [2.0] * 3  # not the overwritten buffer
    assert fake.calls == [graphs] and run.graphed == [True] and run.paths == ["direct"]  # one trace, two calls
    run(torch.ones(3, requires_grad=True))  # a backward pass: no graphs
    assert fake.calls[-1] == {} and run.graphed[-1] is False
    off = TorchJit(_twice, {"cudagraphs": False}, on_cuda=True)
    off.direct = fake_off = FakeDirectCompiler()
    off(torch.ones(3))
    refused = TorchJit(_twice, {}, on_cuda=True)
    refused.direct = fake_refused = FakeDirectCompiler(refuse_graphs=True)
    assert refused(torch.ones(2))[0].tolist() == [2.0, 2.0]
    assert fake_off.calls == [{}] and fake_refused.calls == [graphs, {}] and refused.graphed == [False]
    assert not TorchJit(_twice, {}, on_cpu=True).cudagraphs and not TorchJit(_twice, {"mode": "default"},
                                                                               on_cuda=True).cudagraphs


# -- TorchJit's bookkeeping, the examples its compiler gets, and the paths it takes -----------------------------------
class RecordingCompiler:
    """A direct compiler that keeps the example inputs it was given and returns the graph itself (or raises)."""

    def __init__(self, fail=False):
        self.examples, self.fail = [], fail

    def __call__(self, gm, examples, **kw):
        self.examples.append(list(examples))
        if self.fail:
            raise RuntimeError("this compiler wants Dynamo's context")
        return gm


def test_cudagraphs_is_xbackends_option_and_never_reaches_the_compiler():
    import torch  # noqa: F401
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(_twice, {"cudagraphs": False}, on_cpu=True)
    assert "cudagraphs" not in run.options and run.direct is not None  # still the direct path
    assert TorchJit(_twice, {"cudagraphs": False}).options == {"fullgraph": True}


def test_retrace_time_adds_every_trace_after_the_first(monkeypatch):
    """Measured with a clock that advances one second per reading: traces 2 and 3 add one second each, the first
    (timed by @xb.jit itself) nothing."""
    import itertools
    import types

    import torch
    from xbackend._backends.torch import jit as J

    tick = itertools.count()
    monkeypatch.setattr(J, "time", types.SimpleNamespace(perf_counter=lambda: float(next(tick))))
    run = J.TorchJit(_twice, {}, on_cpu=True)
    run.direct = RecordingCompiler()
    seen = []
    for n in (2, 3, 1, 4):  # fake; symbolic (any size >= 2); size 1 (specialised: a new trace); traced already
        assert run(torch.ones(n))[0].tolist() == [2.0] * n
        seen.append(run.retrace_seconds)
    assert seen == [0.0, 1.0, 2.0, 2.0]


def test_the_compiler_gets_the_inputs_or_fake_tensors_with_symbolic_sizes():
    import torch
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(_twice, {}, on_cpu=True)
    run.direct = rec = RecordingCompiler()
    x, y = torch.ones(2), torch.ones(5)
    run(x), run(y)
    assert run.modes == ["fake", "symbolic"]
    assert rec.examples[0][0] is x  # concrete: the real tensor
    sym = rec.examples[1][0]
    assert sym is not y and isinstance(sym.shape[0], torch.SymInt) and not sym.requires_grad
    w = TorchJit(_twice, {"dynamic": True}, on_cpu=True)
    w.direct = rec_w = RecordingCompiler()
    w(torch.ones(3, requires_grad=True))
    assert rec_w.examples[0][0].requires_grad and isinstance(rec_w.examples[0][0].shape[0], torch.SymInt)


def test_a_compiler_that_refuses_the_direct_call_gets_dynamos_context(torch_compile):
    import torch
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(_twice, {}, on_cpu=True)
    run.direct = RecordingCompiler(fail=True)
    assert run(torch.ones(3))[0].tolist() == [2.0] * 3
    assert run.paths == ["dynamo"] and len(torch_compile.calls) == 1  # (the result above: the graph traced again)


def test_a_graph_that_mutates_its_input_goes_through_dynamo(torch_compile):
    import torch
    from xbackend._backends.torch.jit import TorchJit

    def bump(x):
        x.add_(1.0)
        return [x * 2]

    run = TorchJit(bump, {}, on_cpu=True)
    run.direct = RecordingCompiler()
    run(torch.ones(2))
    assert run.paths == ["dynamo"] and run.direct.examples == []


def test_only_0_d_inputs_trace_symbolically_with_nothing_to_guard():
    import torch
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(lambda x: [x * 3], {"dynamic": True}, on_cpu=True)
    run.direct = RecordingCompiler()
    assert run(torch.tensor(2.0))[0].item() == 6.0 and run(torch.tensor(5.0))[0].item() == 15.0
    assert run.modes == ["symbolic"] and len(run.traces) == 1


def test_cuda_graphs_only_when_no_input_needs_a_gradient():
    import torch
    from xbackend._backends.torch.jit import TorchJit

    run = TorchJit(lambda a, b: [a * b], {}, on_cuda=True)
    run.direct = fake = FakeDirectCompiler()
    run(torch.ones(3), torch.ones(3, requires_grad=True))
    assert fake.calls == [{}] and run.graphed == [False]


def test_cpu_defaults_only_when_every_example_is_on_the_cpu():
    import torch
    from xbackend._backends.torch.jit import _inductor_keeping_blas, compile_torch

    mixed = [torch.ones(2), torch.ones(2, device="meta")]
    assert compile_torch(_twice, [torch.ones(2)], {}).options["backend"] is _inductor_keeping_blas
    assert "backend" not in compile_torch(_twice, mixed, {}).options
    assert not compile_torch(_twice, mixed, {}).cudagraphs and not compile_torch(_twice, [], {}).cudagraphs


def test_the_global_state_check_without_dynamos_guard(monkeypatch):
    """An older or stripped torch has no GlobalStateGuard: the Python snapshot sees grad mode and autocast."""
    import sys

    import torch
    from xbackend._backends.torch.jit import _global_state

    monkeypatch.setitem(sys.modules, "torch._C._dynamo.guards", None)  # the import fails
    same = _global_state()
    assert same()
    with torch.no_grad():
        assert not same()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert not same()
    assert same()


def test_after_cuda_graphs_are_refused_the_plain_compile_gets_the_inputs_again():
    import torch
    from xbackend._backends.torch.jit import TorchJit

    class Refusing(RecordingCompiler):
        def __call__(self, gm, examples, **kw):
            self.examples.append(list(examples))
            if kw.get("config_patches", {}).get("triton.cudagraphs"):
                raise RuntimeError("cudagraphs: not supported here")
            return gm

    run = TorchJit(_twice, {}, on_cuda=True)
    run.direct = rec = Refusing()
    x = torch.ones(3)
    assert run(x)[0].tolist() == [2.0] * 3
    assert len(rec.examples) == 2 and rec.examples[1][0] is x and run.graphed == [False]


# -- the jitted function as an object: its name, its cache key, its counters while alive and after ---------------------
def test_a_jitted_function_keeps_the_name_doc_and_wrapped_function():
    def scaled(x):
        """Twice x."""
        return x * 2

    f = xb.jit(scaled)
    assert (f.__name__, f.__doc__, f.__wrapped__) == ("scaled", "Twice x.", scaled)


def test_complex_constants_key_the_cache_by_both_parts():
    @xb.jit
    def shift(x, c):
        return x + c

    x = xb.asarray([1.0 + 0j])
    assert shift(x, 1 + 2j).tolist() == [2 + 2j] and shift(x, 1 + 3j).tolist() == [2 + 3j]
    assert shift(x, 5 + 3j).tolist() == [6 + 3j] and shift.cache_info().misses == 3


def test_the_process_counters_are_the_sums_of_every_jitted_functions_alive_and_retired():
    import gc
    import weakref

    gc.collect()
    before = xb.jit_cache_info()

    torch = pytest.importorskip("torch")

    def make(k):
        @xb.jit(cache_size=7 + k, backend_options={"backend": "aot_eager"})
        def f(x):
            return x * k

        return f

    f1, f2 = make(1), make(2)
    for n in (1, 2, 2, 3):  # compiled on torch: compile time, shapes (retraces), hits
        f1(xb.asarray(torch.ones(n)))
    f2(xb.ones(4))  # NumPy: eager
    infos = [f1.cache_info(), f2.cache_info()]
    now = xb.jit_cache_info()
    for field in ("hits", "misses", "compiles", "fallbacks", "currsize", "maxsize"):
        assert getattr(now, field) - getattr(before, field) == sum(getattr(i, field) for i in infos), field
    assert now.compile_time_s - before.compile_time_s == pytest.approx(sum(i.compile_time_s for i in infos))
    kept = f1.cache_info()
    f1.cache_clear()  # its retraces still count
    assert (f1.cache_info().compiles, f1.cache_info().currsize) == (kept.compiles, 0)
    dead = weakref.ref(f1)
    del f1
    gc.collect()
    assert dead() is None  # nothing keeps a jitted function alive
    after = xb.jit_cache_info()
    gone = infos[0]
    assert (after.hits, after.misses, after.compiles, after.fallbacks) == (now.hits, now.misses, now.compiles,
                                                                           now.fallbacks)  # fmt: skip
    assert gone.compile_time_s > 0 and after.compile_time_s == pytest.approx(now.compile_time_s)  # retired, counted
    assert (after.currsize, after.maxsize) == (now.currsize - gone.currsize, now.maxsize - gone.maxsize)


def test_an_evicted_entry_keeps_its_retraces_counted():
    torch = pytest.importorskip("torch")

    @xb.jit(cache_size=1, backend_options={"backend": "aot_eager"})
    def f(x):
        return x + 1

    for n in (2, 3, 1):  # one entry (float32, 1-d), three traces: fake, symbolic, size 1
        f(xb.asarray(torch.ones(n)))
    first = f.cache_info()
    f(xb.asarray(torch.ones(2, dtype=torch.float64)))  # another dtype: a new entry evicts the first
    now = f.cache_info()
    assert first.compiles == 3 and now.compiles == 4 and now.currsize == 1
    assert now.compile_time_s >= first.compile_time_s
