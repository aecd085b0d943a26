"""Files in and out: inputs checked before reading, outputs before work, atomic writes."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from connect4.core import files
from connect4.core.files import (
    FileError,
    atomic_write,
    check_output,
    read_input_bytes,
    read_lines,
)
from connect4.solver.book.table import Book
from tests.cli_helpers import (
    check_existing_output_refused,
    run_cli,
)


# ---------------------------------------------------------------- inputs
@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_inputs_that_are_not_regular_files_are_refused(tmp_path: Path, fifo: Path) -> None:
    cases = [
        ("/dev/zero", "is a device, not a file"),
        (tmp_path, "is a folder, not a file"),
        (fifo, r"is a FIFO \(named pipe\), not a file"),
        (tmp_path / "missing", "does not exist"),
    ]
    for path, message in cases:
        with pytest.raises(FileError, match=f"^moves {path} {message}$"):
            read_input_bytes(path, what="moves", max_bytes=100)


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse"
    with sparse.open("wb") as file:
        file.truncate(4 << 30)
    with pytest.raises(FileError, match=r"too large: 4,294,967,296 bytes, at most 1,000"):
        read_input_bytes(sparse, what="data", max_bytes=1000)


def test_lines_are_bounded_and_named(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"44\n" + b"4" * 100 + b"\n")
    with pytest.raises(FileError, match=r"in\.txt line 2 is longer than 50 bytes"):
        list(read_lines(path, what="moves", max_line_bytes=50))
    path.write_bytes(b"44\n\xff\xfe\n")
    with pytest.raises(FileError, match=r"line 2 is not UTF-8 text"):
        list(read_lines(path, what="moves"))
    path.write_bytes(b"44\r\n55")
    assert list(read_lines(path, what="moves")) == [(1, "44"), (2, "55")]


# ---------------------------------------------------------------- outputs
def test_output_targets_are_checked_before_work(tmp_path: Path, fifo: Path) -> None:
    cases = [
        ("/dev/full", "it is a device, not a file"),
        (fifo, r"it is a FIFO \(named pipe\), not a file"),
        (tmp_path, "it is a folder, not a file"),
        (tmp_path / "no" / "x", f"the folder {tmp_path / 'no'} does not exist"),
    ]
    for path, message in cases:
        with pytest.raises(FileError, match=f"^cannot write book {path}: {message}$"):
            check_output(path, what="book")
    assert not (tmp_path / "no").exists()
    with pytest.raises(FileError, match=r"the suffix \.txt is not a known format \(use one of"):
        files.plot_target(tmp_path / "x.txt")
    with pytest.raises(FileError, match="the name has no suffix naming a known format"):
        files.plot_target(tmp_path / "plot")
    assert files.plot_target(tmp_path / "x.SVG") == tmp_path / "x.SVG"


def test_a_symlinked_output_is_replaced_and_never_written_through(tmp_path: Path) -> None:
    real, link = tmp_path / "real.txt", tmp_path / "link.txt"
    real.write_bytes(b"precious")
    link.symlink_to(real)
    atomic_write(link, b"one", what="notes")
    assert not link.is_symlink() and link.read_bytes() == b"one"
    assert real.read_bytes() == b"precious"
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere.txt")
    atomic_write(dangling, b"two", what="notes")
    assert dangling.read_bytes() == b"two" and not (tmp_path / "nowhere.txt").exists()
    device = tmp_path / "full"
    device.symlink_to("/dev/full")  # the link is replaced: /dev/full is never opened
    atomic_write(device, b"x", what="notes")
    assert not device.is_symlink() and device.read_bytes() == b"x"


def test_a_full_disk_names_the_file_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "book.c4book"
    path.write_bytes(b"old")

    def full(file: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(FileError, match=f"^cannot write book {path}: No space left on device$"):
        atomic_write(path, full, what="book")
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.c4book"]
    monkeypatch.setattr(os, "fsync", lambda fd: full(fd))
    with pytest.raises(FileError, match="No space left on device"):
        atomic_write(path, b"new", what="book")
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.c4book"]


def test_a_write_error_from_the_device_is_named(tmp_path: Path) -> None:
    expected = r"^cannot write notes /dev/full: No space left on device$"
    with (
        pytest.raises(FileError, match=expected),
        files.file_errors("/dev/full", "notes"),
        open("/dev/full", "wb") as out,
    ):
        out.write(b"x" * 10)


# ---------------------------------------------------------------- commands
def test_commands_refuse_endless_and_blocking_inputs(tmp_path: Path, fifo: Path) -> None:
    for args in (
        ["review", "--results", "/dev/zero", "--game", "0"],
        ["book", "info", "/dev/zero"],
        ["review", "--results", str(fifo), "--game", "0"],
        ["book", "info", str(fifo)],
        ["book", "verify", str(tmp_path)],
    ):
        result = run_cli(*args, timeout=60)
        assert result.returncode == 2, args
        assert result.stderr.startswith("error: "), (args, result.stderr)
        assert "not a file" in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_commands_refuse_bad_output_targets_before_any_work(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    note = tmp_path / "note.txt"
    note.write_text("kept\n")
    lab = ["lab", "--depths", "1-2", "--no-perfect", "--games", "1", "--out"]
    cases = [
        (["book", "build", "--width", "5", "--height", "4", "--plies", "12", "--out"],
         "/dev/full", "it is a device, not a file"),
        (["book", "build", "--width", "5", "--height", "4", "--plies", "12", "--out"],
         str(folder), "it is a folder, not a file"),
        (["dataset", "--positions", "100000", "--width", "5", "--height", "4", "--out"],
         "/dev/full", "it is a device, not a file"),
        (["arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe", "--results"],
         str(tmp_path / "nonexistent" / "x.jsonl"), "does not exist"),
        (["arena", "-p", "random", "-p", "random:seed=1", "--game", "tictactoe", "--csv"],
         str(folder), "it is a folder, not a file"),
        (["review", "4455", "--plot"], str(tmp_path / "x.txt"), "not a known format"),
        (["review", "4455", "--plot"], str(folder), "no suffix naming a known format"),
        (["analyze", "44", "--plot"], str(tmp_path / "x.txt"), "not a known format"),
        (lab, "/dev/full", "it is a device, not a folder"),
        (lab, str(tmp_path / "nonexistent" / "lab"), "does not exist"),
        (lab, str(note), "it is a file, not a folder"),
    ]  # fmt: skip
    for args, target, message in cases:
        result = run_cli(*args, target, timeout=60)  # refused before the work (minutes)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert "cannot write" in result.stderr and target in result.stderr
    assert not (tmp_path / "nonexistent").exists()
    assert Path("/dev/full").is_char_device()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.txt", "out"]
    assert list(folder.iterdir()) == [] and note.read_text() == "kept\n"


def test_plot_is_written_in_the_format_its_suffix_names(tmp_path: Path) -> None:
    svg = tmp_path / "review.svg"
    result = run_cli("review", "4455", "--plot", str(svg))
    assert result.returncode == 0, result.stderr
    assert svg.read_bytes().lstrip().startswith(b"<?xml")
    assert f"plot written to {svg}" in result.stdout


# ---------------------------------------------------------------- book verify
def test_book_verify_finds_every_wrong_score(tmp_path: Path) -> None:
    out = tmp_path / "b.c4book"
    built = run_cli(
        "book", "build", "--width", "4", "--height", "4", "--plies", "3", "--out", str(out),
        "--workers", "1", "--json",
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    good = run_cli("book", "verify", str(out), "--all")
    assert good.returncode == 0, good.stderr
    assert "entries re-solved, all agree" in good.stdout
    book = Book.load(out)
    values = book.values.copy()
    values[[2, 5]] += 1  # within bounds: the checksum and contents checks cannot see it
    Book(4, 4, 3, book.keys, values).save(out)
    bad = run_cli("book", "verify", str(out), "--all", "--json")
    assert bad.returncode == 1
    report = json.loads(bad.stdout)
    assert [d["index"] for d in report["disagreements"]] == [2, 5]
    assert all(d["stored"] == d["solved"] + 1 for d in report["disagreements"])
    sampled = run_cli("book", "verify", str(out), "--sample", "3")
    assert sampled.returncode in (0, 1) and "3 of" in sampled.stdout
    both = run_cli("book", "verify", str(out), "--sample", "3", "--all")
    assert both.returncode == 2 and "not both" in both.stderr


# ---------------------------------------------------------------- the output policy
def test_the_output_policy_refuses_existing_files_and_links_unless_asked(tmp_path: Path) -> None:
    mine, empty = tmp_path / "mine.txt", tmp_path / "empty.txt"
    mine.write_bytes(b"mine")
    empty.write_bytes(b"")
    assert check_output(empty, what="notes") == empty  # nothing in it to lose
    with pytest.raises(FileError, match=r"it already exists \(4 bytes\); give force=True"):
        check_output(mine, what="notes")
    assert check_output(mine, what="notes", force=True) == mine

    def ours(file: object) -> str | None:
        return None

    def foreign(file: object) -> str | None:
        return "its first line is not ours"

    assert check_output(mine, what="notes", resume=True, ours=ours) == mine
    with pytest.raises(FileError, match=r"^cannot continue notes .*: its first line is not ours"):
        check_output(mine, what="notes", resume=True, ours=foreign)
    with pytest.raises(FileError, match="not both"):
        check_output(mine, what="notes", force=True, resume=True, ours=ours)
    link = tmp_path / "link.txt"
    link.symlink_to(mine)
    for resume in (False, True):
        with pytest.raises(FileError, match=f"it is a symbolic link to {mine}"):
            check_output(link, what="notes", resume=resume, ours=ours)
    with pytest.raises(FileError, match="give force=True to replace the link"):
        check_output(link, what="notes", ours=ours)
    assert check_output(link, what="notes", force=True) == link  # the link, not its file
    assert mine.read_bytes() == b"mine" and link.is_symlink()
    error = FileError("x: give {force} or {resume}", options=("force", "resume"))
    assert error.worded(lambda option: "--" + option) == "x: give --force or --resume"


def test_an_existing_plot_is_refused_untouched_and_replaced_with_force(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "mine.png"
    plot.write_bytes(b"my holiday photo")
    args = ("analyze", "44", "--max-depth", "1", "--plot", str(plot))
    check_existing_output_refused(args, plot, "plot")
    forced = run_cli(*args, "--force")
    assert forced.returncode == 0, forced.stderr
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_input_messages_say_what_is_wrong(tmp_path: Path) -> None:
    empty = run_cli("book", "info", "")
    assert empty.returncode == 2
    assert empty.stderr == "error: no file name given for the book\n"
    device = run_cli("arena", "-p", "kaggle:/dev/zero", "-p", "random", "--games-per-pair", "1")
    assert device.returncode == 2
    assert "kaggle: agent file /dev/zero is a device, not a file" in device.stderr
