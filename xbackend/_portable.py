"""@xb.portable: native arrays in, Arrays inside, native arrays of the caller's type out."""

from __future__ import annotations

__all__: list[str] = []
