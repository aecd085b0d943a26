"""The classic game AI: heuristics, minimax and alpha-beta, search trees, analysis.

One :func:`connect4.classic.search.search` runs every classic search, with a
readable Python engine and a compiled one behind it.
"""
