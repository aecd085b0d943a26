"""A ConnectX agent that checks what it is given, prints chatter, and plays a random free column.

As in Kaggle, the last callable is the agent: the imported ``choice`` and the
helper defined before it are not.
"""

import random
from random import choice

import numpy as np


def free_columns(board, columns):
    return [c for c in range(columns) if board[c] == 0]


def agent(observation, configuration):
    print("thinking...")  # an agent's prints must not reach the protocol
    columns, rows = configuration.columns, configuration["rows"]
    board = np.array(observation.board).reshape(rows, columns)
    stones = int((board != 0).sum())
    assert observation.step == stones, (observation.step, stones)
    assert observation.mark == 1 + stones % 2, (observation.mark, stones)
    assert configuration.inarow == 4 and configuration.timeout == configuration.actTimeout
    assert all(board[r + 1, c] != 0 for r in range(rows - 1) for c in range(columns) if board[r, c])
    random.seed(stones)
    return choice(free_columns(observation.board, columns))
