"""The page in a real browser tab: opened, waited on for what it does, never for a fixed time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

TIMEOUT_MS = 30_000

# Counts, per API path, the answers whose handling has finished: ``Response.json()``
# schedules the count as a task, so every promise continuation that reads the answer
# (the page's own handler included) has run before the count goes up.
COUNT_ANSWERS = """
window.c4Answered = {};
const readJson = Response.prototype.json;
Response.prototype.json = function () {
  const path = new URL(this.url).pathname;
  return readJson.call(this).finally(() => setTimeout(() => {
    window.c4Answered[path] = (window.c4Answered[path] || 0) + 1;
  }, 0));
};
"""


def tab_at(browser: Any, url: str, viewport: dict[str, int]) -> Iterator[Any]:
    """A page of the app in a fresh context (its own storage) with ``viewport``; no
    JavaScript error may happen on it."""
    context = browser.new_context(viewport=viewport, base_url=url)
    context.add_init_script(COUNT_ANSWERS)
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == [], f"JavaScript errors: {errors}"


def open_page(page: Any, query: str) -> None:
    page.goto("/" + query)
    page.wait_for_selector("body[data-ready='1']")


def answered(page: Any, path: str) -> int:
    """How many of ``path``'s answers the page has handled so far."""
    return int(page.evaluate(f"window.c4Answered[{path!r}] || 0"))


def wait_answered(page: Any, path: str, count: int) -> None:
    """Wait until the page has handled ``count`` answers of ``path`` in all."""
    page.wait_for_function(f"(window.c4Answered[{path!r}] || 0) >= {count}")


def settled(page: Any) -> None:
    """Wait until the page's layout holds still: the same document size and the same
    boxes of the board and the solution row in two animation frames in a row."""
    page.evaluate("window.c4Shape = null")
    page.wait_for_function(
        """() => {
          const shape = JSON.stringify([
            document.documentElement.scrollWidth, document.documentElement.scrollHeight,
            ...["board", "solution", "solution-note"].map((id) => {
              const box = document.getElementById(id)?.getBoundingClientRect();
              return box ? [box.x, box.y, box.width, box.height] : null;
            }),
          ]);
          const same = window.c4Shape === shape;
          window.c4Shape = shape;
          return same;
        }""",
        polling="raf",
    )
