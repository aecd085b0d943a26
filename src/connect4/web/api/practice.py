"""Practise your mistakes over HTTP: a game reviewed, each of the reviewed side's
mistakes, blunders and missed wins as an exercise, with every legal move already
graded by :meth:`~connect4.learn.practice.Exercise.grade` and the solver's answer
and line (:meth:`~connect4.learn.practice.Exercise.solution`). A client looks an
answer up; it grades nothing itself, so there is one grading rule."""

from __future__ import annotations

from connect4.core.games import DEFAULT_BOARD, Board
from connect4.core.limits import clock
from connect4.learn.practice import Exercise, PracticeError, Solution, exercises, parse_sides
from connect4.web.api.review import ReviewRequests
from connect4.web.clients import Caller
from connect4.web.errors import BadRequest
from connect4.web.models import (
    PracticeAnswer,
    PracticeExercise,
    PracticeResponse,
    PracticeSolution,
)


class PracticeRequests(ReviewRequests):
    """``/api/practice``: a reviewed game's exercises, every answer graded."""

    async def practice(
        self,
        pos: str,
        board: Board = DEFAULT_BOARD,
        side: str = "both",
        caller: Caller | None = None,
    ) -> PracticeResponse:
        """The exercises of the game ``pos`` for ``side`` (red, yellow, X, O, 1, 2 or
        both): the review and the answers' lines in the deep lane, all within one
        request's time limit (a review it cannot prove is a 503; a line it cuts short
        says so).

        >>> import asyncio
        >>> from connect4.web.settings import Settings
        >>> api = PracticeRequests(Settings(threads=1, warm_up=False))
        >>> found = asyncio.run(api.practice("4455", side="red")).exercises
        >>> [(e.ply, e.kind, e.solution.label) for e in found]
        [(3, 'missed win', '4')]
        >>> [(a.label, a.grade) for a in found[0].answers][3:5]
        [('4', 'best'), ('5', 'wrong')]
        >>> api.stop()
        """
        try:
            sides = parse_sides(board.kind, side)
        except PracticeError as error:
            raise BadRequest(str(error)) from None
        request = self.limit()
        result = await self.reviewed(pos, board, request, caller)
        found = exercises(result, sides)
        solutions: list[Solution] = []
        if found:
            limit = self.working(request)
            gone = None if caller is None else caller.gone
            with self.clients.turn(caller):
                solutions = await self.run_deep(
                    clock(),
                    lambda attempt: [exercise.solution(attempt) for exercise in found],
                    limit,
                    request,
                    gone,
                )
            self.check_running()
        return PracticeResponse(
            pos=pos,
            game=board.kind,
            width=board.width,
            height=board.height,
            rules=board.rules,
            sides=list(sides),
            exercises=[_exercise(e, s) for e, s in zip(found, solutions, strict=True)],
        )


def _exercise(exercise: Exercise, solution: Solution) -> PracticeExercise:
    answers = [exercise.grade(move) for move, s in enumerate(exercise.scores) if s is not None]
    return PracticeExercise(
        ply=exercise.ply,
        player=exercise.player,
        name=exercise.name,
        position=exercise.position,
        move_number=exercise.move + 1,
        label=exercise.label,
        kind=exercise.kind,
        verdict="blunder" if exercise.verdict == "blunder" else "mistake",
        missed_win=exercise.missed_win,
        question=exercise.question(),
        scores=list(exercise.scores),
        best_score=exercise.best_score,
        played_score=exercise.played_score,
        best_move_numbers=[m + 1 for m in exercise.best_moves],
        right_move_numbers=[m + 1 for m in exercise.right_moves],
        answers=[
            PracticeAnswer(
                move_number=a.move + 1,
                label=a.label,
                score=a.score,
                score_text=exercise.words(a.score),
                grade=a.grade,
                right=a.right,
                text=a.text,
            )
            for a in answers
        ],
        solution=PracticeSolution(
            move_number=solution.move + 1,
            label=solution.label,
            score=solution.score,
            score_text=exercise.words(solution.score),
            line="".join(solution.line),
            complete=solution.complete,
            text=solution.text,
        ),
    )
