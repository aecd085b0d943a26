"""A ConnectX agent that plays one move, then raises (forfeit: crash)."""

calls = []


def agent(observation, configuration):
    calls.append(observation.step)
    if len(calls) > 1:
        return 1 // 0
    return configuration.columns // 2
