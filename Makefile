# Quick start: `make play` (installs the program, the browser app and the plots; starts a
# game in the terminal) and `make test` (ruff, mypy, the import contract, pytest).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip

.PHONY: play test lint typecheck imports pytest bench clean chromium

# pip put in the venv by the system's pip where it has one (7 s less than ensurepip's copy
# on a loaded machine: no bytecode compiled), else by ensurepip
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile pip 2>/dev/null \
	  || $(BIN)/python -m ensurepip --default-pip >/dev/null \
	  || { rm -rf $(VENV); echo "no pip for $(VENV): install python3-venv (or python3-pip)"; exit 1; }

# the whole program: the package with the browser app's and the plots' extras, so every
# command the README shows works after `make play`; no bytecode compiled at install (7-17 s
# of a first `make play` on a loaded machine): a module is compiled on its first import,
# and most of numba's, numpy's and matplotlib's never are. Redone when this recipe changes.
PLAY_EXTRAS := web,plots
$(VENV)/.installed: pyproject.toml Makefile | $(BIN)/python
	$(PIP) install --quiet --no-compile -e '.[$(PLAY_EXTRAS)]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed

play: $(VENV)/.installed  # a first run compiles the solver in the background meanwhile
	$(BIN)/connect4 play --red human --yellow auto

chromium:
	@command -v chromium >/dev/null 2>&1 || test -x /usr/bin/chromium || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy --strict src/connect4

imports: $(VENV)/.installed-test
	$(BIN)/lint-imports

# the tests' own cache root (tests/conftest.py uses the same one): they never write into
# the user's caches, and `connect4 prepare` compiles into it once, outside a test's limit
TEST_CACHE := $(CURDIR)/.c4cache-test

pytest: $(VENV)/.installed-test chromium
	CONNECT4_CACHE_DIR=$(TEST_CACHE) $(BIN)/connect4 prepare
	CONNECT4_CACHE_DIR=$(TEST_CACHE) $(BIN)/pytest -m 'not slow' -q -n 2 --dist loadgroup --durations=30

test: lint typecheck imports pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	rm -rf .c4cache-test  # the tests' cache root; a user's is CONNECT4_CACHE_DIR or ~/.cache/connect4
	find src tests benchmarks -name __pycache__ -prune -exec rm -rf {} +
