"""A ConnectX agent that sleeps far past any move time limit (forfeit: timeout)."""

import time


def agent(observation, configuration):
    time.sleep(30)
    return 0
