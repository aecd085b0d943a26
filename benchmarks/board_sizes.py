"""Solve the empty board of every size and check the published outcome and last move.

    nice .venv/bin/python benchmarks/board_sizes.py [--only 7x6,6x5] [--big] [--wide] \\
        [--timeout 600] [--tt-mb 1024] [--threads 1] [--json]

Every board with width and height at least 4, width + height <= 13 and
width * (height + 1) <= 64 (one machine word), plus 8x6 and 7x7 with ``--big``
(7x7 about 3.5 minutes of one core here, 2 minutes on two threads; split over local
workers or a cluster: ``connect4 solve "" --width 8 --height 6 --split-ply 8``, 11 minutes
on two) and,
with ``--wide``, three boards over 64 bits of the published tables
(5x12, 6x10, 5x13: none finished within an hour here with one thread), is solved exactly (no
opening book). Per board it prints who wins
with perfect play (first player, second player or draw), the move (ply) on which
the game then ends, the time and the nodes, and whether both agree with the
published tables; then a summary. Exit status: 1 if any board disagrees, 3 if
none disagrees but some were not solved within ``--timeout`` seconds, else 0.

The score says both: a score ``s`` means the side to move wins with its stone
number ``(W*H + 1) // 2 + 1 - |s|``; the first player's stone ``k`` is ply
``2k - 1``, the second's ply ``2k``; a draw ends when the board is full (ply W*H).

>>> end_ply(1, 7, 6), end_ply(-1, 6, 4), end_ply(0, 5, 5)
(41, 24, 25)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from typing import Literal

from machine import describe_machine

from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.solver import Solver, SolverError

Winner = Literal["first", "second", "draw"]

# The outcome and last-move tables of Christophe Steininger's c4 README
# (github.com/ChristopheSteininger/c4, readme.md at commit 80baa53, March 2025),
# which extend John Tromp's (tromp.github.io/c4/c4.html). One row per height,
# widths from 4 up: "1" first player wins, "2" second player wins, "D" draw; then
# the ply on which perfect play ends (not published for 8x9).
_OUTCOMES = {
    4: "D D 2 D 2 2 2 2 2",
    5: "D D D D 1 1 1 1",
    6: "D D 2 1 2 2 1",
    7: "D D 1 D 1 1",
    8: "D D 2 1 2",
    9: "D D 1 D 1",
    10: "D D 2 1",
    11: "D D 1",
    12: "D D 2",
    13: "D D",
}
_LAST_MOVES = {
    4: "16 20 24 28 32 36 40 44 48",
    5: "20 25 30 35 39 41 47 51",
    6: "24 30 36 41 48 52 59",
    7: "28 35 41 49 53 55",
    8: "32 40 48 55 62",
    9: "36 45 53 63",
    10: "40 50 60 69",
    11: "44 55 63",
    12: "48 60 72",
    13: "52 65",
}
_WINNERS: dict[str, Winner] = {"1": "first", "2": "second", "D": "draw"}


@dataclass(frozen=True)
class Published:
    """A board's published result: who wins with perfect play, and on which ply it ends."""

    winner: Winner
    end_ply: int | None


def published_results() -> dict[tuple[int, int], Published]:
    """The published tables by ``(width, height)``."""
    results = {}
    for height, row in _OUTCOMES.items():
        plies = _LAST_MOVES[height].split()
        for offset, code in enumerate(row.split()):
            ply = int(plies[offset]) if offset < len(plies) else None
            results[(4 + offset, height)] = Published(_WINNERS[code], ply)
    return results


PUBLISHED = published_results()
BIG = [(8, 6), (7, 7)]
WIDE = [(5, 12), (6, 10), (5, 13)]  # over 64 bits: 65, 66 and 70


def default_boards(big: bool, wide: bool = False) -> list[tuple[int, int]]:
    """Width, height >= 4, width + height <= 13, width * (height + 1) <= 64, smallest
    first; then the ``BIG`` and ``WIDE`` boards when asked for.

    >>> default_boards(False, True)[-3:]
    [(5, 12), (6, 10), (5, 13)]
    """
    boards = [
        (width, height)
        for width in range(4, 10)
        for height in range(4, 10)
        if width + height <= 13 and width * (height + 1) <= 64
    ]
    boards.sort(key=lambda board: (board[0] * board[1], board))
    return boards + (BIG if big else []) + (WIDE if wide else [])


def winner_of(score: int) -> Winner:
    """Who wins, from the empty board's score (the first player's view)."""
    if score == 0:
        return "draw"
    return "first" if score > 0 else "second"


def end_ply(score: int, width: int, height: int) -> int:
    """The ply on which perfect play ends, from the empty board's score."""
    if score == 0:
        return width * height
    stone = (width * height + 1) // 2 + 1 - abs(score)
    return 2 * stone - 1 if score > 0 else 2 * stone


@dataclass(frozen=True)
class BoardResult:
    """One board: our solve (``score`` None when the timeout stopped it) beside the tables."""

    board: str
    score: int | None
    winner: Winner | None
    end_ply: int | None
    published_winner: Winner | None
    published_end_ply: int | None
    verdict: Literal["AGREE", "DISAGREE", "TIMEOUT", "UNPUBLISHED"]
    seconds: float
    cpu_seconds: float
    nodes: int


def solve_board(
    width: int, height: int, tt_mb: int, timeout: float | None, threads: int = 1
) -> BoardResult:
    """Solve one empty board exactly and judge it against the published tables."""
    with Solver(width, height, tt_mb, threads=threads) as solver:
        solver.warm_up()
        cpu_start = time.process_time()
        start = time.perf_counter()
        empty = Position.from_moves("", width, height)
        result = solver.run(empty, limit=None if timeout is None else Limit.within(timeout))
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
    published = PUBLISHED.get((width, height))
    score = result.score if result.complete else None
    winner = ply = None
    if score is not None:
        winner, ply = winner_of(score), end_ply(score, width, height)
    if score is None:
        verdict: Literal["AGREE", "DISAGREE", "TIMEOUT", "UNPUBLISHED"] = "TIMEOUT"
    elif published is None:
        verdict = "UNPUBLISHED"
    elif winner == published.winner and published.end_ply in (None, ply):
        verdict = "AGREE"
    else:
        verdict = "DISAGREE"
    return BoardResult(
        board=f"{width}x{height}",
        score=score,
        winner=winner,
        end_ply=ply,
        published_winner=published.winner if published else None,
        published_end_ply=published.end_ply if published else None,
        verdict=verdict,
        seconds=round(seconds, 3),
        cpu_seconds=round(cpu, 3),
        nodes=result.nodes,
    )


def parse_boards(text: str) -> list[tuple[int, int]]:
    """``"7x6,6x5"`` as ``[(7, 6), (6, 5)]``; a ValueError names a bad item."""
    boards = []
    for item in text.split(","):
        width, sep, height = item.strip().lower().partition("x")
        if not (sep and width.isdigit() and height.isdigit()):
            raise ValueError(f"{item!r} is not a board size like 7x6")
        boards.append((int(width), int(height)))
    return boards


def _row(result: BoardResult) -> str:
    ours = f"{result.winner} @ {result.end_ply}" if result.winner else "-"
    table = "-"
    if result.published_winner:
        table = f"{result.published_winner} @ {result.published_end_ply or '?'}"
    return (
        f"{result.board:>5}  {ours:>12}  {table:>12}  {result.verdict:<11}"
        f" {result.seconds:>10,.3f}  {result.cpu_seconds:>10,.3f}  {result.nodes:>15,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="these boards only, e.g. 7x6,6x5")
    parser.add_argument("--big", action="store_true", help="also 8x6 and 7x7 (minutes to an hour)")
    parser.add_argument(
        "--wide", action="store_true", help="also 5x12, 6x10 and 5x13 (over 64 bits; an hour each)"
    )
    parser.add_argument("--threads", type=int, default=1, help="search threads (default 1)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per board")
    parser.add_argument("--tt-mb", type=int, default=1024, help="table size in MB")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.only:
        try:
            boards = parse_boards(args.only)
        except ValueError as error:
            parser.error(f"--only: {error}")
    else:
        boards = default_boards(args.big, args.wide)
    if args.timeout is not None and args.timeout <= 0:
        parser.error("--timeout must be positive")
    for width, height in boards:
        if width < 4 or height < 4:
            parser.error(f"--only: {width}x{height}: need width, height >= 4")
        try:
            Solver(width, height, args.tt_mb, threads=args.threads)
        except SolverError as error:
            parser.error(f"{width}x{height}: {error}")
    if not args.json:
        print(
            f"{'board':>5}  {'ours':>12}  {'published':>12}  {'verdict':<11}"
            f" {'seconds':>10}  {'CPU s':>10}  {'nodes':>15}",
            flush=True,
        )
    results = []
    for index, (width, height) in enumerate(boards, 1):
        print(f"[{index}/{len(boards)}] solving {width}x{height} ...", file=sys.stderr, flush=True)
        result = solve_board(width, height, args.tt_mb, args.timeout, args.threads)
        results.append(result)
        if not args.json:
            print(_row(result), flush=True)
    counts = {
        verdict: sum(result.verdict == verdict for result in results)
        for verdict in ("AGREE", "DISAGREE", "TIMEOUT", "UNPUBLISHED")
    }
    summary = ", ".join(f"{count} {verdict}" for verdict, count in counts.items() if count)
    if args.json:
        print(
            json.dumps(
                {
                    "boards": [asdict(result) for result in results],
                    "summary": counts,
                    "tt_mb": args.tt_mb,
                    "threads": args.threads,
                    "machine": describe_machine(),
                },
                indent=2,
            )
        )
    else:
        print(f"summary: {len(results)} boards: {summary}")
        print(f"machine: {describe_machine()}, table {args.tt_mb} MB, {args.threads} thread(s)")
    if counts["DISAGREE"]:
        sys.exit(1)
    if counts["TIMEOUT"]:
        sys.exit(3)


if __name__ == "__main__":
    main()
