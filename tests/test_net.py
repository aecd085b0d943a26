"""The learned player's network: labels to targets, NumPy == PyTorch, training, checkpoints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.core.score import best_columns
from connect4.envs.dataset import FULL, Dataset, label, sample_positions
from connect4.envs.labels import LabelsError, excluded_keys, held_out_mask, load_examples
from connect4.net.model import Network, NetworkError, encode, load_network
from connect4.solver import Solver

torch = pytest.importorskip("torch")

from connect4.net.train import (  # noqa: E402 - after the skip: these need torch
    Examples,
    Settings,
    Trainer,
    TrainingError,
    save_network,
    targets,
)

WIDTH, HEIGHT = 5, 4  # the solver labels every position of this board at once


def labelled(n: int, plies: tuple[int, int], seed: int) -> Dataset:
    """``n`` random 5x4 positions with every column's exact score from the solver."""
    sample = sample_positions(n, plies, WIDTH, HEIGHT, seed=seed)
    solver = Solver(WIDTH, HEIGHT)
    rows = [[FULL if s is None else s for s in solver.analyze(p)] for p in sample.positions()]
    return label(sample, rows, seed=seed)


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("net") / "d.npz"
    labelled(600, (0, 14), seed=3).save(path)
    return path


def test_targets_are_the_solvers_labels(data_file: Path) -> None:
    split = load_examples([data_file], held_out=0.0)
    t = targets(split.train, WIDTH, HEIGHT)
    solver = Solver(WIDTH, HEIGHT)
    for i in range(0, len(split.train), 37):
        planes = split.train.obs[i]
        moves = _replay(planes, int(split.train.ply[i]))
        scores = solver.analyze(moves)
        best = best_columns(scores)
        assert np.flatnonzero(t.best[i]).tolist() == sorted(best)
        assert np.allclose(t.policy[i][best], 1 / len(best))
        value = max(s for s in scores if s is not None)
        assert t.outcome[i] == np.sign(value) + 1
        assert t.score[i] == pytest.approx(value / 7)  # 5x4: the largest score is 7


def _replay(planes: np.ndarray, ply: int) -> Position:
    """A position with the stones of ``planes`` (any move order reaching it)."""
    rows = [[0] * WIDTH for _ in range(HEIGHT)]
    me, other = (1, 2) if ply % 2 == 0 else (2, 1)
    for r in range(HEIGHT):
        for c in range(WIDTH):
            if planes[r, c, 0]:
                rows[r][c] = me
            elif planes[r, c, 1]:
                rows[r][c] = other
    return Position.from_rows(rows)


def test_benchmark_positions_and_mirrors_are_kept_out(data_file: Path, tmp_path: Path) -> None:
    split = load_examples([data_file], held_out=0.0)
    positions = [_replay(split.train.obs[i], int(split.train.ply[i])) for i in range(3)]
    bench = tmp_path / "bench.txt"
    # the first two as they are, the third as its mirror image
    bench.write_text(
        f"{positions[0].moves} 0\n\n{positions[1].moves} 1\n{positions[2].mirrored().moves} -1\n"
    )
    kept = load_examples([data_file, data_file], exclude=[bench], held_out=0.0)
    assert kept.excluded == 3 and kept.duplicates == len(split.train)
    assert len(kept.train) == len(split.train) - 3
    assert not np.isin(split.train.key[:3], kept.train.key).any()


def test_excluded_files_are_checked(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("44\n4x4 2\n")
    with pytest.raises(LabelsError, match=r"bad.txt, line 2: move 2 \('x'\)"):
        excluded_keys([bad])
    with pytest.raises(LabelsError, match=r"does not exist|no such|not found"):
        excluded_keys([tmp_path / "missing.txt"])


def test_held_out_split_is_by_key(data_file: Path) -> None:
    split = load_examples([data_file], held_out=0.2)
    assert 0.1 < len(split.held_out) / 600 < 0.3
    assert not np.isin(split.held_out.key, split.train.key).any()
    again = load_examples([data_file, data_file], held_out=0.2)
    assert np.array_equal(np.sort(again.held_out.key), np.sort(split.held_out.key))
    assert held_out_mask(split.held_out.key, 0.2).all()


def test_mirrored_examples_carry_mirrored_labels(data_file: Path) -> None:
    ex = load_examples([data_file], held_out=0.0).train.take(np.arange(50))
    mirror = ex.mirrored()
    solver = Solver(WIDTH, HEIGHT)
    for i in range(0, 50, 7):
        position = _replay(mirror.obs[i], int(mirror.ply[i]))
        scores = [FULL if s is None else s for s in solver.analyze(position)]
        assert mirror.scores[i].tolist() == scores


def test_the_networks_planes_are_what_the_envs_show() -> None:
    # One layout for the envs, the datasets and the network: the batched planes of
    # sampled positions equal the envs' observation of each, built cell by cell.
    from connect4.core.bits import bitboard_planes
    from connect4.envs.board import planes

    sample = sample_positions(40, (0, 20), seed=1)
    batched = bitboard_planes(sample.current, sample.mask, 7, 6)
    for i, position in enumerate(sample.positions()):
        assert np.array_equal(batched[i], planes(position, position.to_move))


def _trained(data: Examples, steps: int, seed: int = 0) -> Trainer:
    trainer = Trainer.new(
        Settings(WIDTH, HEIGHT, channels=16, blocks=2, steps=steps, batch=64, seed=seed)
    )
    trainer.train(data)
    return trainer


def test_numpy_forward_pass_equals_torch(data_file: Path) -> None:
    data = load_examples([data_file], held_out=0.0).train
    trainer = _trained(data, steps=20)  # batch statistics no longer the initial ones
    network = trainer.network()
    x = encode(data.obs[:200], data.ply[:200])
    trainer.module.eval()
    with torch.no_grad():
        logits, value = trainer.module(torch.from_numpy(x))
    np_logits, np_value = network.forward(x)
    assert np.allclose(np_logits, logits.numpy(), atol=1e-5, rtol=1e-5)
    assert np.allclose(np_value, value.numpy(), atol=1e-5, rtol=1e-5)
    legal = data.scores[:200] != FULL
    ours = network.evaluate(x, legal)
    theirs = torch.softmax(logits.masked_fill(torch.from_numpy(~legal), -1e9), dim=1).numpy()
    assert np.allclose(ours.policy, theirs, atol=1e-5)


def test_a_tiny_training_run_lowers_the_loss(data_file: Path) -> None:
    split = load_examples([data_file], held_out=0.0)
    trainer = Trainer.new(
        Settings(WIDTH, HEIGHT, channels=16, blocks=1, steps=150, batch=64, eval_every=50, lr=3e-3)
    )
    before = trainer.evaluate(split.train)
    assert trainer.train(split.train)
    after = trainer.evaluate(split.train)
    assert after.loss < before.loss - 0.3
    assert after.accuracy > before.accuracy
    assert [p.step for p in trainer.history] == [50, 100, 150]


def test_a_resumed_run_is_the_run_uninterrupted(data_file: Path, tmp_path: Path) -> None:
    data = load_examples([data_file], held_out=0.0).train
    straight = _trained(data, steps=30, seed=5)
    half = Trainer.new(
        Settings(WIDTH, HEIGHT, channels=16, blocks=2, steps=30, batch=64, eval_every=10, seed=5)
    )
    from connect4.core.limits import Limit

    limit = Limit()
    half.train(data, on_step=lambda n: limit.stop() if half.step == 15 else None, limit=limit)
    assert half.step == 15
    half.save(tmp_path / "c.pt")
    resumed = Trainer.load(tmp_path / "c.pt")
    assert resumed.train(data)
    for a, b in zip(
        straight.module.state_dict().values(), resumed.module.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b)


def test_weights_files_round_trip_and_are_checked(tmp_path: Path) -> None:
    network = Network.random(WIDTH, HEIGHT, channels=8, blocks=1, seed=2)
    path = tmp_path / "w.npz"
    save_network(network, path)
    again = load_network(path)
    x = np.random.default_rng(0).random((3, HEIGHT, WIDTH, 4), dtype=np.float32)
    assert np.array_equal(again.forward(x)[0], network.forward(x)[0])
    arrays = dict(np.load(path))
    arrays["block0.conv1.w"] = arrays["block0.conv1.w"][:4]
    np.savez(tmp_path / "cut.npz", **arrays)
    with pytest.raises(NetworkError, match=r"block0.conv1.w has shape \(4, 8, 3, 3\)"):
        load_network(tmp_path / "cut.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(NetworkError, match="cannot read"):
        load_network(tmp_path / "text.npz")
    with pytest.raises(NetworkError, match="is a folder"):
        load_network(tmp_path)
    with pytest.raises(TrainingError, match="checkpoint"):
        Trainer.load(tmp_path / "text.npz")


def test_settings_are_checked() -> None:
    with pytest.raises(TrainingError, match="channels: must be 1-1024"):
        Trainer.new(Settings(channels=0))
    with pytest.raises(TrainingError, match="lr: must be"):
        Trainer.new(Settings(lr=float("nan")))
