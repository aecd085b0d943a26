"""The architecture page names every module of the package.

``docs/architecture.md``'s block "The modules" lists each package's modules
under the package's name. A module added to ``src/connect4`` without a line
there fails this test, naming it, so the map a newcomer reads stays whole.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "connect4"
PAGE = ROOT / "docs" / "architecture.md"


def module_block() -> str:
    text = PAGE.read_text()
    after = text.split("## The modules", 1)[1]
    return after.split("```", 2)[1]


COLUMN = 11  # where a module's name starts on its line; a package's name is left of it


def listed_modules(block: str) -> set[str]:
    """Every module the block names: ``pkg/name`` for a name at the module column under
    the package ``pkg/`` (``pkg/sub/name`` for ``sub/name``), ``name`` for a top-level
    module at the left edge. Continuation lines are indented further and name nothing."""
    names: set[str] = set()
    package = ""
    for line in block.splitlines():
        left = line[:COLUMN].strip()
        if left.endswith("/"):
            package = left
        elif left:
            names.add(left.split()[0])
            package = ""
            continue
        if len(line) <= COLUMN or line[COLUMN] == " " or line[COLUMN - 1] != " ":
            continue
        for token in line[COLUMN:].split():
            names.add(package + token.rstrip(",:"))
            if not token.endswith(","):
                break
    return names


def missing_modules() -> list[str]:
    listed = listed_modules(module_block())
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            continue  # a package is named by its folder
        if "/".join(parts) not in listed:
            missing.append("/".join(parts) + ".py")
    return missing


def test_every_module_is_named_on_the_architecture_page() -> None:
    assert missing_modules() == []


def test_the_check_reads_names_not_descriptions() -> None:
    listed = listed_modules(module_block())
    named = {"core/position", "solver/book/keys", "web/routes/page", "terminal/turns"}
    assert named | {"__main__"} <= listed  # a package's module, a top-level module
    # words in a description are not modules: "labels" appears in envs/dataset's text
    block = "envs/      dataset/arrays  solver labels, the .npz file\n"
    assert listed_modules(block) == {"envs/dataset/arrays"}
