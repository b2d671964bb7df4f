"""The portable stream's CUDA kernel: Philox4x64-10 in C++, one thread per counter block.

Design constraint: one source for both CUDA libraries, testable without a GPU. :data:`BLOCK` (the rounds
and the output modes) is shared by the torch backend (a jiterator functor, :func:`jiterator_source`) and the
CuPy backend (a raw kernel, :func:`cupy_source`); tests compile it with the host C++ compiler
(:func:`host_source`, ``__umul64hi`` from a 128-bit product) and compare it with NumPy's Philox, so the GPU
run only has to confirm what the CPU already checked.

Output modes, per 64-bit word ``w`` of a block: 0 the word itself; 1 the bits of the float64
``(w >> 11) * 2**-53``; 2 the bits of two float32, ``(lo >> 8) * 2**-24`` in the low half and the same of the
high half above it (``lo``/``hi``: the word's 32-bit halves, the stream's 32-bit words in order).
"""

from __future__ import annotations

__all__ = ["BLOCK", "jiterator_source", "cupy_source", "host_source", "MODES"]

MODES = {"raw": 0, "float64": 1, "float32": 2}

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

_CUPY_ENTRY = r"""
extern "C" __global__ void xb_philox(long long m, unsigned long long c0, unsigned long long c1,
    unsigned long long c2, unsigned long long c3, unsigned long long k0, unsigned long long k1, long long mode,
    unsigned long long* out) {
  long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  xb_philox_block<unsigned long long>((unsigned long long)j, c0, c1, c2, c3, k0, k1, mode,
      out + 4 * j, out + 4 * j + 1, out + 4 * j + 2, out + 4 * j + 3);
}
"""

_DEVICE_BITS = {"XB_DOUBLE_BITS": "__double_as_longlong", "XB_FLOAT_BITS": "__float_as_uint"}


def _fill(device: str, bits: dict[str, str]) -> str:
    src = BLOCK.replace("XB_DEVICE", device)
    for k, v in bits.items():
        src = src.replace(k, v)
    return src


def jiterator_source() -> str:
    """The functor for ``torch.cuda.jiterator._create_multi_output_jit_fn(src, num_outputs=4, ...)``: input
    the block indices ``j``; scalars the counter lanes, key and mode (signed 64-bit); outputs the 4 words."""
    return (_fill("", _DEVICE_BITS) + _JITERATOR_ENTRY).strip()


def cupy_source() -> str:
    """The raw kernel ``xb_philox(m, c0..c3, k0, k1, mode, out)`` for ``cupy.RawKernel`` (``out``: 4m words)."""
    return _fill("__device__ __forceinline__", _DEVICE_BITS) + _CUPY_ENTRY


def host_source() -> str:
    """The same rounds for the host C++ compiler (tests): ``xb_philox_block`` with a portable ``__umul64hi``."""
    prelude = r"""
#include <cstring>
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline long long xb_double_bits(double d) { long long v; std::memcpy(&v, &d, 8); return v; }
static inline unsigned int xb_float_bits(float f) { unsigned int v; std::memcpy(&v, &f, 4); return v; }
"""
    return prelude + _fill("static inline", {"XB_DOUBLE_BITS": "xb_double_bits", "XB_FLOAT_BITS": "xb_float_bits"})
