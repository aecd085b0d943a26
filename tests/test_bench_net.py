"""benchmarks/bench_net.py reads and keeps its exact labels in the one store `connect4 rate`
uses (arena.ladder.Labels), not a cache file of its own."""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType

import pytest

from connect4.arena.ladder import Labels
from connect4.core.position import Position
from connect4.solver import Solver
from tests.cli_helpers import load_benchmark


@pytest.fixture(scope="module")
def bench_net() -> ModuleType:
    return load_benchmark("bench_net")


def test_scores_come_from_and_go_to_the_rate_labels(
    bench_net: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_net, "Labels", functools.partial(Labels, tmp_path))
    planted = (1, 2, 3, 4, 5, 6, 7)  # not the truth: read back, never labelled again
    with Labels(tmp_path) as labels:
        labels.add([("4", planted)])
    fresh = "4453"
    scores = bench_net.column_scores("a set", ["4", fresh])
    assert scores[0] == planted
    assert list(scores[1]) == Solver().analyze(Position.from_moves(fresh))
    with Labels(tmp_path) as labels:  # the new label was kept in the store
        assert labels.missing(["4", fresh]) == []
        assert labels.of([fresh]) == [scores[1]]
    assert not list(tmp_path.glob("*.json"))


def test_dataset_errors_agree_with_the_net_player_on_each_position(
    bench_net: ModuleType, tmp_path: Path
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from connect4.envs.dataset import load_dataset, make_dataset
    from connect4.net.model import shipped_path
    from connect4.players import make_player

    out = tmp_path / "d.npz"
    with ThreadPoolExecutor(1) as pool:
        make_dataset(60, (22, 30), out, book="none", seed=4, executor=pool, progress=False)
    data = load_dataset(out)
    rates = bench_net.dataset_errors(str(shipped_path()), [str(out)])
    player = make_player("net", seed=0)
    outcome = score = at_once = missed = 0
    for moves, row in zip(data.moves.tolist(), data.scores.tolist(), strict=True):
        position = Position.from_moves(moves)
        got = row[player.choose(position).move]
        best = max(row)
        outcome += (got > 0) - (got < 0) < (best > 0) - (best < 0)
        score += got < best
        if any(position.is_winning_move(c) for c in position.legal_moves()):  # won at once
            at_once += 1
            missed += got <= 0
    assert rates[-1].positions == 60 and sum(r.positions for k, r in rates.items() if k >= 0) == 60
    assert rates[-1].outcome_errors == pytest.approx(100 * outcome / 60)
    assert rates[-1].score_errors == pytest.approx(100 * score / 60)
    assert score > 0  # the count has something to agree on
    assert at_once > 0 and rates[-2].positions == at_once
    assert rates[-2].outcome_errors == pytest.approx(100 * missed / at_once)
