"""benchmarks/net_recipe.py, the learned player's recipe in one command, checked end to end
with ``--tiny`` before a borrowed GPU machine's minutes are spent on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.envs.dataset import load_dataset
from connect4.net.model import load_network
from connect4.players import make_player
from tests.cli_helpers import run_benchmark

pytest.importorskip("torch")


def recipe(out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return run_benchmark("net_recipe.py", "--out", str(out), *options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--steps", "-1"], "argument --steps: must be at least 1, not -1"),
        (["--batch", "x"], "argument --batch: expected a number, not 'x'"),
        (["--middle-seconds", "-5"], "argument --middle-seconds: must be at least 0, not -5"),
        (["--keep-wins-at-once", "2"], "--keep-wins-at-once: must be a share from 0 to 1, not 2"),
        (["--device", "tpu"], "argument --device: invalid choice: 'tpu'"),
    ],
)
def test_bad_options_are_refused_before_any_work(
    tmp_path: Path, options: list[str], message: str
) -> None:
    """Hours of labelling must not run before ``connect4 train`` refuses a setting."""
    out = tmp_path / "run"
    done = recipe(out, *options)
    assert done.returncode == 2 and message in done.stderr.splitlines()[-1], done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_an_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "file"
    out.write_text("kept\n")
    done = recipe(out, "--tiny")
    assert done.returncode == 2 and f"--out: {out} is not a folder" in done.stderr, done.stderr
    assert out.read_text() == "kept\n"


def test_a_folder_where_the_record_goes_is_refused_before_any_work(tmp_path: Path) -> None:
    """The record is written last: a folder in its place used to end hours of work with
    a traceback and no record."""
    out = tmp_path / "run"
    (out / "recipe.json").mkdir(parents=True)
    done = recipe(out, "--tiny")
    assert done.returncode == 2, done.stderr
    assert f"--out: {out / 'recipe.json'} is a folder" in done.stderr, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["recipe.json"]  # nothing labelled


@pytest.mark.slow
def test_the_tiny_recipe_labels_trains_exports_and_then_goes_on_from_what_it_wrote(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    first = recipe(out, "--tiny")
    assert first.returncode == 0, first.stdout + first.stderr
    record = json.loads((out / "recipe.json").read_text())
    names = [step["name"] for step in record["steps"]]
    assert names == ["early", "early2", "late", "middle 1", "middle 2", "train"]
    assert record["ok"] and not any(step["skipped"] for step in record["steps"])
    train = record["steps"][-1]["argv"]
    assert train.count("--exclude") == 6 and train.count("--data") == 5
    assert train[train.index("--inputs") + 1] == "threats"
    sizes = {"early": 300, "early2": 200, "late": 300, "middle-1": 100, "middle-2": 100}
    for name, size in sizes.items():
        data = load_dataset(out / f"{name}.npz")
        assert len(data) == size
        assert data.labels == ("targets" if name.startswith("middle") else "exact")
    network = load_network(out / "net.npz")
    assert network.inputs == "threats"
    assert network.forward(np.zeros((1, 6, 7, 6), np.float32))[0].shape == (1, 7)
    player = make_player(f"net:load={out / 'net.npz'}")
    assert player.choose(Position.from_moves("4455")).move in range(7)
    # the files are there: skipped; the training resumed, already done
    again = recipe(out, "--tiny")
    assert again.returncode == 0, again.stdout + again.stderr
    record = json.loads((out / "recipe.json").read_text())
    assert [step["skipped"] for step in record["steps"]] == [True] * 5 + [False]
    assert record["steps"][-1]["argv"][-1] == "--resume"
    again_weights = load_network(out / "net.npz")
    for name, array in network.arrays().items():
        assert np.array_equal(array, again_weights.arrays()[name]), name
