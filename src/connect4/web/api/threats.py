"""The threat map's request: each side's threats and the simple rule, if one, that
proves the solver's verdict. Both are a walk over the bitboards (no solver), answered
on the event loop."""

from __future__ import annotations

from connect4.core.games import DEFAULT_BOARD, Board
from connect4.learn.threats import Threat, explain, threat_map
from connect4.web.api.lanes import Lanes
from connect4.web.errors import BadRequest
from connect4.web.models import ThreatCell, ThreatRule, ThreatsResponse


class ThreatRequests(Lanes):
    """``/api/threats``: the threat map of a position and its explanation."""

    def threats(self, pos: str, board: Board = DEFAULT_BOARD) -> ThreatsResponse:
        """The map and the explanation of a Connect Four position that is not over
        (another game, or a finished one, is a 400 saying so).

        >>> from connect4.web.settings import Settings
        >>> api = ThreatRequests(Settings(threads=1, warm_up=False))
        >>> found = api.threats("44556")
        >>> [(t.column, t.row) for t in found.red], found.rule.rule
        ([(3, 1), (7, 1)], 'double threat')
        >>> api.stop()
        """
        if board.kind != "connect4":
            raise BadRequest(f"the threat map is for Connect Four, not {board.kind}")
        position = self.parse_connect4(pos, board)
        if position.is_over():
            raise BadRequest(
                f"the game is over ({position.result_text()}): no threat can be played"
            )
        found = threat_map(position)
        why = explain(position)
        return ThreatsResponse(
            pos=pos,
            width=position.width,
            height=position.height,
            rules=position.rules,
            to_move=position.to_move,
            red=[_cell(t) for t in found.red],
            yellow=[_cell(t) for t in found.yellow],
            explanation=None if why is None else why.sentence,
            rule=None if why is None else ThreatRule.model_validate(why.as_dict()),
        )


def _cell(threat: Threat) -> ThreatCell:
    return ThreatCell.model_validate(threat.as_dict())
