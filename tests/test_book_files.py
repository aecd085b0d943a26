"""Hostile ``.c4book`` files: a valid checksum over impossible contents is still refused."""

from __future__ import annotations

import json
import struct
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from connect4.core.position import Position
from connect4.solver.book.format import MAGIC, BookError
from connect4.solver.book.table import Book
from tests.cli_helpers import run_cli

HEADER = struct.Struct("<8sHBBBBHQQ")


def image(
    keys: list[int],
    values: list[int],
    *,
    width: int = 6,
    height: int = 5,
    plies: int = 4,
    flags: int = 0,
    meta: bytes = b'{"source": "test"}',
    count: int | None = None,
    raw: bytes | None = None,
    payload: bytes | None = None,
) -> bytes:
    """A ``.c4book`` image with a valid CRC, whatever it holds."""
    if raw is None:
        deltas = np.diff(np.array(keys, dtype=np.uint64), prepend=np.uint64(0)).astype("<u8")
        planes = deltas.view(np.uint8).reshape(-1, 8).T.tobytes()
        raw = planes + np.array(values, dtype=np.int8).tobytes()
    if payload is None:
        payload = zlib.compress(raw)
    header = HEADER.pack(
        MAGIC, 1, width, height, plies, flags, len(meta), len(keys) if count is None else count,
        len(payload),
    )  # fmt: skip
    crc = zlib.crc32(payload, zlib.crc32(meta, zlib.crc32(header)))
    return header + struct.pack("<I", crc) + meta + payload


def key(moves: str, width: int = 6, height: int = 5) -> int:
    position = Position.from_moves(moves, width, height)
    return min(position.key(), position.mirrored().key())


def write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "bad.c4book"
    path.write_bytes(data)
    return path


def test_the_crafting_helper_makes_loadable_books(tmp_path: Path) -> None:
    keys = sorted([key(""), key("3"), key("34")])
    book = Book.load(write(tmp_path, image(keys, [0, -1, 1])))
    assert book.lookup(Position.from_moves("34", 6, 5)) is not None
    assert len(book) == 3


@pytest.mark.parametrize("score", [100, -16, 16, 127])
def test_scores_out_of_range_for_the_board(tmp_path: Path, score: int) -> None:
    pairs = sorted([(key(""), 0), (key("3"), score)])
    path = write(tmp_path, image([k for k, _ in pairs], [s for _, s in pairs]))
    match = (
        rf"bad.c4book is corrupted: entry \d \(a position with [01] stones?\) has score {score}, "
    )
    with pytest.raises(BookError, match=match + "outside"):
        Book.load(path)


def test_scores_bounded_by_the_stones_already_played(tmp_path: Path) -> None:
    # 6x5, 10 stones played: the side to move wins at best with its 11th stone, score 10
    moves = "1234561234"
    path = write(tmp_path, image([key(moves)], [11], plies=10))
    with pytest.raises(BookError, match=r"10 stones\) has score 11, outside \[-10, 10\]"):
        Book.load(path)
    assert len(Book.load(write(tmp_path, image([key(moves)], [10], plies=10)))) == 1


def test_win_draw_loss_books_hold_signs_only(tmp_path: Path) -> None:
    path = write(tmp_path, image([key("")], [2], flags=1))
    with pytest.raises(BookError, match=r"score 2, outside \[-1, 1\] for a win/draw/loss book"):
        Book.load(path)


def test_unsorted_keys(tmp_path: Path) -> None:
    keys = [key("34"), key("3")]
    assert keys[0] > keys[1]
    with pytest.raises(BookError, match=r"keys are not sorted and unique: entry 1 \(key \d+\)"):
        Book.load(write(tmp_path, image(keys, [0, 0])))


def test_duplicate_keys(tmp_path: Path) -> None:
    keys = [key("3"), key("3")]
    with pytest.raises(BookError, match="keys are not sorted and unique"):
        Book.load(write(tmp_path, image(keys, [0, 0])))


def test_keys_that_are_not_positions_of_the_board(tmp_path: Path) -> None:
    outside = 1 << (6 * 6)  # past the last column of a 6x5 board
    with pytest.raises(BookError, match=f"key {outside} is not a position of a 6x5 board"):
        Book.load(write(tmp_path, image([outside], [0])))
    overfull = 0b111111  # a column value of all ones: more stones than the column holds
    with pytest.raises(BookError, match=f"key {overfull} is not a position of a 6x5 board"):
        Book.load(write(tmp_path, image([overfull], [0])))


def test_keys_deeper_than_the_book(tmp_path: Path) -> None:
    with pytest.raises(BookError, match=r"entry 0 holds 3 stones, more than the book's depth 2"):
        Book.load(write(tmp_path, image([key("344")], [0], plies=2)))


def test_keys_that_are_not_canonical(tmp_path: Path) -> None:
    position = Position.from_moves("6", 6, 5)
    assert position.key() > position.mirrored().key()
    with pytest.raises(BookError, match=r"key \d+ is not canonical"):
        Book.load(write(tmp_path, image([position.key()], [0])))


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (b"[1, 2, 3]", "metadata is a JSON array, not an object"),
        (b'"text"', "metadata is a JSON string, not an object"),
        (b"{not json", "metadata is not JSON"),
        (b'{"source": 5}', "metadata field 'source' is a number, not a string"),
        (b'{"solver_nodes": "many"}', "metadata field 'solver_nodes' is a string, not an integer"),
        (b'{"solver_nodes": true}', "metadata field 'solver_nodes' is a boolean, not an integer"),
        (b"\xff\xfe", "metadata is not UTF-8"),
    ],
)
def test_metadata_must_be_an_object_with_typed_fields(
    tmp_path: Path, meta: bytes, message: str
) -> None:
    path = write(tmp_path, image([key("")], [0], meta=meta))
    with pytest.raises(BookError, match=f"bad.c4book is corrupted: {message}"):
        Book.load(path)


def test_unknown_flags(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="unknown flags 0x0c"):
        Book.load(write(tmp_path, image([key("")], [0], flags=13)))


def test_a_payload_that_inflates_past_the_header_is_stopped_early(tmp_path: Path) -> None:
    bomb = zlib.compress(bytes(900_000), 9)  # 900 KB of zeros in under 1 KB
    path = write(tmp_path, image([key("")], [0], payload=bomb))
    tracemalloc.start()
    try:
        with pytest.raises(
            BookError, match=r"payload inflates to more than the 9 bytes its 1 entry needs"
        ):
            Book.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 256 << 10  # never inflated the 900 KB


def test_a_header_claiming_more_entries_than_its_payload_can_hold_is_refused(
    tmp_path: Path,
) -> None:
    """A small file whose valid header and checksum claim 100 million entries (a zlib
    bomb: 900 MB of zeros in 875 KB) made ``book info`` use 3.5 GB before it was
    found corrupted; the header alone now refuses it."""
    bomb = zlib.compress(bytes(9 << 20), 9)  # 9 MB in ~9 KB: 1 million entries claimed
    path = write(tmp_path, image([key("")], [0], payload=bomb, count=1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(BookError, match=r"entries cannot fit in \d+ compressed bytes"):
            Book.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_a_payload_larger_than_its_entries_need_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, image([key("")], [0], payload=bytes(4 << 20)))
    with pytest.raises(BookError, match="compressed bytes are more than the header's 1 entries"):
        Book.load(path)


def test_a_header_claiming_more_entries_than_the_payload_can_hold(tmp_path: Path) -> None:
    path = write(tmp_path, image([key("")], [0], count=10**12))
    with pytest.raises(BookError, match=r"the header's 1000000000000 entries cannot fit"):
        Book.load(path)


def test_short_payload_and_trailing_data(tmp_path: Path) -> None:
    good = zlib.compress(bytes(9))
    with pytest.raises(BookError, match=r"payload holds 9 bytes, not 18"):
        Book.load(write(tmp_path, image([key(""), key("3")], [0, 0], payload=good)))
    with pytest.raises(BookError, match="data after the end of the compressed payload"):
        Book.load(write(tmp_path, image([key("")], [0], payload=good + b"extra")))
    with pytest.raises(BookError, match="compressed payload is cut short"):
        Book.load(write(tmp_path, image([key("")], [0], payload=good[:-4])))


def test_shipped_books_pass_the_checks() -> None:
    from connect4.solver.book.reader import data_book_path

    for width, height in ((6, 5), (7, 6)):
        path = data_book_path(width, height)
        assert path is not None
        book = Book.load(path)
        score_range = book.info().score_range
        assert score_range is not None and score_range[1] <= (width * height + 1) // 2


def test_position_from_key_round_trips() -> None:
    from connect4.solver.book.table import position_from_key

    for moves in ("", "4", "4455", "1234567", "44444", "3211"):
        position = Position.from_moves(moves)
        again = position_from_key(position.key(), 7, 6)
        assert again.key() == position.key()
        assert again.ply == position.ply
    finished = Position.from_moves("4545454")  # over: no book holds it
    with pytest.raises(BookError, match="not a position reachable"):
        position_from_key(finished.key(), 7, 6)


@pytest.mark.parametrize(
    ("craft", "message"),
    [
        (lambda: image([key(""), key("3")], [0, 100]), "score 100, outside"),
        (lambda: image([key("34"), key("3")], [0, 0]), "keys are not sorted and unique"),
        (lambda: image([key("")], [0], meta=b"[1, 2]"), "metadata is a JSON array"),
    ],
)
def test_cli_info_names_the_problem_without_a_traceback(
    tmp_path: Path, craft: object, message: str
) -> None:
    assert callable(craft)
    path = write(tmp_path, craft())
    result = run_cli("book", "info", str(path))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {path} is corrupted: ")
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    as_json = run_cli("book", "info", str(path), "--json")
    assert as_json.returncode == 2 and message in as_json.stderr


def test_cli_info_of_a_good_book_still_reports_checksum_ok(tmp_path: Path) -> None:
    path = write(tmp_path, image(sorted([key(""), key("3")]), [0, -1]))
    result = run_cli("book", "info", str(path))
    assert result.returncode == 0, result.stderr
    assert "checksum and contents ok" in result.stdout
    info = json.loads(run_cli("book", "info", str(path), "--json").stdout)
    assert info["entries"] == 2


def test_a_truncated_book_is_said_to_be_truncated_with_its_size(tmp_path: Path) -> None:
    path = tmp_path / "cut.c4book"
    path.write_bytes(MAGIC + bytes(12))
    with pytest.raises(
        BookError, match=r"is truncated: 20 bytes, shorter than the \d+-byte header"
    ):
        Book.load(path)
    result = run_cli("book", "info", str(path))
    assert result.returncode == 2 and "is truncated: 20 bytes" in result.stderr


# ---------------------------------------------------------------- the one loader's policy
def test_a_damaged_default_book_is_left_out_once_and_a_named_one_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped book damaged: every door (the loader, the shared solver, the perfect
    player) goes on without it and stderr says so once. The same file named explicitly
    is an error naming it."""
    from connect4.players.perfect import PerfectEngine
    from connect4.solver import solver_for
    from connect4.solver.book import load_book, reader

    broken = tmp_path / "book_6x5.c4book"
    broken.write_bytes(b"not a book at all")
    monkeypatch.setattr(reader, "data_book_path", lambda width, height: broken)
    monkeypatch.setattr(reader, "_unusable", {})
    reader._default_book.cache_clear()
    try:
        assert load_book("default", 6, 5, exact=True) is None
        solver = solver_for(6, 5, tt_megabytes=3)  # a key no other test uses: made here
        assert solver.solve(Position.from_moves("33333", 6, 5)) == 0
        assert PerfectEngine(6, 5).book is None
        err = capsys.readouterr().err.splitlines()
        notes = [line for line in err if "compiling" not in line]  # a cold kernel says so
        assert len(notes) == 1 and notes[0].startswith(
            "connect4: the 6x5 board's shipped opening book cannot be used ("
        )
        assert "solving without it" in notes[0] and str(broken) in notes[0]
        with pytest.raises(BookError, match=f"^{broken} is not a connect4 book file"):
            load_book(broken, 6, 5, exact=True)
        with pytest.raises(BookError, match=r"^book nowhere\.c4book does not exist"):
            load_book("nowhere.c4book", 6, 5)
    finally:
        reader._default_book.cache_clear()


def test_a_default_book_that_does_not_ship_is_no_book_without_a_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from connect4.solver.book import load_book

    assert load_book("default", 5, 4, exact=True) is None
    assert capsys.readouterr().err == ""


BUILD = "book build --out {out} --width 5 --height 4 --plies 3 --base-book {bad}"
DATASET = "dataset --positions 5 --plies 2-4 --width 5 --height 4 --book {bad} --out {out}"


@pytest.mark.parametrize(
    "command",
    ["book info {bad}", "book verify {bad}", BUILD, DATASET],
    ids=["book info", "book verify", "book build --base-book", "dataset --book"],
)
def test_a_named_book_that_cannot_be_read_is_a_one_line_error(tmp_path: Path, command: str) -> None:
    """Every option that names a book: a damaged file is refused in one line, exit 2."""
    bad = tmp_path / "damaged.c4book"
    bad.write_bytes(image([1], [0])[:-3])  # cut short
    out = tmp_path / "out.file"
    result = run_cli(*command.format(bad=bad, out=out).split())
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"error: {bad} is truncated or padded: {len(image([1], [0])) - 3} bytes, the header "
        f"says {len(image([1], [0]))}"
    ]
    assert not out.exists()
