"""Linear algebra extension (xb.linalg) of the Array API standard."""

from __future__ import annotations

__all__: list[str] = []
