"""Labelled positions (`connect4 dataset`): sampling, labels, arrays, resume, the CLI."""

from __future__ import annotations

import itertools
import json
import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from connect4.core.bits import canonical_key
from connect4.core.journal import JournalError
from connect4.core.position import Position
from connect4.core.processes import JobInterrupted
from connect4.envs.board import action_mask, planes
from connect4.envs.dataset import (
    ARRAYS,
    FULL,
    Dataset,
    DatasetError,
    DatasetReport,
    Sample,
    label,
    load_dataset,
    make_dataset,
    parse_plies,
    sample_positions,
)
from connect4.solver import Solver
from connect4.solver.book import load_book
from tests.cli_helpers import damage_journal_records, interrupt_cli, journal_records, run_cli
from tests.naive import NaiveSolver


def on_a_thread(n: int, plies: tuple[int, int], out: Path, **options: Any) -> DatasetReport:
    """``make_dataset`` on one thread of this process (no worker processes), no bar."""
    with ThreadPoolExecutor(1) as pool:
        return make_dataset(n, plies, out, executor=pool, progress=False, **options)


def build(n: int, plies: tuple[int, int], out: Path, **options: Any) -> Dataset:
    """The dataset :func:`on_a_thread` writes."""
    return on_a_thread(n, plies, out, **options).dataset


SMALL: dict[str, Any] = {"width": 5, "height": 4, "book": "none"}
"""A board the tests label quickly, without a book."""


def columns_of(position: Position) -> list[list[int]]:
    """The position as plain column lists (the naive solver's board)."""
    return [
        [position.cell(c, r) for r in range(position.heights[c])] for c in range(position.width)
    ]


def check_rows(data: Dataset, expected_scores: list[list[int | None]]) -> None:
    """Every array of every row against the position replayed from its move string."""
    assert len(data) == len(expected_scores)
    for i, (position, expected) in enumerate(zip(data.positions(), expected_scores, strict=True)):
        row = [FULL if s is None else s for s in expected]
        assert data.scores[i].tolist() == row, (data.moves[i], expected)
        best = max(s for s in expected if s is not None)
        assert int(data.value[i]) == best
        assert data.best[i].tolist() == [s == best for s in expected]
        assert np.array_equal(data.obs[i], planes(position, position.to_move))
        assert np.array_equal(data.action_mask[i], action_mask(position))
        assert data.action_mask[i].tolist() == [int(s is not None) for s in expected]
        assert int(data.ply[i]) == position.ply
        assert int(data.key[i]) == canonical_key(position.key(), data.width, data.height)
        assert not position.is_over()
    assert data.obs.dtype == np.int8 and data.scores.dtype == np.int8
    assert data.best.dtype == np.bool_ and data.action_mask.dtype == np.int8


# ---------------------------------------------------------------- labels
def test_labels_on_4x4_equal_an_exhaustive_search(tmp_path: Path) -> None:
    data = build(120, (0, 15), tmp_path / "d.npz", width=4, height=4, book="none")
    naive = NaiveSolver(4, 4)
    expected = [naive.column_scores(columns_of(p)) for p in data.positions()]
    check_rows(data, expected)
    assert any(None in row for row in expected)  # full columns are labelled too
    assert data.ply.max() >= 12


def test_labels_on_5x4_past_the_opening_equal_an_exhaustive_search(tmp_path: Path) -> None:
    data = build(60, (10, 19), tmp_path / "d.npz", width=5, height=4, book="none")
    naive = NaiveSolver(5, 4)
    check_rows(data, [naive.column_scores(columns_of(p)) for p in data.positions()])


def test_labels_on_7x6_equal_direct_solver_analysis(tmp_path: Path) -> None:
    late = build(40, (24, 41), tmp_path / "late.npz", book="none")
    solver = Solver()
    check_rows(late, [solver.analyze(p) for p in late.positions()])
    early = build(40, (0, 11), tmp_path / "early.npz")  # the default book inside the search
    assert early.book == "default"
    with Solver(book=load_book("default", 7, 6)) as booked:
        check_rows(early, [booked.analyze(p) for p in early.positions()])


def test_positions_with_an_immediate_win_are_kept_finished_games_never_drawn() -> None:
    sample = sample_positions(300, (7, 15), 4, 4, seed=5)
    positions = sample.positions()
    assert all(not p.is_over() for p in positions)
    assert any(any(p.is_winning_move(c) for c in p.legal_moves()) for p in positions)
    assert {p.ply for p in positions} == set(range(7, 16))


# ---------------------------------------------------------------- sampling
def test_mirror_images_count_once_and_small_ranges_are_exhausted() -> None:
    everything: set[int] = set()  # every canonical key with 0-2 stones, by brute force
    for ply in range(3):
        for sequence in itertools.product(range(7), repeat=ply):
            position = Position()
            for column in sequence:
                position.play(column)
            everything.add(min(position.key(), position.mirrored().key()))
    assert len(everything) == 1 + 4 + 25  # '44' is its own mirror image
    sample = sample_positions(30, (0, 2), seed=9)
    keys = [min(p.key(), p.mirrored().key()) for p in sample.positions()]
    assert sorted(keys) == sorted(everything)
    with pytest.raises(DatasetError, match=r"only 30 distinct positions with 0-2 stones"):
        sample_positions(31, (0, 2), seed=9)


def test_no_position_and_its_mirror_image_both_appear() -> None:
    sample = sample_positions(2000, (1, 6), 5, 4, seed=2)
    own = set(sample.keys().tolist())
    mirrors = {p.mirrored().key() for p in sample.positions() if p.mirrored() != p}
    assert len(own) == 2000
    assert not own & mirrors


def test_same_seed_same_arrays_other_seed_other_positions(tmp_path: Path) -> None:
    first = build(50, (4, 12), tmp_path / "a.npz", width=5, height=4, seed=7, book="none")
    again = build(50, (4, 12), tmp_path / "b.npz", width=5, height=4, seed=7, book="none")
    other = sample_positions(50, (4, 12), 5, 4, seed=8)
    for name, array in first.arrays().items():
        assert np.array_equal(array, again.arrays()[name]), name
    assert set(first.moves.tolist()) != set(other.moves)
    assert (tmp_path / "a.npz").read_bytes() != b""


def test_worker_processes_give_the_same_file_as_one_thread(tmp_path: Path) -> None:
    local = build(60, (2, 14), tmp_path / "one.npz", width=5, height=4, seed=3, book="none")
    report = make_dataset(
        60, (2, 14), tmp_path / "two.npz", width=5, height=4, seed=3, book="none",
        workers=2, chunk=7, progress=False,
    )  # fmt: skip
    two = load_dataset(tmp_path / "two.npz")
    assert report.labelled == 60
    for name, array in local.arrays().items():
        assert np.array_equal(array, two.arrays()[name]), name


def test_dask_cluster_gives_the_same_file(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    local = build(30, (3, 12), tmp_path / "local.npz", width=5, height=4, book="none")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        make_dataset(
            30, (3, 12), tmp_path / "dask.npz", width=5, height=4, book="none",
            scheduler=cluster.scheduler_address, chunk=4, progress=False,
        )  # fmt: skip
    dask = load_dataset(tmp_path / "dask.npz")
    for name, array in local.arrays().items():
        assert np.array_equal(array, dask.arrays()[name]), name


# ---------------------------------------------------------------- the file
def test_file_holds_the_arrays_and_metadata(tmp_path: Path) -> None:
    out = tmp_path / "d.npz"
    build(25, (3, 9), out, width=6, height=5, seed=4)
    with np.load(out, allow_pickle=False) as raw:
        assert raw["obs"].shape == (25, 5, 6, 2)
        assert raw["scores"].shape == raw["best"].shape == raw["action_mask"].shape == (25, 6)
        assert raw["value"].shape == raw["ply"].shape == raw["moves"].shape == (25,)
        assert (int(raw["width"]), int(raw["height"]), str(raw["rules"])) == (6, 5, "standard")
        assert (int(raw["seed"]), raw["plies"].tolist(), str(raw["book"])) == (4, [3, 9], "default")
        assert int(raw["full"]) == FULL == -128
        assert str(raw["version"]) and int(raw["format"]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.npz"]  # no journal, no temporary


def test_load_names_what_is_wrong(tmp_path: Path) -> None:
    text = tmp_path / "t.npz"
    text.write_text("not a zip")
    with pytest.raises(DatasetError, match=r"cannot read .*t.npz as a dataset"):
        load_dataset(text)
    good = tmp_path / "g.npz"
    label(sample_positions(2, (3, 5), 4, 4), [(0, 0, 0, 0), (1, 1, 1, -128)]).save(good)
    data = good.read_bytes()
    torn = tmp_path / "c.npz"
    torn.write_bytes(data[: len(data) // 2])  # what a writer without the rename could leave
    with pytest.raises(DatasetError, match=r"cannot read .*c.npz as a dataset"):
        load_dataset(torn)
    other = tmp_path / "o.npz"
    np.savez(other, obs=np.zeros(3))
    with pytest.raises(DatasetError, match=r"o.npz is not a labelled dataset: no action_mask"):
        load_dataset(other)


def test_label_needs_positions() -> None:
    empty = np.zeros(0, dtype=np.uint64)
    with pytest.raises(DatasetError, match="no positions to label"):
        label(Sample(4, 4, [], empty, empty), [])


# ---------------------------------------------------------------- resume
def test_interrupted_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    out = tmp_path / "r.npz"
    with pytest.raises(JobInterrupted, match="resuming continues"):
        on_a_thread(30, (4, 12), out, **SMALL, chunk=4, stop_after=2)
    journal = tmp_path / "r.npz.partial"
    assert journal.exists() and not out.exists()
    assert journal_records(journal) == 8
    report = on_a_thread(30, (4, 12), out, **SMALL, chunk=4, resume=True)
    assert (report.resumed, report.labelled) == (8, 22)
    whole = build(30, (4, 12), tmp_path / "w.npz", width=5, height=4, book="none")
    for name, array in whole.arrays().items():
        assert np.array_equal(array, report.dataset.arrays()[name]), name
    assert not journal.exists()


def test_damaged_journal_records_are_labelled_again_and_counted(tmp_path: Path) -> None:
    """A flipped score byte in the journal would be a wrong label: its checksum fails, the
    record is dropped and labelled again, and the summary counts it."""
    out = tmp_path / "d.npz"
    with pytest.raises(JobInterrupted):
        on_a_thread(30, (4, 12), out, **SMALL, chunk=4, stop_after=3)
    journal = tmp_path / "d.npz.partial"
    assert journal_records(journal) == 12
    damage_journal_records(journal, [1, 6, 11], at=8 + 2)  # the third column's score
    args = ["dataset", "--positions", "30", "--plies", "4-12", "--width", "5", "--height", "4",
            "--book", "none", "--workers", "1", "--chunk", "4", "--out", str(out)]  # fmt: skip
    resumed = run_cli(*args, "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["damaged_journal_records"] == 3
    assert (summary["from_journal"], summary["labelled"]) == (9, 21)
    whole = build(30, (4, 12), tmp_path / "w.npz", width=5, height=4, book="none")
    for name, array in whole.arrays().items():
        assert np.array_equal(array, load_dataset(out).arrays()[name]), name


def test_resume_refuses_another_runs_journal_and_a_run_refuses_an_unfinished_one(
    tmp_path: Path,
) -> None:
    out = tmp_path / "r.npz"
    with pytest.raises(JobInterrupted):
        on_a_thread(20, (4, 12), out, **SMALL, chunk=2, stop_after=1)
    for n, plies, seed in [(20, (4, 12), 1), (21, (4, 12), 0), (20, (4, 11), 0)]:
        other = r"belongs to another dataset run \((plies|positions|seed) "
        with pytest.raises(JournalError, match=other):
            make_dataset(
                n, plies, out, width=5, height=4, book="none", seed=seed, resume=True,
                progress=False,
            )  # fmt: skip
    with pytest.raises(JournalError, match="holds an unfinished dataset run: give resume=True"):
        make_dataset(20, (4, 12), out, width=5, height=4, book="none", progress=False)
    with pytest.raises(JournalError, match=r"unfinished dataset run with other settings \(seed"):
        make_dataset(20, (4, 12), out, width=5, height=4, book="none", seed=3, progress=False)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_cli_killed_mid_run_resumes_to_the_uninterrupted_file(tmp_path: Path, how: int) -> None:
    out = tmp_path / "k.npz"
    # 400 positions: enough labelling left after the third record on a quiet machine (40
    # were done a tenth of a second after it, a race with the interrupt)
    args = ["dataset", "--positions", "400", "--plies", "6-12", "--width", "6", "--height", "5",
            "--book", "none", "--seed", "11", "--workers", "1", "--chunk", "1",
            "--out", str(out)]  # fmt: skip
    journal = tmp_path / "k.npz.partial"
    # to the process group, as a terminal's Ctrl-C: the workers are signalled too
    done = interrupt_cli(args, lambda _: journal_records(journal) >= 3, how=how, group=True)
    assert not out.exists()
    assert journal.exists()
    if how == signal.SIGINT:
        assert done.returncode == 130
        assert "interrupted" in done.stderr and "--resume" in done.stderr
    resumed = run_cli(*args, "--resume", "--json", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["from_journal"] >= 3
    assert summary["from_journal"] + summary["labelled"] == summary["positions"] == 400
    whole = build(400, (6, 12), tmp_path / "w.npz", width=6, height=5, book="none", seed=11)
    for name, array in whole.arrays().items():
        assert np.array_equal(array, load_dataset(out).arrays()[name]), name
    assert not journal.exists()


# ---------------------------------------------------------------- the command line
def test_plies_are_parsed_and_checked() -> None:
    assert parse_plies("3-3") == (3, 3)
    assert parse_plies(" 0-41 ") == (0, 41)
    for text, message in [
        ("5-2", "the range 5-2 runs backwards (write 2-5)"),
        ("x", "must be a range such as 0-30 (or one ply), not 'x'"),
        ("-3", "must be a range such as 0-30"),
        ("1-2-3", "must be a range such as 0-30"),
        ("0-42", "0-42: a 7x6 position that is not over holds at most 41 stones"),
    ]:
        with pytest.raises(DatasetError) as caught:
            parse_plies(text)
        assert caught.value.setting == "plies"
        assert caught.value.detail.startswith(message)


def test_dataset_config_is_checked_when_made_and_bounds_the_arrays(tmp_path: Path) -> None:
    from connect4.envs.dataset import MAX_DATASET_BYTES, DatasetConfig, arrays_bytes

    assert DatasetConfig(10, None, 5, 4).plies == (0, 19)
    cases = [
        (dict(positions=0), "positions", "must be at least 1, not 0"),
        (dict(positions=5, chunk=0), "chunk", "must be at least 1, not 0"),
        (dict(positions=5, workers=0), "workers", "must be at least 1, not 0"),
        (dict(positions=5, seed=-1), "seed", "must be in 0..9223372036854775807, not -1"),
        (dict(positions=5, plies=(3, 2)), "plies", "3-2 is not a range of a 7x6 board"),
        (dict(positions=10**12), "positions", "(at most 7,669,350 positions)"),
        (dict(positions=9_500_000, plies=(0, 30)), "positions", "with up to 30 stones take"),
    ]  # fmt: skip
    for settings, setting, message in cases:
        with pytest.raises(DatasetError) as caught:
            DatasetConfig(**settings)  # type: ignore[arg-type]
        assert caught.value.setting == setting and message in caught.value.detail, settings
    most = (MAX_DATASET_BYTES - (1 << 16)) // arrays_bytes(1, 7, 6, 41)
    assert DatasetConfig(most).positions == most
    with pytest.raises(DatasetError, match="positions: 7,669,351 positions"):
        DatasetConfig(most + 1)
    # the estimate is what the arrays take (the longest move string sets the strings' width)
    data = build(40, (3, 9), tmp_path / "a.npz", width=5, height=4, book="none")
    held = sum(data.arrays()[name].nbytes for name in ARRAYS)
    longest = max(len(str(m)) for m in data.moves)
    assert held == arrays_bytes(40, 5, 4, longest)


def test_cli_writes_a_dataset_and_reports_it(tmp_path: Path) -> None:
    out = tmp_path / "c.npz"
    args = ["dataset", "--positions", "30", "--plies", "2-10", "--width", "5", "--height", "4"]
    result = run_cli(*args, "--out", str(out), "--workers", "1", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["positions"], summary["labelled"], summary["from_journal"]) == (30, 30, 0)
    assert summary["bytes"] == out.stat().st_size
    data = load_dataset(out)
    assert len(data) == 30 and data.plies == (2, 10)
    text = run_cli(*args, "--out", str(tmp_path / "t.npz"), "--workers", "1")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[-1].startswith(f"wrote {tmp_path / 't.npz'}: 30 positions")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--plies", "5-2"], "--plies: the range 5-2 runs backwards (write 2-5)\n"),
        (["--plies", "x"], "--plies: must be a range such as 0-30 (or one ply), not 'x'\n"),
        (["--plies", "0-50"],
         "--plies: 0-50: a 7x6 position that is not over holds at most 41 stones\n"),
        (["--rules", "count-fours"],
         "--rules: the solver handles the standard rules only: count-fours positions cannot be "
         "labelled\n"),
        (["--rules", "odd"], "--rules: unknown rules 'odd': choose standard or count-fours\n"),
        (["--width", "1", "--height", "64"],
         "the solver handles columns of up to 62 cells, not 64\n"),
        (["--width", "12", "--height", "10"],
         "board 12x10 is too large: width*(height+1) = 132 must be <= 128\n"),
        (["--width", "0", "--plies", "0-3"],
         "board 0x6 is invalid: width and height must be >= 1\n"),
        (["--book", "bitbully:12-ply"],
         "book bitbully:12-ply holds win/draw/loss signs only, not the exact scores the solver "
         "needs\n"),
        (["--plies", "0-2", "--positions", "40"],
         "--positions: only 30 distinct positions with 0-2 stones"),
        (["--positions", "8000000"],
         "--positions: 8,000,000 positions of a 7x6 board with up to 41 stones take "
         "2,240,000,000 bytes of arrays, over the 2,147,483,648 a dataset holds (at most "
         "7,669,350 positions)\n"),
        (["--positions", "0"], "--positions: must be at least 1, not 0\n"),
        (["--out", "no/such/folder/d.npz"],
         "cannot write dataset no/such/folder/d.npz: the folder no/such/folder does not exist\n"),
        pytest.param(
            ["--scheduler", "tcp://127.0.0.1:9"], "--scheduler: cannot reach the Dask scheduler at tcp://127.0",
            marks=pytest.mark.slow,  # the client waits 10 s for the scheduler
        ),
    ],
)  # fmt: skip
def test_cli_errors(tmp_path: Path, options: list[str], message: str) -> None:
    out = tmp_path / "e.npz"
    base = ["--positions", "5", "--out", str(out), "--workers", "1"]
    merged = dict(zip(base[::2], base[1::2], strict=True)) | dict(
        zip(options[::2], options[1::2], strict=True)
    )
    result = run_cli("dataset", *itertools.chain.from_iterable(merged.items()))
    assert result.returncode == 2
    assert result.stderr.startswith("error: " + message), result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_a_book_of_another_board(tmp_path: Path) -> None:
    from connect4.solver.book.reader import data_book_path

    book = data_book_path(6, 5)
    assert book is not None
    out = tmp_path / "b.npz"
    result = run_cli(
        "dataset", "--positions", "5", "--width", "5", "--height", "4", "--book", str(book),
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"error: book {book} is for 6x5 boards, not the 5x4 board being labelled\n"
    )


# ---------------------------------------------------------------- the output policy
def test_dataset_refuses_an_existing_out_unless_forced_and_a_foreign_one_on_resume(
    tmp_path: Path,
) -> None:
    args = ("dataset", "--positions", "5", "--width", "5", "--height", "4", "--book", "none",
            "--workers", "1", "--json")  # fmt: skip
    out = tmp_path / "d.npz"
    text = b"not a dataset\n" * 10
    out.write_bytes(text)
    refused = run_cli(*args, "--out", str(out))
    assert refused.returncode == 2 and out.read_bytes() == text
    assert "it already exists (140 bytes); give --force to replace it, --resume" in refused.stderr
    foreign = run_cli(*args, "--out", str(out), "--resume")
    assert foreign.returncode == 2 and out.read_bytes() == text
    assert "it is not a dataset file of connect4 dataset" in foreign.stderr
    link = tmp_path / "link.npz"
    link.symlink_to(out)
    linked = run_cli(*args, "--out", str(link))
    assert linked.returncode == 2 and "is a symbolic link to" in linked.stderr
    assert out.read_bytes() == text
    forced = run_cli(*args, "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(load_dataset(out)) == 5
    resumed = run_cli(*args, "--out", str(out), "--resume")  # its own file: made again
    assert resumed.returncode == 0, resumed.stderr
    assert len(load_dataset(out)) == 5
