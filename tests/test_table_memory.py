"""The transposition table's memory: zeroed, aligned, and on huge pages where the
kernel offers them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from connect4.solver.layout import HUGE_PAGE, new_memory, new_table

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")
DEFRAG = Path("/sys/kernel/mm/transparent_hugepage/defrag")


def _faults_in_huge_pages() -> bool:
    """Whether a region that asks for huge pages gets them when first touched: the
    kernel offers them, and compacts memory on the spot for such a region (its
    ``defrag`` setting ``always``, ``madvise`` or ``defer+madvise``; with ``defer`` or
    ``never`` they come later, if at all, from a background thread)."""
    if not THP.is_file() or "[never]" in THP.read_text() or not DEFRAG.is_file():
        return False
    chosen = re.search(r"\[([a-z+]+)\]", DEFRAG.read_text())
    return chosen is not None and chosen[1] in ("always", "madvise", "defer+madvise")


def _mapping_huge_kb(address: int) -> int:
    """The ``AnonHugePages`` of the mapping of this process that holds ``address``."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        span = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
        if span:
            inside = int(span[1], 16) <= address < int(span[2], 16)
        elif inside and line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


def test_a_large_table_starts_on_a_huge_page_and_is_zeroed() -> None:
    table = new_table(7, 6, 8 << 20)
    assert table.ctypes.data % HUGE_PAGE == 0
    assert table.dtype == np.uint64 and table.flags.writeable
    assert table[1] == 0 and not table[32:].any()  # every bucket empty
    memory = new_memory(7, 6)  # a small array: page-aligned, no padding
    assert memory.ctypes.data % 4096 == 0 and not memory[64:].any()


@pytest.mark.skipif(
    not _faults_in_huge_pages(),
    reason="this kernel gives no transparent huge pages when a region is first touched",
)
def test_a_large_table_asks_for_huge_pages_and_gets_them() -> None:
    table = new_table(7, 6, 16 << 20)
    huge_kb = _mapping_huge_kb(table.ctypes.data)
    assert huge_kb >= (table.nbytes >> 10) // 2, f"{huge_kb} kB of huge pages"
