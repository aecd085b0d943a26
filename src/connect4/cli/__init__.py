"""The ``connect4`` command, one module per subcommand group.

:func:`main` is the console script: the typer app (:mod:`connect4.cli.app`) reads
every command line. A command line loads the one subcommand it names, and the
packages a command needs are imported when it runs, so a warm ``connect4 play``
reaches its first prompt, and ``connect4 solve`` answers a late position, within
about a second, interpreter start included; play's computer players get ready
while the first prompt waits.

The command line's one Ctrl-C policy (:func:`say_interrupted`, reached through
``connect4.cli.common.interrupted``): the first Ctrl-C stops the work (its
``Limit`` is stopped, or a KeyboardInterrupt unwinds it), what is done is kept
(journals, results files, the moves so far), ONE line is printed on stderr
(``interrupted``, or ``interrupted: `` and what was kept) and the exit status is
130; a Ctrl-C after that line ends the process at once, also with 130. A command
only says what it kept; Ctrl-C before a command starts (while the command line
loads) gets the same one line. An interrupted command ends as soon as its exit
handlers have run: the process does not wait for threads still in compiled
code, nor tear down its modules one by one.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT)."""


def main() -> None:
    """Run the ``connect4`` command line."""
    keep_lost_interrupts()
    try:
        from connect4.cli.app import run_app

        run_app()
        code: object = 0
    except KeyboardInterrupt:  # before the command's own handling: loading the command line
        say_interrupted()
        code = INTERRUPTED
    except SystemExit as end:
        code = end.code
        if code == INTERRUPTED and isinstance(
            getattr(end.__context__, "__cause__", None), KeyboardInterrupt
        ):
            say_interrupted()  # typer's own answer to Ctrl-C says nothing
    if code == INTERRUPTED:
        exit_now(INTERRUPTED)
    sys.exit(code)  # type: ignore[arg-type]


def keep_lost_interrupts() -> None:
    """Deliver again a Ctrl-C that Python dropped. A KeyboardInterrupt raised while a
    weakref callback, a finalizer (``__del__``) or the garbage collector runs cannot
    unwind the program: Python reports it as an "Exception ignored" and carries on, and
    the Ctrl-C is lost (imports free their module locks in such callbacks, so a Ctrl-C
    while the command line loads can land there). The hook installed here sends SIGINT
    again from a new thread; the main thread takes it at a later step of its own,
    outside the hook (the thread needs the interpreter, which the main thread holds
    until it returns from the hook and goes on). Other unraisable exceptions, and a
    dropped Ctrl-C no thread can be started for, are reported as before. Installing it
    twice installs it once.
    """
    import _thread
    import os
    import signal

    report = sys.unraisablehook
    if getattr(report, "keeps_lost_interrupts", False):
        return

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and not sys.is_finalizing():
            try:
                _thread.start_new_thread(os.kill, (os.getpid(), signal.SIGINT))
                return
            except RuntimeError:  # no thread to be had: say what was dropped, at least
                pass
        report(unraisable)

    hook.keeps_lost_interrupts = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook


_said: list[str] = []  # the one line, once said


def say_interrupted(note: str = "") -> None:
    """The policy's one line on stderr, ``interrupted`` or ``interrupted: note`` (what the
    command kept), said once per process (a later call says nothing); from then on a
    Ctrl-C ends the process at once with exit status 130. On a terminal the line starts
    on a line of its own (after the ``^C`` the terminal echoed)."""
    import contextlib
    import signal

    if _said:
        return
    line = f"interrupted{': ' + note if note else ''}"
    _said.append(line)
    with contextlib.suppress(OSError, ValueError):  # a closed stderr: nothing to say it on
        fresh = "\n" if sys.stderr.isatty() else ""
        print(fresh + line, file=sys.stderr, flush=True)
    with contextlib.suppress(ValueError):  # off the main thread: its handler stays
        signal.signal(signal.SIGINT, lambda signum, frame: exit_at_once())


def exit_at_once() -> None:
    """End the process now with exit status 130 (a second Ctrl-C): the output flushed,
    nothing else waited for."""
    import contextlib
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(INTERRUPTED)


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
