"""What the network reads: the threat planes against a naive count, and networks that
read them saved, loaded and played like the others (the Kaggle agent: test_net_player)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from connect4.core.bits import bitboard_planes
from connect4.core.position import Position
from connect4.envs.dataset import sample_positions
from connect4.net.model import INPUTS, Network, NetworkError, encode, load_network, threat_planes
from connect4.players import make_player

LINES = ((0, 1), (1, 0), (1, 1), (1, -1))


def naive_threats(stones: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """The empty cells where one more of ``stones`` makes four in a row, cell by cell."""
    height, width = stones.shape
    found = np.zeros_like(stones, dtype=bool)
    for r in range(height):
        for c in range(width):
            if not empty[r, c]:
                continue
            board = stones.astype(bool).copy()
            board[r, c] = True
            for dr, dc in LINES:
                run = 1
                for sign in (1, -1):
                    rr, cc = r + sign * dr, c + sign * dc
                    while 0 <= rr < height and 0 <= cc < width and board[rr, cc]:
                        run, rr, cc = run + 1, rr + sign * dr, cc + sign * dc
                found[r, c] |= run >= 4
    return found


@pytest.mark.parametrize(("width", "height"), [(7, 6), (5, 4), (8, 7)])
def test_threat_planes_are_the_naive_cells(width: int, height: int) -> None:
    sample = sample_positions(300, (6, width * height - 6), width, height, seed=width)
    obs = bitboard_planes(sample.current, sample.mask, width, height)
    planes = threat_planes(obs)
    assert planes.any()  # positions with threats are among them
    for i in range(len(obs)):
        empty = (obs[i] == 0).all(axis=-1)
        for side in (0, 1):
            assert np.array_equal(planes[i, ..., side], naive_threats(obs[i, ..., side], empty))


def test_threat_inputs_hold_the_stones_and_the_threats() -> None:
    position = Position.from_moves("112233")  # a1 b1 c1 against a2 b2 c2
    obs = bitboard_planes(
        np.array([position.current], np.uint64), np.array([position.mask], np.uint64), 7, 6
    )
    stones = encode(obs, np.array([position.ply]))
    threats = encode(obs, np.array([position.ply]), "threats")
    assert threats.shape == (1, 6, 7, INPUTS["threats"])
    assert np.array_equal(threats[..., :4], stones)
    # the side to move completes four at d1 (row 5 from the top), the opponent at d2
    assert np.argwhere(threats[0, ..., 4]).tolist() == [[5, 3]]
    assert np.argwhere(threats[0, ..., 5]).tolist() == [[4, 3]]
    with pytest.raises(NetworkError, match="unknown inputs 'walls'"):
        encode(obs, np.array([position.ply]), "walls")
    with pytest.raises(NetworkError, match="fits 64 bits"):
        threat_planes(np.zeros((1, 8, 9, 2), np.int8))
    with pytest.raises(NetworkError, match="threat inputs need a board that fits 64 bits"):
        Network.random(9, 8, channels=4, blocks=1, inputs="threats")  # refused at load too


def test_a_threats_network_round_trips_and_plays(tmp_path: Path) -> None:
    network = Network.random(7, 6, channels=8, blocks=1, seed=3, inputs="threats")
    assert network.weights["stem.w"].shape == (8, 6, 3, 3)
    path = tmp_path / "t.npz"
    np.savez(path, **network.arrays())  # type: ignore[arg-type]
    again = load_network(path)
    assert again.inputs == "threats"
    position = Position.from_moves("4453")
    assert np.array_equal(
        again.evaluate_positions([position]).logits, network.evaluate_positions([position]).logits
    )
    raw = make_player(f"net:load={path}")
    searched = make_player(f"net:load={path},playouts=30")
    assert raw.choose(position).move == int(network.evaluate_positions([position]).logits.argmax())
    assert searched.choose(position).move in range(7)
    # a file of the first format (no inputs) reads the stones
    arrays = dict(np.load(tmp_path / "t.npz"))
    stones = Network.random(7, 6, channels=8, blocks=1, seed=3).arrays()
    del stones["inputs"]
    np.savez(tmp_path / "old.npz", **{**stones, "format": np.array(1)})  # type: ignore[arg-type]
    assert load_network(tmp_path / "old.npz").inputs == "stones"
    for name, changed, message in (
        ("walls", {"inputs": np.array("walls")}, "unknown inputs 'walls'"),
        ("stones", {"inputs": np.array("stones")}, r"stem.w has shape \(8, 6, 3, 3\), not"),
        ("future", {"format": np.array(3)}, "format 3; this reader knows 1-2"),
    ):
        np.savez(tmp_path / f"{name}.npz", **{**arrays, **changed})  # type: ignore[arg-type]
        with pytest.raises(NetworkError, match=message) as caught:
            load_network(tmp_path / f"{name}.npz")
        assert f"{name}.npz" in str(caught.value)
