"""Run the real ``connect4`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys


def run_cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``connect4 ARGS`` with ``stdin`` piped in (not a terminal); output captured as text."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "connect4", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
