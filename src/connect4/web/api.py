"""The service object behind the routes: settings, the worker lanes, the analysis cache.

Every route is a few lines that hand its input to one :class:`Api` method
(FastAPI injects the app's instance through :data:`ApiDep`). The methods
validate each request once, here (the game, the board served, a game not over,
the player spec), and hand typed input to :mod:`connect4.web.service`.

The scheduling, in three sentences. Quick answers (a solve within a bounded
node count) run on a pool of threads one notch below the event loop (nice +3).
Deep work (a solve past that count, AI moves, reviews) runs on a second,
smaller pool of threads at nice +10, each job ended by its request's
:class:`~connect4.core.limits.Limit` (deadline, client gone, server stopping)
and capped per client address. Both pools are bounded
(:class:`~connect4.web.pool.WorkerPool`): a request beyond the bound gets a 503
at once. Every job runs once, in one pool: quick positions (most positions with
20 or more stones) never wait behind a long solve, and deep work gets its share
of a machine that other programs keep busy.

Every request has a :class:`~connect4.core.limits.Limit` of the time limit
(:meth:`Api.limit`): the pool waits for its job under it, and sets its flag
when the request times out or the client goes away. The job works under a
child of it (:meth:`Api.working`) whose deadline is the time limit less
:func:`answer_margin` (time to answer), so a job stops within a tenth of a
second and frees its slot, with its best found answered in time. A player's
own time, depth or playouts never outlast it: a move cut short is the best
found (``complete`` false).
Deep work is bounded per client address (:class:`ClientGate`), so one client
cannot hold every deep worker. Every request's limit is a child of the server's
own (:meth:`Api.halt`): a server that stops cancels all work in flight at once,
and those requests are answered 503 (:class:`ServerStopping`).

>>> import asyncio
>>> api = Api(Settings(threads=1, warm_up=False))
>>> asyncio.run(api.analyze("4455")).best_moves
[3, 6]
>>> asyncio.run(api.analyze("7182", Board("tictactoe"))).score_text
'win in 1'
>>> api.stop()
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Awaitable, Callable
from itertools import count
from typing import TYPE_CHECKING, Annotated, TypeVar

from fastapi import Depends, Request

from connect4.classic.search import MATE, is_mate
from connect4.core.errors import Stopped
from connect4.core.game import GAME_KINDS, RULES, Game
from connect4.core.games import DEFAULT_BOARD, Board, new_game
from connect4.core.limits import Limit, clock
from connect4.core.position import COLUMN_SYMBOLS, Position
from connect4.core.score import score_label
from connect4.core.tictactoe import TicTacToe
from connect4.core.version import __version__
from connect4.players import KINDS, PlayerSpec, UnknownPlayer, describe_players, parse_spec
from connect4.players.perfect import PERFECT
from connect4.solver import kernel_ready
from connect4.web import service
from connect4.web.clients import Caller, ClientGate
from connect4.web.errors import BadRequest, ServerStopping, TimeLimitExceeded, Unavailable
from connect4.web.models import (
    MAX_SPEC_LENGTH,
    AnalyzeResponse,
    GameInfo,
    HealthResponse,
    InfoResponse,
    KindInfo,
    MoveRequest,
    MoveResponse,
    PlayersResponse,
    PolicyResponse,
    ReviewResponse,
    ServerLimits,
)
from connect4.web.pool import Gone, WorkerPool
from connect4.web.settings import BOARD_SIZES, Settings

if TYPE_CHECKING:
    from connect4.review import Review
    from connect4.review.work import TaskKey

T = TypeVar("T")

QUICK_TABLE_MB = 8  # transposition table of a quick-lane solver (deep lane: 64 MB)
QUICK_AGE = 0.02  # seconds of queue precedence per empty cell fewer (quick lane)
DEEP_AGE = 0.1  # the same in the deep lane
REVIEW_SHARE = 0.9  # of the time limit a review may use before it stops (then: 503)
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


def game_info(
    board: Board, title: str, sides: list[str], notation: str, sizes: tuple[tuple[int, int], ...]
) -> GameInfo:
    """What the page is told about a game: its default board, its sides' names, its move
    symbols (move number 1 first) and the board sizes served."""
    return GameInfo(
        kind=board.kind,
        title=title,
        sides=sides,
        width=board.width,
        height=board.height,
        notation=notation,
        sizes=size_names(sizes),
    )


_TICTACTOE = TicTacToe()
GAME_INFO = (
    game_info(DEFAULT_BOARD, "Connect Four", ["Red", "Yellow"], COLUMN_SYMBOLS, BOARD_SIZES),
    game_info(
        Board("tictactoe"),
        "Tic-tac-toe",
        ["X", "O"],
        "".join(_TICTACTOE.move_label(cell) for cell in range(_TICTACTOE.size)),
        ((_TICTACTOE.width, _TICTACTOE.height),),
    ),
)
# How far from +-MATE a classic search value still scores a finished game.
MATE_WINDOW = next(offset for offset in count() if not is_mate(MATE - offset))
# Player kinds the web API never builds: humans move in the page, ``cmd`` would
# run a program and ``kaggle`` a Python file named by the client.
FORBIDDEN_KINDS = {"human": "a human player's moves come from the page", "cmd": "", "kaggle": ""}


def web_kinds() -> list[str]:
    """The player kinds the web app runs (every registered one but the forbidden).

    >>> "alphabeta" in web_kinds(), "cmd" in web_kinds()
    (True, False)
    """
    return sorted(kind for kind in KINDS if kind not in FORBIDDEN_KINDS)


def check_spec(spec: str) -> PlayerSpec:
    """The spec as the player registry reads it (bad keys and values refused there),
    or refused where the web API never runs it: too long, a forbidden kind (saying
    why), an unknown kind (listing only the kinds the web runs), a key that reads a
    file on the server (``net:load=PATH``).

    >>> check_spec("alphabeta:depth=3").options["depth"]
    3
    >>> check_spec("genius")
    Traceback (most recent call last):
    ...
    connect4.players.registry.UnknownPlayer: unknown player 'genius': choose one of alphabeta, ...
    """
    if len(spec) > MAX_SPEC_LENGTH:
        raise BadRequest(
            f"player spec is too long: {len(spec)} characters (at most {MAX_SPEC_LENGTH})"
        )
    try:
        parsed = parse_spec(spec, web_kinds())
    except UnknownPlayer as error:
        if error.name not in FORBIDDEN_KINDS:
            raise
        reason = FORBIDDEN_KINDS[error.name] or f"{error.name} players cannot run in the web app"
        raise BadRequest(f"player {spec!r}: {reason}") from None
    for key in parsed.given:
        if parsed.kind.options[key].reads_file:
            raise BadRequest(f"player {spec!r}: {key}= reads a file; the web app does not")
    return parsed


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


class Api:
    """The web API's work: one method per endpoint, over the worker lanes and a cache."""

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

        >>> api = Api(Settings(threads=1, warm_up=False))
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

        >>> api = Api(Settings(threads=1, warm_up=False, board_sizes=((7, 6),)))
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

    # ------------------------------------------------------------ solving
    async def solve_position(
        self, position: Position, caller: Caller | None = None
    ) -> service.Analysis:
        """The perfect solver's analysis: cached, else the quick lane, else the deep lane
        (one of the ``caller``'s deep places)."""
        if position.rules != "standard":
            raise BadRequest("the solver handles the standard rules only, not count-fours")
        require_not_over(position)
        cached = self.cache.get(position)
        if cached is not None:
            return cached
        time_limit = self.settings.time_limit
        request = self.limit()
        limit = self.working(request)
        await self.require_kernel(Board.of(position), limit)
        gone = None if caller is None else caller.gone
        started = clock()
        # Nearly full boards are cheap: each empty cell costs a waiting job QUICK_AGE
        # (DEEP_AGE) seconds of precedence, so cheap positions overtake expensive ones
        # while no job waits more than a bounded extra time.
        empty = position.size - position.ply
        # Positions at least 20/42 full fit the budget (every such position of Pons'
        # sets needs <= 300k nodes to analyse). A position with fewer stones that is
        # not done within a few milliseconds usually needs far more: it gets a
        # twentieth of the budget, less quick-lane time thrown away.
        quick_nodes = self.settings.quick_nodes
        budget = quick_nodes if 21 * position.ply >= 10 * position.size else quick_nodes // 20
        analysis = await self.stoppable(
            self.quick.run_ranked(
                started + empty * QUICK_AGE,
                functools.partial(
                    service.analyze_position,
                    position,
                    limit=limit.tighter(nodes=budget),
                    table_megabytes=QUICK_TABLE_MB,
                ),
                limit=request,
                gone=gone,
            )
        )
        if not analysis.complete:
            if limit.expired():
                raise TimeLimitExceeded("time limit exceeded before the deep solve")
            with self.clients.turn(caller):
                analysis = await self.run_deep(
                    clock() + empty * DEEP_AGE,
                    lambda attempt: service.analyze_position(position, limit=attempt),
                    limit,
                    request,
                    gone,
                )
            if not analysis.complete:
                raise TimeLimitExceeded(
                    f"time limit exceeded: the solver stopped after {time_limit:g} s "
                    f"({analysis.nodes} nodes) without an exact answer"
                )
        self.cache.put(position, analysis)
        return analysis

    async def search_position(self, game: Game) -> service.Analysis:
        """A small game's analysis by a full-depth classic search (deep lane, cached)."""
        require_not_over(game)
        cached = self.cache.get(game)
        if cached is None:
            cached = await self.stoppable(
                self.deep.run(self.limit(), service.analyze_by_search, game)
            )
            self.cache.put(game, cached)
        return cached

    async def solve(
        self, pos: str, width: int, height: int, caller: Caller | None = None
    ) -> list[int]:
        """Every column's score, ``FULL_COLUMN`` for a full one (gamesolver.org's shape)."""
        position = self.parse_connect4(pos, Board("connect4", width, height))
        analysis = await self.solve_position(position, caller)
        return [service.FULL_COLUMN if s is None else s for s in analysis.column_scores]

    def policy(self, pos: str, board: Board = DEFAULT_BOARD) -> PolicyResponse:
        """The shipped network's policy and value for a Connect Four position (one
        forward pass, about a millisecond: answered at once)."""
        from connect4.net import NetworkError, shipped_network

        if board.kind != "connect4":
            raise BadRequest(f"the network plays Connect Four, not {board.kind}")
        position = self.parse_connect4(pos, board)
        require_not_over(position)
        if position.rules != "standard":
            raise BadRequest("the network plays the standard rules only, not count-fours")
        try:
            network = shipped_network(board.width, board.height)
        except NetworkError as error:
            raise BadRequest(str(error)) from None
        out = network.evaluate_positions([position])
        return PolicyResponse(
            pos=pos,
            policy=[round(float(p), 4) for p in out.policy[0]],
            value=round(float(out.value[0]), 4),
            wdl=[round(float(p), 4) for p in out.wdl[0]],
        )

    async def analyze(
        self, pos: str, board: Board = DEFAULT_BOARD, caller: Caller | None = None
    ) -> AnalyzeResponse:
        """The position's score, every move's score in numbers and words, the best moves."""
        position: Game
        if board.kind == "connect4":
            position = self.parse_connect4(pos, board)
            analysis = await self.solve_position(position, caller)
        else:
            position = self.parse(pos, board)
            analysis = await self.search_position(position)
        ply, width, height, size = position.ply, position.width, position.height, position.size
        return AnalyzeResponse(
            pos=pos,
            game=position.kind,
            width=width,
            height=height,
            ply=ply,
            to_move=position.to_move,
            score=analysis.score,
            score_text=score_label(analysis.score, ply, size),
            column_scores=analysis.column_scores,
            column_texts=[
                None if s is None else score_label(s, ply, size) for s in analysis.column_scores
            ],
            best_moves=[c + 1 for c in analysis.best_moves()],
            nodes=analysis.nodes,
            seconds=analysis.seconds,
            complete=analysis.complete,
        )

    # ------------------------------------------------------------ review
    async def review(
        self, pos: str, board: Board = DEFAULT_BOARD, caller: Caller | None = None
    ) -> ReviewResponse:
        """Every move of the game ``pos`` graded by exact scores (deep lane).

        A game the solver cannot settle within the time limit is a 503, never a guess.
        """
        position = self.parse(pos, board)
        if position.rules != "standard":
            raise BadRequest(
                "the solver handles the standard rules only: count-fours games cannot be reviewed"
            )
        time_limit = self.settings.time_limit
        # The review stops a little before the lane's own limit, so the answer says
        # how far it got rather than only that the time ran out.
        request = self.limit()
        limit = request.tighter(REVIEW_SHARE * time_limit)
        await self.require_kernel(board, limit)
        gone = None if caller is None else caller.gone
        with self.clients.turn(caller):
            if isinstance(position, Position):
                result = await self.review_connect4(position, limit, request, gone)
            else:
                result = await self.run_deep(
                    clock(),
                    lambda attempt: service.review_game(position, limit=attempt),
                    limit,
                    request,
                    gone,
                )
        self.check_running()
        unproven = [row.ply for row in result.plies if not row.proven]
        if unproven:
            raise TimeLimitExceeded(
                f"time limit exceeded: {len(unproven)} of {len(result.plies)} positions "
                f"(from ply {unproven[0]}) were not solved within {time_limit:g} s"
            )
        return ReviewResponse.model_validate(result.as_dict())

    async def review_connect4(
        self, position: Position, limit: Limit, request: Limit, gone: Gone | None = None
    ) -> Review:
        """A Connect Four review solved by every deep-lane thread at once: each job
        takes the game's move solves one by one (the dearest first) from a shared
        queue until none is left, so a lone review uses both cores and a busy
        server still serves other requests between reviews' jobs. The played moves
        the next position did not settle are solved after, the same way; a task
        left when ``limit`` (a child of the ``request``'s) runs out is unsettled."""
        work = await self.stoppable(self.deep.run(request, service.review_work, position))
        results: dict[TaskKey, int | None] = {}
        for stage in (work.dearest_first(), None):
            tasks = list(work.missing(results) if stage is None else stage)
            queue = deque(tasks)
            if queue and not limit.expired():
                jobs = min(self.deep.workers, len(queue))
                drain = work.drainer(queue, results)
                await asyncio.gather(
                    *(self.run_deep(clock(), drain, limit, request, gone) for _ in range(jobs))
                )
            results.update((task.key, None) for task in tasks if task.key not in results)
        return service.review_from_scores(position, work.move_scores(results))

    # ------------------------------------------------------------ players
    async def move(self, request: MoveRequest, caller: Caller | None = None) -> MoveResponse:
        """The AI's move in a position (deep lane, one of the ``caller``'s deep places),
        with its stats and search tree; the best found when the time limit cuts it short."""
        position = self.parse(request.pos, request.board)
        require_not_over(position)
        player = check_spec(request.player)
        whole = self.limit()
        limit = self.working(whole)
        if player.kind.name == PERFECT.name:  # the one kind that solves
            await self.require_kernel(request.board, limit)
        choose = functools.partial(service.choose_move, position, player, want_tree=request.tree)
        with self.clients.turn(caller):
            answer = await self.run_deep(
                clock(),
                lambda attempt: choose(limit=attempt),
                limit,
                whole,
                None if caller is None else caller.gone,
            )
        return answer

    def players(self) -> PlayersResponse:
        """The player kinds the web app runs, with their options (``human`` moves in the page)."""
        kinds = [
            KindInfo.model_validate(kind)
            for kind in describe_players()
            if kind["kind"] not in FORBIDDEN_KINDS
        ]
        return PlayersResponse(
            games=list(GAME_KINDS), rules=list(RULES), players=kinds, solver=True
        )

    def info(self) -> InfoResponse:
        """The facts the page draws with: games, rules, the classic search's win values."""
        return InfoResponse(
            version=__version__,
            games=[
                game.model_copy(update={"sizes": size_names(self.settings.board_sizes)})
                if game.kind == "connect4"
                else game
                for game in GAME_INFO
            ],
            rules=list(RULES),
            mate=MATE,
            mate_window=MATE_WINDOW,
            solver=True,
            limits=ServerLimits(
                move_seconds=round(
                    self.settings.time_limit - answer_margin(self.settings.time_limit), 3
                ),
                request_seconds=self.settings.time_limit,
                deep_jobs_per_client=self.settings.deep_per_client,
            ),
        )

    def health(self) -> HealthResponse:
        """Liveness and the counters of the lanes and the cache."""
        return {
            "ok": True,
            "version": __version__,
            "pools": [self.quick.status(), self.deep.status()],
            "cache": self.cache.status(),
        }


async def get_api(request: Request) -> Api:
    """The app's :class:`Api` (a dependency: routes declare a parameter of type ``ApiDep``)."""
    api: Api = request.app.state.api
    return api


async def get_caller(request: Request) -> Caller:
    """Who sent ``request``: its client address and whether it went away."""
    return Caller(request.client.host if request.client else "", request.is_disconnected)


ApiDep = Annotated[Api, Depends(get_api)]
CallerDep = Annotated[Caller, Depends(get_caller)]
