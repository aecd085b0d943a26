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


class NaiveSolver:
    """Exhaustive negamax on plain column lists, scores in Pons' convention, memoised.

    Independent of the bitboards: a column is a list of 1/2 from the bottom up,
    and a win is found by walking the four directions from the last stone.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.memo: dict[tuple[tuple[int, ...], ...], int] = {}

    def wins(self, columns: list[list[int]], column: int) -> bool:
        """Would the side to move win by dropping a stone in ``column``?"""
        player = 1 + sum(len(c) for c in columns) % 2
        row = len(columns[column])

        def owner(c: int, r: int) -> int:
            if c == column and r == row:
                return player
            inside = 0 <= c < self.width and 0 <= r < len(columns[c])
            return columns[c][r] if inside else 0

        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                k = 1
                while owner(column + sign * k * dc, row + sign * k * dr) == player:
                    run += 1
                    k += 1
            if run >= 4:
                return True
        return False

    def score(self, columns: list[list[int]]) -> int:
        """The exact score of the position for the side to move (the game is not over)."""
        key = tuple(tuple(c) for c in columns)
        if key in self.memo:
            return self.memo[key]
        stones = sum(len(c) for c in columns)
        size = self.width * self.height
        playable = [c for c in range(self.width) if len(columns[c]) < self.height]
        if any(self.wins(columns, c) for c in playable):
            value = (size + 1 - stones) // 2
        elif stones + 1 == size:  # the last cell draws
            value = 0
        else:
            value = -size
            player = 1 + stones % 2
            for c in playable:
                columns[c].append(player)
                value = max(value, -self.score(columns))
                columns[c].pop()
        self.memo[key] = value
        return value

    def column_scores(self, columns: list[list[int]]) -> list[int | None]:
        """Every column's score (``None`` for a full column)."""
        size = self.width * self.height
        stones = sum(len(c) for c in columns)
        player = 1 + stones % 2
        scores: list[int | None] = []
        for c in range(self.width):
            if len(columns[c]) == self.height:
                scores.append(None)
            elif self.wins(columns, c):
                scores.append((size + 1 - stones) // 2)
            elif stones + 1 == size:
                scores.append(0)
            else:
                columns[c].append(player)
                scores.append(-self.score(columns))
                columns[c].pop()
        return scores
