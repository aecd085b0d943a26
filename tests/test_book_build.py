"""The book builder: exact entries, resume after an interruption, a Dask cluster build."""

from __future__ import annotations

import itertools
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from connect4.core.errors import IllegalMoveError
from connect4.core.position import Position
from connect4.solver.book.build import (
    BuildInterrupted,
    build_book,
    enumerate_levels,
    solve_chunk,
)
from connect4.solver.book.format import Book, BookError, canonical_key
from tests.cli_helpers import run_cli


def reference_scores(width: int, height: int, plies: int) -> dict[int, int]:
    """Every book position solved on its own, without any book."""
    scores: dict[int, int] = {}
    for level in enumerate_levels(width, height, plies):
        for key, score, _ in solve_chunk(width, height, list(level.values()), None):
            scores[key] = score
    return scores


def test_levels_skip_finished_games_and_immediate_wins() -> None:
    levels = enumerate_levels(4, 4, 6)
    # brute force over every move sequence: the same positions, mirror images merged
    for ply, level in enumerate(levels):
        expected: set[int] = set()
        for sequence in itertools.product(range(4), repeat=ply):
            position = Position(4, 4)
            try:
                for column in sequence:
                    position.play(column)
            except IllegalMoveError:
                continue
            if not position.is_over() and not any(
                position.is_winning_move(c) for c in position.legal_moves()
            ):
                expected.add(canonical_key(position))
        assert set(level) == expected
    assert [len(level) for level in levels] == [1, 2, 8, 26, 82, 218, 524]
    for level in levels:
        for moves in level.values():
            position = Position.from_moves(moves, 4, 4)
            assert not position.is_over()
            assert not any(position.is_winning_move(c) for c in position.legal_moves())


def test_local_build_is_exact(tmp_path: Path) -> None:
    out = tmp_path / "b.c4book"
    with ThreadPoolExecutor(2) as pool:
        report = build_book(5, 4, 5, out, executor=pool, progress=False, chunk=16)
    book = Book.load(out)
    assert (book.width, book.height, book.plies) == (5, 4, 5)
    assert report.solved == len(book) == 785
    assert not out.with_name("b.c4book.partial").exists()
    expected = reference_scores(5, 4, 5)
    assert dict(zip(book.keys.tolist(), book.values.tolist(), strict=True)) == expected
    assert book.lookup(Position(5, 4)) == expected[0]


def test_process_pool_build_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.c4book"
    with pytest.raises(BuildInterrupted, match="resume with --resume"):
        build_book(5, 4, 5, out, workers=2, progress=False, chunk=32, stop_after=3)
    journal = tmp_path / "r.c4book.partial"
    assert journal.exists() and not out.exists()
    done = (journal.stat().st_size - 24) // 16
    assert done >= 3 * 32
    with journal.open("ab") as file:  # a record torn by the interruption
        file.write(b"\x01\x02\x03")
    report = build_book(5, 4, 5, out, workers=2, progress=False, chunk=32, resume=True)
    assert report.resumed == done
    assert report.solved == 785 - done
    with ThreadPoolExecutor(1) as pool:
        build_book(5, 4, 5, tmp_path / "full.c4book", executor=pool, progress=False)
    full = Book.load(tmp_path / "full.c4book")
    resumed = Book.load(out)
    assert np.array_equal(full.keys, resumed.keys)
    assert np.array_equal(full.values, resumed.values)


def test_resume_refuses_another_builds_journal(tmp_path: Path) -> None:
    out = tmp_path / "x.c4book"
    with pytest.raises(BuildInterrupted):
        build_book(
            4, 4, 4, out, executor=ThreadPoolExecutor(1), progress=False, chunk=4, stop_after=1
        )
    with pytest.raises(BookError, match="belongs to another build"):
        build_book(4, 4, 5, out, executor=ThreadPoolExecutor(1), progress=False, resume=True)


def test_dask_local_cluster_build_equals_local_build(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with ThreadPoolExecutor(1) as pool:
        build_book(5, 4, 4, tmp_path / "local.c4book", executor=pool, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        build_book(
            5,
            4,
            4,
            tmp_path / "dask.c4book",
            scheduler=cluster.scheduler_address,
            progress=False,
            chunk=16,
        )
    local = Book.load(tmp_path / "local.c4book")
    dask = Book.load(tmp_path / "dask.c4book")
    assert len(local) == 243
    assert np.array_equal(local.keys, dask.keys)
    assert np.array_equal(local.values, dask.values)


def test_cli_build_and_info(tmp_path: Path) -> None:
    out = tmp_path / "cli.c4book"
    result = run_cli(
        "book",
        "build",
        "--width",
        "4",
        "--height",
        "4",
        "--plies",
        "3",
        "--out",
        str(out),
        "--workers",
        "1",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["entries"] == 37
    info = run_cli("book", "info", str(out), "--json")
    assert json.loads(info.stdout)["entries_per_ply"] == {"0": 1, "1": 2, "2": 8, "3": 26}
    text = run_cli("book", "info", str(out))
    assert "entries      37 (exact scores" in text.stdout
    bad = run_cli("book", "info", str(tmp_path / "none.c4book"))
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: cannot read book")
    big = run_cli("book", "build", "--width", "9", "--height", "7", "--out", str(out))
    assert big.returncode == 2
    assert "error: board 9x7 is too large" in big.stderr
