"""A ConnectX agent that answers a numpy integer, which Kaggle's action schema refuses."""

import numpy as np


def agent(observation, configuration):
    return np.argmax(np.array(observation.board[: configuration.columns]) == 0)
