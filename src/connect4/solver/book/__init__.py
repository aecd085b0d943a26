"""Opening books: the ``.c4book`` format, the published 7x6 databases, the builder.

:func:`load_book` is the one way to a book, whatever names it (``default``,
``none``, a file, ``bitbully:NAME``), with one failure policy.

>>> from connect4.solver.book import load_book
>>> load_book("default", 7, 6) is not None
True
"""

from __future__ import annotations

from connect4.solver.book.format import BookError
from connect4.solver.book.keys import canonical_key
from connect4.solver.book.reader import BookSpec, load_book, read_bitbully, wdl_lookup
from connect4.solver.book.table import Book

__all__ = [
    "Book",
    "BookError",
    "BookSpec",
    "canonical_key",
    "load_book",
    "read_bitbully",
    "wdl_lookup",
]
