"""What every game's shipped heuristics are held to (issue 31: each is one compiled policy).

- ``ask``: a heuristic's actions in some games of a state, as the play loop asks them
  (``decide``), for a test that sets up a position and checks what a strategy does there.
- ``check_knowledge``: a compiled policy reads the state, not an observation, so it is held to
  its seat's knowledge by scrambling everything that seat cannot see (``scramble``: the game's
  own permutation of hidden cards, written in its tests) and requiring the same action, at every
  decision of games the heuristics play among themselves. ``leaky_policy_is_caught`` is its
  positive control: a policy that reads a hidden card must fail the same check.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Sequence

import numpy as np

from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch
from strategies import strategies_for


def shipped(game_id: str) -> list[type]:
    """The game's own heuristics (not the generic strategies, not search)."""
    return [cls for cls in strategies_for(game_id).values() if cls.game == game_id]


def ask(strategy: Any, game: Any, state: Any, games: Sequence[int], seat_rs: np.ndarray,
        players: int, legal: np.ndarray | None = None) -> np.ndarray:
    """``strategy.decide`` in ``games`` of ``state`` as the play loop asks it: the movers' seat
    streams (rows of the flat ``seat_rs``, advanced in place) and their legal masks."""
    games = np.asarray(games, np.int64)
    mover = game.to_move(state)
    if legal is None:
        legal = np.take(game.legal(state), games, axis=0)
    rng = SeatRandom(seat_rs, games * players + np.take(mover, games))
    return np.asarray(strategy.decide(state, games, rng, legal), np.int64)


def positions(game: Any, rules: Any, players: int, names: Sequence[str], games: int,
              seed: int, max_steps: int = 10_000):
    """Every decision of ``games`` games the heuristics ``names`` play in rotation (game b: seat
    p plays ``names[(b + p) % len(names)]``): yields (state, step, movers, live games) before
    each step, then plays it (a test may read the state, never change it)."""
    strats = [strategies_for(game.id)[n]() for n in names]
    keys = game_keys(seed, players, games)
    state = game.init(rules, players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    seating = (np.arange(players)[None, :] + np.arange(games)[:, None]) % len(strats)
    for step in range(max_steps):
        mover = np.asarray(game.to_move(state))
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            return
        yield state, step, mover, live
        a = np.zeros(games, np.int64)
        for k, s in enumerate(strats):
            idx = live[seating[live, mover[live]] == k]
            if idx.size:
                a[idx] = choose(s, game, state, idx, seat_rs, players)
        game.step(state, a)


def check_knowledge(game: Any, rules: Any, players: int, strategies: Sequence[Any],
                    scramble: Callable[[Any, np.ndarray, np.random.Generator], Any],
                    games: int = 24, seed: int = 11, max_steps: int = 4000,
                    scramble_memory: Callable[[Any, np.ndarray, np.ndarray,
                                               np.random.Generator], None] | None = None) -> int:
    """At every decision of ``games`` games played by ``strategies`` in turn, each strategy's
    action equals its action on ``scramble(copy of the state, games, rng)`` (what the movers
    cannot see dealt again), from the same seat streams and the same memory;
    ``scramble_memory(strategy copy, games, movers, rng)`` may also scramble other seats' memory.
    Returns the decisions checked (a test requires enough of them)."""
    rng = np.random.default_rng(seed)
    keys = game_keys(seed, players, games)
    state = game.init(rules, players, keys.deal)
    seat_rs = np.ascontiguousarray(keys.seat, np.uint64).reshape(-1).copy()
    for s in strategies:
        s.reset(games, players)
    checked = 0
    for step in range(max_steps):
        mover = game.to_move(state)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        answers = []
        for s in strategies:
            other = copy.deepcopy(s)
            rs_other = seat_rs.copy()
            scrambled = scramble(copy.deepcopy(state), live, rng)
            if scramble_memory is not None:
                scramble_memory(other, live, np.take(mover, live), rng)
            want = ask(s, game, state, live, seat_rs, players)
            got = ask(other, game, scrambled, live, rs_other, players,
                      legal=np.take(game.legal(state), live, axis=0))
            bad = np.flatnonzero(want != got)
            assert bad.size == 0, (
                f"{s.name} acts on what its seat cannot see: game {live[bad[0]]} (seat "
                f"{mover[live[bad[0]]]}) chose {want[bad[0]]}, and {got[bad[0]]} once the hidden "
                f"cards were dealt again (step {step})")
            np.testing.assert_array_equal(seat_rs, rs_other)
            answers.append(want)
            checked += live.size
        actions = np.zeros(games, np.int64)
        actions[live] = answers[step % len(strategies)]
        game.step(state, actions)
    return checked


class Leaky:
    """A heuristic that also reads one hidden value (``peek(state, b)``, e.g. the next card of
    the deck or an opponent's card): where it is odd it plays its last legal action instead.
    ``check_knowledge`` must catch it (the positive control of every game's knowledge test)."""

    reads_state = True

    def __init__(self, base: Any, peek: Callable[[Any, int], int]):
        self.base, self.peek, self.name = base, peek, f"leaky {base.name}"

    def reset(self, batch: int, n_players: int) -> None:
        self.base.reset(batch, n_players)

    def compiled_policy(self):
        return None

    def decide(self, state, games, rng, legal):
        a = np.asarray(self.base.decide(state, games, rng, legal), np.int64).copy()
        for i, b in enumerate(np.asarray(games)):
            if int(self.peek(state, int(b))) % 2:
                a[i] = int(np.flatnonzero(legal[i])[-1])
        return a


def leaky_policy_is_caught(game: Any, rules: Any, players: int, base: Any, peek, scramble,
                           **kw) -> None:
    """The knowledge check fails for ``Leaky(base, peek)``: it can see a policy cheat."""
    import pytest

    with pytest.raises(AssertionError, match="cannot see"):
        check_knowledge(game, rules, players, [Leaky(base, peek)], scramble, **kw)


def choose(strategy: Any, game: Any, state: Any, games: Sequence[int], seat_rs: np.ndarray,
           players: int) -> np.ndarray:
    """Any strategy's actions in ``games`` as the play loop asks them: a compiled heuristic
    through ``decide``, any other through ``act`` on a frozen observation."""
    games = np.asarray(games, np.int64)
    if getattr(strategy, "reads_state", False):
        return ask(strategy, game, state, games, seat_rs, players)
    mover = game.to_move(state)
    rng = SeatRandom(seat_rs, games * players + np.take(mover, games))
    return np.asarray(strategy.act(game.observe(state, games).freeze(),
                                   np.take(game.legal(state), games, axis=0), rng), np.int64)
