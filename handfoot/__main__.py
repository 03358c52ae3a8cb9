"""``python -m handfoot`` and the ``handfoot`` command: :func:`handfoot.cli.main`, then exit with its status."""

import os
import sys
import threading

from .cli import main


def run() -> None:
    """:func:`handfoot.cli.main`, then exit with its status. When threads outlive the command (the web server's idle
    worker threads after ``serve`` stopped keep a process up to ten seconds more) its work is already written and
    closed (the ledger closed by the server's shutdown), so the process leaves at once."""
    code = main()
    if threading.active_count() > 1:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    run()
