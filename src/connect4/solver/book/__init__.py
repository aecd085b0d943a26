"""Opening books: the ``.c4book`` format, the published 7x6 databases, the builder.

>>> from connect4.solver.book import default_book
>>> default_book(7, 6) is not None
True
"""

from __future__ import annotations

from connect4.solver.book.format import Book, BookError
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.reader import (
    default_book,
    exact_default_book,
    load_book,
    read_bitbully,
    wdl_lookup,
)

__all__ = [
    "Book",
    "BookError",
    "canonical_key",
    "default_book",
    "exact_default_book",
    "load_book",
    "read_bitbully",
    "wdl_lookup",
]
