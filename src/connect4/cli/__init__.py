"""The ``connect4`` command, one module per subcommand group.

:func:`main` is the console script: the typer app (:mod:`connect4.cli.app`) reads
every command line. A command line loads the one subcommand it names, and the
packages a command needs are imported when it runs, so a warm ``connect4 play``
reaches its first prompt, and ``connect4 solve`` answers a late position, within
about a second, interpreter start included; play's computer players get ready
while the first prompt waits.

An interrupted command (exit status 130) ends as soon as its exit handlers have
run: the process does not wait for threads still in compiled code, nor tear
down its modules one by one. Ctrl-C before a command starts (while the command
line loads) ends it with the same one line, ``interrupted``.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT)."""


def main() -> None:
    """Run the ``connect4`` command line."""
    try:
        from connect4.cli.app import run_app

        run_app()
        code: object = 0
    except KeyboardInterrupt:  # before the command's own handling: loading the command line
        print("interrupted", file=sys.stderr)
        code = INTERRUPTED
    except SystemExit as end:
        code = end.code
        if code == INTERRUPTED and isinstance(
            getattr(end.__context__, "__cause__", None), KeyboardInterrupt
        ):
            print("interrupted", file=sys.stderr)  # typer's own answer to Ctrl-C says nothing
    if code == INTERRUPTED:
        exit_now(INTERRUPTED)
    sys.exit(code)  # type: ignore[arg-type]


def exit_now(code: int) -> None:
    """End the process with ``code`` once the output is flushed and the exit handlers
    (``atexit``: multiprocessing's clean-up among them) have run."""
    import atexit
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: leave now
        atexit._run_exitfuncs()
    os._exit(code)
