"""Shared plain-Python oracles for issue 14 (drama, searchable rules), written from the meaning
of the four drama columns (engine/drama.py's docstring), never calling it."""

from __future__ import annotations

import numpy as np


def drama_oracle(history, final, win):
    """(lead_changes, lead_from, comeback, margin) from the running scores ``history`` (one list
    per seat after each update, higher is better), the final scores and the win shares; None
    for the last three when the win is shared."""
    leader, changes, not_leading, deficit = None, 0, 0, 0
    w = int(np.argmax(win))
    for k, sc in enumerate(history, 1):
        top = max(sc)
        lead = [p for p, v in enumerate(sc) if v == top]
        if len(lead) == 1:  # a tie keeps the last sole leader
            if leader is not None and lead[0] != leader:
                changes += 1
            leader = lead[0]
        if lead != [w]:
            not_leading = k
        deficit = max(deficit, top - sc[w])
    if max(win) != 1.0:
        return changes, None, None, None
    margin = final[w] - max(v for p, v in enumerate(final) if p != w)
    return changes, not_leading / max(len(history), 1), deficit, margin


def assert_drama(stats, b, history, final, win):
    """Game b's four dataset columns equal the oracle's."""
    ch, lf, cb, mg = drama_oracle(history, final, win)
    assert stats["lead_changes"][b] == ch, (b, "lead_changes", stats["lead_changes"][b], ch)
    for col, want in (("lead_from", lf), ("comeback", cb), ("margin", mg)):
        got = stats[col][b]
        assert (np.isnan(got) if want is None else np.isclose(got, want)), (b, col, got, want)
    return ch


def search_values(space):
    """The values of a declared ``search`` to try: every whole number of a range, both ends and
    the middle of a float pair, every choice."""
    if isinstance(space, range):
        return list(space)
    if isinstance(space, tuple) and len(space) == 2 and all(isinstance(v, float) for v in space):
        return [space[0], (space[0] + space[1]) / 2, space[1]]
    return list(space)
