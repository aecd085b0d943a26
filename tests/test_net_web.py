"""The learned network in the web app: ``/api/policy`` over real HTTP, and the ``net``
player's moves through ``/api/move``."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from connect4 import Position
from connect4.net import shipped_network
from tests.browser_helpers import open_page


def test_policy_is_the_shipped_networks(client: httpx.Client) -> None:
    answer = client.get("/api/policy", params={"pos": "444444"}).json()
    expected = shipped_network().evaluate_positions([Position.from_moves("444444")])
    assert answer["pos"] == "444444"
    assert answer["policy"][3] == 0.0  # column 4 is full
    assert answer["policy"] == pytest.approx(expected.policy[0].tolist(), abs=1e-4)
    assert answer["value"] == pytest.approx(float(expected.value[0]), abs=1e-4)
    assert sum(answer["wdl"]) == pytest.approx(1, abs=1e-3)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pos": "4444444"}, "column 4 is full"),
        ({"pos": "1122334"}, "the game is over"),
        ({"pos": "44", "width": 6, "height": 5}, "no network ships for 6x5"),
        ({"pos": "44", "rules": "count-fours"}, "standard rules only"),
        ({"pos": "5", "game": "tictactoe"}, "the network plays Connect Four"),
    ],
)
def test_policy_refuses_what_the_network_cannot_judge(
    client: httpx.Client, params: dict[str, object], message: str
) -> None:
    response = client.get("/api/policy", params=params)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]


def test_net_player_moves_through_the_api(client: httpx.Client) -> None:
    body = {"pos": "112233", "player": "net:playouts=200"}
    answer = client.post("/api/move", json=body).json()
    assert answer["move"] == 3  # column 4 (0-based here) wins
    refused = client.post("/api/move", json={"pos": "", "player": "net:load=/etc/hosts"})
    assert refused.status_code == 400
    assert "reads a file" in refused.json()["error"]


@pytest.mark.browser
def test_the_page_draws_the_policy_beside_the_solution(page: Any) -> None:
    open_page(page, "?pos=4455&p1=human&p2=human")
    page.check("#show-solution")
    page.wait_for_selector("#solution .policy-bar", state="attached")
    assert page.locator("#solution .policy-bar").count() == 7
    note = str(page.text_content("#solution-note"))
    assert "win in 2 for Red (score 18)" in note
    assert re.search(r"Network \(bars\): plays column \d, (a|not a) best move; expects win", note)
