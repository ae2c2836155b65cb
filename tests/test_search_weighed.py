"""Worlds weighed by what the other seats said (``Game.world_weights``, search's ``weigh``), and
the per-game defaults of the search player (a game's ``SEARCH``): Bluff in Zoo, where a claim is
evidence about the claimant's hidden card."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.worlds import Worlds
from safari_sim.games import bluff_in_zoo as bz
from safari_sim.games import get_game
from strategies import get_strategy
from strategies.search import Search

G = get_game("bluff_in_zoo")
R = G.make_rules()
ELEPHANT = 4


def c(name):
    return G.card(R, name)


def act(st, a):
    assert G.legal(st)[0, a], G.action_name(R, st.n_players, a)
    G.step(st, np.array([a]))


def claim(st, count, kind):
    o = G.observe(st, np.array([0]))
    act(st, int(o.count_action(count)))
    act(st, int(G.observe(st, np.array([0])).kind_action(kind)))


def opening(hand1=("mouse 2", "rabbit 2", "fox 2", "mouse 3", "rabbit 3")):
    """Two players: P0 places its elephant 1 (hidden from P1) and claims "one elephant", a true
    claim; P1 (holding ``hand1``) is to answer. P1 cannot see the card: among the cards it
    could be, few back an elephant."""
    hands = [["elephant 1", "mouse 1", "rabbit 1", "fox 1", "stop"], list(hand1)]
    st = G.init(R, 2, deal_keys(1, 3))
    G.deal(st, 0, [[c(x) for x in h] for h in hands])
    act(st, bz.HAND0 + c("elephant 1"))
    claim(st, 1, ELEPHANT)
    assert G.observe(st, np.array([0])).kind[0] == bz.RESPOND
    return st


def worlds_of(st, seat=1):
    return Worlds(G, R, st.n_players, st, np.array([0]), np.array([seat]))


def test_claim_weights_follow_bayes_rule():
    """Each world counts trust where the claim is true in it, 1 - trust where it is false: the
    weighed share of worlds where "one elephant" is true is Bayes' posterior, trust * p / (trust * p
    + (1 - trust) * (1 - p)) of the dealt share p, far above p (a truthful claimant's claim is
    believed); trust 1/2 weighs every world alike. The seat's own claims weigh nothing."""
    st = opening()
    n = 4000
    w = worlds_of(st).deal(np.zeros(n, np.int64), deal_keys(n, 5))
    true = np.array([bz.count_animals(w.pile[i], ELEPHANT, w.t_cls, w.t_kind, w.t_val) >= 1
                     for i in range(n)])
    p = true.mean()
    assert 0.15 < p < 0.4   # elephants and wild cards among the cards P1 cannot place
    weight = G.world_weights(w, np.ones(n, np.int64), 0.9)
    assert np.allclose(weight, np.where(true, 0.9, 0.1))
    post = weight[true].sum() / weight.sum()
    assert post == pytest.approx(0.9 * p / (0.9 * p + 0.1 * (1 - p)))
    assert post > 0.6
    assert np.allclose(G.world_weights(w, np.ones(n, np.int64), 0.5), 0.5)
    # P0's worlds: its own claim is no evidence to it
    own = worlds_of(st, seat=0).deal(np.zeros(50, np.int64), deal_keys(50, 6))
    assert np.allclose(G.world_weights(own, np.zeros(50, np.int64), 0.9), 1.0)


def _decide(s, st, seed):
    seat = int(G.to_move(st)[0])
    rs = game_keys(seed, st.n_players, 1).seat.reshape(-1).copy()
    s.reset(1, st.n_players)
    legal = G.legal(st).copy()
    legal.flags.writeable = False
    a = s.act(G.observe(st, np.array([0])).freeze(), legal,
              SeatRandom(rs, np.array([seat])), worlds_of(st, seat=seat))
    return int(a[0])


def test_search_believes_a_truthful_claim_it_would_doubt_unweighed():
    """The default search in Bluff in Zoo (no knobs set) goes on after the true "one
    elephant": weighed by the claim, its worlds hold the elephant about as often as a truthful
    claimant's claim should, and doubting would cost it the pile. The same search with every
    world counted alike (weigh: null, the old worlds) sees the elephant in few worlds (about
    one in four) and doubts (12 seat streams)."""
    st = opening(["stop", "stop", "'All cards count 1'", "'All cards count 1'", "stop"])
    weighed = [_decide(Search(), st, seed) for seed in range(12)]
    alike = [_decide(Search(weigh=None), st, seed) for seed in range(12)]
    assert weighed.count(bz.CONTINUE) == 12, weighed
    assert alike.count(bz.DOUBT) >= 10, alike


def test_game_defaults_fill_the_unset_knobs_only():
    """A game's SEARCH fills the knobs a player leaves unset; a knob set on the player wins,
    and a game without SEARCH searches with the generic defaults."""
    from strategies.bluff_in_zoo import SEARCH

    p = Search().settings("bluff_in_zoo")
    assert {k: getattr(p, k) for k in SEARCH} == SEARCH
    assert Search(depth=0, weigh=None).settings("bluff_in_zoo").depth == 0
    assert Search(depth=0, weigh=None).settings("bluff_in_zoo").weigh is None
    assert Search().settings("no_such_game") == Search.Params()


def test_kinds_outside_the_game_get_one_clear_error():
    st = opening()
    with pytest.raises(ValueError, match="decision kinds 0 to 3"):
        _decide(Search(kinds=[7]), st, 0)
