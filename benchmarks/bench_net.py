"""The learned player measured against perfect play on Pons' six benchmark sets.

    nice python benchmarks/bench_net.py                      # the shipped network
    nice python benchmarks/bench_net.py --network my.npz --limit 1000 --playouts 100:200,800:100
    nice python benchmarks/bench_net.py --network shipped --network my.npz   # side by side
    nice python benchmarks/bench_net.py --data mid.npz     # raw, on connect4 dataset files

For each set, every position's columns are scored exactly by the solver (kept
in the one store of labels ``connect4 rate`` uses), then the ``net`` player picks
a move: raw (one forward pass), and with PUCT at each ``--playouts`` count.
An **outcome error** is a move that throws away the best outcome there was
(a win, or a draw); a **score error** a move whose exact score is below the
best (a slower win, a faster loss). Prints both rates per set beside
AlphaZero.jl's published Connect Four agent (errors in the outcome sense, as
read from its benchmark plots), the mean time per move, and the machine and
its load (the figures of a loaded machine are slower, never wrong). Several
``--network`` files are measured in the same run, set by set, on the same
positions (``shipped``: the network that ships).

With ``--data FILE`` (repeatable), each network is measured raw on the
positions of ``connect4 dataset`` files instead (their labels are exact
already), by number of stones: how it does on positions of another kind than
Pons' (for example the middle plies of games, ``--sampler games``), and on those of
them won with the next stone (``at once``: a network that misses them misses the wins
an opponent hands it, which Pons' sets never hold).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from machine import describe_machine

from connect4.arena.ladder import Labels, label_positions
from connect4.core.position import Position
from connect4.envs.dataset import load_dataset
from connect4.net.examples import choice_errors, targets
from connect4.net.model import load_network, recipe_of, shipped_path
from connect4.net.train import Examples
from connect4.players import make_player
from connect4.solver.bench import PONS_SETS, pons_path, read_cases

HERE = Path(__file__).parent
ANCHOR = {  # AlphaZero.jl's Connect Four agent, outcome errors (its published benchmark)
    "Begin-Hard": "~7 %",
    "Middle-Medium": "2.5 %",
    "Begin-Medium": "2 %",
    "Begin-Easy": "~0 %",
    "Middle-Easy": "~0 %",
    "End-Easy": "~0 %",
}
ORDER = ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2", "Test_L1_R3"]


@dataclass(frozen=True)
class Rates:
    """One configuration on one set: positions, error rates (%), mean ms per move."""

    positions: int
    outcome_errors: float
    score_errors: float
    ms_per_move: float


def column_scores(name: str, moves: list[str]) -> list[tuple[int | None, ...]]:
    """Every column's exact score of each position: the labels ``connect4 rate`` keeps (a
    journal under the cache root; a position is labelled once, whoever asks, and a
    Ctrl-C loses only the positions being labelled)."""
    with Labels() as labels:
        todo = labels.missing(moves)
        if todo:
            print(f"  scoring {name}: {len(todo):,} positions not labelled yet", flush=True)
            label_positions(todo, labels, None)
        return labels.of(moves)


def measure(spec: str, moves: list[str], scores: list[tuple[int | None, ...]]) -> Rates:
    """Play ``spec`` on each position (a new player each: no search tree kept from the
    position before); count the outcome and score errors."""
    outcome = exact = 0
    seconds = 0.0
    for m, row in zip(moves, scores, strict=True):
        player = make_player(spec, seed=0)
        position = Position.from_moves(m)
        started = time.perf_counter()
        move = player.choose(position).move
        seconds += time.perf_counter() - started
        best = max(s for s in row if s is not None)
        got = row[move]
        assert got is not None, f"{spec} played the full column {move + 1} in {m}"
        outcome += (got > 0) - (got < 0) < (best > 0) - (best < 0)
        exact += got < best
    n = len(moves)
    return Rates(n, 100 * outcome / n, 100 * exact / n, 1000 * seconds / n)


def dataset_errors(path: str, files: list[str]) -> dict[int, Rates]:
    """The raw network's errors on the positions of dataset files, by number of stones
    (``-1``: all of them; ``-2``: those won with the next stone, where an outcome error
    is a win handed over and missed); the time is the forward pass's, 2,048 positions at
    a time."""
    network = load_network(path)
    data = [load_dataset(f) for f in files]
    obs = np.concatenate([d.obs for d in data])
    ply = np.concatenate([d.ply for d in data])
    scores = np.concatenate([d.scores for d in data])
    started = time.perf_counter()
    logits = np.concatenate(
        [network.forward(network.encode(obs[i : i + 2048], ply[i : i + 2048]))[0]
         for i in range(0, len(ply), 2048)]
    )  # fmt: skip
    ms = 1000 * (time.perf_counter() - started) / max(len(ply), 1)
    found = targets(Examples.of(obs, ply, scores, np.zeros(len(ply), np.uint64)), 7, 6)
    right, outcome = choice_errors(logits, found)
    at_once = scores.max(axis=1) == (obs.shape[1] * obs.shape[2] + 1 - ply) // 2
    rates = {}
    for stones in [-1, -2, *sorted(set(ply.tolist()))]:
        kept = ply == stones if stones >= 0 else at_once if stones == -2 else ply >= 0
        if not kept.any():
            continue
        n = int(kept.sum())
        rates[stones] = Rates(n, 100 * outcome[kept].mean(), 100 * (~right[kept]).mean(), ms)
    return rates


def print_dataset_errors(paths: list[str], files: list[str]) -> None:
    """``--data``: each network's raw errors on the files' positions, by stones."""
    results = [dataset_errors(path, files) for path in paths]
    names = [f"#{i + 1} raw (out/score %)" if len(paths) > 1 else "raw (out/score %)"
             for i in range(len(paths))]  # fmt: skip
    print(f"{'stones':>7} {'positions':>9}" + "".join(f" {name:>24}" for name in names))
    for stones, first in results[0].items():
        label = {-1: "all", -2: "at once"}.get(stones, str(stones))
        cells = "".join(
            f" {r[stones].outcome_errors:>11.1f} / {r[stones].score_errors:>4.1f}" + " " * 6
            for r in results
        )
        print(f"{label:>7} {first.positions:>9}{cells}")


def cell(r: Rates) -> str:
    """``outcome % / score % (positions), ms``."""
    return f"{r.outcome_errors:5.1f} / {r.score_errors:5.1f} ({r.positions}), {r.ms_per_move:.1f}"


def describe(path: str) -> str:
    """One line about a weights file: shape, parameters, the step it was saved at; a
    warning line when its recipe does not say Pons' sets were kept out of its data."""
    network = load_network(path)
    recipe = recipe_of(network)
    excluded = set(map(str, recipe.get("excluded_files", [])))  # type: ignore[call-overload]
    line = (
        f"network: {path} ({network.channels}x{network.blocks}, {network.parameters:,} "
        f"parameters, step {recipe.get('step', '?')})"
    )
    missing = set(PONS_SETS) - excluded
    if missing:
        sets = ", ".join(sorted(missing))
        line += f"\nWARNING: not recorded as kept out of its training data: {sets}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--network",
        action="append",
        help="weights file (default: the shipped network; repeat to compare several, "
        "'shipped' naming the shipped one)",
    )
    parser.add_argument("--limit", type=int, default=1000, help="positions per set, raw")
    parser.add_argument(
        "--playouts",
        default="100:100,800:100",
        help="PUCT playouts, comma-separated, each N:POSITIONS (positions per set)",
    )
    parser.add_argument("--sets", default=",".join(ORDER), help="which sets (file names)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument(
        "--data", action="append", help="a connect4 dataset file: measure raw on its positions"
    )
    args = parser.parse_args()
    if args.limit < 1:
        parser.error(f"--limit: at least 1 position a set, not {args.limit}")
    shipped = str(shipped_path())
    paths = [shipped if p == "shipped" else p for p in (args.network or ["shipped"])]
    print(f"machine: {describe_machine()}; load {os.getloadavg()[0]:.1f}")
    for path in paths:
        print(describe(path))
    if args.data:
        print_dataset_errors(paths, args.data)
        return
    configs: dict[str, str] = {}
    sizes: dict[str, int] = {}
    for number, path in enumerate(paths):
        tag = "" if len(paths) == 1 else f"#{number + 1} "
        load = f"load={path}"
        configs[f"{tag}raw"] = f"net:{load}"
        sizes[f"{tag}raw"] = args.limit
        for item in filter(None, args.playouts.split(",")):
            n, _, positions = item.partition(":")
            configs[f"{tag}{int(n)} playouts"] = f"net:playouts={int(n)},{load}"
            sizes[f"{tag}{int(n)} playouts"] = int(positions or 100)
    results: dict[str, dict[str, Rates]] = {}
    header = f"{'set':<14} {'AlphaZero.jl':>12}" + "".join(
        f" {name + ' (out/score %, ms)':>32}" for name in configs
    )
    print(header)
    for file in args.sets.split(","):
        label = PONS_SETS[file]
        cases = read_cases(str(pons_path(file)))
        moves = [c.moves for c in cases[: max(sizes.values())]]
        scores = column_scores(label, moves)
        row: dict[str, Rates] = {}
        for name, spec in configs.items():
            row[name] = measure(spec, moves[: sizes[name]], scores[: sizes[name]])
        results[label] = row
        print(
            f"{label:<14} {ANCHOR[label]:>12}" + "".join(f" {cell(r):>32}" for r in row.values()),
            flush=True,
        )
    print(f"load after: {os.getloadavg()[0]:.1f}")
    if args.json:
        data = {
            "networks": paths,
            "machine": describe_machine(),
            "results": {s: {c: asdict(r) for c, r in row.items()} for s, row in results.items()},
        }
        Path(args.json).write_text(json.dumps(data, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
