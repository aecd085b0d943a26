"""Who asks: a caller's address and whether it went away, and the gate that bounds
deep work per client address (so one client cannot hold every deep worker).

Behind a proxy the address is the proxy's unless the server names it as trusted
(``connect4 serve --forwarded-allow-ips``): then the ``X-Forwarded-For`` it sends
is believed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from connect4.web.errors import Unavailable
from connect4.web.pool import Gone


@dataclass(frozen=True)
class Caller:
    """Who waits for an answer: the client's address (deep work is bounded per
    address) and ``gone()``, whether it went away (then its job is stopped)."""

    host: str = ""
    gone: Gone | None = None


class ClientBusy(Unavailable):
    """A client asked for more deep work while its own still runs (HTTP 503)."""


class ClientGate:
    """At most ``per_client`` deep jobs per client address at a time (0: no bound).

    Only the event loop touches it, so it needs no lock.

    >>> gate = ClientGate(1)
    >>> with gate.turn(Caller("10.0.0.1")):
    ...     gate.turn(Caller("10.0.0.1")).__enter__()
    Traceback (most recent call last):
    ...
    connect4.web.clients.ClientBusy: this client already has 1 deep job running (an AI move, ...
    >>> with gate.turn(Caller("10.0.0.1")):
    ...     pass
    """

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self.running: dict[str, int] = {}
        self.refused = 0

    @contextlib.contextmanager
    def turn(self, caller: Caller | None) -> Iterator[None]:
        """Hold one of the caller's deep places while the block runs (a caller with no
        address, e.g. a direct call, is not bounded)."""
        if caller is None or not caller.host or self.per_client <= 0:
            yield
            return
        host = caller.host
        held = self.running.get(host, 0)
        if held >= self.per_client:
            self.refused += 1
            jobs = "job" if self.per_client == 1 else "jobs"
            raise ClientBusy(
                f"this client already has {held} deep {jobs} running (an AI move, a review "
                "or a long solve): wait for its answer, then ask again"
            )
        self.running[host] = held + 1
        try:
            yield
        finally:
            if self.running[host] <= 1:
                del self.running[host]
            else:
                self.running[host] -= 1
