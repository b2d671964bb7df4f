"""Cross-backend testing kit: the targets this machine can run on and a pytest plugin.

>>> from xbackend.testing import available_targets
>>> available_targets()[0].id
'numpy-cpu'
"""

from ._assert import assert_close, assert_equal, assert_same_dtype, default_tolerance, to_host
from ._targets import Target, available_targets, gpu_unavailable_reason, selected_targets

__all__ = [
    "Target", "available_targets", "selected_targets", "gpu_unavailable_reason", "strategies",
    "assert_close", "assert_equal", "assert_same_dtype", "default_tolerance", "to_host",
]  # fmt: skip


def __getattr__(name: str):  # strategies need hypothesis: import it only when asked
    if name == "strategies":
        from . import strategies

        return strategies
    raise AttributeError(f"module 'xbackend.testing' has no attribute {name!r}")
