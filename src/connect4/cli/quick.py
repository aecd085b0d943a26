"""A plain command line read without typer's value checks, which import pydantic (about
a third of ``connect4 play``'s time to its first prompt).

The command's own declarations are read: the options' flags, defaults and callbacks
from typer's command, their types from the function's annotations. Only a plain line
is read here: ``--name value`` (or ``--name=value``) options of type str, int or
float (or ``None``-able), flags, and words for one list of strings given as
arguments (``connect4 solve 4455 44``). Anything else (``--help``, an unknown option,
one given twice, a value typer might read differently or refuse) is left to typer,
which reads the whole line again and words any error itself.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

INTEGER = re.compile(r"[+-]?[0-9]+")
NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def bare(annotation: object) -> object:
    """An option's annotation with ``Annotated`` and ``| None`` taken off."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(arguments) == 1:
        annotation = arguments[0]
    return annotation


def plain_type(annotation: object) -> type | None:
    """``str``, ``int``, ``float`` or ``bool`` behind an option's annotation (``Annotated``
    and ``| None`` taken off), or ``None`` for any other type.

    >>> from typing import Annotated
    >>> plain_type(Annotated[int | None, "an option"]), plain_type(list[int])
    (<class 'int'>, None)
    """
    annotation = bare(annotation)
    if annotation in (str, int, float, bool):
        return typing.cast(type, annotation)
    return None


def declared(annotation: object, key: str) -> object:
    """The ``key`` setting (``min``, ``callback``, ...) of the ``typer.Option`` inside an
    ``Annotated`` option; ``None`` where there is none."""
    for extra in getattr(annotation, "__metadata__", ()):
        if hasattr(extra, key):
            return getattr(extra, key)
    return None


def convert(text: str, kind: type, annotation: object) -> object:
    """``text`` as an option's value of type ``kind`` within its declared bounds; raises
    ``ValueError`` where typer should read it."""
    if kind is str:
        return text
    if not (INTEGER if kind is int else NUMBER).fullmatch(text):
        raise ValueError(text)
    value = kind(text)
    low, high = declared(annotation, "min"), declared(annotation, "max")
    if declared(annotation, "clamp") or (low is not None and value < low):
        raise ValueError(text)
    if high is not None and value > high:
        raise ValueError(text)
    return value


def quick_options(
    function: Callable[..., object], command: Any, args: list[str]
) -> dict[str, object] | None:
    """The keyword arguments a plain command line ``args`` gives ``function``, a typer
    command (``command``: the click command typer made of it), or ``None`` where typer
    should read the line.

    >>> from typing import Annotated
    >>> import typer
    >>> from typer.main import get_command
    >>> def greet(name: Annotated[str, typer.Option()] = "you",
    ...           times: Annotated[int, typer.Option(min=1)] = 1,
    ...           loud: Annotated[bool, typer.Option("--loud")] = False) -> None: ...
    >>> demo = typer.Typer(add_completion=False)
    >>> _ = demo.command()(greet)
    >>> command = get_command(demo)  # one command: the command itself
    >>> quick_options(greet, command, ["--times=2", "--loud"])
    {'name': 'you', 'times': 2, 'loud': True}
    >>> quick_options(greet, command, ["--times", "0"]) is None  # typer says why
    True
    """
    hints = typing.get_type_hints(function, include_extras=True)
    flags: dict[str, Any] = {}
    words_param: Any = None
    for param in command.params:
        if param.param_type_name == "argument" and param.nargs == -1 and words_param is None:
            if bare(hints.get(param.name)) != list[str] or param.envvar:
                return None
            words_param = param  # a list of strings: the plain words of the line
            continue
        kind = plain_type(hints.get(param.name))
        simple = param.param_type_name == "option" and param.nargs == 1 and not param.multiple
        if kind is None or not simple or param.secondary_opts or param.envvar or param.prompt:
            return None
        if (kind is bool) != bool(param.is_flag):
            return None
        flags.update({flag: param for flag in param.opts})
    given: dict[str, object] = {}
    plain_words: list[str] = []
    words = list(args)
    while words:
        word = words.pop(0)
        if words_param is not None and not word.startswith("-"):
            plain_words.append(word)
            continue
        flag, equals, inline = word.partition("=")
        param = flags.get(flag)
        if param is None or param.name in given or (equals and not flag.startswith("--")):
            return None  # click reads -t=3 as the value '=3'
        annotation = hints[param.name]
        if param.is_flag:
            if equals:
                return None
            given[param.name] = True
            continue
        if not equals:
            if not words:
                return None
            inline = words.pop(0)
        parser = declared(annotation, "parser")
        try:
            if callable(parser):
                given[param.name] = parser(inline)
            else:
                given[param.name] = convert(
                    inline, typing.cast(type, plain_type(annotation)), annotation
                )
        except Exception:  # typer's BadParameter among them: typer words it
            return None
    if words_param is not None and plain_words:
        given[words_param.name] = plain_words
    values: dict[str, object] = {}
    for param in command.params:
        value = given.get(param.name, param.default)
        callback = declared(hints[param.name], "callback")
        if callable(callback):
            if len(inspect.signature(callback).parameters) != 1:
                return None
            try:
                value = callback(value)
            except Exception:  # typer's BadParameter among them: typer words it
                return None
        values[param.name] = value
    return values
