"""The cache root holds every compiled file: numba's caches go under it, never beside
the sources, and a ``NUMBA_CACHE_DIR`` the user set is left alone."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import connect4

SOURCES = Path(connect4.__file__).resolve().parent

# compiles one small cached function of the package (the published books' decoder)
COMPILE_ONE = """
import numpy as np, os, connect4
from connect4.solver.book.reader import decode_bitbully_codes
code = int("100" "0" "0" "110" "000" "0", 2) << 12
decode_bitbully_codes(np.array([code], dtype=np.uint64), 24)
import numba
print(numba.config.CACHE_DIR)
"""


def run_fresh(tmp_path: Path, **extra: str) -> tuple[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(CONNECT4_CACHE_DIR=str(tmp_path / "root"), **extra)
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_ONE], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), started


def written_under_sources(since: float) -> list[Path]:
    return [
        path
        for pattern in ("*.nbi", "*.nbc")
        for path in SOURCES.rglob(pattern)
        if path.stat().st_mtime >= since
    ]


def test_numba_caches_go_under_the_cache_root(tmp_path: Path) -> None:
    folder, started = run_fresh(tmp_path)
    assert folder == str(tmp_path / "root" / "numba")
    indexes = list((tmp_path / "root" / "numba").rglob("reader._decode_codes*.nbi"))
    assert indexes, "numba wrote no cache index under the cache root"
    assert written_under_sources(started) == []


def test_a_numba_cache_dir_the_user_chose_wins(tmp_path: Path) -> None:
    chosen = tmp_path / "mine"
    folder, _ = run_fresh(tmp_path, NUMBA_CACHE_DIR=str(chosen))
    assert folder == str(chosen)
    assert list(chosen.rglob("*.nbi"))
    assert not (tmp_path / "root" / "numba").exists()
