"""Learning to play: exercises and explanations built on the exact review.

This layer sits above the review and below the interfaces (the terminal, the
web app and the command line): practice of a game's own mistakes, the threat
map with its explanations of the solver's verdict, and the opening explorer.
Each module turns exact scores into something a player can learn from; none of
them prints or serves anything itself.
"""
