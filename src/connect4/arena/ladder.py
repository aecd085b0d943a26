"""The rating ladder's positions: Pons' six sets, a seeded set of decisive positions, or a
file; every column of each scored exactly by the solver once and kept under the cache root.

A player is rated on positions whose truth is known (:mod:`connect4.arena.rate`), so
every position needs the exact score of each of its columns (Pons' convention, the side
to move's view; ``None`` for a full column): :class:`Labels` keeps them in a journal
under the cache root (``ladder/labels-7x6.journal``), so a position is labelled once,
whatever set or command asks for it again.

The sets:

- **Pons' six sets** (1,000 positions each, shipped with the package), by the names his
  tutorial gives them (``End-Easy``, ``Middle-Easy``, ``Middle-Medium``,
  ``Begin-Easy``, ``Begin-Medium``, ``Begin-Hard``) or their file names
  (``Test_L3_R1``, ...): :func:`pons_set`.
- **Decisive positions** (:func:`decisive_set`): positions games between players of
  mixed strength reach (one to four random moves, then random or alpha-beta at
  depths 1-6 on each side), 2 to 36 stones, in
  which the side to move cannot win at once and the columns do not all keep the
  same outcome: a move there can throw the outcome away. Candidate ``i`` depends
  on the seed and ``i`` alone (its ply, its two players and their seeds), so the set
  of ``n`` is the first ``n`` decisive candidates, the same on any number of
  workers; it is kept as a file of Pons' format under the cache root
  (``ladder/decisive-7x6-seed-S.txt``) for the next run.
- **A file** in Pons' format (``moves score`` a line: :func:`file_set`); the
  scores in the file are not used, every column is labelled by the solver.

>>> judge((2, -1, None, 0, 2, -3, 1), 3)  # a draw where a win was: both errors
(True, True)
>>> judge((2, -1, None, 0, 3, -3, 1), 0)  # a slower win: a score error only
(False, True)
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

from connect4.arena.schedule import ArenaError
from connect4.core.cache import cache_root, make_private_dir
from connect4.core.files import atomic_write, read_lines
from connect4.core.journal import Journal
from connect4.core.position import Position
from connect4.core.processes import map_unordered
from connect4.solver.bench import PONS_SETS, pons_path

__all__ = [
    "DECISIVE_PLIES",
    "GAME_PLAYERS",
    "PONS_ORDER",
    "Labels",
    "LadderError",
    "PositionSet",
    "decisive_set",
    "file_set",
    "judge",
    "label_positions",
    "pons_set",
    "resolve_set",
]

PONS_ORDER = ("Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3")
"""Pons' six sets from the end of the game to its beginning (the order of his tutorial)."""
DECISIVE_PLIES = (2, 36)
"""Stones on the board in the decisive positions."""
GAME_PLAYERS = (
    "random",
    "alphabeta:depth=1",
    "alphabeta:depth=2",
    "alphabeta:depth=3",
    "alphabeta:depth=4",
    "alphabeta:depth=6",
)
"""Who plays the games the decisive positions come from (two drawn for each candidate);
fixed depths and seeds, no clock: a candidate is the same on every machine."""
LABEL_CHUNK = 16  # positions per labelling task
CANDIDATE_CHUNK = 8  # candidates per task of the decisive set's search
MAX_CANDIDATES = 200  # candidates tried per decisive position wanted, at most


class LadderError(ArenaError):
    """Bad ladder input: an unknown set, a bad positions file, an impossible set size."""


LEVEL_TARGETS = {"easy": 0.30, "medium": 0.10, "hard": 0.03}
"""The levels' outcome-error targets on a decisive set: a level of any kind throws the
outcome away on about this share of its positions (the levels are tuned to them)."""


def level_target(spec: str) -> float | None:
    """The outcome-error target of a spec that names a level and nothing else that
    changes its moves (a ``seed`` may be given); ``None`` for any other spec.

    >>> level_target("mcts:level=medium"), level_target("alphabeta:level=hard,depth=3")
    (0.1, None)
    """
    from connect4.players import parse_spec

    parsed = parse_spec(spec)
    if set(parsed.given) - {"level", "seed"} or "level" not in parsed.given:
        return None
    return LEVEL_TARGETS.get(str(parsed.options["level"]))


@dataclass(frozen=True)
class PositionSet:
    """Positions a player is rated on: the set's ``name`` and each position's move string;
    ``decisive`` for a set of decisive positions (where the levels' targets apply)."""

    name: str
    moves: tuple[str, ...]
    decisive: bool = False

    def digest(self) -> str:
        """A short fingerprint of the positions (a resumed run must rate the same ones).

        >>> PositionSet("x", ("4", "44")).digest()
        'b34920b9150a0bf3'
        """
        return hashlib.sha256("\n".join(self.moves).encode()).hexdigest()[:16]


def judge(scores: Sequence[int | None], move: int) -> tuple[bool, bool]:
    """Whether playing ``move`` (a legal column) where the columns score ``scores`` is an
    outcome error (a win thrown to a draw or a loss, a draw to a loss) and a score
    error (not a best-scored column)."""
    best = max(s for s in scores if s is not None)
    got = scores[move]
    if got is None:
        raise ValueError(f"column {move + 1} is full")
    return (got > 0) - (got < 0) < (best > 0) - (best < 0), got < best


# ------------------------------------------------------------------ sets
def _pons_path(name: str) -> Path:
    """The shipped file of Pons' set ``name`` (his name or the file's, any case);
    ``LadderError`` listing the names when it is none of them."""
    try:
        return pons_path(name)
    except KeyError:
        names = ", ".join(PONS_SETS[f] for f in PONS_ORDER)
        raise LadderError(f"no set {name!r}: Pons' sets are {names}", setting="set") from None


def pons_set(name: str, limit: int | None = None) -> PositionSet:
    """The first ``limit`` positions of Pons' set ``name`` (``LadderError`` listing the
    names when it is none of them)."""
    path = _pons_path(name)
    return PositionSet(PONS_SETS[path.name], _read_positions(str(path), limit))


def file_set(path: str, limit: int | None = None) -> PositionSet:
    """The first ``limit`` positions of a file in Pons' format; ``LadderError`` naming the
    line of a bad one (not ``moves score``, not a live 7x6 game)."""
    return PositionSet(Path(path).name, _read_positions(path, limit))


def read_test_set(path: str, limit: int) -> list[str]:
    """The first ``limit`` positions (move strings) of a benchmark file (or of Pons' set
    of that name, :func:`~connect4.solver.bench.benchmark_file`); ``ArenaError`` naming
    the line when the file is unreadable or a position is not a live 7x6 game."""
    from connect4.solver.bench import benchmark_file, read_cases

    try:
        cases = read_cases(benchmark_file(path), limit)
    except OSError as error:
        raise ArenaError(f"{path}: cannot read ({error.strerror})") from None
    except ValueError as error:
        raise ArenaError(str(error)) from None
    for case in cases:
        try:
            position = Position.from_moves(case.moves)
        except ValueError as error:
            raise ArenaError(f"{path}:{case.line}: {error}") from None
        if position.is_over():
            raise ArenaError(f"{path}:{case.line}: the game is already over")
    if not cases:
        raise ArenaError(f"{path}: no positions in the file")
    return [case.moves for case in cases]


def _read_positions(path: str, limit: int | None) -> tuple[str, ...]:
    try:
        return tuple(read_test_set(path, limit if limit is not None else 1 << 30))
    except ArenaError as error:
        raise LadderError(str(error), setting="positions") from None


def resolve_set(name: str) -> str:
    """Pons' name of a set given by any of its names, for messages and ``--set``.

    >>> resolve_set("test_l1_r3")
    'Begin-Hard'
    """
    return PONS_SETS[_pons_path(name).name]


# ------------------------------------------------------------------ labels
class Labels:
    """Every column's exact score of positions labelled before, by move string: a journal
    under the cache root (one a board; a position is labelled once, whoever asks)."""

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or cache_root() / "ladder"
        make_private_dir(folder)
        self.path = folder / "labels-7x6.journal"
        self.journal = Journal(
            self.path, "ladder labels", {"board": "7x6", "scores": "pons"}, shared=True
        )
        self.known: dict[str, tuple[int | None, ...]] = {}

    def __enter__(self) -> Labels:
        self.journal.open(resume=True)
        for data in self.journal.records():
            try:
                moves, scores = json.loads(data)
                self.known[str(moves)] = tuple(None if s is None else int(s) for s in scores)
            except (ValueError, TypeError):
                continue  # not ours: labelled again
        return self

    def __exit__(self, *exc: object) -> None:
        self.journal.close()

    def add(self, labelled: Iterable[tuple[str, tuple[int | None, ...]]]) -> None:
        """Keep new labels (one transaction)."""
        fresh = [(m, s) for m, s in labelled if m not in self.known]
        self.journal.append(json.dumps([m, list(s)]).encode() for m, s in fresh)
        self.known.update(fresh)

    def missing(self, moves: Iterable[str]) -> list[str]:
        """The positions (each once, in order) not labelled yet."""
        return list(dict.fromkeys(m for m in moves if m not in self.known))

    def of(self, moves: Sequence[str]) -> list[tuple[int | None, ...]]:
        """The labels of positions all labelled."""
        return [self.known[m] for m in moves]


def label_chunk(moves: Sequence[str]) -> list[tuple[str, tuple[int | None, ...]]]:
    """Every column's exact score of each position (runs in a worker)."""
    from connect4.review import exact_scores

    return [(m, exact_scores(Position.from_moves(m)).scores) for m in moves]


def label_positions(
    moves: Sequence[str],
    labels: Labels,
    pool: Executor | None,
    advance: Callable[[int], None] | None = None,
) -> None:
    """Label the positions ``labels`` does not hold, on ``pool`` (``None``: here), each
    chunk kept as it finishes (a Ctrl-C loses the chunks in flight only)."""
    todo = labels.missing(moves)
    chunks = [todo[i : i + LABEL_CHUNK] for i in range(0, len(todo), LABEL_CHUNK)]
    for done in map_unordered(label_chunk, chunks, pool, lambda c: f"labelling {c[0]!r}"):
        labels.add(done)
        if advance is not None:
            advance(len(done))


# ------------------------------------------------------------------ decisive positions
def candidate(seed: int, index: int) -> str | None:
    """Candidate ``index`` of a decisive set: a game between two of :data:`GAME_PLAYERS`
    stopped at a ply drawn in :data:`DECISIVE_PLIES`; ``None`` when the game ended first
    or the side to move can win at once.

    >>> candidate(1, 0), candidate(1, 7)
    (None, '33455521334454344')
    """
    from connect4.players import make_player

    rng = random.Random(seed * 1_000_003 + index)
    ply = rng.randint(*DECISIVE_PLIES)
    specs = [rng.choice(GAME_PLAYERS) for _ in range(2)]
    players = [make_player(spec, seed=rng.randrange(2**31)) for spec in specs]
    opening = rng.randint(1, 4)  # random first moves, so the games do not repeat each other
    position = Position()
    try:
        for _ in range(ply):
            if position.ply < opening:
                position.play(rng.choice(position.legal_moves()))
            else:
                position.play(players[position.ply % 2].choose(position.copy()).move)
            if position.is_over():
                return None
    finally:
        for player in players:
            player.close()
    if any(position.is_winning_move(c) for c in position.legal_moves()):
        return None
    return position.moves


def decisive(scores: Sequence[int | None]) -> bool:
    """True when the columns do not all keep the same outcome.

    >>> decisive((0, 0, None, 0, 0, 0, 0)), decisive((1, 0, 0, 0, 0, 0, -2))
    (False, True)
    """
    outcomes = {(s > 0) - (s < 0) for s in scores if s is not None}
    return len(outcomes) > 1


def candidate_chunk(
    seed: int, start: int, count: int
) -> list[tuple[int, str | None, tuple[int | None, ...] | None]]:
    """Candidates ``start .. start + count - 1``, each with its labels (runs in a worker)."""
    out: list[tuple[int, str | None, tuple[int | None, ...] | None]] = []
    for index in range(start, start + count):
        moves = candidate(seed, index)
        out.append((index, moves, None if moves is None else label_chunk([moves])[0][1]))
    return out


def _chunk_task(
    task: tuple[int, int, int],
) -> list[tuple[int, str | None, tuple[int | None, ...] | None]]:
    return candidate_chunk(*task)


def decisive_path(seed: int, folder: Path | None = None) -> Path:
    """Where the decisive set of a seed is kept."""
    return (folder or cache_root() / "ladder") / f"decisive-7x6-seed-{seed}.txt"


def decisive_set(
    n: int,
    seed: int,
    labels: Labels,
    pool: Executor | None,
    advance: Callable[[int], None] | None = None,
) -> PositionSet:
    """The first ``n`` decisive candidates of ``seed``: read from the set kept under the
    cache root when it holds ``n``, else found (candidates in waves on ``pool``, each
    labelled and kept in ``labels``) and kept there. ``advance(k)``: ``k`` more found."""
    name = f"decisive-{n}-seed-{seed}"
    path = decisive_path(seed, labels.path.parent)
    kept = _read_kept(path)
    if len(kept) >= n:
        if advance is not None:
            advance(n)
        return PositionSet(name, tuple(kept[:n]), decisive=True)
    found: dict[int, str] = {}
    tried = 0
    while len(found) < n:
        if tried >= MAX_CANDIDATES * n:
            raise LadderError(f"only {len(found)} decisive positions in {tried:,} games")
        wave = max(CANDIDATE_CHUNK, int((n - len(found)) * 1.6))
        tasks = [
            (seed, start, min(CANDIDATE_CHUNK, tried + wave - start))
            for start in range(tried, tried + wave, CANDIDATE_CHUNK)
        ]
        for results in map_unordered(_chunk_task, tasks, pool, lambda t: f"candidate {t[1]}"):
            labels.add((m, s) for _, m, s in results if m is not None and s is not None)
            new = {i: m for i, m, s in results if m is not None and s is not None and decisive(s)}
            shown = min(len(found), n)
            found.update(new)
            if advance is not None:
                advance(min(len(found), n) - shown)
        tried += wave
    ordered = [found[i] for i in sorted(found)]
    text = "".join(f"{m} {max(s for s in labels.known[m] if s is not None)}\n" for m in ordered)
    atomic_write(path, text.encode(), what="decisive positions")
    return PositionSet(name, tuple(ordered[:n]), decisive=True)


def _read_kept(path: Path) -> list[str]:
    """The decisive positions kept at ``path`` (none when it is missing or damaged)."""
    if not path.is_file():
        return []
    try:
        rows = [line.split() for _, line in read_lines(path, what="decisive positions")]
        moves = [row[0] for row in rows if len(row) == 2]
        for m in moves:
            Position.from_moves(m)
    except (OSError, ValueError):
        return []
    return moves
