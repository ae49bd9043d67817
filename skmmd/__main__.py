"""``python -m skmmd``: the demo and the commands of :mod:`skmmd.cli`."""

import sys

from .cli import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REJECT,
    TRANSFORMERS,
    main,
    run_demo,
    run_independence,
    run_test,
    run_two_sample_demo,
    run_warmup,
)
from .cli._files import load_sample

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_REJECT",
    "TRANSFORMERS",
    "load_sample",
    "main",
    "run_demo",
    "run_independence",
    "run_test",
    "run_two_sample_demo",
    "run_warmup",
]

if __name__ == "__main__":
    sys.exit(main())
