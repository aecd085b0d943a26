"""A stop is handled as a stop, bad input as bad input, wherever they meet a handler.

Work stopped before it finished (:class:`connect4.core.errors.Stopped`) is
answered 503 by the web and ends a command with one ``stopped: ...`` line and
exit 130; bad input keeps its 400 and its ``error: ...`` with exit 2.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from connect4.classic import tree
from connect4.classic.search import SearchAborted
from connect4.cli.app import app
from connect4.core.errors import BudgetExceeded, GameError
from connect4.web import errors

runner = CliRunner()


def web_answer(error: Exception) -> tuple[int, dict[str, object], str | None]:
    """What the web's error handlers answer for ``error`` raised by a route."""
    web = FastAPI()
    errors.install(web)

    @web.get("/fail")
    def fail() -> None:
        raise error

    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=web, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.get("/fail")

    response = asyncio.run(get())
    return response.status_code, response.json(), response.headers.get("retry-after")


def test_the_web_answers_any_stop_with_503_and_bad_input_with_400() -> None:
    assert web_answer(SearchAborted("the search stopped")) == (
        503,
        {"error": "the search stopped"},
        "1",
    )
    assert web_answer(BudgetExceeded("no move in time"))[:2] == (503, {"error": "no move in time"})
    assert web_answer(GameError("no such game")) == (400, {"error": "no such game"}, None)


def test_a_stop_ends_a_command_with_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stopped(*args: object, **kwargs: object) -> None:
        raise BudgetExceeded("the limit stopped the search before its first playout")

    monkeypatch.setattr(tree, "mcts_tree", stopped)
    result = runner.invoke(app, ["tree", "44", "--algorithm", "mcts"])
    assert result.exit_code == 130
    assert result.stderr == "stopped: the limit stopped the search before its first playout\n"
    assert result.stdout == ""


def test_bad_input_still_ends_a_command_with_error_and_exit_2() -> None:
    result = runner.invoke(app, ["tree", "48"])
    assert result.exit_code == 2
    assert result.stderr == "error: move 2 ('8'): column 8 is out of range 1-7\n"
