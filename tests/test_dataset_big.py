"""Labelled datasets of a board over 64 bits (10x6): late plies, exact labels against a
naive negamax, the envs' tensors, two-word keys, a run interrupted then resumed."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from connect4.cli.app import app
from connect4.core.bits import canonical_key
from connect4.core.processes import JobInterrupted
from connect4.envs.board import action_mask, planes
from connect4.envs.dataset import FULL, load_dataset, make_dataset
from connect4.solver.book.keys import key_ints
from tests.naive import NaiveSolver
from tests.test_solver_wide import columns_of

runner = CliRunner()
PLIES = (47, 48)  # 12-13 empty cells: quick to solve, and for the naive negamax


def test_a_10x6_dataset_holds_exact_labels_and_the_envs_tensors(tmp_path: Path) -> None:
    out = tmp_path / "big.npz"
    board = ["--width", "10", "--height", "6", "--workers", "1"]
    result = runner.invoke(
        app, ["dataset", "--positions", "12", "--plies", "47-48", *board, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = load_dataset(out)
    assert data.obs.shape == (12, 6, 10, 2) and data.key.shape == (12, 2)
    keys = key_ints(data.key)
    assert len(set(keys)) == 12
    for i, position in enumerate(data.positions()):
        assert PLIES[0] <= position.ply <= PLIES[1]
        assert keys[i] == canonical_key(position.key(), 10, 6)
        assert (data.obs[i] == planes(position, position.to_move)).all()
        assert (data.action_mask[i] == action_mask(position)).all()
        expected = NaiveSolver(10, 6).column_scores(columns_of(position))
        assert data.scores[i].tolist() == [FULL if s is None else s for s in expected]
        assert int(data.value[i]) == max(s for s in expected if s is not None)


def test_an_interrupted_10x6_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    out = tmp_path / "r.npz"
    settings: dict[str, Any] = {
        "width": 10, "height": 6, "book": "none", "chunk": 3, "progress": False
    }  # fmt: skip
    with pytest.raises(JobInterrupted), ThreadPoolExecutor(1) as pool:
        make_dataset(9, PLIES, out, executor=pool, stop_after=1, **settings)
    assert (tmp_path / "r.npz.partial").exists()
    with ThreadPoolExecutor(1) as pool:
        resumed = make_dataset(9, PLIES, out, executor=pool, resume=True, **settings)
    assert (resumed.resumed, resumed.labelled) == (3, 6)
    with ThreadPoolExecutor(1) as pool:
        whole = make_dataset(9, PLIES, tmp_path / "w.npz", executor=pool, **settings)
    for name, array in whole.dataset.arrays().items():
        assert np.array_equal(array, resumed.dataset.arrays()[name]), name
