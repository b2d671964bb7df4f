"""The Array API standard's set functions (unique_*)."""

from __future__ import annotations

__all__: list[str] = []
