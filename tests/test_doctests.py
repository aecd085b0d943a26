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


TWO_WORD_LOOP = "two-word-loop"
"""The xdist group of the tests that compile the vector env's loop over two-word boards
(20-30 s): on one worker, the second finds it compiled (``make test`` runs pytest with
``--dist loadgroup``)."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xdist_group(TWO_WORD_LOOP))
        if name == "connect4.envs.wideboard"
        else name
        for name in MODULES
    ],
)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} failing example(s) in {name}"
