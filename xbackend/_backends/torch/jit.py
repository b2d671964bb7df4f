"""``@xb.jit`` on torch: trace xbackend code to the aten calls it makes, then ``torch.compile``.

Design constraint: a compiled variant is only ever run on inputs its trace is valid for.

Why not ``torch.compile`` of the user function directly: Dynamo would have to trace through xbackend
itself (dispatch dicts, frozensets, ``contextvars``, ``object.__new__``), and it graph-breaks there. So
the function runs once under ``make_fx`` instead: xbackend's Python runs for real (promotion, special
cases, uint emulation), on fake tensors, and only the torch operations it issues are recorded. Fake
tensors have no values, so anything data-dependent (``float(x)``, ``if x > 0``, ``x.item()``) raises
while tracing - never a trace that bakes in one input's values. The recorded graph goes to the compiler
(Inductor by default; AOTAutograd derives the backward pass, so autograd flows through).

Per-call cost: the compiled graph is called directly, behind our own guard (shapes and strides, grad
mode, each input's ``requires_grad``, distinct inputs, and torch's global state as Dynamo's own
``GlobalStateGuard`` reads it: autocast, TF32, deterministic algorithms, the default dtype, ...; a call
under another state traces again), not through ``torch.compile``'s Dynamo frame,
whose guard evaluation cost a third of the demo's training step (see :func:`_direct_backend`). Graphs
that mutate an input, traces of aliased inputs, and compilers other than inductor/aot_eager/eager or
with ``mode``/``options`` go through ``torch.compile(fullgraph=True)`` as before (``paths`` says which).

Shape policy (torch's own "automatic dynamic", applied to our traces): the first trace has concrete
shapes (the fastest code: 0.12 s vs 0.15 s per call on the 1e7-element chain, benchmarks/jit.py
--shapes); when a call's shapes fail its guard, the next trace is symbolic (``tracing_mode="symbolic"``):
sizes are symbols, and every decision the Python code made on them becomes a guard of the ShapeEnv. A
call evaluates the guards of the traces it has (a few comparisons) and retraces when none holds - so
after the second shape, arrays of a new size with the same ndim reuse the symbolic trace; sizes 0 and 1
(specialised by torch) get their own. Code that cannot take symbolic sizes (``x.shape[0]`` used as a
scalar operand, say) is traced again with concrete shapes, and then each new shape is a new trace.
``backend_options={"dynamic": True}`` traces symbolically from the start, ``{"dynamic": False}`` never.
At most ``MAX_TRACES`` traces per cache entry; past that, it runs eagerly.

CUDA graphs (``mode="reduce-overhead"`` or ``"max-autotune"``, or ``options={"triton.cudagraphs": True}``)
replay into static output buffers that the next call overwrites; xb.jit returns copies of them (a
device-to-device copy per output), so an Array it returned keeps its values. On CUDA the default direct path
uses them too (Inductor's CUDA-graph trees, ``backend_options={"cudagraphs": False}`` turns them off): a
small step is a chain of kernel launches whose host cost exceeds the GPU's work (the H200 run of 2026-12-04:
the compiled logistic-regression step took 0.18 ms for 0.27 ms eager, short of the 2x goal), and a replay is
one launch. Only for traces whose inputs do not require grad (a graph with a backward pass runs without
them), and the inputs are copied into the graph's own buffers on each call (no input is assumed static).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Literal

from ..._errors import JitUnsupported

MAX_TRACES = 8


class TorchJit:
    """A compiled function of native tensors: a list of (guard, compiled graph) pairs, traced on demand."""

    def __init__(self, fn: Callable[..., list[Any]], options: dict[str, Any], on_cpu: bool = False,
                 on_cuda: bool = False) -> None:  # fmt: skip
        opts = dict(options)
        dyn = opts.pop("dynamic", None)
        self.dynamic: bool | None = None if dyn is None else bool(dyn)
        want_graphs = opts.pop("cudagraphs", None)
        opts.setdefault("fullgraph", True)
        plain = not {"backend", "mode", "options"} & set(opts)
        if on_cpu and plain:
            opts["backend"] = _inductor_keeping_blas
        self.options = opts
        self.direct = _direct_backend(opts)
        # the default direct path on CUDA replays CUDA graphs (Inductor's graph trees), unless turned off
        self.cudagraphs = bool(on_cuda and plain and want_graphs is not False and self.direct is not None)
        self.graphed: list[bool] = []  # per trace: whether it replays a CUDA graph
        graphs = opts.get("mode") in ("reduce-overhead", "max-autotune")
        self.copy_out = graphs or bool((opts.get("options") or {}).get("triton.cudagraphs"))
        self.fn = fn
        self.traces: list[tuple[Callable[[tuple[Any, ...]], bool], Callable[..., Any]]] = []
        self.modes: list[str] = []  # "symbolic" or "fake", per trace (tests and docs read this)
        self.paths: list[str] = []  # "direct" (our guard, then the compiled graph) or "dynamo", per trace
        self.retrace_seconds = 0.0  # tracing and compiling after the first trace (new shapes)
        self._shapes: set[tuple[Any, ...]] = set()  # the shapes traced so far (auto: symbolic from a 2nd one)
        self._lock = threading.Lock()

    def __call__(self, *xs: Any) -> Any:
        for guard, compiled in self.traces:
            if guard(xs):
                return compiled(*xs)
        with self._lock:
            for guard, compiled in self.traces:  # another thread may have traced meanwhile
                if guard(xs):
                    break
            else:
                if len(self.traces) >= MAX_TRACES:
                    raise JitUnsupported(f"more than {MAX_TRACES} variants (the code branches on shapes, or "
                                         "calls alternate requires_grad/grad mode)")  # fmt: skip
                t0 = time.perf_counter()
                guard, compiled = self._trace(xs)
                out = compiled(*xs)  # (the Dynamo path compiles on this first call)
                self.traces.append((guard, compiled))
                if len(self.traces) > 1:  # the first trace is timed by @xb.jit itself
                    self.retrace_seconds += time.perf_counter() - t0
                return out
        return compiled(*xs)

    def _trace(self, xs: tuple[Any, ...]) -> tuple[Callable[[tuple[Any, ...]], bool], Callable[..., Any]]:
        import torch
        from torch.fx.experimental.proxy_tensor import make_fx

        detached = [x.detach() for x in xs]  # the trace records the forward; the compiler adds the backward
        shapes = tuple(tuple(x.shape) for x in xs)
        gm = None
        mode: Literal["fake", "symbolic"] = "fake"
        if self.dynamic or (self.dynamic is None and self._shapes and shapes not in self._shapes):
            try:  # auto: symbolic from the second shape on
                gm = make_fx(self.fn, tracing_mode="symbolic")(*detached)
                guard = _symbolic_guard(gm)
                mode = "symbolic"
            except Exception:  # e.g. a symbolic size used as a Python scalar: concrete shapes will do
                gm = None
        if gm is None:
            gm = make_fx(self.fn, tracing_mode="fake")(*detached)
            guard = _exact_guard(xs)
            mode = "fake"
        self._shapes.add(shapes)
        _keep_autograd_semantics()
        compiled = None
        graphed = False
        if self.direct is not None and _direct_ok(gm, xs):
            examples = _examples(gm, xs, mode)
            graphs = self.cudagraphs and not any(x.requires_grad for x in xs)
            try:
                if graphs:
                    try:
                        compiled = _copied(self.direct(gm, examples, config_patches={"triton.cudagraphs": True}))
                        graphed = True
                    except Exception:  # CUDA graphs refused at compile time: the same compile without them
                        gm = make_fx(self.fn, tracing_mode=mode)(*detached)
                        examples = _examples(gm, xs, mode)
                if compiled is None:
                    compiled = self.direct(gm, examples)
                guard = _autograd_guard(xs, guard)
                path = "direct"
            except Exception:  # the compiler wants Dynamo's context after all: let Dynamo drive it
                compiled, graphed = None, False
                gm = make_fx(self.fn, tracing_mode=mode)(*detached)  # the compiler may have changed the graph
        if compiled is None:
            compiled = torch.compile(gm, dynamic=mode == "symbolic", **self.options)
            path = "dynamo"
            if self.copy_out:  # CUDA graph outputs live in static buffers the next replay overwrites
                compiled = _copied(compiled)
        guard = _with_global_state(guard)
        self.modes.append(mode)
        self.paths.append(path)
        self.graphed.append(graphed)
        return guard, compiled


_DIRECT_NAMES = ("inductor", "aot_eager", "eager")  # backends known to compile a graph outside Dynamo


def _direct_backend(opts: dict[str, Any]) -> Callable[..., Any] | None:
    """The compiler to call on our graph directly, or ``None``: let ``torch.compile`` (Dynamo) drive it.

    Why: Dynamo's own per-call work (evaluating its guards, entering its frame hooks) cost 0.13 ms per
    call of the 20000 x 16 logistic-regression step (0.39 ms vs 0.26 ms, one thread) - a third of the
    step, enough to lose to raw eager torch. Our graph is already a complete aten trace with its own
    guards (shapes, strides; plus grad mode, ``requires_grad`` and input aliasing, which the compiler
    baked in and Dynamo would otherwise check), so Dynamo adds nothing. Only for the compilers known to
    work without Dynamo's context, with no ``mode``/``options``; anything else goes through
    ``torch.compile`` as before."""
    if set(opts) - {"fullgraph", "backend"}:
        return None
    backend = opts.get("backend", "inductor")
    if backend is _inductor_keeping_blas:
        return backend
    if isinstance(backend, str) and backend in _DIRECT_NAMES:
        from torch._dynamo import lookup_backend

        return lookup_backend(backend)
    return None


def _direct_ok(gm: Any, xs: tuple[Any, ...]) -> bool:
    """A graph that mutates nothing, traced on distinct inputs: no aliasing for Dynamo to have guarded."""
    if len({id(x) for x in xs}) != len(xs):
        return False
    for node in gm.graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op == "call_function" and schema is not None and schema.is_mutable:
            return False
    return True


def _examples(gm: Any, xs: tuple[Any, ...], mode: str) -> list[Any]:
    """Example inputs for the compiler: the real tensors (concrete shapes), or the trace's fake tensors
    with symbolic sizes (so the compiled code reads sizes from its inputs), ``requires_grad`` as given."""
    if mode != "symbolic":
        return list(xs)
    vals = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    return [v.detach().requires_grad_(True) if x.requires_grad else v for v, x in zip(vals, xs)]


def _copied(compiled: Callable[..., Any]) -> Callable[..., Any]:
    def run(*xs: Any) -> list[Any]:
        return [o.clone() for o in compiled(*xs)]

    return run


def _global_state() -> Callable[[], bool]:
    """A check that torch's global state is what it is now: Dynamo's ``GlobalStateGuard`` (grad mode,
    autocast on every device and its dtype, TF32, deterministic algorithms, the default dtype, threads,
    ...; one C++ call, ~0.25 µs), else a snapshot of those read from Python."""
    try:
        from torch._C._dynamo.guards import GlobalStateGuard

        return GlobalStateGuard().check
    except Exception:  # noqa: BLE001  (an older or stripped build)
        import torch

        def snapshot() -> tuple[Any, ...]:
            amp = tuple((d, torch.is_autocast_enabled(d), torch.get_autocast_dtype(d)) for d in ("cpu", "cuda"))
            return (torch.is_grad_enabled(), amp, torch.backends.cuda.matmul.allow_tf32,
                    torch.backends.cudnn.allow_tf32, torch.are_deterministic_algorithms_enabled(),
                    torch.get_default_dtype())  # fmt: skip

        want = snapshot()
        return lambda: snapshot() == want


def _with_global_state(guard: Callable[[tuple[Any, ...]], bool]) -> Callable[[tuple[Any, ...]], bool]:
    """``guard`` and: torch's global state is the one the trace was made (and compiled) under. A traced
    graph has autocast's casts, TF32 and deterministic kernels baked in; called under another state it
    would silently ignore it, so such a call traces again."""
    same = _global_state()

    def check(ys: tuple[Any, ...]) -> bool:
        return same() and guard(ys)

    return check


def _autograd_guard(xs: tuple[Any, ...], shape_guard: Callable[[tuple[Any, ...]], bool]
                    ) -> Callable[[tuple[Any, ...]], bool]:  # fmt: skip
    """``shape_guard`` plus what a directly compiled graph baked in: grad mode, each input's
    ``requires_grad`` (which gradients the compiled backward computes), distinct inputs."""
    import torch

    grad_on = torch.is_grad_enabled
    want = torch.is_grad_enabled()
    rgs = tuple(x.requires_grad for x in xs)
    n = len(xs)

    def guard(ys: tuple[Any, ...]) -> bool:
        if grad_on() is not want:
            return False
        for y, r in zip(ys, rgs):
            if y.requires_grad is not r:
                return False
        if n > 1 and len({id(y) for y in ys}) != n:
            return False
        return shape_guard(ys)

    return guard


def _keep_autograd_semantics() -> None:
    """Turn AOTAutograd's donated buffers off.

    Eager torch allows ``backward(retain_graph=True)`` and ``create_graph=True`` (gradcheck uses them);
    a graph compiled with donated buffers raises there instead. The switch is process-wide
    (``torch._functorch.config.donated_buffer``, read again at backward time, so a scoped patch around
    the compile does not hold): the first jitted torch compile turns it off, costing some peak memory in
    backward passes of compiled code, never a result. docs/jit.md says so.
    """
    import torch._functorch.config as functorch_config

    functorch_config.donated_buffer = False


def _exact_guard(xs: tuple[Any, ...]) -> Callable[[tuple[Any, ...]], bool]:
    want = [(x.shape, x.stride()) for x in xs]

    def guard(ys: tuple[Any, ...]) -> bool:
        for y, (s, st) in zip(ys, want):
            if y.shape != s or y.stride() != st:
                return False
        return True

    return guard


def _symbolic_guard(gm: Any) -> Callable[[tuple[Any, ...]], bool]:
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP

    phs = [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"]
    env = None
    for p in phs:
        for s in tuple(p.shape) + tuple(p.stride()):
            node = getattr(s, "node", None)
            if node is not None:
                env = node.shape_env
                break
        if env is not None:
            break
    if env is None:  # only 0-d inputs: nothing symbolic, nothing to check but the ndim (already keyed)
        return lambda ys: True
    text = env.produce_guards_expression(phs, ignore_static=False) or "True"  # (a symbolic size always has guards)
    code = compile(text, "<xb.jit shape guards>", "eval")
    names = [f"t{i}" for i in range(len(phs))]

    def guard(ys: tuple[Any, ...]) -> bool:
        return bool(eval(code, SYMPY_INTERP, {"L": dict(zip(names, ys))}))

    return guard


_MATMULS = ("aten.mv.", "aten.addmv.", "aten.mm.", "aten.addmm.", "aten.bmm.", "aten.baddbmm.", "aten.dot.")
_DECOMPS: dict[Any, Any] | None = None


def _inductor_keeping_blas(gm: Any, example_inputs: Any) -> Any:
    """Inductor, minus its decompositions of matrix products into multiply-and-sum loops: on the CPU
    those loops ran 4-5x slower than the BLAS call they replace (the demo's 20000 x 16 logistic-regression
    step: 4.4 ms compiled vs 0.9 ms eager, one thread), so the products stay library calls and Inductor
    fuses what lies between them.

    AOTAutograd's on-disk cache is off for this compile: on this machine it served the step a cached
    forward graph with the products decomposed again (1.7 ms per step instead of 0.45 ms, one thread),
    left by earlier compiles of the same trace; a deliberate repeat (a plain Inductor compile, then this
    one, sharing a fresh cache folder) did not collide, so the cause is not pinned down - the cache is
    simply not trusted here. Inductor's own cache, keyed by the graph after decomposition, still serves
    repeated compiles (the trace through AOTAutograd is redone: about a second)."""
    global _DECOMPS
    import torch._functorch.config as functorch_config
    from torch._inductor.compile_fx import compile_fx

    if _DECOMPS is None:
        from torch._inductor.decomposition import select_decomp_table

        from torch._inductor.lowering import lowerings, make_fallback

        table = select_decomp_table()
        kept = [k for k in table if str(k).startswith(_MATMULS)]
        for op in kept:  # no lowering of its own (mv, addmv, dot): the library call, registered up front -
            if op not in lowerings:  # Inductor's lazy fallback raises when the CI variable is set
                make_fallback(op, override_decomp=True)  # (a check meant for torch's own decomposition table)
        _DECOMPS = {k: v for k, v in table.items() if k not in kept}
    with functorch_config.patch(enable_autograd_cache=False):
        return compile_fx(gm, example_inputs, decompositions=_DECOMPS)


def compile_torch(fn: Callable[..., list[Any]], example: list[Any], options: dict[str, Any]) -> TorchJit:
    """The torch backend's ``compile`` hook (see :meth:`xbackend.Backend.compile`)."""
    on_cpu = bool(example) and all(x.device.type == "cpu" for x in example)
    on_cuda = bool(example) and all(x.device.type == "cuda" for x in example)
    return TorchJit(fn, options, on_cpu=on_cpu, on_cuda=on_cuda)
