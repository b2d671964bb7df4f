"""The Array API standard's manipulation functions (concat, stack, reshape, ...)."""

from __future__ import annotations

__all__: list[str] = []
