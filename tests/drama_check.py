"""An oracle for the drama columns (issue 14) that does not call engine/drama.py: the four
numbers worked out in plain Python from a game's running scores, as a reader of the issue would
count them. Games' tests record the running score themselves (from the state or a reference
game) after each moment it can change, and compare with the dataset's columns."""

from __future__ import annotations

import math

COLUMNS = ("lead_changes", "lead_from", "comeback", "margin")


def drama_oracle(running, final, win, lower_wins=False):
    """(lead changes, lead_from, comeback, margin) from ``running`` (the scores after each
    update, one list per update) and the final scores and win shares: lead changes between sole
    leaders (a tie keeps the last one), the share of updates before the winner led for good, the
    most the winner was behind the best other seat, and the final margin (None three times when
    the win is shared)."""
    sign = -1 if lower_wins else 1
    last, changes = None, 0
    behind = [0] * len(final)
    not_lead = [0] * len(final)
    for k, scores in enumerate(running, 1):
        sc = [sign * x for x in scores]
        top = max(sc)
        leaders = [s for s, x in enumerate(sc) if x == top]
        sole = leaders[0] if len(leaders) == 1 else None
        if sole is not None:
            changes += last is not None and last != sole
            last = sole
        for s, x in enumerate(sc):
            behind[s] = max(behind[s], top - x)
            if s != sole:
                not_lead[s] = k
    if max(win) < 1:
        return changes, None, None, None
    w = list(win).index(max(win))
    fin = [sign * x for x in final]
    margin = fin[w] - max(x for s, x in enumerate(fin) if s != w)
    return changes, not_lead[w] / max(len(running), 1), behind[w], margin


def check_drama(stats, b, running, final, win, lower_wins=False):
    """Game b's four dataset columns (``stats`` of the outcome) against the oracle."""
    want = drama_oracle(running, final, win, lower_wins)
    got = [stats[c][b] for c in COLUMNS]
    assert got[0] == want[0], (b, got, want)
    for x, y in zip(got[1:], want[1:]):
        assert (y is None and math.isnan(x)) or (y is not None and abs(x - y) < 1e-9), (
            b, got, want)
