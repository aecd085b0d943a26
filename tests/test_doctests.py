"""Every docstring example in the package runs (the examples are documentation)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import connect4

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(connect4.__path__, prefix="connect4.")
    if ".web" not in info.name  # the web app's examples need a server; tested in test_web_*
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"
