"""benchmarks/net_recipe.py, the learned player's recipe in one command, checked end to end
with ``--tiny`` before a borrowed GPU machine's minutes are spent on it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.envs.dataset import load_dataset
from connect4.net.model import load_network
from connect4.players import make_player
from tests.cli_helpers import BENCHMARKS

pytest.importorskip("torch")


def recipe(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "net_recipe.py"), "--out", str(out), "--tiny"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_the_tiny_recipe_labels_trains_exports_and_then_goes_on_from_what_it_wrote(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    first = recipe(out)
    assert first.returncode == 0, first.stdout + first.stderr
    record = json.loads((out / "recipe.json").read_text())
    names = [step["name"] for step in record["steps"]]
    assert names == ["early", "late", "middle 1", "middle 2", "train"]
    assert record["ok"] and not any(step["skipped"] for step in record["steps"])
    train = record["steps"][-1]["argv"]
    assert train.count("--exclude") == 6 and train.count("--data") == 4
    for name in ("early", "late", "middle-1", "middle-2"):
        data = load_dataset(out / f"{name}.npz")
        assert len(data) == (100 if name.startswith("middle") else 300)
        assert data.labels == ("targets" if name.startswith("middle") else "exact")
    network = load_network(out / "net.npz")
    assert network.forward(np.zeros((1, 6, 7, 4), np.float32))[0].shape == (1, 7)
    player = make_player(f"net:load={out / 'net.npz'}")
    assert player.choose(Position.from_moves("4455")).move in range(7)
    again = recipe(out)  # the files are there: skipped; the training resumed, already done
    assert again.returncode == 0, again.stdout + again.stderr
    record = json.loads((out / "recipe.json").read_text())
    assert [step["skipped"] for step in record["steps"]] == [True] * 4 + [False]
    assert record["steps"][-1]["argv"][-1] == "--resume"
    again_weights = load_network(out / "net.npz")
    for name, array in network.arrays().items():
        assert np.array_equal(array, again_weights.arrays()[name]), name
