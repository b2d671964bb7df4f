"""The Array API standard's constants (e, inf, nan, newaxis, pi)."""

from __future__ import annotations

__all__: list[str] = []
