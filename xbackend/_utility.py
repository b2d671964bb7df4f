"""The Array API standard's utility functions (all, any, diff)."""

from __future__ import annotations

__all__: list[str] = []
