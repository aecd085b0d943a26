"""The compiler boundary is pinned: numba and llvmlite come from the tested range.

The solver's kernels are compiled by numba and loaded through llvmlite; a release
outside the range named in pyproject.toml may change what they rely on. When the
installed versions drift, this test fails and names the pin to re-test and move.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pinned() -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    requirements = [Requirement(line) for line in project["dependencies"]]
    return {r.name: r for r in requirements if r.name in ("numba", "llvmlite")}


def test_numba_and_llvmlite_have_an_upper_bound() -> None:
    pins = pinned()
    assert set(pins) == {"numba", "llvmlite"}
    for name, requirement in pins.items():
        bounds = [spec for spec in requirement.specifier if spec.operator in ("<", "<=", "==")]
        assert bounds, f"{name} has no upper bound in pyproject.toml: {requirement}"


@pytest.mark.parametrize("name", ["numba", "llvmlite"])
def test_the_installed_compiler_is_in_the_tested_range(name: str) -> None:
    requirement = pinned()[name]
    installed = version(name)
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"{name} {installed} is outside the tested range '{requirement}' in pyproject.toml: "
        "run the solver tests and compare_reference.py with it, then move the pin"
    )
