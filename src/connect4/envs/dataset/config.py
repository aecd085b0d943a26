"""A dataset run's settings, checked before any work: the board, the ply range, the seed,
the size of the arrays, and the one error (:class:`DatasetError`) naming the setting at fault.

>>> DatasetConfig(10, (0, 4), 5, 4).span
(0, 4)
"""

from __future__ import annotations

from dataclasses import dataclass

from connect4.core.errors import Connect4Error
from connect4.core.position import check_board_size
from connect4.solver.checks import check_solver_board

__all__ = [
    "MAX_DATASET_BYTES",
    "DatasetConfig",
    "DatasetError",
    "arrays_bytes",
    "parse_plies",
]

MAX_SEED = 2**63 - 1
MAX_DATASET_BYTES = 1 << 31  # the largest dataset read (the file, and its arrays inflated)
ARRAYS_SLACK = 1 << 16  # the metadata arrays and the .npy headers, beside the arrays


class DatasetError(Connect4Error):
    """Parameters a dataset cannot be made with, or a file that is not a dataset."""


def parse_plies(text: str | None, width: int = 7, height: int = 6) -> tuple[int, int]:
    """The ply range ``"A-B"`` (or ``"A"``) as ``(A, B)``; ``None``: every ply of a game not over.

    >>> parse_plies("0-30"), parse_plies("12"), parse_plies(None, 4, 4)
    ((0, 30), (12, 12), (0, 15))
    >>> parse_plies("5-2")
    Traceback (most recent call last):
    ...
    connect4.envs.dataset.config.DatasetError: plies: the range 5-2 runs backwards (write 2-5)
    """
    check_board_size(width, height)  # the board first: its size bounds the plies
    last = width * height - 1  # the most stones a position that is not over can hold
    if text is None:
        return 0, last
    low, dash, high = text.strip().partition("-")
    if not dash:
        high = low
    if not (low.isascii() and low.isdigit() and high.isascii() and high.isdigit()):
        raise DatasetError(
            f"must be a range such as 0-30 (or one ply), not {text!r}", setting="plies"
        )
    first, second = int(low), int(high)
    if first > second:
        raise DatasetError(
            f"the range {text} runs backwards (write {second}-{first})", setting="plies"
        )
    if second > last:
        raise DatasetError(
            f"{text}: a {width}x{height} position that is not over holds at most {last} stones",
            setting="plies",
        )
    return first, second


def arrays_bytes(positions: int, width: int, height: int, most_stones: int) -> int:
    """The bytes a dataset's arrays take (the module's docstring lists them), for
    ``positions`` positions of a ``width x height`` board with up to ``most_stones``.

    >>> arrays_bytes(1, 7, 6, 41)  # 84 obs, 7+7+7 mask/scores/best, 164 moves, 1+2+8
    280
    """
    per_position = 2 * width * height + 3 * width + 4 * max(most_stones, 1) + 1 + 2 + 8
    return positions * per_position


LABELS = ("exact", "targets")
"""The kinds of labels a file holds (its ``labels``; ``Dataset.labels`` says what each is)."""


@dataclass(frozen=True)
class DatasetConfig:
    """The settings of a dataset run, checked when made: ``positions`` positions with
    ``plies`` stones (``None``: every ply of a game not over), ``chunk`` per task
    (``None``: chosen by the run), ``workers`` local processes (``None``: all cores),
    ``labels`` one of :data:`LABELS`.

    A run whose arrays would not fit in a dataset file (:data:`MAX_DATASET_BYTES`,
    what :func:`load_dataset` reads) is refused; errors name the setting at fault.

    >>> DatasetConfig(100, width=4, height=4).plies
    (0, 15)
    >>> DatasetConfig(10**12)
    Traceback (most recent call last):
    ...
    connect4.envs.dataset.config.DatasetError: positions: 1,000,000,000,000 positions of a 7x6 \
board with up to 41 stones take 280,000,000,000,000 bytes of arrays, over the \
2,147,483,648 a dataset holds (at most 7,669,350 positions)
    """

    positions: int
    plies: tuple[int, int] | None = None
    width: int = 7
    height: int = 6
    rules: str = "standard"
    seed: int = 0
    chunk: int | None = None
    workers: int | None = None
    labels: str = "exact"

    def __post_init__(self) -> None:
        width, height = self.width, self.height
        if self.labels not in LABELS:
            raise DatasetError(
                f"choose {' or '.join(LABELS)}, not {self.labels!r}", setting="labels"
            )
        try:
            check_board_size(width, height)
            check_solver_board(width, height)
        except ValueError as error:
            raise DatasetError(str(error)) from None
        if self.rules != "standard":
            if self.rules != "count-fours":
                raise DatasetError(
                    f"unknown rules {self.rules!r}: choose standard or count-fours",
                    setting="rules",
                )
            raise DatasetError(
                "the solver handles the standard rules only: count-fours positions cannot be "
                "labelled",
                setting="rules",
            )
        if self.plies is None:
            object.__setattr__(self, "plies", parse_plies(None, width, height))
        low, high = self.span
        if not 0 <= low <= high <= width * height - 1:
            raise DatasetError(
                f"{low}-{high} is not a range of a {width}x{height} board", setting="plies"
            )
        if not 0 <= self.seed <= MAX_SEED:
            raise DatasetError(f"must be in 0..{MAX_SEED}, not {self.seed}", setting="seed")
        for setting in ("positions", "chunk", "workers"):
            value = getattr(self, setting)
            if value is not None and value < 1:
                raise DatasetError(f"must be at least 1, not {value}", setting=setting)
        need = arrays_bytes(self.positions, width, height, high) + ARRAYS_SLACK
        if need > MAX_DATASET_BYTES:
            most = (MAX_DATASET_BYTES - ARRAYS_SLACK) // arrays_bytes(1, width, height, high)
            raise DatasetError(
                f"{self.positions:,} positions of a {width}x{height} board with up to {high} "
                f"stones take {need - ARRAYS_SLACK:,} bytes of arrays, over the "
                f"{MAX_DATASET_BYTES:,} a dataset holds (at most {most:,} positions)",
                setting="positions",
            )

    @property
    def span(self) -> tuple[int, int]:
        """The ply range (``plies`` once made, never ``None``)."""
        assert self.plies is not None
        return self.plies
