"""Practice at the end of a terminal game: ``connect4 play --practice`` practises the
humans' mistakes at once; a piped game without it is not asked and reads as before."""

from __future__ import annotations

from tests.cli_helpers import run_cli


def test_play_practises_the_humans_mistakes_with_practice() -> None:
    moves = "2\n4\n6\n8\n5\n1\n3\n7\n"  # tic-tac-toe: both sides err, a draw at last
    args = ("play", "--game", "tictactoe", "--red", "human", "--yellow", "human")
    practised = run_cli(*args, "--practice", stdin=moves + "9\ns\nh\nq\n")
    assert practised.returncode == 0, practised.stderr
    out = practised.stdout
    assert "every move: connect4 review 24685137 --game tictactoe" in out
    assert "Exercise 1 of 6: ply 2, O to move" in out
    assert "wrong: 9 is as bad as the game's move" in out
    assert "the answer: 5 (win in 3); the best line: 5 8 3 6 7" in out
    assert out.splitlines()[-1].endswith("1 revealed, 1 skipped, 4 not reached")
    scripted = run_cli(*args, stdin=moves + "9\n")  # piped input: not asked, not practised
    assert scripted.returncode == 0, scripted.stderr
    assert "Exercise" not in scripted.stdout and "Practise" not in scripted.stdout
    assert scripted.stdout.splitlines()[-1] == (
        "every move: connect4 review 24685137 --game tictactoe"
    )
