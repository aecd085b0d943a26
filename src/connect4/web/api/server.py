"""What the server tells about itself: the games, rules, win values and limits the
page draws with (``/api/info``), and its health (``/api/health``)."""

from __future__ import annotations

from itertools import count

from connect4.classic.search import MATE, is_mate
from connect4.core.game import RULES
from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.position import COLUMN_SYMBOLS
from connect4.core.tictactoe import TicTacToe
from connect4.core.version import __version__
from connect4.web.api.lanes import Lanes, answer_margin, size_names
from connect4.web.models import GameInfo, HealthResponse, InfoResponse, ServerLimits
from connect4.web.settings import BOARD_SIZES


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


class ServerRequests(Lanes):
    """``/api/info`` and ``/api/health``: the server's facts and counters."""

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
