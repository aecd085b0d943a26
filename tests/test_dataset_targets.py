"""`connect4 dataset --labels targets`: the best columns exactly, the others by their outcome
(about half the searches), and every training target the same as exact labels give."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from connect4.core.journal import JournalError
from connect4.core.processes import JobInterrupted
from connect4.envs.dataset import Dataset, DatasetError, GameSampling, load_dataset
from connect4.envs.dataset.sampling import sample_positions
from connect4.net.examples import Examples, targets
from connect4.solver.book.jobs import analyze_chunk, target_chunk
from tests.cli_helpers import run_cli
from tests.test_dataset_games import SMALL, on_a_thread


def targets_of(data: Dataset) -> dict[str, np.ndarray]:
    found = targets(Examples.of(data.obs, data.ply, data.scores, data.key), data.width, data.height)
    return {name: getattr(found, name) for name in ("policy", "outcome", "score", "best", "sign")}


def check_stand_ins(exact: tuple[int, ...], got: tuple[int, ...]) -> None:
    """A best column exact, every other one below the best with the same outcome."""
    best = max(exact)
    for e, g in zip(exact, got, strict=True):
        if e == best or e == -128:
            assert g == e, (exact, got)
        else:
            assert g < best and np.sign(g) == np.sign(e), (exact, got)


@pytest.mark.parametrize(("width", "height"), [(5, 4), (4, 4), (6, 4)])
def test_target_labels_keep_the_best_columns_and_every_outcome(width: int, height: int) -> None:
    lines = sample_positions(60, (0, width * height - 2), width, height, seed=width).moves
    exact = analyze_chunk(width, height, lines, None)
    got = target_chunk(width, height, lines, None)
    assert [key for key, _, _ in got] == [key for key, _, _ in exact]
    for (_, e, _), (_, g, _) in zip(exact, got, strict=True):
        check_stand_ins(e, g)


def test_on_7x6_games_the_targets_equal_the_exact_labels_for_fewer_nodes(tmp_path: Path) -> None:
    """The shipped network's games, plies 12-20 (the middle plies the option is for)."""
    exact = on_a_thread(48, (12, 20), tmp_path / "e.npz", sampling=GameSampling())
    fast = on_a_thread(48, (12, 20), tmp_path / "t.npz", sampling=GameSampling(), labels="targets")
    a, b = exact.dataset, load_dataset(tmp_path / "t.npz")
    assert (a.labels, b.labels) == ("exact", "targets")
    assert list(a.moves) == list(b.moves)
    for name, array in targets_of(a).items():
        assert np.array_equal(array, targets_of(b)[name]), name
    assert np.array_equal(a.value, b.value) and np.array_equal(a.best, b.best)
    for e, g in zip(a.scores.tolist(), b.scores.tolist(), strict=True):
        check_stand_ins(tuple(e), tuple(g))
    assert fast.nodes < 0.8 * exact.nodes


def test_a_journal_of_exact_labels_is_refused_for_targets(tmp_path: Path) -> None:
    out = tmp_path / "r.npz"
    with pytest.raises(JobInterrupted):
        on_a_thread(20, (4, 12), out, **SMALL, chunk=2, stop_after=1)
    with pytest.raises(JournalError, match=r"belongs to another dataset run \(other labels\)"):
        on_a_thread(20, (4, 12), out, **SMALL, resume=True, labels="targets")
    with pytest.raises(DatasetError, match="labels: choose exact or targets, not 'best'"):
        on_a_thread(20, (4, 12), tmp_path / "x.npz", **SMALL, labels="best")


def test_a_file_without_labels_reads_as_exact_and_a_strange_kind_is_refused(
    tmp_path: Path,
) -> None:
    on_a_thread(10, (2, 6), tmp_path / "d.npz", **SMALL)
    with np.load(tmp_path / "d.npz") as found:
        arrays = {name: found[name] for name in found.files if name != "labels"}
    np.savez(tmp_path / "old.npz", **arrays)
    assert load_dataset(tmp_path / "old.npz").labels == "exact"
    np.savez(tmp_path / "odd.npz", **arrays, labels=np.array("guesses"))
    with pytest.raises(DatasetError, match="labels 'guesses', not one of exact, targets"):
        load_dataset(tmp_path / "odd.npz")


def test_cli_labels_targets_and_names_a_bad_kind(tmp_path: Path) -> None:
    out = tmp_path / "c.npz"
    args = ["dataset", "--positions", "30", "--plies", "6-12", "--width", "5", "--height", "4",
            "--book", "none", "--workers", "1", "--out", str(out), "--json"]  # fmt: skip
    result = run_cli(*args, "--labels", "targets")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["positions"] == 30
    assert load_dataset(out).labels == "targets"
    bad = run_cli(*args[:-3], "--out", str(tmp_path / "b.npz"), "--labels", "best")
    assert bad.returncode == 2
    assert bad.stderr == "error: --labels: choose exact or targets, not 'best'\n"
    assert not (tmp_path / "b.npz").exists()
