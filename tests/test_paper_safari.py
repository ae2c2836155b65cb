"""Paper Safari: each rule from a constructed position, the rulebook's examples, hidden
information, and properties over many random games."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games import paper_safari as ps
from strategies import get_strategy

G = get_game("paper_safari")
R = G.make_rules()


def T(x, r=R):
    """Card type of a value (the animal) or of 'tarzan' / 'safari'."""
    return G.type_of(r, x)


TARZAN, SAFARI, ELEPHANT = T("tarzan"), T("safari"), T(10)
ALL_UP = [True] * 6


def grid(*values, r=R):
    return [T(v, r) for v in values]


def position(grids, up=None, players=None, log=True, **kw):
    rules = kw.pop("rules", {})
    r = G.make_rules(rules)
    st = G.init(r, len(grids), 1, np.random.default_rng(0), log=log)
    st.g[0, ps.NEV] = 0
    G.arrange(st, 0, grids, up=up, **kw)
    return r, st


def act(st, action, seed=0):
    name = G.action_name(st.rules, st.n_players, action)
    assert G.legal(st)[0, action], f"{name} should be legal"
    G.step(st, np.array([action]), np.random.default_rng(seed))


def slot(k):
    return ps.SLOT0 + k


def conserved(st, b=0):
    cards = sorted(int(c) for zone in G.zones(st, b).values() for c in zone)
    assert cards == sorted(int(c) for c in st.base), "cards lost or created"


def obs_of(st):
    return G.observe(st, np.array([0]))


# ---- End of Round and Scoring ------------------------------------------------------------------

def test_misha_scoring_example():
    # "his two rows are 3, 1, 5 (top) and 0, -2, 5 (bottom). The two 5s share a column ... = 2."
    assert G.field_score(R, grid(3, 1, 5, 0, -2, 5)) == 2
    no_rule = G.make_rules({"equal_column_zero": False})
    assert G.field_score(no_rule, grid(3, 1, 5, 0, -2, 5, r=no_rule)) == 12


def test_misha_example_played_to_the_end_of_a_round():
    # Misha (seat 0) turns up his last card, the second 5, and the round ends at once
    r, st = position([grid(3, 1, 5, 0, -2, 8), grid(7, 8, 6, 6, 7, 8)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(5), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, 0, ps.LAST] == 2 and st.pp[0, 1, ps.LAST] == 42
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0]
    assert st.pp[0, 0, ps.CLOSED] == 1
    assert st.g[0, ps.ROUND] == 1
    # a new round is dealt and the winner chooses first
    assert st.g[0, ps.FIRST] == 0 and G.to_move(st)[0] == 0 and st.g[0, ps.PHASE] == ps.REVEAL
    assert not st.up[0].any() and st.g[0, ps.DISC_N] == 1
    conserved(st)
    assert "P0 scores 2: 3 1 5 / 0 -2 5" in G.describe(st, 0)


def test_round_winner_starts_next_round_and_others_may_win():
    # seat 0 closes with a bad grid; seat 1's face-down grid scores lower and wins
    r, st = position([grid(7, 8, 6, 6, 7, 4), grid(-2, 0, 1, 1, 2, 3)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(8), from_deck=True)
    act(st, slot(5))
    assert st.pp[0, :, ps.WINS].tolist() == [0, 1]
    assert st.g[0, ps.FIRST] == 1 and G.to_move(st)[0] == 1


def test_safari_counts_as_its_owners_best_neighbour():
    # "a Safari card between a card worth 3 and a card worth 5 ... may count as 3 or as 5"
    assert G.field_score(R, grid(3, "safari", 5, 0, 7, -2)) == 3 + 3 + 5 + 0 + 7 - 2
    # as 5 it matches the 5 below it: that column counts 0
    assert G.field_score(R, grid(3, "safari", 5, 0, 5, -2)) == 3 + 0 + 5 + 0 - 2
    # at the end of a row it has only one neighbour, in its row (not the card below it)
    assert G.field_score(R, grid("safari", 4, 1, -2, 0, 6)) == 4 + 4 + 1 - 2 + 0 + 6
    # a Safari next to a Safari takes the value the other one copies
    assert G.field_score(R, grid("safari", "safari", 2, 0, 1, 6)) == 2 + 2 + 2 + 0 + 1 + 6
    # a grid of one column: a Safari has no neighbour and counts 0
    one = G.make_rules({"cols": 1, "rows": 2})
    assert G.field_score(one, [T("safari", one), T(7, one)]) == 7


def test_equal_values_count_zero_whatever_the_cards():
    # Tarzan lying in a grid is worth 10, like the Elephant: a column of both counts 0
    assert G.field_score(R, [TARZAN] + grid(1, 2) + [ELEPHANT] + grid(3, 4)) == 10
    assert G.field_score(G.make_rules({"tarzan_value": 9}),
                         [TARZAN] + grid(1, 2) + [ELEPHANT] + grid(3, 4)) == 29


def _tie_position(**rules):
    # both 14: seat 0 has a 10, seat 1's highest card is 8
    return position([grid(10, -2, 0, 1, 2, 3), grid(8, 6, 0, -2, 1, 3)],
                    up=[[False] * 6, [True] * 5 + [False]], cur=1,
                    phase=ps.PLACE, held=T(1), from_deck=True, rules=rules)


def test_tie_goes_to_more_cards_of_the_highest_value():
    r, st = _tie_position()
    act(st, slot(5))
    assert st.pp[0, :, ps.LAST].tolist() == [14, 14]
    assert st.pp[0, :, ps.WINS].tolist() == [1, 0]
    assert st.g[0, ps.TIE_BREAKS] == 1 and st.g[0, ps.SHARED] == 0


def test_tie_without_the_tie_break_is_shared():
    r, st = _tie_position(high_card_tie_break=False)
    act(st, slot(5))
    assert st.pp[0, :, ps.WINS].tolist() == [1, 1]
    assert st.g[0, ps.SHARED] == 1
    # the next round starts with the first tied winner in turn order from this round's starter
    assert st.g[0, ps.FIRST] == 0


def test_match_ends_at_wins_needed():
    r, st = position([grid(3, 1, 5, 0, -2, 8), grid(7, 8, 6, 6, 7, 8)],
                     up=[[True] * 5 + [False], [False] * 6],
                     phase=ps.PLACE, held=T(5), from_deck=True)
    st.pp[0, 0, ps.WINS] = 2
    act(st, slot(5))
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == [3, 0] and out.win[0].tolist() == [1, 0]
    assert out.rank[0].tolist() == [1, 2]


# ---- Turn of Play ------------------------------------------------------------------------------

def test_deck_card_may_be_thrown_away_but_a_discard_must_be_exchanged():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, deck_top=[T(7)], discard=[T(8)])
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PLACE and obs_of(st).held[0] == T(7)
    act(st, ps.DISCARD)
    assert st.disc[0, st.g[0, ps.DISC_N] - 1] == T(7) and not st.up[0].any()
    assert G.to_move(st)[0] == 1
    act(st, ps.TAKE)
    assert not G.legal(st)[0, ps.DISCARD]
    act(st, slot(2))
    assert st.grid[0, 1, 2] == T(7) and st.up[0, 1, 2]
    assert st.disc[0, st.g[0, ps.DISC_N] - 1] == T(2)  # the replaced card goes on the pile face up
    conserved(st)


def test_deck_running_out_is_reshuffled_from_the_discards():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr)
    rest = G.zones(st, 0)["deck"]
    r, st = position(gr, deck_top=[rest[-1]], discard=rest[:-1])
    act(st, ps.DECK)
    act(st, ps.DISCARD)
    n = len(rest)
    assert st.g[0, ps.DECK_N] == n - 1 and st.g[0, ps.DISC_N] == 1
    assert st.g[0, ps.RESHUFFLES] == 1 and G.to_move(st)[0] == 1
    assert G.legal(st)[0, ps.DECK]
    conserved(st)


def test_setup_each_player_turns_one_card_up():
    st = G.init(R, 3, 1, np.random.default_rng(3))
    assert st.g[0, ps.PHASE] == ps.REVEAL and st.g[0, ps.DISC_N] == 1
    assert st.g[0, ps.DECK_N] == 50 - 18 - 1
    for seat in (0, 1, 2):
        assert G.to_move(st)[0] == seat
        act(st, slot(seat))
        assert st.up[0, seat, seat]
    assert st.g[0, ps.PHASE] == ps.DRAW and G.to_move(st)[0] == 0
    assert st.up[0].sum() == 3
    conserved(st)


# ---- Special Cards: Tarzan ---------------------------------------------------------------------

def test_tarzan_chain_passes_cards_left_and_the_last_goes_under_the_discards():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    r, st = position(gr, cur=1, discard=[T(0), T(7)], deck_top=[TARZAN])
    act(st, ps.DECK)
    assert not G.legal(st)[0, ps.DISCARD]  # Tarzan MUST be exchanged
    act(st, slot(2))
    assert st.grid[0, 1, 2] == TARZAN              # the drawer's slot
    assert st.grid[0, 2, 2] == T(2)                # seat 1's card went to seat 2 (its left)
    assert st.grid[0, 0, 2] == T(8)                # seat 2's card went to seat 0
    assert st.disc[0, :3].tolist() == [T(3), T(0), T(7)]  # seat 0's card under the pile
    assert st.up[0, :, 2].all() and st.up[0].sum() == 3
    assert st.g[0, ps.TARZANS] == 1 and G.to_move(st)[0] == 2
    conserved(st)
    text = G.describe(st, 0)
    assert "P1 puts Tarzan at row 1 column 3" in text and "3 goes under the discard pile" in text


def test_tarzan_from_the_discard_pile_two_players():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, discard=[T(7), TARZAN])
    act(st, ps.TAKE)
    assert not G.legal(st)[0, ps.DISCARD]
    act(st, slot(0))
    assert st.grid[0, 0, 0] == TARZAN and st.grid[0, 1, 0] == T(1)
    assert st.disc[0, :2].tolist() == [T(0), T(7)]
    conserved(st)


def test_a_tarzan_chain_can_end_the_round_for_another_player():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, up=[[False] * 6, [True] * 5 + [False]], deck_top=[TARZAN])
    act(st, ps.DECK)
    act(st, slot(5))
    assert st.g[0, ps.ROUND] == 1 and st.pp[0, 1, ps.CLOSED] == 1


# ---- Special Cards: Elephant -------------------------------------------------------------------

def test_elephant_look_forces_an_exchange_and_only_its_owner_sees():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    up0 = [True, False, False, False, False, False]
    r, st = position(gr, up=[up0, [False] * 6], deck_top=[ELEPHANT])
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PEEK
    lg = G.legal(st)[0]
    assert lg[ps.NO_PEEK] and not lg[slot(0)] and lg[slot(1):].all()
    act(st, slot(4))
    o = obs_of(st)
    assert o.grid[0, 0, 4] == T(5) and not o.up[0, 0, 4]      # seen, still face down
    assert not G.legal(st)[0, ps.DISCARD]                     # looking forces the exchange
    act(st, slot(1))                                          # not necessarily the one seen
    assert st.grid[0, 0, 1] == ELEPHANT and st.pp[0, 0, ps.PEEKS] == 1
    o1 = obs_of(st)                                           # seat 1 to move
    assert o1.seat[0] == 1 and o1.grid[0, 1, 4] == -1         # seat 0's looked card is hidden
    assert o1.grid[0, 1, 1] == ELEPHANT                       # the exchanged one is face up
    conserved(st)


def test_elephant_without_a_look_may_be_thrown_away():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5)]
    r, st = position(gr, deck_top=[ELEPHANT])
    act(st, ps.DECK)
    act(st, ps.NO_PEEK)
    assert G.legal(st)[0, ps.DISCARD]
    act(st, ps.DISCARD)
    assert G.to_move(st)[0] == 1


def test_no_elephant_power_when_switched_off():
    r = G.make_rules({"elephant_value": None})
    gr = [grid(1, 2, 3, 4, 5, 6, r=r), grid(0, 1, 2, 3, 4, 5, r=r)]
    r, st = position(gr, deck_top=[T(10, r)], rules={"elephant_value": None})
    act(st, ps.DECK)
    assert st.g[0, ps.PHASE] == ps.PLACE


# ---- Hidden information ------------------------------------------------------------------------

def _equal_obs(a, b):
    for name, x in vars(a).items():
        y = getattr(b, name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y), name
        else:
            assert x == y, name


def test_observation_does_not_depend_on_hidden_cards():
    gr = [grid(1, 2, 3, 4, 5, 6), grid(0, 1, 2, 3, 4, 5), grid(-2, 0, 8, 7, 6, 5)]
    up = [[True, False, False, False, False, False], [False, True] + [False] * 4, [False] * 6]
    _, a = position(gr, up=up, discard=[T(7)])
    # the same position with other face-down cards (own and others') and another deck order
    gr2 = [grid(1, 8, 3, 4, 5, 6), grid(0, 1, 10, 3, 4, 5), grid(-2, 0, 8, 7, 6, "tarzan")]
    _, b = position(gr2, up=up, discard=[T(7)], deck_top=[T(2), T(5)])
    for seat in range(3):
        a.g[0, ps.CUR] = b.g[0, ps.CUR] = seat
        _equal_obs(obs_of(a), obs_of(b))
    # and a card's owner sees it once looked at, no one else does
    a.known[0, 0, 1] = True
    a.g[0, ps.CUR] = 0
    o = obs_of(a)
    assert o.grid[0, 0, 1] == T(2)
    a.g[0, ps.CUR] = 1
    assert obs_of(a).grid[0, 2, 1] == -1
    assert obs_of(a).unseen[0].sum() == 50 - 1 - 2  # all but the discard and two face-up cards


# ---- Rules -------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"animal_values": [1, 1, 2]}, {"elephant_value": 9}, {"rows": 0}, {"initial_face_up": 6},
    {"wins_needed": 0}, {"cards_per_animal": 0}, {"tarzan_cards": -1}, {"max_round_turns": 0},
])
def test_impossible_rules_are_refused(bad):
    with pytest.raises(RulesError):
        G.make_rules(bad)


def test_too_few_cards_for_the_table():
    r = G.make_rules({"cards_per_animal": 2, "tarzan_cards": 0, "safari_cards": 0})
    with pytest.raises(RulesError):
        G.init(r, 5, 1, np.random.default_rng(0))
    with pytest.raises(RulesError):
        G.init(R, 6, 1, np.random.default_rng(0))


# ---- Properties over many games ----------------------------------------------------------------

def _counts(st):
    """Cards of each type in every zone of every game: [B, T]."""
    nt = len(st.card_value)
    b = st.g.shape[0]
    n = st.deck.shape[1]
    cnt = np.zeros((b, nt), np.int64)
    live = np.arange(n)[None, :]
    for arr, k in ((st.deck, ps.DECK_N), (st.disc, ps.DISC_N)):
        mask = live < st.g[:, k, None]
        np.add.at(cnt, (np.nonzero(mask)[0], arr[mask].astype(np.int64)), 1)
    gr = st.grid.reshape(b, -1).astype(np.int64)
    np.add.at(cnt, (np.repeat(np.arange(b), gr.shape[1]), gr.ravel()), 1)
    held = st.g[:, ps.HELD]
    h = held >= 0
    np.add.at(cnt, (np.nonzero(h)[0], held[h]), 1)
    return cnt


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_and_heuristic_games_keep_every_rule(players):
    names = ["random", "threshold", "column_matcher", "closer", "random"][:players]
    strats = [get_strategy("paper_safari", n)() for n in names]
    batch = 96
    rng = np.random.default_rng(players)
    st = G.init(R, players, batch, rng, log=True)
    for s in strats:
        s.reset(batch, players)
    want = np.bincount(st.base, minlength=len(st.card_value))
    for _ in range(20000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        acts = np.zeros(batch, np.int64)
        for k, s in enumerate(strats):
            idx = live[mover[live] == k]
            if idx.size:
                acts[idx] = s.act(G.observe(st, idx), legal[idx], rng)
        assert legal[live, acts[live]].all(), "an illegal action was chosen"
        G.step(st, acts, rng)
        assert (_counts(st) == want).all(), "cards lost or created"
        assert (st.up <= st.known).all()
        drawing = st.g[:, ps.PHASE] == ps.DRAW
        assert (st.g[drawing, ps.DISC_N] + st.g[drawing, ps.DECK_N] > 0).all()
    assert (G.to_move(st) == -1).all(), "a game did not end"
    out = G.outcome(st)
    rules = st.rules
    for b in range(batch):
        # the final grids score what was recorded; round wins match the log
        for p in range(players):
            assert G.field_score(rules, st.grid[b, p]) == st.pp[b, p, ps.LAST]
        ev = st.ev[b, :st.g[b, ps.NEV]]
        won = np.bincount(ev[ev[:, 0] == ps.E_ROUND_WIN, 1], minlength=players)
        assert won.tolist() == out.score[b].tolist()
        assert (ev[:, 0] == ps.E_ROUND).sum() == out.stats["rounds"][b]
    assert out.score.max(axis=1).min() == rules.wins_needed
    assert np.allclose(out.win.sum(axis=1), 1)
    assert (out.stats["rounds"] >= rules.wins_needed).all()
    assert (out.stats["capped_rounds"] == 0).all()


def test_a_table_that_never_turns_cards_up_is_stopped_by_the_cap():
    # first_legal always draws from the deck and throws the card away
    r = G.make_rules({"max_round_turns": 40})
    res = play_batch(G, r, 2, [get_strategy("paper_safari", "first_legal")()],
                     np.zeros((16, 2), np.int64), np.random.default_rng(1))
    assert (res.outcome.stats["capped_rounds"] > 0).all()
    assert (G.to_move(res.state) == -1).all()


def test_same_seed_same_games():
    strats = [get_strategy("paper_safari", "threshold")(), get_strategy("paper_safari", "closer")()]
    seating = np.tile([0, 1], (64, 1))
    a = play_batch(G, R, 2, strats, seating, np.random.default_rng(9)).outcome
    b = play_batch(G, R, 2, strats, seating, np.random.default_rng(9)).outcome
    assert np.array_equal(a.score, b.score) and np.array_equal(a.turns, b.turns)
    assert np.array_equal(a.stats["round_score_sum"], b.stats["round_score_sum"])


def test_heuristics_beat_random_play():
    for name in ("threshold", "column_matcher", "closer"):
        strats = [get_strategy("paper_safari", name)(), get_strategy("paper_safari", "random")()]
        seating = np.tile([[0, 1], [1, 0]], (64, 1))
        out = play_batch(G, R, 2, strats, seating, np.random.default_rng(5)).outcome
        share = (out.win * (seating == 0)).sum() / len(seating)
        assert share > 0.9, f"{name} wins only {share:.0%} against random play"


def test_strategy_knobs_are_validated():
    cls = get_strategy("paper_safari", "closer")
    assert cls(margin=2.0, rush=0.5).params.rush == 0.5
    with pytest.raises(Exception):
        cls(nonsense=1)
    with pytest.raises(Exception):
        get_strategy("paper_safari", "column_matcher")(match_bonus=-1)


def test_describe_and_action_names():
    res = play_batch(G, R, 3, [get_strategy("paper_safari", "threshold")()],
                     np.zeros((1, 3), np.int64), np.random.default_rng(2), log=True)
    text = G.describe(res.state, 0)
    assert "-- Round 1: P0 plays first --" in text and "wins the round" in text
    assert "Match over" in text
    assert G.action_name(R, 3, ps.DECK) == "draw from the deck"
    assert G.action_name(R, 3, slot(4)) == "slot row 2 column 2"
    assert len(G.decision_kinds) == 4


def test_runs_without_numba():
    code = ("import numpy as np; from safari_sim.games import get_game; "
            "from safari_sim.engine.play import play_batch; from strategies import get_strategy; "
            "g = get_game('paper_safari'); r = g.make_rules({'wins_needed': 1}); "
            "res = play_batch(g, r, 2, [get_strategy('paper_safari', 'column_matcher')()], "
            "np.zeros((2, 2), np.int64), np.random.default_rng(0)); "
            "assert (res.outcome.score.max(axis=1) == 1).all(); print('ok')")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ok" in out.stdout
