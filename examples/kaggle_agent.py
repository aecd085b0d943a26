"""A minimal Kaggle ConnectX agent: the last function in the file is the agent.

It wins at once when it can, else blocks the opponent's win, else plays the
centremost free column. Submit it to Kaggle's ConnectX as it is, or enter it
in a tournament: connect4 arena --players kaggle:examples/kaggle_agent.py random
"""


def wins(board, columns, rows, column, mark):
    """True when dropping ``mark`` into ``column`` makes four in a row."""
    row = max(r for r in range(rows) if board[r * columns + column] == 0)
    cells = {(r, c) for r in range(rows) for c in range(columns) if board[r * columns + c] == mark}
    cells.add((row, column))
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        line = 1
        for sign in (1, -1):
            r, c = row + sign * dr, column + sign * dc
            while (r, c) in cells:
                line, r, c = line + 1, r + sign * dr, c + sign * dc
        if line >= 4:
            return True
    return False


def agent(observation, configuration):
    columns, rows = configuration.columns, configuration.rows
    board, mark = observation.board, observation.mark
    free = sorted(
        (c for c in range(columns) if board[c] == 0), key=lambda c: abs(2 * c - columns + 1)
    )
    for who in (mark, 3 - mark):
        for column in free:
            if wins(board, columns, rows, column, who):
                return column
    return free[0]
