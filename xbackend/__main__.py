"""Command line: ``python -m xbackend info | demo | diverge``.

``info``  versions, every backend with availability and the reason when unusable, devices, defaults.
``demo``  the click-through-rate scenario: synthetic click data made in NumPy, a logistic regression
          trained by the same backend-portable xbackend code, with gradients by automatic differentiation
          (``xb.value_and_grad``), on every usable backend that has gradients (NumPy and CuPy through
          torch, torch, JAX), with loss, agreement with a plain-NumPy hand-derived gradient, and time
          (``--jit``: each step compiled by ``@xb.jit``); ``xbackend/_demo.py``.
``diverge`` ``module:function``: the first xbackend call whose result differs across backends
          (``xbackend/testing/_diverge_cli.py``: the arguments come from ``make_args()`` beside the function).
"""

from __future__ import annotations

import argparse
import platform
import sys
from typing import Any, Sequence

import xbackend as xb
from xbackend._demo import demo


def info() -> int:
    """Print versions, backends (with the reason when unusable), devices and defaults."""
    cfg = xb.get_config()
    print(f"xbackend {xb.__version__} (Array API {xb.__array_api_version__}) on Python {platform.python_version()}")
    print("backends:")
    for inf in xb.backends().values():
        print(f"  {inf}")
        for k, v in inf.extra.items():
            print(f"         {k}: {v}")
    dev = cfg.device or "backend default"
    print(f"defaults: backend={cfg.backend} device={dev} float={cfg.default_float} int={cfg.default_int}")
    for problem in xb._config.environment_problems():  # XBACKEND_BACKEND=tourch: flagged, with the fix
        print(f"  ! {problem}")
    print("environment variables: " + ", ".join(xb._config.ENVIRONMENT_VARIABLES))
    return 0


def _plain(rst: str) -> str:
    """reStructuredText inline markup as plain terminal text (``code`` -> code)."""
    return rst.replace("``", "")


def _positive_int(text: str) -> int:
    """argparse's type for counts: a positive int, or an argument error (not a traceback from the demo)."""
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer (1 or more), got {v}")
    return v


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xbackend", description=_plain(__doc__.splitlines()[0]),
        epilog="python -m xbackend demo --help lists the demo's options (--n, --d, --steps, --jit)",
    )  # fmt: skip
    parser.add_argument("--version", action="version",
                        version=f"xbackend {xb.__version__} (Array API {xb.__array_api_version__})")  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True,
                                metavar="{info,demo,diverge}")  # fmt: skip
    sub.add_parser("info", help="versions, backends and devices")
    p = sub.add_parser("demo", help="train a click-through-rate model on every usable backend (--n impressions, "
                                    "--d features, --steps gradient steps, --jit)")  # fmt: skip
    p.add_argument("--n", type=_positive_int, default=20_000, metavar="N",
                   help="impressions (rows of synthetic click data; default: %(default)s)")  # fmt: skip
    p.add_argument("--d", type=_positive_int, default=16, metavar="D",
                   help="features per impression (default: %(default)s)")  # fmt: skip
    p.add_argument("--steps", type=_positive_int, default=200, metavar="STEPS",
                   help="gradient-descent steps (default: %(default)s)")  # fmt: skip
    p.add_argument("--jit", action="store_true", help="compile each training step with @xb.jit (compile time and "
                                                      "warm-up are reported apart from the training time)")
    from xbackend.testing import _diverge_cli

    _diverge_cli.add_parser(sub)
    args: Any = parser.parse_args(argv)
    if args.command == "info":
        return info()
    if args.command == "diverge":
        return _diverge_cli.main(args)
    return demo(n=args.n, d=args.d, steps=args.steps, jit=args.jit)


if __name__ == "__main__":
    sys.exit(main())
