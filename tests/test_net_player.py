"""The ``net`` player, PUCT over the network, and ``connect4 train`` from the command line."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from connect4.core.errors import BudgetExceeded
from connect4.core.limits import Limit
from connect4.core.position import Position
from connect4.envs.dataset import FULL, label, sample_positions
from connect4.net.model import Network
from connect4.net.search import Puct
from connect4.players import PlayerSpecError, make_player
from connect4.solver import Solver
from tests.cli_helpers import run_cli


def _save(network: Network, path: Path) -> Path:
    arrays = network.arrays()
    np.savez(path, **arrays)
    return path


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save(
        Network.random(7, 6, channels=8, blocks=1, seed=4),
        tmp_path_factory.mktemp("w") / "random.npz",
    )


def test_raw_player_plays_the_policy_best_legal_move(weights: Path) -> None:
    player = make_player(f"net:load={weights}")
    position = Position.from_moves("444444")  # column 4 is full
    choice = player.choose(position)
    policy = Network.random(7, 6, channels=8, blocks=1, seed=4).evaluate_positions([position])
    assert choice.move != 3 and policy.policy[0, 3] == 0.0
    assert choice.move == int(np.argmax(policy.policy[0]))
    assert choice.stats["engine"] == "policy" and choice.complete


def test_temperature_draws_from_the_policy_reproducibly(weights: Path) -> None:
    moves = [
        make_player(f"net:load={weights},temperature=5,seed={s}").choose(Position()).move
        for s in range(12)
    ]
    assert len(set(moves)) > 1
    again = [
        make_player(f"net:load={weights},temperature=5,seed={s}").choose(Position()).move
        for s in range(12)
    ]
    assert moves == again


@pytest.mark.parametrize(
    ("moves", "best"),
    [
        ("112233", 3),  # red wins at once in column 4
        ("11223", 3),  # yellow must block column 4
        ("4455", 2),  # red: 3 (or 6) makes two threats at once, a win in three plies
    ],
)
def test_puct_finds_the_forced_moves(weights: Path, moves: str, best: int) -> None:
    choice = make_player(f"net:load={weights},playouts=3000").choose(Position.from_moves(moves))
    assert choice.move in (best, 5) if moves == "4455" else choice.move == best
    assert choice.stats["playouts"] == 3000
    assert sum(c["visits"] for c in choice.stats["columns"]) == 3000


@pytest.mark.timeout(300)  # ends only a search that ignored its limit
def test_puct_honours_the_callers_limit(weights: Path) -> None:
    net = Network.random(7, 6, channels=8, blocks=1, seed=4)
    with pytest.raises(BudgetExceeded):
        Puct(net).search(Position(), playouts=100, limit=Limit(deadline=0.0))
    limit = Limit.within(0.2)
    result = Puct(net).search(Position(), playouts=10_000_000, limit=limit)  # not hours
    assert not result.complete and 0 < result.playouts < 10_000_000
    stopped = Limit()
    stopped.stop()
    player = make_player(f"net:load={weights},time=5")
    with pytest.raises(BudgetExceeded):
        player.choose(Position(), stopped)
    own = make_player(f"net:load={weights},time=0.1").choose(Position())
    assert own.complete and own.stats["playouts"] > 0


def test_puct_keeps_the_subtree_of_the_moves_played() -> None:
    net = Network.random(7, 6, channels=8, blocks=1, seed=4)
    search = Puct(net)
    first = search.search(Position.from_moves("44"), playouts=400)
    assert first.reused == 0
    again = search.search(Position.from_moves("44"), playouts=50)  # the same position
    assert again.reused == 400 and sum(c.visits for c in again.columns) == 450
    root = search.root
    assert root is not None
    mine = max(range(len(root.legal)), key=lambda i: root.visits[i])
    child = root.children[mine]
    assert child is not None
    theirs = max(range(len(child.legal)), key=lambda i: child.visits[i])
    grandchild = child.children[theirs]
    assert grandchild is not None and sum(grandchild.visits) > 0
    expected = sum(grandchild.visits)
    moves = "44" + str(root.legal[mine] + 1) + str(child.legal[theirs] + 1)
    later = search.search(Position.from_moves(moves), playouts=30)
    assert later.reused == expected
    assert sum(c.visits for c in later.columns) == expected + 30
    fresh = Puct(net).search(Position.from_moves(moves), playouts=30)
    assert fresh.reused == 0 and sum(c.visits for c in fresh.columns) == 30
    other = search.search(Position.from_moves("3"), playouts=30)  # not a continuation
    assert other.reused == 0
    assert [c.visits for c in other.columns] == [
        c.visits for c in Puct(net).search(Position.from_moves("3"), playouts=30).columns
    ]
    assert search.search(Position.from_moves("3"), playouts=10).reused == 30
    with pytest.raises(ValueError, match="game is over"):
        search.search(Position.from_moves("1212121"), playouts=10)


def test_puct_drops_a_tree_its_search_left_halfway(monkeypatch: pytest.MonkeyPatch) -> None:
    net = Network.random(7, 6, channels=8, blocks=1, seed=4)
    search = Puct(net)
    search.search(Position(), playouts=100)
    calls = 0
    evaluate = search._evaluate

    def interrupted(positions: list[Position], nodes: list[object]) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt  # Ctrl-C with virtual losses still in the tree
        evaluate(positions, nodes)  # type: ignore[arg-type]

    monkeypatch.setattr(search, "_evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        search.search(Position(), playouts=1000)
    monkeypatch.undo()
    after = search.search(Position(), playouts=40)
    assert after.reused == 0 and sum(c.visits for c in after.columns) == 40


def test_the_net_player_reuses_its_tree_across_a_game(weights: Path) -> None:
    player = make_player(f"net:load={weights},playouts=200")
    position = Position()
    for reply in (0, 6):  # the player, then a reply, twice: no four yet
        position.play(player.choose(position).move)
        position.play(reply)
    choice = player.choose(position)
    total = sum(c["visits"] for c in choice.stats["columns"])
    assert choice.stats["playouts"] == 200 and total > 200


def test_net_spec_errors_are_clear(weights: Path, tmp_path: Path) -> None:
    with pytest.raises(PlayerSpecError, match=r"net: load=.*missing.npz.*does not exist"):
        make_player(f"net:load={tmp_path / 'missing.npz'}")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(PlayerSpecError, match=r"cannot read .* as a network's weights"):
        make_player(f"net:load={tmp_path / 'junk.npz'}")
    with pytest.raises(PlayerSpecError, match="the network plays 7x6, not 6x5"):
        make_player(f"net:load={weights}", width=6, height=5)
    with pytest.raises(PlayerSpecError, match=r"net: temperature='hot' must be a number 0-100"):
        make_player("net:temperature=hot")
    with pytest.raises(PlayerSpecError, match="net cannot play tictactoe"):
        make_player("net", game="tictactoe")
    with pytest.raises(PlayerSpecError, match="no network ships for 5x4"):
        make_player("net", width=5, height=4)


def test_the_web_app_never_reads_a_network_file_a_client_names() -> None:
    from connect4.web.api import check_spec
    from connect4.web.errors import BadRequest

    check_spec("net:playouts=10")
    with pytest.raises(BadRequest, match="load= reads a file; the web app does not"):
        check_spec("net:playouts=10, LOAD=/etc/passwd")


# ---------------------------------------------------------------- connect4 train
@pytest.fixture(scope="module")
def dataset_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sample = sample_positions(300, (0, 12), 5, 4, seed=2)
    solver = Solver(5, 4)
    rows = [[FULL if s is None else s for s in solver.analyze(p)] for p in sample.positions()]
    path = tmp_path_factory.mktemp("d") / "d.npz"
    label(sample, rows).save(path)
    return path


def test_train_command_writes_a_network_that_plays(dataset_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "n.pt"
    args = ["train", "--data", str(dataset_file), "--out", str(out), "--channels", "8",
            "--blocks", "1", "--steps", "20", "--eval-every", "10", "--held-out", "0.1",
            "--plot", str(tmp_path / "curve.png"), "--json"]  # fmt: skip
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["step"] == 20 and summary["finished"] and summary["held_out"] is not None
    assert (tmp_path / "curve.png").stat().st_size > 0
    again = run_cli(*args[:-1])
    assert again.returncode == 2 and "--force to replace it, --resume to" in again.stderr
    more = run_cli(*args[:-1], "--resume", "--steps", "30")
    assert more.returncode == 0, more.stderr
    assert "step 30" in more.stdout
    same = run_cli("train", "--data", str(dataset_file), "--out", str(out), "--resume", "--json")
    assert same.returncode == 0, same.stderr  # no --steps: the checkpoint's 30, not a default
    assert json.loads(same.stdout)["steps"] == 30 and json.loads(same.stdout)["step"] == 30
    args = ["train", "--data", str(dataset_file), "--out", str(out), "--resume"]
    dropped = run_cli(*args, "--steps", "31", "--drop-wins-at-once")
    assert dropped.returncode == 0, dropped.stderr
    assert " won at once dropped; " in dropped.stdout
    from connect4.net.model import load_network, recipe_of

    recipe = recipe_of(load_network(tmp_path / "n.npz"))
    assert isinstance(recipe["dropped_wins_at_once"], int) and recipe["dropped_wins_at_once"] > 0
    assert recipe["kept_wins_at_once_share"] == 0.0
    player = make_player(f"net:load={tmp_path / 'n.npz'},playouts=50", width=5, height=4)
    assert player.choose(Position.from_moves("33", 5, 4)).move in range(5)


@pytest.mark.parametrize("inputs", ["stones", "threats"])
def test_the_kaggle_agent_plays_the_raw_network(weights: Path, tmp_path: Path, inputs: str) -> None:
    from connect4.net.kaggle import write_agent
    from connect4.net.model import load_network

    if inputs == "threats":  # the agent builds the threat planes itself
        weights = _save(
            Network.random(7, 6, channels=8, blocks=1, seed=5, inputs=inputs), tmp_path / "t.npz"
        )
    agent = tmp_path / "agent.py"
    write_agent(load_network(weights), agent)
    kaggle = make_player(f"kaggle:{agent}")
    raw = make_player(f"net:load={weights}")
    try:
        for moves in ("", "4", "44", "4453", "1234567", "444444", "3344551", "112233", "44556"):
            position = Position.from_moves(moves)
            assert kaggle.choose(position).move == raw.choose(position).move, moves
    finally:
        kaggle.close()


def test_train_command_labels_its_own_data(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "g.pt"
    args = ["train", "--generate", "300", "--plies", "0-8", "--workers", "1", "--out", str(out),
            "--channels", "8", "--blocks", "1", "--inputs", "threats", "--steps", "10",
            "--json"]  # fmt: skip
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr
    from connect4.net.model import load_network

    assert load_network(tmp_path / "g.npz").inputs == "threats"
    assert (
        json.loads(done.stdout)["train_positions"] + json.loads(done.stdout)["held_out_positions"]
        == 300
    )
    assert (tmp_path / "g.data.npz").exists()
    again = run_cli(*args[:-1], "--resume", "--steps", "12")  # the labels are reused
    assert again.returncode == 0, again.stderr
    none = run_cli("train", "--out", str(tmp_path / "x.pt"))
    assert none.returncode == 2 and "no data: give --data FILE" in none.stderr


def test_train_command_refuses_bad_input(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    (tmp_path / "x.npz").write_text("no")
    bad = run_cli("train", "--data", str(tmp_path / "x.npz"), "--out", str(tmp_path / "o.pt"))
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr
    missing = run_cli("train", "--data", "nowhere.npz", "--out", str(tmp_path / "o.pt"))
    assert missing.returncode == 2 and "nowhere.npz" in missing.stderr
    walls = run_cli("train", "--generate", "9", "--out", str(tmp_path / "w.pt"), "--inputs", "wall")
    assert walls.returncode == 2 and walls.stderr == (
        "error: --inputs: must be one of stones, threats, not 'wall'\n"
    )
    assert not (tmp_path / "w.data.npz").exists()  # refused before any labelling
    resume = run_cli("train", "--data", "x", "--out", str(tmp_path / "none.pt"), "--resume")
    assert resume.returncode == 2 and "does not exist" in resume.stderr
    out = ["--data", "x", "--out", str(tmp_path / "o.pt")]
    both = run_cli("train", *out, "--drop-wins-at-once", "--keep-wins-at-once", "0.5")
    assert both.returncode == 2 and both.stderr == (
        "error: --drop-wins-at-once keeps none: leave it out with --keep-wins-at-once\n"
    )
    share = run_cli("train", *out, "--keep-wins-at-once", "1.5")
    assert share.returncode == 2 and "Traceback" not in share.stderr
    assert "Invalid value for '--keep-wins-at-once'" in share.stderr


def test_train_resume_refuses_a_checkpoint_that_would_run_code(
    dataset_file: Path, tmp_path: Path
) -> None:
    torch = pytest.importorskip("torch")
    out = tmp_path / "n.pt"
    torch.save({"format": 1, "settings": Path.home}, out)  # a function: not data
    bad = run_cli("train", "--data", str(dataset_file), "--out", str(out), "--resume")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr == (
        f"error: cannot read {out} as a checkpoint: it holds objects other than tensors, "
        "numbers and strings (refused: reading them could run code)\n"
    )


def test_ctrl_c_saves_a_resumable_checkpoint(dataset_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "n.pt"
    args = ["train", "--data", str(dataset_file), "--out", str(out), "--channels", "8",
            "--blocks", "1", "--steps", "100000", "--eval-every", "5"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "connect4", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not out.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.stderr is not None
    assert process.returncode == 130, process.stderr.read()
    assert "continue with --resume" in process.stderr.read()
    more = run_cli(*args[:-4], "--steps", "10", "--resume", "--json")
    assert more.returncode == 0, more.stderr
    assert json.loads(more.stdout)["step"] >= 10


@pytest.mark.slow
@pytest.mark.parametrize(
    ("moves", "wins"),
    [
        ("67152117737262713366376314254", {4}),  # End-Easy: only column 5 wins (score 6)
        ("52332734325736161165177246571361", {1, 6}),  # End-Easy: columns 2 and 7 (score 4)
        ("25567612321766542715753451236", {0, 1, 2, 5, 6}),  # End-Easy: all but column 4
    ],
)
def test_puct_with_the_shipped_network_finds_forced_wins(moves: str, wins: set[int]) -> None:
    scores = Solver().analyze(Position.from_moves(moves))
    assert {c for c, s in enumerate(scores) if s is not None and s > 0} == wins
    choice = make_player("net:playouts=800").choose(Position.from_moves(moves))
    assert choice.move in wins


def test_the_terminal_words_the_raw_networks_value_as_its_own() -> None:
    """The raw network's value is its estimate of the outcome, not a search heuristic."""
    result = run_cli("play", "--red", "human", "--yellow", "net", stdin="4\nq\n")
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("yellow (net) plays"))
    assert "network value " in line and "heuristic" not in line


def test_a_full_puct_tree_is_in_the_players_stats(weights: Path) -> None:
    player = make_player(f"net:load={weights},playouts=5000")
    player.search.max_tree_nodes = 40  # type: ignore[attr-defined]
    choice = player.choose(Position())
    assert choice.stats["tree_full"] is True and choice.stats["tree_size"] == 40
    roomy = make_player(f"net:load={weights},playouts=50").choose(Position())
    assert "tree_full" not in roomy.stats


def test_the_net_move_line_ends_with_its_visits_not_a_stray_comma() -> None:
    """The move line is one line however long (wrapped, it broke after a ", ")."""
    result = run_cli(
        "play", "--red", "net:playouts=120", "--yellow", "random", "--seed", "1", "--no-review"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [x for x in result.stdout.splitlines() if x.startswith("red (net:playouts=120) plays")]
    assert lines
    for line in lines:
        assert not line.rstrip().endswith(","), line
        assert "playouts 120, " in line
        assert re.search(r", visits 1:\d+ 2:\d+ 3:\d+ 4:\d+ 5:\d+ 6:\d+ 7:\d+$", line), line


def test_networks_kept_loaded_are_bounded(tmp_path: Path) -> None:
    """A weights file rewritten again and again (a long run re-reading its latest
    network) keeps at most KEPT_NETWORKS loaded, the least recently used going first."""
    from connect4.players import net as net_module

    net_module._LOADED.clear()
    first = _save(Network.random(7, 6, channels=4, blocks=1, seed=0), tmp_path / "0.npz")
    kept = net_module.network_file(str(first))
    for seed in range(1, net_module.KEPT_NETWORKS + 3):
        path = _save(
            Network.random(7, 6, channels=4, blocks=1, seed=seed), tmp_path / f"{seed}.npz"
        )
        net_module.network_file(str(path))
        assert net_module.network_file(str(first)) is kept  # used again: never the one to go
    assert len(net_module._LOADED) == net_module.KEPT_NETWORKS
    net_module._LOADED.clear()
