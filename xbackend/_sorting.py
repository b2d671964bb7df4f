"""The Array API standard's sorting functions (sort, argsort)."""

from __future__ import annotations

__all__: list[str] = []
