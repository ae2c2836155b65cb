"""The check every compiled-twins test makes: the same games played by the whole-game kernel
and by the lockstep loop (``engine.play.play_batch`` with ``compiled=True`` and ``False``)."""

from __future__ import annotations

import numpy as np


def assert_same_games(fast, slow, state_fields=()):
    """Every outcome column, the drama numbers, the decision counts (the batch's and each game's) and the named state arrays
    of two ``BatchResult``s are equal."""
    assert fast.decisions == slow.decisions
    assert np.array_equal(fast.per_game, slow.per_game)  # each game's decisions
    assert fast.per_game.sum() == fast.decisions
    for name in ("score", "rank", "win", "turns"):
        assert np.array_equal(getattr(fast.outcome, name), getattr(slow.outcome, name)), name
    assert set(fast.outcome.stats) == set(slow.outcome.stats)
    for k in slow.outcome.stats:
        assert np.array_equal(fast.outcome.stats[k], slow.outcome.stats[k], equal_nan=True), k
    assert np.array_equal(fast.state.dr, slow.state.dr)   # the drama numbers
    for name in state_fields:
        assert np.array_equal(getattr(fast.state, name), getattr(slow.state, name)), name
