"""Host<->device staging: pinned buffers, non-blocking copies, prefetch."""

from __future__ import annotations

__all__: list[str] = []
