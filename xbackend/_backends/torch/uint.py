"""uint16/uint32/uint64 on torch, which has (almost) no unsigned kernels wider than uint8.

Design constraint: bit-exact, and free for the dtypes that need none. uint16/uint32 compute exactly in
int64 and cast back; uint64 runs on its own bits viewed as int64 (add, subtract, multiply, the bitwise ops
and left shifts give the same bits in two's complement), is ordered through the sign-flip image
``bits ^ -2**63`` (comparisons, maximum/minimum/clip, sorting), shifts right logically by masking, raises
to powers by squaring and divides by the halve-divide-correct trick. :class:`TorchUintMixin` is part of
:class:`~xbackend._backends.torch.TorchBackend`; the kernels are built once per (op, dtype).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable

from ... import _dtypes as D
from ..._backend import Backend
from ..._dtypes import DType
from ..._errors import UnsupportedDTypeError

torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs

_UINT_WIDE = frozenset({D.uint16, D.uint32, D.uint64})  # (a set: membership by identity hash, never DType.__eq__)
_BITEXACT = frozenset("add subtract multiply negative positive square bitwise_and bitwise_or bitwise_xor "
                      "bitwise_invert bitwise_left_shift equal not_equal matmul".split())  # fmt: skip
_SIGNED_OF = {D.uint16: D.int16, D.uint32: D.int32, D.uint64: D.int64}
_ORDERED = frozenset("less less_equal greater greater_equal maximum minimum clip".split())
_I64_MIN = -(1 << 63)


class TorchUintMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.TorchBackend`: see the module docstring."""

    if TYPE_CHECKING:  # defined by TorchBackend
        to_t: dict[DType, Any]  # xbackend dtype -> torch dtype
        def _plain_kernel(self, name: str, dt: DType) -> Callable[..., Any]: ...  # TorchBackend's

    def _uint_kernel(self, name: str, dt: DType, fn: Callable[..., Any]) -> Callable[..., Any]:
        nd = self.to_t[dt]
        if dt is not D.uint64:  # exact in int64: compute there, wrap back
            back = name not in ("less", "less_equal", "greater", "greater_equal", "isnan", "isinf", "isfinite",
                                "signbit", "equal", "not_equal")  # fmt: skip
            i64 = torch.int64
            wide = self._plain_kernel(name, D.int64)

            def via_int64(*args: Any) -> Any:
                r = wide(*(a.to(i64) if isinstance(a, torch.Tensor) else a for a in args))
                return r.to(nd) if back and r.dtype == i64 else r

            return via_int64
        if name in _BITEXACT or name in _ORDERED:
            i64 = torch.int64
            wide = self._plain_kernel(name, D.int64)
            flip = name in _ORDERED
            sign = -(1 << 63)

            def on_bits(*args: Any) -> Any:
                conv: list[Any] = []
                for a in args:
                    if a is None:  # clip without one bound
                        conv.append(a)
                        continue
                    if isinstance(a, torch.Tensor):
                        a = a.view(i64)
                    elif isinstance(a, int):
                        a = a - (1 << 64) if a >= 1 << 63 else a
                    conv.append(a ^ sign if flip else a)
                r = wide(*conv)
                if r.dtype == i64:
                    r = (r ^ sign) if flip else r
                    return r.view(nd)
                return r

            return on_bits
        if name == "bitwise_right_shift":
            return self._uint64_right_shift(nd)
        if name == "floor_divide" or name == "remainder":
            return _uint64_divmod_kernel(name == "floor_divide")
        if name == "pow":
            return _uint64_pow
        if name in ("abs", "positive", "ceil", "floor", "trunc", "round", "conj", "real"):
            return lambda x: x.clone()  # identities on unsigned data (int64's abs would negate the high half)
        if name == "imag":
            return torch.zeros_like
        if name == "sign":
            return lambda x: (x != 0).to(nd)
        if name in ("isnan", "isinf"):
            return lambda x: torch.zeros(x.shape, dtype=torch.bool, device=x.device)
        if name == "isfinite":
            return lambda x: torch.ones(x.shape, dtype=torch.bool, device=x.device)

        def refuse(*args: Any) -> Any:
            raise UnsupportedDTypeError(
                f"{name}() on uint64 is not available on the torch backend (torch has no uint64 kernels and int64 "
                "cannot emulate it exactly). Fix: cast to int64 or float64 first, or use backend='numpy'"
            )

        return refuse

    @staticmethod
    def _uint64_right_shift(nd: Any) -> Callable[..., Any]:
        """Logical ``x >> s`` on uint64 from int64's arithmetic shift: mask off the copied sign bits."""
        i64 = torch.int64

        def bits(v: Any) -> Any:
            if isinstance(v, torch.Tensor):
                return v.view(i64)
            return v - (1 << 64) if v >= 1 << 63 else v

        def shift(x: Any, s: Any) -> Any:
            xs, ss = bits(x), bits(s)
            if isinstance(ss, torch.Tensor):
                ss = torch.where(ss < 0, 64, ss.clamp(max=64))  # uint64 shifts >= 2**63 look negative
            else:
                ss = 64 if ss < 0 or ss > 64 else ss
            if not isinstance(xs, torch.Tensor):
                xs = torch.full((), xs, dtype=i64, device=ss.device)
            if isinstance(ss, int):
                if ss == 64:
                    return torch.zeros_like(xs).view(nd)
                mask = (1 << (64 - ss)) - 1
                mask = mask - (1 << 64) if mask >= 1 << 63 else mask
                return ((xs >> ss) & mask).view(nd)
            keep = torch.bitwise_not(torch.bitwise_left_shift(torch.full_like(ss, -1), 64 - ss))
            out = torch.bitwise_right_shift(xs, ss.clamp(max=63)) & keep
            return torch.where(ss >= 64, torch.zeros_like(out), out).view(nd)

        return shift

    # Axes arrive normalised; index results are int64. Pure data movement on uint16/32/64 (which torch
    # lacks kernels for) runs on the same bits viewed as int16/32/64; comparisons use order-preserving
    # int64 images (uint64: the sign-flip trick).
    @functools.cached_property
    def _signed_view(self) -> dict[Any, Any]:
        t = torch
        return {getattr(t, f"uint{b}"): getattr(t, f"int{b}") for b in (16, 32, 64) if hasattr(t, f"uint{b}")}

    def _ordered(self, x: Any) -> Any:
        """``x`` in a dtype torch can compare/sort, preserving order (bool -> uint8, uintN -> int64)."""
        dt = x.dtype
        if dt == torch.bool:
            return x.to(torch.uint8)
        if dt in self._signed_view:
            if dt == torch.uint64:
                return x.view(torch.int64) ^ -(1 << 63)
            return x.to(torch.int64)
        return x

    def _bits(self, fn: Callable[..., Any], x: Any, *args: Any) -> Any:
        """``fn`` (pure data movement) on uint16/32/64 data viewed as intN, which torch has kernels for."""
        signed = self._signed_view.get(x.dtype)
        if signed is None:
            return fn(x, *args)
        return fn(x.view(signed), *args).view(x.dtype)

    # torch has no uint16/32/64 reductions, scans, comparisons or gathers: uint16/32 compute exactly in
    # int64 and cast back (sums and products wrap modulo 2**bits, as NumPy's do); uint64 runs on its own
    # bits viewed as int64 (two's complement add/multiply are the same bits), and is ordered through the
    # sign-flip image ``bits ^ -2**63``. torch.sum(dim=()) reduces every axis: the core never sends ().
    def _wide(self, x: Any, dt: DType) -> Any:
        """uint16/32 -> int64 values, uint64 -> int64 bits (for sums, products, differences)."""
        return x.view(torch.int64) if dt is D.uint64 else x.to(torch.int64)

    def _narrow(self, r: Any, dt: DType) -> Any:
        return r.view(torch.uint64) if dt is D.uint64 else r.to(self.to_t[dt])

    def _sort_key(self, x: Any, dt: DType, descending: bool) -> Any:
        """A tensor torch can sort whose stable ascending order is the order we want (NaNs last either way)."""
        if dt in _UINT_WIDE:
            x = (x.view(torch.int64) ^ -(1 << 63)) if dt is D.uint64 else x.to(torch.int64)
        if not descending:
            return x
        return -x if dt.kind == "f" else ~x  # -NaN is NaN; ~ reverses bool and (un)signed ints exactly


def _u64_bits(v: Any, like: Any) -> Any:
    """A uint64 operand as an int64 tensor with the same bits (Python ints above 2**63 wrap)."""
    if isinstance(v, torch.Tensor):
        return v.view(torch.int64)
    v = int(v) & ((1 << 64) - 1)
    return torch.full((), v - (1 << 64) if v >= 1 << 63 else v, dtype=torch.int64, device=like.device)  # no sync


def _u64_less(a: Any, b: Any) -> Any:
    """Unsigned ``a < b`` on int64 bit patterns (the sign-flip image preserves unsigned order)."""
    return (a ^ _I64_MIN) < (b ^ _I64_MIN)


def _uint64_divmod(n: Any, d: Any) -> tuple[Any, Any]:
    """Unsigned 64-bit quotient and remainder on int64 bits, exactly (Hacker's Delight, divlu).

    A divisor >= 2**63 (negative as int64) goes into n at most once. Otherwise halve n with a logical
    shift (now non-negative, so int64's division is unsigned division), divide, double the quotient and
    correct it by one where the remainder is still >= d. Division by zero gives 0 (the integer rule)."""
    big = d < 0
    zero = d == 0
    safe = torch.where(big | zero, torch.ones_like(d), d)
    q = ((n >> 1) & ~_I64_MIN) // safe << 1
    r = n - q * safe
    q = torch.where(_u64_less(r, safe), q, q + 1)
    q = torch.where(big, (~_u64_less(n, d)).to(torch.int64), q)
    q = torch.where(zero, torch.zeros_like(q), q)
    r = torch.where(zero, torch.zeros_like(q), n - q * d)
    return q, r


def _uint64_divmod_kernel(quotient: bool) -> Callable[..., Any]:
    def kernel(x: Any, y: Any) -> Any:
        like = x if isinstance(x, torch.Tensor) else y
        n, d = torch.broadcast_tensors(_u64_bits(x, like), _u64_bits(y, like))
        q, r = _uint64_divmod(n, d)
        return (q if quotient else r).view(torch.uint64)

    return kernel


def _uint64_pow(x: Any, y: Any) -> Any:
    """``x ** y`` modulo 2**64 by squaring on int64 bits (products wrap identically in two's complement)."""
    like = x if isinstance(x, torch.Tensor) else y
    base, e = torch.broadcast_tensors(_u64_bits(x, like), _u64_bits(y, like))
    out = torch.ones_like(base)
    nbits = 64 if isinstance(y, torch.Tensor) else (int(y) & ((1 << 64) - 1)).bit_length()
    for i in range(nbits):
        out = torch.where(((e >> i) & 1) == 1, out * base, out)
        if i + 1 < nbits:
            base = base * base
    return out.view(torch.uint64)
