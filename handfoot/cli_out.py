"""How the ``handfoot`` command line answers: reports and JSON on standard output, what it says beside them
(progress, notes, one-line errors) on standard error, and the exit status of bad input."""

from __future__ import annotations

import json
import sys
from typing import Any

#: the exit status of bad input (a usage mistake is argparse's 2)
EXIT_BAD_INPUT = 1


def print_json(data: Any) -> None:
    """``data`` as indented JSON on standard output."""
    print(json.dumps(data, indent=2))


def say(message: str) -> None:
    """One line on standard error (beside a report or JSON on standard output)."""
    print(message, file=sys.stderr)
