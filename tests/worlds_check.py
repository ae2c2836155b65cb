"""Shared checks of a game's ``determinize`` (the worlds a search player plays out).

Each game's tests set up real positions (random games played some steps in, and positions where
the seat has learnt something: answers, doubts, looks, passes), make a copy whose hidden cards are
permuted consistently with what every seat has seen (the game's own permutation test does this),
and call ``check_worlds``. It holds a game to the protocol's promise:

- the worlds depend only on what the seat may know: from the real state and from the permuted
  one, with the same keys, every world is identical (a world reads the hidden cards only as the
  set the seat cannot tell apart, never their real places);
- the seat's own knowledge is kept exactly: its observation of each world equals its observation
  of the real game (all but the batch index), and so do who is to move and what is legal;
- the worlds really vary (other keys deal other worlds somewhere), their chance streams are not
  the real game's, and every world plays to its end under random play.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from safari_sim.engine.chance import deal_keys
from strategies.base import random_legal


def _fields(obj) -> dict:
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return dict(vars(obj))


def _arrays(state) -> dict[str, np.ndarray]:
    return {k: v for k, v in _fields(state).items() if isinstance(v, np.ndarray)}


def assert_same_obs(a, b, skip=("game",)) -> None:
    """Two observations of the same seat say the same (all fields but ``skip``)."""
    fa, fb = _fields(a), _fields(b)
    assert fa.keys() == fb.keys()
    for k in fa:
        if k in skip:
            continue
        va, vb = fa[k], fb[k]
        if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
            assert np.array_equal(np.asarray(va), np.asarray(vb)), f"observation field {k} differs"
        elif isinstance(va, tuple):
            assert len(va) == len(vb)
            for i, (x, y) in enumerate(zip(va, vb)):
                assert np.array_equal(np.asarray(x), np.asarray(y)), f"observation {k}[{i}] differs"
        else:
            assert va == vb, f"observation field {k} differs"


class _Rng:
    """A stand-in for the strategy stream in these checks (numpy's is fine outside the game)."""

    def __init__(self, seed: int):
        self.g = np.random.default_rng(seed)

    def random(self, size=None):
        return self.g.random(size)


def play_out(game, state, max_steps: int = 100_000) -> None:
    """Play every game of ``state`` to its end with random legal moves."""
    rng = _Rng(5)
    for _ in range(max_steps):
        mover = game.to_move(state)
        if (mover < 0).all():
            return
        legal = np.asarray(game.legal(state))
        a = np.zeros(len(mover), np.int64)
        live = np.flatnonzero(mover >= 0)
        a[live] = random_legal(legal[live], rng)
        game.step(state, a)
    raise AssertionError("worlds did not end")


def check_worlds(game, state, permuted, games, worlds_per_game: int = 4, seed: int = 3,
                 ignore: tuple[str, ...] = ("ev",)) -> None:
    """Hold ``game.determinize`` to its promise on these positions (see the module docstring).

    ``state`` and ``permuted`` are the same positions with the hidden cards moved; ``games`` the
    games (indices) to deal worlds of, for the seat to move in each. ``ignore`` names state
    fields that need not match between the two (the event log)."""
    games = np.repeat(np.asarray(games, np.int64), worlds_per_game)
    mover = np.asarray(game.to_move(state))
    assert (mover[games] >= 0).all(), "deal worlds only of games awaiting a decision"
    assert np.array_equal(mover, np.asarray(game.to_move(permuted)))
    seat = mover[games]
    n = len(games)
    keys = deal_keys(n, seed)
    before = {k: v.copy() for k, v in _arrays(state).items()}
    w1 = game.determinize(state, games, seat, keys.copy())
    w2 = game.determinize(permuted, games, seat, keys.copy())
    a1, a2 = _arrays(w1), _arrays(w2)
    for k, v in a1.items():
        if k in ignore or v.ndim == 0 or v.shape[0] != n:
            continue
        assert np.array_equal(v, a2[k]), (
            f"world field {k} depends on where the hidden cards really are")
    # the seat's knowledge, kept exactly
    rows = np.arange(n)
    assert np.array_equal(np.asarray(game.to_move(w1)), seat)
    real_legal = np.asarray(game.legal(state))[games]
    world_legal = np.asarray(game.legal(w1))
    width = min(real_legal.shape[1], world_legal.shape[1])
    assert np.array_equal(real_legal[:, :width], world_legal[:, :width])
    assert not real_legal[:, width:].any() and not world_legal[:, width:].any()
    assert_same_obs(game.observe(w1, rows), game.observe(state, games))
    # not the real game's future, and not one world
    assert not np.array_equal(np.asarray(w1.rs), np.asarray(state.rs)[games])
    w3 = game.determinize(state, games, seat, deal_keys(n, seed + 1))
    a3 = _arrays(w3)
    assert any(not np.array_equal(a1[k], a3[k]) for k in a1
               if k not in ignore and k != "rs" and a1[k].ndim and a1[k].shape[0] == n), (
        "other keys dealt the same worlds: nothing hidden was dealt again")
    # the real state is untouched by dealing worlds, and every world plays to its end
    for k, v in _arrays(state).items():
        if k in before:
            assert np.array_equal(v, before[k]), f"dealing worlds changed the real state's {k}"
    play_out(game, w1)
