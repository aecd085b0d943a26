"""Every ```python example in README.md and docs/*.md runs as written, in seconds.

A block that is deliberately not runnable starts with the visible marker
``# not run:`` and the reason (it needs a server, a GPU, hours...).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
NOT_RUN = "# not run:"
DOCTEST = """
import doctest, sys
test = doctest.DocTestParser().get_doctest({session!r}, {{}}, "example", None, 0)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


def examples() -> list[tuple[str, str]]:
    """``(page:line, code)`` of every python block."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1)))
    return found


EXAMPLES = examples()


def test_the_pages_have_examples() -> None:
    assert len(EXAMPLES) >= 10
    skipped = [where for where, code in EXAMPLES if code.startswith(NOT_RUN)]
    assert len(skipped) <= 3, skipped  # a few, each with its reason


@pytest.mark.parametrize(("where", "code"), EXAMPLES, ids=[w for w, _ in EXAMPLES])
def test_the_example_runs(where: str, code: str, tmp_path: Path) -> None:
    if code.startswith(NOT_RUN):
        pytest.skip(code.splitlines()[0])
    if code.startswith(">>> "):  # an interactive session: its printed results are checked too
        code = DOCTEST.format(session=code)
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,  # files an example writes land here
        capture_output=True,
        text=True,
        timeout=180,  # seconds to run, but a first use compiles (the vector env: 12 s idle)
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # examples/ imports
        check=False,
    )
    assert result.returncode == 0, f"{where}:\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
