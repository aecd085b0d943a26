"""The one pool factory and its parent-death policy: a parent killed with SIGKILL
leaves no worker, no worker's child, no semaphore and no temporary folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from connect4.core.errors import Stopped
from connect4.core.processes import (
    JobError,
    JobInterrupted,
    WorkerPool,
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
        process, working, what="the pool ended before it was killed", settle=settle, least=4
    )  # (seen with both children: a file written between two looks at the processes)
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

    def take(result: int) -> bool:
        seen.append(result)
        return result < 2

    with ThreadPoolExecutor(1) as pool:
        done = run_chunks(pool, abs, [(-n,) for n in range(50)], take)
    assert done is False and len(seen) == 3


def test_an_interrupted_job_is_a_stop_not_bad_input() -> None:
    error = JobInterrupted(Path("x.partial"), 3, "dataset")
    assert isinstance(error, Stopped) and not isinstance(error, ValueError)
    assert isinstance(JobError("no Dask"), ValueError)


def test_the_pool_queues_calls_past_its_workers_and_keeps_each_answer_with_its_call() -> None:
    with WorkerPool(2) as pool:
        futures = [pool.submit(pow, n, 2) for n in range(40)]  # 38 wait for a worker
        assert [future.result() for future in futures] == [n * n for n in range(40)]
        assert len({pool.submit(os.getpid).result() for _ in range(20)}) <= 2


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_pool_shut_down_or_stopped_leaves_no_descriptor_open() -> None:
    before = open_descriptors()
    with WorkerPool(2) as pool:
        assert pool.submit(abs, -3).result() == 3
    assert open_descriptors() == before
    pool = WorkerPool(2)
    pool.submit(time.sleep, 30)
    pool.terminate()
    pool.shutdown(wait=True)  # after the reader ended: nothing to wake, no error
    assert open_descriptors() == before


def test_a_call_that_fails_in_a_worker_carries_the_workers_traceback() -> None:
    with WorkerPool(1) as pool:
        future = pool.submit(check_positive, -1)
        with pytest.raises(ValueError, match="negative") as raised:
            future.result()
        assert "check_positive" in "".join(raised.value.__notes__)  # the worker's own frames
        assert pool.submit(check_positive, 2).result() == 2  # the worker goes on


def test_a_killed_worker_breaks_the_pool_and_fails_every_call_left() -> None:
    with WorkerPool(2) as pool:
        pids = {pool.submit(worker_pid, 0.2).result() for _ in range(4)}
        sleeper = pool.submit(time.sleep, 30)
        queued = [pool.submit(time.sleep, 30) for _ in range(2)]
        time.sleep(0.3)
        os.kill(next(iter(pids)), signal.SIGKILL)
        for future in [sleeper, *queued]:
            with pytest.raises(BrokenProcessPool):
                future.result(timeout=10)
        with pytest.raises(BrokenProcessPool):
            pool.submit(abs, -1)


def test_terminate_stops_calls_under_way_and_cancels_the_queued_ones() -> None:
    pool = WorkerPool(1)
    started = time.monotonic()
    running = pool.submit(time.sleep, 30)
    queued = pool.submit(abs, -1)
    time.sleep(0.2)
    pool.terminate()
    assert time.monotonic() - started < 10
    assert queued.cancelled()
    with pytest.raises(BrokenProcessPool):
        running.result(timeout=5)


def test_a_future_lock_held_for_good_never_blocks_terminate() -> None:
    """A Ctrl-C inside concurrent.futures.wait (which takes every future's lock in turn)
    can leave a queued future's lock held by the main thread for good. The reader thread
    then blocks handing that call to the freed worker; it must not hold the pool's lock
    while it does, or terminate() waits for it forever (a Ctrl-C'd build that hung)."""
    pool = WorkerPool(1)
    pool.submit(time.sleep, 0.2)
    queued = pool.submit(abs, -1)
    queued._condition.acquire()  # as the interrupted wait leaves it
    try:
        time.sleep(0.6)  # the first call ends: the reader turns to the queued one
        stopper = threading.Thread(target=pool.terminate, daemon=True)
        stopper.start()
        stopper.join(15)
        assert not stopper.is_alive(), "terminate() blocked behind a future's lock"
    finally:
        queued._condition.release()
    with pytest.raises(BrokenProcessPool):
        queued.result(timeout=5)


def test_run_chunks_hands_over_every_result_of_thousands_of_tasks_once() -> None:
    seen: list[int] = []

    def take(result: int) -> bool:
        seen.append(result)
        return True

    with make_executor(2) as pool:
        done = run_chunks(pool, abs, [(-n,) for n in range(3000)], take)
    assert done is True and sorted(seen) == list(range(3000))


def test_shutdown_runs_the_queued_calls_unless_told_to_cancel_them() -> None:
    pool = WorkerPool(1)
    futures = [pool.submit(time.sleep, 0.05) for _ in range(3)]
    pool.shutdown(wait=True)
    assert all(future.done() and not future.cancelled() for future in futures)
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(abs, -1)
    pool = WorkerPool(1)
    futures = [pool.submit(time.sleep, 0.3) for _ in range(3)]
    time.sleep(0.1)
    pool.shutdown(wait=True, cancel_futures=True)
    assert futures[0].result() is None and all(f.cancelled() for f in futures[1:])


def worker_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


class Unreadable:
    """An answer pickle writes but cannot read back (its rebuilding fails on purpose;
    an exception would not do: a loaded module may teach pickle to rebuild any)."""

    def __reduce__(self) -> tuple[object, tuple[()]]:
        return refuse_rebuilding, ()


def refuse_rebuilding() -> None:
    raise TypeError("this answer cannot be rebuilt")


def unreadable_answer() -> Unreadable:
    return Unreadable()


def test_an_answer_the_parent_cannot_rebuild_fails_its_call_only() -> None:
    with WorkerPool(1) as pool:
        with pytest.raises(RuntimeError, match="answer is unreadable: this answer cannot be"):
            pool.submit(unreadable_answer).result(timeout=10)
        assert pool.submit(abs, -5).result(timeout=10) == 5


def test_a_pool_never_shut_down_lets_the_program_exit() -> None:
    script = (
        "from connect4.core.processes import WorkerPool\n"
        "pool = WorkerPool(2)\n"
        "print(pool.submit(abs, -3).result())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "3", "")


def test_the_pool_works_where_processes_are_spawned_not_forked(tmp_path: Path) -> None:
    """macOS and Windows start workers by spawning a fresh interpreter (no fork)."""
    script = tmp_path / "spawned.py"
    script.write_text(
        textwrap.dedent(
            """
            import os
            from connect4.core import processes

            if __name__ == "__main__":
                processes.START_METHOD = "spawn"
                with processes.WorkerPool(2) as pool:
                    print(sorted(pool.map(abs, [-2, 1, -3])))
                    print(len({pool.submit(os.getpid).result() for _ in range(6)} - {os.getpid()}))
                    try:
                        pool.submit(int, "x").result()
                    except ValueError as error:
                        print("raised in a worker process" in "".join(error.__notes__))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    squares, workers, noted = done.stdout.splitlines()
    assert squares == "[1, 2, 3]"
    assert workers in {"1", "2"}  # answered by worker processes, never the parent
    assert noted == "True"  # the worker's traceback travelled with the error
