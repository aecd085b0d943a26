"""The ``connect4`` command, one module per subcommand group.

:func:`main` is the console script. ``connect4 solve`` takes a fast path that
skips loading the typer app, so a late position is answered within about a
second, interpreter start included.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the ``connect4`` command line."""
    if sys.argv[1:2] == ["solve"]:
        from connect4.cli.solve import solve_main

        try:
            sys.exit(solve_main(sys.argv[2:]))
        except BrokenPipeError:
            sys.stderr.close()
            return
    from connect4.cli.app import run_app

    run_app()
