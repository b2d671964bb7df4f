"""The Array API standard's statistical functions (sum, mean, std, ...)."""

from __future__ import annotations

__all__: list[str] = []
