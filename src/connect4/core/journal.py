"""The journal of a resumable job: finished records in an SQLite database beside the output.

A long job (a book build, a dataset, a tournament) writes its output once, at
the end; what it finishes on the way goes to a journal (``OUT.partial``), so
an interrupted run, even one killed with SIGKILL, loses only the work in
flight and ``--resume`` continues from the rest. The journal is an SQLite
database (the standard library's ``sqlite3``, write-ahead log, full sync):

- each :meth:`Journal.append` is one transaction, so a record is either
  wholly in the journal or not at all (SQLite rolls back a torn write);
- the job's identity (its kind and parameters) is stored in the journal,
  and a journal of another job is refused, naming what differs, never mixed
  into this one or silently replaced;
- each record carries its CRC-32: a record whose bytes were damaged on disk
  is dropped, counted in :attr:`Journal.damaged` and done again, never
  trusted; a database SQLite itself finds damaged, a file that is not a
  journal and one in use elsewhere are refused with one line naming the
  file (``--force`` starts over);
- one run at a time: an open journal holds a lock (``.OUT.partial.lock``
  beside it, while the run lasts), so a second run of the same job on the
  same output, which would do the work again and race the first to the
  output, is refused while the first runs (``--force`` too: it never deletes
  a journal another run holds);
- the job removes the journal once its output is written.

A record is bytes the job packs (a ``struct``, a JSON line) and reads back.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "out.partial"
>>> with Journal(path, "build", {"plies": 4}).open(resume=False) as journal:
...     journal.append([b"one", b"two"])
>>> with Journal(path, "build", {"plies": 4}).open(resume=True) as journal:
...     list(journal.records()), journal.damaged
([b'one', b'two'], 0)
>>> Journal(path, "build", {"plies": 5}).open(resume=True)
Traceback (most recent call last):
...
connect4.core.journal.JournalError: ...out.partial belongs to another build (plies 4 there, \
5 here): resume with the same settings, or give force=True instead of resume=True to start over
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Self

from connect4.core.cache import FileLock
from connect4.core.files import FileError, StrPath, check_output

__all__ = ["Closing", "Journal", "JournalError", "journal_path"]

APPLICATION_ID = 0x43344A4E  # "C4JN": SQLite's field naming the program whose file it is
SQLITE_HEADER = b"SQLite format 3\x00"  # the first bytes of every SQLite database
FORMAT = 1  # the tables' layout (SQLite's user_version)
_SCHEMA = (
    "CREATE TABLE job (kind TEXT NOT NULL, identity TEXT NOT NULL)",
    "CREATE TABLE records (id INTEGER PRIMARY KEY, data BLOB NOT NULL, crc INTEGER NOT NULL)",
)
_SHOWN = 40  # a differing setting's values are named when this short


class JournalError(FileError):
    """A journal that cannot be used: another job's, not a journal, damaged, in use."""


def journal_path(out: StrPath) -> Path:
    """Where the journal of the job writing ``out`` lives: ``OUT.partial``.

    >>> journal_path("b.c4book").name
    'b.c4book.partial'
    """
    path = Path(out)
    return path.with_name(path.name + ".partial")


class Closing(ABC):
    """What a job holds open while it runs (a journal, a store over one): used as a
    context manager it is closed on the way out, whatever ends the block; what
    :meth:`close` keeps is the resume's."""

    @abstractmethod
    def close(self) -> None:
        """Release what is open, keeping what a later resume needs."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class Journal(Closing):
    """The finished records of one job (``kind`` and ``identity``, its parameters, as
    JSON values), in the SQLite database ``path``.

    :meth:`open` starts it or continues it, :meth:`records` gives back the intact
    records in the order they were appended, :meth:`append` adds a batch in one
    transaction, :meth:`close` keeps the file for a later resume and
    :meth:`remove` deletes it (the output is written). Used as a context manager
    it is closed on the way out.

    A journal is one run's while it is open (see above); a ``shared`` one, a store
    that many runs add to at once (labels kept for whoever asks), is not locked.
    """

    def __init__(
        self, path: StrPath, kind: str, identity: Mapping[str, object], *, shared: bool = False
    ) -> None:
        self.path = Path(path)
        self.kind = kind
        self.identity: dict[str, object] = json.loads(_text(identity))  # as stored: lists
        self.damaged = 0  # damaged records dropped by :meth:`open` (done again)
        self._db: sqlite3.Connection | None = None
        self._lock = None if shared else FileLock(self.path.with_name(f".{self.path.name}.lock"))

    # ------------------------------------------------------------ opening
    def open(self, *, resume: bool, force: bool = False) -> Journal:
        """Continue the journal on disk (``resume``) or start a new one; returns self.

        Without ``resume`` a journal holding records is refused (it is an
        unfinished run) unless ``force`` starts over; an empty one is replaced.
        With ``resume`` a journal of another job is refused, and damaged
        records are dropped and counted (:attr:`damaged`); a missing journal is
        started. A file that is not a journal, or that SQLite finds damaged, is
        refused unless ``force`` (without ``resume``) replaces it.
        """
        if self._lock is not None and not self._lock.acquire(wait=False):
            raise self._in_use()
        try:
            if self._plan(resume, force, identity=True):
                self._db = self._connect()
                self._drop_damaged()
            else:
                self._create()
        except BaseException:
            self.close()
            raise
        return self

    def check(self, *, resume: bool, force: bool = False) -> None:
        """Refuse, before any work, what :meth:`open` would refuse, but for a journal of
        other settings on ``resume`` (the settings may not be known yet); changes nothing."""
        if self._lock is not None and self._db is None:  # (open here: held by this run)
            if not self._lock.acquire(wait=False):
                raise self._in_use()
            self._lock.release(remove=True)
        self._plan(resume, force, identity=False)

    def _plan(self, resume: bool, force: bool, *, identity: bool) -> bool:
        """True to continue the journal on disk, False to start a new one; or refused."""
        check_output(self.path, what="journal", force=True)  # a folder, a device: refused
        state = None if force and not resume else self._inspect()  # force: start over
        if state is None:
            return False
        kind, theirs, count = state
        other = kind != self.kind or (identity and theirs != self.identity)
        if other and (count or resume):
            self._refuse_other(kind, theirs, count, resume)
        if not resume and count:
            raise JournalError(
                f"{self.path} holds an unfinished {self.kind}: give {{resume}} to continue "
                "it, or {force} to start over",
                options=("resume", "force"),
            )
        return resume and not other

    def _inspect(self) -> tuple[str, dict[str, object], int] | None:
        """What is at :attr:`path`: ``None`` (nothing, or an empty file), else the journal's
        kind, identity and number of records; a file that is not a journal is refused."""
        try:
            if os.stat(self.path).st_size == 0:
                return None
        except FileNotFoundError:
            return None
        with self._errors(), self.path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
        if header != SQLITE_HEADER:  # SQLite would take a file of a byte or two for a new one
            raise self._foreign("not an SQLite database")
        # read only, with no setting changed: a file that is not ours is left as it was
        with self._errors(), contextlib.closing(sqlite3.connect(self.path)) as db:
            (application,) = db.execute("PRAGMA application_id").fetchone()
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if application != APPLICATION_ID:
                raise self._foreign("an SQLite database of another program")
            if version != FORMAT:
                raise self._foreign(f"a journal of another version ({version})")
            job = db.execute("SELECT kind, identity FROM job").fetchone()
            (count,) = db.execute("SELECT count(*) FROM records").fetchone()
        if job is None:
            raise self._foreign("its job is missing")
        kind, identity = job
        try:
            parsed = json.loads(identity)
        except ValueError:
            parsed = None
        return str(kind), parsed if isinstance(parsed, dict) else {}, int(count)

    def _refuse_other(
        self, kind: str, identity: Mapping[str, object], count: int, resume: bool
    ) -> None:
        """Refuse the journal of another job, naming what differs."""
        if kind != self.kind:
            what = f"a {kind}, not a {self.kind}"
        else:
            what = differences(identity, self.identity)
        if resume:
            raise JournalError(
                f"{self.path} belongs to another {self.kind} ({what}): resume with the same "
                "settings, or give {force} instead of {resume} to start over",
                options=("force", "resume"),
            )
        raise JournalError(
            f"{self.path} holds an unfinished {self.kind} with other settings ({what}, "
            f"{count:,} records): give {{force}} to start over, or another output name",
            options=("force",),
        )

    def _create(self) -> None:
        """A new, empty journal at :attr:`path`: made under a temporary name and renamed,
        so no half-made journal is ever there."""
        self._close_db()
        temporary = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
        try:
            with self._errors(), contextlib.closing(sqlite3.connect(temporary)) as db:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute("INSERT INTO job VALUES (?, ?)", (self.kind, _text(self.identity)))
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {FORMAT}")
                db.commit()
            self._unlink()  # the old journal's log must not be replayed into the new one
            with self._errors():
                os.replace(temporary, self.path)
        finally:
            for leftover in (temporary, temporary.with_name(temporary.name + "-journal")):
                leftover.unlink(missing_ok=True)
        self.damaged = 0
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        with self._errors():
            db = sqlite3.connect(self.path, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode = WAL")
                db.execute("PRAGMA synchronous = FULL")  # a commit is on disk when it returns
            except BaseException:
                db.close()
                raise
        return db

    # ------------------------------------------------------------ records
    def _drop_damaged(self) -> None:
        """Delete every record whose checksum fails, counting them in :attr:`damaged`."""
        db = self._require()
        with self._errors():
            bad = [
                (row,)
                for row, data, crc in db.execute("SELECT id, data, crc FROM records")
                if not isinstance(data, bytes) or zlib.crc32(data) != crc
            ]
            if bad:
                with self._transaction(db):
                    db.executemany("DELETE FROM records WHERE id = ?", bad)
        self.damaged = len(bad)

    def records(self) -> Iterator[bytes]:
        """The intact records, in the order they were appended."""
        db = self._require()
        with self._errors():
            for (data,) in db.execute("SELECT data FROM records ORDER BY id"):
                yield data

    def count(self) -> int:
        """How many records the journal holds."""
        with self._errors():
            (count,) = self._require().execute("SELECT count(*) FROM records").fetchone()
        return int(count)

    def append(self, records: Iterable[bytes]) -> None:
        """Record finished work: the batch in one transaction, on disk when this returns."""
        rows = [(data, zlib.crc32(data)) for data in records]
        db = self._require()
        with self._errors(), self._transaction(db):
            db.executemany("INSERT INTO records (data, crc) VALUES (?, ?)", rows)

    # ------------------------------------------------------------ closing
    def close(self) -> None:
        """Close the database and let another run take it; the file stays for a later
        resume."""
        self._close_db()
        if self._lock is not None:
            self._lock.release(remove=True)

    def remove(self) -> None:
        """Close and delete the journal (the job's output is written)."""
        self._close_db()
        self._unlink()
        if self._lock is not None:
            self._lock.release(remove=True)

    def _close_db(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _unlink(self) -> None:
        with self._errors():
            for suffix in ("", "-wal", "-shm", "-journal"):
                self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)

    # ------------------------------------------------------------ helpers
    def _require(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"journal {self.path} is not open")
        return self._db

    @staticmethod
    @contextlib.contextmanager
    def _transaction(db: sqlite3.Connection) -> Iterator[None]:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _in_use(self) -> JournalError:
        return JournalError(
            f"journal {self.path} is in use by another run of this job: let it finish, "
            "or stop it first"
        )

    def _foreign(self, why: str) -> JournalError:
        return JournalError(
            f"{self.path} is not a journal of connect4 ({why}): give {{force}} to replace it, "
            "or delete it",
            options=("force",),
        )

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """SQLite's and the system's errors as one :class:`JournalError` naming the file."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            text = str(error)
            if "not a database" in text:
                raise self._foreign("not an SQLite database") from None
            if "no such table" in text:
                raise self._foreign("its tables are missing") from None
            if "malformed" in text or "corrupt" in text:
                raise JournalError(
                    f"journal {self.path} is damaged ({text}): give {{force}} to start over, "
                    "or delete it",
                    options=("force",),
                ) from None
            if "locked" in text or "busy" in text:
                raise self._in_use() from None
            raise JournalError(f"cannot use journal {self.path}: {text}") from None
        except OSError as error:
            raise JournalError(
                f"cannot use journal {self.path}: {error.strerror or error}"
            ) from None


def differences(theirs: Mapping[str, object], ours: Mapping[str, object]) -> str:
    """The settings two journals' identities differ in, in words (values when short).

    >>> differences({"plies": 4, "seed": 1}, {"plies": 5, "seed": 1})
    'plies 4 there, 5 here'
    >>> differences({"openings": ["1"] * 30}, {"openings": ["2"] * 30, "seed": 2})
    'other openings, other seed'
    """
    parts = []
    for key in sorted({*theirs, *ours}):
        there, here = theirs.get(key), ours.get(key)
        if there == here:
            continue
        shown = [json.dumps(value) if key in side else "none" for value, side in
                 ((there, theirs), (here, ours))]  # fmt: skip
        name = key.replace("_", " ")
        if max(len(text) for text in shown) <= _SHOWN and key in theirs and key in ours:
            parts.append(f"{name} {shown[0]} there, {shown[1]} here")
        else:
            parts.append(f"other {name}")
    return ", ".join(parts[:4]) + (", ..." if len(parts) > 4 else "") or "its record is damaged"


def _text(identity: Mapping[str, object]) -> str:
    return json.dumps(identity, sort_keys=True, separators=(",", ":"))
