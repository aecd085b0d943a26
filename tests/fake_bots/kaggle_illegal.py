"""A ConnectX agent that answers one past the last column (forfeit: illegal move)."""


def agent(observation, configuration):
    return configuration.columns
