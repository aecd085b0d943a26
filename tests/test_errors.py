"""One error root: every exception class the package defines is a Connect4Error."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import connect4
from connect4.core.errors import BudgetExceeded, Connect4Error

# Control flow inside one component, always caught there (each says why in a comment).
INTERNAL = {"connect4.classic.search.SearchAborted", "connect4.solver.native.StaleKernel"}
# A limit that ran out before any answer: the web answers these with 503, not 400.
LIMITS = {
    "connect4.solver.book.jobs.JobInterrupted",
    "connect4.solver.book.build.BuildInterrupted",
    "connect4.web.errors.Unavailable",
    "connect4.web.errors.TimeLimitExceeded",
    "connect4.web.pool.PoolSaturated",
    "connect4.web.pool.PoolTimeout",
}


def package_exceptions() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(connect4.__path__, prefix="connect4."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("connect4."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


def test_every_exception_the_package_defines_has_the_one_root() -> None:
    exceptions = package_exceptions()
    assert "connect4.players.external.BotFault" in exceptions  # the walk finds them
    stray = sorted(
        name
        for name, error in exceptions.items()
        if name not in INTERNAL and not issubclass(error, Connect4Error)
    )
    assert stray == []
    assert set(exceptions) >= INTERNAL


def test_the_limits_that_ran_out_are_budget_exceeded() -> None:
    exceptions = package_exceptions()
    assert sorted(n for n in LIMITS if not issubclass(exceptions[n], BudgetExceeded)) == []
