"""The Array API standard's searching functions (argmax, nonzero, where, searchsorted, ...)."""

from __future__ import annotations

__all__: list[str] = []
