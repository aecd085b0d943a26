"""The book builder: exact entries, resume after an interruption, a Dask cluster build."""

from __future__ import annotations

import itertools
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from connect4.core.errors import IllegalMoveError
from connect4.core.journal import JournalError
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.solver.book.build import (
    BaseBookCheck,
    BuildConfig,
    BuildInterrupted,
    Journal,
    build_book,
    enumerate_levels,
    solve_chunk,
    spot_check,
)
from connect4.solver.book.format import BookError
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.table import Book
from tests.cli_helpers import (
    check_existing_output_refused,
    damage_journal_records,
    journal_records,
    run_cli,
)


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
        report = build_book(BuildConfig(5, 4, 5, chunk=16), out, executor=pool, progress=False)
    book = Book.load(out)
    assert (book.width, book.height, book.plies) == (5, 4, 5)
    assert report.solved == len(book) == 785
    assert not out.with_name("b.c4book.partial").exists()
    expected = reference_scores(5, 4, 5)
    assert dict(zip(book.keys.tolist(), book.values.tolist(), strict=True)) == expected
    assert book.lookup(Position(5, 4)) == expected[0]


def test_process_pool_build_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.c4book"
    with pytest.raises(BuildInterrupted, match=r"resuming continues from .*r.c4book.partial"):
        build_book(BuildConfig(5, 4, 5, workers=2, chunk=32), out, progress=False, stop_after=3)
    journal = tmp_path / "r.c4book.partial"
    assert journal.exists() and not out.exists()
    done = journal_records(journal)
    assert done >= 3 * 32
    report = build_book(BuildConfig(5, 4, 5, workers=2, chunk=32), out, progress=False, resume=True)
    assert report.resumed == done
    assert report.damaged == 0
    assert report.solved == 785 - done
    assert not journal.exists()
    with ThreadPoolExecutor(1) as pool:
        build_book(BuildConfig(5, 4, 5), tmp_path / "full.c4book", executor=pool, progress=False)
    full = Book.load(tmp_path / "full.c4book")
    resumed = Book.load(out)
    assert np.array_equal(full.keys, resumed.keys)
    assert np.array_equal(full.values, resumed.values)


def test_damaged_journal_records_are_recomputed_not_trusted(tmp_path: Path) -> None:
    out = tmp_path / "d.c4book"
    with pytest.raises(BuildInterrupted):
        build_book(BuildConfig(5, 4, 5, chunk=32), out, executor=ThreadPoolExecutor(1),
                   progress=False, stop_after=6)  # fmt: skip
    journal = tmp_path / "d.c4book.partial"
    records = journal_records(journal)
    hit = sorted({3, 17, 40, records - 1})
    damage_journal_records(journal, hit, at=8)  # the score: unchecked, it would be wrong
    result = run_cli(
        "book", "build", "--width", "5", "--height", "4", "--plies", "5", "--out", str(out),
        "--workers", "1", "--resume", "--base-book", "none",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"{len(hit)} damaged journal records recomputed" in result.stdout
    with ThreadPoolExecutor(1) as pool:
        build_book(BuildConfig(5, 4, 5), tmp_path / "clean.c4book", executor=pool, progress=False)
    clean, resumed = Book.load(tmp_path / "clean.c4book"), Book.load(out)
    assert np.array_equal(clean.keys, resumed.keys)
    assert np.array_equal(clean.values, resumed.values)


def test_resume_refuses_another_builds_journal(tmp_path: Path) -> None:
    out = tmp_path / "x.c4book"
    with pytest.raises(BuildInterrupted):
        build_book(
            BuildConfig(4, 4, 4, chunk=4),
            out,
            executor=ThreadPoolExecutor(1),
            progress=False,
            stop_after=1,
        )
    with pytest.raises(JournalError, match=r"belongs to another build \(plies 4 there, 5 here"):
        build_book(
            BuildConfig(4, 4, 5), out, executor=ThreadPoolExecutor(1), progress=False, resume=True
        )


def test_dask_local_cluster_build_equals_local_build(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with ThreadPoolExecutor(1) as pool:
        build_book(BuildConfig(5, 4, 4), tmp_path / "local.c4book", executor=pool, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        build_book(
            BuildConfig(5, 4, 4, scheduler=cluster.scheduler_address, chunk=16),
            tmp_path / "dask.c4book",
            progress=False,
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
    assert bad.stderr == f"error: book {tmp_path / 'none.c4book'} does not exist\n"
    tall = run_cli("book", "build", "--width", "1", "--height", "64", "--out", str(out))
    assert tall.returncode == 2
    assert tall.stderr == "error: the solver handles columns of up to 62 cells, not 64\n"


# ---------------------------------------------------------------- base books
def base_book_file(tmp_path: Path, name: str, entries: int, wrong: int | None = None) -> Path:
    """A 5x4 book of ``entries`` positions with 4 stones, exact (or one ``wrong`` score)."""
    level = list(enumerate_levels(5, 4, 4)[4].values())[:entries]
    results = solve_chunk(5, 4, level, None)
    keys = np.array([k for k, _, _ in results], dtype=np.uint64)
    values = np.array([s for _, s, _ in results], dtype=np.int8)
    if wrong is not None:
        values[wrong] = 1 if values[wrong] != 1 else 0
    path = tmp_path / name
    Book.from_arrays(5, 4, 4, keys, values, meta={"source": "test"}).save(path)
    return path


def leftovers(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("base"))


def shipped_6x5() -> str:
    from connect4.solver.book.reader import data_book_path

    path = data_book_path(6, 5)
    assert path is not None
    return str(path)


def test_base_book_of_another_board_size_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "m.c4book"
    with pytest.raises(
        BookError, match=r"base book .*book_6x5.c4book is for 6x5 boards, not the 5x4 board"
    ):
        build_book(BuildConfig(5, 4, 3, base_book=shipped_6x5(), workers=1), out, progress=False)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(("width", "height"), [(5, 4), (7, 6)])
def test_cli_refuses_a_base_book_of_another_board_size(
    tmp_path: Path, width: int, height: int
) -> None:
    out = tmp_path / "m.c4book"
    result = run_cli(
        "book", "build", "--width", str(width), "--height", str(height), "--plies", "3",
        "--base-book", shipped_6x5(), "--out", str(out), "--workers", "1",
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.startswith("error: base book ")
    assert f"is for 6x5 boards, not the {width}x{height} board being built" in result.stderr
    assert "Traceback" not in result.stderr
    assert leftovers(tmp_path) == []


def test_base_books_of_another_format_kind_or_rules_or_too_shallow_are_refused(
    tmp_path: Path,
) -> None:
    position = Position.from_moves("3333", 5, 4)
    wdl = tmp_path / "base-wdl.c4book"
    Book.from_scores(5, 4, 4, {position: 0}, wdl=True).save(wdl)
    rules = tmp_path / "base-rules.c4book"
    Book.from_scores(5, 4, 4, {position: 0}, meta={"rules": "count-fours"}).save(rules)
    shallow = tmp_path / "base-shallow.c4book"
    Book.from_scores(5, 4, 3, {Position.from_moves("333", 5, 4): 0}).save(shallow)
    version = tmp_path / "base-version.c4book"
    data = bytearray(Book.from_scores(5, 4, 4, {position: 0}).to_bytes())
    data[8:10] = (3).to_bytes(2, "little")
    version.write_bytes(bytes(data))
    out = tmp_path / "m.c4book"
    with pytest.raises(
        BookError, match=f"{version} has book format version 3; this reader knows 1 and 2"
    ):
        build_book(BuildConfig(5, 4, 3, base_book=str(version), workers=1), out, progress=False)
    cases = [
        (wdl, "holds win/draw/loss signs only, not the exact scores the solver needs"),
        (rules, "is for count-fours rules; the solver handles the standard rules only"),
        (shallow, "holds positions with up to 3 stones, no deeper than the build's 3 plies"),
    ]
    for path, message in cases:
        prefix = "base book: " if path == shallow else "base book "
        with pytest.raises(BookError, match=f"{prefix}{path} {message}"):
            build_book(BuildConfig(5, 4, 3, base_book=str(path), workers=1), out, progress=False)
    assert leftovers(tmp_path) == []


def test_a_base_book_with_a_wrong_score_stops_the_build(tmp_path: Path) -> None:
    base = base_book_file(tmp_path, "base.c4book", 12, wrong=5)
    out = tmp_path / "m.c4book"
    with pytest.raises(
        BookError, match=r"base book: .*base.c4book is wrong: it gives the position"
    ):
        build_book(BuildConfig(5, 4, 3, base_book=str(base), workers=1), out, progress=False)
    assert leftovers(tmp_path) == []
    result = run_cli(
        "book", "build", "--width", "5", "--height", "4", "--plies", "3",
        "--base-book", str(base), "--out", str(out), "--workers", "1",
    )  # fmt: skip
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    match = re.fullmatch(
        rf'error: --base-book: {re.escape(str(base))} is wrong: it gives the position "\d+" '
        r"\(5x4\) the score (-?\d+), the solver finds (-?\d+); give a correct book, "
        r"or none\n",
        result.stderr,
    )
    assert match is not None, result.stderr
    assert match[1] != match[2]
    assert leftovers(tmp_path) == []


def test_a_correct_base_book_is_spot_checked_and_used(tmp_path: Path) -> None:
    base = base_book_file(tmp_path, "base.c4book", 12)
    out = tmp_path / "m.c4book"
    report = build_book(BuildConfig(5, 4, 3, base_book=str(base), workers=1), out, progress=False)
    assert report.base_check is not None
    assert (report.base_check.checked, report.base_check.entries) == (12, 12)
    assert report.base_check.summary() == (
        "base book: 12 of 12 entries with more than 3 stones checked with the solver, all agree"
    )
    expected = reference_scores(5, 4, 3)
    book = Book.load(out)
    assert dict(zip(book.keys.tolist(), book.values.tolist(), strict=True)) == expected
    assert book.meta["rules"] == "standard"


def test_cli_prints_the_spot_check_of_a_large_base_book(tmp_path: Path) -> None:
    scores = reference_scores(5, 4, 5)
    base = tmp_path / "base.c4book"
    Book.from_arrays(
        5, 4, 5, np.array(list(scores), dtype=np.uint64),
        np.array(list(scores.values()), dtype=np.int8),
    ).save(base)  # fmt: skip
    out = tmp_path / "m.c4book"
    args = ["book", "build", "--width", "5", "--height", "4", "--plies", "3", "--workers", "1"]
    result = run_cli(*args, "--base-book", str(base), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert (
        "base book: 32 of 719 entries with more than 3 stones checked with the solver, all agree"
        in result.stdout
    )
    summary = json.loads(
        run_cli(
            *args, "--base-book", str(base), "--out", str(tmp_path / "j.c4book"), "--json"
        ).stdout
    )
    assert summary["base_book_check"] == {
        "entries": 719,
        "checked": 32,
        "skipped": 0,
        "deeper_than": 3,
    }


def test_a_corrupt_base_book_leaves_nothing_behind(tmp_path: Path) -> None:
    base = base_book_file(tmp_path, "base.c4book", 12)
    data = bytearray(base.read_bytes())
    data[-3] ^= 0x40
    base.write_bytes(bytes(data))
    out = tmp_path / "m.c4book"
    args = ["book", "build", "--width", "5", "--height", "4", "--plies", "3", "--workers", "1"]
    for _ in range(2):  # the second run names the same problem, not a journal
        result = run_cli(*args, "--base-book", str(base), "--out", str(out))
        assert result.returncode == 2
        assert result.stderr == (
            f"error: {base} is corrupted: checksum mismatch "
            + result.stderr.split("checksum mismatch ")[1]
        )
        assert "unfinished build" not in result.stderr
        assert leftovers(tmp_path) == []


def test_a_journal_without_positions_is_not_an_unfinished_build(tmp_path: Path) -> None:
    out = tmp_path / "m.c4book"
    journal = tmp_path / "m.c4book.partial"
    Journal(journal, 4, 4, 2).on_disk().open(resume=False).close()
    assert journal_records(journal) == 0
    result = run_cli(
        "book", "build", "--width", "4", "--height", "4", "--plies", "2", "--out", str(out),
        "--workers", "1", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["entries"] == 11
    assert leftovers(tmp_path) == ["m.c4book"]


def test_spot_check_counts_entries_it_cannot_settle_and_books_with_nothing_to_probe() -> None:
    scores = reference_scores(5, 4, 5)
    book = Book.from_arrays(
        5, 4, 5, np.array(list(scores), dtype=np.uint64),
        np.array(list(scores.values()), dtype=np.int8),
    )  # fmt: skip
    unsettled = spot_check(book, "b", deeper_than=0, limit=Limit(nodes=1))
    assert (unsettled.checked, unsettled.skipped) == (0, 64)
    assert unsettled.summary().startswith("base book: none of 784 entries with more than 0")
    small = spot_check(book, "b", deeper_than=5)
    assert small == BaseBookCheck(0, 0, 0, 5)
    assert "nothing for the build to probe" in small.summary()
    quick = spot_check(book, "b", deeper_than=3, entries=5)
    assert (quick.entries, quick.checked) == (719, 5)
    assert quick == spot_check(book, "b", deeper_than=3, entries=5)  # the same sample each run


def test_resume_refuses_a_journal_built_with_another_base_book(tmp_path: Path) -> None:
    base = tmp_path / "base.c4book"
    with ThreadPoolExecutor(1) as pool:
        build_book(BuildConfig(4, 4, 3, base_book="none"), base, executor=pool, progress=False)
    out = tmp_path / "y.c4book"
    with pytest.raises(BuildInterrupted), ThreadPoolExecutor(1) as pool:
        build_book(
            BuildConfig(4, 4, 2, chunk=1, base_book=str(base)),
            out,
            executor=pool,
            progress=False,
            stop_after=1,
        )
    for other in ("none", "default"):  # the journal's scores came from another base book
        with (
            pytest.raises(JournalError, match=r"belongs to another build \(base book \""),
            ThreadPoolExecutor(1) as pool,
        ):
            build_book(
                BuildConfig(4, 4, 2, base_book=other),
                out,
                executor=pool,
                progress=False,
                resume=True,
            )
    with ThreadPoolExecutor(1) as pool:  # the same base book resumes
        report = build_book(
            BuildConfig(4, 4, 2, base_book=str(base)),
            out,
            executor=pool,
            progress=False,
            resume=True,
        )
    assert report.resumed >= 1


def test_build_config_is_checked_when_made_and_names_the_setting() -> None:
    cases = [
        (dict(width=7, height=6, plies=12), "plies", "a 7x6 book of 12 plies may list up to "
         "21,970,537 positions, over the limit of 16,000,000 (at most 11 plies on this board)"),
        (dict(width=4, height=4, plies=17), "plies", "must be 0-16 on a 4x4 board, not 17"),
        (dict(width=4, height=4, plies=-1), "plies", "must be 0-16 on a 4x4 board, not -1"),
        (dict(chunk=0), "chunk", "must be at least 1, not 0"),
        (dict(workers=0), "workers", "must be at least 1, not 0"),
        (dict(plies=6, max_positions=1000), "plies", "(at most 3 plies on this board)"),
    ]  # fmt: skip
    for settings, setting, message in cases:
        with pytest.raises(BookError) as caught:
            BuildConfig(**settings)  # type: ignore[arg-type]
        assert caught.value.setting == setting and message in caught.value.detail, settings
    assert BuildConfig(7, 6, 11).plies == 11  # the deepest 7x6 build allowed
    with pytest.raises(BookError, match="at most 11 plies"):
        enumerate_levels(7, 6, 12)  # the listing itself is bounded


def test_cli_refuses_a_build_over_the_limit_up_front(tmp_path: Path) -> None:
    out = tmp_path / "big.c4book"
    result = run_cli("book", "build", "--plies", "12", "--out", str(out), timeout=60)
    assert result.returncode == 2
    assert result.stderr == (
        "error: --plies: a 7x6 book of 12 plies may list up to 21,970,537 positions, over the "
        "limit of 16,000,000 (at most 11 plies on this board)\n"
    )
    assert leftovers(tmp_path) == []


def test_an_unfinished_journal_is_never_replaced_without_resume(tmp_path: Path) -> None:
    out = tmp_path / "u.c4book"
    config = BuildConfig(4, 4, 4, chunk=4, base_book="none")
    with pytest.raises(BuildInterrupted), ThreadPoolExecutor(1) as pool:
        build_book(config, out, executor=pool, progress=False, stop_after=2)
    journal = tmp_path / "u.c4book.partial"
    before = journal.read_bytes()
    with pytest.raises(JournalError) as caught, ThreadPoolExecutor(1) as pool:
        build_book(config, out, executor=pool, progress=False)
    assert str(caught.value) == (
        f"{journal} holds an unfinished build: give resume=True to continue it, or force=True "
        "to start over"
    )
    assert journal.read_bytes() == before
    args = ["book", "build", "--width", "4", "--height", "4", "--plies", "4", "--out", str(out)]
    result = run_cli(*args, "--workers", "1")
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {journal} holds an unfinished build: give --resume to continue it, or --force "
        "to start over\n"
    )
    assert journal.read_bytes() == before
    forced = run_cli(*args, "--workers", "1", "--base-book", "none", "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["from_journal"] == 0 and not journal.exists()


def test_a_file_in_the_journals_place_is_refused_unless_forced(tmp_path: Path) -> None:
    """Not a journal (a user's notes named OUT.partial): refused and left as it was, where
    the builder once replaced it without a word."""
    out, journal = tmp_path / "n.c4book", tmp_path / "n.c4book.partial"
    journal.write_bytes(b"my notes\n")
    args = ["book", "build", "--width", "4", "--height", "4", "--plies", "2", "--out", str(out),
            "--workers", "1", "--base-book", "none"]  # fmt: skip
    for extra in ((), ("--resume",)):
        refused = run_cli(*args, *extra)
        assert refused.returncode == 2
        assert refused.stderr == (
            f"error: {journal} is not a journal of connect4 (not an SQLite database): give "
            "--force to replace it, or delete it\n"
        )
        assert journal.read_bytes() == b"my notes\n" and not out.exists()
    forced = run_cli(*args, "--force")
    assert forced.returncode == 0, forced.stderr
    assert Book.load(out).plies == 2 and not journal.exists()


# ---------------------------------------------------------------- the output policy
SMALL_BUILD = ("book", "build", "--width", "4", "--height", "4", "--plies", "2",
               "--workers", "1", "--base-book", "none", "--json")  # fmt: skip


def test_book_build_refuses_an_existing_out_unless_forced_and_a_foreign_one_on_resume(
    tmp_path: Path,
) -> None:
    out = tmp_path / "notes.c4book"
    text = b"a user's notes\n" * 140
    out.write_bytes(text)
    foreign = "it is not a connect4 book file (bad magic bytes)"
    check_existing_output_refused((*SMALL_BUILD, "--out", str(out)), out, "book", foreign=foreign)
    assert not out.with_name(out.name + ".partial").exists()
    forced = run_cli(*SMALL_BUILD, "--out", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert Book.load(out).plies == 2
    resumed = run_cli(*SMALL_BUILD, "--out", str(out), "--resume")  # its own book: rebuilt
    assert resumed.returncode == 0, resumed.stderr
    assert Book.load(out).plies == 2


def test_book_build_refuses_a_symlinked_out_and_leaves_its_target(tmp_path: Path) -> None:
    target, link = tmp_path / "precious.txt", tmp_path / "link.c4book"
    target.write_bytes(b"precious\n")
    link.symlink_to(target)
    refused = run_cli(*SMALL_BUILD, "--out", str(link))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"error: cannot write book {link}: it is a symbolic link to {target}; give --force "
        f"to replace the link ({target} is left as it is), or name that file itself\n"
    )
    assert target.read_bytes() == b"precious\n" and link.is_symlink()
    forced = run_cli(*SMALL_BUILD, "--out", str(link), "--force")
    assert forced.returncode == 0, forced.stderr
    assert not link.is_symlink() and Book.load(link).plies == 2
    assert target.read_bytes() == b"precious\n"


def test_the_journal_keeps_node_counts_past_32_bits_and_reads_old_records(
    tmp_path: Path,
) -> None:
    """Nodes were kept in 32 bits (saturated at 4,294,967,295): a position of 2**40
    nodes comes back whole, and a record of the old layout still reads."""
    import struct

    from connect4.solver.book.build import Journal

    for width, height in ((5, 4), (9, 8)):  # one word, two words
        path = tmp_path / f"{width}x{height}.c4book.partial"
        journal = Journal(path, width, height, plies=2)
        journal.open(resume=False)
        journal.append([(7, 3, 1 << 40)])
        assert journal.file is not None
        old = struct.pack("<QbxxxI", 9, -1, 2**32 - 1)
        if width * (height + 1) > 64:
            old = struct.pack("<QQbxxxI", 9 | 1 << 63, 1, -1, 2**32 - 1)
        journal.file.append([old])
        journal.close()
        again = Journal(path, width, height, plies=2)
        again.open(resume=True)
        again.close()
        old_key = 9 if width * (height + 1) <= 64 else (9 | 1 << 63) | 1 << 64
        assert again.scores == {7: 3, old_key: -1}
        assert again.nodes == (1 << 40) + 2**32 - 1 and again.damaged == 0
