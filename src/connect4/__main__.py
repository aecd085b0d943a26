"""``python -m connect4``: the ``connect4`` command."""

from connect4.cli import main

if __name__ == "__main__":
    main()
