"""Which null window the root tests next, on its way to a score.

A null-window search ``(alpha, alpha + 1)`` answers "is the score above
``alpha``?"; these rules choose the questions. Plain integer functions, shared by
the kernel's solve (which compiles them in: the table layout's version covers
this file) and by :func:`connect4.solver.narrow.narrow`.

>>> lo, hi, tests, walking, last, value = -18, 18, 0, False, 0, 0
>>> asked = []
>>> while lo < hi:  # a score of 3, every test answering with its bound
...     last, walking = next_window(lo, hi, tests, 0, False, walking, last, value)
...     asked.append(last)
...     value = last + 1 if 3 > last else last
...     lo, hi, tests = (value, hi, tests + 1) if value > last else (lo, value, tests + 1)
>>> asked, lo
([-9, 9, 0, 1, 2, 3], 3)
"""

from __future__ import annotations


def half(x: int) -> int:
    """``x / 2`` rounded toward zero (C's integer division).

    >>> half(7), half(-7)
    (3, -3)
    """
    return x // 2 if x >= 0 else -((-x) // 2)


def next_test(lo: int, hi: int) -> int:
    """The ``alpha`` of the next null-window test of a score known to lie in ``[lo, hi]``
    (``lo < hi``) by halving: halfway, or half the bound on the side of 0 that holds the
    middle (short wins and losses are cheap to prove).

    >>> next_test(-21, 21), next_test(-21, 0), next_test(3, 18)
    (-10, -11, 10)
    """
    med = lo + (hi - lo) // 2
    if med <= 0 and half(lo) < med:
        return half(lo)
    if med >= 0 and half(hi) > med:
        return half(hi)
    return med


# Without a guess, the root's first tests are the halving's (cheap: a quick win or loss
# at about half the bounds); then 0, and from there the walk.
FAR_TESTS = 2


def next_window(
    lo: int, hi: int, tests: int, guess: int, guessed: bool, walking: bool, last: int, value: int
) -> tuple[int, bool]:
    """The ``alpha`` of the next null-window test of a score in ``[lo, hi]`` (``lo < hi``)
    after ``tests`` tests, the last of them ``(last, last + 1)`` returning the fail-soft
    ``value``; and whether that test walks. ``guess`` is the first test when
    ``guessed``; else the halving (:func:`next_test`) tests ``FAR_TESTS`` times, then
    0. After the guess (or 0) the tests walk: each sits next to the value the last one
    returned (the score is at least, or at most, that value), so a score one or two
    away from the guess costs one or two tests more, and a right guess two in all.
    When the guess (or 0) lies outside the bounds at its turn, the halving goes on to
    the end. The solver's root follows it in the kernel as in
    :func:`~connect4.solver.narrow.narrow`.

    >>> next_window(-18, 18, 0, 0, False, False, 0, 0)  # the halving's first test
    (-9, False)
    >>> next_window(-8, 18, 1, 0, False, False, -9, -8)
    (9, False)
    >>> next_window(-8, 9, 2, 0, False, False, 9, 9)  # then 0
    (0, True)
    >>> next_window(1, 9, 3, 0, False, True, 0, 1)  # above 0: is it above 1?
    (1, True)
    """
    if walking:
        return (value - 1 if value <= last else value), True
    at = 0 if guessed else FAR_TESTS
    if tests == at and lo <= guess < hi:
        return guess, True
    return next_test(lo, hi), False
