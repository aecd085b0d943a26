"""External bots: any program that speaks the line protocol, as the ``cmd:`` player.

The arena runs ``cmd:PROGRAM ARGS`` as a child process in its own process
group and talks to it one line per message over stdin/stdout (docs/arena.md)::

    arena -> bot   init <game> <width> <height> <colour> <rules>
    bot -> arena   ready
    arena -> bot   move <moves or -> <seconds or ->     (once per turn)
    bot -> arena   <move>                               (1-based column; numpad cell)
    arena -> bot   quit

``<game>`` is ``connect4`` or ``tictactoe``, ``<colour>`` is ``red`` (moves
first) or ``yellow``, ``<moves>`` is the game's move string so far (``-`` for
none) and ``<seconds>`` the time left for this move (``-`` when unlimited).
A bot that is too slow, dies, prints anything but a move, or plays an illegal
move raises :class:`BotFault` with the forfeit reason: ``timeout``, ``crash``
(non-zero exit or signal), ``exited`` (exit status 0 mid-game),
``bad output 'hello'`` or ``illegal move 9``.

>>> import sys
>>> from pathlib import Path
>>> from connect4 import Position
>>> example = Path(__file__).resolve().parents[3] / "examples" / "bot.py"
>>> bot = make_external(f"{sys.executable} {example}", time_limit=5.0)
>>> bot.choose(Position.from_moves("44")).move in range(7)
True
>>> bot.close()
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import IO

from connect4.core.errors import Connect4Error, clip
from connect4.core.files import MAX_INPUT_LINE
from connect4.core.game import Game
from connect4.core.limits import Limit, clock as read_clock
from connect4.core.processes import die_with_parent
from connect4.players.base import MoveChoice, PlayerBase, PlayerContext
from connect4.players.registry import PlayerKind, PlayerSpecError

STARTUP_SECONDS = 10.0  # a bot must answer ``init`` with ``ready`` within this
QUIT_GRACE_SECONDS = 0.5  # after ``quit``, the process group is killed
STOP_LOOK = 0.1  # seconds between two looks at the caller's stop while the bot is silent
MAX_MOVE_SECONDS = PlayerContext.max_move_seconds  # a bot silent this long without a clock forfeits
SILENCE_WARNING_SECONDS = 10.0  # ... and one silent this long gets a warning on stderr
MOVE_PATTERN = re.compile(r"[+-]?\d{1,6}")


class BotFault(Connect4Error):
    """A bot broke the protocol; ``reason`` is the forfeit reason recorded in results.

    >>> BotFault("illegal move 9").reason
    'illegal move 9'
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason + (f" ({detail})" if detail else ""))
        self.reason = reason
        self.detail = detail


def bad_output(line: str) -> BotFault:
    """The fault for a reply that is not what the protocol asks for."""
    return BotFault(f"bad output {clip(line)!r}")


# The parent-death signal follows the *thread* that started the bot: bots start on
# this one long-lived thread, not on a move's thinking thread (which ends with it).
_SPAWNER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="connect4-spawn")


def _new_spawner() -> None:
    """A forked process (a pool's worker) gets a spawning thread of its own: the
    parent's thread is not copied, and the copied executor would wait for it forever."""
    global _SPAWNER
    _SPAWNER = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="connect4-spawn")


os.register_at_fork(after_in_child=_new_spawner)


def parse_command(argument: str) -> list[str]:
    """The argv of a ``cmd:`` spec's argument; raises :class:`PlayerSpecError`.

    >>> parse_command("python3 bot.py --fast")
    ['python3', 'bot.py', '--fast']
    """
    try:
        argv = shlex.split(argument)
    except ValueError as error:
        raise PlayerSpecError(f"cmd: cannot parse command {clip(argument)!r}: {error}") from None
    if not argv:
        raise PlayerSpecError("cmd: needs a program to run, e.g. cmd:python3 my_bot.py")
    program = argv[0]
    if shutil.which(program) is None and not (os.sep in program and os.path.exists(program)):
        raise PlayerSpecError(f"cmd: program {clip(program)!r} not found")
    return argv


class ExternalPlayer(PlayerBase):
    """A bot in another process, driven through the line protocol.

    The process starts on the first :meth:`choose` (the colour is known then)
    and lives until :meth:`close`, which sends ``quit`` and kills its whole
    process group. Its clock is ``time_limit`` (seconds per move) capped by the
    caller's limit (the arena's ``--time-per-move``); without one the bot is told
    it has no limit, a warning goes to stderr when it has been silent for
    ``warn_seconds`` (10 s) on a move, and it forfeits when silent for
    ``max_move_seconds`` (default: the context's, the arena's
    ``--max-move-seconds``, 60 s).
    """

    is_human = False

    def __init__(
        self,
        spec: str,
        argv: list[str],
        context: PlayerContext,
        time_limit: float | None = None,
        startup_seconds: float = STARTUP_SECONDS,
        max_move_seconds: float | None = None,
        warn_seconds: float = SILENCE_WARNING_SECONDS,
    ) -> None:
        self.spec = spec
        self.argv = argv
        self.context = context
        self.time_limit = time_limit
        self.startup_seconds = startup_seconds
        self.max_move_seconds = (
            context.max_move_seconds if max_move_seconds is None else max_move_seconds
        )
        self.warn_seconds = warn_seconds
        self.process: subprocess.Popen[bytes] | None = None
        self.colour: int | None = None
        self._buffer = b""
        self._stderr: IO[bytes] | None = None
        self._hung = False  # timed out: close() kills without waiting for ``quit``

    # ---------------------------------------------------------------- process
    def _start(self, colour: int, caller: Limit) -> None:
        """Start the bot for ``colour``; its start-up ends at ``startup_seconds`` or the
        ``caller``'s stop."""
        self.close()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
        try:
            self.process = _SPAWNER.submit(
                subprocess.Popen,
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
                preexec_fn=die_with_parent if sys.platform == "linux" else None,
            ).result()
        except OSError as error:
            raise BotFault("crash", f"cannot start {self.argv[0]!r}: {error}") from None
        self._buffer = b""
        self.colour = colour
        context = self.context
        name = "red" if colour == 1 else "yellow"
        board = context.board
        self._send(f"init {board.kind} {board.width} {board.height} {name} {board.rules}")
        reply = self._read_line(caller.tighter(self.startup_seconds))
        if reply.strip() != "ready":
            raise bad_output(reply)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        except (OSError, ValueError):
            return ""
        return lines[-1][:200] if lines else ""

    def _death(self) -> BotFault:
        """The fault for a bot whose output ended: crash or exited, with its status."""
        assert self.process is not None
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self._kill()
            return BotFault("crash", "closed its output")
        tail = self._stderr_tail()
        detail = f"exit status {code}" + (f": {tail}" if tail else "")
        return BotFault("exited" if code == 0 else "crash", detail)

    def _send(self, line: str) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._death() from None

    def _read_line(self, limit: Limit, warn: tuple[Limit, Callable[[], None]] | None = None) -> str:
        """The bot's next line; a timeout fault once ``limit`` expires (its deadline, or
        its stop, looked at every 0.1 s); ``warn = (when, call)`` calls ``call()``
        once if the line has not come by the deadline of the limit ``when``."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_INPUT_LINE:  # a flood: never held whole
                raise bad_output(self._buffer.decode("utf-8", "replace"))
            if limit.expired():
                self._hung = True
                raise BotFault("timeout")
            if warn is not None and warn[0].overdue():
                warn[1]()
                warn = None
            lefts = (limit.remaining(), None if warn is None else warn[0].remaining())
            wait = min([STOP_LOOK] + [left for left in lefts if left is not None])
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue  # the deadline, the warning or a look at the stop is due
            chunk = os.read(fd, 4096)
            if not chunk:
                if self._buffer:
                    raise bad_output(self._buffer.decode("utf-8", "replace"))
                raise self._death()
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    def _kill(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)

    # ---------------------------------------------------------------- Player
    def choose(self, game: Game, limit: Limit | None = None) -> MoveChoice:
        """Ask the bot for a move within its clock and the caller's ``limit``; raises
        :class:`BotFault` with the forfeit reason.

        The wait reads the move's limit, a child of the caller's: its stop flag,
        and a deadline of the bot's own ``time_limit`` or what the caller had left,
        the earlier, counted from the moment the bot is ready (its start-up is not
        timed, though the caller's stop ends it)."""
        clock = self.time_limit
        left = None if limit is None else limit.remaining()
        if left is not None:
            clock = left if clock is None else min(clock, left)
        untimed = Limit() if limit is None else limit.untimed()
        if self.process is None or self.colour != game.to_move:
            self._start(game.to_move, untimed)
        started = read_clock()
        self._send(f"move {game.moves or '-'} {'-' if clock is None else f'{clock:.3f}'}")
        if clock is not None:
            line = self._read_line(untimed.tighter(clock))
        else:  # no time control: still never wait forever on a hung bot
            warning = (untimed.tighter(self.warn_seconds), lambda: self._warn_silent(game))
            try:
                line = self._read_line(untimed.tighter(self.max_move_seconds), warning)
            except BotFault as fault:
                if fault.reason == "timeout":
                    fault = BotFault(
                        "timeout",
                        f"no reply in {self.max_move_seconds:g} s (no time limit was set)",
                    )
                raise fault from None
        seconds = read_clock() - started
        token = line.strip()
        if not MOVE_PATTERN.fullmatch(token):
            raise bad_output(line)
        number = int(token)
        move = number - 1
        if move not in game.legal_moves():
            raise BotFault(f"illegal move {number}")
        return MoveChoice(move=move, stats={"seconds": round(seconds, 6)})

    def _warn_silent(self, game: Game) -> None:
        """Say on stderr that this bot has been silent for ``warn_seconds`` on this move."""
        print(
            f"warning: {self.spec} has been silent for {self.warn_seconds:g} s on move "
            f"{game.ply + 1} ({game.moves or 'empty board'}); it forfeits after "
            f"{self.max_move_seconds:g} s (its limit on a move without a clock)",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        """Send ``quit``, give the bot a moment, then kill its process group.

        The kill happens even when the grace period is interrupted (Ctrl-C).
        """
        process = self.process
        try:
            if process is not None and process.poll() is None and not self._hung:
                with contextlib.suppress(Exception):
                    assert process.stdin is not None
                    process.stdin.write(b"quit\n")
                    process.stdin.flush()
                with contextlib.suppress(Exception):
                    assert process.stdin is not None
                    process.stdin.close()  # bots that read to end of input stop too
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=QUIT_GRACE_SECONDS)
        finally:
            if process is not None:
                # Kill the group even after a clean exit: the bot's own children go too.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                if process.poll() is None:
                    self._kill()
                for stream in (process.stdin, process.stdout):
                    with contextlib.suppress(Exception):
                        if stream is not None:
                            stream.close()
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
            self.process = None
            self.colour = None
            self._hung = False

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def make_external(
    argument: str,
    context: PlayerContext | None = None,
    time_limit: float | None = None,
) -> ExternalPlayer:
    """An :class:`ExternalPlayer` for ``PROGRAM ARGS`` (the text after ``cmd:``)."""
    return ExternalPlayer(
        f"cmd:{argument}", parse_command(argument), context or PlayerContext(), time_limit
    )


def build_external(spec: str, options: dict[str, object], context: PlayerContext) -> ExternalPlayer:
    """The ``cmd`` kind's builder (registered in :mod:`connect4.players.registry`)."""
    argument = str(options.get("argument", ""))
    return ExternalPlayer(spec, parse_command(argument), context)


CMD = PlayerKind(
    name="cmd",
    description="an external program speaking the bot protocol: cmd:PROGRAM ARGS",
    options={},
    build=build_external,
    free_argument=True,
    rehearse=False,  # a bot's start-up is not timed: its clock starts once it answers ready
)
