"""Information-set Monte Carlo tree search (single observer; Cowling, Powley, Whitehouse 2012).

The second mode of the search player (``strategies/search.py`` is the flat one). At each decision
it grows one tree per observed game over the searching seat's own decisions. Each iteration, for
every observed game at once:

1. deal one world (``Worlds.deal``: everything the seat cannot see dealt again);
2. descend the tree from the root: at each of the seat's decisions, among the actions legal in
   THIS world, expand one untried action if there is one, else pick by UCB1 with availability
   counts (``mean + c sqrt(ln availability / visits)``, availability = how often the child was
   legal when its parent was passed through: SO-ISMCTS);
3. the other seats' moves, inside the tree and after it, are played by the rollout strategy (the
   tree holds only the seat's decisions: the opponents are part of the world, as chance is), and
   after the expansion the seat too is played by the rollout strategy, to the end of the game,
   through the loop users run (``engine.play.play_on``), or with ``depth: d`` only d steps of
   that loop after the root action, the world then scored by the game's running score;
4. back up the result along the path (win share, or score margin by ``objective``).

It plays the root action visited most (ties: the better mean, then the seat's stream).

Batched: the trees are per-game arrays (visits, value sums, availability counts, children by
action) and every iteration's worlds are one batch stepped together; the only Python loops are
over iterations and the steps of the play-out. Every key is derived from the seat's stream
(``engine.worlds.seed_keys``), so a game is the same in any batch and the real game's chance is
never touched.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from safari_sim.engine.play import play_on
from safari_sim.engine.worlds import seed_keys, world_keys

from .base import Strategy, random_legal
from .search import (DEAL, SEATS, after_steps, check_depth, helper, rollout_spec,
                     searched_game, world_results)


class IsmctsParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    iterations: int = Field(64, ge=1, le=100_000, description=(
        "worlds dealt (and tree descents) per observed game at each decision"))
    c: float = Field(0.7, ge=0.0, description=(
        "UCB1 exploration constant (times the spread of the results seen, for margin)"))
    rollout: str = Field("benchmark", description=(
        "strategy of the game playing the other seats and the play-outs ('benchmark': the "
        "game's BENCHMARK heuristic, random where it has none)"))
    rollout_params: dict[str, Any] = Field({}, description=(
        "the rollout strategy's knobs (with 'benchmark': on top of the benchmark's own)"))
    objective: Literal["win", "margin"] = Field("win", description=(
        "win: the seat's win share; margin: its score lead over the best other seat"))
    depth: int = Field(0, ge=0, description=(
        "steps of the play loop (every seat's decisions, the tree's included) each world is "
        "played after the root action before it is scored by the game's running score "
        "(0: to the end)"))
    max_worlds: int = Field(4096, ge=1, description=(
        "observed games searched at once (one world each per iteration)"))


class _Tree:
    """The searching seat's policy inside one iteration's worlds (world i: observed game i).

    In the tree it expands or picks by UCB1 over the actions legal in that world; once out of
    the tree it hands over to the rollout strategy. Tree arrays are owned by ``Ismcts._search``."""

    reads_obs = True
    wants_worlds = False
    reads_state = True  # it hands the rows out of the tree to the rollout, a compiled heuristic

    def __init__(self, game, rollout, c: float, label: str):
        self.game = game
        self.rollout = rollout
        self.c = c
        self.label = label
        self.blind_rollout = getattr(rollout, "reads_obs", True) is False

    def start(self, child, visits, value, avail, count, spread):
        self.child, self.visits, self.value = child, visits, value
        self.avail, self.count, self.spread = avail, count, spread
        n = len(count)
        self.cur = np.zeros(n, np.int64)  # the node each world is at; -1: out of the tree
        self.path = np.full((n, 8), -1, np.int64)
        self.plen = np.zeros(n, np.int64)

    def reset(self, batch, n_players):  # the iteration's state is set by start()
        pass

    def _append(self, rows, nodes):
        if self.plen[rows].max(initial=-1) + 1 >= self.path.shape[1]:
            grown = np.full((len(self.plen), 2 * self.path.shape[1]), -1, np.int64)
            grown[:, :self.path.shape[1]] = self.path
            self.path = grown
        self.path[rows, self.plen[rows]] = nodes
        self.plen[rows] += 1

    def compiled_policy(self):
        return None

    def decide(self, state, games, rng, legal):
        g = np.asarray(games, np.int64)
        out = np.zeros(len(g), np.int64)
        inside = self.cur[g] >= 0
        k_out = np.flatnonzero(~inside)
        if k_out.size:
            sub = rng.take(k_out)
            lg = np.take(legal, k_out, axis=0)
            if getattr(self.rollout, "reads_state", False):
                out[k_out] = self.rollout.decide(state, g[k_out], sub, lg)
            else:
                o = None if self.blind_rollout else self.game.observe(state, g[k_out]).freeze()
                out[k_out] = self.rollout.act(o, lg, sub)
        k_in = np.flatnonzero(inside)
        if k_in.size == 0:
            return out
        gi = g[k_in]
        lg = np.asarray(legal)[k_in]
        w = lg.shape[1]
        node = self.cur[gi]
        u = rng.take(k_in).random(k_in.size)  # one draw per decision
        ch = self.child[gi, node, :w]
        exist = lg & (ch >= 0)
        untried = lg & (ch < 0)
        # availability: every existing child legal in this world was available
        r, a = np.nonzero(exist)
        self.avail[gi[r], ch[r, a]] += 1
        expand = untried.any(axis=1)
        # expansion: a uniformly random untried action
        e = np.flatnonzero(expand)
        if e.size:
            csum = np.cumsum(untried[e], axis=1)
            pick = (u[e] * csum[:, -1]).astype(np.int64)
            act = (csum <= pick[:, None]).sum(axis=1)
            ge = gi[e]
            new = self.count[ge]
            self.count[ge] += 1
            self.child[ge, node[e], act] = new
            self.avail[ge, new] = 1
            self._append(ge, new)
            self.cur[ge] = -1
            out[k_in[e]] = act
        s = np.flatnonzero(~expand)
        if s.size:
            gs = gi[s]
            cs = ch[s]
            ok = exist[s]
            cc = np.where(ok, cs, 0)
            vis = np.take_along_axis(self.visits[gs], cc, axis=1)
            val = np.take_along_axis(self.value[gs], cc, axis=1)
            av = np.take_along_axis(self.avail[gs], cc, axis=1)
            vis = np.maximum(vis, 1.0)
            score = val / vis + self.c * self.spread[gs, None] * np.sqrt(
                np.log(np.maximum(av, 1.0)) / vis)
            score = np.where(ok, score, -np.inf)
            best = ok & (score >= score.max(axis=1, keepdims=True))
            csum = np.cumsum(best, axis=1)
            pick = (u[s] * csum[:, -1]).astype(np.int64)
            act = (csum <= pick[:, None]).sum(axis=1)
            nxt = cs[np.arange(s.size), act]
            self._append(gs, nxt)
            self.cur[gs] = nxt
            out[k_in[s]] = act
        return out


class Ismcts(Strategy):
    name = "ismcts"
    summary = ("information-set MCTS (single observer): a tree over the seat's decisions grown "
               "from `iterations` dealt worlds, UCB1 with availability, `rollout` play-outs")
    Params = IsmctsParams
    wants_worlds = True

    def __init__(self, **params: Any):
        super().__init__(**params)
        self._rollouts: dict[str, Any] = {}

    def _rollout(self, game):
        got = self._rollouts.get(game.id)
        if got is None:
            name, params = rollout_spec(game.id, self.params.rollout, self.params.rollout_params)
            got = helper(game, name, params, f"{self.label}.rollout")
            if getattr(got, "wants_worlds", False):
                raise ValueError(f"ismcts rollout '{name}' deals worlds itself: pick a heuristic")
            self._rollouts[game.id] = got
        return got

    def act(self, obs, legal, rng, worlds=None):
        game = searched_game(worlds, "ismcts")
        check_depth(game, "ismcts", self.params.depth)
        rollout = self._rollout(game)
        legal = np.asarray(legal)
        base = seed_keys(rng)  # first: the same two draws per game whatever else happens
        n, w = legal.shape
        visits = np.zeros((n, w))
        mean = np.full((n, w), -np.inf)
        open_ = np.flatnonzero(legal.sum(axis=1) > 1)  # forced: the one legal action
        step = self.params.max_worlds
        for start in range(0, open_.size, step):
            rows = open_[start:start + step]
            visits[rows], mean[rows] = self._search(game, worlds, rows, base[rows], rollout, w)
        # the most visited root action; among equals the better mean, then the seat's stream
        score = np.where(legal, visits, -1.0)
        ties = legal & (score >= score.max(axis=1, keepdims=True))
        second = np.where(ties, mean, -np.inf)
        ties &= second >= second.max(axis=1, keepdims=True)
        return random_legal(ties, rng)

    def _search(self, game, worlds, rows, base, rollout, width):
        """(visits, mean) of the root actions [len(rows), width] after the iterations."""
        p = self.params
        n, P = len(rows), worlds.n_players
        nodes = p.iterations + 1
        n_act = max(int(game.n_actions(worlds.rules, P)), width)
        child = np.full((n, nodes, n_act), -1, np.int64)
        visits = np.zeros((n, nodes))
        value = np.zeros((n, nodes))
        avail = np.zeros((n, nodes))
        count = np.ones(n, np.int64)  # node 0: the root
        spread = np.ones(n)
        lo, hi = np.zeros(n), np.zeros(n)  # margins seen (their spread scales c)
        tree = _Tree(game, rollout, p.c, f"{self.label}.tree")
        seat = np.take(worlds.seat, rows)
        games = np.arange(n)
        seats = np.arange(P)[None, :].repeat(n, 0)
        zeros = np.zeros((n, P), np.int64)
        for it in range(p.iterations):
            deal = world_keys(base, np.full((n, 1), it, np.int64), DEAL)[:, 0]
            w = worlds.deal(rows, deal)
            seating = np.ones((n, P), np.int64)
            seating[games, seat] = 0
            seat_rs = world_keys(base, it * P + seats, SEATS).reshape(-1).copy()
            tree.start(child, visits, value, avail, count, spread)
            rollout.reset(n, P)
            # the tree part (the seat by the tree, the others by the rollout strategy), until
            # every world has left its tree; then the rest by the rollout strategy alone (its
            # compiled policy, where it is one, plays it in one kernel)
            # (with ``depth``, every world plays the root action and then ``depth`` steps, the
            # tree part's included, whatever else is in the batch)
            steps = [0]
            budget = p.depth + 1 if p.depth else 0

            def tree_part(mover):
                steps[0] += 1
                return (budget and steps[0] > budget) or not (
                    (tree.cur >= 0) & (mover >= 0)).any()

            play_on(game, w, [tree, rollout], seating, seat_rs, rules=worlds.rules,
                    stop=tree_part)
            left = budget - (steps[0] - 1)
            if not budget or left > 0:
                play_on(game, w, [rollout], zeros, seat_rs, rules=worlds.rules,
                        stop=after_steps(left) if budget else None)
            r = self._reward(game, w, seat)
            g, d = np.nonzero(np.arange(tree.path.shape[1])[None, :] < tree.plen[:, None])
            path = tree.path[g, d]
            visits[g, path] += 1.0  # a path visits a node once
            value[g, path] += r[g]
            if p.objective == "margin":
                lo, hi = np.minimum(lo, r), np.maximum(hi, r)
                spread[:] = np.maximum(hi - lo, 1.0)
        root = child[:, 0, :width]
        there = root >= 0
        rc = np.where(there, root, 0)
        v = np.take_along_axis(visits, rc, axis=1)
        s = np.take_along_axis(value, rc, axis=1)
        return (np.where(there, v, 0.0),
                np.where(there, s / np.maximum(v, 1.0), -np.inf))

    def _reward(self, game, w, seat):
        win, margin = world_results(game, w, seat)
        return win if self.params.objective == "win" else margin


STRATEGIES = [Ismcts]
