"""FFT extension (xb.fft) of the Array API standard."""

from __future__ import annotations

__all__: list[str] = []
