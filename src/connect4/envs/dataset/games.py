"""Positions the way games reach them: games played by a network, each game's positions
listed from its last back to its first (:func:`game_positions`).

Random playouts (:mod:`~connect4.envs.dataset.sampling`) reach positions that
no sensible game does: fours left open, threats ignored. Here each game opens
with ``opening`` moves drawn uniformly (among those that do not win at once),
then a network plays both sides, each move drawn from its policy sharpened
by ``1 / temperature`` (1: the policy as it is; lower: closer to its best
column). A move that would win ends the game there (the position before it
is one the side to move wins at once: never kept, it teaches only "complete
the four"). Every position of the ply range a game passes through is kept
once (by canonical key: a position and its mirror image are one).

**Why games, for labelling**: the positions of one game share most of their
search trees. They are listed per game from the last back to the first, and
a game's positions go to one task, whose solver keeps one transposition
table across them (:func:`connect4.solver.book.jobs.analyze_chunk`): each
earlier position finds the entries its later ones left, and a game's move
played next is one of the columns already searched.

>>> from connect4.net import Network
>>> net = Network.random(5, 4, channels=4, blocks=1, seed=0)
>>> found = game_positions(4, (6, 8), 5, 4, seed=1, sampling=GameSampling(), network=net)
>>> [len(m) for m in found.sample.moves], found.games
([8, 7, 6, 8], (3, 1))
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from connect4.core.bits import canonical_key, fits_word
from connect4.core.position import COLUMN_SYMBOLS, Position
from connect4.envs.dataset.config import DatasetConfig, DatasetError
from connect4.envs.dataset.sampling import Sample
from connect4.net.model import Network, NetworkError, load_network, shipped_network

__all__ = ["GameSample", "GameSampling", "game_positions"]

BATCH = 256  # games played side by side (one forward pass a ply for all of them)
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.05, 100.0


@dataclass(frozen=True)
class GameSampling:
    """How the sampled games are played: ``opening`` uniformly random first moves, then
    ``network``'s policy (a weights file; ``None``: the one that ships for the board)
    sharpened by ``1 / temperature``."""

    temperature: float = 1.0
    opening: int = 4
    network: str | None = None

    def __post_init__(self) -> None:
        if not (
            math.isfinite(self.temperature)
            and MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE
        ):
            raise DatasetError(
                f"must be in {MIN_TEMPERATURE}..{MAX_TEMPERATURE:g}, not {self.temperature}",
                setting="temperature",
            )
        if self.opening < 0:
            raise DatasetError(f"must be 0 or more, not {self.opening}", setting="opening")

    def load(self, width: int, height: int) -> Network:
        """The network that plays the games, checked to be of the board."""
        try:
            net = (
                shipped_network(width, height)
                if self.network is None
                else load_network(self.network)
            )
        except NetworkError as error:
            raise DatasetError(str(error), setting="network") from None
        if (net.width, net.height) != (width, height):
            raise DatasetError(
                f"{self.network} plays {net.width}x{net.height}, not {width}x{height}",
                setting="network",
            )
        return net

    def tag(self, network: Network) -> str:
        """The sampling's identity (journals and dataset files carry it): its settings and
        a digest of the network's weights.

        >>> GameSampling(0.5, 2).tag(Network.random(5, 4, channels=4, blocks=1, seed=0))[:30]
        'games:temperature=0.5,opening='
        """
        digest = hashlib.sha256()
        for name in sorted(network.weights):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(network.weights[name]).tobytes())
        return (
            f"games:temperature={self.temperature:g},opening={self.opening},"
            f"net={digest.hexdigest()[:16]}"
        )


@dataclass(frozen=True)
class GameSample:
    """The positions of the sampled games (``sample``, each game's listed from its last
    back to its first) and how many each game gave, in order (``games``, summing to
    ``len(sample)``)."""

    sample: Sample
    games: tuple[int, ...]


def _pick(
    rng: np.random.Generator,
    position: Position,
    policy: npt.NDArray[np.float32] | None,
    temperature: float,
) -> int:
    """The next column of a game: uniform among the moves that do not win at once in the
    opening (``policy`` None), else drawn from the policy sharpened by ``1/temperature``."""
    legal = position.legal_moves()
    if policy is None:
        quiet = [c for c in legal if not position.is_winning_move(c)] or legal
        return int(quiet[int(rng.integers(len(quiet)))])
    allowed = np.zeros(position.width, dtype=bool)
    allowed[legal] = True
    with np.errstate(divide="ignore"):
        logits = np.where(allowed & (policy > 0), np.log(policy.astype(np.float64)), -np.inf)
    if not np.isfinite(logits).any():  # a policy with no weight left on a legal column
        logits = np.where(allowed, 0.0, -np.inf)
    z = np.exp((logits - logits.max()) / temperature)
    return int(rng.choice(position.width, p=z / z.sum()))


def _play(
    rng: np.random.Generator,
    net: Network,
    games: int,
    last: int,
    sampling: GameSampling,
    width: int,
    height: int,
) -> list[list[int]]:
    """The columns of ``games`` games played side by side until ``last`` stones, a move that
    would win (not played) or a full board."""
    boards = [Position(width, height) for _ in range(games)]
    columns: list[list[int]] = [[] for _ in range(games)]
    live = [i for i in range(games) if last > 0]
    while live:
        thinking = [i for i in live if boards[i].ply >= sampling.opening]
        policy = dict(
            zip(thinking, net.evaluate_positions([boards[i] for i in thinking]).policy, strict=True)
        ) if thinking else {}  # fmt: skip
        going = []
        for i in live:
            board = boards[i]
            column = _pick(rng, board, policy.get(i), sampling.temperature)
            if board.is_winning_move(column):
                continue  # the game ends with that move: nothing after it is kept
            board.play(column)
            columns[i].append(column)
            if board.ply < min(last, width * height):
                going.append(i)
        live = going
    return columns


def _kept(
    columns: list[int], plies: tuple[int, int], width: int, height: int
) -> list[tuple[str, Position]]:
    """A game's positions in the ply range that the side to move cannot win at once, from
    the last back to the first."""
    kept = []
    line = "".join(COLUMN_SYMBOLS[c] for c in columns)
    for stones in range(min(plies[1], len(columns)), plies[0] - 1, -1):
        position = Position.from_moves(line[:stones], width, height)
        if not any(position.is_winning_move(c) for c in position.legal_moves()):
            kept.append((line[:stones], position))
    return kept


def game_positions(
    n: int,
    plies: tuple[int, int],
    width: int = 7,
    height: int = 6,
    *,
    seed: int = 0,
    sampling: GameSampling,
    network: Network,
    advance: Callable[[int], None] | None = None,
) -> GameSample:
    """``n`` distinct positions (mirror images merged) with ``plies[0]..plies[1]`` stones,
    from games played as ``sampling`` says by ``network`` (the module's docstring says
    how); deterministic for a seed. The last game may give fewer of its positions (its
    latest ones). Raises :class:`DatasetError` when ``1,000 + n`` games in a row found
    nothing new. ``advance(k)`` is told of the positions found."""
    DatasetConfig(n, plies, width, height, seed=seed)
    rng = np.random.default_rng(seed)
    seen: set[int] = set()
    moves: list[str] = []
    currents: list[int] = []
    masks: list[int] = []
    games: list[int] = []
    barren = 0
    while len(moves) < n:
        batch = min(BATCH, max(16, (n - len(moves)) // 4))  # about as many games as needed
        for columns in _play(rng, network, batch, plies[1], sampling, width, height):
            found = 0
            for line, position in _kept(columns, plies, width, height):
                key = canonical_key(position.key(), width, height)
                if key in seen or len(moves) == n:
                    continue
                seen.add(key)
                moves.append(line)
                currents.append(position.current)
                masks.append(position.mask)
                found += 1
            if found:
                games.append(found)
                if advance is not None:
                    advance(found)
            barren = 0 if found else barren + 1
            if barren >= 1_000 + n:
                raise DatasetError(
                    f"only {len(moves):,} distinct positions with {plies[0]}-{plies[1]} stones "
                    f"turned up in the games: ask for fewer, widen the ply range or raise the "
                    "temperature",
                    setting="positions",
                )
            if len(moves) == n:
                break
    words = np.uint64 if fits_word(width, height) else object
    sample = Sample(
        width, height, moves, np.array(currents, dtype=words), np.array(masks, dtype=words)
    )
    return GameSample(sample, tuple(games))
