"""The harness for the independent legal-move oracles (issue 29, item 8).

Each game's oracle is a plain-Python function ``oracle(state, b) -> set[int]`` written from the
rulebook: it reads the game's state arrays (the facts of the position) and lists the legal action
numbers of game b's mover, without calling any helper of the game module (its kernels, masks,
listings or views). ``check_legal`` plays random games (random legal moves, or the shipped
strategies, so that the positions strategies reach are covered too) and compares the oracle with
the game's own ``legal`` mask at every decision of every game.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from safari_sim.engine.chance import SeatRandom, game_keys
from strategies.base import random_legal

from heuristics import choose


def check_legal(game: Any, rules: Any, players: int, oracle: Callable[[Any, int], set],
                games: int = 40, seed: int = 0, strategies: Sequence[Any] = (),
                max_steps: int = 100_000) -> int:
    """Play ``games`` games and require ``oracle(state, b) == set of the mask's True actions``
    for every game b awaiting a decision, at every step. With ``strategies`` (instances, reset
    here), step k moves with strategy ``k % len(strategies)`` (the rest random). Returns the
    number of decisions compared, so a caller can require enough of them."""
    keys = game_keys(seed, players, games)
    state = game.init(rules, players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    for s in strategies:
        s.reset(games, players)
    compared = 0
    for step in range(max_steps):
        mover = game.to_move(state)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            return compared
        lg = np.asarray(game.legal(state))
        for b in live:
            want = {int(a) for a in oracle(state, int(b))}
            got = {int(a) for a in np.flatnonzero(lg[b])}
            if want != got:
                names = lambda acts: sorted(  # noqa: E731 - a message only
                    (a, game.action_name(rules, players, a)) for a in acts)
                raise AssertionError(
                    f"{game.id} ({players} players) game {b}, step {step}, seat {mover[b]}: "
                    f"the mask allows {names(got - want)} that the oracle forbids, and forbids "
                    f"{names(want - got)} that the oracle allows")
            compared += 1
        rng = SeatRandom(seat_rs, live * players + mover[live])
        actions = np.zeros(len(mover), np.int64)
        if strategies:
            s = strategies[step % len(strategies)]
            actions[live] = choose(s, game, state, live, seat_rs, players)
        else:
            actions[live] = random_legal(lg[live], rng)
        game.step(state, actions)
    raise AssertionError(f"{game.id}: games still running after {max_steps} steps")
