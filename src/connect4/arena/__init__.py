"""Tournaments between players: schedule, play, results, ratings and the heuristic lab."""
