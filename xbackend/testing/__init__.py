"""Cross-backend testing kit: the targets this machine can run on and a pytest plugin.

>>> from xbackend.testing import available_targets
>>> available_targets()[0].id
'numpy-cpu'
"""

from ._targets import Target, available_targets, gpu_unavailable_reason, selected_targets

__all__ = ["Target", "available_targets", "selected_targets", "gpu_unavailable_reason"]
