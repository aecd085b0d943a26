"""The web server's settings: one frozen object, built once and carried whole.

``connect4 serve`` builds a :class:`Settings` from its options; ``run_server``
takes it, and ``create_app(settings)`` builds the app from it. A server of
several processes hands it to each worker process as its JSON
(:meth:`Settings.to_json`, read back and checked by :meth:`Settings.from_json`),
since uvicorn starts each worker's app by importing a factory by name.

>>> settings = Settings(threads=1, time_limit=3.0)
>>> Settings.from_json(settings.to_json()) == settings
True
>>> Settings(threads=0)
Traceback (most recent call last):
...
connect4.web.settings.SettingsError: threads: must be at least 1, not 0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from pydantic import ConfigDict, TypeAdapter, ValidationError

from connect4.core.errors import Connect4Error

QUICK_NODES = 400_000  # quick-lane node budget of a position with >= 20 stones on 7x6 (~40 ms)
# The Connect Four boards the server plays and solves (the page's menu). Each size a
# thread has solved keeps a transposition table, and each size a perfect player has
# played keeps tables in a process-wide pool, so a fixed list bounds the memory.
# 8x8, 9x7 and 10x6 need more than 64 bits: their solver is compiled per size the first
# time a machine serves it (see the API's require_kernel).
BOARD_SIZES: tuple[tuple[int, int], ...] = (
    (7, 6), (6, 5), (5, 4), (4, 4), (6, 7), (8, 7), (9, 6), (8, 8), (9, 7), (10, 6),
)  # fmt: skip


class SettingsError(Connect4Error):
    """A web setting out of its range, or settings JSON that is not a :class:`Settings`."""


@dataclass(frozen=True)
class Settings:
    """How the server works: ``threads`` deep-lane threads (``deep_threads`` if given)
    and ``3 * threads`` quick-lane ones (``quick_threads`` if given), ``queue`` waiting
    places per lane, ``time_limit`` seconds per request (HTTP 503 beyond), a quick
    solve's budget of ``quick_nodes`` nodes, an LRU cache of ``cache_size`` solved
    positions (0 = none), the Connect Four ``board_sizes`` served and
    ``deep_per_client`` deep jobs per client address at a time (0: no bound);
    ``warm_up`` loads the solver, the compiled searches and the book at start-up;
    ``games`` names the game collections (arena or lab results, files of move
    strings: 7x6 Connect Four games) whose games the opening explorer counts (none:
    every count is 0); ``puzzles`` the puzzles file ``/api/puzzle`` serves (``None``:
    the package's own collection, where the install has one)."""

    # The JSON of a worker process is read strictly: no unknown key, no 2.0 for 2.
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid", strict=True)

    threads: int = 2
    queue: int = 128
    time_limit: float = 10.0
    quick_nodes: int = QUICK_NODES
    cache_size: int = 20_000
    warm_up: bool = True
    deep_threads: int | None = None
    quick_threads: int | None = None
    board_sizes: tuple[tuple[int, int], ...] = BOARD_SIZES
    deep_per_client: int = 1
    games: tuple[str, ...] = ()
    puzzles: str | None = None

    def __post_init__(self) -> None:
        at_least = {
            "threads": (self.threads, 1),
            "queue": (self.queue, 0),
            "quick_nodes": (self.quick_nodes, 1),
            "cache_size": (self.cache_size, 0),
            "deep_threads": (self.deep_threads, 1),
            "quick_threads": (self.quick_threads, 1),
            "deep_per_client": (self.deep_per_client, 0),
        }
        for name, (value, low) in at_least.items():
            if value is not None and value < low:
                raise SettingsError(f"must be at least {low}, not {value}", setting=name)
        if not (math.isfinite(self.time_limit) and self.time_limit > 0):
            raise SettingsError(
                f"must be a positive number of seconds, not {self.time_limit}",
                setting="time_limit",
            )
        if any(not path for path in self.games):
            raise SettingsError("a games file needs a name, not ''", setting="games")
        if self.puzzles == "":
            raise SettingsError("a puzzles file needs a name, not ''", setting="puzzles")
        if not self.board_sizes:
            raise SettingsError("must name at least one board size", setting="board_sizes")
        for width, height in self.board_sizes:
            if width < 1 or height < 1:
                raise SettingsError(
                    f"{width}x{height} is no board: at least 1x1", setting="board_sizes"
                )

    def to_json(self) -> str:
        """These settings as one line of JSON (:meth:`from_json` reads it back)."""
        return _ADAPTER.dump_json(self).decode()

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """The settings a line of JSON names (a key left out keeps its default), checked
        as strictly as :class:`Settings` itself; a :class:`SettingsError` naming the
        first fault otherwise.

        >>> Settings.from_json('{"threads": 1}').threads
        1
        >>> Settings.from_json('{"thread": 1}')
        Traceback (most recent call last):
        ...
        connect4.web.settings.SettingsError: bad web settings: thread: Unexpected keyword argument
        """
        try:
            return _ADAPTER.validate_json(text)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            message = first["msg"].removeprefix("Value error, ")
            raise SettingsError(
                f"bad web settings: {where + ': ' if where else ''}{message}"
            ) from None


_ADAPTER = TypeAdapter(Settings)
