"""The keys of a player spec: each :class:`Option` parses its value from ASCII text
(numbers in a range, a choice, a switch, a seed), and the keys most kinds share
(``level``, ``seed``) are written once.

>>> parse_int(1, 9)("3"), parse_switch("on")
(3, True)
>>> with_level({"level": "hard", "depth": 3}, {"hard": {"depth": 8, "tt": True}})
{'depth': 3, 'tt': True}
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "MAX_MOVE_SECONDS",
    "SEED_MAX",
    "NumberRange",
    "Option",
    "level_option",
    "parse_choice",
    "parse_float",
    "parse_int",
    "parse_seed",
    "parse_switch",
    "seed_option",
    "time_option",
    "with_level",
]

MAX_MOVE_SECONDS = 3600
"""The longest ``time`` a player spec takes per move."""

SEED_MAX = 2**32 - 1
"""The largest seed a player spec takes (``seed=0`` .. ``seed=4294967295``): NumPy's and
the compiled searches' generators take 32-bit seeds."""


@dataclass(frozen=True)
class Option:
    """One key of a player kind: a description, a parser and the choices to list."""

    description: str
    parse: Callable[[str], object]
    choices: tuple[str, ...] = ()
    default: str | None = None
    reads_file: bool = False  # its value names a file to read: never from a web client


NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
"""A decimal number in ASCII: ``2``, ``0.5``, ``.5``, ``1e-3`` (no ``inf``, ``nan``, ``1_0``)."""


@dataclass(frozen=True)
class NumberRange:
    """A parser for a number in ``[low, high]`` written in ASCII (an integer when
    ``integer``); menus read the bounds (the web page clamps a link's values to them).

    >>> NumberRange(1, 9, integer=True)("3"), NumberRange(0, 10)("2.5")
    (3, 2.5)
    """

    low: float  # an int when ``integer``
    high: float
    integer: bool = False

    def __call__(self, text: str) -> object:
        if self.integer:
            digits = text.removeprefix("-")
            if (
                not (digits.isascii() and digits.isdigit())
                or not self.low <= int(text) <= self.high
            ):
                raise ValueError(f"must be an integer {self.low}-{self.high}")
            return int(text)
        if not NUMBER.fullmatch(text) or not self.low <= float(text) <= self.high:
            raise ValueError(f"must be a number {self.low:g}-{self.high:g}")
        return float(text)


def parse_int(low: int, high: int) -> NumberRange:
    """A parser for an integer in ``[low, high]``, written in ASCII digits
    (``int()`` alone would take ``"٣"`` or ``"1_000"``).

    >>> parse_int(1, 9)("3"), parse_int(-5, 5)("-2")
    (3, -2)
    >>> parse_int(1, 9)("٣")
    Traceback (most recent call last):
    ...
    ValueError: must be an integer 1-9
    """
    return NumberRange(low, high, integer=True)


def parse_float(low: float, high: float) -> NumberRange:
    """A parser for a decimal number in ``[low, high]``, written in ASCII.

    >>> parse_float(0, 10)("2.5"), parse_float(0, 10)("1e-3")
    (2.5, 0.001)
    >>> parse_float(0, 10)("nan")
    Traceback (most recent call last):
    ...
    ValueError: must be a number 0-10
    """
    return NumberRange(low, high)


parse_seed = parse_int(0, SEED_MAX)
"""The parser of every player's ``seed`` key."""


def parse_choice(*choices: str) -> Callable[[str], object]:
    """A parser accepting one of ``choices``."""

    def parse(text: str) -> object:
        if text not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return text

    return parse


def parse_switch(text: str) -> object:
    """``on``/``off`` (also true/false, yes/no, 1/0) as a bool."""
    lowered = text.lower()
    if lowered in ("on", "true", "yes", "1"):
        return True
    if lowered in ("off", "false", "no", "0"):
        return False
    raise ValueError("must be on or off")


def seed_option(description: str = "random seed (defaults to the game's seed)") -> Option:
    """The ``seed`` key: ``0`` .. :data:`SEED_MAX`."""
    return Option(description, parse_seed)


def time_option(
    description: str = "seconds per move", low: float = 0.01, default: str | None = None
) -> Option:
    """The ``time`` key: seconds per move, from ``low`` up to an hour.

    >>> time_option().parse("0.5")
    0.5
    """
    return Option(description, parse_float(low, MAX_MOVE_SECONDS), (), default)


def level_option(
    levels: Iterable[str], description: str = "preset strength", default: str | None = None
) -> Option:
    """The ``level`` key of a kind with preset strengths, listed as its choices.

    >>> level_option(("easy", "hard")).choices
    ('easy', 'hard')
    """
    names = tuple(levels)
    return Option(description, parse_choice(*names), names, default)


def with_level(
    values: Mapping[str, object],
    presets: Mapping[str, Mapping[str, object]],
    defaults: Mapping[str, object] | None = None,
) -> dict[str, object]:
    """The settings a spec's parsed ``values`` give: ``defaults``, then the preset of their
    ``level`` (if any), then the keys given, which win over both."""
    settings = dict(defaults or {})
    level = values.get("level")
    if isinstance(level, str):
        settings.update(presets[level])
    settings.update({key: value for key, value in values.items() if key != "level"})
    return settings
