"""A hostile user's checks, each through the real command or a real server: what a
killed, interrupted or misused ``connect4`` must leave behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import interrupt_cli, run_cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games-per-pair", "1000000000000"], "error: --games-per-pair: 1 pair(s) x "),
        (["--seed", "-5"], "must be in 0..4294967295"),
        (["--seed", "99999999999999999999"], "must be in 0..4294967295"),
    ],
)
def test_an_arena_that_cannot_finish_or_a_seed_out_of_range_is_refused_at_once(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """``--games-per-pair 10**12`` built its schedule until memory ran out (900 MB in
    12 s); a seed outside the players' range was taken silently."""
    results = tmp_path / "r.jsonl"
    done = run_cli("arena", "-p", "random", "-p", "random:seed=2", "--results", str(results),
                   *args, timeout=60)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not results.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["play", "--red", "random", "--yellow", "random", "--seed", "99999999999999999999"],
        ["play", "--red", "random", "--yellow", "random", "--seed", "-1"],
        ["dataset", "--positions", "5", "--width", "5", "--height", "4", "--seed", "4294967296"],
        ["tree", "", "--algorithm", "mcts", "--seed", "18446744073709551616"],
    ],
)
def test_every_commands_seed_is_in_the_players_range(tmp_path: Path, args: list[str]) -> None:
    """``play --seed`` took any integer (negative, or past 2**64) and ``dataset`` up to
    2**63 - 1, where the players' seeds are 0..SEED_MAX."""
    if args[0] == "dataset":
        args = [*args, "--out", str(tmp_path / "d.npz")]
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "must be in 0..4294967295" in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_in_an_arena_with_workers_prints_no_traceback(tmp_path: Path) -> None:
    """The pool's thread, finding its workers gone after Ctrl-C, set an exception on
    the cancelled games' futures and printed InvalidStateError's traceback."""
    for round_ in range(3):
        results = tmp_path / f"r{round_}.jsonl"
        args = ["arena", "-p", "alphabeta:depth=8", "-p", "alphabeta:depth=7", "--workers",
                "2", "--games-per-pair", "2000", "--results", str(results)]  # fmt: skip

        def played(_: object, results: Path = results, games: int = 1 + round_) -> bool:
            return results.exists() and len(results.read_bytes().splitlines()) >= games

        done = interrupt_cli(args, played)
        assert done.returncode == 130, done.stderr
        assert "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["tree", "", "--depth", "40", "--budget", "1000000000"], "--budget"),
        (["lab", "--accuracy-nodes", "1000000000000000"], "--accuracy-nodes"),
        (["lab", "--test-positions", "1000000000000"], "--test-positions"),
    ],
)
def test_budgets_that_cannot_finish_are_refused_with_their_limit(
    tmp_path: Path, args: list[str], flag: str
) -> None:
    """``tree --budget 10**9`` recorded a tree for hours; the lab's review budget and
    test-set size took any number."""
    if args[0] == "lab":
        args = [*args, "--out", str(tmp_path / "lab")]
    done = run_cli(*args, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert flag in done.stderr and "less than or equal to" in done.stderr
    assert "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def every_command() -> list[str]:
    """Every command line's command, groups' subcommands each (``book build``), read from
    the CLI's own table, so a new command is checked without being listed here."""
    from connect4.cli.app import COMMANDS, load_command

    names = []
    for name in COMMANDS:
        group = getattr(load_command(name), "commands", None)
        names += [f"{name} {sub}" for sub in group] if group else [name]
    return names


COMMANDS = every_command()


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_reads_as_text(command: str) -> None:
    """No docstring markup (``--flag``) and no ``<bool>`` beside a flag in any help."""
    shown = run_cli(*command.split(), "--help")
    assert shown.returncode == 0, shown.stderr
    assert "``" not in shown.stdout
    assert "<bool>" not in shown.stdout
    assert "--help" in shown.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "--width", "40"],
        ["solve", "4455", "48"],
        ["solve", "--no-such-flag"],
        ["bench", "--width", "40", "Test_L3_R1"],
        ["bench", "--width", "33", "--height", "2", "Test_L3_R1"],
        ["review", "48"],
        ["play", "--red", "nobody"],
        ["tree", "44", "--width", "40"],
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    """Every usage error (bad option, value, spec, move string argument) exits 2 as
    typer's own do; ``solve`` said 1 for a bad board or argument, ``bench`` a traceback."""
    done = run_cli(*args, stdin="4455\n")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr


def test_train_piped_prints_whole_lines(tmp_path: Path) -> None:
    """Piped (``connect4 train ... | cat``), training logs a line a point: its progress
    bar, drawn once at the end at 80 columns, cut its last line off."""
    pytest.importorskip("torch")
    done = run_cli("train", "--generate", "50", "--steps", "10", "--eval-every", "5",
                   "--out", str(tmp_path / "net.pt"), timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert not [line for line in lines if line.startswith("training")]
    assert lines[-1].startswith(f"wrote {tmp_path / 'net.pt'} and ")
    assert lines[-1].endswith("%") and "…" not in done.stdout
