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
    Trainer,
    TrainingError,
    TrainingSettings,
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


def _trained(data: Examples, steps: int, seed: int = 0, inputs: str = "stones") -> Trainer:
    trainer = Trainer.new(
        TrainingSettings(
            WIDTH, HEIGHT, channels=16, blocks=2, inputs=inputs, steps=steps, batch=64, seed=seed
        )
    )
    trainer.train(data)
    return trainer


@pytest.mark.parametrize("inputs", ["stones", "threats"])
def test_numpy_forward_pass_equals_torch(data_file: Path, inputs: str) -> None:
    data = load_examples([data_file], held_out=0.0).train
    trainer = _trained(data, steps=20, inputs=inputs)  # batch statistics no longer the initial
    network = trainer.network()
    assert network.inputs == inputs
    x = encode(data.obs[:200], data.ply[:200], inputs)
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
        TrainingSettings(
            WIDTH, HEIGHT, channels=16, blocks=1, steps=150, batch=64, eval_every=50, lr=3e-3
        )
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
        TrainingSettings(
            WIDTH, HEIGHT, channels=16, blocks=2, steps=30, batch=64, eval_every=10, seed=5
        )
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
        Trainer.new(TrainingSettings(channels=0))
    with pytest.raises(TrainingError, match="lr: must be"):
        Trainer.new(TrainingSettings(lr=float("nan")))
    with pytest.raises(TrainingError, match="inputs: must be one of stones, threats, not 'x'"):
        Trainer.new(TrainingSettings(inputs="x"))
    with pytest.raises(TrainingError, match="inputs: threats need a board of 64 cells"):
        Trainer.new(TrainingSettings(width=9, height=8, inputs="threats"))


# ---------------------------------------------------------------- hostile files
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    trainer = Trainer.new(
        TrainingSettings(
            WIDTH, HEIGHT, channels=8, blocks=1, steps=4, batch=8, eval_every=2, seed=1
        )
    )
    path = tmp_path_factory.mktemp("ckpt") / "c.pt"
    trainer.save(path)
    return path


class _Runs:
    """Unpickled, it would create the file its path names (what a hostile pickle does)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Path.touch, (str(self.path),))  # type: ignore[return-value]


def _edited(source: Path, target: Path, **changes: object) -> Path:
    state = torch.load(source, weights_only=True)
    state.update(changes)
    torch.save(state, target)
    return target


def test_a_hostile_checkpoint_is_refused_naming_the_file(checkpoint: Path, tmp_path: Path) -> None:
    assert Trainer.load(checkpoint).settings.channels == 8  # the intact one loads
    state = torch.load(checkpoint, weights_only=True)
    cut = tmp_path / "cut.pt"
    cut.write_bytes(checkpoint.read_bytes()[: checkpoint.stat().st_size // 2])
    marker = tmp_path / "ran"
    code = tmp_path / "code.pt"
    torch.save({"format": 1, "settings": _Runs(marker)}, code)
    plain = tmp_path / "plain.pt"
    plain.write_bytes(__import__("pickle").dumps(_Runs(marker)))  # not PyTorch's format
    text = tmp_path / "text.pt"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    wide = {**state["module"], "stem.weight": torch.zeros(9, 4, 3, 3)}
    huge = {**state["settings"], "channels": 1024, "blocks": 64}
    zero = {**state["settings"], "channels": 0}

    def edited(name: str, **changes: object) -> Path:
        return _edited(checkpoint, tmp_path / name, **changes)

    cases = {
        cut: "cannot read .*cut.pt as a checkpoint: not a PyTorch checkpoint file, or one cut",
        code: r"code.pt as a checkpoint: .* \(refused: reading them could run code\)",
        plain: "cannot read .*plain.pt as a checkpoint: not a PyTorch checkpoint file",
        text: "cannot read .*text.pt as a checkpoint: not a PyTorch checkpoint file",
        edited("list.pt", format=2): "not a training checkpoint",
        edited("shape.pt", module=wide): r"damaged checkpoint: stem.weight has shape "
        r"\(9, 4, 3, 3\), not \(8, 4, 3, 3\)",
        edited("big.pt", settings=huge): r"damaged checkpoint: .*has shape",
        edited("bad.pt", settings=zero): "damaged checkpoint: channels: must be 1-1024",
        edited("keys.pt", settings={"depth": 3}): "damaged checkpoint",
        edited("hist.pt", history=["x"]): "damaged checkpoint",
        edited("recipe.pt", recipe="[1]"): "recipe is not a mapping",
        edited("step.pt", step=-3): "damaged checkpoint: step = -3",
        edited("rng.pt", torch_rng=torch.zeros(3)): "damaged checkpoint",
    }
    for path, message in cases.items():
        with pytest.raises(TrainingError, match=message) as caught:
            Trainer.load(path)
        assert caught.value.setting is None, path  # the file's fault, not a flag's
        assert str(path.name) in str(caught.value)
    assert not marker.exists()  # nothing in the files ran


def test_an_optimizer_that_does_not_fit_is_refused(checkpoint: Path, tmp_path: Path) -> None:
    trainer = Trainer.load(checkpoint)  # two steps give the optimizer its moments
    trainer.train(Examples.of(
        np.zeros((4, HEIGHT, WIDTH, 2), np.int8), np.zeros(4, np.int64),
        np.zeros((4, WIDTH), np.int8), np.arange(4, dtype=np.uint64)))  # fmt: skip
    optimizer = trainer.optimizer.state_dict()
    first = next(iter(optimizer["state"]))
    optimizer["state"][first]["exp_avg"] = torch.zeros(2, 2)
    path = _edited(checkpoint, tmp_path / "adam.pt", optimizer=optimizer)
    with pytest.raises(TrainingError, match=r"adam.pt is a damaged checkpoint: the optimizer's "
                       r"exp_avg has shape \(2, 2\)"):  # fmt: skip
        Trainer.load(path)


def test_a_hostile_weights_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    network = Network.random(WIDTH, HEIGHT, channels=8, blocks=1, seed=2)
    good = network.arrays()
    cases: dict[str, tuple[dict[str, object], str]] = {
        "ints": ({**good, "stem.w": good["stem.w"].astype(np.int32)}, "stem.w is not floating"),
        "nan": ({**good, "stem.b": np.full(8, np.nan, np.float32)}, "NaN or infinite"),
        "blocks": ({**good, "blocks": np.array(2)}, "has no array block1"),
        "width": ({**good, "width": np.array(9)}, r"policy.fc.w has shape \(5, .*\), not"),
        "huge": ({**good, "width": np.array(10**6)}, "width = 1000000 is out of range"),
        "text": ({**good, "channels": np.array("8")}, "channels is not an integer"),
        "objects": ({**good, "recipe": np.array([{}], dtype=object)}, "cannot read"),
    }
    for name, (arrays, message) in cases.items():
        path = tmp_path / f"{name}.npz"
        np.savez(path, **arrays)  # type: ignore[arg-type]
        with pytest.raises(NetworkError, match=message) as caught:
            load_network(path)
        assert f"{name}.npz" in str(caught.value)
    bomb = tmp_path / "bomb.npz"  # 72 MB of zeros in a small file
    np.savez_compressed(bomb, **good, pad=np.zeros(9_000_000))
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(NetworkError, match=r"bomb.npz is too large: its arrays take 72,"):
        load_network(bomb)


def test_positions_won_at_once_can_be_left_out(data_file: Path) -> None:
    from connect4.envs.dataset import load_dataset

    data = load_dataset(data_file)
    won = {  # read from the positions themselves, not from their labels
        int(key)
        for key, position in zip(data.key, data.positions(), strict=True)
        if any(position.is_winning_move(c) for c in position.legal_moves())
    }
    every = load_examples([data_file], held_out=0.0)
    kept = load_examples([data_file], held_out=0.0, keep_wins_at_once=0.0)
    assert 0 < len(won) < len(every.train)
    assert kept.wins_at_once == len(won) and every.wins_at_once == 0
    assert set(kept.train.key.tolist()) == set(every.train.key.tolist()) - won
    half = load_examples([data_file], held_out=0.0, keep_wins_at_once=0.5)
    some = set(half.train.key.tolist()) & won  # the share kept: chosen by key, so stable
    assert 0 < len(some) < len(won) and half.wins_at_once == len(won) - len(some)
    assert set(half.train.key.tolist()) == set(every.train.key.tolist()) - (won - some)
    again = load_examples([data_file], held_out=0.2, keep_wins_at_once=0.5)
    assert set(again.train.key.tolist()) | set(again.held_out.key.tolist()) == set(
        half.train.key.tolist()
    )
    with pytest.raises(LabelsError, match=r"keep wins at once: must be in \[0, 1\], not 1.5"):
        load_examples([data_file], keep_wins_at_once=1.5)
