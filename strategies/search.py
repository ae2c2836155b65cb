"""Determinized Monte Carlo search: a strong player for every game, from the protocol alone.

At each decision, for each candidate action (every legal one, or the ``top_k`` a prior strategy
likes best), the player deals ``rollouts`` worlds of the game it observes (``Game.determinize``:
everything it cannot see dealt again, consistently with what it has seen), applies the action in
each and plays every world on to the end with the rollout strategy in every seat, through the
same loop users run (``engine.play.play_on``), or with ``depth: d`` for d more steps of that loop
and then scores it by the game's running score (``Game.running_score``). It picks the action with
the best mean result: its win share, or its score margin over the best other seat.

Batched: the worlds of all observed games x candidates x rollouts are dealt as one batch (chunked
by ``max_worlds``), stepped together and played out together: no Python loop over games. World r
of a game is the same deal for every candidate action (common random numbers: the actions are
compared on the same draw piles), and every key is drawn from the seat's own stream, so a game
is the same in any batch and the real game's chance is never touched.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.engine.play import play_on
from safari_sim.engine.protocol import Game, ranks_and_wins
from safari_sim.engine.worlds import has_worlds, seed_keys, world_keys

from .base import Strategy, random_legal
from .generic import Random

DEAL, SEATS = 1, 2  # key domains: a world's deal and chance; its rollout seats


class SearchParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rollouts: int = Field(8, ge=1, le=4096, description=(
        "worlds played out per candidate action at each decision"))
    top_k: int = Field(0, ge=0, description=(
        "search only the k actions the prior likes best (0: every legal action)"))
    prior: str | None = Field(None, description=(
        "strategy of the game ranking the candidates for top_k (asked k times, each time "
        "without the actions it already chose; none: k random legal actions)"))
    prior_params: dict[str, Any] = Field({}, description="the prior's knobs")
    rollout: str = Field("random", description=(
        "strategy of the game playing every seat of the worlds to the end ('benchmark': the "
        "game's bench heuristic with its params, which plays best in most games)"))
    rollout_params: dict[str, Any] = Field({}, description=(
        "the rollout strategy's knobs (with 'benchmark': on top of the benchmark's own)"))
    depth: int = Field(0, ge=0, description=(
        "steps of the play loop (every seat's decisions) each world is played after the "
        "candidate action before it is scored by the game's running score (0: to the end)"))
    objective: Literal["win", "margin"] = Field("win", description=(
        "win: the mean win share; margin: the mean score lead over the best other seat (each "
        "breaks the other's ties)"))
    max_worlds: int = Field(65536, ge=1, description=(
        "worlds played out at once (more observed games are searched in chunks)"))


def searched_game(worlds, who: str):
    """The game a search player (``who``) is asked to decide in; a clear error where it was not
    handed worlds or the game cannot deal them."""
    if worlds is None:
        raise TypeError(f"{who} deals worlds of the game: it must be played by the play "
                        "loop (engine.play), which hands them over")
    game = worlds.game
    if not has_worlds(game):
        raise NotImplementedError(
            f"{who} cannot play {game.id}: {game.name} has no determinize yet (it cannot "
            f"deal the worlds {who} plays out)")
    return game


def helper(game, name: str, params: dict[str, Any], label: str):
    """A shipped strategy of ``game`` for a search player's own use (a rollout, a prior); a
    random one is told it needs no observation."""
    from . import get_strategy

    s = get_strategy(game.id, name)(**params)
    s.label = label
    if type(s) is Random:  # it never reads its observation: none is built
        s.reads_obs = False
    return s


def rollout_spec(game_id: str, name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(strategy name, params) of the rollout strategy; 'benchmark' is the game's BENCHMARK."""
    if name != "benchmark":
        return name, dict(params)
    try:
        bench = getattr(importlib.import_module(f"strategies.{game_id}"), "BENCHMARK", None)
    except ModuleNotFoundError:
        bench = None
    if not bench:
        return "random", dict(params)
    return bench["strategy"], {**bench.get("params", {}), **params}


def seat_results(game, state, seat) -> tuple[np.ndarray, np.ndarray]:
    """(win share, score margin over the best other seat) of seat ``seat[i]`` in finished game i
    of ``state`` (the margin negated where the lower score wins)."""
    out = game.outcome(state)
    sc = np.arange(len(seat))
    win = np.asarray(out.win, np.float64)[sc, seat]
    score = np.asarray(out.score, np.float64).copy()
    if getattr(game, "lower_score_wins", False):
        score = -score
    mine = score[sc, seat]
    score[sc, seat] = -np.inf
    return win, mine - score.max(axis=1)


def check_depth(game, who: str, depth: int) -> None:
    """A clear error where a depth-limited search is asked of a game with no running score."""
    if depth > 0 and type(game).running_score is Game.running_score:
        raise NotImplementedError(
            f"{who} with depth {depth} cannot play {game.id}: {game.name} has no running score "
            "(Game.running_score), so a world stopped before its end cannot be scored; use "
            "depth 0 (play every world to the end)")


def after_steps(depth: int):
    """A ``play_on`` stop that lets ``depth`` steps of the loop be played (0: no stop)."""
    if depth <= 0:
        return None
    played = [0]

    def stop(mover):
        played[0] += 1
        return played[0] > depth

    return stop


def world_results(game, state, seat) -> tuple[np.ndarray, np.ndarray]:
    """``seat_results`` for worlds that may not be over (a depth-limited play-out): a finished
    world by its outcome, one still running by the game's running score (win: the seat's share
    of the best running score, ties split; margin: its lead over the best other seat; lower is
    better where the lower score wins)."""
    running = np.asarray(game.to_move(state)) >= 0
    if not running.any():
        return seat_results(game, state, seat)
    score = np.asarray(game.running_score(state), np.float64)
    if getattr(game, "lower_score_wins", False):
        score = -score
    sc = np.arange(len(seat))
    win = ranks_and_wins(score)[1][sc, seat]
    mine = score[sc, seat].copy()
    score[sc, seat] = -np.inf
    margin = mine - score.max(axis=1)
    done = np.flatnonzero(~running)
    if done.size:  # finished earlier: scored as a whole play-out is
        win[done], margin[done] = seat_results(game, game.clone(state, done), seat[done])
    return win, margin


class Search(Strategy):
    name = "search"
    summary = ("determinized Monte Carlo search: plays `rollouts` dealt worlds to the end per "
               "candidate action with the `rollout` strategy, picks the best mean result")
    Params = SearchParams
    wants_worlds = True

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._helpers: dict[str, tuple[Any, Any]] = {}
        self._batch = None

    def reset(self, batch: int, n_players: int) -> None:
        self._batch = (batch, n_players)
        for prior, _ in self._helpers.values():
            if prior is not None:
                prior.reset(batch, n_players)

    def _strategies(self, game) -> tuple[Any, Any]:
        """(prior or None, rollout) for this game, built on first use."""
        got = self._helpers.get(game.id)
        if got is None:
            from . import get_strategy

            p = self.params
            name, params = rollout_spec(game.id, p.rollout, p.rollout_params)
            rollout = helper(game, name, params, f"{self.label}.rollout")
            prior = None
            if p.prior is not None:
                prior = get_strategy(game.id, p.prior)(**p.prior_params)
                prior.label = f"{self.label}.prior"
                if self._batch is not None:
                    prior.reset(*self._batch)
            got = self._helpers[game.id] = (prior, rollout)
        return got

    def act(self, obs, legal, rng, worlds=None):
        game = searched_game(worlds, "search")
        check_depth(game, "search", self.params.depth)
        prior, rollout = self._strategies(game)
        legal = np.asarray(legal)
        base = seed_keys(rng)  # first: the same two draws per game whatever else happens
        cand = self._candidates(obs, legal, rng, prior, worlds)
        # [2, n, W]: the objective's mean, then the other one's (the tie-break)
        value = np.where(cand, 0.0, -np.inf)[None].repeat(2, axis=0)  # forced: the one candidate
        # only games with a real choice are searched
        open_ = np.flatnonzero(cand.sum(axis=1) > 1)
        if open_.size:
            per_game = cand[open_].sum(axis=1) * self.params.rollouts
            ends = np.cumsum(per_game)
            start = 0
            while start < open_.size:  # chunks of whole games, at most max_worlds worlds each
                first = ends[start] - per_game[start]
                stop = max(start + 1, int(np.searchsorted(ends, first + self.params.max_worlds,
                                                          side="right")))
                rows = open_[start:stop]
                value[:, rows] = self._evaluate(game, worlds, rows, cand[rows], base[rows],
                                                rollout)
                start = stop
        # the best mean; among equals the best of the other measure (a seat that loses every
        # world still prefers losing by less), then the seat's stream
        ties = cand & (value[0] >= value[0].max(axis=1, keepdims=True))
        second = np.where(ties, value[1], -np.inf)
        ties &= second >= second.max(axis=1, keepdims=True)
        return random_legal(ties, rng)  # ties broken by the seat's stream

    def _candidates(self, obs, legal, rng, prior, worlds) -> np.ndarray:
        """bool[n, W]: the actions to search in each observed game."""
        k = self.params.top_k
        if k == 0:
            return legal.copy()
        n = len(legal)
        left = legal.copy()
        cand = np.zeros_like(legal)
        rows = np.arange(n)
        for _ in range(k):
            if prior is not None:
                shown = left.copy()
                shown.flags.writeable = False
                a = np.asarray(worlds.decide(prior, rng, shown) if prior.reads_state
                               else prior.act(obs, shown, rng), np.int64)
                fine = (a >= 0) & (a < left.shape[1])
                fine[fine] = left[rows[fine], a[fine]]
                # a prior that answers with an action already taken (or none): a random one
                a = np.where(fine, a, random_legal(left, rng))
            else:
                a = random_legal(left, rng)
            some = left.any(axis=1)
            cand[rows[some], a[some]] = True
            left[rows[some], a[some]] = False
        return cand

    def _evaluate(self, game, worlds, rows, cand, base, rollout) -> np.ndarray:
        """float[2, len(rows), W]: the mean result of each candidate of observed games ``rows``
        by the objective, then by the other measure (win share or margin)."""
        r = self.params.rollouts
        gi, act = np.nonzero(cand)             # one entry per (game, candidate)
        gi = np.repeat(gi, r)
        act = np.repeat(act, r)
        rep = np.tile(np.arange(r), len(gi) // r)
        # world r of a game is the same deal for every candidate (common random numbers)
        deal = world_keys(base, np.arange(r)[None, :].repeat(len(base), 0), DEAL)
        keys = deal[gi, rep]
        w = worlds.deal(rows[gi], keys)
        seat = np.take(worlds.seat, rows[gi])
        m = len(gi)
        p = worlds.n_players
        game.step(w, act)
        seat_keys = world_keys(base, np.arange(r * p)[None, :].repeat(len(base), 0), SEATS)
        seat_rs = seat_keys.reshape(len(base), r, p)[gi, rep].reshape(-1).copy()
        rollout.reset(m, p)
        # to the end, or ``depth`` steps of the loop (every world steps together: each plays
        # exactly that many, whatever else is in its chunk)
        play_on(game, w, [rollout], np.zeros((m, p), np.int64), seat_rs, rules=worlds.rules,
                stop=after_steps(self.params.depth))
        win, margin = world_results(game, w, seat)
        first, other = (win, margin) if self.params.objective == "win" else (margin, win)
        mean = np.zeros((2,) + cand.shape)
        np.add.at(mean[0], (gi, act), first)
        np.add.at(mean[1], (gi, act), other)
        return np.where(cand[None], mean / r, -np.inf)


STRATEGIES = [Search]
