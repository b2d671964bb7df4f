"""The Array API standard's indexing functions (take, take_along_axis)."""

from __future__ import annotations

__all__: list[str] = []
