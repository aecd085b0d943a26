"""The vectorised env against N single envs in Gymnasium's SyncVectorEnv, step for step.

The reference is Gymnasium's own vectorisation of :class:`ConnectFourEnv`; every
observation, reward, termination, truncation and info (masks, colours, illegal
actions, the final observations of ``SAME_STEP``) must be equal, compared with
Gymnasium's ``data_equivalence``. The search opponents are the project's players
themselves; the random opponent is the vector env's generator replayed in Python
(the same :func:`playout_cell` on Python ints) as a callable opponent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("numba")

import gymnasium
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from connect4 import Position
from connect4.classic.fastsearch import pack
from connect4.classic.mctsboard import (
    MASK64,
    S_RNG,
    board_setup,
    draw,
    free_cells,
    next_state,
    playout_cell,
    seed_state,
)
from connect4.core.game import Game
from connect4.envs import GYM_ID, ConnectFourEnv, new_game, vector_env
from connect4.envs.vecboard import E_CUR, E_MASK, E_STONES, N_SLOTS
from connect4.envs.vector import (
    CompiledOpponent,
    ConnectFourVectorEnv,
    compiled_loop,
    loop_arguments,
    words_of,
)
from connect4.players import make_player


class ReplayedRandom:
    """The vector env's random opponent and colour draws, on Python ints."""

    def __init__(self, game: Game) -> None:
        self.params, self.order, cells, self.lines = board_setup(game, False, False)
        self.cells = list(cells)
        self.st = [0] * (S_RNG + 1)

    def seed(self, seed: int) -> None:
        self.st[S_RNG] = seed_state(seed)

    def colour(self) -> str:
        self.st[S_RNG] = next_state(self.st[S_RNG], MASK64)
        return ("red", "yellow")[draw(self.st[S_RNG], 2)]

    def __call__(self, game: Game) -> int:
        cur = game.stones(game.to_move)
        mask = game.stones(1) | game.stones(2)
        free = free_cells(mask, self.params)
        st = cast(Any, self.st)  # Python ints: the generator's 64-bit words
        bit = playout_cell(cur, mask, free, self.params, self.order, self.cells, self.lines, st)
        return next(move for move, cells in enumerate(self.cells) if cells & bit)


class ReferenceEnv(ConnectFourEnv):
    """The single env with the vector env's generator: seeded by ``reset(seed)``,
    drawing the random opponent's moves and, for ``play_as="random"``, the colour."""

    def __init__(self, opponent: str, play_as: str, **kwargs: Any) -> None:
        game = new_game(
            kwargs.get("game", "connect4"), kwargs.get("width", 7), kwargs.get("height", 6),
            kwargs.get("rules", "standard"),
        )  # fmt: skip
        self.replay = ReplayedRandom(game)
        self.random_colour = play_as == "random"
        super().__init__(
            opponent=self.replay if opponent == "random" else opponent,
            play_as="red" if self.random_colour else play_as,
            **kwargs,
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self.replay.seed(seed)
        if self.random_colour:
            self.play_as = self.replay.colour()
        return super().reset(seed=seed, options=options)


def reference(num_envs: int, mode: AutoresetMode, **kwargs: Any) -> SyncVectorEnv:
    makers: list[Callable[[], gymnasium.Env[Any, Any]]] = [
        lambda: ReferenceEnv(**kwargs) for _ in range(num_envs)
    ]
    return SyncVectorEnv(makers, autoreset_mode=mode)


def agent_actions(rng: np.random.Generator, masks: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A random legal action per env; now and then an illegal one (a full column, -1, W)."""
    actions: np.ndarray[Any, Any] = (rng.random(masks.shape) * masks).argmax(axis=1)
    wild = rng.random(len(actions)) < 0.03
    actions[wild] = rng.integers(-1, masks.shape[1] + 1, size=int(wild.sum()))
    return actions


def assert_same(a: Any, b: Any, what: str) -> None:
    """Equal as Gymnasium compares data; the message names the first part that differs."""
    if data_equivalence(a, b, exact=True):
        return
    names = ("observation", "reward", "terminated", "truncated", "info")[-len(a) :]
    for name, x, y in zip(names, a, b, strict=True):
        if isinstance(x, dict) and isinstance(y, dict):
            assert x.keys() == y.keys(), f"{what}: info keys {sorted(x)} != {sorted(y)}"
            for key in x:
                assert data_equivalence(x[key], y[key], exact=True), (
                    f"{what}: info[{key!r}] differs:\n{x[key]}\n{y[key]}"
                )
        assert data_equivalence(x, y, exact=True), f"{what}: {name} differs:\n{x}\n{y}"


CASES = [
    {"opponent": "random", "play_as": "red"},
    {"opponent": "random", "play_as": "random"},
    {"opponent": "alphabeta:depth=2", "play_as": "yellow"},
    {"opponent": "alphabeta:depth=3,heuristic=threats,tt=on", "play_as": "random"},
    {"opponent": "minimax:depth=2,heuristic=cell-weights,ordering=none", "play_as": "red"},
    {"opponent": "random", "play_as": "random", "width": 5, "height": 4, "rules": "count-fours"},
    {"opponent": "alphabeta:depth=2", "play_as": "red", "width": 4, "height": 4},
    {"opponent": "alphabeta:depth=2", "play_as": "random", "game": "tictactoe"},
    {"opponent": "random", "play_as": "yellow", "width": 9, "height": 6},
    # boards over 63 bits: the two-word loop
    {"opponent": "random", "play_as": "random", "width": 8, "height": 8},
    {
        "opponent": "alphabeta:depth=2,heuristic=threats,tt=on",
        "play_as": "random",
        "width": 10,
        "height": 6,
    },
    {
        "opponent": "minimax:depth=1,heuristic=adjacency",
        "play_as": "yellow",
        "width": 8,
        "height": 8,
        "rules": "count-fours",
    },
    {
        "opponent": "alphabeta:depth=2,heuristic=cell-weights",
        "play_as": "red",
        "width": 16,
        "height": 7,
    },
]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("case", CASES, ids=lambda case: ",".join(map(str, case.values())))
def test_equals_sync_vector_env_of_single_envs(case: dict[str, Any], mode: AutoresetMode) -> None:
    num_envs, steps = 6, 120
    ours = ConnectFourVectorEnv(num_envs=num_envs, autoreset_mode=mode, **case)
    theirs = reference(num_envs, mode, **case)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    rng = np.random.default_rng(7)
    first = ours.reset(seed=11)
    assert_same(first, theirs.reset(seed=11), "reset")
    masks = first[1]["action_mask"]
    ends = 0
    for step in range(steps):
        actions = agent_actions(rng, masks)
        result = ours.step(actions)
        assert_same(result, theirs.step(actions), f"step {step} (actions {actions})")
        masks = result[4]["action_mask"]
        ends += int(result[2].sum())
        if step == steps // 2:  # a partial reset, reseeding two envs
            which = np.zeros(num_envs, dtype=np.bool_)
            which[[1, 4]] = True
            seeds = [None, 5, None, None, 9, None]
            options = {"reset_mask": which}
            partial = ours.reset(seed=seeds, options=dict(options))
            assert_same(partial, theirs.reset(seed=seeds, options=dict(options)), "partial reset")
            masks = np.where(which[:, None], partial[1]["action_mask"], masks)
    assert ends >= num_envs  # the run crossed autoreset boundaries


def random_positions(count: int, seed: int, **board: Any) -> list[Position]:
    """Positions reached by random moves, none of them over."""
    rng = np.random.default_rng(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position(**board)
        for _ in range(int(rng.integers(0, position.size - 2))):
            moves = position.legal_moves()
            position.play(int(rng.choice(moves)))
            if position.is_over():
                position.undo()
                break
        found.append(position)
    return found


@pytest.mark.parametrize(
    ("spec", "board"),
    [
        ("alphabeta:depth=3", {}),
        ("alphabeta:depth=4,heuristic=threats,tt=on", {}),
        ("alphabeta:depth=5,heuristic=windows,tt=on", {"width": 6, "height": 5}),
        ("minimax:depth=2,heuristic=adjacency", {"rules": "count-fours"}),
        ("alphabeta:depth=3,heuristic=threats,tt=on", {"width": 8, "height": 8}),
        ("minimax:depth=2,heuristic=adjacency", {"width": 10, "height": 6, "rules": "count-fours"}),
        ("alphabeta:depth=3,heuristic=cell-weights", {"width": 9, "height": 7}),
        ("alphabeta:depth=2", {"width": 16, "height": 7}),  # 128 bits
        ("alphabeta:depth=3,heuristic=threats,tt=on", {"width": 12, "height": 7}),  # 96, table on
    ],
)
def test_search_opponent_picks_the_players_moves(spec: str, board: dict[str, Any]) -> None:
    empty = Position(**board)
    opponent = CompiledOpponent(spec, empty)
    words = words_of(empty)
    _, depth, params, order, _, lines, _, directions, weights, hcells, st, *rest = loop_arguments(
        empty, opponent, words
    )
    table, (movebuf, pv, pvlen, heights) = rest[:3], rest[3:]
    player = make_player(spec, width=empty.width, height=empty.height, rules=empty.rules)
    row = np.zeros(N_SLOTS * words, dtype=np.int64)
    count = 60 if words == 1 else 20  # the player's search runs in Python there
    for position in random_positions(count, 3, **board):
        mask = position.stones(1) | position.stones(2)
        row[E_CUR::N_SLOTS] = pack([position.stones(position.to_move)], words)
        row[E_MASK::N_SLOTS] = pack([mask], words)
        row[E_STONES] = position.ply
        move = compiled_loop(words).search_move(
            row, depth, params, order, directions, weights, hcells, lines, st, *table, movebuf,
            pv, pvlen, heights,
        )  # fmt: skip
        assert move == player.choose(position).move, position.moves


def rollout(env: ConnectFourVectorEnv, seed: int, steps: int) -> list[Any]:
    observation, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace: list[Any] = [observation]
    for _ in range(steps):
        actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=1)
        observation, reward, terminated, _, info = env.step(actions)
        trace += [observation, reward, terminated]
    return trace


BOARDS = [{}, {"width": 8, "height": 8}]  # one word, two words


@pytest.mark.parametrize("board", BOARDS, ids=["7x6", "8x8"])
def test_seeded_runs_repeat_and_seeds_differ(board: dict[str, Any]) -> None:
    def run(seed: int) -> list[Any]:
        return rollout(ConnectFourVectorEnv(num_envs=16, play_as="random", **board), seed, 60)

    first, again, other = run(4), run(4), run(5)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    env = ConnectFourVectorEnv(num_envs=16, play_as="random", **board)
    env.reset(seed=4)
    colours = set(env.reset()[1]["play_as"])  # reset without a seed goes on drawing
    assert colours == {"red", "yellow"}


def test_make_vec_uses_the_compiled_env_by_default() -> None:
    env = gymnasium.make_vec(GYM_ID, num_envs=4, opponent="alphabeta:depth=1", play_as="yellow")
    assert isinstance(env, ConnectFourVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    observation, info = env.reset(seed=0)
    assert observation.shape == (4, 6, 7, 2) and observation.dtype == np.int8
    assert info["action_mask"].shape == (4, 7) and info["action_mask"].dtype == np.int8
    assert env.observation_space.contains(observation)
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", opponent="mcts")
    assert isinstance(sync, SyncVectorEnv)
    same = gymnasium.make_vec(GYM_ID, num_envs=2, autoreset_mode="SameStep")
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert vector_env(3, width=5, height=4).reset(seed=1)[0].shape == (3, 4, 5, 2)


@pytest.mark.parametrize("board", BOARDS, ids=["7x6", "8x8"])
def test_game_over_then_next_step_resets(board: dict[str, Any]) -> None:
    env = ConnectFourVectorEnv(num_envs=1, opponent="alphabeta:depth=1", play_as="red", **board)
    env.reset(seed=0)
    for column in (3, 3, 3, 3):  # the opponent blocks the vertical four at depth 1...
        observation, reward, terminated, _, info = env.step(np.array([column]))
        if terminated[0]:
            break
    steps = 0
    while not terminated[0]:
        action = int(np.flatnonzero(info["action_mask"][0])[0])
        observation, reward, terminated, _, info = env.step(np.array([action]))
        steps += 1
    assert reward[0] in (-1.0, 0.0, 1.0) and not info["action_mask"].any()
    observation, reward, terminated, _, info = env.step(np.array([0]))
    assert observation.sum() == 0 and reward[0] == 0.0 and not terminated[0]
    assert info["action_mask"].all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be an int >= 1, not 0"),
        ({"play_as": "blue"}, "unknown play_as 'blue'"),
        ({"autoreset_mode": "Later"}, "unknown autoreset_mode 'Later': choose NextStep"),
        ({"opponent": "mcts"}, "runs the random, minimax and alphabeta opponents, not 'mcts'"),
        ({"opponent": "perfect"}, 'vectorization_mode="sync"'),
        ({"opponent": "alphabeta:time=0.1"}, "searches to a fixed depth"),
        ({"opponent": "alphabeta:schedule=2/3"}, "searches to a fixed depth"),
        ({"opponent": "alphabeta:level=hard"}, "(no time, schedule or opening book)"),
        ({"opponent": "minimax:depth=3,book=4"}, "(no time, schedule or opening book)"),
        ({"opponent": "alphabeta:heuristic=recent-lines"}, "cannot compile the heuristic"),
        ({"opponent": "random:seed=3"}, "random opponent takes no options"),
        ({"opponent": "alphabeta:depth=x"}, "bad opponent 'alphabeta:depth=x'"),
        ({"opponent": "nobody"}, "unknown player 'nobody'"),
        ({"opponent": Position.legal_moves}, "takes an opponent spec (a string)"),
        ({"width": 12, "height": 10}, "board 12x10 is too large: width*(height+1) = 132"),
        ({"rules": "gomoku"}, "unknown rules 'gomoku'"),
        ({"render_mode": "human"}, "does not render"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        ConnectFourVectorEnv(**kwargs)


@pytest.mark.parametrize("board", BOARDS, ids=["7x6", "8x8"])
def test_bad_calls_are_refused(board: dict[str, Any]) -> None:
    env = ConnectFourVectorEnv(num_envs=2, autoreset_mode="Disabled", **board)
    with pytest.raises(RuntimeError, match=re.escape("call reset() before step()")):
        env.step(np.array([0, 0]))
    with pytest.raises(ValueError, match=re.escape("seed must be an int, a list of 2 ints")):
        env.reset(seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape("a list of seeds must hold 2 ints")):
        env.reset(seed=[1])
    with pytest.raises(ValueError, match=re.escape("reset_mask'] must be a bool array of shape")):
        env.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ValueError, match=re.escape("reset_mask'] selects no env")):
        env.reset(options={"reset_mask": np.zeros(2, dtype=np.bool_)})
    env.reset(seed=0)
    with pytest.raises(ValueError, match=re.escape("actions must have shape (2,), one per env")):
        env.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match=re.escape("actions must be integers, not float64")):
        env.step(np.array([0.0, 1.0]))
    outside = env.actions  # one past the last column
    _, reward, terminated, _, info = env.step(np.array([0, outside]))
    assert reward.tolist() == [0.0, -1.0] and terminated.tolist() == [False, True]
    assert info["illegal_action"].tolist() == [False, True]
    with pytest.raises(ValueError, match=re.escape("envs [1] are over and autoreset_mode is")):
        env.step(np.array([0, 0]))
    env.reset(options={"reset_mask": np.array([False, True])})
    env.step(np.array([0, 0]))
