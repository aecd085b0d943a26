"""What every request family of the web API shares: the two worker lanes, the
request's :class:`~connect4.core.limits.Limit` and the child its work runs under,
the server's stop, the position a request names on a board served here, and the
wait for that board's solver.

A family (solving, players, the review, the server's facts) is a subclass of
:class:`Lanes` in a module of its own; :class:`~connect4.web.api.Api` joins them.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import TypeVar

from connect4.core.errors import Stopped
from connect4.core.game import Game
from connect4.core.games import Board, new_game
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.solver import kernel_ready
from connect4.web import service
from connect4.web.clients import ClientGate
from connect4.web.errors import BadRequest, ServerStopping, Unavailable
from connect4.web.pool import Gone, WorkerPool
from connect4.web.settings import Settings

T = TypeVar("T")

KERNEL_WAIT = 5.0  # seconds a request waits at most for its board's solver to load
KERNEL_POLL = 0.25  # seconds between two looks at that wait's limit (a server stopping)
QUICK_NICE = 3  # OS priority of the quick lane's threads below the event loop
DEEP_NICE = 10  # the deep lane's: long work yields to quick answers, yet gets its share


def size_names(sizes: tuple[tuple[int, int], ...]) -> list[str]:
    """Board sizes as the page and the error messages write them.

    >>> size_names(((7, 6), (4, 4)))
    ['7x6', '4x4']
    """
    return [f"{width}x{height}" for width, height in sizes]


async def require_kernel(board: Board, limit: Limit) -> None:
    """Refuse (HTTP 503) a solve on a board whose solver is not loaded by ``limit``'s
    deadline (less the time a solve needs): a board over 64 bits has its own kernel,
    loaded in the background (0.1 s from the cache; 20-40 s the first time a machine
    serves the size), so no request waits past its time limit for it. The wait
    ends too when ``limit`` is stopped.

    >>> asyncio.run(require_kernel(Board(), Limit.within(1.0)))
    """
    width, height = board.width, board.height
    if board.kind != "connect4" or kernel_ready(width, height, load=False):
        return
    left = limit.remaining()
    waiting = limit.tighter(KERNEL_WAIT if left is None else min(KERNEL_WAIT, left / 2))
    while True:
        step = min(KERNEL_POLL, waiting.remaining() or 0.0)
        if await asyncio.to_thread(kernel_ready, width, height, wait=step):
            return
        if waiting.expired():
            break
    raise Unavailable(
        f"the solver for {width}x{height} boards is being compiled (the first time "
        "this server solves that size; under a minute): try again shortly"
    )


def require_not_over(game: Game) -> None:
    """Refuse a finished game: there is nothing left to play or solve.

    >>> from connect4.core.tictactoe import TicTacToe
    >>> require_not_over(TicTacToe.from_moves("14253"))
    Traceback (most recent call last):
    ...
    connect4.web.errors.BadRequest: the game is over (X has won): there is no move to make
    """
    if game.is_over():
        raise BadRequest(f"the game is over ({game.result_text()}): there is no move to make")


def answer_margin(time_limit: float) -> float:
    """How long before a request's time limit its job's limit runs out, to answer in
    time with the best found: a tenth of the limit, at most half a second.

    >>> answer_margin(10.0), answer_margin(0.3)
    (0.5, 0.03)
    """
    return min(0.5, 0.1 * time_limit)


class Lanes:
    """The web API's shared machinery: the worker lanes, the analysis cache, the
    per-client gate and the limits of the requests in flight."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.cache = service.AnalysisCache(settings.cache_size)
        lane = functools.partial(WorkerPool, queue=settings.queue)
        deep_threads = settings.deep_threads or settings.threads
        # Quick jobs are short: more threads than cores let the OS time-share them, so a
        # cheap position starts at once instead of waiting for a 100k-node job to end.
        # They run one notch below the event loop, which every request goes through.
        quick_threads = settings.quick_threads or 3 * settings.threads
        self.quick = lane("quick", workers=quick_threads, nice=QUICK_NICE)
        self.deep = lane("deep", workers=deep_threads, nice=DEEP_NICE)
        self.clients = ClientGate(settings.deep_per_client)
        self.running = Limit()  # every request's limit is its child: halt() stops them all

    def limit(self) -> Limit:
        """A new request's limit: its time limit (a :class:`ServerStopping` once the
        server stops). The pool waits for the request's jobs under it."""
        self.check_running()
        return self.running.tighter(self.settings.time_limit)

    def working(self, request: Limit) -> Limit:
        """The limit a request's work runs under: the ``request``'s less the margin to
        answer in, so a job cut short answers its best found in time."""
        time_limit = self.settings.time_limit
        return request.tighter(time_limit - answer_margin(time_limit))

    def halt(self) -> None:
        """Cancel the work of every request in flight (the server is stopping): each
        job stops within a tenth of a second and its request is answered 503."""
        self.running.stop()

    def check_running(self) -> None:
        """Raise :class:`ServerStopping` once :meth:`halt` was called (a request whose
        work was cancelled gets no half answer).

        >>> api = Lanes(Settings(threads=1, warm_up=False))
        >>> api.halt()
        >>> api.check_running()
        Traceback (most recent call last):
        ...
        connect4.web.errors.ServerStopping: the server is stopping: this request was cancelled; ...
        >>> api.stop()
        """
        if self.running.stopped():
            raise ServerStopping(
                "the server is stopping: this request was cancelled; try again once it is back"
            )

    async def stoppable(self, work: Awaitable[T]) -> T:
        """``work``'s result, or its failure to finish in time; :class:`ServerStopping`
        instead of either once the server stopped (the work was cancelled)."""
        try:
            result = await work
        except Stopped:
            self.check_running()
            raise
        self.check_running()
        return result

    async def require_kernel(self, board: Board, limit: Limit) -> None:
        """:func:`require_kernel`, or :class:`ServerStopping` when the server stopped."""
        try:
            await require_kernel(board, limit)
        except Unavailable:
            self.check_running()
            raise

    async def start(self) -> None:
        """Warm the solver up (when the settings ask for it) before requests arrive.
        The bigger boards' kernels load or compile in the background (see
        :func:`require_kernel`), started first so they compile alongside the warm-up."""
        if self.settings.warm_up:
            for width, height in self.settings.board_sizes:
                kernel_ready(width, height)
            await asyncio.to_thread(service.warm_up)

    def stop(self) -> None:
        """Let the worker threads end once their queued jobs are done."""
        for pool in (self.quick, self.deep):
            pool.shutdown()

    async def run_deep(
        self,
        priority: float,
        work: Callable[[Limit], T],
        limit: Limit,
        request: Limit,
        gone: Gone | None,
    ) -> T:
        """``work(limit)`` in the deep lane, ahead of waiting jobs with a higher
        ``priority``; the pool waits for it under the ``request``'s limit (``limit``
        is a child of it) and stops that once ``gone()``."""
        call = functools.partial(work, limit)
        return await self.stoppable(self.deep.run_ranked(priority, call, limit=request, gone=gone))

    # ------------------------------------------------------------ positions
    def parse(self, pos: str, board: Board) -> Game:
        """The position a request names (see :meth:`~connect4.core.games.Board.new`), on
        a board this server serves (else :class:`BadRequest`).

        >>> api = Lanes(Settings(threads=1, warm_up=False, board_sizes=((7, 6),)))
        >>> api.parse("44", Board()).ply
        2
        >>> api.parse("44", Board("connect4", 5, 4))
        Traceback (most recent call last):
        ...
        connect4.web.errors.BadRequest: board 5x4 is not served here: choose one of 7x6
        >>> api.stop()
        """
        if board.kind == "connect4":
            return self.parse_connect4(pos, board)
        return board.new(pos)

    def parse_connect4(self, pos: str, board: Board) -> Position:
        """:meth:`parse` for Connect Four, typed as the :class:`Position` the solver takes."""
        position = new_game("connect4", board.width, board.height, board.rules, pos)
        width, height = board.width, board.height
        if (width, height) not in self.settings.board_sizes:
            served = ", ".join(size_names(self.settings.board_sizes))
            raise BadRequest(f"board {width}x{height} is not served here: choose one of {served}")
        return position
