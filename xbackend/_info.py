"""Inspection API: xb.__array_namespace_info__()."""

from __future__ import annotations

__all__: list[str] = []
