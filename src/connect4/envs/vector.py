"""A vectorised Gymnasium env: N boards stepped in one compiled call.

:class:`ConnectFourVectorEnv` is ``N`` copies of :class:`~connect4.envs.single.ConnectFourEnv`
behind :class:`gymnasium.vector.VectorEnv`: the same observations (``(N, H, W, 2)``
int8, plane 0 the agent's stones, row 0 the top), rewards, terminations and
``info["action_mask"]`` (``(N, W)`` int8), with the opponents' moves made inside
the compiled loop of :mod:`connect4.envs.vecboard`. Opponents: ``"random"`` (a
uniform legal move) and the ``minimax``/``alphabeta`` specs with a fixed depth
(``"alphabeta:depth=3,heuristic=threats,tt=on"``, ``"alphabeta:level=medium"``),
which pick the moves those players pick. Other players are refused with a
message naming Gymnasium's ``"sync"`` vectorisation, which runs any of them.

Boards of up to 63 bits (7x6, 8x6 ...) keep a bitboard in one ``int64`` word;
bigger ones, up to 128 bits (8x8, 9x7, 10x6 ...), run the same loop compiled over
two words (:mod:`connect4.envs.wideboard`), compiled on their first use.

Autoreset: Gymnasium's default, ``AutoresetMode.NEXT_STEP`` (declared in
``metadata["autoreset_mode"]``): the step after a game ends starts the next one,
ignores its action and returns reward 0. ``SAME_STEP`` and ``DISABLED`` are
there too (``autoreset_mode=``).

>>> import numpy as np
>>> env = ConnectFourVectorEnv(num_envs=3, opponent="alphabeta:depth=2", play_as="yellow")
>>> observation, info = env.reset(seed=0)
>>> observation.shape, info["action_mask"].shape, observation[:, -1, 3, 1].tolist()
((3, 6, 7, 2), (3, 7), [1, 1, 1])
>>> observation, reward, terminated, truncated, info = env.step(np.array([3, 2, 4]))
>>> observation[:, :, :, 0].sum(axis=(1, 2)).tolist(), reward.tolist()
([1, 1, 1], [0.0, 0.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from connect4.classic.fastmcts import COMPILED as MCTS_COMPILED
from connect4.classic.fastsearch import (
    COMPILED as SEARCH_COMPILED,
    CompiledEngine,
    compile_module,
    new_table,
    pack,
    supports,
    words_of,
)
from connect4.classic.heuristics import Heuristic, get_heuristic
from connect4.classic.mctsboard import (
    N_PARAMS,
    P_HEURISTIC,
    P_MASK64,
    P_SOLVER,
    board_setup,
    seed_state,
)
from connect4.classic.node import P_GEN
from connect4.classic.results import Algorithm, Ordering
from connect4.core.bits import layout_bits
from connect4.core.game import Game
from connect4.core.games import Board
from connect4.envs import vecboard
from connect4.envs.board import Info
from connect4.envs.vecboard import (
    DISABLED,
    E_AGENT,
    E_DONE,
    E_RNG,
    N_SLOTS,
    NEXT_STEP,
    OPP_RANDOM,
    OPP_SEARCH,
    RANDOM_COLOUR,
    RED,
    RESET,
    SAME_STEP,
    YELLOW,
)
from connect4.players import PlayerContext, PlayerSpecError, make_player, parse_spec
from connect4.players.search import SearchPlayer

COMPILED = compile_module(vecboard, inline=vecboard.INLINE, base=(SEARCH_COMPILED, MCTS_COMPILED))

MODES = {
    AutoresetMode.NEXT_STEP: NEXT_STEP,
    AutoresetMode.SAME_STEP: SAME_STEP,
    AutoresetMode.DISABLED: DISABLED,
}
PLAY_AS = {"red": RED, "yellow": YELLOW, "random": RANDOM_COLOUR}
COLOUR_NAMES = np.array([None, "red", "yellow"], dtype=object)
SYNC_HINT = (
    'gymnasium.make_vec("connect4/ConnectFour-v0", num_envs=N, vectorization_mode="sync", '
    "opponent=...) runs any opponent, one env at a time in Python"
)

Int8Array = npt.NDArray[np.int8]
IntArray = npt.NDArray[np.int64]
Seed = int | Sequence[int | None] | None


def env_seed_state(seed: int) -> int:
    """The generator state of an env reset with ``seed``, as numba's ``int64`` holds it
    (:func:`~connect4.classic.mctsboard.seed_state`).

    >>> env_seed_state(0)
    -2152535657050944081
    """
    word = seed_state(seed)
    return word - (1 << 64) if word >= 1 << 63 else word


class CompiledOpponent:
    """An opponent spec as the compiled loop runs it: a kind, a depth and the search's
    settings (a random opponent keeps the defaults). Specs it cannot run raise
    ``ValueError`` saying why.

    >>> game = Board("connect4", 7, 6, "standard").new()
    >>> CompiledOpponent("alphabeta:level=medium", game).depth
    10
    >>> CompiledOpponent("mcts", game)
    Traceback (most recent call last):
    ...
    ValueError: the vector env runs the random, minimax and alphabeta opponents, not 'mcts': \
gymnasium.make_vec("connect4/ConnectFour-v0", num_envs=N, vectorization_mode="sync", \
opponent=...) runs any opponent, one env at a time in Python
    """

    def __init__(self, spec: object, game: Game) -> None:
        if not isinstance(spec, str):
            raise ValueError(
                f"the vector env takes an opponent spec (a string), not {type(spec).__name__}: "
                + SYNC_HINT
            )
        try:
            parsed = parse_spec(spec)
            player = make_player(parsed, PlayerContext(Board.of(game)))
        except (PlayerSpecError, ValueError) as error:
            raise ValueError(f"bad opponent {spec!r}: {error}") from None
        player.close()
        kind_name = parsed.kind.name
        self.spec = spec
        self.kind = OPP_RANDOM
        self.depth = 0
        self.algorithm: Algorithm = "alphabeta"
        self.heuristic: Heuristic = get_heuristic("windows", game.kind)
        self.ordering: Ordering = "center"
        self.tt = False
        if kind_name == "random":
            if parsed.given:
                raise ValueError(
                    f"the vector env's random opponent takes no options, not {spec!r}: "
                    "reset(seed=...) seeds its generators"
                )
            return
        if not isinstance(player, SearchPlayer):
            raise ValueError(
                f"the vector env runs the random, minimax and alphabeta opponents, not "
                f"{spec!r}: " + SYNC_HINT
            )
        limits = player.limits
        if player.seconds is not None or limits.schedule is not None or player.opening is not None:
            raise ValueError(
                f"the vector env's {kind_name} opponent searches to a fixed depth "
                f"(no time, schedule or opening book), not {spec!r}: " + SYNC_HINT
            )
        if not supports(game, player.heuristic, words_of(game)):
            raise ValueError(
                f"the vector env cannot compile the heuristic {player.heuristic!r} of "
                f"{spec!r}: " + SYNC_HINT
            )
        self.kind = OPP_SEARCH
        self.depth = limits.depth_for(game)
        self.algorithm = "minimax" if player.algorithm == "minimax" else "alphabeta"
        self.heuristic = get_heuristic(player.heuristic, game.kind)
        self.ordering = "none" if player.ordering == "none" else "center"
        self.tt = player.tt


def compiled_loop(words: int) -> SimpleNamespace:
    """The compiled loop for bitboards of ``words`` words (the two-word one is
    imported, and compiled or loaded from the cache, on first use)."""
    if words == 1:
        return COMPILED
    from connect4.envs import wideboard

    return wideboard.COMPILED


def loop_arguments(
    game: Game, opponent: CompiledOpponent, words: int = 1
) -> tuple[int | IntArray, ...]:
    """What the compiled loop takes after ``play_as``: the opponent's kind and depth,
    the board's parameters (the search's slots and the playout's), moves in move
    order, the cells each move fills, lines, the bit behind each observed cell, and the
    search's arrays (laid out by :class:`~connect4.classic.fastsearch.CompiledEngine`),
    bitboards in ``words`` words."""
    engine = CompiledEngine(
        game, opponent.algorithm, opponent.heuristic, opponent.ordering, opponent.tt, words
    )
    search = engine.params.reshape(words, -1)  # the low words, then the high words
    params = np.zeros((words, N_PARAMS), dtype=np.int64)
    params[:, : search.shape[1]] = search
    params[0, P_SOLVER], params[0, P_HEURISTIC], params[0, P_MASK64] = 0, 0, -1
    table = engine.table
    if opponent.tt:  # a table of its own: the loop counts generations, one per search
        table = new_table()
        params[0, P_GEN] = 0
    cells = pack(board_setup(game, solver=False, heuristic=False)[2], words)
    lines = engine.lines if len(engine.lines) else np.zeros(1, dtype=np.int64)
    height, width = game.height, game.width
    if game.kind == "tictactoe":
        bits = [(height - 1 - top) * width + c for top in range(height) for c in range(width)]
    else:
        bits = layout_bits(width, height).reshape(-1).tolist()
    return (
        opponent.kind, opponent.depth, params.reshape(-1), engine.order, cells, lines,
        np.array(bits, dtype=np.int64), engine.directions, engine.weights, engine.cells,
        np.zeros(6, dtype=np.int64), *table, engine.movebuf, engine.pv, engine.pvlen,
        engine.heights,
    )  # fmt: skip


class ConnectFourVectorEnv(VectorEnv):
    """``num_envs`` games against one opponent spec, stepped together; see the module
    docstring. The arguments are :class:`~connect4.envs.single.ConnectFourEnv`'s, plus
    ``num_envs`` and ``autoreset_mode`` (an :class:`~gymnasium.vector.AutoresetMode` or
    its value, ``"NextStep"``, ``"SameStep"``, ``"Disabled"``).

    Seeding: ``reset(seed=s)`` gives env ``i`` the generator ``seed_state(s + i)``
    (or ``seed[i]`` for a list), which draws the random opponent's moves and, with
    ``play_as="random"``, the agent's colour at each new episode.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        opponent: str = "random",
        play_as: str = "red",
        width: int = 7,
        height: int = 6,
        rules: str = "standard",
        game: str = "connect4",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, not {num_envs!r}")
        if play_as not in PLAY_AS:
            raise ValueError(f"unknown play_as {play_as!r}: choose red, yellow or random")
        if render_mode is not None:
            raise ValueError(
                f"the vector env does not render (render_mode {render_mode!r}): "
                "render one board with ConnectFourEnv"
            )
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            names = ", ".join(m.value for m in AutoresetMode)
            raise ValueError(f"unknown autoreset_mode {autoreset_mode!r}: choose {names}") from None
        self.board = Board(game, width, height, rules)
        board = self.board.new()
        self.words = words_of(board)
        """The words of a bitboard in the compiled loop (2 on boards over 63 bits)."""
        self.opponent = CompiledOpponent(opponent, board)
        self.play_as = play_as
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.render_mode = None
        self.actions = len(board_setup(board, solver=False, heuristic=False)[2])
        self.single_action_space = spaces.Discrete(self.actions)
        self.observation_size = board.height * board.width * 2
        self.single_observation_space = spaces.Box(
            low=0, high=1, shape=(board.height, board.width, 2), dtype=np.int8
        )
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._args = loop_arguments(board, self.opponent, self.words)
        self._loop = compiled_loop(self.words)
        self._state = np.zeros((num_envs, N_SLOTS * self.words), dtype=np.int64)
        self._state[:, E_DONE] = 1
        self._seeded = np.zeros(num_envs, dtype=np.bool_)
        self._started = False
        self._mode = MODES[mode]
        self._play_as = PLAY_AS[play_as]
        self.moves_played = 0
        """Moves made since construction, the agents' and the opponents' (for benchmarks)."""

    def reset(self, *, seed: Seed = None, options: Info | None = None) -> tuple[Int8Array, Info]:
        """New games (those of ``options["reset_mask"]``, a ``(num_envs,)`` bool array, or
        all); ``seed`` an int (env ``i`` gets ``seed + i``) or one seed per env."""
        n = self.num_envs
        which = np.ones(n, dtype=np.bool_)
        if options is not None and "reset_mask" in options:
            which = self._reset_mask(options["reset_mask"])
        seeds = self._seeds(seed)
        if isinstance(seed, int):
            super().reset(seed=seed)
        for i in np.flatnonzero(which):
            one = seeds[i]
            if one is None and not self._seeded[i]:
                one = int(self.np_random.integers(2**62))
            if one is not None:
                self._state[i, E_RNG] = env_seed_state(one)
                self._seeded[i] = True
        obs, masks = self._buffers()
        no_rewards, no_flags = np.empty(n, np.float64), np.empty(n, np.int64)
        self.moves_played += self._loop.step_games(
            which.astype(np.int64), self._state, RESET, self._play_as, *self._args, obs, masks,
            no_rewards, no_flags, obs[:0], masks[:0],
        )  # fmt: skip
        self._started = True
        if not which.all():
            masks[~which] = 0
        return obs.reshape(self.observation_space.shape), self._infos(masks, which)

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Int8Array,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        Info,
    ]:
        """Play each env's action and its opponent's answer (see the module docstring)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        moves = self._actions(actions)
        if self._mode == DISABLED:
            over = np.flatnonzero(self._state[:, E_DONE])
            if len(over):
                raise ValueError(
                    f"envs {over.tolist()} are over and autoreset_mode is Disabled: reset them "
                    "first, reset(options={'reset_mask': mask})"
                )
        n = self.num_envs
        obs, masks = self._buffers()
        rewards = np.empty(n, dtype=np.float64)
        flags = np.empty(n, dtype=np.int64)
        same_step = self._mode == SAME_STEP
        final_obs = np.zeros_like(obs) if same_step else obs[:0]
        final_masks = np.zeros_like(masks) if same_step else masks[:0]
        self.moves_played += self._loop.step_games(
            moves, self._state, self._mode, self._play_as, *self._args, obs, masks, rewards,
            flags, final_obs, final_masks,
        )  # fmt: skip
        terminated = (flags & 1).astype(np.bool_)
        illegal = (flags & 2).astype(np.bool_)
        infos = self._infos(masks, None)
        if same_step:
            restarted = (flags & 4).astype(np.bool_)
            finished_colour = np.where(flags & 8, YELLOW, RED)
            illegal &= ~restarted
            shape = self.single_observation_space.shape
            boxed = np.full(n, None, dtype=object)
            for i in np.flatnonzero(restarted):
                boxed[i] = final_obs[i].reshape(shape)
            final_masks[~restarted] = 0
            final_info = self._info_arrays(
                final_masks, restarted, finished_colour, (flags & 2).astype(np.bool_) & restarted
            )
            if restarted.any():
                infos.update(
                    final_obs=boxed,
                    _final_obs=restarted,
                    final_info=final_info,
                    _final_info=restarted.copy(),
                )
        if illegal.any():
            infos["illegal_action"], infos["_illegal_action"] = illegal, illegal.copy()
        truncated = np.zeros(n, dtype=np.bool_)
        return obs.reshape(self.observation_space.shape), rewards, terminated, truncated, infos

    def close_extras(self, **kwargs: object) -> None:
        """Nothing to release."""

    # ---------------------------------------------------------------- helpers
    def _buffers(self) -> tuple[Int8Array, Int8Array]:
        n = self.num_envs
        cells = self.observation_size
        return np.empty((n, cells), dtype=np.int8), np.empty((n, self.actions), dtype=np.int8)

    def _infos(self, masks: Int8Array, which: npt.NDArray[np.bool_] | None) -> Info:
        present = np.ones(self.num_envs, dtype=np.bool_) if which is None else which
        return self._info_arrays(masks, present, self._state[:, E_AGENT], None)

    def _info_arrays(
        self,
        masks: Int8Array,
        present: npt.NDArray[np.bool_],
        colours: IntArray,
        illegal: npt.NDArray[np.bool_] | None,
    ) -> Info:
        """The infos of the envs ``present`` marks, as Gymnasium's vector envs batch them:
        each key beside ``_key``, the mask of the envs that have it."""
        play_as = COLOUR_NAMES[np.where(present, colours, 0)]
        info: Info = {
            "action_mask": masks,
            "_action_mask": present,
            "play_as": play_as,
            "_play_as": present.copy(),
        }
        if illegal is not None and illegal.any():
            info["illegal_action"], info["_illegal_action"] = illegal, illegal.copy()
        return info

    def _actions(self, actions: npt.ArrayLike) -> IntArray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},), one per env, not {array.shape}"
            )
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be integers, not {array.dtype}")
        return array.astype(np.int64)

    def _reset_mask(self, mask: object) -> npt.NDArray[np.bool_]:
        if (
            not isinstance(mask, np.ndarray)
            or mask.dtype != np.bool_
            or mask.shape != (self.num_envs,)
        ):
            raise ValueError(
                f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)"
            )
        if not mask.any():
            raise ValueError("options['reset_mask'] selects no env")
        return mask

    def _seeds(self, seed: Seed) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if isinstance(seed, bool) or not isinstance(seed, (int, list, tuple)):
            raise ValueError(f"seed must be an int, a list of {n} ints or None, not {seed!r}")
        if isinstance(seed, int):
            return [seed + i for i in range(n)]
        seeds = list(seed)
        if len(seeds) != n or not all(s is None or isinstance(s, int) for s in seeds):
            raise ValueError(f"a list of seeds must hold {n} ints (or None), not {seed!r}")
        return seeds


def warm_up(wide: bool = True) -> None:
    """Compile (or load from the cache) the vectorised env's loop once: a step of two
    7x6 boards against an ``alphabeta`` opponent and, with ``wide``, of two 8x8 boards
    (the two-word loop of boards over 63 bits)."""
    for width, height in [(7, 6)] + ([(8, 8)] if wide else []):
        env = ConnectFourVectorEnv(2, "alphabeta:depth=1", width=width, height=height)
        _, info = env.reset(seed=0)
        env.step(np.asarray(info["action_mask"], dtype=np.int64).argmax(axis=1))
        env.close()
