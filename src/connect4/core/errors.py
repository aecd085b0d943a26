"""The package's one exception root, its two kinds, and the errors of moves.

Every exception class the package defines derives from
:class:`Connect4Exception`, in one of two kinds that no handler can confuse::

    Connect4Exception                  the one root: except it to catch them all
    ├── Connect4Error (ValueError)     bad input, or a failure named for the user
    │   ├── GameError                  InvalidMoveError, IllegalMoveError
    │   └── MissingExtra, FileError, SolverError, PlayerSpecError, BadRequest, ...
    ├── Stopped                        work stopped before it finished: not a ValueError
    │   ├── BudgetExceeded             a limit ran out before any answer (time, nodes)
    │   │   ├── JobInterrupted         a journalled job stopped (BuildInterrupted)
    │   │   ├── PoolSaturated, PoolTimeout, ClientGone   (the web's pool)
    │   │   └── Unavailable            TimeLimitExceeded, ServerStopping, ClientBusy
    │   └── SearchAborted              a search's own control flow, caught by the search
    └── StaleKernel (RuntimeError)     a compiled kernel built for another layout

One ``except Connect4Error`` catches every mistake a user can fix (the web
answers them 400, the CLI ``error: ...`` with exit 2); a :class:`Stopped` is
never caught by an ``except ValueError`` written for bad input (the web answers
it 503, the CLI one line with exit 130).

>>> from connect4 import Position
>>> Position.from_moves("48")
Traceback (most recent call last):
...
connect4.core.errors.InvalidMoveError: move 2 ('8'): column 8 is out of range 1-7
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


class Connect4Exception(Exception):
    """The root of every exception class the package defines."""


class Connect4Error(Connect4Exception, ValueError):
    """Bad input, or a failure named for the user: a clear message, no traceback.

    ``setting`` names the configuration field at fault, when one is: the message
    then starts with it in words, and an interface words it its own way with
    :meth:`worded` (the CLI as its flag), so the library never names a flag.

    >>> error = Connect4Error("must be at least 1", setting="games_per_pair")
    >>> str(error), error.worded(lambda setting: "--" + setting.replace("_", "-"))
    ('games per pair: must be at least 1', '--games-per-pair: must be at least 1')
    """

    def __init__(self, message: str = "", *, setting: str | None = None) -> None:
        self.setting = setting
        self.detail = message
        super().__init__(f"{setting.replace('_', ' ')}: {message}" if setting else message)

    def worded(self, name: Callable[[str], str]) -> str:
        """The message with its setting called ``name(setting)`` (e.g. a CLI flag)."""
        if self.setting is None:
            return str(self)
        return f"{name(self.setting)}: {self.detail}"


class Stopped(Connect4Exception):
    """Work stopped before it finished: a time limit, a node budget, a cancelled
    request, Ctrl-C, a client gone. Never a ``ValueError``: bad input and a stop
    are handled apart."""


class BudgetExceeded(Stopped):
    """A limit (time, nodes, playouts) ran out before there was any answer to give."""


class GameError(Connect4Error):
    """A game that cannot be set up: an unknown kind or rule set, a board size out
    of range, or a move string that does not replay (the move errors below)."""


class InvalidMoveError(GameError):
    """Not a move at all: a bad character or a column out of range."""


class IllegalMoveError(GameError):
    """A real move that cannot be played now: a full column or a finished game."""


def clip(text: str, keep: int = 40, mark: str = "…") -> str:
    """``text`` cut to its first ``keep`` characters and ``mark`` when it is longer, so
    a pasted novel is echoed, or named in a message, as one short line.

    >>> clip("4455"), clip("x" * 100_000, 5)
    ('4455', 'xxxxx…')
    """
    return text if len(text) <= keep else text[:keep] + mark


def unknown_choice(what: str, value: object, choices: Iterable[str]) -> str:
    """The message refusing ``value`` for ``what`` where only ``choices`` are known,
    the value cut to one short line.

    >>> unknown_choice("level", "genius", ("easy", "hard"))
    "unknown level 'genius': choose one of easy, hard"
    """
    return f"unknown {what} {clip(str(value))!r}: choose one of {', '.join(choices)}"


def move_error_prefix(index: int, token: str) -> str:
    """The start of an error message naming the move's 1-based ``index`` in the string.

    A long token is cut to its first 20 characters, so a pasted novel gets a
    one-line message.

    >>> move_error_prefix(7, "4")
    "move 7 ('4')"
    >>> move_error_prefix(1, "9" * 5000)
    "move 1 ('99999999999999999999...', 5000 characters)"
    """
    if len(token) > 20:
        return f"move {index} ({clip(token, 20, '...')!r}, {len(token)} characters)"
    return f"move {index} ({token!r})"


# ---------------------------------------------------------------- optional parts
EXTRAS: dict[str, tuple[str, str]] = {
    # an optional module: (the extra that installs it, what it is for)
    "fastapi": ("web", "the browser app (connect4 serve)"),
    "uvicorn": ("web", "the browser app (connect4 serve)"),
    "fastapi_offline": ("web", "the browser app (connect4 serve)"),
    "matplotlib": ("plots", "plots"),
    "pettingzoo": ("rl", "the RL environments (connect4.envs)"),
    "gymnasium": ("rl", "the RL environments (connect4.envs)"),
    "kaggle_environments": ("kaggle", "Kaggle's ConnectX runner"),
    "torch": ("train", "training"),
    "sb3_contrib": ("train", "training"),
    "stable_baselines3": ("train", "training"),
    "dask": ("dask", "Dask"),
    "distributed": ("dask", "Dask"),
}


def install_command(extra: str) -> str:
    """The command that installs an extra into the virtual environment ``make play``
    made, run in the project's folder (PyPI's ``connect4`` is another project).

    >>> install_command("web")
    ".venv/bin/pip install -e '.[web]'"
    """
    return f".venv/bin/pip install -e '.[{extra}]'"


class MissingExtra(Connect4Error):
    """An optional part is not installed; the message names the command that installs it.

    >>> print(MissingExtra.of_module("matplotlib.pyplot"))
    matplotlib is not installed (needed for plots): in the project's folder run \
.venv/bin/pip install -e '.[plots]'
    >>> MissingExtra.of_module("numpy") is None  # not an optional part
    True
    """

    def __init__(self, module: str, extra: str, purpose: str) -> None:
        self.module = module
        self.extra = extra
        super().__init__(
            f"{module} is not installed (needed for {purpose}): in the project's folder run "
            + install_command(extra)
        )

    @classmethod
    def of_module(cls, name: str) -> MissingExtra | None:
        """The error for a missing optional module (dotted names count by their top
        package), or ``None`` for a module no extra installs."""
        top = name.split(".")[0]
        if top not in EXTRAS:
            return None
        extra, purpose = EXTRAS[top]
        return cls(top, extra, purpose)


def require(*modules: str) -> None:
    """Raise :class:`MissingExtra` for the first of ``modules`` (optional ones, see
    :data:`EXTRAS`) that is not installed; import nothing.

    >>> require("json")
    >>> require("no_such_module_here")
    """
    from importlib.util import find_spec

    for module in modules:
        if find_spec(module) is None:
            error = MissingExtra.of_module(module)
            if error is not None:
                raise error
