"""xb.random's torch paths against references that share no code with xbackend.

- The native stream (``stream="native"``) against ``torch.Generator`` itself, seeded as documented (the first
  uint64 of the seed's ``numpy.random.SeedSequence``), call for call: a call that took the wrong path or drew a
  different amount shows in every later value.
- The CUDA kernel path of the portable stream (its launch arguments, the jiterator's counter lanes, the one-call
  closures of a placed generator), run on CPU tensors by the host build of the kernel (tests/test_random.py), at
  counters whose every 64-bit lane is in use: NumPy's Philox words from the same key and counter.
"""

from __future__ import annotations

import numpy as np
import pytest

import xbackend as xb

torch = pytest.importorskip("torch")

from tests.test_random import _torch_draws_on_host, host_kernel  # noqa: E402,F401  (the fixture, shared)

F64, F32, I64 = xb.float64, xb.float32, xb.int64


def _torch_generator(seed: int) -> "torch.Generator":
    """torch's generator as the native stream documents it: seeded with the seed sequence's first uint64."""
    g = torch.Generator()
    g.manual_seed(int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]))
    return g


# (xbackend call, the same numbers from torch's own generator, the dtype xbackend promises)
NATIVE = [
    (lambda r: r.random(5), lambda g: torch.rand(5, generator=g, dtype=torch.float64), F64),
    (lambda r: r.random(0), lambda g: torch.rand(0, generator=g, dtype=torch.float64), F64),
    (lambda r: r.random(4, dtype=F32), lambda g: torch.rand(4, generator=g, dtype=torch.float32), F32),
    (lambda r: r.random((2, 3)), lambda g: torch.rand((2, 3), generator=g, dtype=torch.float64), F64),
    (lambda r: r.random(size=3), lambda g: torch.rand(3, generator=g, dtype=torch.float64), F64),
    (lambda r: r.standard_normal(6), lambda g: torch.randn(6, generator=g, dtype=torch.float64), F64),
    (lambda r: r.standard_normal(3, dtype=F32), lambda g: torch.randn(3, generator=g, dtype=torch.float32), F32),
    (lambda r: r.standard_normal((2, 2)), lambda g: torch.randn((2, 2), generator=g, dtype=torch.float64), F64),
    (lambda r: r.normal(1.0, 2.0, 5), lambda g: torch.normal(1.0, 2.0, (5,), generator=g, dtype=torch.float64), F64),
    (lambda r: r.normal(-3, 1, 4), lambda g: torch.normal(-3.0, 1.0, (4,), generator=g, dtype=torch.float64), F64),
    (lambda r: r.integers(0, 50, 6), lambda g: torch.randint(0, 50, (6,), generator=g, dtype=torch.int64), I64),
    (lambda r: r.integers(-(2**63), 2**63 - 1, 4),
     lambda g: torch.randint(-(2**63), 2**63 - 1, (4,), generator=g, dtype=torch.int64), I64),
    (lambda r: r.integers(3, 9, (2, 2)), lambda g: torch.randint(3, 9, (2, 2), generator=g, dtype=torch.int64), I64),
    (lambda r: r.integers(-5, 5, 7, endpoint=True),
     lambda g: torch.randint(-5, 6, (7,), generator=g, dtype=torch.int64), I64),
    (lambda r: r.integers(0, 9, 5, dtype=xb.int32),
     lambda g: torch.randint(0, 9, (5,), generator=g, dtype=torch.int64).to(torch.int32), xb.int32),
    (lambda r: r.integers(-1000, 10**6, 5, dtype=xb.int32),
     lambda g: torch.randint(-1000, 10**6, (5,), generator=g, dtype=torch.int64).to(torch.int32), xb.int32),
    (lambda r: r.integers(0, 256, 6, dtype=xb.uint8),
     lambda g: torch.randint(0, 256, (6,), generator=g, dtype=torch.int64).to(torch.uint8), xb.uint8),
]


@pytest.mark.parametrize("i", range(len(NATIVE)))
def test_each_native_torch_call_is_torchs_own_generator(i):
    rng, ref = xb.random.default_rng(11, stream="native", backend="torch"), _torch_generator(11)
    for ours, theirs, dt in NATIVE[i:] + NATIVE[:i]:
        got, want = ours(rng), theirs(ref)
        assert (got.dtype, got.backend, tuple(got.shape)) == (dt, "torch", tuple(want.shape))
        assert got.numpy().tolist() == want.numpy().tolist()


def test_the_native_torch_defaults_are_the_ones_in_force():
    rng, ref = xb.random.default_rng(5, stream="native", backend="torch"), _torch_generator(5)
    with xb.using(default_float=F32):
        for got, want in [(rng.random(4), torch.rand(4, generator=ref, dtype=torch.float32)),
                          (rng.standard_normal(4), torch.randn(4, generator=ref, dtype=torch.float32)),
                          (rng.normal(1.0, 2.0, 3), torch.normal(1.0, 2.0, (3,), generator=ref,
                                                                 dtype=torch.float32))]:  # fmt: skip
            assert got.dtype is F32 and got.numpy().tolist() == want.numpy().tolist()
    with xb.using(default_int=xb.int32):
        got = rng.integers(0, 9, 5)
        assert got.dtype is xb.int32
        assert got.numpy().tolist() == torch.randint(0, 9, (5,), generator=ref).tolist()
    assert rng.random(2).dtype is F64  # and back outside


@pytest.mark.parametrize("low, high, endpoint, dtype, error", [
    (0, 2**63, False, I64, xb.UnsupportedDTypeError),  # all of int64: past torch.randint's exclusive high
    (0, 2**63 - 1, True, I64, xb.UnsupportedDTypeError),
    (-(2**63), 2**63, False, I64, xb.UnsupportedDTypeError),
    (0, 2**64, False, xb.uint64, xb.UnsupportedDTypeError),
    (-(2**63) - 1, 0, False, I64, xb.ScalarOverflowError),  # outside int64 itself: the dtype's own error
])
def test_native_torch_refuses_integers_past_int64_with_the_fix(low, high, endpoint, dtype, error):
    """torch.randint draws inside int64 only: a range past it is xbackend's typed error, never torch's overflow."""
    rng = xb.random.default_rng(1, stream="native", backend="torch")
    with pytest.raises(error, match="Fix: "):
        rng.integers(low, high, 3, endpoint=endpoint, dtype=dtype)


@pytest.mark.parametrize("low, high", [(0, 2.5), (0.0, 5), (np.int64(0), 5.0)])
def test_native_torch_refuses_float_bounds_as_the_portable_stream_does(low, high):
    rng = xb.random.default_rng(1, stream="native", backend="torch")
    with pytest.raises(xb.ArgumentTypeError, match=r"^integers\(\) takes Python ints for low and high"):
        rng.integers(low, high, 3)


# -- the kernel path at counters that use every lane ------------------------------------------------------------
_LANES = [2**64 - 3, 2**128 - 3, 2**192 - 3, 2**256 - 3, 2**64 + 2**128 + 2**192 + 5,
          12345 + (999 << 64) + (2**62 << 128) + (7 << 192)]  # lanes under 2**63: positive as signed 64-bit


def _restored(backend, counter, device=None):
    from xbackend.random._generator import _restore

    rng = xb.random.default_rng(3, backend=backend, device=device)
    key = np.asarray(rng.state["key"], dtype=np.uint64)
    return _restore(rng._ss, backend, device, "portable", None, {"key": key, "counter": counter}), key


@pytest.mark.parametrize("counter", _LANES)
def test_kernel_path_words_and_uniforms_at_every_counter_lane(monkeypatch, host_kernel, counter):
    """The launch passes the counter as four 64-bit lanes: NumPy's Philox from that counter, word for word."""
    launches = []
    _torch_draws_on_host(monkeypatch, host_kernel, launches)
    r, key = _restored("torch", counter)
    bits = np.random.Philox(key=key, counter=counter).random_raw(64)
    assert r.integers(0, 2**64, 10, dtype=xb.uint64).numpy().tolist() == bits[:10].tolist()  # blocks 0-2 (3 left)
    u = r.random(8).numpy()  # blocks 3, 4
    assert u.tolist() == ((bits[12:20] >> np.uint64(11)).astype(np.float64) * 2.0**-53).tolist()
    f = r.random(9, dtype=F32).numpy()  # 8 float32 per block: blocks 5, 6
    w32 = bits[20:28].view(np.uint32)
    assert f.tolist() == ((w32[:9] >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)).tolist()
    assert launches and r.state["counter"] == (counter + 7) % 2**256


@pytest.mark.parametrize("counter", _LANES)
def test_jiterator_lanes_carry_the_whole_counter(monkeypatch, host_kernel, counter):
    """The jiterator kernel gets the counter as four signed 64-bit scalars: a fake jiterator that rebuilds the
    counter from them (and nothing else) gives NumPy's words at that counter."""
    from torch.cuda import jiterator

    from tests.test_random import _launch_on_host
    from xbackend.random import _torch as T
    from xbackend.random._cuda import MODES

    def fake_create(src, num_outputs, **defaults):
        def fn(j, **kw):
            assert all(-(2**63) <= v < 2**63 for v in kw.values())  # jiterator scalars are signed 64-bit
            c = sum((kw[f"c{i}"] % 2**64) << (64 * i) for i in range(4))
            key = (kw["k0"] % 2**64, kw["k1"] % 2**64)
            words = _launch_on_host(host_kernel, kw["mode"], key, (c - 1) % 2**256, j.numel())
            lanes = torch.from_numpy(words.view(np.int64).reshape(-1, 4).copy())
            return tuple(lanes[:, i].contiguous() for i in range(4))

        return fn

    monkeypatch.setattr(jiterator, "_create_multi_output_jit_fn", fake_create)
    src = T.Source(xb.zeros(0, backend="torch")._be)
    monkeypatch.setattr(src, "kernel", T.JiteratorPhilox())
    for key, start, n, width in [((2**64 - 5, 2**63 + 7), 0, 9, 64), ((2**64 - 5, 2**63 + 7), 6, 11, 64),
                                 ((1234567, 99), 5, 21, 32), ((1234567, 99), 0, 3, 64)]:  # fmt: skip
        got = src._cuda(key, counter, start, n, width, MODES["raw"], xb.Device("torch", "cpu"))
        raw = np.random.Philox(key=np.array(key, dtype=np.uint64), counter=counter).random_raw(20)
        want = (raw if width == 64 else raw.view(np.uint32))[start : start + n]
        assert got.view(torch.uint64 if width == 64 else torch.uint32).numpy().tolist() == want.tolist()


# -- the one-call closures of a placed generator on the kernel path ----------------------------------------------
def test_placed_kernel_closures_follow_the_defaults_in_force(monkeypatch, host_kernel):
    """A placed portable generator's one-call draws take the default dtypes of ``xb.using`` at each call, with
    the portable stream's numbers (those of the NumPy backend)."""
    _torch_draws_on_host(monkeypatch, host_kernel, [])
    r, ref = xb.random.default_rng(9, backend="torch", device="cpu"), xb.random.default_rng(9, backend="numpy")
    with xb.using(default_float=F32, default_int=xb.int32):
        for name, call in [("random", lambda g: g.random(100)), ("standard_normal", lambda g: g.standard_normal(50)),
                           ("integers", lambda g: g.integers(0, 7, 30))]:  # fmt: skip
            got, want = call(r), call(ref)
            assert got.dtype is want.dtype is {"integers": xb.int32}.get(name, F32), name
            assert got.numpy().tolist() == want.numpy().tolist(), name


def test_placed_closures_refuse_an_int64_range_past_int64_as_the_general_path_does(monkeypatch, host_kernel):
    _torch_draws_on_host(monkeypatch, host_kernel, [])
    r = xb.random.default_rng(9, backend="torch", device="cpu")
    with pytest.raises(xb.XBackendError) as torch_err:
        r.integers(0, 2**63 + 5, 10)
    with pytest.raises(xb.XBackendError) as numpy_err:
        xb.random.default_rng(9, backend="numpy").integers(0, 2**63 + 5, 10)
    assert type(torch_err.value) is type(numpy_err.value)


def test_placed_closures_draw_the_same_numbers_when_no_kernel_can_be_built(monkeypatch):
    """NVRTC and the jiterator both unusable: the closures' fallbacks draw at the counter they took (after
    another draw, so the counter is not 0), the NumPy backend's numbers."""
    from tests.test_random import no_nvrtc

    no_nvrtc(monkeypatch).kernel.broken = "no CUDA here"  # the jiterator unusable too
    r, ref = xb.random.default_rng(6, backend="torch", device="cpu"), xb.random.default_rng(6, backend="numpy")
    with pytest.warns(RuntimeWarning, match="NVRTC"):
        r.random(3)
    ref.random(3)
    for call in [lambda g: g.random(5), lambda g: g.standard_normal(7), lambda g: g.integers(-4, 90, 9),
                 lambda g: g.random(6, dtype=F32), lambda g: g.standard_normal(5, dtype=F32)]:  # fmt: skip
        got, want = call(r), call(ref)
        assert got.dtype is want.dtype
        g, w = got.numpy(), want.numpy()
        if g.dtype.kind == "f" and call is not None:
            assert np.allclose(g, w, rtol=4 * np.finfo(g.dtype).eps, atol=0), (g, w)
        else:
            assert g.tolist() == w.tolist()


@pytest.mark.parametrize("call", ["gamma", "gamma f32", "gamma small shape", "beta"])
def test_kernel_path_gamma_and_beta_are_the_portable_streams(monkeypatch, host_kernel, call):
    """Gamma in the kernel (one variate per counter block, its rejections at the retry sub-streams): bit for bit
    the portable construction of random/_gamma.py, which tests/test_random_gamma.py checks against mpmath."""
    draw = {"gamma": lambda r: r.gamma(2.5, 1.0, 37), "gamma f32": lambda r: r.gamma(0.7, 2.0, 21, dtype=F32),
            "gamma small shape": lambda r: r.gamma(0.05, 1.0, 40), "beta": lambda r: r.beta(0.5, 3.0, 19)}[call]
    launches = []
    _torch_draws_on_host(monkeypatch, host_kernel, launches)
    r = xb.random.default_rng(17, backend="torch")
    r.random(5)  # a counter other than 0
    got = draw(r)
    ref = xb.random.default_rng(17, backend="numpy")
    ref.random(5)
    want = draw(ref)
    assert launches and got.dtype is want.dtype
    assert got.numpy().tolist() == want.numpy().tolist()


# -- the kernel path's glue at any offset, and the fallbacks --------------------------------------------------------
def _words_ref(key, ctr, start, n, width):
    raw = np.random.Philox(key=np.array(key, dtype=np.uint64), counter=ctr).random_raw(-(-(start + n) * width // 64))
    return (raw if width == 64 else raw.view(np.uint32))[start : start + n]


def _cuda_like(monkeypatch, host_kernel, launches):
    """The host build of the kernel behind the launch glue, refusing what CUDA refuses: a grid of no blocks
    (cuLaunchKernel: CUDA_ERROR_INVALID_VALUE), after which the source would warn and stop using the kernel."""
    from xbackend.random import _torch as T

    _torch_draws_on_host(monkeypatch, host_kernel, launches)
    real = T.RAW.driver

    def driver(torch, index, source, name):
        launch, sync = real(torch, index, source, name)

        def checked(grid, block, stream, params):
            if grid <= 0:
                raise RuntimeError("CUDA_ERROR_INVALID_VALUE: a grid of 0 blocks")
            return launch(grid, block, stream, params)

        return checked, sync

    monkeypatch.setattr(T.RAW, "driver", driver)


@pytest.mark.parametrize("start, n", [(0, 1), (3, 7), (5, 20), (13, 4), (8, 8)])
def test_kernel_path_source_words_and_uniforms_at_any_offset(monkeypatch, host_kernel, start, n):
    """PhiloxSource's contract: variates ``start .. start + n - 1`` of a call (a chunk of a larger draw), here
    through the raw kernel's launch at any offset within a block."""
    launches = []
    _cuda_like(monkeypatch, host_kernel, launches)
    src = xb.random._source.source_for(xb.zeros(0, backend="torch")._be)
    dev, key, ctr = xb.Device("torch", "cpu"), (77, 2**63 + 1), 2**64 - 2
    for width in (64, 32):
        got = src.words(key, ctr, start, n, width, dev)
        assert got.dtype is (xb.uint64 if width == 64 else xb.uint32)
        assert got.numpy().tolist() == _words_ref(key, ctr, start, n, width).tolist()
    w = _words_ref(key, ctr, start, n, 64)
    assert src.uniform(key, ctr, start, n, F64, dev).numpy().tolist() == (
        (w >> np.uint64(11)).astype(np.float64) * 2.0**-53).tolist()  # fmt: skip
    w32 = _words_ref(key, ctr, start, n, 32)
    assert src.uniform(key, ctr, start, n, F32, dev).numpy().tolist() == (
        (w32 >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)).tolist()  # fmt: skip
    assert launches


@pytest.mark.parametrize("start, n, low, r", [(0, 9, -5, 1000), (7, 13, 3, 2**31 + 11), (5, 6, 0, 2**40 + 3)])
def test_kernel_path_fused_integers_at_any_offset(monkeypatch, host_kernel, start, n, low, r):
    from tests.test_random import _integers_ref

    _cuda_like(monkeypatch, host_kernel, [])
    src = xb.random._source.source_for(xb.zeros(0, backend="torch")._be)
    key, ctr = (5, 6), 2**63 + 9
    got = src.fused("integers", key, ctr, start, n, I64, (low, r), xb.Device("torch", "cpu"))
    assert got.numpy().tolist() == _integers_ref(key, ctr, start + n, r, low)[start:]


def test_empty_draws_on_the_kernel_path_launch_nothing_and_keep_the_kernel(monkeypatch, host_kernel):
    """A draw of no values makes no launch: CUDA refuses a grid of no blocks, which would retire the kernel for
    the whole process (one warning, then the slow path)."""
    import warnings

    from xbackend.random import _torch as T

    launches = []
    _cuda_like(monkeypatch, host_kernel, launches)
    for place in ({}, {"device": "cpu"}):  # the general path, and a placed generator's closures
        r = xb.random.default_rng(2, backend="torch", **place)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for call in (lambda: r.random(0), lambda: r.standard_normal(0), lambda: r.integers(0, 9, 0),
                         lambda: r.exponential(1.0, 0), lambda: r.integers(0, 2**64, 0, dtype=xb.uint64),
                         lambda: r.random((0, 3), dtype=F32), lambda: r.permutation(0)):  # fmt: skip
                assert call().shape[0] == 0
        assert T.RAW.broken is None
        launches.clear()
        assert r.random(5).shape == (5,) and len(launches) == 1  # the kernel still in use


def test_the_jiterator_fallback_gives_the_same_words_and_uniforms(monkeypatch, host_kernel):
    """NVRTC unusable: words and uniforms of every width through the jiterator kernel (a fake that runs the host
    build from the scalars it is given), at an offset, viewed as the dtype asked for."""
    from torch.cuda import jiterator

    from tests.test_random import _launch_on_host
    from xbackend.random import _torch as T

    def fake_create(src, num_outputs, **defaults):
        def fn(j, **kw):
            c = sum((kw[f"c{i}"] % 2**64) << (64 * i) for i in range(4))
            words = _launch_on_host(host_kernel, kw["mode"], (kw["k0"] % 2**64, kw["k1"] % 2**64), c - 1, j.numel())
            lanes = torch.from_numpy(words.view(np.int64).reshape(-1, 4).copy())
            return tuple(lanes[:, i].contiguous() for i in range(4))

        return fn

    monkeypatch.setattr(jiterator, "_create_multi_output_jit_fn", fake_create)
    monkeypatch.setattr(T.RAW, "broken", "no NVRTC here")
    monkeypatch.setattr(T.Source, "_on_kernel", lambda self, dev: True)
    src = T.Source(xb.zeros(0, backend="torch")._be)
    monkeypatch.setattr(src, "kernel", T.JiteratorPhilox())
    dev, key, ctr = xb.Device("torch", "cpu"), (3, 2**64 - 9), 1000
    for start, n in [(0, 5), (6, 9), (3, 1)]:
        for width in (64, 32):
            got = src.words(key, ctr, start, n, width, dev)
            assert got.dtype is (xb.uint64 if width == 64 else xb.uint32)
            assert got.numpy().tolist() == _words_ref(key, ctr, start, n, width).tolist(), (start, n, width)
        w32 = _words_ref(key, ctr, start, n, 32)
        assert src.uniform(key, ctr, start, n, F32, dev).numpy().tolist() == (
            (w32 >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)).tolist()  # fmt: skip
    assert src.kernel.broken is None


def test_torch_cpu_uniforms_are_numpys_floats_without_a_copy(monkeypatch):
    """On the CPU the portable stream's floats are NumPy's, wrapped by torch.from_numpy: the Array's tensor is the
    very memory NumPy filled (one C call, no generic path)."""
    src = xb.random._source.source_for(xb.zeros(0, backend="torch")._be)
    host = src._host()
    made = []
    real = type(host).floats

    def spy(self, *args):
        out = real(self, *args)
        made.append(out)
        return out

    monkeypatch.setattr(type(host), "floats", spy)
    for dt in (F64, F32):
        x = xb.random.default_rng(4, backend="torch").random(10, dtype=dt)
        assert made and x._data.data_ptr() == made[-1].ctypes.data, dt
        want = xb.random.default_rng(4, backend="numpy").random(10, dtype=dt)
        assert x.numpy().tolist() == want.numpy().tolist()
