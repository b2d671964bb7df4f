"""xb.random's portable stream against an independent reference (issue 33).

The reference below rebuilds every draw from the definition in docs (random/_philox.py and random/_draws.py's module
docstrings, docs/behaviour.md) with Python ints and floats on NumPy's raw words - ``numpy.random.Philox(key=,
counter=).random_raw`` - and nothing of xbackend's: no draw code, no Philox rounds, no word splitting. A slip in
xbackend's shared draw code (cos and sin swapped, a retry read from the wrong stream) agrees with itself on every
backend, so only a comparison like this one can see it.

What is compared: integers, uniforms, permutation keys and everything built on them bit for bit; normals and
exponentials (which go through each library's ``log1p``/``sqrt``/``cos``/``sin``) within the ulps docs/behaviour.md
promises: 4 (float64 normals), 2 (float64 exponentials), 1 (float32, float16). On every CPU target; on Dask also
with chunkings whose chunks start inside a Box-Muller pair and hold rejected integers (the retries of a chunk are
read at the chunk's own positions).

Planted by hand and seen red (issue 33; each survived the rest of the suite): Box-Muller's cos and sin swapped in
random/_draws.py (the normals tests on every target, the Dask chunks test); the retry counter read from the call's
own main stream, ``ctr + attempt`` or ``ctr`` instead of ``ctr + attempt * 2**192`` (the integers tests of every
retrying range on every target, choice, Dask); a chunk's retries read at positions counted from the chunk instead of
the call (the Dask chunks test).
"""

from __future__ import annotations

import bisect
import itertools
import math

import numpy as np
import pytest

import xbackend as xb

M32, M64, C256 = (1 << 32) - 1, (1 << 64) - 1, 1 << 256
RETRY_STRIDE = 1 << 192  # attempt a of a rejected variate reads the stream at counter c + a * 2**192
# the promise of docs/behaviour.md for the variates that go through the libraries' transcendental functions
ULPS = {("normal", "float64"): 4, ("exponential", "float64"): 2}


# -- the reference ---------------------------------------------------------------------------------------------------
def ref_key(seed):
    """The Philox key of ``default_rng(seed)``: what ``numpy.random.Philox(seed)`` derives, as Python ints."""
    k = np.random.SeedSequence(seed).generate_state(2, np.uint64)
    return int(k[0]), int(k[1])


class Ref:
    """The documented portable stream on NumPy's words, with Python ints and floats.

    ``counter`` is the state: a call that uses ``w`` words of ``b`` bits reads them from counter ``c`` and moves it
    by ``ceil(w * b / 256)`` (whole blocks). ``retries`` counts the rejected variates drawn again, ``attempts`` the
    deepest retry attempt reached (the tests check that the retry stream really was exercised)."""

    def __init__(self, seed, counter=0):
        self.key = ref_key(seed)
        self.counter = counter
        self.retries = 0
        self.attempts = 0

    # words
    def w64(self, ctr, n):
        bg = np.random.Philox(key=np.array(self.key, dtype=np.uint64), counter=ctr % C256)
        return [int(v) for v in bg.random_raw(n)] if n else []

    def w32(self, ctr, n):
        out = []
        for w in self.w64(ctr, (n + 1) // 2):  # NumPy's next_uint32: the low half first
            out += [w & M32, w >> 32]
        return out[:n]

    def take(self, nwords, width):
        c = self.counter
        self.counter = (c + -(-nwords * width // 256)) % C256
        return c

    # standard variates
    @staticmethod
    def _u53(w):
        return (w >> 11) * 2.0**-53

    def uniform(self, n, dt):
        if dt == "float64":
            return np.array([self._u53(w) for w in self.w64(self.take(n, 64), n)], dtype=np.float64)
        shift, bits = {"float32": (8, 24), "float16": (21, 11), "bfloat16": (24, 8)}[dt]
        vals = [(w >> shift) * 2.0**-bits for w in self.w32(self.take(n, 32), n)]
        return np.array(vals, dtype=np.float64)  # exact in every one of these dtypes: compared as float64

    def normal(self, n):
        pairs = -(-n // 2)
        w = self.w64(self.take(2 * pairs, 64), 2 * pairs)
        z = []
        for k in range(pairs):
            u0, u1 = self._u53(w[2 * k]), self._u53(w[2 * k + 1])
            r = math.sqrt(-2.0 * math.log1p(-u0))
            t = (2.0 * math.pi) * u1
            z += [r * math.cos(t), r * math.sin(t)]
        return np.array(z[:n], dtype=np.float64)

    def exponential(self, n):
        return np.array([-math.log1p(-self._u53(w)) for w in self.w64(self.take(n, 64), n)], dtype=np.float64)

    def bounded(self, n, r):
        """Unbiased ints in ``[0, r)``: Lemire on 32-bit words up to 2**32, a mask on 64-bit words above, a rejected
        variate ``i`` drawn again from word ``i`` of the stream at ``c + a * 2**192`` (attempt ``a = 1, 2, ...``)."""
        width = 32 if r <= 1 << 32 else 64
        words = self.w32 if width == 32 else self.w64
        c = self.take(n, width)
        streams = {0: words(c, n)}
        out = []
        for i in range(n):
            a = 0
            while True:
                if a not in streams:
                    streams[a] = words(c + a * RETRY_STRIDE, n)
                w = streams[a][i]
                if width == 32:
                    m = w * r
                    ok, v = (m & M32) >= (1 << 32) % r, m >> 32
                else:
                    v = w & ((1 << (r - 1).bit_length()) - 1)
                    ok = v < r
                if ok:
                    break
                a += 1
                self.retries += 1
            self.attempts = max(self.attempts, a)
            out.append(v)
        return out

    def integers(self, low, high, n):  # [low, high)
        return [low + v for v in self.bounded(n, high - low)]

    def keys(self, n):
        return [w & (M64 >> 1) for w in self.w64(self.take(n, 64), n)]

    def permutation(self, n):
        k = self.keys(n)
        return sorted(range(n), key=lambda i: (k[i], i))  # a stable sort of the keys


# -- helpers ----------------------------------------------------------------------------------------------------------
def _rng(t, seed, **kw):
    return xb.random.default_rng(seed, backend=t.backend, device=t.device, **kw)


def _flat(x):
    """A drawn Array's values as a flat float64/int NumPy array (bfloat16 widened exactly)."""
    if x.dtype is xb.bfloat16:
        x = xb.astype(x, xb.float32)
    return np.asarray(x.numpy()).reshape(-1)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}").tolist()


def _ulps(got, want):
    """Largest distance in units in the last place between two arrays of one float dtype (an ordered integer view:
    sign-magnitude to two's complement), from NumPy's bit patterns."""
    it = {2: np.int16, 4: np.int32, 8: np.int64}[got.dtype.itemsize]
    assert got.dtype == want.dtype and got.shape == want.shape
    if not got.size:
        return 0
    a, b = got.view(it).astype(object), want.view(it).astype(object)  # Python ints: no overflow
    low = int(np.iinfo(it).min)
    a = [low - v if v < 0 else v for v in a.tolist()]
    b = [low - v if v < 0 else v for v in b.tolist()]
    return max(abs(x - y) for x, y in zip(a, b))


def _np_dtype(dt):
    return np.float32 if dt == "bfloat16" else np.dtype(dt)


def _check_state(rng, ref):
    assert rng.state["counter"] == ref.counter, "the call moved the counter by other than its whole blocks"
    assert tuple(int(k) for k in rng.state["key"]) == ref.key


# -- the key and the words --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 42, 2**64 + 3])
def test_key_is_the_seed_sequences_and_raw_words_are_numpys(xb_target, seed):
    rng, ref = _rng(xb_target, seed), Ref(seed)
    _check_state(rng, ref)
    for n in (0, 1, 5, 13):  # 64-bit words: each call a whole number of 4-word blocks
        got = rng.integers(0, 2**64, n, dtype=xb.uint64)
        assert got.numpy().tolist() == ref.w64(ref.take(n, 64), n)
    got = rng.integers(0, 2**32, (3, 5), dtype=xb.uint32)  # the 32-bit words, low half first
    assert _flat(got).tolist() == ref.w32(ref.take(15, 32), 15)
    _check_state(rng, ref)


# -- uniforms: bit for bit -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16"])
def test_uniforms_are_the_documented_construction_bit_for_bit(xb_target, dt):
    if not xb_target.holds(getattr(xb, dt)):
        pytest.skip(f"{xb_target.backend} cannot hold {dt}")
    rng, ref = _rng(xb_target, 7), Ref(7)
    for shape in (5, (3, 7), 1, 0, 33):
        n = math.prod(shape) if isinstance(shape, tuple) else shape
        got = rng.random(shape, dtype=getattr(xb, dt))
        assert got.dtype is getattr(xb, dt) and tuple(got.shape) == (shape if isinstance(shape, tuple) else (n,))
        want = ref.uniform(n, dt).astype(_np_dtype(dt))
        assert _bits(_flat(got)) == _bits(want)
        _check_state(rng, ref)


def test_uniform_between_bounds_and_bernoulli_are_built_on_the_float64_uniforms(xb_target):
    rng, ref = _rng(xb_target, 3), Ref(3)
    got = rng.uniform(-2.0, 3.0, 40)
    assert _bits(_flat(got)) == _bits(ref.uniform(40, "float64") * 5.0 + -2.0)
    got = rng.uniform(-2.0, 3.0, 9, dtype=xb.float32)
    assert _bits(_flat(got)) == _bits((ref.uniform(9, "float32").astype(np.float32) * np.float32(5.0)
                                       + np.float32(-2.0)))  # fmt: skip
    got = rng.bernoulli(0.3, (4, 5))
    assert _flat(got).tolist() == (ref.uniform(20, "float64") < 0.3).tolist()
    _check_state(rng, ref)


# -- normals and exponentials: within the documented ulps -------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float64", "float32", "float16"])
def test_normals_are_box_muller_on_the_documented_words(xb_target, dt):
    if not xb_target.holds(getattr(xb, dt)):
        pytest.skip(f"{xb_target.backend} cannot hold {dt}")
    rng, ref = _rng(xb_target, 11), Ref(11)
    for shape in (601, (20, 31), 1):  # odd sizes: the last pair's sine is drawn and dropped
        n = math.prod(shape) if isinstance(shape, tuple) else shape
        got = _flat(rng.standard_normal(shape, dtype=getattr(xb, dt)))
        want = ref.normal(n).astype(dt)
        assert _ulps(got, want) <= ULPS.get(("normal", dt), 1), "normals are not r cos t, r sin t of the pair"
        _check_state(rng, ref)
    got = _flat(rng.normal(10.0, 0.5, 77, dtype=getattr(xb, dt)))  # loc + scale z in float64, rounded once
    want = (ref.normal(77) * 0.5 + 10.0).astype(dt)
    assert _ulps(got, want) <= ULPS.get(("normal", dt), 1)
    _check_state(rng, ref)


@pytest.mark.parametrize("dt", ["float64", "float32", "float16"])
def test_exponentials_are_minus_log1p_of_the_float64_uniforms(xb_target, dt):
    if not xb_target.holds(getattr(xb, dt)):
        pytest.skip(f"{xb_target.backend} cannot hold {dt}")
    rng, ref = _rng(xb_target, 12), Ref(12)
    got = _flat(rng.exponential(1.0, (30, 21), dtype=getattr(xb, dt)))
    assert _ulps(got, ref.exponential(630).astype(dt)) <= ULPS.get(("exponential", dt), 1)
    got = _flat(rng.exponential(2.5, 50, dtype=getattr(xb, dt)))
    assert _ulps(got, (ref.exponential(50) * 2.5).astype(dt)) <= ULPS.get(("exponential", dt), 1)
    _check_state(rng, ref)


# -- integers: Lemire and the mask, with their retries, bit for bit ----------------------------------------------------
# (low, high, dtype, endpoint, whether retries must happen): ranges just above 2**31, 3 * 2**30, 2**32, 2**40 and
# 2**63 reject about half (a quarter) of the first draws, so 2000 draws go several attempts deep
INT_CASES = [
    (0, 2**31 + 1, "int64", False, True),
    (-7, 3 * 2**30 - 7, "int64", False, True),
    (5, 2**32 + 6, "int64", False, True),  # just above 2**32: the 64-bit masked path
    (3, 2**40 + 4, "int64", False, True),
    (0, 2**63 + 1, "uint64", False, True),
    (-(2**63), 0, "int64", True, True),  # 2**63 + 1 values of int64
    (2**63 + 5, 2**64, "uint64", False, False),  # 2**63 - 5 values: the mask rejects 5 in 2**63
    (2**63 - 3, 2**64, "uint64", False, True),
    (-(2**63), 2**63, "int64", False, False),  # the whole range: raw 64-bit words, no rejection
    (-(2**63) + 5, 2**63 - 7, "int64", False, False),  # beyond 2**63 values, low not -2**63: two in-range steps
    (-5, 2**63 - 1, "int64", True, True),  # 2**63 + 5 values: the top bit, and a rejection about every other draw
    (-3, 17, "int8", True, False),  # 2**32 % 21 == 4: a rejection about every 2**30 draws
    (0, 256, "uint8", False, False),
    (-(2**31), 2**31, "int32", False, False),
    (1, 7, "int16", True, False),
]


@pytest.mark.parametrize("low, high, dt, endpoint, retries", INT_CASES)
def test_integers_are_lemire_with_the_documented_retry_stream(xb_target, low, high, dt, endpoint, retries):
    rng, ref = _rng(xb_target, 21), Ref(21)
    n = 2000
    got = rng.integers(low, high, n, dtype=getattr(xb, dt), endpoint=endpoint)
    want = ref.integers(low, high + (1 if endpoint else 0), n)
    assert got.dtype is getattr(xb, dt)
    if retries:  # the reference itself went down the retry stream, several attempts deep
        assert ref.retries > n // 8 and ref.attempts >= 3, (ref.retries, ref.attempts)
    assert _flat(got).tolist() == want
    _check_state(rng, ref)
    again = rng.integers(low, high, (7, 3), dtype=getattr(xb, dt), endpoint=endpoint)  # the next call's blocks
    assert _flat(again).tolist() == ref.integers(low, high + (1 if endpoint else 0), 21)
    _check_state(rng, ref)


# -- permutations and choice ------------------------------------------------------------------------------------------
def test_permutations_are_the_stable_argsort_of_63_bit_keys(xb_target):
    rng, ref = _rng(xb_target, 31), Ref(31)
    assert _flat(rng.permutation(50)).tolist() == ref.permutation(50)
    data = np.arange(24).reshape(4, 6)
    got = rng.permutation(xb_target.asarray(data), axis=1)
    assert got.numpy().tolist() == data[:, ref.permutation(6)].tolist()
    got = rng.permuted(xb_target.asarray(data), axis=1)  # each row by its own 6 keys (C order)
    k = ref.keys(24)
    want = [[data[i][j] for j in sorted(range(6), key=lambda j: (k[6 * i + j], j))] for i in range(4)]
    assert got.numpy().tolist() == want
    got = rng.permuted(xb_target.asarray(data))  # axis=None: the whole Array as one
    assert _flat(got).tolist() == [data.reshape(-1)[i] for i in ref.permutation(24)]
    _check_state(rng, ref)


def test_choice_follows_integers_permutations_and_the_inverse_cdf(xb_target):
    rng, ref = _rng(xb_target, 41), Ref(41)
    assert _flat(rng.choice(2**31 + 1, (6, 50))).tolist() == ref.integers(0, 2**31 + 1, 300)  # with retries
    assert ref.retries > 0
    assert _flat(rng.choice(30, 7, replace=False)).tolist() == ref.permutation(30)[:7]
    pool = np.arange(40.0).reshape(5, 8)
    got = rng.choice(xb_target.asarray(pool), 3, replace=False, axis=1)
    assert got.numpy().tolist() == pool[:, ref.permutation(8)[:3]].tolist()
    p = [0.1, 0.0, 0.2, 0.3, 0.15, 0.25]
    cdf = list(itertools.accumulate(p))
    cdf = [c / cdf[-1] for c in cdf]
    want = [bisect.bisect_right(cdf, u) for u in ref.uniform(200, "float64").tolist()]
    assert _flat(rng.choice(6, 200, p=p)).tolist() == want
    e = ref.exponential(6)  # without replacement: the k smallest E / p (Efraimidis-Spirakis), p == 0 never
    ek = [e[i] / p[i] if p[i] > 0 else math.inf for i in range(6)]
    got = rng.choice(6, 4, replace=False, p=p)
    assert _flat(got).tolist() == sorted(range(6), key=lambda i: (ek[i], i))[:4]
    _check_state(rng, ref)


# -- Dask: chunks that start inside a pair, and retries at the chunks' own positions ----------------------------------
@pytest.mark.parametrize("chunks", [(7,), (333,), (1001,)])
def test_dask_chunks_draw_the_reference(chunks):
    pytest.importorskip("dask")
    rng, ref = xb.random.default_rng(5, backend="dask", chunks=chunks), Ref(5)
    got = rng.integers(0, 2**31 + 1, 2000)
    assert _flat(got).tolist() == ref.integers(0, 2**31 + 1, 2000) and ref.retries > 500
    got = rng.integers(0, 2**63 + 1, 2000, dtype=xb.uint64)
    assert _flat(got).tolist() == ref.integers(0, 2**63 + 1, 2000)
    got = _flat(rng.standard_normal(2001))
    assert _ulps(got, ref.normal(2001)) <= ULPS[("normal", "float64")]
    assert _bits(_flat(rng.random(999, dtype=xb.float32))) == _bits(ref.uniform(999, "float32").astype(np.float32))
    _check_state(rng, ref)
    x = xb.random.default_rng(5, backend="dask", chunks=(3, 4)).integers(5, 2**32 + 6, (9, 10))
    assert _flat(x).tolist() == Ref(5).integers(5, 2**32 + 6, 90)  # 2-D chunks: runs of C-order positions


@pytest.mark.parametrize("shape, chunks", [((9, 10), (3, 4)), ((9, 10), (9, 3)), ((6, 10), (2, 10)),
                                           ((4, 5, 6), (2, 5, 3)), ((4, 5, 6), (3, 2, 6)), ((2, 3, 40), (1, 3, 7)),
                                           ((12, 1), (5, 1)), ((0, 5), (2, 5))])  # fmt: skip
def test_dask_chunks_of_every_layout_draw_the_reference(shape, chunks):
    """Chunks whose C-order positions are one run, several short runs, or runs far apart (drawn run by run, or as
    one span the chunk is picked from): every layout gives the reference's values in C order."""
    pytest.importorskip("dask")
    n = int(np.prod(shape))
    rng, ref = xb.random.default_rng(8, backend="dask", chunks=chunks), Ref(8)
    x = rng.random(shape)
    assert tuple(x.shape) == shape and _bits(_flat(x)) == _bits(ref.uniform(n, "float64"))
    assert _flat(rng.integers(-5, 2**31 + 1, shape)).tolist() == ref.integers(-5, 2**31 + 1, n)  # with retries
    assert _ulps(_flat(rng.standard_normal(shape)), ref.normal(n)) <= ULPS[("normal", "float64")]
    _check_state(rng, ref)


def test_a_0d_dask_draw_is_the_references_first_value():
    pytest.importorskip("dask")
    rng, ref = xb.random.default_rng(8, backend="dask"), Ref(8)
    x = rng.random(())
    assert x.shape == () and _bits(_flat(x)) == _bits(ref.uniform(1, "float64"))
    assert int(rng.integers(0, 10**6, ())) == ref.integers(0, 10**6, 1)[0]
    _check_state(rng, ref)


def test_the_reference_is_numpys_philox_and_the_documented_constructions():
    """The reference's own anchors: its words are NumPy's Philox(seed), its float64/float32 uniforms NumPy's
    ``Generator.random`` on that Philox (the same constructions), its key NumPy's."""
    ref = Ref(2024)
    bg = np.random.Philox(2024)
    assert ref.key == tuple(int(k) for k in bg.state["state"]["key"])
    assert ref.w64(0, 9) == bg.random_raw(9).tolist()
    g = np.random.Generator(np.random.Philox(2024))
    assert _bits(ref.uniform(10, "float64")) == _bits(g.random(10))
    g = np.random.Generator(np.random.Philox(key=np.array(ref.key, dtype=np.uint64), counter=3))  # whole blocks
    assert _bits(ref.uniform(11, "float32").astype(np.float32)) == _bits(g.random(11, dtype=np.float32))
    assert ref.counter == 3 + 2  # 10 words of 64 bits: 3 blocks; 11 of 32 bits: 2
    r = Ref(1, counter=C256 - 2)  # the counter wraps mod 2**256, retries too
    assert r.integers(0, 2**31 + 1, 64) and r.retries > 0 and r.counter == (C256 - 2 + 8) % C256
