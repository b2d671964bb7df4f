"""NumPy-style (the standard's) indexing rules on torch.

Design constraint: ``x[key]`` and ``x[key] = v`` mean the same on every backend. torch has no negative
steps (emulated with ``flip``), checks bounds of index tensors only on some paths, and treats an empty
Ellipsis between advanced indices differently; :class:`TorchIndexMixin` (part of
:class:`~xbackend._backends.torch.TorchBackend`) normalises keys, checks bounds and emulates the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..._backend import Backend
from ..common.keys import check_bounds_at_once, key_dims
from .grad import leaf_write_error

torch: Any = None  # the torch module: bound by torch.py's _import_torch() before any backend runs


class TorchIndexMixin(Backend):
    """Part of :class:`~xbackend._backends.torch.TorchBackend`: see the module docstring."""

    if TYPE_CHECKING:  # defined by TorchBackend
        _tensor: Any  # torch.Tensor
        @property
        def _signed_view(self) -> dict[Any, Any]: ...  # uintN -> intN (TorchUintMixin)

    def normalize_key(self, x: Any, key: Any) -> Any:
        Tensor = self._tensor
        if type(key) is tuple:
            if not any(isinstance(k, Tensor) for k in key):
                return key
            if x.is_cuda:  # CUDA kernels assert (and poison the context) instead of raising IndexError: check first
                self._check_index(x, key)
            # torch applies a Python int next to index tensors as a basic index first; NumPy treats it as
            # a 0-d advanced index, which moves the result axes when the indices are not adjacent. As
            # 1-element int64 tensors the ints broadcast exactly like NumPy's 0-d ones.
            dev = x.device
            return tuple(
                self._index_tensor(k) if isinstance(k, Tensor)
                else torch.full((1,), k, dtype=torch.int64, device=dev) if type(k) is int else k
                for k in key
            )  # fmt: skip
        if isinstance(key, Tensor):
            if x.is_cuda:
                self._check_index(x, key)
            return self._index_tensor(key)
        return key

    def _index_tensor(self, k: Any) -> Any:
        """torch indexes with int64 or bool only (uint8 would be read as a mask)."""
        dt = k.dtype
        if dt == torch.int64 or dt == torch.bool:
            return k
        if dt == torch.uint64:  # above 2**63 it would read as a negative index; on CUDA _check_index refused it
            if not k.is_cuda and k.numel() and bool((k.view(torch.int64) < 0).any()):
                raise IndexError("index out of bounds (uint64 index above 2**63)")
            return k.view(torch.int64)
        return k.to(torch.int64)

    def _check_index(self, x: Any, key: Any) -> None:
        """IndexError for an index outside its axis, before a CUDA kernel sees it: Python ints next to index tensors
        on the host, every index tensor in one device read (one synchronisation per indexing call, documented in
        docs/behaviour.md; tests/test_sync_free.py counts it)."""
        Tensor = self._tensor
        check_bounds_at_once(tuple(x.shape), key, lambda k: isinstance(k, Tensor), lambda k: k.dtype == torch.bool,
                             _outside, _read_flags)  # fmt: skip

    def _negative_steps(self, x: Any, key: Any) -> tuple[list[int], Any] | None:
        items = key if type(key) is tuple else (key,)
        if not any(type(k) is slice and k.step is not None and k.step < 0 for k in items):
            return None
        Tensor = self._tensor
        is_mask = lambda k: k.dtype == torch.bool  # noqa: E731
        consumed = key_dims(items, lambda k: isinstance(k, Tensor), is_mask)
        out: list[Any] = []
        flips: list[int] = []
        dim = 0
        for k in items:
            if k is Ellipsis:
                dim += x.ndim - consumed
                out.append(k)
            elif k is None or type(k) is bool:
                out.append(k)
            elif type(k) is slice and k.step is not None and k.step < 0:
                n = x.shape[dim]
                r = range(*k.indices(n))
                if len(r) == 0:
                    out.append(slice(0, 0))
                else:
                    flips.append(dim)
                    out.append(slice(n - 1 - r[0], n - r[-1], -k.step))
                dim += 1
            else:  # int, positive slice or index tensor: flipping other axes does not change its meaning
                out.append(k)
                dim += k.ndim if isinstance(k, Tensor) and is_mask(k) else 1
        return flips, tuple(out)

    def getitem(self, x: Any, key: Any) -> Any:
        t = type(key)
        if t is int or (t is slice and (key.step is None or key.step > 0)):
            return x[key]  # the hot path: a view, bounds checked on the host by torch
        sep = self._empty_ellipsis_separator(x, key)  # (on CUDA, normalize_key checked the bounds)
        if sep is not None:
            x, key, after = sep
            r = self.getitem(x, key)
            return r.squeeze(r.ndim - 1 - after)
        neg = self._negative_steps(x, key)
        signed = self._signed_view.get(x.dtype)
        if signed is not None:  # uint16/32/64 lack gather/flip kernels: move the same bits as intN
            s = x.view(signed)
            return (s[key] if neg is None else s.flip(neg[0])[neg[1]]).view(x.dtype)
        if neg is None:
            return x[key]
        flips, key = neg
        return x.flip(flips)[key]

    def _empty_ellipsis_separator(self, x: Any, key: Any) -> tuple[Any, Any, int] | None:
        """NumPy counts an Ellipsis that covers no dimension as a separator between index arrays (their
        result axes then go first); torch does not. Make the separation real for torch: a size-1 axis at
        the Ellipsis (a view) indexed by ``:``. Returns (view, key, result axes after the new one), or None."""
        if type(key) is not tuple or Ellipsis not in key:
            return None
        Tensor = self._tensor
        e = key.index(Ellipsis)
        before, rest = key[:e], key[e + 1 :]
        if not (any(isinstance(k, Tensor) for k in before) and any(isinstance(k, Tensor) for k in rest)):
            return None
        is_mask = lambda k: k.dtype == torch.bool  # noqa: E731
        is_tensor = lambda k: isinstance(k, Tensor)  # noqa: E731
        if key_dims(key, is_tensor, is_mask) != x.ndim:
            return None  # the Ellipsis covers some axes: torch already sees the indices as separated
        pos = key_dims(before, is_tensor, is_mask)
        after = sum(1 for k in rest if k is None or type(k) is slice)
        return x.unsqueeze(pos), before + (slice(None),) + rest, after

    def setitem(self, x: Any, key: Any, value: Any) -> None:
        if isinstance(value, self._tensor):  # x[1:11] = x[:10]: NumPy copies an overlapping source first (torch
            sx, sv = x.untyped_storage(), value.untyped_storage()  # raises, or writes what it half-read where it
            px, pv = sx.data_ptr(), sv.data_ptr()  # cannot judge the strides: x[1:, 1:] = x[:-1, :-1]); one storage
            nx, nv = sx.nbytes(), sv.nbytes()  # or two over one buffer (from_numpy of two views of a NumPy array);
            if px == pv or (px < pv + nv and pv < px + nx):  # both sizes read first: the same calls wherever the
                value = value.clone()  # allocator put the buffers (tests/call_budgets.json counts them)
        sep = self._empty_ellipsis_separator(x, key)
        if sep is not None:
            x, key, after = sep
            if isinstance(value, self._tensor) and value.ndim > after:
                value = value.unsqueeze(value.ndim - after)
            return self.setitem(x, key, value)
        neg = self._negative_steps(x, key)
        base = x
        signed = self._signed_view.get(x.dtype)
        if signed is not None:  # uint16/32/64 lack index_put_/flip kernels: write the same bits as intN
            if isinstance(value, (bool, int, float)):  # torch.full: torch.tensor(v, device="cuda") syncs the host
                value = torch.full((), value, dtype=x.dtype, device=x.device)
            elif not isinstance(value, self._tensor):
                value = torch.tensor(value, dtype=x.dtype, device=x.device)
            base, value = x.view(signed), value.view(signed)
        target, k = (base, key) if neg is None else (base.flip(neg[0]), neg[1])
        try:
            target[k] = value
        except RuntimeError as exc:  # NumPy (and the standard's broadcasting rules) say ValueError
            msg = str(exc)
            if (err := leaf_write_error(x, "x[...] = value", exc)) is not None:
                raise err from exc
            if "must match" in msg or "shape mismatch" in msg or "broadcast" in msg:
                raise ValueError(f"cannot broadcast the value into the indexed shape: {msg}") from exc
            raise
        if neg is not None:
            base.copy_(target.flip(neg[0]))


def _outside(k: Any, n: int) -> Any:
    """Where index tensor ``k`` is outside ``[-n, n)`` (uint64 above 2**63 included: its int64 view is negative, and
    an unsigned index has no negative form)."""
    if k.dtype == torch.uint64:
        v = k.view(torch.int64)
        return (v < 0) | (v >= n)
    if k.dtype != torch.int64:
        k = k.to(torch.int64)
    return (k < -n) | (k >= n)


def _read_flags(flags: list[Any]) -> list[bool]:
    """Device bools to Python bools in one read (one synchronisation)."""
    return torch.stack(flags).tolist() if len(flags) > 1 else [bool(flags[0])]
