"""One gradient step of the demo's model: ``xb.grad`` on NumPy, torch (and CuPy, torch-CUDA) vs raw torch autograd.

Run: ``python benchmarks/grad.py [--gpu] [--quick] [--repeat R] [--threads N] [--out FILE]``.

The step (``python -m xbackend demo``: ``make_clicks(20000, 16)``, float64, lr 0.5): the mean log-loss
``mean(logaddexp(0, X w + b) - y (X w + b))``, its gradient with respect to ``w`` and ``b``, and the update.
Rows, per device, all on the same data (the torch tensors share the NumPy memory on the CPU):

- ``raw torch .backward()``  hand-written torch: leaves that require grad, ``loss.backward()``, the update under
  ``torch.no_grad()``, ``.grad`` reset - the reference of every ratio;
- ``raw torch autograd.grad``  hand-written torch, functional: ``torch.autograd.grad`` on the two leaves;
- ``xb.grad numpy`` / ``xb.grad cupy``  ``xb.value_and_grad`` of the loss written against xbackend on NumPy (CuPy)
  Arrays: moved to torch without a copy, differentiated there, gradients moved back; the update on NumPy (CuPy);
- ``xb.grad torch``  the same code on torch Arrays;
- ``xb .backward() torch``  the PyTorch-style loop written against xbackend (``requires_grad=True``,
  ``loss.backward()``, update under ``xb.no_grad()``);
- ``xb.grad + @xb.jit torch``  the step (gradient and update) compiled by ``@xb.jit`` (Inductor; the compile time
  is left out of the medians);
- ``numpy hand-derived``  the step in plain NumPy with the gradient derived by hand (what the demo did before).

``--instructions ROW STEPS`` runs one row alone for ``valgrind --tool=callgrind`` (instructions per step, exact:
see :func:`instructions_run`). ``--profile`` prints, instead of times, what one step of each row asks of the
device (torch.profiler, CUPTI on a GPU: the runtime and driver calls of torch and CuPy alike): kernel launches,
host synchronisations (stream, device and event synchronize, synchronous copies), event records and stream
waits, allocations, aten ops, and the host's CPU time per step - where a ratio's gap comes from.
Goals (issue 22): ``xb.grad`` on NumPy within 1.2x of raw torch on the same CPU data, on torch within 1.1x of
raw torch autograd; on a GPU the same ratios for CuPy and torch-CUDA. Every ratio is taken, round by round, to the
faster of the two raw torch rows of that round, and the median of those ratios is reported. The calls of a round interleave, so the
machine's load hits every row alike; a sample times a batch of steps (about ``--sample-ms``) and divides;
medians over ``--repeat`` rounds. ``--threads`` sets torch's intra-op threads (default 1: on this shared 2-core
machine torch's thread pool stalls for milliseconds when the other core is busy, which moves every row), and BLAS
runs on one thread. ``--clock cpu`` (the default on the CPU) times the process's CPU time rather than elapsed time:
with one thread that is the step's cost, and the other jobs of a shared machine do not count in it (their load
moved elapsed-time ratios by +-50 % between runs here); ``--gpu`` always uses elapsed time, synchronised.
"""

from __future__ import annotations

import os
import sys

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # one BLAS thread (before NumPy loads)
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import xbackend as xb  # noqa: E402
from xbackend._demo import make_clicks  # noqa: E402
from xbackend._demo import log_loss  # noqa: E402

LR = 0.5


# -- the step written against xbackend (once) -------------------------------------------------------
def xb_step(vg: Callable[..., Any], w: Any, b: Any, X: Any, y: Any) -> tuple[Any, Any, Any]:
    loss, (gw, gb) = vg(w, b, X, y)
    return w - LR * gw, b - LR * gb, loss


def xb_step_jittable(w: Any, b: Any, X: Any, y: Any) -> tuple[Any, Any, Any]:
    loss, (gw, gb) = xb.value_and_grad(log_loss, argnums=(0, 1))(w, b, X, y)
    return w - LR * gw, b - LR * gb, loss


class XbBackward:
    """The PyTorch-style loop against xbackend: parameters that require grad, backward, update under no_grad."""

    def __init__(self, X: Any, y: Any) -> None:
        self.X, self.y = X, y
        self.w = xb.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
        self.b = xb.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)

    def __call__(self) -> Any:
        loss = log_loss(self.w, self.b, self.X, self.y)
        loss.backward()
        with xb.no_grad():
            self.w -= LR * self.w.grad
            self.b -= LR * self.b.grad
        self.w.grad = self.b.grad = None
        return loss


# -- the same, hand-written in torch ----------------------------------------------------------------------
class RawBackward:
    def __init__(self, torch: Any, X: Any, y: Any) -> None:
        self.t, self.X, self.y = torch, X, y
        self.w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
        self.b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
        self.zero = torch.zeros((), dtype=X.dtype, device=X.device)

    def __call__(self) -> Any:
        t = self.t
        z = self.X @ self.w + self.b
        loss = (t.logaddexp(self.zero, z) - self.y * z).mean()
        loss.backward()
        with t.no_grad():
            self.w -= LR * self.w.grad
            self.b -= LR * self.b.grad
        self.w.grad = self.b.grad = None
        return loss


class RawGrad:
    def __init__(self, torch: Any, X: Any, y: Any) -> None:
        self.t, self.X, self.y = torch, X, y
        self.w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device)
        self.b = torch.zeros((), dtype=X.dtype, device=X.device)
        self.zero = torch.zeros((), dtype=X.dtype, device=X.device)

    def __call__(self) -> Any:
        t = self.t
        w, b = self.w.requires_grad_(True), self.b.requires_grad_(True)
        z = self.X @ w + b
        loss = (t.logaddexp(self.zero, z) - self.y * z).mean()
        gw, gb = t.autograd.grad(loss, (w, b))
        self.w, self.b = w.detach() - LR * gw, b.detach() - LR * gb
        return loss.detach()


def numpy_hand_derived(X: np.ndarray, y: np.ndarray) -> Callable[[], Any]:
    state = [np.zeros(X.shape[1]), 0.0]

    def step() -> Any:
        w, b = state
        err = 1.0 / (1.0 + np.exp(-(X @ w + b))) - y
        state[0] = w - LR * (X.T @ err) / len(y)
        state[1] = b - LR * float(err.sum()) / len(y)
        return state[0]

    return step


# -- timing ------------------------------------------------------------------------------------------
def interleaved(fns: dict[str, Callable[[], Any]], sync: Callable[[], None], repeat: int, sample_s: float,
                clock: Callable[[], float] = time.perf_counter) -> dict[str, list[float]]:  # fmt: skip
    """Seconds per call of each function, one sample per round; the rounds interleave the functions (rotating
    the order), so a sample of every function comes from the same stretch of the machine's load."""
    inner: dict[str, int] = {}
    for k, f in fns.items():
        for _ in range(3):
            f()
        sync()
        t0 = time.perf_counter()
        f()
        sync()
        inner[k] = max(1, min(2000, int(sample_s / max(time.perf_counter() - t0, 1e-9))))  # (by the wall clock)
    samples: dict[str, list[float]] = {k: [] for k in fns}
    keys = list(fns)
    for r in range(repeat):
        for k in keys[r % len(keys):] + keys[: r % len(keys)]:
            f = fns[k]
            t0 = clock()
            for _ in range(inner[k]):
                f()
            sync()
            samples[k].append((clock() - t0) / inner[k])
    return samples


def rows_for(device: str, repeat: int, sample_s: float, n: int, d: int, jit: bool,
             clock: Callable[[], float]) -> list[tuple[str, float, str]]:  # fmt: skip
    fns, goals, sync, compile_note = build_rows(device, n, d, jit)
    samples = interleaved(fns, sync, repeat, sample_s, clock)
    # per round: each row over the faster raw torch spelling of that round; the median of those ratios
    refs = [min(a, b) for a, b in zip(samples["raw torch .backward()"], samples["raw torch autograd.grad"])]
    out = []
    for k, v in samples.items():
        ratio = statistics.median(x / r for x, r in zip(v, refs))
        note = compile_note if "@xb.jit" in k else ""
        goal = goals.get(k, "")
        if goal:
            ok = ratio <= float(goal.split()[-1])
            note = f"goal {goal}: {'met' if ok else 'MISSED'}" + (f"; {note}" if note else "")
        out.append((k, ratio, f"{statistics.median(v) * 1e3:.3f}|{note}"))
    return out


def build_rows(device: str, n: int, d: int,
               jit: bool) -> tuple[dict[str, Callable[[], Any]], dict[str, str], Callable[[], None], str]:  # fmt: skip
    """The step of every row (one call = one training step), the goals, the device sync, the jit compile note."""
    import torch

    X_np, y_np, _ = make_clicks(n, d)
    cuda = device.startswith("cuda")
    Xt = torch.from_numpy(X_np).to(device)
    yt = torch.from_numpy(y_np).to(device)
    vg = xb.value_and_grad(log_loss, argnums=(0, 1))
    fns: dict[str, Callable[[], Any]] = {}
    goals: dict[str, str] = {}
    fns["raw torch .backward()"] = RawBackward(torch, Xt, yt)
    fns["raw torch autograd.grad"] = RawGrad(torch, Xt, yt)
    if cuda:
        import cupy

        Xc, yc = xb.asarray(cupy.asarray(X_np)), xb.asarray(cupy.asarray(y_np))
        host_like = [xb.zeros(d, device=Xc.device), xb.zeros((), device=Xc.device)]
        sync: Callable[[], None] = torch.cuda.synchronize
        name = "xb.grad cupy"
    else:
        Xc, yc = xb.asarray(X_np), xb.asarray(y_np)
        host_like = [xb.zeros(d), xb.zeros(())]
        sync = lambda: None  # noqa: E731
        name = "xb.grad numpy"
    p_src = host_like

    def src_step() -> Any:
        p_src[0], p_src[1], loss = xb_step(vg, p_src[0], p_src[1], Xc, yc)
        return loss

    fns[name] = src_step
    goals[name] = "<= 1.2"
    Xx, yx = xb.asarray(Xt), xb.asarray(yt)
    p_t = [xb.zeros(d, dtype=xb.float64, device=Xx.device), xb.zeros((), dtype=xb.float64, device=Xx.device)]

    def torch_step() -> Any:
        p_t[0], p_t[1], loss = xb_step(vg, p_t[0], p_t[1], Xx, yx)
        return loss

    fns["xb.grad torch"] = torch_step
    goals["xb.grad torch"] = "<= 1.1"
    fns["xb .backward() torch"] = XbBackward(Xx, yx)
    compile_note = ""
    if jit:
        jitted = xb.jit(xb_step_jittable)
        p_j = [xb.zeros(d, dtype=xb.float64, device=Xx.device), xb.zeros((), dtype=xb.float64, device=Xx.device)]
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", xb.JitFallbackWarning)
            jitted(p_j[0], p_j[1], Xx, yx)
        sync()
        info = jitted.cache_info()
        compile_note = f"compile {time.perf_counter() - t0:.1f} s" + (", FELL BACK to eager" if info.fallbacks else "")

        def jit_step() -> Any:
            p_j[0], p_j[1], loss = jitted(p_j[0], p_j[1], Xx, yx)
            return loss

        fns["xb.grad + @xb.jit torch"] = jit_step
    if not cuda:
        fns["numpy hand-derived"] = numpy_hand_derived(X_np, y_np)
    return fns, goals, sync, compile_note


def instructions_run(row: str, steps: int) -> None:
    """For ``valgrind --tool=callgrind``: build every row and warm each up alike, then run ``steps`` steps of
    ``row`` (``none``: no step). Instructions per step = (count of a row run - count of the ``none`` run) / steps:
    an exact, noise-free measure of the work, which elapsed or CPU time on a shared machine is not."""
    fns, _, _, _ = build_rows("cpu", 20_000, 16, jit=False)
    for f in fns.values():
        for _ in range(10):
            f()
    if row != "none":
        f = fns[row]
        for _ in range(steps):
            f()


#: CUDA runtime / driver calls by what they cost a step (names as torch.profiler reports them)
_PROFILE_KINDS = {
    "launches": ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx"),
    "host syncs": ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cuStreamSynchronize",
                   "cuCtxSynchronize", "cuEventSynchronize", "cudaMemcpy", "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2"),
    "events": ("cudaEventRecord", "cudaStreamWaitEvent", "cuEventRecord", "cuStreamWaitEvent", "cudaEventCreate",
               "cudaEventCreateWithFlags", "cuEventCreate"),
    "allocs": ("cudaMalloc", "cudaFree", "cuMemAlloc_v2", "cuMemFree_v2", "cudaMallocAsync", "cudaFreeAsync"),
}  # fmt: skip


def profile_rows(device: str, n: int, d: int, steps: int = 20) -> list[str]:
    """Per row, per step: what the device is asked to do (see the module docstring, ``--profile``)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    fns, _, sync, _ = build_rows(device, n, d, jit=False)
    cuda = device.startswith("cuda")
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    head = (f"{'row':<28}{'aten ops':>9}{'launches':>9}{'kernels':>8}{'host syncs':>11}{'events':>7}{'allocs':>7}"
            f"{'CPU ms':>8}")
    lines = [f"# one step of each row, {steps} steps profiled (torch.profiler{', CUDA' if cuda else ''}); the closing "
             "synchronisation of the loop is not counted", head]
    for name, f in fns.items():
        for _ in range(3):
            f()
        sync()
        with profile(activities=acts) as prof:
            t0 = time.process_time()
            for _ in range(steps):
                f()
            cpu = (time.process_time() - t0) / steps
            sync()
        counts = dict.fromkeys(_PROFILE_KINDS, 0)
        aten = kernels = 0
        for ev in prof.events():
            if ev.name.startswith("aten::"):
                aten += 1
            elif str(getattr(ev, "device_type", "")).endswith("CUDA"):
                kernels += 1
            for kind, names in _PROFILE_KINDS.items():
                if ev.name in names:
                    counts[kind] += 1
        if cuda:
            counts["host syncs"] -= 1  # the loop's closing torch.cuda.synchronize()
        per = {k: v / steps for k, v in counts.items()}
        lines.append(f"{name:<28}{aten / steps:>9.1f}{per['launches']:>9.1f}{kernels / steps:>8.1f}"
                     f"{per['host syncs']:>11.2f}{per['events']:>7.1f}{per['allocs']:>7.2f}{cpu * 1e3:>8.3f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="the CUDA rows (torch-CUDA, CuPy) instead of the CPU ones")
    ap.add_argument("--quick", action="store_true", help="fewer rounds, shorter samples, no @xb.jit row")
    ap.add_argument("--repeat", type=int, default=31)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (CPU rows)")
    ap.add_argument("--sample-ms", type=float, default=20.0)
    ap.add_argument("--clock", choices=("cpu", "wall"), default=None,
                    help="cpu: the process's CPU time (default on the CPU: other jobs on a shared machine do not count); "
                         "wall: elapsed time (always with --gpu)")
    ap.add_argument("--out", type=Path, default=None, help="also write the table to this file")
    ap.add_argument("--profile", action="store_true",
                    help="per step: kernel launches, host syncs, events, allocations, aten ops (no timing)")
    ap.add_argument("--instructions", nargs=2, metavar=("ROW", "STEPS"), default=None,
                    help="run STEPS steps of ROW (or 'none') and nothing else, for valgrind --tool=callgrind")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    if args.instructions is not None:
        instructions_run(args.instructions[0], int(args.instructions[1]))
        return 0
    if args.profile:
        if args.gpu and not torch.cuda.is_available():
            print("no CUDA device: nothing to profile with --gpu")
            return 0
        lines = profile_rows("cuda" if args.gpu else "cpu", 20_000, 16)
        print("\n".join(lines))
        if args.out is not None:
            args.out.write_text("\n".join(lines) + "\n")
        return 0
    repeat = min(args.repeat, 7) if args.quick else args.repeat
    sample_s = (5.0 if args.quick else args.sample_ms) / 1e3
    device = "cuda" if args.gpu else "cpu"
    clock_name = "wall" if args.gpu else (args.clock or "cpu")
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    if args.gpu and not torch.cuda.is_available():
        print("no CUDA device: nothing to measure with --gpu")
        return 0
    head = (f"# python benchmarks/grad.py {' '.join(argv if argv is not None else sys.argv[1:])}\n"
            f"# torch {torch.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
            f"torch threads {torch.get_num_threads()}, BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS')}, "
            f"device {device}, clock {clock_name}"
            + (f" ({torch.cuda.get_device_name(0)})" if args.gpu else "")
            + "\n# one step of the demo's model (make_clicks(20000, 16), float64): loss, gradient of w and b, update;"
            "\n# ms = median per step over interleaved rounds; ratio = median over rounds of (the row's time / the faster raw"
            "\n# torch row's time in the same round): the machine's load drifts between rounds, not within one")
    lines = [head, f"{'row':<28}{'ms':>9}{'ratio':>8}  note"]
    print("\n".join(lines), flush=True)
    for name, ratio, rest in rows_for(device, repeat, sample_s, 20_000, 16, jit=not args.quick, clock=clock):
        ms, note = rest.split("|", 1)
        lines.append(f"{name:<28}{float(ms):>9.3f}{ratio:>8.2f}  {note}".rstrip())
        print(lines[-1], flush=True)
    if args.out is not None:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
