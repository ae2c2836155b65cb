"""What the measuring scripts of docs/search.md share: a search player that counts its own
decisions and the CPU time it spends deciding (process time of its ``act`` calls)."""

from __future__ import annotations

import time


def timed(base, **params):
    """(an instance of strategy class ``base`` with ``params`` whose ``act`` calls are timed, the
    dict it adds to: ``t`` CPU seconds, ``d`` decisions)."""
    spent = {"t": 0.0, "d": 0}

    class Timed(base):
        def act(self, obs, legal, rng, worlds=None):
            t0 = time.process_time()
            a = super().act(obs, legal, rng, worlds)
            spent["t"] += time.process_time() - t0
            spent["d"] += len(a)
            return a

    return Timed(**params), spent
