"""What machine a benchmark ran on: cores, CPU model, Python (printed by every script here).

>>> "cores" in describe_machine()
True
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or what ``platform`` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def describe_machine() -> str:
    """``"2 cores (nproc), Intel(R) Xeon(R) Processor, CPython 3.11.7"``."""
    python = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{os.cpu_count()} cores (nproc), {cpu_model()}, {python}"
