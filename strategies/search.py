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
    own_rollout: str | None = Field(None, description=(
        "strategy of the game playing the searcher's own seat in the worlds, after the "
        "candidate action (its later decisions), while `rollout` plays the others (none: "
        "`rollout` plays every seat)"))
    own_rollout_params: dict[str, Any] = Field({}, description=(
        "the own-seat rollout strategy's knobs"))
    depth: int = Field(0, ge=0, description=(
        "steps of the play loop (every seat's decisions) each world is played after the "
        "candidate action before it is scored by the game's running score (0: to the end)"))
    depth_kinds: list[int] | None = Field(None, description=(
        "the decision kinds `depth` counts (none: every decision); a world stops before the "
        "next decision of these kinds once it has made `depth` of them, so the others (in "
        "Savannah a claim's keep, part of its turn: [0]) are played out with their turn "
        "(needs the game's whole-game kernel and a compiled rollout: Savannah)"))
    objective: Literal["win", "margin"] = Field("win", description=(
        "win: the mean win share; margin: the mean score lead over the best other seat (each "
        "breaks the other's ties)"))
    max_worlds: int = Field(65536, ge=1, description=(
        "worlds played out at once, and at most 512 MB of them (more observed games are "
        "searched in chunks)"))
    kinds: list[int] | None = Field(None, description=(
        "the decision kinds searched (the observation's kind: `safari-sim strategies GAME "
        "--actions` names them); the others are played by `elsewhere` (none: every decision "
        "is searched)"))
    searched: str | None = Field(None, description=(
        "a function of the game's strategies module (strategies/<game>.py) naming, among the "
        "decisions of `kinds`, the ones to search: (obs) -> bool[n]; the others are played by "
        "`elsewhere` (none: every decision of `kinds`)"))
    elsewhere: str | None = Field(None, description=(
        "strategy of the game playing the decisions whose kind is not in `kinds` (none: the "
        "rollout strategy)"))
    elsewhere_params: dict[str, Any] = Field({}, description="the elsewhere strategy's knobs")
    race: int = Field(0, ge=0, le=4096, description=(
        "more worlds per candidate where the best two candidates are close after the first "
        "`rollouts` (less than `race_z` standard errors apart): rollouts go to the close "
        "decisions (0: none)"))
    race_z: float = Field(1.0, ge=0, description=(
        "how close (in standard errors of the difference) the best two must be for `race`"))
    candidates: str | None = Field(None, description=(
        "a function of the game's strategies module (strategies/<game>.py) naming the actions "
        "to search: (obs, legal, **candidates_params) -> bool[n, W]; it replaces top_k and the "
        "prior (none: top_k and prior)"))
    candidates_params: dict[str, Any] = Field({}, description="the candidates function's knobs")
    prior_bonus: float = Field(0.0, ge=0, description=(
        "added to the mean of the prior's own choice (its first of `top_k`), in the "
        "objective's units: another candidate is played only where its mean is more than this "
        "above it (0: the best mean, whoever chose it)"))
    weigh: float | None = Field(None, gt=0, lt=1, description=(
        "weigh each world by how likely the other seats' public statements (claims) are in it "
        "when each is true with this chance (Game.world_weights; Bayes' rule): worlds where "
        "the claims are true count more (none: every world counts the same)"))


# The worlds dealt at once, in bytes: Savannah's worlds are 73 kB each, and 65,536 of them (4.8
# GB) made the kernel fault pages in for a third of the search's time (docs/search.md, "The
# worlds' memory"); 512 MB plays as fast as any smaller or larger chunk measured.
WORLD_BYTES = 512 << 20


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


def lead(score: np.ndarray, seat: np.ndarray, teams: np.ndarray | None = None) -> np.ndarray:
    """Seat ``seat[i]``'s score in row i of ``score`` less the best of the other side's: every
    other seat, or with ``teams`` (the game's team of each seat) every seat of another team (a
    partner's score is the team's own, not a rival's)."""
    sc = np.arange(len(seat))
    mine = score[sc, seat].copy()
    other = score.copy()
    if teams is None:
        other[sc, seat] = -np.inf
    else:
        t = np.asarray(teams)
        other[t[None, :] == t[seat][:, None]] = -np.inf
    return mine - other.max(axis=1)


def seat_results(game, state, seat, teams=None) -> tuple[np.ndarray, np.ndarray]:
    """(win share, score margin over the best other seat, or the best seat of another team with
    ``teams``) of seat ``seat[i]`` in finished game i of ``state`` (the margin negated where the
    lower score wins)."""
    out = game.outcome(state)
    sc = np.arange(len(seat))
    win = np.asarray(out.win, np.float64)[sc, seat]
    score = np.asarray(out.score, np.float64).copy()
    if getattr(game, "lower_score_wins", False):
        score = -score
    return win, lead(score, seat, teams)


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


def world_results(game, state, seat, teams=None) -> tuple[np.ndarray, np.ndarray]:
    """``seat_results`` for worlds that may not be over (a depth-limited play-out): a finished
    world by its outcome, one still running by the game's running score (win: the seat's share
    of the best running score, ties split, or the game's own estimate of the seat's win share
    where it has one, ``cut_value(state, seat)``; margin: its lead over the best other seat;
    lower is better where the lower score wins; with ``teams``, over the best seat of another
    team)."""
    running = np.asarray(game.to_move(state)) >= 0
    if not running.any():
        return seat_results(game, state, seat, teams)
    score = np.asarray(game.running_score(state), np.float64)
    if getattr(game, "lower_score_wins", False):
        score = -score
    sc = np.arange(len(seat))
    # a game may estimate the seat's final win share from the position itself (``cut_value``:
    # e.g. a race to a target score); else the share of the best running score
    cut = getattr(game, "cut_value", None)
    win = (ranks_and_wins(score)[1][sc, seat] if cut is None else
           np.asarray(cut(state, seat), np.float64))
    margin = lead(score, seat, teams)
    done = np.flatnonzero(~running)
    if done.size:  # finished earlier: scored as a whole play-out is
        if getattr(game, "outcome_by_rows", False):  # read in place: no copy of the worlds
            w_all, m_all = seat_results(game, state, seat, teams)
            win[done], margin[done] = w_all[done], m_all[done]
        else:
            win[done], margin[done] = seat_results(game, game.clone(state, done), seat[done],
                                                   teams)
    return win, margin


def game_defaults(game_id: str, players: int | None = None) -> dict[str, Any]:
    """The search knobs a game's strategies module chose by measurement (its ``SEARCH``:
    docs/search.md has the table), used where the player's own params leave a knob unset. A
    player count measured apart has its own knobs in ``SEARCH["at"]`` (``{4: {"top_k": 2}}``),
    over the others at that count (``players``; None: the knobs of every other count)."""
    try:
        mod = importlib.import_module(f"strategies.{game_id}")
    except ModuleNotFoundError:
        return {}
    knobs = dict(getattr(mod, "SEARCH", {}))
    at = knobs.pop("at", None) or {}
    return {**knobs, **at.get(players, {})}


def default_counts(game_id: str) -> list[int]:
    """The player counts with knobs of their own in the game's ``SEARCH["at"]``."""
    try:
        mod = importlib.import_module(f"strategies.{game_id}")
    except ModuleNotFoundError:
        return []
    return sorted((getattr(mod, "SEARCH", {}) or {}).get("at", {}) or {})


def game_function(game_id: str, name: str):
    """A function of the game's strategies module (the search's ``candidates``)."""
    fn = getattr(importlib.import_module(f"strategies.{game_id}"), name, None)
    if not callable(fn):
        raise ValueError(f"search candidates: strategies/{game_id}.py has no function {name!r}")
    return fn


def _check_kinds(game, p: SearchParams) -> None:
    """A clear error where ``kinds`` or ``depth_kinds`` name a decision kind the game has not."""
    kinds = len(game.decision_kinds)
    for knob in ("kinds", "depth_kinds"):
        bad = [k for k in (getattr(p, knob) or []) if kinds and not 0 <= k < kinds]
        if bad:
            raise ValueError(f"search {knob}: {game.id} has decision kinds 0 to {kinds - 1} "
                             f"({', '.join(game.decision_kinds)}), not {bad}")


def check_settings(game, p: SearchParams) -> None:
    """Everything a search player's settings name, checked against ``game`` before a game is
    played (an experiment is checked so when it is read): the strategies it plays (prior,
    rollout, elsewhere, own rollout) and their knobs, the candidates function, the decision
    kinds, the depth."""
    from pydantic import ValidationError

    from . import get_strategy

    rollout, rollout_params = rollout_spec(game.id, p.rollout, p.rollout_params)
    for knob, name, params in (("prior", p.prior, p.prior_params),
                               ("rollout", rollout, rollout_params),
                               ("elsewhere", p.elsewhere, p.elsewhere_params),
                               ("own_rollout", p.own_rollout, p.own_rollout_params)):
        if name is None:
            continue
        try:
            get_strategy(game.id, name).Params(**params)
        except KeyError as e:  # StrategyNotFound: its message names the game's strategies
            raise ValueError(f"search {knob}: {e}") from None
        except ValidationError as e:
            first = e.errors()[0]
            at = ".".join(str(x) for x in first["loc"])
            raise ValueError(f"search {knob}_params{'.' + at if at else ''}: "
                             f"{first['msg']}") from None
    for fn in (p.candidates, p.searched):
        if fn is not None:
            game_function(game.id, fn)
    _check_kinds(game, p)
    try:
        check_depth(game, "search", p.depth)
    except NotImplementedError as e:
        raise ValueError(str(e)) from None


class Search(Strategy):
    name = "search"
    summary = ("determinized Monte Carlo search: plays `rollouts` dealt worlds to the end per "
               "candidate action with the `rollout` strategy, picks the best mean result "
               "(a game's own defaults, chosen by measurement, fill the knobs left unset)")
    Params = SearchParams
    wants_worlds = True

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._helpers: dict[str, tuple[Any, ...]] = {}
        self._own: dict[str, Any] = {}
        self._batch = None

    def reset(self, batch: int, n_players: int) -> None:
        self._batch = (batch, n_players)
        for _, prior, _, other in self._helpers.values():
            for s in (prior, other):
                if s is not None:
                    s.reset(batch, n_players)

    def settings(self, game_id: str, players: int | None = None) -> SearchParams:
        """The knobs this player searches ``game_id`` with at ``players`` players: the game's
        defaults (``SEARCH``, with its ``"at"`` row for that count), then every knob set on the
        player."""
        return SearchParams(**{**game_defaults(game_id, players),
                               **self.params.model_dump(exclude_unset=True)})

    @classmethod
    def knobs_text(cls, game_id: str) -> str:
        """The knobs as ``safari-sim strategies`` lists them for ``game_id``: every knob at the
        value the game's defaults give it (``SEARCH``), then each player count's own."""
        p = cls().settings(game_id)
        text = ", ".join(f"{k}={getattr(p, k)}" for k in SearchParams.model_fields)
        for n in default_counts(game_id):
            own = {k: v for k, v in game_defaults(game_id, n).items()
                   if game_defaults(game_id).get(k, getattr(p, k)) != v}
            text += f"; at {n} players: " + ", ".join(f"{k}={v}" for k, v in own.items())
        return text

    def check_for(self, game) -> None:
        """``check_settings`` for this player's settings in ``game`` (ValueError), at every
        player count with defaults of its own too."""
        for players in [None, *default_counts(game.id)]:
            check_settings(game, self.settings(game.id, players))

    def _strategies(self, game, players: int | None = None) -> tuple[Any, Any, Any, Any]:
        """(settings, prior or None, rollout, elsewhere or None) for this game at ``players``
        players, built on first use."""
        got = self._helpers.get((game.id, players))
        if got is None:
            from . import get_strategy

            p = self.settings(game.id, players)
            _check_kinds(game, p)
            name, params = rollout_spec(game.id, p.rollout, p.rollout_params)
            rollout = helper(game, name, params, f"{self.label}.rollout")
            def make(nm, kw, which):
                s = get_strategy(game.id, nm)(**kw)
                s.label = f"{self.label}.{which}"
                if self._batch is not None:
                    s.reset(*self._batch)
                return s

            prior = None if p.prior is None else make(p.prior, p.prior_params, "prior")
            other = (None if p.elsewhere is None else
                     make(p.elsewhere, p.elsewhere_params, "elsewhere"))
            got = self._helpers[(game.id, players)] = (p, prior, rollout, other)
            self._own[(game.id, players)] = (
                None if p.own_rollout is None else
                helper(game, p.own_rollout, p.own_rollout_params, f"{self.label}.own_rollout"))
        return got

    def act(self, obs, legal, rng, worlds=None):
        game = searched_game(worlds, "search")
        players = worlds.n_players
        p, prior, rollout, other = self._strategies(game, players)
        check_depth(game, "search", p.depth)
        legal = np.asarray(legal)
        if p.kinds is not None or p.searched is not None:
            # decisions of the kinds not searched (or not named by ``searched``): the elsewhere
            # (or rollout) strategy's, from the same seat streams, before any key is drawn for
            # the searched ones
            off = (np.zeros(len(legal), np.bool_) if p.kinds is None else
                   ~np.isin(np.asarray(obs.kind), p.kinds))
            if p.searched is not None:
                off |= ~np.asarray(game_function(game.id, p.searched)(obs), np.bool_)
            if off.any():
                out = np.zeros(len(legal), np.int64)
                rows = np.flatnonzero(off)
                out[rows] = self._play_as(other or rollout, obs.take(rows),
                                          np.take(legal, rows, axis=0), rng.take(rows),
                                          worlds.take(rows))
                rows = np.flatnonzero(~off)
                if rows.size:
                    out[rows] = self._search(game, p, prior, rollout, obs.take(rows),
                                             np.take(legal, rows, axis=0), rng.take(rows),
                                             worlds.take(rows), players)
                return out
        return self._search(game, p, prior, rollout, obs, legal, rng, worlds, players)

    @staticmethod
    def _play_as(strategy, obs, legal, rng, worlds):
        """``strategy``'s own actions in these games (a compiled heuristic decides in the real
        game, held to the seat's knowledge as everywhere)."""
        shown = legal.copy()
        shown.flags.writeable = False
        if getattr(strategy, "reads_state", False):
            return np.asarray(worlds.decide(strategy, rng, shown), np.int64)
        return np.asarray(strategy.act(obs, shown, rng), np.int64)

    def _search(self, game, p, prior, rollout, obs, legal, rng, worlds, players=None):
        base = seed_keys(rng)  # first: the same two draws per game whatever else happens
        cand, own = self._candidates(p, obs, legal, rng, prior, worlds)
        # [2, n, W]: the objective's mean, then the other one's (the tie-break)
        value = np.where(cand, 0.0, -np.inf)[None].repeat(2, axis=0)  # forced: the one candidate
        # only games with a real choice are searched
        open_ = np.flatnonzero(cand.sum(axis=1) > 1)
        if open_.size:
            per_game = cand[open_].sum(axis=1) * p.rollouts
            ends = np.cumsum(per_game)
            limit = min(p.max_worlds, max(1, WORLD_BYTES // max(1, worlds.row_bytes)))
            start = 0
            while start < open_.size:  # chunks of whole games, at most max_worlds worlds each
                first = ends[start] - per_game[start]
                stop = max(start + 1, int(np.searchsorted(ends, first + limit,
                                                          side="right")))
                rows = open_[start:stop]
                value[:, rows] = self._race(p, game, worlds, rows, cand[rows], base[rows],
                                            rollout, players)
                start = stop
            if p.prior_bonus > 0 and own is not None:
                # the prior's own choice keeps its place unless another is clearly better
                value[0, open_, own[open_]] += p.prior_bonus
        # the best mean; among equals the best of the other measure (a seat that loses every
        # world still prefers losing by less), then the seat's stream
        ties = cand & (value[0] >= value[0].max(axis=1, keepdims=True))
        second = np.where(ties, value[1], -np.inf)
        ties &= second >= second.max(axis=1, keepdims=True)
        return random_legal(ties, rng)  # ties broken by the seat's stream

    def _candidates(self, p, obs, legal, rng, prior, worlds):
        """(bool[n, W]: the actions to search in each observed game, int[n]: the prior's own
        choice in each, its first of top_k, or None without a prior)."""
        if p.candidates is not None:
            # the game's own: where it names no legal action, every legal action
            fn = game_function(worlds.game.id, p.candidates)
            cand = np.asarray(fn(obs, legal, **p.candidates_params), np.bool_) & legal
            none = ~cand.any(axis=1)
            cand[none] = legal[none]
            return cand, None
        k = p.top_k
        if k == 0:
            return legal.copy(), None
        n = len(legal)
        left = legal.copy()
        cand = np.zeros_like(legal)
        rows = np.arange(n)
        first = None
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
                if first is None:
                    first = a.copy()
            else:
                a = random_legal(left, rng)
            some = left.any(axis=1)
            cand[rows[some], a[some]] = True
            left[rows[some], a[some]] = False
        return cand, first

    def _race(self, p, game, worlds, rows, cand, base, rollout, players=None) -> np.ndarray:
        """float[2, len(rows), W]: the mean result of each candidate of observed games ``rows``
        by the objective, then by the other measure; with ``race``, the games whose best two
        candidates are close (their means less than ``race_z`` standard errors apart) play
        ``race`` more worlds per candidate, and their means are over all the worlds played."""
        sums = self._evaluate(p, game, worlds, rows, cand, base, rollout, 0, p.rollouts, players)
        if p.race > 0:
            mean, _, sq, tot = self._means(sums, cand)
            close = np.flatnonzero(self._close(mean, sq, tot, cand, p.race_z))
            if close.size:
                sums[:, close] += self._evaluate(p, game, worlds, rows[close], cand[close],
                                                 base[close], rollout, p.rollouts, p.race,
                                                 players)
        mean, other, _, _ = self._means(sums, cand)
        return np.stack([mean, other])

    @staticmethod
    def _means(sums, cand):
        """(objective mean, other mean, mean square of the objective, weight) per candidate."""
        tot = np.where(cand, sums[3], 1.0)
        mean = np.where(cand, sums[0] / tot, -np.inf)
        other = np.where(cand, sums[1] / tot, -np.inf)
        return mean, other, np.where(cand, sums[2] / tot, 0.0), tot

    @staticmethod
    def _close(mean, sq, tot, cand, z):
        """bool[n]: games whose best and second-best candidates are at most ``z`` standard
        errors of their difference apart (the worlds' spread, as if independent: common worlds
        only make the true error smaller; equal means are always close)."""
        order = np.argsort(-mean, axis=1)
        i = np.arange(len(mean))
        a, b = order[:, 0], order[:, 1]
        var = np.maximum(sq - np.where(cand, mean, 0.0) ** 2, 0.0) / tot
        gap = mean[i, a] - mean[i, b]
        return (cand.sum(axis=1) > 1) & (gap <= z * np.sqrt(var[i, a] + var[i, b]))

    def _evaluate(self, p, game, worlds, rows, cand, base, rollout, first_world: int,
                  r: int, count: int | None = None) -> np.ndarray:
        """float[4, len(rows), W]: over worlds ``first_world`` .. ``first_world + r - 1`` of
        each candidate of observed games ``rows``, the sums of the objective's result, of the
        other measure's (win share or margin), of the objective's square and of the worlds'
        weights; with ``weigh``, each world's results count by its weight
        (``Game.world_weights``), else 1."""
        gi, act = np.nonzero(cand)             # one entry per (game, candidate)
        gi = np.repeat(gi, r)
        act = np.repeat(act, r)
        rep = np.tile(np.arange(r), len(gi) // r)
        # world j of a game is the same deal for every candidate (common random numbers)
        numbers = np.arange(first_world, first_world + r)[None, :].repeat(len(base), 0)
        keys = world_keys(base, numbers, DEAL)[gi, rep]
        w = worlds.deal(rows[gi], keys)
        seat = np.take(worlds.seat, rows[gi])
        m = len(gi)
        n_players = worlds.n_players
        # what the others said, read in each world before anything is played in it
        weight = (np.ones(m) if p.weigh is None else
                  np.asarray(game.world_weights(w, seat, p.weigh), np.float64))
        game.step(w, act)
        seats = (first_world * n_players + np.arange(r * n_players))[None, :]
        seat_keys = world_keys(base, seats.repeat(len(base), 0), SEATS)
        seat_rs = seat_keys.reshape(len(base), r, n_players)[gi, rep].reshape(-1).copy()
        rollout.reset(m, n_players)
        players = [rollout]
        seating = np.zeros((m, n_players), np.int64)
        own = self._own.get((game.id, count))  # built for the table's player count
        if own is not None:  # the searcher's own seat by its own rollout strategy
            own.reset(m, n_players)
            players.append(own)
            seating[np.arange(m), seat] = 1
        # to the end, or ``depth`` steps of the loop (every world steps together: each plays
        # exactly that many, whatever else is in its chunk)
        play_on(game, w, players, seating, seat_rs, rules=worlds.rules, steps=p.depth,
                step_kinds=p.depth_kinds)
        win, margin = world_results(game, w, seat, game.teams(worlds.rules, n_players))
        first, other = (win, margin) if p.objective == "win" else (margin, win)
        sums = np.zeros((4,) + cand.shape)
        for k, v in enumerate((first, other, first * first, np.ones(m))):
            np.add.at(sums[k], (gi, act), weight * v)
        return sums


STRATEGIES = [Search]
