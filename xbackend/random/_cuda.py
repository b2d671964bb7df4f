"""The portable stream's CUDA kernel: Philox4x64-10 in C++, one thread per counter block.

Design constraint: one source for both CUDA libraries, testable without a GPU. :data:`BLOCK` (the rounds
and the output modes of the words) is shared by the torch backend's jiterator functor
(:func:`jiterator_source`, the fallback) and :data:`DRAW`, the draws finished inside the kernel, which the
raw kernel ``xb_philox`` runs (:func:`cupy_source`: CuPy's ``RawKernel`` and torch's NVRTC path compile the
same text); tests compile it with the host C++ compiler (:func:`host_source`, ``__umul64hi`` from a 128-bit
product, the launch emulated over blocks and threads) and compare it with NumPy's Philox, so the GPU run
only has to confirm what the CPU already checked.

One launch makes a whole draw (:data:`MODES`; each thread makes the :data:`LAYOUT` outputs of its block,
word positions as in :mod:`xbackend.random._draws`, and stores those the call asked for): 0 the 64-bit words;
10 the 32-bit words (the halves of each 64-bit one, low first); 1 float64 uniforms
``(w >> 11) * 2**-53``; 2 float32 uniforms, ``(lo >> 8) * 2**-24`` of each 32-bit half, low half first;
3/4 normals (Box-Muller in float64 on words ``2k``, ``2k + 1``, then float64 / rounded to float32); 5/6
exponentials ``-log1p(-u)``; 7 integers ``low + v`` from 32-bit words by Lemire's multiply-shift (range
``arg`` <= 2**32, rejected below ``thr`` = 2**32 mod ``arg``); 8 integers ``low + (w & arg)`` from 64-bit words
(rejected at ``>= thr``; ``thr`` 0: a range of 2**64, nothing rejected); 9 permutation keys
``w & (2**63 - 1)``; 11 gamma variates, one per block (:mod:`xbackend.random._gamma`; ``arg``, ``thr``, ``low``
carry the bits of ``d``, ``c`` and ``1 / alpha``, 0 for ``alpha >= 1``), through :data:`EXACT`, the functions of
:mod:`xbackend.random._exact` with every operation rounded on its own (``__dadd_rn``, ``__dmul_rn``, ...: no
contraction into fused multiply-adds), so they give the generic path's bits. A rejected integer or gamma variate
is drawn again, in the kernel, from the same words of the stream at counter ``c + a * 2**192`` (attempt
``a = 1, 2, ...``: lane 3 of the counter plus ``a``), as the generic path does, so nothing waits on the host.
Beta variates (two gammas on interleaved blocks) have no mode: the GPU sources make them with xbackend operations
on the device, from the kernel's words.
"""

from __future__ import annotations

import struct

from . import _exact, _gamma

__all__ = ["BLOCK", "EXACT", "DRAW", "gamma_mode", "jiterator_source", "cupy_source", "host_source", "MODES", "LAYOUT",
           "KERNEL_ARGS"]

MODES = {"raw": 0, "float64": 1, "float32": 2, "normal64": 3, "normal32": 4, "exponential64": 5,
         "exponential32": 6, "bounded32": 7, "bounded64": 8, "keys": 9, "raw32": 10, "gamma": 11}  # fmt: skip
#: the raw kernel's modes: mode -> (outputs per counter block, bytes per output)
LAYOUT = {0: (4, 8), 1: (4, 8), 2: (8, 4), 3: (4, 8), 4: (4, 4), 5: (4, 8), 6: (4, 4), 7: (8, 8), 8: (4, 8),
          9: (4, 8), 10: (8, 4), 11: (1, 8)}  # fmt: skip
#: the raw kernel's parameters, in order (every one 8 bytes: a launch packs them as 64-bit values): ``m``
#: blocks from counter lanes ``c0..c3``; outputs ``off .. off + count - 1`` of them go to ``out[0 .. count - 1]``
KERNEL_ARGS = ("m", "c0", "c1", "c2", "c3", "k0", "k1", "mode", "arg", "thr", "low", "off", "count", "out")

# Every function is a template (torch's jiterator parses the source as templates only); no ">" in a body is
# followed by "name name(" (the jiterator's parser would take it for the entry point).
BLOCK = r"""
template <typename U>
XB_DEVICE U xb_out(U w, long long mode) {
  if (mode == 1) {
    double d = (double)(w >> 11) * (1.0 / 9007199254740992.0);
    return (U)XB_DOUBLE_BITS(d);
  }
  if (mode == 2) {
    float f0 = (float)((w & 0xFFFFFFFFULL) >> 8) * (1.0f / 16777216.0f);
    float f1 = (float)(w >> 40) * (1.0f / 16777216.0f);
    return ((U)XB_FLOAT_BITS(f1) << 32) | (U)XB_FLOAT_BITS(f0);
  }
  return w;
}

template <typename U>
XB_DEVICE void xb_philox_block(U j, U c0, U c1, U c2, U c3, U k0, U k1, long long mode,
                               U* o0, U* o1, U* o2, U* o3) {
  U x0 = c0 + j;
  U carry = x0 < c0 ? 1ULL : 0ULL;
  U x1 = c1 + carry;
  carry = (carry != 0ULL && x1 == 0ULL) ? 1ULL : 0ULL;
  U x2 = c2 + carry;
  carry = (carry != 0ULL && x2 == 0ULL) ? 1ULL : 0ULL;
  U x3 = c3 + carry;
  for (int r = 0; r < 10; ++r) {
    if (r != 0) {
      k0 += 0x9E3779B97F4A7C15ULL;
      k1 += 0xBB67AE8584CAA73BULL;
    }
    U hi0 = __umul64hi(0xD2E7470EE14C6C93ULL, x0);
    U lo0 = 0xD2E7470EE14C6C93ULL * x0;
    U hi1 = __umul64hi(0xCA5A826395121157ULL, x2);
    U lo1 = 0xCA5A826395121157ULL * x2;
    x0 = hi1 ^ x1 ^ k0;
    x1 = lo1;
    x2 = hi0 ^ x3 ^ k1;
    x3 = lo0;
  }
  *o0 = xb_out(x0, mode);
  *o1 = xb_out(x1, mode);
  *o2 = xb_out(x2, mode);
  *o3 = xb_out(x3, mode);
}
"""

# torch: int64 tensors in and out (the jiterator's one compute dtype), 64-bit scalars as signed ints
_JITERATOR_ENTRY = r"""
template <typename T>
void xb_philox_jit(T j, T c0, T c1, T c2, T c3, T k0, T k1, T mode, T& o0, T& o1, T& o2, T& o3) {
  unsigned long long w0, w1, w2, w3;
  xb_philox_block<unsigned long long>((unsigned long long)j, (unsigned long long)c0, (unsigned long long)c1,
      (unsigned long long)c2, (unsigned long long)c3, (unsigned long long)k0, (unsigned long long)k1,
      (long long)mode, &w0, &w1, &w2, &w3);
  o0 = (T)w0;
  o1 = (T)w1;
  o2 = (T)w2;
  o3 = (T)w3;
}
"""

def _c_array(name: str, values: tuple[float, ...]) -> str:
    return f"  const double {name}[{len(values)}] = {{{', '.join(repr(v) for v in values)}}};\n"


# random/_exact.py in C++: the same operations in the same order, each rounded on its own (XB_ADD & co.)
EXACT = (r"""
XB_DEVICE double xb_horner(const double* c, int n, double z) {
  double p = XB_ADD(XB_MUL(z, c[n - 1]), c[n - 2]);
  for (int i = n - 3; i >= 0; --i) p = XB_ADD(XB_MUL(p, z), c[i]);
  return p;
}

XB_DEVICE double xb_log(double x, int below_one) {
""" + _c_array("cs", _exact.LOG_COEFS) + r"""  double m = x, e = 0.0;
  if (!below_one)
    for (int k = 512; k >= 1; k >>= 1)
      if (m >= ldexp(1.0, k)) {
        m = XB_MUL(m, ldexp(1.0, -k));
        e = XB_ADD(e, (double)k);
      }
  for (int k = below_one ? 32 : 512; k >= 1; k >>= 1)
    if (m < ldexp(1.0, 1 - k)) {
      m = XB_MUL(m, ldexp(1.0, k));
      e = XB_SUB(e, (double)k);
    }
  if (m > """ + repr(_exact.SQRT2) + r""") {
    m = XB_MUL(m, 0.5);
    e = XB_ADD(e, 1.0);
  }
  double s = XB_DIV(XB_SUB(m, 1.0), XB_ADD(m, 1.0));
  double logm = XB_MUL(XB_ADD(s, s), xb_horner(cs, """ + str(len(_exact.LOG_COEFS)) + r""", XB_MUL(s, s)));
  return XB_ADD(XB_MUL(e, """ + repr(_exact.LN2_HI) + r"""), XB_ADD(XB_MUL(e, """ + repr(_exact.LN2_LO) + r"""), logm));
}

XB_DEVICE double xb_exp(double y) {
""" + _c_array("cs", _exact.EXP_COEFS) + r"""  double lim = """ + repr(_exact.EXP_LIMIT) + r""";
  y = y < -lim ? -lim : (y > lim ? lim : y);
  double k = floor(XB_ADD(XB_MUL(y, """ + repr(_exact.INV_LN2) + r"""), 0.5));
  double r = XB_SUB(XB_SUB(y, XB_MUL(k, """ + repr(_exact.LN2_HI) + r""")),
                    XB_MUL(k, """ + repr(_exact.LN2_LO) + r"""));
  double p = xb_horner(cs, """ + str(len(_exact.EXP_COEFS)) + r""", r);
  long long ki = (long long)k;
  long long k1 = ki >> 1;
  return XB_MUL(XB_MUL(p, ldexp(1.0, (int)k1)), ldexp(1.0, (int)(ki - k1)));
}

XB_DEVICE double xb_cos_2pi(double u) {
""" + _c_array("cc", _exact.COS_COEFS) + _c_array("sc", _exact.SIN_COEFS) + r"""  double t = XB_MUL(u, 4.0);
  double q = floor(t);
  double f = XB_SUB(t, q);
  int hi = f > 0.5;
  double x = XB_MUL(hi ? XB_SUB(1.0, f) : f, """ + repr(_exact.PI_2) + r""");
  double z = XB_MUL(x, x);
  double c = xb_horner(cc, """ + str(len(_exact.COS_COEFS)) + r""", z);
  double s = XB_MUL(x, xb_horner(sc, """ + str(len(_exact.SIN_COEFS)) + r""", z));
  double cq = hi ? s : c, sq = hi ? c : s;
  return q == 0.0 ? cq : (q == 1.0 ? -sq : (q == 2.0 ? -cq : sq));
}

XB_DEVICE double xb_sqrt(double x) {
  if (!(x > 0.0)) return 0.0;
  double y = xb_exp(XB_MUL(xb_log(x, 0), 0.5));
  return XB_MUL(XB_ADD(y, XB_DIV(x, y)), 0.5);
}

XB_DEVICE double xb_unit(unsigned long long w) {
  return XB_MUL((double)(w >> 11), 1.0 / 9007199254740992.0);
}

// One Marsaglia-Tsang attempt on the four words of a block (random/_gamma.py's _attempt)
XB_DEVICE int xb_gamma_attempt(const unsigned long long* w, double d, double c, double inv, double* g, double* lb) {
  double r2 = XB_MUL(xb_log(XB_SUB(1.0, xb_unit(w[0])), 1), -2.0);
  double x = XB_MUL(xb_sqrt(r2), xb_cos_2pi(xb_unit(w[1])));
  double v1 = XB_ADD(XB_MUL(x, c), 1.0);
  int pos = v1 > 0.0;
  if (!pos) v1 = 1.0;
  double v = XB_MUL(XB_MUL(v1, v1), v1);
  double u = XB_SUB(1.0, xb_unit(w[2]));
  double x2 = XB_MUL(x, x);
  int squeeze = u < XB_SUB(1.0, XB_MUL(XB_MUL(x2, x2), """ + repr(_gamma.SQUEEZE) + r"""));
  int full = xb_log(u, 1) < XB_ADD(XB_MUL(x2, 0.5), XB_MUL(XB_ADD(XB_SUB(1.0, v), xb_log(v, 0)), d));
  *g = XB_MUL(v, d);
  *lb = inv != 0.0 ? XB_MUL(xb_log(XB_SUB(1.0, xb_unit(w[3])), 1), inv) : 0.0;
  return pos && (squeeze || full);
}
""")


def _bits(x: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", x))[0])


def gamma_mode(alpha: float) -> tuple[int, int, int, int]:
    """``(mode, arg, thr, low)`` of the kernel's gamma(``alpha``) variates (``alpha > 0``): the bits of ``d``,
    ``c`` and ``1 / alpha`` (0.0 for ``alpha >= 1``: no boost)."""
    d, c, inv = _gamma.params(alpha)
    return MODES["gamma"], _bits(d), _bits(c), _bits(0.0 if inv is None else inv)


# The draws of the raw kernel. Not part of the jiterator's source. Thread j makes block j of the launch; its
# outputs are ``per * j .. per * j + per - 1`` of the draw, stored at that index minus ``off`` when it falls in
# ``[0, count)``: the output holds exactly the ``count`` values asked for (a draw need not start or end on a block).
# A thread's outputs are 16, 32 or 64 contiguous bytes: where they lie whole inside the output and 16-byte aligned
# (every thread but the edges of a draw that starts on a block), they go out as 16-byte stores (a warp's 4-byte
# stores 32 bytes apart would each touch a separate memory sector); else one value at a time.
DRAW = r"""
struct XB_ALIGN16 xb_u4 {
  unsigned int x, y, z, w;
};

template <typename U>
XB_DEVICE double xb_u53(U w) {
  return (double)(w >> 11) * (1.0 / 9007199254740992.0);
}

template <typename U>
XB_DEVICE U xb_word(U j, U c0, U c1, U c2, U c3, U k0, U k1, int l) {
  U w[4];
  xb_philox_block<U>(j, c0, c1, c2, c3, k0, k1, 0LL, &w[0], &w[1], &w[2], &w[3]);
  return w[l];
}

template <typename U, int PER, int SIZE>
XB_DEVICE void xb_store(void* out, long long j, long long off, long long count, const unsigned int* v) {
  long long first = PER * j - off;
  long long w0 = first * (SIZE / 4);
  if (first >= 0 && first + PER <= count && (w0 & 3) == 0) {
    xb_u4* o = (xb_u4*)out + (w0 >> 2);
    for (int q = 0; q < PER * SIZE / 16; ++q) {
      xb_u4 t;
      t.x = v[4 * q];
      t.y = v[4 * q + 1];
      t.z = v[4 * q + 2];
      t.w = v[4 * q + 3];
      o[q] = t;
    }
    return;
  }
  for (int e = 0; e < PER; ++e) {
    long long i = first + e;
    if (i < 0 || i >= count) continue;
    if (SIZE == 8) ((U*)out)[i] = (U)v[2 * e] | ((U)v[2 * e + 1] << 32);
    else ((unsigned int*)out)[i] = v[e];
  }
}

template <typename U>
XB_DEVICE void xb_draw(U j, U c0, U c1, U c2, U c3, U k0, U k1, long long mode, U arg, U thr, U low,
                       long long off, long long count, void* out) {
  U w[4];
  xb_philox_block<U>(j, c0, c1, c2, c3, k0, k1, 0LL, &w[0], &w[1], &w[2], &w[3]);
  unsigned int v[16];
  long long jj = (long long)j;
  if (mode == 0 || mode == 9 || mode == 10) {
    for (int l = 0; l < 4; ++l) {
      U x = mode == 9 ? (w[l] & 0x7FFFFFFFFFFFFFFFULL) : w[l];
      v[2 * l] = (unsigned int)(x & 0xFFFFFFFFULL);
      v[2 * l + 1] = (unsigned int)(x >> 32);
    }
    if (mode == 10) xb_store<U, 8, 4>(out, jj, off, count, v);
    else xb_store<U, 4, 8>(out, jj, off, count, v);
  } else if (mode == 1) {
    for (int l = 0; l < 4; ++l) {
      U b = (U)XB_DOUBLE_BITS(xb_u53<U>(w[l]));
      v[2 * l] = (unsigned int)(b & 0xFFFFFFFFULL);
      v[2 * l + 1] = (unsigned int)(b >> 32);
    }
    xb_store<U, 4, 8>(out, jj, off, count, v);
  } else if (mode == 2) {
    for (int l = 0; l < 4; ++l) {
      v[2 * l] = XB_FLOAT_BITS((float)((w[l] & 0xFFFFFFFFULL) >> 8) * (1.0f / 16777216.0f));
      v[2 * l + 1] = XB_FLOAT_BITS((float)(w[l] >> 40) * (1.0f / 16777216.0f));
    }
    xb_store<U, 8, 4>(out, jj, off, count, v);
  } else if (mode <= 6) {
    double d[4];
    if (mode <= 4) {
      for (int p = 0; p < 2; ++p) {
        double r = sqrt(log1p(-xb_u53<U>(w[2 * p])) * -2.0);
        double t = xb_u53<U>(w[2 * p + 1]) * 6.283185307179586;
        d[2 * p] = r * cos(t);
        d[2 * p + 1] = r * sin(t);
      }
    } else {
      for (int l = 0; l < 4; ++l) d[l] = -log1p(-xb_u53<U>(w[l]));
    }
    for (int l = 0; l < 4; ++l) {
      if (mode == 3 || mode == 5) {
        U b = (U)XB_DOUBLE_BITS(d[l]);
        v[2 * l] = (unsigned int)(b & 0xFFFFFFFFULL);
        v[2 * l + 1] = (unsigned int)(b >> 32);
      } else {
        v[l] = XB_FLOAT_BITS((float)d[l]);
      }
    }
    if (mode == 4 || mode == 6) xb_store<U, 4, 4>(out, jj, off, count, v);
    else xb_store<U, 4, 8>(out, jj, off, count, v);
  } else if (mode == 7) {
    long long first = 8 * (long long)j - off;
    for (int l = 0; l < 8; ++l) {
      U r = 0;
      if (first + l >= 0 && first + l < count) {  // (no retries for outputs the call does not keep)
        U x = (l & 1) ? (w[l >> 1] >> 32) : (w[l >> 1] & 0xFFFFFFFFULL);
        U mm = x * arg;
        for (U a = 1; (mm & 0xFFFFFFFFULL) < thr && a <= 256ULL; ++a) {
          U y = xb_word<U>(j, c0, c1, c2, c3 + a, k0, k1, l >> 1);
          x = (l & 1) ? (y >> 32) : (y & 0xFFFFFFFFULL);
          mm = x * arg;
        }
        r = low + (mm >> 32);
      }
      v[2 * l] = (unsigned int)(r & 0xFFFFFFFFULL);
      v[2 * l + 1] = (unsigned int)(r >> 32);
    }
    xb_store<U, 8, 8>(out, jj, off, count, v);
  } else if (mode == 8) {
    long long first = 4 * (long long)j - off;
    for (int l = 0; l < 4; ++l) {
      U r = 0;
      if (first + l >= 0 && first + l < count) {
        U x = w[l] & arg;
        for (U a = 1; thr != 0ULL && x >= thr && a <= 256ULL; ++a)
          x = xb_word<U>(j, c0, c1, c2, c3 + a, k0, k1, l) & arg;
        r = low + x;
      }
      v[2 * l] = (unsigned int)(r & 0xFFFFFFFFULL);
      v[2 * l + 1] = (unsigned int)(r >> 32);
    }
    xb_store<U, 4, 8>(out, jj, off, count, v);
  } else if (mode == 11) {
    long long i = jj - off;
    if (i >= 0 && i < count) {
      double d = XB_BITS_DOUBLE(arg), c = XB_BITS_DOUBLE(thr), inv = XB_BITS_DOUBLE(low), g, lb;
      unsigned long long ww[4] = {w[0], w[1], w[2], w[3]};
      int ok = xb_gamma_attempt(ww, d, c, inv, &g, &lb);
      for (U a = 1; !ok && a <= 256ULL; ++a) {
        xb_philox_block<U>(j, c0, c1, c2, c3 + a, k0, k1, 0LL, &w[0], &w[1], &w[2], &w[3]);
        for (int l = 0; l < 4; ++l) ww[l] = w[l];
        ok = xb_gamma_attempt(ww, d, c, inv, &g, &lb);
      }
      ((U*)out)[i] = (U)XB_DOUBLE_BITS(inv != 0.0 ? XB_MUL(g, xb_exp(lb)) : g);
    }
  }
}
"""

_CUPY_ENTRY = r"""
extern "C" __global__ void xb_philox(long long m, unsigned long long c0, unsigned long long c1,
    unsigned long long c2, unsigned long long c3, unsigned long long k0, unsigned long long k1, long long mode,
    unsigned long long arg, unsigned long long thr, unsigned long long low, long long off, long long count,
    void* out) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  xb_draw<unsigned long long>((unsigned long long)j, c0, c1, c2, c3, k0, k1, mode, arg, thr, low, off, count, out);
}
"""

_DEVICE_BITS = {"XB_DOUBLE_BITS": "__double_as_longlong", "XB_FLOAT_BITS": "__float_as_uint",
                "XB_ALIGN16": "__align__(16)", "XB_BITS_DOUBLE": "__longlong_as_double", "XB_ADD": "__dadd_rn",
                "XB_SUB": "__dsub_rn", "XB_MUL": "__dmul_rn", "XB_DIV": "__ddiv_rn"}  # fmt: skip


def _fill(device: str, bits: dict[str, str], text: str = BLOCK) -> str:
    src = text.replace("XB_DEVICE", device)
    for k, v in bits.items():
        src = src.replace(k, v)
    return src


def jiterator_source() -> str:
    """The functor for ``torch.cuda.jiterator._create_multi_output_jit_fn(src, num_outputs=4, ...)``: input
    the block indices ``j``; scalars the counter lanes, key and mode (signed 64-bit); outputs the 4 words."""
    return (_fill("", _DEVICE_BITS) + _JITERATOR_ENTRY).strip()


def cupy_source() -> str:
    """The raw kernel ``xb_philox(m, c0..c3, k0, k1, mode, arg, thr, low, out)`` (:data:`KERNEL_ARGS`; ``out``:
    :data:`LAYOUT` ``[mode]`` outputs per block for ``m`` blocks) for ``cupy.RawKernel`` and NVRTC: plain
    CUDA C++, no header (the math functions are NVRTC's built-ins)."""
    dev = "__device__ __forceinline__"
    return _fill(dev, _DEVICE_BITS) + _fill(dev, _DEVICE_BITS, EXACT) + _fill(dev, _DEVICE_BITS, DRAW) + _CUPY_ENTRY


def host_source() -> str:
    """The same kernel for the host C++ compiler (tests): ``xb_philox_block``, ``xb_draw`` and the entry
    ``xb_philox`` with a portable ``__umul64hi``; ``xb_launch(grid, block, params)`` runs a launch's threads
    one after another, reading the arguments from a ``cuLaunchKernel`` parameter array (pointers to each)."""
    prelude = r"""
#include <cstring>
#include <math.h>
struct xb_dim3 { unsigned x; };
static xb_dim3 blockIdx, threadIdx, blockDim;
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline long long xb_double_bits(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
static inline unsigned int xb_float_bits(float f) { unsigned int v; std::memcpy(&v, &f, 4); return v; }
static inline double xb_bits_double(unsigned long long v) { double d; std::memcpy(&d, &v, 8); return d; }
static inline double xb_add(double a, double b) { return a + b; }
static inline double xb_sub(double a, double b) { return a - b; }
static inline double xb_mul(double a, double b) { return a * b; }
static inline double xb_div(double a, double b) { return a / b; }
"""
    launch = r"""
extern "C" void xb_launch(unsigned grid, unsigned block, void** p) {
  typedef unsigned long long u64;
  blockDim.x = block;
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < block; ++t) {
      blockIdx.x = b;
      threadIdx.x = t;
      xb_philox(*(long long*)p[0], *(u64*)p[1], *(u64*)p[2], *(u64*)p[3], *(u64*)p[4], *(u64*)p[5], *(u64*)p[6],
                *(long long*)p[7], *(u64*)p[8], *(u64*)p[9], *(u64*)p[10], *(long long*)p[11], *(long long*)p[12],
                *(void**)p[13]);
    }
}
"""
    bits = {"XB_DOUBLE_BITS": "xb_double_bits", "XB_FLOAT_BITS": "xb_float_bits", "XB_ALIGN16": "alignas(16)",
            "XB_BITS_DOUBLE": "xb_bits_double", "XB_ADD": "xb_add", "XB_SUB": "xb_sub", "XB_MUL": "xb_mul",
            "XB_DIV": "xb_div"}  # fmt: skip
    entry = _CUPY_ENTRY.replace("__global__ ", "")
    return (prelude + _fill("static inline", bits) + _fill("static inline", bits, EXACT)
            + _fill("static inline", bits, DRAW) + entry + launch)


_C256 = 1 << 256
_M64 = (1 << 64) - 1


def counter_lanes(ctr: int, first: int) -> list[int]:
    """The four 64-bit lanes of counter ``ctr + 1 + first`` (block ``first`` of a call at state ``ctr``)."""
    c = (ctr + 1 + first) % _C256
    return [c & _M64, (c >> 64) & _M64, (c >> 128) & _M64, c >> 192]


def integer_mode(r: int) -> tuple[int, int, int, int]:
    """``(mode, arg, thr, per)`` of the kernel's integers in ``[low, low + r)`` (``1 <= r <= 2**64``): Lemire on
    32-bit words up to 2**32 (``thr`` = 2**32 mod r), else a mask on 64-bit words (``thr`` = r, or 0 for 2**64);
    ``per`` variates per block."""
    if r <= 1 << 32:
        return MODES["bounded32"], r, (1 << 32) % r, 8
    return MODES["bounded64"], (1 << (r - 1).bit_length()) - 1, 0 if r == 1 << 64 else r, 4
