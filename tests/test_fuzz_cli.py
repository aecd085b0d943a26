"""The seeded CLI attack (benchmarks/fuzz_cli.py), a small sample: no traceback anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz_cli.py"


def test_a_small_seeded_attack_on_the_command_gets_only_clear_errors() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--seed", "7"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tracebacks: 0  timeouts: 0  unexpected exit statuses: 0" in done.stdout
    assert "book info (junk)         exit 2" in done.stdout
    for scenario in ("book info (FIFO)", "review --results (/dev/zero)", "build --out /dev/full"):
        assert f"  {scenario:24} exit 2" in done.stdout, scenario
    assert "build --out symlink      exit 2" in done.stdout  # refused without --force
    mine = ("existing arena --results", "foreign --resume arena", "existing dataset --out")
    for scenario in mine:
        assert f"  {scenario:24} exit 2" in done.stdout, scenario  # the user's file untouched
    assert "max RSS book info" in done.stdout  # hostile files within 200 MB of a normal one
    for scenario in ("solve (/dev/zero)", "solve (one 20 MB line)", "play (/dev/zero)",
                     "play (one 20 MB line)"):  # fmt: skip
        assert f"  {scenario:24} exit 1" in done.stdout, scenario  # refused, memory bounded
    for scenario in ("solve (100 kB argument)", "review (100 kB argument)"):
        assert f"  {scenario:24} exit 2" in done.stdout, scenario
    assert "max RSS play stdin" in done.stdout
