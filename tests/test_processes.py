"""The one pool factory and its parent-death policy: a parent killed with SIGKILL
leaves no worker, no worker's child, no semaphore and no temporary folder."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from connect4.core.errors import Stopped
from connect4.core.processes import (
    JobError,
    JobInterrupted,
    make_executor,
    map_unordered,
    run_chunks,
)
from tests.cli_helpers import alive, kill_when_working

SHM = Path("/dev/shm")

# A parent that makes a two-worker pool; each worker starts a child program that
# takes the parent-death signal (as the arena's bots do) and writes both pids.
PARENT = textwrap.dedent(
    """
    import subprocess, sys, time
    from pathlib import Path
    from connect4.core.processes import die_with_parent, make_executor

    def work(path):
        import os
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                 preexec_fn=die_with_parent)
        Path(path).write_text(f"{os.getpid()} {child.pid}")
        time.sleep(600)

    folder = Path(sys.argv[1])
    with make_executor(2) as pool:
        futures = [pool.submit(work, str(folder / f"{i}.pids")) for i in range(2)]
        time.sleep(600)
    """
)


def semaphores() -> set[str]:
    return {entry.name for entry in SHM.glob("sem.*")} if SHM.is_dir() else set()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc and /dev/shm")
@pytest.mark.parametrize("settle", [0.0, 0.2], ids=["reaped-at-once", "exiting-a-while"])
def test_a_killed_parent_leaves_no_worker_child_semaphore_or_folder(
    tmp_path: Path, settle: float
) -> None:
    """Every command's pool (book build, datasets, arena, lab) is this one. ``settle``:
    the killed parent is left unreaped a while, so its workers may find it still
    exiting (they once took it for alive and left /tmp/pymp-* and semaphores behind)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    before = semaphores()
    process = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(tmp_path)],
        env={**os.environ, "TMPDIR": str(temp)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    pids = [tmp_path / "0.pids", tmp_path / "1.pids"]

    def working() -> bool:
        return all(path.exists() and len(path.read_text().split()) == 2 for path in pids)

    workers = kill_when_working(
        process, working, what="the pool ended before it was killed", settle=settle
    )
    started = {int(pid) for path in pids for pid in path.read_text().split()}
    assert len(started) == 4 and started - workers == set()  # two workers, their two children
    assert [pid for pid in started if alive(pid)] == []
    assert list(temp.iterdir()) == []  # no multiprocessing folder, no server socket
    assert semaphores() - before == set()
    assert process.stderr is not None and b"leaked" not in process.stderr.read()


def test_the_pool_runs_tasks_and_names_the_one_that_failed() -> None:
    with make_executor(2) as pool:
        assert sorted(map_unordered(abs, [-3, 2, -1], pool, name=str)) == [1, 2, 3]
        with pytest.raises(JobError, match=r"^item -1 failed in a worker \(ValueError"):
            list(map_unordered(check_positive, [1, -1], pool, name=lambda x: f"item {x}"))
    assert list(map_unordered(abs, [-2, 1], None, name=str)) == [2, 1]  # in this process


def check_positive(number: int) -> int:
    if number < 0:
        raise ValueError("negative")
    return number


def test_run_chunks_stops_when_asked_and_cancels_the_rest() -> None:
    seen: list[int] = []
    with ThreadPoolExecutor(1) as pool:
        done = run_chunks(pool, abs, [(-n,) for n in range(50)], lambda r: seen.append(r) or r < 2)
    assert done is False and len(seen) == 3


def test_an_interrupted_job_is_a_stop_not_bad_input() -> None:
    error = JobInterrupted(Path("x.partial"), 3, "dataset")
    assert isinstance(error, Stopped) and not isinstance(error, ValueError)
    assert isinstance(JobError("no Dask"), ValueError)
