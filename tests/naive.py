"""A deliberately plain 2-D array Connect Four, the reference the bitboard is tested against."""

from __future__ import annotations


class NaiveBoard:
    """grid[column][row], row 0 at the bottom; 0 empty, 1 red, 2 yellow."""

    def __init__(self, width: int, height: int, count_fours: bool = False) -> None:
        self.width = width
        self.height = height
        self.count_fours = count_fours
        self.grid = [[0] * height for _ in range(width)]
        self.ply = 0
        self.won_by: int | None = None

    def lines(self, player: int) -> int:
        """How many four-cell lines ``player`` owns."""
        total = 0
        for c in range(self.width):
            for r in range(self.height):
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    cells = [(c + k * dc, r + k * dr) for k in range(4)]
                    if all(
                        0 <= x < self.width and 0 <= y < self.height and self.grid[x][y] == player
                        for x, y in cells
                    ):
                        total += 1
        return total

    def full(self) -> bool:
        return self.ply == self.width * self.height

    def over(self) -> bool:
        return self.full() or (not self.count_fours and self.won_by is not None)

    def legal(self) -> list[int]:
        if self.over():
            return []
        return [c for c in range(self.width) if self.grid[c][self.height - 1] == 0]

    def play(self, column: int) -> None:
        player = 1 + self.ply % 2
        row = self.grid[column].index(0)
        self.grid[column][row] = player
        self.ply += 1
        if self.won_by is None and self.lines(player) > 0:
            self.won_by = player

    def winner(self) -> int | None:
        if self.count_fours:
            if not self.full():
                return None
            red, yellow = self.lines(1), self.lines(2)
            return None if red == yellow else (1 if red > yellow else 2)
        return self.won_by
