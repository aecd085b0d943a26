"""The README stays short, and every relative link in it and in docs/*.md leads somewhere.

A link to a file must name an existing file; a ``#anchor`` on a ``.md`` file must name one
of that page's headings, by GitHub's rule (lowercase; spaces become ``-``; punctuation other
than ``-`` and ``_`` is dropped; a repeated heading gets ``-1``, ``-2``, ...).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
MAX_README_LINES = 300

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # \w keeps letters and digits of any script, and _
    return text.replace(" ", "-")


def prose(text: str) -> str:
    """The page without its code blocks and code spans (a link there is not a link)."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links() -> list[tuple[str, str]]:
    """``(page, target)`` of every relative link."""
    found = []
    for page in PAGES:
        for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, mailto:, ...
                continue
            found.append((str(page.relative_to(ROOT)), target))
    return found


LINKS = links()


def test_the_readme_is_short() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines (at most {MAX_README_LINES})"


def test_the_slug_rule() -> None:
    assert slug("Game review: every move graded by the solver") == (
        "game-review-every-move-graded-by-the-solver"
    )
    assert slug("Monte Carlo tree search (`connect4.classic.mcts`)") == (
        "monte-carlo-tree-search-connect4classicmcts"
    )
    assert slug("Kaggle ConnectX agents") == "kaggle-connectx-agents"
    assert slug("Classic search, MCTS and the learned player (2026-11-22 to 2026-11-26)") == (
        "classic-search-mcts-and-the-learned-player-2026-11-22-to-2026-11-26"
    )


def test_there_are_links() -> None:
    assert any(page == "README.md" for page, _ in LINKS)
    assert any("#" in target for _, target in LINKS)


@pytest.mark.parametrize(("page", "target"), LINKS, ids=[f"{p}->{t}" for p, t in LINKS])
def test_the_link_leads_somewhere(page: str, target: str) -> None:
    path, _, anchor = target.partition("#")
    source = ROOT / page
    file = (source.parent / path).resolve() if path else source
    assert file.exists(), f"{page}: {target}: no file {file.relative_to(ROOT)}"
    if anchor and file.suffix == ".md":
        assert anchor in anchors(file), f"{page}: {target}: no heading #{anchor} in {file.name}"
