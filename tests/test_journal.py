"""The journal of resumable jobs: records kept, damaged ones re-done, other files refused."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from connect4.core.files import FileError
from connect4.core.journal import Journal, JournalError, journal_path
from tests.cli_helpers import damage_journal_records, journal_records

IDENTITY = {"width": 5, "height": 4, "plies": 6, "base": 0}


def journal(path: Path, **changes: object) -> Journal:
    return Journal(path, "build", {**IDENTITY, **changes})


def test_records_come_back_in_order_after_a_close(tmp_path: Path) -> None:
    path = journal_path(tmp_path / "b.c4book")
    with journal(path).open(resume=False) as first:
        first.append([b"a", b"bb"])
        first.append([])
        first.append([b"\x00" * 16])
    assert journal_records(path) == 3
    with journal(path).open(resume=True) as again:
        assert list(again.records()) == [b"a", b"bb", b"\x00" * 16]
        assert again.damaged == 0 and again.count() == 3
        again.append([b"c"])
    with journal(path).open(resume=True) as third:
        assert list(third.records())[-1] == b"c"
    third.remove()
    assert sorted(os.listdir(tmp_path)) == []


def test_a_missing_journal_is_started_on_resume_and_an_empty_file_replaced(
    tmp_path: Path,
) -> None:
    path = tmp_path / "out.partial"
    with journal(path).open(resume=True) as started:
        assert list(started.records()) == []
    path.unlink()
    path.write_bytes(b"")  # nothing to lose
    with journal(path).open(resume=False) as started:
        started.append([b"x"])
    assert journal_records(path) == 1


def test_damaged_records_are_dropped_counted_and_never_trusted(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    with journal(path).open(resume=False) as first:
        first.append([bytes([n]) * 8 for n in range(10)])
    damage_journal_records(path, [2, 7], at=3)
    with journal(path).open(resume=True) as again:
        kept = list(again.records())
        assert again.damaged == 2
    assert kept == [bytes([n]) * 8 for n in range(10) if n not in (2, 7)]
    with journal(path).open(resume=True) as third:  # dropped for good: done again, then kept
        assert third.damaged == 0 and third.count() == 8


def test_bytes_damaged_in_the_file_itself_are_caught_by_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    marker = b"MARKER-0123456789"
    with journal(path).open(resume=False) as first:
        first.append([b"plain record", marker])
    data = bytearray(path.read_bytes())  # closed: the log is folded into the file
    at = data.index(marker) + 7
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    with journal(path).open(resume=True) as again:
        assert list(again.records()) == [b"plain record"]
        assert again.damaged == 1


def test_a_journal_of_another_job_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    with journal(path).open(resume=False) as first:
        first.append([b"x"])
    before = path.read_bytes()
    with pytest.raises(JournalError) as caught:
        journal(path, plies=7).open(resume=True)
    assert str(caught.value) == (
        f"{path} belongs to another build (plies 6 there, 7 here): resume with the same "
        "settings, or give force=True instead of resume=True to start over"
    )
    with pytest.raises(JournalError, match=r"another tournament \(a build, not a tournament"):
        Journal(path, "tournament", IDENTITY).open(resume=True)
    with pytest.raises(JournalError, match="holds an unfinished build with other settings"):
        journal(path, plies=7).open(resume=False)
    assert path.read_bytes() == before
    with journal(path, plies=7).open(resume=False, force=True) as forced:
        assert forced.count() == 0


def test_an_unfinished_journal_needs_resume_or_force(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    with journal(path).open(resume=False) as first:
        first.append([b"x"])
    with pytest.raises(JournalError) as caught:
        journal(path).open(resume=False)
    assert caught.value.worded(lambda option: "--" + option) == (
        f"{path} holds an unfinished build: give --resume to continue it, or --force to start over"
    )
    assert journal_records(path) == 1
    with journal(path).open(resume=False, force=True) as forced:
        assert forced.count() == 0
    with journal(path).open(resume=False) as empty:  # a journal holding nothing: replaced
        assert empty.count() == 0


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"a user's notes\n" * 40, "not an SQLite database"),
        (b"\n", "not an SQLite database"),  # SQLite itself takes it for a new database
        (bytes(4096), "not an SQLite database"),
        (None, "an SQLite database of another program"),
    ],
)
def test_a_file_that_is_not_a_journal_is_refused_untouched_unless_forced(
    tmp_path: Path, content: bytes | None, why: str
) -> None:
    path = tmp_path / "out.partial"
    if content is None:  # someone else's database
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (text TEXT)")
            db.execute("INSERT INTO notes VALUES ('mine')")
        db.close()
    else:
        path.write_bytes(content)
    before = path.read_bytes()
    for resume in (False, True):
        with pytest.raises(JournalError) as caught:
            journal(path).open(resume=resume)
        assert caught.value.worded(lambda option: "--" + option) == (
            f"{path} is not a journal of connect4 ({why}): give --force to replace it, or delete it"
        )
        assert path.read_bytes() == before
        assert sorted(os.listdir(tmp_path)) == ["out.partial"]
    with journal(path).open(resume=False, force=True) as forced:
        forced.append([b"x"])
    assert journal_records(path) == 1


def test_a_database_sqlite_finds_damaged_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    with journal(path).open(resume=False) as first:
        first.append([bytes(200)] * 100)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for at in range(page, len(data)):  # every page after the first: the tables
        data[at] = 0xA5
    path.write_bytes(bytes(data))
    with pytest.raises(JournalError) as caught:
        journal(path).open(resume=True)
    message = caught.value.worded(lambda option: "--" + option)
    assert message.startswith(f"journal {path} is damaged (")
    assert message.endswith("): give --force to start over, or delete it")
    with journal(path).open(resume=False, force=True) as forced:
        assert forced.count() == 0


def test_a_folder_in_the_journals_place_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    path.mkdir()
    with pytest.raises(FileError, match="it is a folder, not a file"):
        journal(path).open(resume=True)


WRITER = textwrap.dedent(
    """
    import sys
    from connect4.core.journal import Journal
    journal = Journal(sys.argv[1], "build", {"width": 5, "height": 4, "plies": 6, "base": 0})
    journal.open(resume=False)
    n = 0
    while True:
        journal.append([n.to_bytes(4, "little") * 4 for n in range(n, n + 8)])
        n += 8
        print(n, flush=True)
    """
)


def test_a_writer_killed_with_sigkill_loses_only_the_batch_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "out.partial"
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        committed = 0
        deadline = time.monotonic() + 60
        while committed < 400 and time.monotonic() < deadline:
            committed = int(process.stdout.readline() or 0)
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert committed >= 400
    with journal(path).open(resume=True) as again:
        records = list(again.records())
        assert again.damaged == 0
    assert len(records) >= committed and len(records) % 8 == 0  # whole batches only
    assert records == [n.to_bytes(4, "little") * 4 for n in range(len(records))]


def test_a_journal_in_use_by_another_run_is_refused_even_with_force(tmp_path: Path) -> None:
    """Two runs of one job on one output would both do the work and race to the output:
    the second is refused while the first holds the journal, with force too (it must
    not delete what the first is writing), and may go on once the first has closed it."""
    path = journal_path(tmp_path / "b.c4book")
    first = journal(path).open(resume=False)
    first.append([b"kept"])
    for resume, force in ((True, False), (False, True), (False, False)):
        with pytest.raises(JournalError, match="in use by another run"):
            journal(path).check(resume=resume, force=force)
        with pytest.raises(JournalError, match="in use by another run"):
            journal(path).open(resume=resume, force=force)
    first.append([b"still"])
    assert journal_records(path) == 2
    first.close()
    with journal(path).open(resume=True) as second:
        assert list(second.records()) == [b"kept", b"still"]
    assert sorted(os.listdir(tmp_path)) == ["b.c4book.partial"]  # no lock left behind


def test_a_shared_journal_takes_records_from_two_runs_at_once(tmp_path: Path) -> None:
    """A store many runs add to (the ladder's labels) is not one run's: no lock."""
    path = tmp_path / "labels.journal"
    with (
        Journal(path, "labels", {}, shared=True).open(resume=True) as one,
        Journal(path, "labels", {}, shared=True).open(resume=True) as two,
    ):
        one.append([b"one"])
        two.append([b"two"])
    with Journal(path, "labels", {}).open(resume=True) as after:
        assert sorted(after.records()) == [b"one", b"two"]


def test_the_lock_never_deletes_a_file_of_the_users_in_its_place(tmp_path: Path) -> None:
    """The lock's file is empty; a non-empty file under its name is someone else's and is
    kept when the journal closes (the lock is still taken on it)."""
    path = journal_path(tmp_path / "b.c4book")
    theirs = tmp_path / ".b.c4book.partial.lock"
    theirs.write_text("notes")
    with journal(path).open(resume=False) as first:
        with pytest.raises(JournalError, match="in use by another run"):
            journal(path).open(resume=True)
        first.append([b"x"])
    assert theirs.read_text() == "notes"
    with journal(path).open(resume=True) as again:  # opening twice from one object: no refusal
        again.open(resume=True)
        assert list(again.records()) == [b"x"]
