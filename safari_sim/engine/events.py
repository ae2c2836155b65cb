"""The event log behind `describe` and `safari-sim trace`.

A game made with ``log=True`` records what happens in ``ev[b, i, :]`` (an event type, the seat,
then the event's numbers) and keeps the count in a column ``nev`` of its per-game int array
``g``. With ``log=False`` the log has length 0 and recording costs one comparison.
"""

from __future__ import annotations

from numba import njit


# the games' logs: int32 (Savannah's int16); the numbers int64, converted at the call
_SIGNATURES = [f"void({t}[:, :, :], {', '.join(['int64'] * 9)})" for t in ("int32", "int16")]


@njit(_SIGNATURES, cache=True, _nrt=False)
def _record(ev, b, n, t, seat, x1, x2, x3, x4, x5):
    """Write event n of game b. Called, not inlined, and with fixed signatures: a game has a
    dozen log sites, and numba would compile this body again at each of them, once per mix of
    integer types (docs/performance.md, "First run")."""
    ev[b, n, 0] = t
    ev[b, n, 1] = seat
    k = ev.shape[2]
    if k > 2:
        ev[b, n, 2] = x1
    if k > 3:
        ev[b, n, 3] = x2
    if k > 4:
        ev[b, n, 4] = x3
    if k > 5:
        ev[b, n, 5] = x4
    if k > 6:
        ev[b, n, 6] = x5


@njit(cache=True, inline="always", _nrt=False)
def log_event(ev, g, nev, b, t, seat, x1=0, x2=0, x3=0, x4=0, x5=0):
    # inlined is only the test a game without a log makes (its log has length 0)
    n = g[b, nev]
    if n < ev.shape[1]:
        _record(ev, b, n, t, seat, x1, x2, x3, x4, x5)
        g[b, nev] = n + 1
