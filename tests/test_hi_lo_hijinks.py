"""Hi-Lo Hijinks: the rulebook's example, each rule from a constructed position, and properties
over many random games checked against a plain-Python reading of the rulebook (written here
again, never calling the module's kernels)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games import hi_lo_hijinks as hl
from strategies import get_strategy
from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught
from mixed_play import (assert_drama, check_clone_plays_the_same, check_search_space,
                        mixed_actions, play_mixed)
from worlds_check import check_worlds

G = get_game("hi_lo_hijinks")
R = G.make_rules()
ELEPHANT, LION, MONKEY, TIGER, ZEBRA = range(5)
V = 6
NAK = 30
LAY = {p: hl.action_layout(R, p) for p in (2, 3, 4)}


def K(animal, number):
    return animal * V + number - 1


def E(number):
    return NAK + number - 1


def play(animal, number):
    """Action playing an animal card on its own stack."""
    return animal * 2 * V + number - 1


def play_explorer(number, stack):
    return stack * 2 * V + V + number - 1


def give(kind, offset, players):
    return LAY[players]["give0"] + kind * (players - 1) + offset - 1


THREES = [[K(a, 3)] for a in range(5)]


FILLERS = (K(ELEPHANT, 5), K(MONKEY, 5), K(LION, 5), K(TIGER, 5))


def position(stacks=None, higher=None, hands=None, piles=None, deck=None, players=3, cur=0,
             holder=-1, fill=True, **rules):
    """Game 0 at the start of ``cur``'s turn; with ``fill`` (and no deck given) every player
    without a hand given holds one card (a 5 of some animal) so that play goes round."""
    r = G.make_rules(rules)
    st = G.new_state(r, players, deal_keys(1, 0), log=True)
    hands = dict(hands or {})
    if fill and deck is None:
        used = Counter(k for h in hands.values() for k in h)
        for p, k in zip(range(players), FILLERS):
            if p not in hands and used[k] < 2:
                hands[p] = [k]
    G.position(st, 0, stacks or THREES, higher if higher is not None else [1] * 5,
               hands or {}, piles, deck, cur, holder)
    return st


def act(st, action):
    assert G.legal(st)[0, action], f"{G.action_name(st.rules, st.n_players, action)} should be legal"
    G.step(st, np.array([action]))


def obs0(st):
    return G.observe(st, np.array([0]))


# ---- the plain-Python reading of the rulebook (the oracle) --------------------------------------

def snap(st, b):
    """Game b as plain Python values (zones and the public counters)."""
    z = G.zones(st, b)
    P = st.n_players
    return {
        "deck": z["deck"],
        "stacks": [z[f"stack{s}"] for s in range(st.rules.animals)],
        "higher": [int(x) for x in st.higher[b]],
        "hands": [sorted(z[f"hand{p}"]) for p in range(P)],
        "piles": [sorted(z[f"pile{p}"]) for p in range(P)],
        "holder": int(st.g[b, hl.HOLDER]),
        "cur": int(G.to_move(st)[b]),
        "phase": int(st.g[b, hl.PHASE]),
        "mstack": int(st.g[b, hl.MSTACK]),
    }


def ref_step(s, a, rules, P):
    """One decision applied the way the rulebook reads (On Your Turn, Ending the Game)."""
    s = {k: (v if not isinstance(v, list) else [list(x) if isinstance(x, list) else x for x in v])
         for k, v in s.items()}
    s["deck"] = list(s["deck"])
    nv = rules.values
    nak = rules.animals * nv
    lay = hl.action_layout(rules, P)
    p = s["cur"]
    give_ok = rules.give_on_match and not rules.younger

    def finish():
        for _ in range(rules.draw_per_turn):  # "then draw one card"
            if s["deck"]:
                s["hands"][p].append(s["deck"].pop(0))
        s["hands"][p].sort()
        s["phase"], s["mstack"] = hl.PLAY, -1
        for i in range(1, P + 1):
            q = (p + i) % P
            if s["hands"][q]:
                s["cur"] = q
                return
        s["cur"], s["phase"] = -1, hl.OVER

    if s["phase"] == hl.PLAY:
        st_, j = divmod(a, 2 * nv)  # action_layout: a stack's own numbers, then explorers
        k = st_ * nv + j if j < nv else nak + j - nv
        s["hands"][p].remove(k)
        if k >= nak:
            s["holder"] = p
        top = s["stacks"][st_][-1] % nv + 1
        num = k % nv + 1
        if (num >= top) if s["higher"][st_] else (num <= top):
            s["stacks"][st_].append(k)
            if num == top:
                s["mstack"] = st_
                if rules.reverse_on_match:
                    s["phase"] = hl.REVERSE
                elif give_ok and s["hands"][p]:
                    s["phase"] = hl.GIVE
                else:
                    finish()
            else:
                finish()
        else:
            s["piles"][p] = sorted(s["piles"][p] + s["stacks"][st_])
            s["stacks"][st_] = [k]
            finish()
    elif s["phase"] == hl.REVERSE:
        if a == lay["reverse"]:
            s["higher"][s["mstack"]] ^= 1
        if give_ok and s["hands"][p]:
            s["phase"] = hl.GIVE
        else:
            finish()
    else:
        if a != lay["no_give"]:
            k, o = divmod(a - lay["give0"], P - 1)
            s["hands"][p].remove(k)
            q = (p + o + 1) % P
            s["hands"][q] = sorted(s["hands"][q] + [k])
        finish()
    return s


def recount(piles, holder, rules):
    """Scoring and Winning, in plain Python: per type, the player with more than any other
    discards them (ties: the rules field); the rest counts; 4 more for the ducky's holder."""
    nv = rules.values
    P = len(piles)
    types = rules.animals + (1 if rules.explorer_own_type else 0)
    counts = [Counter(k // nv for k in pile) for pile in piles]
    score = [len(pile) for pile in piles]
    for t in range(types):
        c = [counts[p][t] for p in range(P)]
        m = max(c)
        tied = [p for p in range(P) if c[p] == m]
        if m > 0 and (len(tied) == 1 or rules.majority_tie == "discard"):
            for p in tied:
                score[p] -= m
    if holder >= 0 and not rules.younger:
        score[holder] += rules.explorer_points
    return score


def consistent(st, b):
    """Cards conserved in every zone, and the counters agree with the zones."""
    z = G.zones(st, b)
    every = Counter(k for zone in z.values() for k in zone)
    want = Counter(st.fresh.tolist())
    assert every == want, "cards lost, created or duplicated"
    r = st.rules
    for p in range(st.n_players):
        assert st.pp[b, p, hl.HAND_LEN] == len(z[f"hand{p}"])
        assert st.pp[b, p, hl.PILE_LEN] == len(z[f"pile{p}"])
        assert Counter(k // r.values for k in z[f"pile{p}"]) == \
            Counter({t: int(c) for t, c in enumerate(st.ptype[b, p]) if c})
    for s in range(r.animals):
        assert len(z[f"stack{s}"]) >= 1
        assert Counter(k // r.values for k in z[f"stack{s}"]) == \
            Counter({t: int(c) for t, c in enumerate(st.stype[b, s]) if c})


def seen_right(st, b):
    """The observation of game b's mover, recounted from the zones: tops, directions, stack and
    pile contents by type, hand sizes (rotated), the ducky, the unseen kinds and the standing."""
    mover = int(G.to_move(st)[b])
    if mover < 0:
        return
    o = G.observe(st, np.array([b]))
    z = G.zones(st, b)
    r = st.rules
    P = st.n_players
    T = r.animals + 1
    assert o.seat[0] == mover
    for s_ in range(r.animals):
        cards = z[f"stack{s_}"]
        assert o.top[0, s_] == cards[-1] % r.values + 1
        assert o.higher[0, s_] == st.higher[b, s_] and o.stack_len[0, s_] == len(cards)
        assert o.stack_types[0, s_].tolist() == [sum(k // r.values == t for k in cards)
                                                 for t in range(T)]
    for off in range(P):
        q = (mover + off) % P
        assert o.hand_sizes[0, off] == len(z[f"hand{q}"])
        assert o.piles[0, off].tolist() == [sum(k // r.values == t for k in z[f"pile{q}"])
                                            for t in range(T)]
    holder = int(st.g[b, hl.HOLDER])
    assert o.holder[0] == (-1 if holder < 0 else (holder - mover) % P)
    hidden = Counter(z["deck"] + [k for q in range(P) if q != mover for k in z[f"hand{q}"]])
    assert o.unseen[0].tolist() == [hidden[k] for k in range(o.unseen.shape[1])]
    assert o.hand[0].tolist() == [z[f"hand{mover}"].count(k) for k in range(o.hand.shape[1])]
    assert o.deck_left[0] == len(z["deck"])
    # the standing (what the strategies call the leader's) is the final recount of the piles now
    now = recount([z[f"pile{q}"] for q in range(P)], holder, r)
    assert o.standing[0].tolist() == [now[(mover + off) % P] for off in range(P)]


# ---- Setup --------------------------------------------------------------------------------------

def test_setup_example_a():
    """Example A: 2-Elephant and 3-Zebra are low, so their duckies go on Higher; the other
    starters are high, so theirs go on Lower. Explorer cards and repeated animals drawn while
    looking for starters are ignored (they go back into the deck)."""
    r = R
    order = [E(6), K(ELEPHANT, 2), K(ELEPHANT, 5), K(LION, 5), E(2), K(MONKEY, 4), K(ZEBRA, 3),
             K(LION, 1), K(TIGER, 6)]
    rest = list(G.new_state(r, 4, deal_keys(1)).fresh)
    for k in order:
        rest.remove(k)
    st = G.new_state(r, 4, deal_keys(1, 3), log=True)
    G.setup_from(st, 0, order + rest)
    z = G.zones(st, 0)
    assert [z[f"stack{s}"] for s in range(5)] == [[K(ELEPHANT, 2)], [K(LION, 5)], [K(MONKEY, 4)],
                                                  [K(TIGER, 6)], [K(ZEBRA, 3)]]
    assert st.higher[0].tolist() == [1, 0, 0, 0, 1]
    # four cards each, the rest is the draw deck; the ignored cards are in it or in a hand
    assert all(len(z[f"hand{p}"]) == 4 for p in range(4))
    assert len(z["deck"]) == 66 - 5 - 16
    elsewhere = Counter(z["deck"] + [k for p in range(4) for k in z[f"hand{p}"]])
    for k in (E(6), E(2), K(ELEPHANT, 5), K(LION, 1)):
        assert elsewhere[k] >= 1
    assert G.to_move(st)[0] == 0  # the player to the dealer's left starts
    consistent(st, 0)
    text = G.describe(st, 0)
    assert "Starter of the Elephant stack: 2-Elephant, ducky on Higher" in text
    assert "Starter of the Tiger stack: 6-Tiger, ducky on Lower" in text


def test_setup_over_many_deals():
    """Every stack starts with one card of its own animal; 1-3 on Higher, 4-6 on Lower; the
    deck is reshuffled after the starters (any card can be on top of it)."""
    st = G.init(R, 3, deal_keys(400, 1))
    assert (st.slen == 1).all()
    kinds = st.stack[:, :, 0].astype(int)
    assert (kinds // V == np.arange(5)[None, :]).all()
    assert (st.higher == (kinds % V + 1 <= 3)).all()
    assert (st.pp[:, :, hl.HAND_LEN] == 4).all()
    assert (st.g[:, hl.END] - st.g[:, hl.POS] == 66 - 5 - 12).all()
    tops = st.deck[np.arange(400), st.g[:, hl.POS]]
    assert len(set(tops.tolist())) > 25
    assert (st.g[:, hl.HOLDER] == -1).all()  # the explorer ducky starts on its spot


def test_higher_up_to_field_moves_the_boundary():
    st = G.init(G.make_rules(higher_up_to=4), 2, deal_keys(200, 2))
    kinds = st.stack[:, :, 0].astype(int)
    assert (st.higher == (kinds % V + 1 <= 4)).all()
    assert ((kinds % V + 1) == 4).any()


# ---- On Your Turn -------------------------------------------------------------------------------

def test_higher_stack_wants_greater_or_equal_and_draw_follows():
    # "playing a card of higher value when the ducky is next to the word Higher"
    st = position(hands={0: [K(LION, 5), K(TIGER, 1)]}, deck=None)
    top_of_deck = G.zones(st, 0)["deck"][0]
    act(st, play(LION, 5))
    z = G.zones(st, 0)
    assert z["stack1"] == [K(LION, 3), K(LION, 5)]
    assert z["pile0"] == []
    assert sorted(z["hand0"]) == sorted([K(TIGER, 1), top_of_deck])  # then draw one card
    assert G.to_move(st)[0] == 1  # play goes to the left
    assert obs0(st).top[0, LION] == 5
    consistent(st, 0)


def test_lower_stack_wants_less_or_equal():
    st = position(higher=[0] * 5, hands={0: [K(MONKEY, 1)]})
    act(st, play(MONKEY, 1))
    assert G.zones(st, 0)["stack2"] == [K(MONKEY, 3), K(MONKEY, 1)]
    assert G.zones(st, 0)["pile0"] == []


def test_card_not_wanted_takes_the_whole_stack():
    # "your card is higher than the top card on the stack and the ducky is next to the word Lower"
    stacks = [list(x) for x in THREES]
    stacks[ZEBRA] = [K(ZEBRA, 6), K(ZEBRA, 4), K(ZEBRA, 3)]
    st = position(stacks=stacks, higher=[0] * 5, hands={0: [K(ZEBRA, 5), K(LION, 2)]},
                  piles={0: [K(LION, 6)]})
    act(st, play(ZEBRA, 5))
    z = G.zones(st, 0)
    assert sorted(z["pile0"]) == sorted([K(LION, 6), K(ZEBRA, 6), K(ZEBRA, 4), K(ZEBRA, 3)])
    assert z["stack4"] == [K(ZEBRA, 5)]  # the played card starts a new stack
    assert st.higher[0, ZEBRA] == 0  # "Do not move the ducky"
    assert st.pp[0, 0, hl.TAKES] == 1
    assert len(z["hand0"]) == 2  # "End your turn by drawing a card"
    o = obs0(st)  # the next player sees the pile's types
    assert o.piles[0, 2].tolist() == [0, 1, 0, 0, 3, 0]  # seat 0 is two to the left of seat 1
    consistent(st, 0)


def test_every_card_in_hand_is_playable_and_only_on_its_own_stack():
    st = position(hands={0: [K(LION, 1), K(LION, 1), K(TIGER, 6), E(2)]})
    legal = G.legal(st)[0]
    plays = set(np.flatnonzero(legal).tolist())
    assert plays == {play(LION, 1), play(TIGER, 6)} | {play_explorer(2, s) for s in range(5)}


def test_exact_match_may_reverse_then_give_then_draw():
    st = position(hands={0: [K(TIGER, 3), K(ELEPHANT, 6), E(4)], 1: [K(LION, 2)]}, players=3)
    act(st, play(TIGER, 3))
    assert obs0(st).kind[0] == hl.REVERSE and G.to_move(st)[0] == 0
    assert obs0(st).match_stack[0] == TIGER
    assert np.flatnonzero(G.legal(st)[0]).tolist() == [LAY[3]["keep"], LAY[3]["reverse"]]
    act(st, LAY[3]["reverse"])
    assert st.higher[0, TIGER] == 0  # the ducky moved to the other side
    assert obs0(st).kind[0] == hl.GIVE and G.to_move(st)[0] == 0
    legal = np.flatnonzero(G.legal(st)[0]).tolist()
    assert legal == sorted([LAY[3]["no_give"]] + [give(k, o, 3) for k in (K(ELEPHANT, 6), E(4))
                                                   for o in (1, 2)])
    deck_top = G.zones(st, 0)["deck"][0]
    act(st, give(K(ELEPHANT, 6), 2, 3))  # to the player two to the left: seat 2
    z = G.zones(st, 0)
    assert z["hand2"] == sorted([K(ELEPHANT, 6), FILLERS[2]])
    assert sorted(z["hand0"]) == sorted([E(4), deck_top])  # the draw comes after the gift
    assert G.to_move(st)[0] == 1
    assert st.pp[0, 0, hl.MATCHES] == 1 and st.pp[0, 0, hl.REVERSALS] == 1
    assert st.pp[0, 0, hl.GIVES] == 1 and st.pp[0, 2, hl.GOT] == 1
    consistent(st, 0)


def test_match_without_reversal_or_gift():
    st = position(hands={0: [K(TIGER, 3), K(ELEPHANT, 6)]})
    act(st, play(TIGER, 3))
    act(st, LAY[3]["keep"])
    assert st.higher[0, TIGER] == 1
    act(st, LAY[3]["no_give"])
    assert G.to_move(st)[0] == 1 and len(G.zones(st, 0)["hand0"]) == 2


def test_a_match_on_a_lower_stack_is_a_match_too():
    st = position(higher=[0] * 5, hands={0: [K(ZEBRA, 3)]})
    act(st, play(ZEBRA, 3))
    assert obs0(st).kind[0] == hl.REVERSE


def test_reverse_and_give_fields():
    st = position(hands={0: [K(TIGER, 3), K(ELEPHANT, 6)]}, reverse_on_match=False)
    act(st, play(TIGER, 3))
    assert obs0(st).kind[0] == hl.GIVE
    st = position(hands={0: [K(TIGER, 3), K(ELEPHANT, 6)]}, give_on_match=False)
    act(st, play(TIGER, 3))
    act(st, LAY[3]["reverse"])
    assert G.to_move(st)[0] == 1


def test_no_gift_with_an_empty_hand():
    """The last card of a hand matched (the deck is empty): nothing to give."""
    others = [k for k in G.new_state(R, 2, deal_keys(1)).fresh.tolist()]
    for k in [x for s in THREES for x in s] + [K(TIGER, 3)]:
        others.remove(k)
    st = position(hands={0: [K(TIGER, 3)], 1: others[:3]}, piles={1: others[3:]}, deck=[],
                  players=2)
    act(st, play(TIGER, 3))
    act(st, LAY[2]["keep"])
    assert G.to_move(st)[0] == 1 and obs0(st).kind[0] == hl.PLAY


def test_last_card_matched_while_the_deck_lasts_no_gift_then_the_draw():
    """Gifts shrink a hand (4, 3, 2, 1 after three matches with a gift), so a player can match
    with its last card while the deck still has cards: nothing to give, then it draws."""
    st = position(hands={0: [K(TIGER, 3)]})
    deck_top = G.zones(st, 0)["deck"][0]
    act(st, play(TIGER, 3))
    act(st, LAY[3]["keep"])
    assert G.to_move(st)[0] == 1 and obs0(st).kind[0] == hl.PLAY
    assert G.zones(st, 0)["hand0"] == [deck_top]


def test_explorer_card_goes_on_any_stack_and_takes_the_ducky():
    st = position(hands={0: [E(5), K(LION, 1)], 1: [E(1), K(ZEBRA, 1)]}, holder=2)
    act(st, play_explorer(5, MONKEY))
    z = G.zones(st, 0)
    assert z["stack2"] == [K(MONKEY, 3), E(5)]  # compared by its number: 5 >= 3
    assert st.g[0, hl.HOLDER] == 0  # taken from seat 2
    assert obs0(st).holder[0] == 2  # seat 0 is two to the left of seat 1
    # an explorer card the stack does not want takes the stack, and still takes the ducky
    act(st, play_explorer(1, MONKEY))
    z = G.zones(st, 0)
    assert sorted(z["pile1"]) == sorted([K(MONKEY, 3), E(5)])
    assert z["stack2"] == [E(1)]
    assert st.g[0, hl.HOLDER] == 1
    # the explorer card on top is compared by its number like any card
    o = obs0(st)
    assert o.top[0, MONKEY] == 1 and o.stack_types[0, MONKEY].tolist() == [0, 0, 0, 0, 0, 1]
    consistent(st, 0)


def test_explorer_match():
    st = position(hands={0: [E(3), K(LION, 1)]})
    act(st, play_explorer(3, ELEPHANT))
    assert obs0(st).kind[0] == hl.REVERSE and obs0(st).match_stack[0] == ELEPHANT


# ---- Ending the Game ----------------------------------------------------------------------------

def _all_but(cards):
    left = G.new_state(R, 2, deal_keys(1)).fresh.tolist()
    for k in cards:
        left.remove(k)
    return left


def test_empty_deck_no_draw_skip_empty_hands_and_receive_to_play_again():
    placed = [x for s in THREES for x in s]
    h0 = [K(TIGER, 3), K(ELEPHANT, 6)]
    h1 = [K(LION, 4)]
    h2 = [K(ZEBRA, 5)]
    rest = _all_but(placed + h0 + h1 + h2)
    st = position(hands={0: h0, 1: h1, 2: h2}, piles={0: rest}, deck=[], players=3)
    act(st, play(TIGER, 3))  # seat 0 matches
    act(st, LAY[3]["keep"])
    act(st, give(K(ELEPHANT, 6), 1, 3))  # to seat 1
    assert G.zones(st, 0)["hand0"] == []  # no draw: the deck is empty
    assert G.to_move(st)[0] == 1
    act(st, play(LION, 4))
    assert G.to_move(st)[0] == 2
    act(st, play(ZEBRA, 5))
    # seat 0 has no cards: skipped; seat 1 received a card and plays again
    assert G.to_move(st)[0] == 1
    act(st, play(ELEPHANT, 6))
    assert G.to_move(st)[0] == -1  # the last card is played: the game is over
    assert "P0 has no cards: skipped" in G.describe(st, 0)
    consistent(st, 0)


def test_game_ends_when_every_hand_is_empty_even_with_cards_on_the_board():
    placed = [x for s in THREES for x in s]
    h0 = [K(TIGER, 4)]
    rest = _all_but(placed + h0)
    st = position(hands={0: h0}, piles={1: rest}, deck=[], players=2)
    act(st, play(TIGER, 4))
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert out.stats["left_on_board"][0] == 6


# ---- Scoring and Winning ------------------------------------------------------------------------

def _score_only(piles, holder=-1, players=3, **rules):
    """Scores of piles given directly (the scoring kernel on a game set to its end)."""
    r = G.make_rules(rules)
    st = G.new_state(r, players, deal_keys(1))
    for p, cards in piles.items():
        for k in cards:
            st.pile[0, p, k] += 1
            st.ptype[0, p, k // V] += 1
        st.pp[0, p, hl.PILE_LEN] = len(cards)
    st.g[0, hl.HOLDER] = holder
    hl._score(0, st.g, st.pp, st.ptype, st.ev, st.params)
    st.g[0, hl.PHASE] = hl.OVER
    return G.outcome(st)


def test_scoring_reading_by_hand():
    piles = {0: [K(LION, 1), K(LION, 2), K(LION, 3), K(ZEBRA, 1)],
             1: [K(LION, 4), K(ZEBRA, 2), K(ZEBRA, 3), E(1)],
             2: [K(TIGER, 1)]}
    out = _score_only(piles, holder=2)
    # lions 3 v 1: seat 0 discards 3; zebras 2 v 1: seat 1 discards 2; the explorer card is
    # seat 1's type alone; the tiger is seat 2's; seat 2 adds 4 for the ducky
    assert out.score[0].tolist() == [1, 1, 4]
    assert out.rank[0].tolist() == [1, 1, 3] and out.win[0].tolist() == [0.5, 0.5, 0]
    assert out.stats["discarded"][0].tolist() == [3, 3, 1]
    # without the ducky seat 2 (0) would win alone: its 4 points gave the win to seats 0 and 1
    assert out.stats["ducky_decided"][0] == 1 and out.stats["tied_majorities"][0] == 0


def test_majority_tie_keep_and_discard():
    piles = {0: [K(LION, 1), K(LION, 2), K(ELEPHANT, 1)], 1: [K(LION, 3), K(LION, 4)],
             2: [K(LION, 5)]}
    keep = _score_only(piles)
    assert keep.score[0].tolist() == [2, 2, 1]  # lions tied 2-2: nobody discards them
    assert keep.stats["tied_majorities"][0] == 1 and keep.stats["ducky_decided"][0] == 0
    disc = _score_only(piles, majority_tie="discard")
    assert disc.score[0].tolist() == [0, 0, 1]


def test_explorer_type_field_and_points_field():
    piles = {0: [E(1), E(2)], 1: [E(3)]}
    assert _score_only(piles).score[0].tolist() == [0, 1, 0]
    assert _score_only(piles, explorer_own_type=False).score[0].tolist() == [2, 1, 0]
    assert _score_only(piles, holder=1, explorer_points=7).score[0].tolist() == [0, 8, 0]


def test_lowest_total_wins():
    out = _score_only({0: [K(LION, 1), K(LION, 2), K(TIGER, 1), K(TIGER, 2)],
                       1: [K(LION, 3), K(ZEBRA, 1), K(ZEBRA, 2)]}, players=2)
    # lions 2 v 1 and tigers: seat 0 discards 4 -> 0; zebras: seat 1 discards 2 -> 1
    assert out.score[0].tolist() == [0, 1]
    assert out.rank[0].tolist() == [1, 2] and out.win[0].tolist() == [1, 0]
    assert G.lower_score_wins


# ---- For Younger Players ------------------------------------------------------------------------

def test_younger_players_variant():
    r = G.make_rules(younger=True)
    st = G.init(r, 4, deal_keys(100, 4))
    assert st.fresh.shape[0] == 60 and (st.fresh < NAK).all()
    assert (st.hand[:, :, NAK:] == 0).all()
    pos = position(hands={0: [K(TIGER, 3), K(ELEPHANT, 6)]}, younger=True)
    act(pos, play(TIGER, 3))
    act(pos, LAY[3]["keep"])
    assert G.to_move(pos)[0] == 1  # no giving on a match
    with pytest.raises(ValueError):
        position(hands={0: [E(1)]}, younger=True)


# ---- Rules fields -------------------------------------------------------------------------------

def test_rules_errors_name_the_field():
    with pytest.raises(RulesError, match="rules.majority_tie"):
        G.make_rules(majority_tie="share")
    with pytest.raises(RulesError, match="rules.hand_size"):
        G.make_rules(hand_size=0)
    with pytest.raises(RulesError, match="rules.higher_up_to"):
        G.make_rules(higher_up_to=7)
    with pytest.raises(RulesError, match="rules.animals"):
        G.make_rules(animals=6)
    with pytest.raises(RulesError, match="did you mean 'hand_size'"):
        G.make_rules({"hand_sizes": 3})
    with pytest.raises(RulesError, match="rules.hand_size"):
        G.check(G.make_rules(hand_size=16), 4)
    with pytest.raises(RulesError, match="2 to 4 players"):
        G.check(R, 5)


def test_draw_per_turn_field():
    st = position(hands={0: [K(LION, 5), K(TIGER, 1)]}, draw_per_turn=2)
    top2 = G.zones(st, 0)["deck"][:2]
    act(st, play(LION, 5))
    assert sorted(G.zones(st, 0)["hand0"]) == sorted([K(TIGER, 1)] + top2)
    st = position(hands={0: [K(LION, 5), K(TIGER, 1)]}, draw_per_turn=0)
    act(st, play(LION, 5))
    assert G.zones(st, 0)["hand0"] == [K(TIGER, 1)]
    with pytest.raises(RulesError, match="rules.draw_per_turn"):
        G.make_rules(draw_per_turn=-1)


def test_deck_follows_the_rules_fields():
    r = G.make_rules(animals=3, copies=1, values=4)
    st = G.init(r, 2, deal_keys(5))
    assert st.fresh.shape[0] == 3 * 4 + 4
    res = play_batch(G, r, 2, [get_strategy(G.id, "safe")()], np.zeros((20, 2), int),
                     game_keys(1, 2, 20))
    assert (res.outcome.turns == 16 - 3).all()


# ---- Observations -------------------------------------------------------------------------------

def _obs_arrays(o):
    out = {f.name: np.asarray(getattr(o, f.name)) for f in dataclasses.fields(o)}
    out["standing"] = o.standing
    return out


def check_hidden_cards_do_not_show(observe, players):
    """Shuffle every card the mover cannot see (other hands, the deck) among those places, at
    positions of random games: ``observe(state, games)`` must give the same arrays."""
    rng = np.random.default_rng(players)
    st = G.init(R, players, deal_keys(60, 7))
    strat = get_strategy(G.id, "random")()
    seat_rs = game_keys(7, players, 60).seat.reshape(-1).copy()
    checked = 0
    for step in range(40):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if step % 6 == 3:
            for b in live[:10]:
                before = _obs_arrays(observe(st, np.array([b])))
                p = int(mover[b])
                others = [q for q in range(players) if q != p]
                sizes = [int(st.pp[b, q, hl.HAND_LEN]) for q in others]
                pos, end = int(st.g[b, hl.POS]), int(st.g[b, hl.END])
                hidden = list(st.deck[b, pos:end]) + [k for q in others for k in
                                                      np.repeat(np.arange(36), st.hand[b, q])]
                perm = rng.permutation(hidden)
                st.deck[b, pos:end] = perm[:end - pos]
                i = end - pos
                for q, n in zip(others, sizes):
                    st.hand[b, q] = np.bincount(perm[i:i + n], minlength=36)
                    i += n
                G._refresh(st, np.array([b]), fresh=False)  # the view of b, recomputed
                after = _obs_arrays(observe(st, np.array([b])))
                for name in before:
                    assert np.array_equal(before[name], after[name]), name
                checked += 1
        legal = G.legal(st)
        a = np.zeros(60, np.int64)
        a[live] = strat.act(G.observe(st, live), legal[live],
                            SeatRandom(seat_rs, live * players + mover[live]))
        G.step(st, a)
    assert checked >= 40


@pytest.mark.parametrize("players", [2, 4])
def test_observation_unchanged_when_hidden_cards_are_permuted(players):
    check_hidden_cards_do_not_show(G.observe, players)


@dataclasses.dataclass
class _LeakyObs(hl.Obs):
    peek: np.ndarray = None  # the leak: a hidden card


@pytest.mark.parametrize("leak", ["next_card", "next_hand"])
def test_the_permutation_check_catches_a_leaky_observation(leak):
    """The positive control: the same check on an observation with one hidden fact added (the
    top card of the deck, or the hand of the next seat) must fail."""
    def leaky(st, games):
        o = G.observe(st, games)
        fields = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
        if leak == "next_card":
            peek = st.deck[games, st.g[games, hl.POS]]
        else:
            peek = st.hand[games, (G.to_move(st)[games] + 1) % st.n_players]
        return _LeakyObs(**fields, peek=np.array(peek))
    with pytest.raises(AssertionError, match="peek"):
        check_hidden_cards_do_not_show(leaky, 3)



def _permute_hidden(st, games, rng):
    """What the seat to move in each of ``games`` cannot see (the other hands, the deck), dealt
    again among those places, the hands keeping their sizes; the views of those games
    recomputed."""
    mover = G.to_move(st)
    for b in games:
        p = int(mover[b])
        others = [q for q in range(st.n_players) if q != p]
        sizes = [int(st.pp[b, q, hl.HAND_LEN]) for q in others]
        pos, end = int(st.g[b, hl.POS]), int(st.g[b, hl.END])
        hidden = list(st.deck[b, pos:end]) + [k for q in others for k in
                                              np.repeat(np.arange(36), st.hand[b, q])]
        perm = rng.permutation(np.array(hidden, np.int64))
        st.deck[b, pos:end] = perm[:end - pos]
        i = end - pos
        for q, n in zip(others, sizes):
            st.hand[b, q] = np.bincount(perm[i:i + n], minlength=36)
            i += n
    G._refresh(st, np.asarray(games, np.int64), fresh=False)
    return st


HEURISTICS = [("safe", {}), ("dumper", {}), ("giver", {}),
              ("safe", {"majority": True, "spoil": 0.5}),
              ("dumper", {"until_deck": 0, "max_stack": 7}),
              ("giver", {"target": "next", "at_least": 0.0})]


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {"hand_size": 3, "draw_per_turn": 2}),
                                           (4, {"majority_tie": "discard",
                                                "explorer_own_type": False})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The other hands and the deck dealt again at every decision: no heuristic's action
    changes."""
    strats = [get_strategy(G.id, n)(**p) for n, p in HEURISTICS]
    assert check_knowledge(G, G.make_rules(rules), players, strats, _permute_hidden,
                           games=16) > 4000


def test_the_knowledge_check_catches_a_policy_that_reads_the_next_card():
    def next_card(st, b):
        return st.deck[b, st.g[b, hl.POS]] if st.g[b, hl.POS] < st.g[b, hl.END] else 0

    leaky_policy_is_caught(G, R, 3, get_strategy(G.id, "safe")(), next_card, _permute_hidden,
                           games=8)

def test_observation_counts_what_is_unseen():
    st = position(hands={0: [K(LION, 2), E(4)]}, piles={1: [K(LION, 6)]})
    o = obs0(st)
    assert o.unseen[0, K(LION, 3)] == 1  # one on the stack
    assert o.unseen[0, K(LION, 6)] == 1  # one in seat 1's pile
    assert o.unseen[0, K(LION, 2)] == 1  # one in the hand
    assert o.unseen[0, E(4)] == 0 and o.unseen[0, E(5)] == 1
    assert o.unseen[0].sum() == 66 - 5 - 2 - 1
    assert o.hand_sizes[0].tolist() == [2, 1, 1] and o.deck_left[0] == 56


# ---- Properties over many random games ----------------------------------------------------------

@pytest.mark.parametrize("players,rules", [(2, {}), (3, {}), (4, {}),
                                           (3, {"younger": True}),
                                           (4, {"majority_tie": "discard",
                                                "reverse_on_match": False}),
                                           (2, {"explorer_own_type": False}),
                                           (3, {"draw_per_turn": 2, "hand_size": 2})])
def test_properties_over_random_games(players, rules):
    B = 120
    r = G.make_rules(rules)
    keys = game_keys(players * 7 + len(rules), players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    names = ("random", "safe", "dumper", "giver")
    strats = [get_strategy(G.id, n)() for n in names]
    seating = (np.arange(players)[None, :] + np.arange(B)[:, None]) % len(names)
    st = G.init(r, players, keys.deal)
    steps = 0
    for _ in range(10_000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        assert legal[live].any(axis=1).all()
        assert not legal[mover < 0].any()
        actions = np.zeros(B, np.int64)
        for k, s in enumerate(strats):
            idx = live[seating[live, mover[live]] == k]
            if idx.size:
                a = choose(s, G, st, idx, seat_rs, players)
                assert legal[idx, a].all()
                actions[idx] = a
        before = {b: snap(st, b) for b in live[::5]}
        G.step(st, actions)
        steps += 1
        for b, s in before.items():
            assert snap(st, b) == ref_step(s, int(actions[b]), r, players), f"game {b}"
        for b in live[::11]:
            consistent(st, b)
            seen_right(st, b)
    assert (G.to_move(st) == -1).all(), "every game ends"
    out = G.outcome(st)
    for b in range(B):
        z = G.zones(st, b)
        assert z["deck"] == [] and all(z[f"hand{p}"] == [] for p in range(players))
        piles = [z[f"pile{p}"] for p in range(players)]
        holder = int(st.g[b, hl.HOLDER])
        assert out.score[b].tolist() == recount(piles, holder, r)
        consistent(st, b)
        # the measures, recounted from the piles: types whose most cards two players share,
        # and whether the winners without the ducky's points are the winners
        counts = [Counter(k // r.values for k in pile) for pile in piles]
        types = r.animals + (1 if r.explorer_own_type else 0)
        tops = [[counts[p][t] for p in range(players)] for t in range(types)]
        assert out.stats["tied_majorities"][b] == sum(
            1 for c in tops if max(c) > 0 and c.count(max(c)) >= 2)
        bare = out.score[b].tolist()
        if holder >= 0 and not r.younger:
            bare[holder] -= r.explorer_points
        winners = lambda sc: {p for p in range(players) if sc[p] == min(sc)}  # noqa: E731
        assert out.stats["ducky_decided"][b] == (winners(bare) != winners(out.score[b].tolist()))
    if not r.younger:
        assert 0 < out.stats["ducky_decided"].sum() < B
    assert out.stats["tied_majorities"].sum() > 0
    best = out.score.min(axis=1, keepdims=True)
    assert ((out.rank == 1) == (out.score == best)).all()
    assert np.allclose(out.win.sum(axis=1), 1)
    assert (out.turns == len(st.fresh) - r.animals).all()  # one card played a turn


# ---- Strategies ---------------------------------------------------------------------------------

def _act(name, st, **params):
    s = get_strategy(G.id, name)(**params)
    legal = G.legal(st)
    a = ask(s, G, st, [0], np.arange(8, dtype=np.uint64), st.n_players)
    assert legal[0, a[0]]
    return int(a[0])


def test_safe_plays_the_match_then_the_closest_wanted_card():
    stacks = [list(x) for x in THREES]
    st = position(stacks=stacks, hands={0: [K(LION, 6), K(TIGER, 4), K(ZEBRA, 3), K(MONKEY, 1)]})
    assert _act("safe", st) == play(ZEBRA, 3)
    st = position(stacks=stacks, hands={0: [K(LION, 6), K(TIGER, 4), K(MONKEY, 1)]})
    assert _act("safe", st) == play(TIGER, 4)
    # nothing wanted: the smallest stack is taken
    stacks[MONKEY] = [K(MONKEY, 1), K(MONKEY, 3)]
    st = position(stacks=stacks, hands={0: [K(MONKEY, 1), K(LION, 1)]})
    assert _act("safe", st) == play(LION, 1)


def test_safe_spoil_knob_leaves_the_next_player_less_room():
    st = position(hands={0: [K(TIGER, 4), K(TIGER, 6)]})
    assert _act("safe", st) == play(TIGER, 4)  # closest to the top 3
    assert _act("safe", st, spoil=2.0) == play(TIGER, 6)  # Higher on 6 wants only a 6


def test_dumper_takes_a_small_stack_with_its_worst_card():
    st = position(hands={0: [K(LION, 1), K(TIGER, 4), K(ZEBRA, 5)]})
    assert _act("dumper", st) == play(LION, 1)
    assert _act("safe", st) == play(TIGER, 4)
    assert _act("dumper", st, worst_at_least=3) == play(TIGER, 4)  # the 1 is only 2 off
    stacks = [list(x) for x in THREES]
    stacks[LION] = [K(LION, 4), K(LION, 5), K(LION, 3)]
    st = position(stacks=stacks, hands={0: [K(LION, 1), K(TIGER, 4), K(ZEBRA, 5)]})
    assert _act("dumper", st) == play(LION, 1)  # three cards: still small (max_stack 4)
    assert _act("dumper", st, max_stack=2) == play(TIGER, 4)


def test_safe_after_a_match_narrows_the_stack_and_gives_its_worst_card_to_the_next_player():
    st = position(hands={0: [K(TIGER, 3), K(LION, 1), K(ZEBRA, 5)]})
    act(st, play(TIGER, 3))
    # Higher on 3 wants 3-6 (four numbers), Lower on 3 wants 1-3 (three): reverse
    assert _act("safe", st) == LAY[3]["reverse"]
    assert _act("safe", st, reverse=False) == LAY[3]["keep"]
    act(st, LAY[3]["reverse"])
    # the 1-Lion is two below the Lion stack's 3 (Higher); the 5-Zebra is wanted
    assert _act("safe", st) == give(K(LION, 1), 1, 3)
    assert _act("safe", st, give=False) == LAY[3]["no_give"]


def test_dumper_plays_safe_once_the_deck_is_empty():
    hand = [K(LION, 1), K(TIGER, 4)]
    st = position(hands={0: hand}, piles={1: _all_but([x for s in THREES for x in s] + hand)},
                  deck=[], players=2)
    assert _act("dumper", st) == play(TIGER, 4)
    assert _act("dumper", st, until_deck=0) == play(LION, 1)  # 0: dump all game


def test_dumper_dumps_an_explorer_card_only_when_no_animal_card_can_be_dumped():
    """`dump_explorers`: "dump an explorer card too when no animal card can be dumped", even when
    the explorer card's take is much cheaper (here it would win the tied lions, 5 cards)."""
    stacks = [list(x) for x in THREES]
    stacks[LION] = [K(LION, 5)]
    lions = [K(LION, n) for n in (1, 2, 3, 4, 6)]
    st = position(stacks=stacks, hands={0: [K(TIGER, 1), E(1)]}, piles={0: lions, 1: lions})
    assert _act("dumper", st) == play(TIGER, 1)  # the 1-Tiger takes the Tiger stack
    st = position(stacks=stacks, hands={0: [K(TIGER, 4), E(1)]}, piles={0: lions, 1: lions})
    assert _act("dumper", st) == play_explorer(1, LION)  # no animal card to dump: the explorer
    assert _act("dumper", st, dump_explorers=False) == play(TIGER, 4)


def test_giver_passes_an_explorer_card_to_the_leader():
    st = position(hands={0: [K(TIGER, 3), K(LION, 4), E(2)]},
                  piles={0: [K(ZEBRA, 6), K(ZEBRA, 5)], 1: [K(ZEBRA, 4)], 2: [K(ELEPHANT, 6)]},
                  players=3)
    act(st, play(TIGER, 3))
    act(st, LAY[3]["keep"])
    # seat 2's standing (its elephant is its own majority: 0) beats seat 1's (a zebra: 1);
    # seat 2 is two to the left
    assert _act("giver", st) == give(E(2), 2, 3)
    assert _act("giver", st, target="next") == give(E(2), 1, 3)


@pytest.mark.parametrize("players,name", [(2, "dumper"), (3, "giver"), (4, "giver"), (4, "safe")])
def test_strategies_beat_random(players, name):
    """With two players the one who takes more cards wins most majorities: the dumper, who
    takes on purpose, is the one that beats random there."""
    names = [name] + ["random"] * (players - 1)
    strats = [get_strategy(G.id, name)(), get_strategy(G.id, "random")()]
    B = 600
    seating = np.zeros((B, players), np.int64) + 1
    seating[np.arange(B), np.arange(B) % players] = 0
    res = play_batch(G, R, players, strats, seating, game_keys(9, players, B))
    share = res.outcome.win[seating == 0].mean()
    assert share > 1.2 / players, (names, share)


# ---- Replays ------------------------------------------------------------------------------------

def test_same_seed_same_games():
    strat = [get_strategy(G.id, "giver")()]
    a = play_batch(G, R, 4, strat, np.zeros((50, 4), int), game_keys(11, 4, 50))
    b = play_batch(G, R, 4, strat, np.zeros((50, 4), int), game_keys(11, 4, 50))
    assert np.array_equal(a.outcome.score, b.outcome.score)


def test_trace_describes_a_whole_game():
    strat = [get_strategy(G.id, "safe")()]
    res = play_batch(G, R, 3, strat, np.zeros((1, 3), int), game_keys(2, 3, 1), log=True)
    text = G.describe(res.state, 0)
    assert text.count(" plays ") == 61
    assert text.count("Starter of the") == 5
    assert text.endswith("== Game over after 61 turn(s) ==")


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    args = [sys.executable, "-m", "safari_sim.cli", "trace", "hi_lo_hijinks", "--seed", "3",
            "--strategies", "safe,dumper,giver"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=180)
    assert "Game over after 61 turn(s)" in jit.stdout and "exact match" in jit.stdout
    assert py.stdout == jit.stdout


# ---- Worlds for search (docs "Worlds for search") -----------------------------------------------

def permute_for_mover(st, rng, games=None):
    """A copy of ``st`` whose hidden cards are permuted as each game's mover cannot tell: the other
    hands (sizes kept, and the cards the mover gave them kept) and the deck's order."""
    cp = G.clone(st, np.arange(len(st.g)))
    mover = G.to_move(st)
    for b in (np.flatnonzero(mover >= 0) if games is None else games):
        p = int(mover[b])
        others = [q for q in range(st.n_players) if q != p]
        forced = {q: cp.known[b, p, q].astype(int) for q in others}
        pos, end = int(cp.g[b, hl.POS]), int(cp.g[b, hl.END])
        hidden = list(cp.deck[b, pos:end])
        for q in others:
            free = cp.hand[b, q].astype(int) - forced[q]
            assert (free >= 0).all(), "the mover knows a card that is not there"
            hidden += [k for k in range(free.size) for _ in range(free[k])]
        perm = rng.permutation(np.array(hidden, np.int64))
        cp.deck[b, pos:end] = perm[:end - pos]
        i = end - pos
        for q in others:
            n = int(cp.pp[b, q, hl.HAND_LEN]) - int(forced[q].sum())
            cp.hand[b, q] = forced[q] + np.bincount(perm[i:i + n], minlength=cp.hand.shape[2])
            i += n
    G._refresh(cp, cp.all_games)
    return cp


def _play_some(players, steps, B, seed):
    return play_mixed(G, R, players, ("giver", "random", "safe"), B, seed, steps)


@pytest.mark.parametrize("players,steps", [(2, 5), (3, 20), (4, 40), (3, 70)])
def test_worlds_of_random_positions(players, steps):
    st = _play_some(players, steps, 40, 100 + steps)
    live = np.flatnonzero(G.to_move(st) >= 0)
    assert live.size
    cp = permute_for_mover(st, np.random.default_rng(steps))
    check_worlds(G, st, cp, live[:12])
    # every card in exactly one zone in every world, each hand its real size
    games = np.repeat(live[:12], 3)
    w = G.determinize(st, games, G.to_move(st)[games], deal_keys(len(games), 9))
    for i in range(len(games)):
        consistent(w, i)
        assert (w.pp[i, :, hl.HAND_LEN] == st.pp[games[i], :, hl.HAND_LEN]).all()


def _gift_position():
    """Seat 0 matches the 3 Lion, keeps the direction and gives the 6 Zebra to seat 1; seats 1
    and 2 play their 5s; seat 0 is to move again, knowing seat 1 holds the 6 Zebra."""
    st = position(hands={0: [K(LION, 3), K(ZEBRA, 6)]}, players=3)
    act(st, play(LION, 3))
    act(st, LAY[3]["keep"])
    act(st, give(K(ZEBRA, 6), 1, 3))
    act(st, play(MONKEY, 5))   # seat 1's filler
    act(st, play(LION, 5))     # seat 2's filler
    assert G.to_move(st)[0] == 0 and sorted(G.zones(st, 0)["hand1"])[-1] == K(ZEBRA, 6)
    return st


def test_worlds_keep_the_card_the_seat_gave():
    st = _gift_position()
    assert st.known[0, 0, 1, K(ZEBRA, 6)] == 1 and st.known[0].sum() == 1
    check_worlds(G, st, permute_for_mover(st, np.random.default_rng(1)), [0], worlds_per_game=8)
    w = G.determinize(st, np.zeros(200, np.int64), np.zeros(200, np.int64), deal_keys(200, 4))
    assert (w.hand[:, 1, K(ZEBRA, 6)] >= 1).all(), "the given card stays in seat 1's hand"
    assert (w.hand[:, 0] == st.hand[0, 0]).all()
    assert len({tuple(h) for h in w.hand[:, 2].tolist()}) > 20  # seat 2's card is dealt again
    # once seat 1 plays a 6 Zebra, seat 0 knows nothing more of its hand
    st2 = position(hands={0: [K(LION, 3), K(ZEBRA, 6)], 1: [K(MONKEY, 5), K(ZEBRA, 5)]}, players=3)
    act(st2, play(LION, 3))
    act(st2, LAY[3]["keep"])
    act(st2, give(K(ZEBRA, 6), 1, 3))
    act(st2, play(ZEBRA, 6))   # the top of the Zebra stack is 3 and Higher: wanted
    assert st2.known[0].sum() == 0


def test_a_third_seat_loses_track_of_a_card_passed_on():
    """Seat 0 gives seat 1 a card; seat 1 matches and gives a card to seat 2 face down: seat 0
    cannot tell which, so its worlds no longer hold the card in seat 1's hand (counted LOST)."""
    st = position(hands={0: [K(LION, 3), K(ZEBRA, 6)], 1: [K(TIGER, 3), K(MONKEY, 5)]}, players=3)
    act(st, play(LION, 3))
    act(st, LAY[3]["keep"])
    act(st, give(K(ZEBRA, 6), 1, 3))
    act(st, play(TIGER, 3))
    act(st, LAY[3]["keep"])
    act(st, give(K(MONKEY, 5), 1, 3))  # seat 1 to seat 2
    assert st.known[0, 0].sum() == 0 and st.g[0, hl.LOST] == 1
    assert st.known[0, 1, 2, K(MONKEY, 5)] == 1  # what seat 1 knows
    act(st, play(LION, 5))  # seat 2 plays its filler
    assert G.to_move(st)[0] == 0
    w = G.determinize(st, np.zeros(300, np.int64), np.zeros(300, np.int64), deal_keys(300, 2))
    assert (w.known[:, 1, 2] == 0).all(), "what seat 1 knows is not seat 0's to know"
    assert (w.hand[:, 1, K(ZEBRA, 6)] == 0).any()
    check_worlds(G, st, permute_for_mover(st, np.random.default_rng(2)), [0])


def test_worlds_deal_each_hidden_card_with_the_rulebook_probability():
    """In the gift position, seat 0 cannot see seat 1's other card, seat 2's card and the deck:
    a uniform deal of those cards (less the known 6 Zebra). The chance that seat 2 holds a
    given kind is its unseen copies over the unseen cards, counted here from the zones."""
    st = _gift_position()
    z = G.zones(st, 0)
    every = Counter(st.fresh.tolist())
    seen = Counter([k for s in range(5) for k in z[f"stack{s}"]] + z["hand0"] + [K(ZEBRA, 6)])
    unseen = every - seen
    n_unseen = sum(unseen.values())
    assert n_unseen == len(z["deck"]) + 2  # seat 1's other card and seat 2's card
    n = 20000
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 77))
    for kind, where in ((K(TIGER, 1), 2), (E(6), 2), (K(ZEBRA, 6), 1)):
        p = unseen[kind] / n_unseen
        if where == 1:
            freq = np.mean(w.hand[:, 1, kind] == 2)  # the other copy besides the given one
        else:
            freq = np.mean(w.hand[:, 2, kind] == 1)
        se = np.sqrt(p * (1 - p) / n)
        assert abs(freq - p) < 4 * se, (kind, freq, p)
        # and the deck's top card
        top = np.mean(w.deck[np.arange(n), w.g[:, hl.POS]] == kind)
        assert abs(top - p) < 4 * se, (kind, top, p)


# ---- Drama (docs "Drama") -----------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_drama_columns_match_a_recount_of_the_running_score(players):
    """The running score is what each pile would count now (recount of the zones after every
    turn); the dataset's drama columns equal the plain-Python numbers from that history."""
    B = 40
    keys = game_keys(31 + players, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    strats = [get_strategy(G.id, n)() for n in ("giver", "dumper", "safe", "random")]
    st = G.init(R, players, keys.deal)
    history = [[] for _ in range(B)]
    while (G.to_move(st) >= 0).any():
        a = mixed_actions(G, st, strats, seat_rs, players)
        turns = st.g[:, hl.TURNS].copy()
        G.step(st, a)
        for b in np.flatnonzero(st.g[:, hl.TURNS] > turns):
            z = G.zones(st, b)
            history[b].append(recount([z[f"pile{p}"] for p in range(players)],
                                      int(st.g[b, hl.HOLDER]), R))
    out = G.outcome(st)
    seen_change = 0
    for b in range(B):
        assert len(history[b]) == out.turns[b]
        seen_change += assert_drama(out, b, history[b], lower_wins=True) > 0
    assert seen_change > B // 2


# ---- Searchable rules ---------------------------------------------------------------------------

def test_every_declared_search_value_makes_rules_that_play():
    check_search_space(G, (2, 4))


def test_clone_plays_the_same_games():
    check_clone_plays_the_same(G, _play_some(3, 25, 12, 5))


# ---- the running score (issue 16: what a depth-limited search scores its worlds by) -------------

def _running_recount(st, players):
    """Plain Python, from "Scoring and Winning" applied to the piles as they stand: sort each
    pile by ducky type (the explorer cards a type of their own), the player with more cards of a
    type than any other discards them, the rest count, four more for the explorer ducky's holder;
    cards in hand count nothing (every one is played before the end)."""
    z = G.zones(st, 0)
    kind_of = lambda k: k // V if k < NAK else "explorer"
    count = [Counter(kind_of(k) for k in z[f"pile{p}"]) for p in range(players)]
    out = []
    for p in range(players):
        left = sum(n for t, n in count[p].items()
                   if not all(n > count[q][t] for q in range(players) if q != p))
        out.append(left + (4 if st.g[0, hl.HOLDER] == p else 0))
    return [out]


def test_running_score_mid_game_scores_the_piles_as_they_stand_and_the_ducky_now():
    piles = {0: [K(LION, 1), K(LION, 2), K(LION, 3), K(ZEBRA, 1), K(MONKEY, 1), K(MONKEY, 2)],
             1: [K(LION, 4), K(ZEBRA, 2), K(ZEBRA, 3), E(1)], 2: [K(TIGER, 1)]}
    st = position(hands={0: [E(3), K(ZEBRA, 5)]}, piles=piles, holder=2)
    # lions 3 v 1 and monkeys 2 v 0: seat 0 discards them (1 left); zebras 2 v 1 and the explorer
    # card: seat 1 discards them (1 left); seat 2 discards its tiger and holds the ducky
    assert G.running_score(st).tolist() == [[1, 1, 4]] == _running_recount(st, 3)
    act(st, play_explorer(3, MONKEY))       # an exact match on the monkey 3: the ducky to seat 0
    assert st.g[0, hl.PHASE] == hl.REVERSE   # mid-turn: the running score moves at once
    assert G.running_score(st).tolist() == [[5, 1, 0]] == _running_recount(st, 3)
    act(st, LAY[3]["reverse"])               # the monkey stack now wants <= 3
    act(st, LAY[3]["no_give"])
    act(st, play(MONKEY, 5))                 # seat 1: not wanted, takes the monkey 3 and the E3
    # seat 1: zebras 2 and explorer cards 2 discarded, the lion 4 and the monkey 3 count (seat 0
    # has more monkeys)
    assert G.running_score(st).tolist() == [[5, 2, 0]] == _running_recount(st, 3)
    assert (G.to_move(st) >= 0).all()
