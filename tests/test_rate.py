"""``connect4 rate``: error rates on exact positions, through the real command.

The figures are checked against an independent count made here: each position's
columns scored by the solver (``connect4.analyze``), the player asked for its move
with the seed the command gives it (the position's index), the errors counted.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from connect4 import Position, analyze
from connect4.arena.ladder import DECISIVE_PLIES, LEVEL_TARGETS, Labels, decisive, decisive_set
from connect4.arena.rate import wilson
from connect4.players import make_player
from connect4.solver.bench import pons_path
from tests.cli_helpers import interrupt_cli, journal_records, run_cli

PYTHON = sys.executable
# the first positions of Pons' Middle-Medium set: 15-27 stones, outcomes of every kind
POSITIONS = [line.split()[0] for line in pons_path("Test_L2_R2").read_text().splitlines()[:10]]
KEYS = {
    "spec",
    "positions",
    "outcome_error",
    "score_error",
    "seconds_per_move",
    "outcome_interval",
    "score_interval",
    "outcome_errors",
    "score_errors",
    "failures",
    "sets",
}

# a bot of the line protocol: the leftmost column with room; when crashing, it dies on
# positions with a multiple of 3 stones and answers column 9 (an even number of stones) or
# 'hello' (odd) on those with one more
BOT = """
import sys, time
delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
log = sys.argv[2] if len(sys.argv) > 2 else None
for line in sys.stdin:
    words = line.split()
    if words[0] == "init":
        print("ready", flush=True)
    elif words[0] == "move":
        moves = "" if words[1] == "-" else words[1]
        time.sleep(delay)
        if log:
            with open(log, "a") as f:
                f.write(moves + "\\n")
        if CRASHING and len(moves) % 3 == 0:
            raise SystemExit(3)
        if CRASHING and len(moves) % 3 == 1:
            print(9 if len(moves) % 2 == 0 else "hello", flush=True)
            continue
        print(next(c for c in range(1, 8) if moves.count(str(c)) < 6), flush=True)
    elif words[0] == "quit":
        break
"""


def write_bot(folder: Path, crashing: bool) -> Path:
    path = folder / ("crashing_bot.py" if crashing else "leftmost_bot.py")
    path.write_text(f"CRASHING = {crashing}\n" + BOT)
    return path


def leftmost(moves: str) -> int:
    return next(c for c in range(7) if moves.count(str(c + 1)) < 6)


def count(moves: list[str], choose: list[int | None]) -> tuple[int, int]:
    """Outcome and score errors of the moves chosen (``None``: a failure, both errors),
    counted from the solver's scores of every column."""
    outcome = score = 0
    for m, move in zip(moves, choose, strict=True):
        scores = analyze(Position.from_moves(m))
        best = max(s for s in scores if s is not None)
        got = None if move is None else scores[move]
        sign = lambda s: (s > 0) - (s < 0)  # noqa: E731
        outcome += got is None or sign(got) < sign(best)
        score += got is None or got < best
    return outcome, score


def positions_file(folder: Path, moves: list[str]) -> Path:
    path = folder / "positions.txt"
    path.write_text("".join(f"{m} 0\n" for m in moves))  # the file's scores are not used
    return path


def rate_json(*args: str) -> list[dict[str, object]]:
    done = run_cli("rate", *args, "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout)
    assert isinstance(data, list)
    return data


def test_rates_agree_with_an_independent_count(tmp_path: Path) -> None:
    file = positions_file(tmp_path, POSITIONS)
    data = rate_json("random", "perfect", "alphabeta:depth=2", "--positions", str(file))
    assert [d["spec"] for d in data] == ["random", "perfect", "alphabeta:depth=2"]
    for d in data:
        assert set(d) == KEYS
        assert d["positions"] == len(POSITIONS)
        assert isinstance(d["seconds_per_move"], float) and d["seconds_per_move"] >= 0
        assert d["failures"] == {}
        sets = d["sets"]
        assert isinstance(sets, list) and [s["set"] for s in sets] == ["positions.txt"]
    by_spec = {str(d["spec"]): d for d in data}
    perfect = by_spec["perfect"]
    assert (perfect["outcome_error"], perfect["score_error"]) == (0.0, 0.0)
    assert perfect["outcome_interval"] == list(wilson(0, len(POSITIONS)))
    for spec in ("random", "alphabeta:depth=2"):
        picks: list[int | None] = []
        for index, m in enumerate(POSITIONS):
            player = make_player(spec, seed=index)
            picks.append(player.choose(Position.from_moves(m)).move)
            player.close()
        outcome, score = count(POSITIONS, picks)
        got = by_spec[spec]
        assert (got["outcome_errors"], got["score_errors"]) == (outcome, score), spec
        assert got["outcome_error"] == round(outcome / len(POSITIONS), 4)
        assert got["score_error"] == round(score / len(POSITIONS), 4)
        assert got["outcome_interval"] == list(wilson(outcome, len(POSITIONS)))
    assert by_spec["random"]["score_errors"] > 0  # the positions tell players apart


def test_worker_processes_give_the_same_figures(tmp_path: Path) -> None:
    file = positions_file(tmp_path, POSITIONS)
    specs = ("random", "mcts:playouts=50", "net:temperature=1")
    counted = [
        [(d["spec"], d["outcome_errors"], d["score_errors"], d["positions"]) for d in data]
        for data in (
            rate_json(*specs, "--positions", str(file)),
            rate_json(*specs, "--positions", str(file), "--workers", "2"),
        )
    ]
    assert counted[0] == counted[1]


def test_a_bot_that_crashes_or_answers_badly_counts_as_errors(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, crashing=True)
    file = positions_file(tmp_path, POSITIONS)
    (data,) = rate_json(f"cmd:{PYTHON} {bot}", "--positions", str(file))
    crashes = sum(len(m) % 3 == 0 for m in POSITIONS)
    illegal = sum(len(m) % 3 == 1 and len(m) % 2 == 0 for m in POSITIONS)
    garbled = sum(len(m) % 3 == 1 and len(m) % 2 == 1 for m in POSITIONS)
    assert crashes and illegal and garbled and crashes + illegal + garbled < len(POSITIONS)
    assert data["failures"] == {"bad output": garbled, "crash": crashes, "illegal move": illegal}
    picks = [None if len(m) % 3 in (0, 1) else leftmost(m) for m in POSITIONS]
    outcome, score = count(POSITIONS, picks)
    assert (data["outcome_errors"], data["score_errors"]) == (outcome, score)
    assert data["positions"] == len(POSITIONS)


def test_a_bot_past_its_clock_has_failed_there(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, crashing=False)
    file = positions_file(tmp_path, POSITIONS[:3])
    (slow, quick) = rate_json(
        f"cmd:{PYTHON} {bot} 8", f"cmd:{PYTHON} {bot}", "--positions", str(file), "--clock", "2"
    )
    assert slow["failures"] == {"timeout": 3}
    assert (slow["outcome_errors"], slow["score_errors"]) == (3, 3)
    assert quick["failures"] == {}
    assert (quick["outcome_errors"], quick["score_errors"]) == count(
        POSITIONS[:3], [leftmost(m) for m in POSITIONS[:3]]
    )


def test_the_table_names_each_player_set_and_failures(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, crashing=True)
    file = positions_file(tmp_path, POSITIONS[:4])
    done = run_cli("rate", "perfect", f"cmd:{PYTHON} {bot}", "--positions", str(file))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = done.stdout.splitlines()
    assert rows[0].split()[:3] == ["player", "set", "positions"]
    assert re.match(r"perfect +positions\.txt +4 +0\.0 % \(0\.0-49\.0\)", rows[1])
    assert "1 crash, 2 illegal move" in rows[2]  # 15 stones: a crash; 16 and 16: column 9


def test_the_helper_finds_all_six_shipped_pons_sets_by_either_name() -> None:
    from connect4.arena.ladder import PONS_ORDER
    from connect4.solver.bench import PONS_SETS, benchmark_file, read_cases

    assert sorted(PONS_ORDER) == sorted(PONS_SETS)
    for file, label in PONS_SETS.items():
        path = pons_path(file)
        assert path.name == file and pons_path(label.upper()) == path
        assert path.read_bytes().count(b"\n") == 1000
        assert len(read_cases(benchmark_file(label))) == 1000
    with pytest.raises(KeyError):
        pons_path("Test_L4_R1")


def test_pons_sets_by_name_with_a_limit() -> None:
    data = rate_json("perfect", "--set", "end-easy", "--set", "Test_L2_R1", "--limit", "3")
    (d,) = data
    assert d["positions"] == 6 and d["outcome_error"] == 0.0
    sets = d["sets"]
    assert isinstance(sets, list)
    assert [(s["set"], s["positions"]) for s in sets] == [("End-Easy", 3), ("Middle-Easy", 3)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random", "--set", "Begin-Impossible"], "--set: no set 'Begin-Impossible': Pons' sets"),
        (["nobody"], "unknown player"),
        (["human"], "a person cannot be rated"),
        (["random", "--clock", "0"], "--clock"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    done = run_cli("rate", *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("4455 3\n44x 1\n", 2, "move"),
        ("4455 3\n4455\n", 2, "expected 'moves score'"),
        ("4455 3\n1111111 0\n", 2, "full"),
        ("4455 3\n1212121 0\n", 2, "already over"),
    ],
)
def test_a_bad_positions_line_is_named(tmp_path: Path, text: str, line: int, why: str) -> None:
    file = tmp_path / "bad.txt"
    file.write_text(text)
    done = run_cli("rate", "random", "--positions", str(file))
    assert done.returncode == 2
    (error,) = done.stderr.strip().splitlines()
    assert error.startswith(f"error: --positions: {file}:{line}:"), error
    assert why in error


def test_resume_after_ctrl_c_judges_only_the_rest(tmp_path: Path) -> None:
    bot = write_bot(tmp_path, crashing=False)
    log = tmp_path / "asked.txt"
    spec = f"cmd:{PYTHON} {bot} 0.3 {log}"
    file = positions_file(tmp_path, POSITIONS[:8])
    args = ["rate", spec, "--positions", str(file), "--json"]

    def working(_process: object) -> bool:  # a chunk (two positions) is in the journal
        return log.exists() and len(log.read_text().splitlines()) >= 3

    done = interrupt_cli(args, working)
    assert done.returncode == 130, done.stderr
    found = re.search(r"the moves judged so far are in (\S+) \(resume with --resume\)", done.stderr)
    assert found, done.stderr
    journal = Path(found.group(1))
    kept = journal_records(journal)
    assert kept >= 1
    asked_before = len(log.read_text().splitlines())

    again = run_cli(*args)  # without --resume: refused, the journal kept
    assert again.returncode == 2 and "--resume" in again.stderr and "--force" in again.stderr
    assert journal.exists()

    data = rate_json(*args[1:-1], "--resume")
    assert not journal.exists()
    asked = log.read_text().splitlines()
    assert len(asked) - asked_before == 8 - 2 * kept  # each position once more at most
    (d,) = data
    outcome, score = count(POSITIONS[:8], [leftmost(m) for m in POSITIONS[:8]])
    assert (d["positions"], d["outcome_errors"], d["score_errors"]) == (8, outcome, score)


def test_the_decisive_set_is_seeded_decisive_and_kept(tmp_path: Path) -> None:
    with Labels(tmp_path) as labels:
        first = decisive_set(6, 5, labels, None)
        labelled = len(labels.known)
    assert len(first.moves) == 6 and len(set(first.moves)) == 6
    with Labels(tmp_path) as labels:
        assert len(labels.known) == labelled  # the labels were kept
        again = decisive_set(4, 5, labels, None)  # read back: nothing labelled again
        assert len(labels.known) == labelled
        for m in first.moves:
            position = Position.from_moves(m)
            assert DECISIVE_PLIES[0] <= position.ply <= DECISIVE_PLIES[1]
            assert not any(position.is_winning_move(c) for c in position.legal_moves())
            assert decisive(labels.known[m])
            assert list(labels.known[m]) == analyze(position)
    assert again.moves == first.moves[:4]
    assert (tmp_path / "decisive-7x6-seed-5.txt").is_file()


def test_a_level_on_a_decisive_set_is_judged_against_its_target(tmp_path: Path) -> None:
    specs = ("alphabeta:level=easy", "mcts:level=hard,seed=2", "alphabeta:level=hard,depth=3")
    file = positions_file(tmp_path, POSITIONS[:3])  # not decisive: no target there
    data = rate_json(*specs, "random", "--decisive", "30", "--positions", str(file))
    by_spec: dict[str, Any] = {str(d["spec"]): d for d in data}
    for spec, target in (("alphabeta:level=easy", 0.3), ("mcts:level=hard,seed=2", 0.03)):
        pons_row, decisive_row = by_spec[spec]["sets"]
        assert decisive_row["target"] == target
        low, high = wilson(decisive_row["outcome_errors"], 30)
        expected = "meets" if low <= target <= high else "weaker" if low > target else "stronger"
        assert decisive_row["verdict"] == expected
        assert "target" not in pons_row and "target" not in by_spec[spec]  # two sets
    for spec in ("alphabeta:level=hard,depth=3", "random"):  # not a level as it stands
        assert not any("target" in row for row in by_spec[spec]["sets"])
    only: Any = rate_json("net:level=medium", "--decisive", "10")[0]
    assert (only["target"], only["verdict"]) == (0.1, only["sets"][0]["verdict"])
    table = run_cli("rate", "alphabeta:level=easy", "--decisive", "10").stdout
    assert "level target" in table.splitlines()[0] and "30 %: " in table
    helped = " ".join(run_cli("rate", "--help").stdout.split())
    for level, share in LEVEL_TARGETS.items():  # the help names the targets the code judges by
        assert f"{level} {100 * share:.0f} %" in helped, level


def test_the_plot_is_written(tmp_path: Path) -> None:
    file = positions_file(tmp_path, POSITIONS[:3])
    plot = tmp_path / "ladder.png"
    done = run_cli("rate", "random", "perfect", "--positions", str(file), "--plot", str(plot))
    assert done.returncode == 0, done.stderr[-2000:]
    assert plot.read_bytes().startswith(b"\x89PNG")
    refused = run_cli("rate", "random", "--positions", str(file), "--plot", str(plot))
    assert refused.returncode == 2 and "--force" in refused.stderr


def test_a_run_resumes_only_under_the_same_players(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal is named by what the players' moves depend on, not only the spec
    text: a level retuned or a network replaced since the interrupted run makes the
    same spec another player, whose moves must not be mixed with the old ones."""
    from connect4.arena.rate import RateConfig, fingerprint
    from connect4.net.model import shipped_path
    from connect4.players import mcts

    def identity(*specs: str) -> object:
        return RateConfig(specs, ()).identity()

    before = identity("mcts:level=easy", "random")
    assert identity("mcts:level=easy", "random") == before
    monkeypatch.setitem(mcts.LEVELS, "easy", {"playouts": 301})
    assert identity("mcts:level=easy", "random") != before
    shipped = shipped_path()
    assert shipped is not None
    weights = tmp_path / "net.npz"
    weights.write_bytes(shipped.read_bytes())
    first = fingerprint(f"net:load={weights}")
    assert first == fingerprint(f"net:load={weights}")
    weights.write_bytes(shipped.read_bytes() + b"\0")  # another file at the same path
    assert fingerprint(f"net:load={weights}") != first
