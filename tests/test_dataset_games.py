"""Positions from games (`connect4 dataset --sampler games`): the games, their exact labels
(game by game, last position first, one table), resume, the CLI."""

from __future__ import annotations

import itertools
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from connect4.core.bits import canonical_key
from connect4.core.journal import JournalError
from connect4.core.processes import JobInterrupted
from connect4.envs.dataset import (
    DatasetError,
    DatasetReport,
    GameSampling,
    game_positions,
    load_dataset,
    make_dataset,
)
from connect4.net import Network
from connect4.net.model import shipped_network
from connect4.solver import Solver
from connect4.solver.book import load_book
from tests.cli_helpers import interrupt_cli, journal_records, run_cli
from tests.naive import NaiveSolver
from tests.test_dataset import check_rows, columns_of

SMALL: dict[str, Any] = {"width": 5, "height": 4, "book": "none"}


@pytest.fixture(scope="module")
def small_net(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 5x4 network of random weights, saved as a weights file."""
    path = tmp_path_factory.mktemp("net") / "net5x4.npz"
    np.savez(path, **Network.random(5, 4, channels=4, blocks=1, seed=3).arrays())
    return path


def on_a_thread(n: int, plies: tuple[int, int], out: Path, **options: Any) -> DatasetReport:
    """``make_dataset`` on one thread of this process (no worker processes), no bar."""
    with ThreadPoolExecutor(1) as pool:
        return make_dataset(n, plies, out, executor=pool, progress=False, **options)


def test_games_are_replayed_positions_listed_last_first_each_once() -> None:
    net = Network.random(5, 4, channels=4, blocks=1, seed=3)
    sampling = GameSampling(temperature=1.0, opening=2)
    found = game_positions(60, (6, 12), 5, 4, seed=4, sampling=sampling, network=net)
    sample = found.sample
    assert len(sample) == 60 and sum(found.games) == 60
    again = game_positions(60, (6, 12), 5, 4, seed=4, sampling=sampling, network=net)
    assert (again.sample.moves, again.games) == (sample.moves, found.games)
    other = game_positions(60, (6, 12), 5, 4, seed=5, sampling=sampling, network=net)
    assert other.sample.moves != sample.moves
    positions = sample.positions()
    keys = [canonical_key(p.key(), 5, 4) for p in positions]
    assert len(set(keys)) == 60  # a position and its mirror image count once
    assert np.array_equal(sample.keys(), [p.key() for p in positions])
    for position in positions:
        assert 6 <= position.ply <= 12 and not position.is_over()
        assert not any(position.is_winning_move(c) for c in position.legal_moves())
    start = 0
    for size in found.games:  # one game: each position a prefix of the one before it
        game = sample.moves[start : start + size]
        assert all(len(a) > len(b) and a.startswith(b) for a, b in itertools.pairwise(game))
        start += size
    assert max(found.games) > 1


def test_game_labels_on_5x4_equal_an_exhaustive_search(tmp_path: Path, small_net: Path) -> None:
    sampling = GameSampling(network=str(small_net))
    data = on_a_thread(40, (8, 16), tmp_path / "g.npz", **SMALL, sampling=sampling).dataset
    naive = NaiveSolver(5, 4)
    check_rows(data, [naive.column_scores(columns_of(p)) for p in data.positions()])
    assert data.sampler.startswith("games:temperature=1,opening=4,net=")
    assert load_dataset(tmp_path / "g.npz").sampler == data.sampler


def test_game_labels_on_7x6_middle_plies_equal_the_plain_solver(tmp_path: Path) -> None:
    """The shipped network's games, plies 12-20, the default book: each label as a fresh
    solver's own analysis gives it, whatever the table the game order left behind."""
    report = on_a_thread(24, (12, 20), tmp_path / "m.npz", sampling=GameSampling())
    data = report.dataset
    assert data.book == "default" and set(data.ply.tolist()) <= set(range(12, 21))
    with Solver(book=load_book("default", 7, 6)) as solver:
        check_rows(data, [solver.analyze(p) for p in data.positions()])


def test_a_game_is_one_task_and_a_stopped_run_resumes_to_the_same_file(
    tmp_path: Path, small_net: Path
) -> None:
    sampling = GameSampling(network=str(small_net))
    games = game_positions(40, (4, 14), 5, 4, seed=0, sampling=sampling,
                           network=sampling.load(5, 4)).games  # fmt: skip
    out = tmp_path / "r.npz"
    with pytest.raises(JobInterrupted):  # tasks of one position each, were games cut
        on_a_thread(40, (4, 14), out, **SMALL, sampling=sampling, chunk=1, stop_after=2)
    assert journal_records(tmp_path / "r.npz.partial") == games[0] + games[1]
    report = on_a_thread(40, (4, 14), out, **SMALL, sampling=sampling, chunk=1, resume=True)
    assert (report.resumed, report.labelled) == (games[0] + games[1], 40 - games[0] - games[1])
    whole = on_a_thread(40, (4, 14), tmp_path / "w.npz", **SMALL, sampling=sampling).dataset
    for name, array in whole.arrays().items():
        assert np.array_equal(array, report.dataset.arrays()[name]), name


def test_a_journal_of_random_playouts_is_refused_for_games_before_any_game(
    tmp_path: Path, small_net: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.npz"
    with pytest.raises(JobInterrupted):
        on_a_thread(20, (4, 12), out, **SMALL, chunk=2, stop_after=1)

    def no_games(*args: object, **kwargs: object) -> None:
        raise AssertionError("games were played before the journal was checked")

    monkeypatch.setattr("connect4.envs.dataset.run.game_positions", no_games)
    with pytest.raises(JournalError, match=r"belongs to another dataset run \(other sampling\)"):
        on_a_thread(20, (4, 12), out, **SMALL, resume=True,
                    sampling=GameSampling(network=str(small_net)))  # fmt: skip


def test_sampling_settings_are_checked(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"temperature: must be in 0.05..100, not 0"):
        GameSampling(temperature=0)
    with pytest.raises(DatasetError, match="opening: must be 0 or more, not -1"):
        GameSampling(opening=-1)
    with pytest.raises(DatasetError, match="network: no network ships for 5x4"):
        GameSampling().load(5, 4)
    assert shipped_network().width == 7


def test_a_file_without_a_sampler_reads_as_random_playouts(tmp_path: Path) -> None:
    on_a_thread(10, (2, 6), tmp_path / "d.npz", **SMALL)
    with np.load(tmp_path / "d.npz") as found:
        arrays = {name: found[name] for name in found.files if name != "sampler"}
    np.savez(tmp_path / "old.npz", **arrays)
    assert load_dataset(tmp_path / "d.npz").sampler == "random"
    assert load_dataset(tmp_path / "old.npz").sampler == "random"


def test_cli_samples_games(tmp_path: Path, small_net: Path) -> None:
    out = tmp_path / "c.npz"
    args = ["dataset", "--positions", "30", "--plies", "6-12", "--width", "5", "--height", "4",
            "--sampler", "games", "--network", str(small_net), "--temperature", "0.5",
            "--opening", "2", "--workers", "1", "--out", str(out), "--json"]  # fmt: skip
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["positions"] == 30
    data = load_dataset(out)
    assert data.sampler.startswith("games:temperature=0.5,opening=2,net=")
    naive = NaiveSolver(5, 4)
    check_rows(data, [naive.column_scores(columns_of(p)) for p in data.positions()])


def test_cli_interrupted_while_labelling_games_resumes_to_the_same_file(
    tmp_path: Path, small_net: Path
) -> None:
    out = tmp_path / "k.npz"
    # 1,000 positions: about 2 s of labelling on a quiet machine, where 40 were done in
    # half a second, before the interrupt could land
    args = ["dataset", "--positions", "1000", "--plies", "8-16", "--width", "6", "--height", "5",
            "--book", "none", "--sampler", "games", "--network", str(tmp_path / "net.npz"),
            "--seed", "2", "--workers", "1", "--chunk", "1", "--out", str(out)]  # fmt: skip
    np.savez(tmp_path / "net.npz", **Network.random(6, 5, channels=4, blocks=1).arrays())
    journal = tmp_path / "k.npz.partial"
    done = interrupt_cli(args, lambda _: journal_records(journal) >= 3, group=True)
    assert done.returncode == 130 and "--resume" in done.stderr, done.stderr
    assert not out.exists() and journal.exists()
    resumed = run_cli(*args, "--resume", "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["from_journal"] >= 3
    assert summary["from_journal"] + summary["labelled"] == 1000
    assert run_cli(*args[:-1], str(tmp_path / "w.npz")).returncode == 0
    whole = load_dataset(tmp_path / "w.npz")
    for name, array in whole.arrays().items():
        assert np.array_equal(array, load_dataset(out).arrays()[name]), name
    assert not journal.exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--sampler", "games", "--temperature", "0"],
         "--temperature: must be in 0.05..100, not 0.0\n"),
        (["--sampler", "games", "--opening", "-2"], "--opening: must be 0 or more, not -2\n"),
        (["--temperature", "2"], "--temperature, --opening and --network set how games are "
         "played: give them with --sampler games\n"),
        (["--sampler", "best"], "--sampler: choose random or games, not 'best'\n"),
        (["--sampler", "games", "--width", "5", "--height", "4"],
         "--network: no network ships for 5x4"),
        (["--sampler", "games", "--network", "NOTNET"], "--network: "),
        (["--sampler", "games", "--network", "NET7", "--width", "5", "--height", "4"],
         "--network: NET7 plays 7x6, not 5x4\n"),
    ],
)  # fmt: skip
def test_cli_errors(tmp_path: Path, options: list[str], message: str) -> None:
    (tmp_path / "NOTNET").write_text("not a network\n")
    np.savez(tmp_path / "NET7.npz", **Network.random(7, 6, channels=4, blocks=1).arrays())
    (tmp_path / "NET7.npz").rename(tmp_path / "NET7")
    out = tmp_path / "e.npz"
    args = [str(tmp_path / o) if o in ("NOTNET", "NET7") else o for o in options]
    result = run_cli("dataset", "--positions", "5", "--out", str(out), "--workers", "1", *args)
    assert result.returncode == 2
    expected = message.replace("NET7", str(tmp_path / "NET7"))
    assert result.stderr.startswith("error: " + expected), result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1
    assert not out.exists() and not Path(f"{out}.partial").exists()
