"""Safari Sprint: the rulebook's examples A to F, each rule from a constructed position, and
properties over many random series (with a plain-Python reference for the line, the moves and
the scoring, written from the rulebook and never calling the game's code)."""

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
from safari_sim.games import safari_sprint as ss
from strategies import get_strategy
from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught
from mixed_play import (assert_drama, check_clone_plays_the_same, check_search_space,
                        mixed_actions, play_mixed)
from worlds_check import check_worlds

G = get_game("safari_sprint")
ELEPHANT, LION, MONKEY, TIGER, ZEBRA, X = range(6)


def card(suit, value):
    return suit * 6 + value - 1


def events(st, b=0, kinds=None):
    out = []
    for e in st.ev[b, :st.g[b, ss.NEV]]:
        if kinds is None or e[0] in kinds:
            out.append(tuple(int(x) for x in e))
    return out


def act(st, action, b=0):
    assert G.legal(st)[b, action], f"{G.action_name(st.rules, st.n_players, action)} should be legal"
    a = np.zeros(len(st.g), np.int64)
    a[b] = action
    G.step(st, a)


def conserved(st, b=0):
    z = G.zones(st, b)
    total = sum(z.values())
    assert np.array_equal(total, np.asarray(st.deck_total_ro, np.int64)), "cards lost or created"
    assert all((v >= 0).all() for v in z.values())


def example_position(**rules):
    """Examples A-F: four players, elephant on 8, zebra on 7, monkey on 4, tiger on 3 and the
    explorer on 2 (behind the pack, as Step D leaves him); the racing card 4, 4, 3, 1."""
    r = G.make_rules({"animals": ["elephant", "monkey", "tiger", "zebra"], **rules})
    st = G.init(r, 4, deal_keys(1, 0), log=True)
    hands = {0: [card(X, 5)], 1: [card(ZEBRA, 3)], 2: [card(TIGER, 2)], 3: [card(TIGER, 3)]}
    assert r.racing_cards[0][:4] == (4, 4, 3, 1)
    G.stack(st, 0, pos={ELEPHANT: 8, ZEBRA: 7, MONKEY: 4, TIGER: 3, X: 2},
            owner={ELEPHANT: 0, ZEBRA: 1, MONKEY: 2, TIGER: 3}, hands=hands, racing=0,
            rounds_done=3)
    return r, st


# ---- the rulebook's examples ----------------------------------------------------------------

def test_example_a_order_of_play():
    # "the elephant player (on space 8) will play the first card, followed by the zebra player
    # (on space 7), monkey (space 4), and tiger (space 3)."
    r, st = example_position()
    order = []
    for t in (card(X, 5), card(ZEBRA, 3), card(TIGER, 2), card(TIGER, 3)):
        order.append(int(G.to_move(st)[0]))
        act(st, t)
    assert order == [0, 1, 2, 3]


def test_example_b_the_line_after_the_tiger_card():
    # "The tiger player is the last to play. She chooses to play the 3 Tiger card ... The
    # 3 Tiger pushes the 3 Zebra and 2 Tiger cards" down the line.
    r, st = example_position()
    for t in (card(X, 5), card(ZEBRA, 3), card(TIGER, 2)):
        act(st, t)
    assert G.observe(st, np.array([0])).line[0, :3].tolist() == [card(X, 5), card(ZEBRA, 3),
                                                                  card(TIGER, 2)]
    assert G.to_move(st)[0] == 3
    plays = events(st, kinds=[ss.E_PLAY])
    act(st, card(TIGER, 3))
    spot = events(st, kinds=[ss.E_PLAY])[len(plays)][3]
    assert spot == 1  # the 2nd spot: ahead of the 3 Zebra
    line = [e[2] for e in sorted(events(st, kinds=[ss.E_PLAY]), key=lambda e: 0)]
    assert len(line) == 4
    # the line the moves used (Examples C-F): explorer, tiger, zebra, tiger
    moves = events(st, kinds=[ss.E_MOVE])
    assert [m[1] for m in moves] == [X, TIGER, ZEBRA, TIGER]


def test_examples_c_to_f_moves_and_pushes():
    r, st = example_position()
    for t in (card(X, 5), card(ZEBRA, 3), card(TIGER, 2), card(TIGER, 3)):
        act(st, t)
    ev = events(st, kinds=[ss.E_MOVE, ss.E_PUSH])
    # (type, ducky, from, to)
    got = [(e[0], e[1], e[2], e[3]) for e in ev]
    assert got == [
        # C: the explorer's card is at the 1st spot: he moves 4 spaces
        (ss.E_MOVE, X, 2, 6),
        # D: the tiger moves 4, the zebra and the explorer are each pushed back one space
        (ss.E_MOVE, TIGER, 3, 7), (ss.E_PUSH, ZEBRA, 7, 6), (ss.E_PUSH, X, 6, 5),
        # E: the zebra moves 3 spaces, into the lead
        (ss.E_MOVE, ZEBRA, 6, 9),
        # F: the tiger moves one more space, pushing the elephant one space back
        (ss.E_MOVE, TIGER, 7, 8), (ss.E_PUSH, ELEPHANT, 8, 7),
    ]
    p = st.pos[0]
    assert (p[ELEPHANT], p[ZEBRA], p[MONKEY], p[TIGER], p[X]) == (7, 9, 4, 8, 5)
    assert not events(st, kinds=[ss.E_CATCHUP])  # the explorer is not behind the pack
    # the next round begins with the zebra's player, now in the lead
    assert G.to_move(st)[0] == 1 and st.g[0, ss.ROUND] == 4
    conserved(st)


def test_example_b_with_earlier_cards_ahead_gives_another_line():
    r, st = example_position(tie_order="earlier_ahead")
    for t in (card(X, 5), card(ZEBRA, 3), card(TIGER, 2), card(TIGER, 3)):
        act(st, t)
    assert [m[1] for m in events(st, kinds=[ss.E_MOVE])] == [X, ZEBRA, TIGER, TIGER]


# ---- Setup ----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_deals_eleven_cards_with_one_explorer_card(players):
    r = G.make_rules()
    st = G.init(r, players, deal_keys(40, players))
    for b in range(40):
        z = G.zones(st, b)
        for p in range(players):
            h = z[f"hand{p}"]
            assert h.sum() == 11
            assert h[X * 6:].sum() == 1, "exactly one Ducktor Livingstone card"
        assert z["aside"].sum() == 5 - players and z["aside"][:X * 6].sum() == 0
        assert z["aside"][card(X, 1)] == 0 and sum(z[f"hand{p}"][card(X, 1)]
                                                   for p in range(players)) == 0
        # each animal in play: one 1, two each of 2-5, one 6 dealt; its extra 6 by the board
        dealt = sum(z[f"hand{p}"] for p in range(players))
        for a in range(players):
            assert dealt[a * 6:a * 6 + 6].tolist() == [1, 2, 2, 2, 2, 1]
            assert z["board"][card(a, 6)] == 1
        assert dealt[players * 6:X * 6].sum() == 0, "animals not in the race stay in the box"
        assert st.pos[b, X] == 11 and (st.owner[b] == -1).all()
        conserved(st, b)
    assert (G.to_move(st) == 0).all() and (st.g[:, ss.PHASE] == ss.CLAIM).all()


def test_every_race_reshuffles_the_racing_cards():
    st = G.init(G.make_rules(), 3, deal_keys(64, 1))
    assert len({tuple(x) for x in st.rdeck.tolist()}) > 60
    assert all(sorted(x) == list(range(12)) for x in st.rdeck.tolist())


# ---- Choosing Your Animal -------------------------------------------------------------------

def claim(r, a, s):
    return G.claim_action(r, a, s)


def test_choosing_claims_steals_and_turns():
    r = G.make_rules()
    st = G.init(r, 3, deal_keys(1, 3), log=True)
    lg = G.legal(st)[0]
    # the dealer: any animal on any empty space behind the explorer (1-10), no card play
    assert lg[claim(r, ELEPHANT, 10)] and lg[claim(r, MONKEY, 1)] and not lg[:ss.CLAIM0].any()
    assert lg[ss.CLAIM0:].sum() == 3 * 10
    act(st, claim(r, ELEPHANT, 10))
    assert G.to_move(st)[0] == 1
    lg = G.legal(st)[0]
    assert not lg[claim(r, LION, 10)], "space 10 is taken"
    assert lg[claim(r, ELEPHANT, 9)], "a claimed animal moves to a new lower empty space"
    # seat 1 takes the elephant, moving it to 9
    act(st, claim(r, ELEPHANT, 9))
    assert st.pos[0, ELEPHANT] == 9 and st.owner[0, ELEPHANT] == 1
    assert st.pp[0, 0, ss.MARKER] == -1 and st.pp[0, 1, ss.STOLE] == 1
    assert st.pp[0, 0, ss.LOST] == 1
    # seat 2 next; then seat 0, who lost the elephant, chooses again
    assert G.to_move(st)[0] == 2
    lg = G.legal(st)[0]
    assert lg[claim(r, ELEPHANT, 8)] and not lg[claim(r, ELEPHANT, 10)]
    act(st, claim(r, LION, 10))
    assert G.to_move(st)[0] == 0
    act(st, claim(r, MONKEY, 8))
    # everyone has an animal: each adds that animal's extra 6; the race is on
    assert st.g[0, ss.PHASE] == ss.PLAY
    z = G.zones(st, 0)
    assert z["board"].sum() == 0
    for seat, a in ((1, ELEPHANT), (2, LION), (0, MONKEY)):
        assert z[f"hand{seat}"].sum() == 12 and z[f"hand{seat}"][card(a, 6)] >= 1
    # the first round starts with the animal furthest ahead: the lion on 10 (seat 2)
    assert G.to_move(st)[0] == 2
    conserved(st)


def test_a_claimed_animal_on_the_lowest_free_space_cannot_be_taken():
    r = G.make_rules()
    st = G.init(r, 3, deal_keys(1, 3))
    act(st, claim(r, ELEPHANT, 1))
    lg = G.legal(st)[0]
    assert not lg[ss.CLAIM0 + ELEPHANT * 10:ss.CLAIM0 + ELEPHANT * 10 + 10].any()
    act(st, claim(r, LION, 3))
    lg = G.legal(st)[0]
    assert lg[claim(r, LION, 2)] and not lg[claim(r, LION, 1)] and not lg[claim(r, LION, 3)]


def test_players_holding_a_marker_are_skipped():
    r = G.make_rules()
    st = G.init(r, 4, deal_keys(1, 3))
    act(st, claim(r, ELEPHANT, 10))   # seat 0
    act(st, claim(r, LION, 9))        # seat 1
    act(st, claim(r, ELEPHANT, 8))    # seat 2 takes seat 0's elephant
    assert G.to_move(st)[0] == 3
    act(st, claim(r, LION, 7))        # seat 3 takes seat 1's lion
    # round the table: seat 0 and seat 1 lost theirs; seat 2 holds a marker
    assert G.to_move(st)[0] == 0
    act(st, claim(r, MONKEY, 10))
    assert G.to_move(st)[0] == 1
    act(st, claim(r, TIGER, 6))
    assert st.g[0, ss.PHASE] == ss.PLAY and st.g[0, ss.STEALS] == 2


def test_without_steals_only_unclaimed_animals():
    r = G.make_rules(steals=False)
    st = G.init(r, 3, deal_keys(1, 3))
    act(st, claim(r, ELEPHANT, 10))
    lg = G.legal(st)[0]
    assert not lg[ss.CLAIM0:ss.CLAIM0 + 10].any() and lg[claim(r, LION, 9)]


# ---- During Each Race: moves and pushes -----------------------------------------------------

def three_player(pos, hands, racing, rounds_done=0, **rules):
    r = G.make_rules(rules)
    st = G.init(r, 3, deal_keys(1, 0), log=True)
    G.stack(st, 0, pos=pos, owner={ELEPHANT: 0, LION: 1, MONKEY: 2}, hands=hands,
            racing=racing, rounds_done=rounds_done)
    return r, st


def cards_for(r, racing_index):
    return r.racing_cards[racing_index]


def play_round(st, cards):
    """The players play ``cards`` (seat -> card type) in the order the game asks."""
    for _ in range(3):
        act(st, cards[int(G.to_move(st)[0])])


def test_a_ducky_passes_others_and_only_a_landing_pushes():
    r, st = three_player({ELEPHANT: 5, LION: 6, MONKEY: 7, X: 8},
                         {0: [card(LION, 1)], 1: [card(MONKEY, 2)], 2: [card(ELEPHANT, 3)]},
                         racing=1)  # (5, 4, 3, 2, 1)
    # order monkey (7, seat 2), lion (6, seat 1), elephant (5, seat 0): line [3E, 2M, 1L]
    play_round(st, {0: card(LION, 1), 1: card(MONKEY, 2), 2: card(ELEPHANT, 3)})
    got = [e[:4] for e in events(st, kinds=[ss.E_MOVE, ss.E_PUSH])]
    assert got == [(ss.E_MOVE, ELEPHANT, 5, 10), (ss.E_MOVE, MONKEY, 7, 11),
                   (ss.E_MOVE, LION, 6, 9)]
    r, st = three_player({ELEPHANT: 5, LION: 6, MONKEY: 7, X: 8},
                         {0: [card(LION, 1)], 1: [card(MONKEY, 2)], 2: [card(ELEPHANT, 4)]},
                         racing=3)  # (4, 3, 2, 1, 1)
    play_round(st, {0: card(LION, 1), 1: card(MONKEY, 2), 2: card(ELEPHANT, 4)})
    # the lion (3rd spot, 2) lands on the explorer on 8, who goes back to 7
    got = [e[:4] for e in events(st, kinds=[ss.E_MOVE, ss.E_PUSH])]
    assert got == [(ss.E_MOVE, ELEPHANT, 5, 9), (ss.E_MOVE, MONKEY, 7, 10),
                   (ss.E_MOVE, LION, 6, 8), (ss.E_PUSH, X, 8, 7)]


def test_a_push_into_the_space_the_mover_left():
    r, st = three_player({ELEPHANT: 3, LION: 4, MONKEY: 5, X: 6},
                         {0: [card(ELEPHANT, 6)], 1: [card(LION, 1)], 2: [card(MONKEY, 1)]},
                         racing=2)  # (5, 3, 2, 1, 0)
    # order monkey (seat 2: 1 Monkey), lion (seat 1: 1 Lion, later: ahead), elephant (6):
    # line [6E, 1L, 1M]
    play_round(st, {0: card(ELEPHANT, 6), 1: card(LION, 1), 2: card(MONKEY, 1)})
    got = [e[:4] for e in events(st, kinds=[ss.E_MOVE, ss.E_PUSH])]
    # the monkey leaves 5 and lands on the lion on 7: the lion back to 6, the explorer on 6
    # back to 5, the space the monkey left
    assert got == [(ss.E_MOVE, ELEPHANT, 3, 8), (ss.E_MOVE, LION, 4, 7),
                   (ss.E_MOVE, MONKEY, 5, 7), (ss.E_PUSH, LION, 7, 6), (ss.E_PUSH, X, 6, 5)]


def test_a_chain_of_three_pushes():
    r, st = three_player({ELEPHANT: 2, LION: 7, MONKEY: 8, X: 6},
                         {0: [card(ELEPHANT, 6)], 1: [card(LION, 1)], 2: [card(MONKEY, 1)]},
                         racing=9)  # (6, 4, 2, 1, 0)
    play_round(st, {0: card(ELEPHANT, 6), 1: card(LION, 1), 2: card(MONKEY, 1)})
    got = [e[:4] for e in events(st, kinds=[ss.E_MOVE, ss.E_PUSH])]
    assert got[:4] == [(ss.E_MOVE, ELEPHANT, 2, 8), (ss.E_PUSH, MONKEY, 8, 7),
                       (ss.E_PUSH, LION, 7, 6), (ss.E_PUSH, X, 6, 5)]
    assert st.g[0, ss.PUSHES] == 3  # then the lion 6 -> 10 and the monkey 7 -> 9 push nobody
    assert [e[:4] for e in events(st, kinds=[ss.E_MOVE])][1:] == [(ss.E_MOVE, LION, 6, 10),
                                                                   (ss.E_MOVE, MONKEY, 7, 9)]


@pytest.mark.parametrize("mode", ["extend", "ahead"])
def test_a_push_below_space_one(mode):
    """The explorer on 1, the elephant on 2, the lion on 3 and the monkey (off the board, on 0)
    landing on 3: the chain would push the explorer below space 1."""
    r, st = three_player({X: 1, ELEPHANT: 2, LION: 3, MONKEY: 0},
                         {0: [card(ELEPHANT, 1)], 1: [card(LION, 1)], 2: [card(MONKEY, 6)]},
                         racing=4, below_one=mode)  # (3, 3, 2, 2, 1)
    # order lion (seat 1), elephant (seat 0: its 1 goes ahead of the lion's), monkey:
    # line [6M, 1E, 1L]
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 6)})
    got = [e[:4] for e in events(st, kinds=[ss.E_MOVE, ss.E_PUSH])]
    assert st.g[0, ss.BELOW_ONE] == 1
    final = {d: int(st.pos[0, d]) for d in (X, ELEPHANT, LION, MONKEY)}
    if mode == "extend":
        # the explorer goes to 0; the elephant 1 -> 4; the lion 2 -> 4 pushes the elephant
        # to 3 and the monkey to 2; then the explorer catches up to 1
        assert got[:4] == [(ss.E_MOVE, MONKEY, 0, 3), (ss.E_PUSH, LION, 3, 2),
                           (ss.E_PUSH, ELEPHANT, 2, 1), (ss.E_PUSH, X, 1, 0)]
        assert final == {X: 1, MONKEY: 2, ELEPHANT: 3, LION: 4}
    else:
        # the monkey goes on to 4 and pushes nobody; the elephant 2 -> 5; the lion 3 -> 5
        # pushes the elephant to 4 and the monkey to 3; the explorer catches up to 2
        assert got[0] == (ss.E_MOVE, MONKEY, 0, 4)
        assert final == {X: 2, MONKEY: 3, ELEPHANT: 4, LION: 5}


def test_the_explorer_catches_up_behind_the_rearmost_ducky():
    r, st = three_player({ELEPHANT: 5, LION: 6, MONKEY: 7, X: 2},
                         {0: [card(ELEPHANT, 1)], 1: [card(LION, 1)], 2: [card(MONKEY, 1)]},
                         racing=4)  # (3, 3, 2, 2, 1)
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    # the later 1s go ahead: the elephant's 1st: 5 -> 8; the lion 2nd: 6 -> 9; the monkey
    # 3rd: 7 -> 9 lands on the lion -> 8, the elephant -> 7; the explorer (2) jumps to 6
    assert {d: int(st.pos[0, d]) for d in (ELEPHANT, LION, MONKEY, X)} == {
        ELEPHANT: 7, LION: 8, MONKEY: 9, X: 6}
    assert events(st, kinds=[ss.E_CATCHUP])[0][2:4] == (2, 6)


def test_the_explorer_ahead_of_the_rearmost_stays():
    r, st = three_player({ELEPHANT: 5, LION: 6, MONKEY: 7, X: 9},
                         {0: [card(ELEPHANT, 1)], 1: [card(LION, 1)], 2: [card(MONKEY, 1)]},
                         racing=8)  # (3, 2, 2, 1, 1)
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    # the elephant 5 -> 8; the lion 6 -> 8 pushes it to 7 and the monkey to 6; the monkey
    # 6 -> 8 pushes the lion to 7 and the elephant to 6 ... the explorer on 9 stays
    assert {d: int(st.pos[0, d]) for d in (ELEPHANT, LION, MONKEY, X)} == {
        ELEPHANT: 6, LION: 7, MONKEY: 8, X: 9}
    assert not events(st, kinds=[ss.E_CATCHUP])


def test_track_beyond_19_open_and_stop():
    for mode in ("open", "stop"):
        r, st = three_player({ELEPHANT: 17, LION: 18, MONKEY: 2, X: 1},
                             {0: [card(ELEPHANT, 6)], 1: [card(LION, 5)], 2: [card(MONKEY, 1)]},
                             racing=2, track_end=mode)  # (5, 3, 2, 1, 0)
        play_round(st, {0: card(ELEPHANT, 6), 1: card(LION, 5), 2: card(MONKEY, 1)})
        if mode == "open":
            assert (st.pos[0, ELEPHANT], st.pos[0, LION]) == (22, 21)
        else:
            # the elephant stops on 19; the lion (3) stops on 19 too and pushes it to 18
            assert (st.pos[0, ELEPHANT], st.pos[0, LION]) == (18, 19)
        assert st.g[0, ss.PAST_END] == 2


# ---- Scoring Each Race / Winning the Game ---------------------------------------------------

def last_round(pos, **rules):
    r = G.make_rules(rules)
    st = G.init(r, 3, deal_keys(1, 0), log=True)
    # zero moves: the 5th spot of the card (4, 4, 3, 1, 0) is never used by three players, so
    # play three 1s onto a card of (1, 1, 1)? use racing card 0 and check moves explicitly
    G.stack(st, 0, pos=pos, owner={ELEPHANT: 0, LION: 1, MONKEY: 2},
            hands={0: [card(ELEPHANT, 1)], 1: [card(LION, 1)], 2: [card(MONKEY, 1)]},
            racing=8, rounds_done=10, totals=[5, 7, 9])
    return r, st


def test_race_points_include_the_explorer_and_the_leader_deals_next():
    # (3, 2, 2, 1, 1): the ones in play order; the explorer far ahead on 30 stays first
    r, st = last_round({ELEPHANT: 5, LION: 10, MONKEY: 15, X: 30})
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    # the elephant's card (played last) is 1st: 5 -> 8; lion 2nd 10 -> 12; monkey 15 -> 17
    assert st.g[0, ss.RACE] == 1
    assert st.rpts[0, :, 0].tolist() == [2, 3, 4]  # the explorer took the 6
    assert st.pp[0, :, ss.TOTAL].tolist() == [7, 10, 13]
    assert st.g[0, ss.EXPL_WINS] == 1
    # the explorer led: the player whose animal is furthest ahead (the monkey's) deals
    assert st.g[0, ss.DEALER] == 2 and G.to_move(st)[0] == 2
    assert st.g[0, ss.PHASE] == ss.CLAIM and st.pos[0, X] == 11
    conserved(st)


@pytest.mark.parametrize("mode,dealer", [("best_animal", 2), ("same", 0), ("left", 1)])
def test_dealer_after_the_explorer_led(mode, dealer):
    r, st = last_round({ELEPHANT: 5, LION: 10, MONKEY: 15, X: 30}, explorer_lead_dealer=mode)
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    assert st.g[0, ss.DEALER] == dealer and G.to_move(st)[0] == dealer


def test_the_leading_animals_player_deals_and_the_race_resets():
    r, st = last_round({ELEPHANT: 20, LION: 10, MONKEY: 15, X: 2})
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    assert st.rpts[0, :, 0].tolist() == [6, 3, 4]
    assert st.g[0, ss.DEALER] == 0 and st.pp[0, 0, ss.LED] == 1
    # the reset: every card back, eleven each with one explorer card, extras by the board
    z = G.zones(st, 0)
    for p in range(3):
        assert z[f"hand{p}"].sum() == 11 and z[f"hand{p}"][30:].sum() == 1
    assert z["discard"].sum() == 0 and z["board"].sum() == 3
    assert (st.owner[0] == -1).all() and st.g[0, ss.ROUND] == 0
    conserved(st)


def test_reset_deal_keep_deals_the_last_races_cards_again():
    """reset_deal 'keep' (the printed return to "Place Ducktor Livingstone's ducky on space 11"):
    the explorer cards set aside stay aside, every card of the race just run (the explorer cards
    dealt and the extra 6s included) is shuffled and dealt out, twelve each, with no extra 6 by
    the board; eleven rounds still leave one card."""
    r, st = last_round({ELEPHANT: 20, LION: 10, MONKEY: 15, X: 2}, reset_deal="keep")
    for v in (5, 6):  # three players: two explorer cards were set aside at this race's setup
        st.pile[0, ss.DISCARD, card(X, v)] -= 1
        st.pile[0, ss.ASIDE, card(X, v)] += 1
    in_race = st.hand[0].sum(axis=0).astype(int) + st.pile[0, ss.DISCARD]
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    z = G.zones(st, 0)
    dealt = sum(z[f"hand{p}"] for p in range(3))
    assert [z[f"hand{p}"].sum() for p in range(3)] == [12, 12, 12]
    assert dealt.tolist() == in_race.tolist(), "the race's own cards, all of them, dealt again"
    assert dealt[card(X, 2)] == dealt[card(X, 3)] == dealt[card(X, 4)] == 1
    assert z["aside"].tolist() == [0] * 33 + [0, 1, 1] and z["board"].sum() == 0
    assert (st.pp[0, :, ss.XHELD] == 0).all() and (st.pp[0, :, ss.HAND_N] == 12).all()
    conserved(st)
    o = G.observe(st, np.array([0]))
    assert o.kind[0] == ss.CLAIM and o.unseen[0].sum() == 38 - 12, "no 6s lie by the board"
    for seat, a in ((0, ELEPHANT), (1, LION), (2, MONKEY)):
        assert G.to_move(st)[0] == seat
        act(st, claim(r, a, seat + 1))
    assert [st.hand[0, p].sum() for p in range(3)] == [12, 12, 12], "no extra 6 to add"
    assert G.observe(st, np.array([0])).unseen[0].sum() == 36 - 12 + 2
    conserved(st)


@pytest.mark.parametrize("players", [3, 5])
def test_reset_deal_keep_deals_explorer_cards_by_chance(players):
    """Under 'keep' a hand in race 2 may hold no explorer card or several (they are shuffled
    with the rest); under 'setup' exactly one. Both play every series to its end."""
    counts = {}
    for mode in ("setup", "keep"):
        r = G.make_rules(reset_deal=mode)
        st = G.init(r, players, deal_keys(60, players))
        rng = np.random.default_rng(players)
        counts[mode] = Counter()
        seen = np.zeros(60, bool)
        while (G.to_move(st) >= 0).any():
            legal = G.legal(st)
            G.step(st, np.array([rng.choice(np.flatnonzero(l)) if l.any() else 0 for l in legal]))
            fresh = (st.g[:, ss.RACE] == 1) & ~seen  # race 2's deal, before any choice
            seen |= fresh
            counts[mode].update(st.hand[fresh][:, :, 30:].sum(axis=2).ravel().tolist())
            assert (st.hand[fresh].sum(axis=2) == 12 - (mode == "setup")).all()
            assert (st.pile[fresh, ss.ASIDE].sum(axis=1) == 5 - players).all()
        assert seen.all()
    assert set(counts["setup"]) == {1}
    assert counts["keep"][0] > 0 and sum(v for k, v in counts["keep"].items() if k >= 2) > 0


def test_the_series_ends_after_three_races_and_ties_share():
    r, st = last_round({ELEPHANT: 20, LION: 10, MONKEY: 15, X: 2})
    st.g[0, ss.RACE] = 2
    st.pp[0, :, ss.TOTAL] = [3, 9, 8]
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    assert G.to_move(st)[0] == -1
    out = G.outcome(st)
    assert out.score[0].tolist() == [9, 12, 12]
    assert out.win[0].tolist() == [0, 0.5, 0.5] and out.rank[0].tolist() == [3, 1, 1]
    assert "Series over after 3 race(s)" in G.describe(st, 0)


# ---- Rules fields ---------------------------------------------------------------------------

def test_rules_errors_name_the_field():
    with pytest.raises(RulesError, match="rules.tie_order"):
        G.make_rules(tie_order="random")
    with pytest.raises(RulesError, match="rules.racing_cards"):
        G.check(G.make_rules(racing_cards=[[4, 4, 3]] * 12), 4)
    with pytest.raises(RulesError, match="rules.rounds"):
        G.make_rules(rounds=13)
    with pytest.raises(RulesError, match="rules.race_points"):
        G.check(G.make_rules(race_points=[6, 4, 3]), 3)
    with pytest.raises(RulesError, match="rules.animals"):
        G.make_rules(animals=["elephant", "dodo", "lion"])
    with pytest.raises(RulesError, match="rules.animals"):
        G.check(G.make_rules(animals=["elephant", "lion"]), 3)
    with pytest.raises(RulesError, match="rules.explorer_start"):
        G.make_rules(explorer_start=1)
    with pytest.raises(RulesError, match="rules.below_one"):
        G.make_rules(below_one="wrap")
    with pytest.raises(RulesError, match="rules.explorer_lead_dealer"):
        G.make_rules(explorer_lead_dealer="youngest")
    with pytest.raises(RulesError, match="3 to 5 players"):
        G.check(G.make_rules(), 6)
    assert G.make_rules(racing_cards=[[1, 1, 1, 1, 1]] * 11).racing_cards[0] == (1, 1, 1, 1, 1)


def test_rules_fields_change_the_game():
    s = [get_strategy(G.id, "backer")()]
    keys = game_keys(4, 4, 64)
    base = play_batch(G, G.make_rules(races=1), 4, s, np.zeros((64, 4), int), keys).outcome
    pts = play_batch(G, G.make_rules(races=1, race_points=[10, 0, 0, 0, 0, 0]), 4, s,
                     np.zeros((64, 4), int), keys).outcome
    assert set(np.unique(pts.score)) <= {0, 10}
    # the places' points, 6 + 4 + 3 + 2 + 1, go to the players and the explorer
    assert (base.score.sum(axis=1) + base.stats["explorer_points"] == 16).all()
    two = play_batch(G, G.make_rules(races=2), 4, s, np.zeros((64, 4), int), keys).outcome
    assert "race2_points" in two.stats and "race3_points" not in two.stats


# ---- a plain-Python reference, written from the rulebook ------------------------------------

def ref_line(plays, tie_order):
    """The line from the cards in the order they were played: by number, highest at the 1st
    spot; a card equal to cards already there goes ahead of them (later_ahead) or behind."""
    line = []
    for t in plays:
        v = t % 6
        i = 0
        while i < len(line) and (line[i] % 6 > v or (tie_order == "earlier_ahead"
                                                     and line[i] % 6 == v)):
            i += 1
        line.insert(i, t)
    return line


def ref_move(pos, d, steps, rules):
    """One ducky forward; the ducky it lands on back one space, and so on down the chain."""
    start = pos.pop(d)
    target = start + steps
    if rules.track_end == "stop" and target > rules.track_spaces:
        target = max(rules.track_spaces, start)
    by_space = {s: e for e, s in pos.items()}
    chain = []
    s = target
    while s in by_space and target != start:
        chain.append(by_space[s])
        s -= 1
    if chain and s < 1 and rules.below_one == "ahead":
        t = target + 1
        while t in by_space:
            t += 1
        pos[d] = t
        return True
    for e in chain:
        pos[e] -= 1
    pos[d] = target
    return bool(chain) and s < 1


def ref_round(pos, plays, values, rules, animals):
    pos = dict(pos)
    for i, t in enumerate(ref_line(plays, rules.tie_order)):
        ref_move(pos, t // 6, values[i], rules)
    rear = min(pos[a] for a in animals)
    if pos[X] < rear - 1:
        pos[X] = rear - 1
    return pos


def ref_places(pos, owner, points):
    """Race points by seat from the final board (the explorer takes a place too)."""
    ranked = sorted(pos, key=lambda d: -pos[d])
    out = {}
    for place, d in enumerate(ranked):
        if d != X:
            out[owner[d]] = points[place]
    return out


def ref_claim_legal(pos, owner, rules, animals):
    S = rules.explorer_start - 1
    taken = {s for d, s in pos.items() if d == X or owner.get(d, -1) >= 0}
    out = set()
    for a in animals:
        for s in range(1, S + 1):
            if s in taken:
                continue
            if owner.get(a, -1) < 0 or (rules.steals and s < pos[a]):
                out.add(G.claim_action(rules, a, s))
    return out


STRATS = ("backer", "spoiler", "projector", "random", "first_legal")


def run_checked(players, rules, n_games, seed):
    keys = game_keys(seed, players, n_games)
    seat_rs = keys.seat.reshape(-1).copy()
    strats = [get_strategy(G.id, s)() for s in STRATS]
    seating = (np.arange(players)[None, :] + np.arange(n_games)[:, None]) % len(strats)
    st = G.init(rules, players, keys.deal)
    animals = [int(a) for a in st.active[:-1]]
    n_act = G.n_actions(rules, players)
    total = np.asarray(st.deck_total_ro, np.int64)
    hand_size = len(rules.deck_cards) + 1 + (rules.extra_card > 0)
    plays = [[] for _ in range(n_games)]        # cards of the round so far, in play order
    movers = [[] for _ in range(n_games)]
    race_ref = np.zeros((n_games, players, rules.races), np.int64)
    checked_rounds = 0
    for _ in range(100_000):
        mover = G.to_move(st)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        assert legal.shape[1] == n_act
        assert legal[live].any(axis=1).all() and not legal[mover < 0].any()
        actions = np.zeros(n_games, np.int64)
        for k, s in enumerate(strats):
            idx = live[seating[live, mover[live]] == k]
            if idx.size:
                a = choose(s, G, st, idx, seat_rs, players)
                assert legal[idx, a].all(), "a strategy chose an illegal action"
                actions[idx] = a
        before = {}
        for b in live:
            ph = st.g[b, ss.PHASE]
            p = int(mover[b])
            pos = {d: int(st.pos[b, d]) for d in animals + [X]}
            owner = {d: int(st.owner[b, d]) for d in animals}
            if ph == ss.CLAIM:
                on_board = {d: s for d, s in pos.items() if d == X or owner[d] >= 0}
                assert set(np.flatnonzero(legal[b])) == ref_claim_legal(on_board, owner, rules,
                                                                        animals)
                continue
            # Step B: the order of play is by the animals' places, furthest ahead first
            if not plays[b]:
                movers[b] = sorted(range(players), key=lambda q: -pos[
                    next(d for d in animals if owner[d] == q)])
            assert p == movers[b][len(plays[b])]
            hand = st.hand[b, p]
            assert set(np.flatnonzero(legal[b])) == set(np.flatnonzero(hand))
            if b % 5 == 0:  # the observation's "if a card numbered v is played now"
                values = rules.racing_cards[int(st.g[b, ss.RC_CUR])]
                ifplay = G.observe(st, np.array([b])).ifplay[0]
                for v in range(6):
                    line = ref_line(plays[b] + [36 + v], rules.tie_order)
                    k = line.index(36 + v)
                    give = [0] * 6
                    for i, t in enumerate(line):
                        if t < 36:
                            give[t // 6] += values[i]
                    assert ifplay[v].tolist() == give + [values[k], k]
            plays[b].append(int(actions[b]))
            if len(plays[b]) == players:
                values = rules.racing_cards[int(st.g[b, ss.RC_CUR])]
                before[b] = (ref_round(pos, plays[b], values, rules, animals), owner,
                             int(st.g[b, ss.RACE]), int(st.g[b, ss.ROUND]))
                plays[b] = []
        G.step(st, actions)
        # cards conserved in every zone, after every step, in every game
        line = np.zeros((n_games, 37), np.int64)
        ll = st.g[:, ss.LINE_LEN]
        cards = np.where(np.arange(5)[None, :] < ll[:, None], st.seq[:, 0, :], 36)
        np.add.at(line, (np.repeat(np.arange(n_games), 5), cards.reshape(-1)), 1)
        zone_sum = (st.hand.sum(axis=1).astype(np.int64) + st.pile.sum(axis=1) + line[:, :36])
        assert (zone_sum == total[None, :]).all(), "cards lost or created"
        assert (st.hand >= 0).all() and (st.pile >= 0).all()
        # one ducky a space
        on = np.where(st.pos > ss.OFF, st.pos, np.arange(6)[None, :] + 10 * ss.OFF)
        assert all(len(set(r)) == 6 for r in on.tolist())
        for b, (ref_pos, owner, race, rnd) in before.items():
            checked_rounds += 1
            if rnd + 1 < rules.rounds:
                got = {d: int(st.pos[b, d]) for d in ref_pos}
                assert got == ref_pos, f"game {b}: the round moved {got}, reference {ref_pos}"
                held = st.hand[b].sum(axis=1)
                assert (held == hand_size - rnd - 1).all()
            else:
                pts = ref_places(ref_pos, owner, rules.race_points)
                for q, v in pts.items():
                    race_ref[b, q, race] = v
                assert st.rpts[b, :, race].tolist() == [pts[q] for q in range(players)]
                if race + 1 == rules.races:  # the last board stays
                    assert {d: int(st.pos[b, d]) for d in ref_pos} == ref_pos
    assert (G.to_move(st) == -1).all(), "every series ends"
    out = G.outcome(st)
    assert np.array_equal(out.score, race_ref.sum(axis=2)), "scores equal the recount"
    assert np.allclose(out.win.sum(axis=1), 1) and (out.rank.min(axis=1) == 1).all()
    best = out.score.max(axis=1, keepdims=True)
    assert np.array_equal(out.win > 0, out.score == best)
    assert (st.g[:, ss.RACE] == rules.races).all()
    assert checked_rounds == n_games * rules.races * rules.rounds
    # the measures, recounted from the reference's points race by race: the series' leaders
    # before the last race, the players sharing the victory, and the explorer's points (every
    # place's points less the players')
    for b in range(n_games):
        total = race_ref[b].sum(axis=1).tolist()
        before = race_ref[b, :, :-1].sum(axis=1).tolist()
        lead = lambda sc: {q for q in range(players) if sc[q] == max(sc)}  # noqa: E731
        assert out.stats["last_race_decided"][b] == (lead(before) != lead(total))
        assert out.stats["shared_victory"][b] == (len(lead(total)) > 1)
        assert out.stats["explorer_points"][b] == (
            rules.races * sum(rules.race_points[:players + 1]) - sum(total))
    assert 0 < out.stats["last_race_decided"].sum() < n_games
    return out


@pytest.mark.parametrize("players", [3, 4, 5])
def test_properties_over_random_series(players):
    out = run_checked(players, G.make_rules(), 120, players)
    assert out.stats["steals"].sum() > 0


@pytest.mark.parametrize("rules", [
    {"tie_order": "earlier_ahead", "track_end": "stop", "below_one": "ahead"},
    {"steals": False, "explorer_lead_dealer": "left", "races": 2, "explorer_start": 7},
    {"reset_deal": "keep"},
])
def test_properties_with_other_readings(rules):
    run_checked(4, G.make_rules(rules), 80, 9)


# ---- observations ---------------------------------------------------------------------------

def _fields(obs):
    names = [f.name for f in dataclasses.fields(obs)] + ["spot_values", "racing_seen", "unseen"]
    return {k: np.asarray(getattr(obs, k)) for k in names}


def check_hidden_cards_do_not_show(observe, steps):
    """Play ``steps`` random steps, then deal the other hands and the explorer cards set aside
    again at random and shuffle the face-down racing cards: ``observe(state, games)`` must give
    the same arrays. Returns the state and the games checked."""
    players, B = 4, 48
    keys = game_keys(21, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    strat = get_strategy(G.id, "random")()
    seat_rs = keys.seat.reshape(-1).copy()
    for _ in range(steps):
        m = G.to_move(st)
        live = np.flatnonzero(m >= 0)
        a = np.zeros(B, np.int64)
        a[live] = strat.act(G.observe(st, live), G.legal(st)[live],
                            SeatRandom(seat_rs, live * players + m[live]))
        G.step(st, a)
    live = np.flatnonzero(G.to_move(st) >= 0)
    before = _fields(observe(st, live))
    rng = np.random.default_rng(steps)
    changed = 0
    for b in live:
        p = int(G.to_move(st)[b])
        others = [q for q in range(players) if q != p]
        # pool the other hands and the explorer cards set aside, deal them again at random
        pool = [t for q in others for t in range(36) for _ in range(st.hand[b, q, t])]
        pool += [t for t in range(36) for _ in range(st.pile[b, ss.ASIDE, t])]
        sizes = [int(st.hand[b, q].sum()) for q in others]
        old = st.hand[b].copy(), st.pile[b, ss.ASIDE].copy()
        rng.shuffle(pool)
        st.hand[b, others] = 0
        st.pile[b, ss.ASIDE] = 0
        i = 0
        for q, k in zip(others, sizes):
            for t in pool[i:i + k]:
                st.hand[b, q, t] += 1
            i += k
        for t in pool[i:]:
            st.pile[b, ss.ASIDE, t] += 1
        # and the racing cards still face down
        k = int(st.g[b, ss.RC_POS])
        st.rdeck[b, k:] = rng.permutation(st.rdeck[b, k:])
        changed += not (np.array_equal(old[0], st.hand[b]) and np.array_equal(old[1], st.pile[b, 1]))
    assert changed > len(live) // 2
    G._refresh(st, st.all_games)
    after = _fields(observe(st, live))
    for k in before:
        assert np.array_equal(before[k], after[k]), k
    return st, live, before


@pytest.mark.parametrize("steps", [3, 30, 120])
def test_observation_unchanged_when_every_hidden_card_is_permuted(steps):
    st, live, before = check_hidden_cards_do_not_show(G.observe, steps)
    players = st.n_players
    # and the observation does see this player's own hand
    b = live[0]
    p = int(G.to_move(st)[b])
    t = int(np.flatnonzero(st.hand[b, p])[0])
    st.hand[b, p, t] -= 1
    st.hand[b, (p + 1) % players, t] += 1
    G._refresh(st, st.all_games)
    assert not np.array_equal(G.observe(st, live).hand, before["hand"])


@dataclasses.dataclass
class _LeakyObs(ss.Obs):
    peek: np.ndarray = None  # the leak: a hidden fact


@pytest.mark.parametrize("leak", ["next_racing_card", "next_hand", "aside"])
def test_the_permutation_check_catches_a_leaky_observation(leak):
    """The positive control: the same check on an observation with one hidden fact added (the
    next racing card face down, the next seat's hand, the explorer cards set aside) must fail."""
    def leaky(st, games):
        o = G.observe(st, games)
        fields = {f.name: getattr(o, f.name) for f in dataclasses.fields(o)}
        if leak == "next_racing_card":
            peek = st.rdeck[games, st.g[games, ss.RC_POS]]
        elif leak == "next_hand":
            peek = st.hand[games, (G.to_move(st)[games] + 1) % st.n_players]
        else:
            peek = st.pile[games, ss.ASIDE]
        return _LeakyObs(**fields, peek=np.array(peek))
    with pytest.raises(AssertionError, match="peek"):
        check_hidden_cards_do_not_show(leaky, 30)


def test_observation_counts_what_is_public():
    r, st = example_position()
    act(st, card(X, 5))
    o = G.observe(st, np.array([0]))
    assert o.kind[0] == ss.PLAY and o.seat[0] == 1 and o.mine[0] == ZEBRA
    assert o.line[0].tolist() == [card(X, 5), -1, -1, -1, -1] and o.line_len[0] == 1
    assert o.spot_values[0, :4].tolist() == [4, 4, 3, 1] and o.to_play[0] == 2
    assert o.pos[0, ELEPHANT] == 8 and o.owner[0, ZEBRA] == 1 and o.owner[0, LION] == -1
    assert o.racing_seen[0].sum() == 4  # three earlier rounds and this one
    # unseen = every card less this hand, the discards and the line
    u = o.unseen[0]
    assert u.sum() == 3 * 9 - 1 + 0  # three other hands of 9, one explorer 5 played from seat 0
    assert (u >= 0).all()


def test_same_seed_same_series():
    s = [get_strategy(G.id, n)() for n in ("backer", "spoiler", "projector")]
    seat = np.tile(np.arange(3), (40, 1))
    a = play_batch(G, G.make_rules(), 3, s, seat, game_keys(11, 3, 40))
    b = play_batch(G, G.make_rules(), 3, s, seat, game_keys(11, 3, 40))
    assert np.array_equal(a.outcome.score, b.outcome.score)
    assert np.array_equal(a.outcome.stats["pushes"], b.outcome.stats["pushes"])


def test_trace_tells_the_whole_series():
    s = [get_strategy(G.id, "backer")()]
    res = play_batch(G, G.make_rules(), 4, s, np.zeros((1, 4), int), game_keys(2, 4, 1),
                     log=True)
    text = G.describe(res.state, 0)
    assert text.startswith("== Race 1: P0 deals ==")
    assert text.count("== Race") == 3 and text.count("-- Round") == 33
    assert text.count(" plays the ") == 3 * 11 * 4
    assert "Series over after 3 race(s)" in text


def test_pure_python_mode_plays_the_same_series():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the series comes out the same."""
    args = [sys.executable, "-m", "safari_sim.cli", "trace", "safari_sprint", "--seed", "3",
            "--strategies", "backer,spoiler,projector,random"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=300)
    assert "Series over" in jit.stdout and "is pushed back" in jit.stdout
    assert py.stdout == jit.stdout


# ---- the strategies do what they say --------------------------------------------------------

def decide(st, name, **params):
    s = get_strategy(G.id, name)(**params)
    keys = game_keys(0, st.n_players, 1)
    return int(ask(s, G, st, [0], keys.seat.reshape(-1).copy(), st.n_players)[0])


def last_to_play(seat0_hand, **rules):
    """The last round of a race: seat 0's elephant is rearmost and plays last; seat 1 (lion,
    leading) has played the 4 Elephant and seat 2 (monkey) the 3 Monkey: the line is
    [4 Elephant, 3 Monkey]."""
    r, st = three_player({ELEPHANT: 5, LION: 9, MONKEY: 8, X: 4},
                         {0: seat0_hand, 1: [card(ELEPHANT, 4), card(LION, 2)],
                          2: [card(MONKEY, 3), card(MONKEY, 2)]},
                         racing=9, rounds_done=10, **rules)  # (6, 4, 2, 1, 0)
    act(st, card(ELEPHANT, 4))
    act(st, card(MONKEY, 3))
    assert G.to_move(st)[0] == 0
    return r, st


def test_backer_plays_its_high_card_on_the_best_spot():
    # the 6 Elephant takes the 1st spot (6) and pushes the monkey's card down; the 2 Elephant
    # would take the 3rd (2)
    r, st = last_to_play([card(ELEPHANT, 6), card(ELEPHANT, 2)])
    assert decide(st, "backer") == card(ELEPHANT, 6)


def test_backer_plays_a_rivals_low_card():
    # the 6 Lion would push its own 4 Elephant from the 1st spot (6) to the 2nd (4); the 1 Lion
    # goes last
    r, st = last_to_play([card(LION, 6), card(LION, 1)])
    assert decide(st, "backer") == card(LION, 1)


def test_spoiler_holds_the_leaders_highest_card():
    # a racing card that rises: the 6 Lion at the 1st spot would move the leading lion 1, the
    # 1 Lion at the 3rd 6; the spoiler still keeps the 6 (its hold knob) ...
    rising = {"racing_cards": [[1, 2, 6, 0, 0]] * 12}
    r, st = last_to_play([card(LION, 6), card(LION, 1)], **rising)
    assert decide(st, "spoiler", own_weight=0.0, push_bonus=0.0) == card(LION, 1)
    # ... and without it plays the 6 where it moves the lion least
    assert decide(st, "spoiler", own_weight=0.0, push_bonus=0.0, hold=False) == card(LION, 6)


def test_spoiler_saves_its_own_six_for_the_last_rounds():
    # seat 0 (elephant, in front) plays first: every card takes the 1st spot (6)
    hand = [card(ELEPHANT, 6), card(MONKEY, 1), card(LION, 2), card(MONKEY, 3), card(LION, 4)]
    r, st = three_player({ELEPHANT: 9, LION: 8, MONKEY: 7, X: 6}, {0: hand}, racing=9,
                         rounds_done=7)
    assert G.to_move(st)[0] == 0
    assert decide(st, "spoiler", hold=False) == card(ELEPHANT, 6)
    assert decide(st, "spoiler", hold=False, save_six=3) != card(ELEPHANT, 6)
    # in the last three rounds it plays it
    r, st = three_player({ELEPHANT: 9, LION: 8, MONKEY: 7, X: 6}, {0: hand[:3]}, racing=9,
                         rounds_done=9)
    assert decide(st, "spoiler", hold=False, save_six=3) == card(ELEPHANT, 6)


def test_claim_knobs():
    r = G.make_rules()
    st = G.init(r, 3, deal_keys(1, 7))
    hand = st.hand[0, 0].reshape(6, 6)[:3]
    strength = (hand * np.arange(1, 7)).sum(axis=1)
    a = decide(st, "backer")  # claim 'hand': the strongest animal, on space 10
    assert a == G.claim_action(r, int(np.argmax(strength)), 10)
    act(st, a)
    # 'leader': seat 1 takes the animal furthest ahead, one space lower (9)
    taken = (a - ss.CLAIM0) // 10
    assert decide(st, "spoiler", claim="leader") == G.claim_action(r, taken, 9)
    # 'space': the highest free space, any animal
    assert (decide(st, "projector", claim="space") - ss.CLAIM0) % 10 + 1 == 9


def test_strategies_beat_random():
    strats = [get_strategy(G.id, n)() for n in ("backer", "spoiler", "projector", "random")]
    seating = np.array([np.roll(np.arange(4), k % 4) for k in range(400)])
    out = play_batch(G, G.make_rules(), 4, strats, seating, game_keys(5, 4, 400)).outcome
    share = [out.win[seating == i].mean() for i in range(4)]
    assert min(share[:3]) > share[3] and np.mean(share[:3]) > share[3] + 0.05


# ---- audit: the cards still to come (the policies' line_effect) ----------------------------

def line_effect(st, b, expect_later):
    """(own[6], other[6, 6]) of the compiled policies' ``line_effect`` in game b: the move of a
    card of each number played now, and what the line's cards then give each ducky."""
    from strategies import _safari_sprint_compiled as C
    v = st.view
    deck_total = np.ascontiguousarray(st.deck_total_ro, np.int64)
    powq, pow1q = C.pow_tables(int(deck_total.sum()))
    own, other, pmf, sv, u, _, _ = C.scratch()
    C.line_effect(b, expect_later, v.small, v.hand, v.played, v.line, v.ifplay, deck_total,
                  st.racing, st.params, powq, pow1q, own, other, pmf, sv, u)
    return own, other


def ref_expected_moves(line, values, unseen, to_play, tie_order):
    """Plain reference for the strategies' look-ahead: every number of each later card drawn
    independently with the odds of the cards not seen; for a card numbered v + 1 played now,
    the expected move of that card and of each ducky by the cards already in the line."""
    import itertools
    by_number = [sum(unseen[s * 6 + w] for s in range(6)) for w in range(6)]
    tot = sum(by_number)
    own = [0.0] * 6
    other = [[0.0] * 6 for _ in range(6)]
    for v in range(6):
        for later in itertools.product(range(6), repeat=to_play):
            pr = 1.0
            for w in later:
                pr *= by_number[w] / tot
            if pr == 0:
                continue
            mine = 36 + v          # suit 6: a card not of any ducky
            plays = list(line) + [mine] + [42 + w for w in later]
            got = ref_line(plays, tie_order)
            own[v] += pr * values[got.index(mine)]
            for t in line:
                other[v][t // 6] += pr * values[got.index(t)]
    return own, other


def _line_in_play_order(st, b=0):
    # the line's cards in the order they were played (the reference re-inserts them)
    plays = [e[2] for e in events(st, b, kinds=[ss.E_PLAY])]
    return plays[len(plays) - int(st.g[b, ss.LINE_LEN]):]


@pytest.mark.parametrize("tie_order", ["later_ahead", "earlier_ahead"])
@pytest.mark.parametrize("played", [0, 1, 2])
def test_line_effect_counts_the_cards_still_to_come(tie_order, played):
    r, st = example_position(tie_order=tie_order)
    for t in (card(X, 5), card(ZEBRA, 3))[:played]:
        act(st, t)
    o = G.observe(st, np.array([0]))
    eff_own, eff_other = line_effect(st, 0, True)
    values = r.racing_cards[0]
    own, other = ref_expected_moves(_line_in_play_order(st), values, o.unseen[0].tolist(),
                                    int(o.to_play[0]), tie_order)
    assert np.allclose(eff_own, own)
    assert np.allclose(eff_other, other)
    # without the look-ahead: the line as it stands (the game's ifplay)
    flat_own, _ = line_effect(st, 0, False)
    assert np.array_equal(flat_own, o.ifplay[0, :, 6])
    if played == 0 and tie_order == "later_ahead":
        # the first to play: a 1 surely ends last (every later card goes ahead of it)
        assert eff_own[0] == pytest.approx(values[3])


def test_backer_playing_first_plays_its_high_card():
    # seat 0 (elephant, in front) plays first; a 1 played first ends at the last spot, the 6
    # nearly always stays at the 1st: the backer plays the 6 (as found, it played the 1,
    # counting every card played first as staying at the 1st spot)
    hand = [card(ELEPHANT, 6), card(ELEPHANT, 1), card(LION, 2), card(MONKEY, 3), card(LION, 4)]
    r, st = three_player({ELEPHANT: 9, LION: 8, MONKEY: 7, X: 6}, {0: hand}, racing=9,
                         rounds_done=7)
    assert G.to_move(st)[0] == 0
    assert decide(st, "backer", thrift=0.0) == card(ELEPHANT, 6)
    assert decide(st, "backer", thrift=0.0, expect_later=False) == card(ELEPHANT, 1)


def backer_scores(st, o, games, p):
    """float[n, 36]: the backer's choice scored for every card type in ``games`` (``o``: the
    observation of the live games, in order): its own animal's moves count 1, a rival's
    -rival_weight, the explorer's -explorer_weight, and an own card spends thrift per number
    (none in a race's last round)."""
    rows = {int(b): i for i, b in enumerate(o.game)}
    out = np.zeros((len(games), 36))
    for n, b in enumerate(games):
        i = rows[int(b)]
        own, other = line_effect(st, int(b), p.expect_later)
        mine = max(int(o.mine[i]), 0)
        w = np.where(o.in_play, -p.rival_weight, 0.0)
        w[X] = -p.explorer_weight
        w[mine] = 1.0
        thrift = p.thrift if o.round[i] < o.rounds - 1 else 0.0
        for t in range(36):
            d, v = t // 6, t % 6
            out[n, t] = (other[v] * w).sum() + w[d] * own[v] - (thrift * (v + 1) if d == mine
                                                                 else 0.0)
    return out


def test_backer_fast_play_is_the_best_of_its_score():
    players, B = 4, 64
    keys = game_keys(31, players, B)
    st = G.init(G.make_rules(), players, keys.deal)
    seat_rs = keys.seat.reshape(-1).copy()
    rnd, backer = get_strategy(G.id, "random")(), get_strategy(G.id, "backer")()
    checked = 0
    for _ in range(120):
        m = G.to_move(st)
        live = np.flatnonzero(m >= 0)
        lg = G.legal(st)[live]
        o = G.observe(st, live).freeze()
        playing = np.flatnonzero(o.kind == ss.PLAY)
        if playing.size:
            got = ask(backer, G, st, live[playing], seat_rs.copy(), players)
            sc = np.where(lg[playing, :36], backer_scores(st, o, live[playing], backer.params),
                          -np.inf)
            assert lg[playing, got].all()
            assert np.allclose(sc[np.arange(playing.size), got], sc.max(axis=1))
            checked += playing.size
        a = np.zeros(B, np.int64)
        a[live] = rnd.act(o, lg, SeatRandom(seat_rs, live * players + m[live]))
        G.step(st, a)
    assert checked > 1000


def test_backer_spends_no_thrift_in_the_last_round():
    # the last card held is never played: in the last round the 6 goes where it moves most
    r, st = last_to_play([card(ELEPHANT, 6), card(ELEPHANT, 2)])
    assert decide(st, "backer", thrift=5.0) == card(ELEPHANT, 6)


def test_each_race_shuffles_the_racing_cards_again():
    # "The dealer shuffles the racing cards" is part of the setup every race returns to
    B = 64
    st = G.init(G.make_rules(), 3, deal_keys(B, 5))
    first = st.rdeck.copy()
    strat = get_strategy(G.id, "first_legal")()
    seen_second = np.zeros(B, bool)
    second = np.zeros_like(first)
    for _ in range(200):
        m = G.to_move(st)
        live = np.flatnonzero(m >= 0)
        if live.size == 0:
            break
        fresh = (st.g[:, ss.RACE] == 1) & ~seen_second
        second[fresh] = st.rdeck[fresh]
        seen_second |= fresh
        a = np.zeros(B, np.int64)
        a[live] = strat.act(G.observe(st, live), G.legal(st)[live], None)
        G.step(st, a)
    assert seen_second.all()
    assert all(sorted(x) == list(range(12)) for x in second.tolist())
    assert (first != second).any(axis=1).mean() > 0.9
    assert len({tuple(x) for x in second.tolist()}) > 60, "the second race's order varies"


# ---- Worlds for search (docs "Worlds for search") -------------------------------------------

def permute_for_mover(st, rng):
    """A copy of ``st`` whose hidden cards are permuted as each game's mover cannot tell: the
    explorer cards among the other players still holding theirs and the cards set aside, the
    animal cards among the other hands (the extra card a player took stays with it while it has
    it), and the face-down racing cards."""
    cp = G.clone(st, np.arange(len(st.g)))
    mover = G.to_move(st)
    x = st.rules.extra_card
    for b in np.flatnonzero(mover >= 0):
        p = int(mover[b])
        others = [q for q in range(st.n_players) if q != p]
        extra = {q: (int(cp.pp[b, q, ss.MARKER]) * 6 + x - 1 if cp.pp[b, q, ss.EXTRA_HELD] else -1)
                 for q in others}
        xs, an = [], []
        for q in others:
            h = cp.hand[b, q].astype(int)
            if extra[q] >= 0:
                h[extra[q]] -= 1
            if st.rules.reset_deal != "keep" or cp.g[b, ss.RACE] == 0:
                assert h[30:].sum() == cp.pp[b, q, ss.XHELD]
            xs += [t for t in range(30, 36) for _ in range(h[t])]
            an += [t for t in range(30) for _ in range(h[t])]
        xs += [t for t in range(36) for _ in range(cp.pile[b, ss.ASIDE, t])]
        xs = list(rng.permutation(xs))
        if st.rules.reset_deal == "keep" and cp.g[b, ss.RACE] > 0:
            # explorer cards dealt with the rest: any of them may be in a hand or aside
            naside = int(cp.pile[b, ss.ASIDE].sum())
            an, xs = an + xs[naside:], xs[:naside]
        an = list(rng.permutation(an))
        for q in others:
            h = np.zeros(36, np.int8)
            if extra[q] >= 0:
                h[extra[q]] += 1
            for _ in range(cp.pp[b, q, ss.XHELD]):
                h[xs.pop()] += 1
            while h.sum() < cp.pp[b, q, ss.HAND_N]:
                h[an.pop()] += 1
            cp.hand[b, q] = h
        assert not an
        cp.pile[b, ss.ASIDE] = np.bincount(np.array(xs, np.int64), minlength=36)
        k = int(cp.g[b, ss.RC_POS])
        cp.rdeck[b, k:] = rng.permutation(cp.rdeck[b, k:])
    G._refresh(cp, cp.all_games)
    return cp



def _scramble(st, games, rng):
    """What the seat to move in each game cannot see (``permute_for_mover``), dealt again."""
    return permute_for_mover(st, rng)


HEURISTICS = [("backer", {}), ("spoiler", {}), ("projector", {}),
              ("backer", {"claim": "leader", "expect_later": False}),
              ("spoiler", {"expect_later": True, "save_six": 2, "claim": "space"}),
              ("projector", {"late_only": 3, "expect_later": True})]


@pytest.mark.parametrize("players,rules", [(3, {}), (4, {"reset_deal": "keep"}),
                                           (5, {"extra_card": 0, "tie_order": "earlier_ahead"})])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """The other hands, the explorer cards set aside and the face-down racing cards dealt again
    at every decision: no heuristic's action changes."""
    strats = [get_strategy(G.id, n)(**p) for n, p in HEURISTICS]
    assert check_knowledge(G, G.make_rules(rules), players, strats, _scramble, games=8) > 4000


def test_the_knowledge_check_catches_a_policy_that_reads_a_hidden_card():
    def next_hand(st, b):  # the next seat's lowest card held
        q = (int(G.to_move(st)[b]) + 1) % st.n_players
        held = np.flatnonzero(st.hand[b, q])
        return held[0] if held.size else 0

    leaky_policy_is_caught(G, G.make_rules(), 3, get_strategy(G.id, "backer")(), next_hand,
                           _scramble, games=6)

def _play_some(players, steps, B, seed, rules=None):
    return play_mixed(G, G.make_rules(rules or {}), players, ("backer", "random", "spoiler"), B,
                      seed, steps)


@pytest.mark.parametrize("players,steps,rules", [(3, 1, {}), (4, 12, {}), (5, 30, {}),
                                                 (4, 70, {}), (3, 40, {"extra_card": 0}),
                                                 (3, 50, {"reset_deal": "keep"}),
                                                 (4, 70, {"reset_deal": "keep"})])
def test_worlds_of_random_positions(players, steps, rules):
    st = _play_some(players, steps, 30, 200 + steps, rules)
    live = np.flatnonzero(G.to_move(st) >= 0)
    cp = permute_for_mover(st, np.random.default_rng(steps))
    check_worlds(G, st, cp, live[:10])
    games = np.repeat(live[:10], 3)
    seat = G.to_move(st)[games]
    w = G.determinize(st, games, seat, deal_keys(len(games), 9))
    for i, b in enumerate(games):
        conserved(w, i)
        assert (w.hand[i].sum(axis=1) == st.hand[b].sum(axis=1)).all()
        if rules.get("reset_deal") != "keep" or st.g[b, ss.RACE] == 0:
            assert (w.hand[i, :, 30:].sum(axis=1) == st.pp[b, :, ss.XHELD]).all()
        assert w.pile[i, ss.ASIDE].sum() == st.pile[b, ss.ASIDE].sum()
        k = int(st.g[b, ss.RC_POS])
        assert (w.rdeck[i, :k] == st.rdeck[b, :k]).all()
        assert sorted(w.rdeck[i, k:]) == sorted(st.rdeck[b, k:])


def _after_claims(players=4, seed=3):
    """A series with every animal claimed (each on the lowest free space, no steals) and one
    round played: seat 0's worlds."""
    r = G.make_rules()
    st = G.init(r, players, deal_keys(1, seed))
    for a in st.active[:-1]:
        free = np.flatnonzero(G.legal(st)[0, ss.CLAIM0 + a * 10: ss.CLAIM0 + a * 10 + 10])
        act(st, claim(r, int(a), int(free[0]) + 1))
    return r, st


def test_worlds_keep_the_extra_cards_and_the_explorer_cards_played():
    r, st = _after_claims()
    # one round: whoever plays its explorer card, and whoever plays its own extra 6, is seen
    for _ in range(4):
        p = int(G.to_move(st)[0])
        mine = int(st.pp[0, p, ss.MARKER])
        h = st.hand[0, p]
        if p % 2 and h[30:].sum():
            act(st, int(np.flatnonzero(h[30:])[0]) + 30)   # seats 1, 3: the explorer card
        elif p == 2:
            act(st, card(mine, 6))                         # seat 2: a 6 of its own animal
        else:
            act(st, int(np.flatnonzero(h[:30])[0]))
    while G.to_move(st)[0] != 0:
        p = int(G.to_move(st)[0])
        act(st, int(np.flatnonzero(st.hand[0, p])[0]))
    assert st.pp[0, :, ss.XHELD].tolist()[1::2] == [0, 0]
    extra_held = st.pp[0, :, ss.EXTRA_HELD].copy()
    assert extra_held[2] == 0 and extra_held[1] == 1
    n = 400
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 6))
    for q in (1, 2, 3):
        mine = int(st.pp[0, q, ss.MARKER])
        if extra_held[q]:
            assert (w.hand[:, q, card(mine, 6)] >= 1).all(), "the extra 6 seen taken stays"
        assert (w.hand[:, q, 30:].sum(axis=1) == st.pp[0, q, ss.XHELD]).all()
    assert (w.hand[:, 0] == st.hand[0, 0]).all()
    check_worlds(G, st, permute_for_mover(st, np.random.default_rng(3)), [0], worlds_per_game=8)


def test_worlds_deal_each_hidden_card_with_the_rulebook_probability():
    """Seat 0 (the dealer) about to choose, four players: the four explorer cards it has not
    seen lie one in each other hand and one aside; the animal cards it has not seen fill the
    other hands (ten each); the racing cards are face down. Probabilities counted here from the
    rulebook's deal, compared with 20,000 worlds within 4 binomial standard errors."""
    from math import comb
    r = G.make_rules()
    st = G.init(r, 4, deal_keys(1, 11))
    assert G.to_move(st)[0] == 0 and st.g[0, ss.PHASE] == ss.CLAIM
    mine = st.hand[0, 0]
    n = 20000
    w = G.determinize(st, np.zeros(n, np.int64), np.zeros(n, np.int64), deal_keys(n, 12))
    checks = []
    xunseen = [v for v in r.explorer_cards if not mine[card(X, v)]]
    assert len(xunseen) == 4
    checks.append((np.mean(w.hand[:, 2, card(X, xunseen[0])] == 1), 1 / 4))
    checks.append((np.mean(w.pile[:, ss.ASIDE, card(X, xunseen[1])] == 1), 1 / 4))
    # animal cards: the animals in play x deck_cards, less seat 0's; 30 unseen, 10 a hand
    pool = Counter(card(a, v) for a in range(4) for v in r.deck_cards)
    pool -= Counter({t: int(mine[t]) for t in range(30)})
    size = sum(pool.values())
    assert size == 30
    for t in (card(LION, 4), card(ELEPHANT, 1), card(MONKEY, 6)):
        c = pool[t]
        checks.append((np.mean(w.hand[:, 3, t] >= 1), 1 - comb(size - c, 10) / comb(size, 10)))
    checks.append((np.mean(w.rdeck[:, 0] == 5), 1 / 12))
    for freq, p in checks:
        assert abs(freq - p) < 4 * np.sqrt(p * (1 - p) / n), (freq, p)


# ---- Drama (docs "Drama") -------------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 5])
def test_drama_columns_match_a_recount_of_the_running_score(players):
    """The running score after each round: the series points so far plus the points each
    player's animal would get for its place now (recounted from the board in plain Python); at a
    race's end, the series points. The dataset's drama columns equal the numbers of that history
    computed without engine/drama.py."""
    r = G.make_rules()
    B = 30
    keys = game_keys(41 + players, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    strats = [get_strategy(G.id, n)() for n in ("backer", "spoiler", "projector", "random")]
    st = G.init(r, players, keys.deal)
    animals = [int(a) for a in st.active[:-1]]
    history = [[] for _ in range(B)]
    while (G.to_move(st) >= 0).any():
        a = mixed_actions(G, st, strats, seat_rs, players)
        clock = st.g[:, [ss.RACE, ss.ROUND]].copy()
        G.step(st, a)
        for b in np.flatnonzero((st.g[:, [ss.RACE, ss.ROUND]] != clock).any(axis=1)):
            total = [int(x) for x in st.pp[b, :, ss.TOTAL]]
            if st.g[b, ss.RACE] == clock[b, 0]:  # a round ended within the race
                pos = {d: int(st.pos[b, d]) for d in animals + [X]}
                owner = {d: int(st.owner[b, d]) for d in animals}
                now = ref_places(pos, owner, r.race_points)
                total = [t + now[q] for q, t in enumerate(total)]
            history[b].append(total)
    out = G.outcome(st)
    changes = 0
    for b in range(B):
        assert len(history[b]) == r.races * r.rounds
        changes += assert_drama(out, b, history[b], lower_wins=False)
    assert changes > B


# ---- Searchable rules -----------------------------------------------------------------------

def test_every_declared_search_value_makes_rules_that_play():
    check_search_space(G, (3, 5), left_out=("animals", "explorer_cards", "deck_cards",
                                            "racing_cards", "race_points"))


def test_clone_plays_the_same_games():
    check_clone_plays_the_same(G, _play_some(4, 30, 12, 5))


# ---- the running score (issue 16: what a depth-limited search scores its worlds by) -------------

def _running_recount(st, players):
    """Plain Python, from "Scoring Each Race" applied to the board as it stands: the series
    points so far, plus, while the animals race, 6 / 4 / 3 / 2 / 1 / 0 for the place of the
    player's animal counting every ducky ahead of it, Ducktor Livingstone included."""
    points = (6, 4, 3, 2, 1, 0)
    out = [int(st.pp[0, p, ss.TOTAL]) for p in range(players)]
    if st.g[0, ss.PHASE] == ss.PLAY:
        on_board = [d for d in range(6) if st.owner[0, d] >= 0] + [X]
        for d in on_board[:-1]:
            ahead = sum(1 for e in on_board if st.pos[0, e] > st.pos[0, d])
            out[st.owner[0, d]] += points[ahead]
    return [out]


def test_running_score_mid_race_adds_the_places_now_to_the_series_points():
    # the examples' board (elephant 8, zebra 7, monkey 4, tiger 3, explorer 2) in the second race,
    # after a first race that left 10, 7, 4, 12
    r = G.make_rules({"animals": ["elephant", "monkey", "tiger", "zebra"]})
    st = G.init(r, 4, deal_keys(1, 0), log=True)
    hands = {0: [card(X, 5)], 1: [card(ZEBRA, 3)], 2: [card(TIGER, 2)], 3: [card(TIGER, 3)]}
    G.stack(st, 0, pos={ELEPHANT: 8, ZEBRA: 7, MONKEY: 4, TIGER: 3, X: 2},
            owner={ELEPHANT: 0, ZEBRA: 1, MONKEY: 2, TIGER: 3}, hands=hands, racing=0,
            rounds_done=3, race=1, totals=[10, 7, 4, 12])
    # places now: elephant 1st (6), zebra 2nd (4), monkey 3rd (3), tiger 4th (2), explorer 5th
    assert G.running_score(st).tolist() == [[16, 11, 7, 14]] == _running_recount(st, 4)
    for t in (card(X, 5), card(ZEBRA, 3), card(TIGER, 2)):
        act(st, t)                   # the line fills: nobody moves until the round is played
        assert G.running_score(st).tolist() == [[16, 11, 7, 14]]
    act(st, card(TIGER, 3))
    # Examples C-F: zebra 9, tiger 8, elephant 7, explorer 5, monkey 4
    assert G.running_score(st).tolist() == [[13, 13, 5, 16]] == _running_recount(st, 4)


def test_running_score_while_choosing_animals_is_the_series_points_alone():
    r, st = last_round({ELEPHANT: 20, LION: 10, MONKEY: 15, X: 2})
    # the last round of race 1: elephant 1st, monkey 2nd, lion 3rd, explorer last
    assert G.running_score(st).tolist() == [[5 + 6, 7 + 3, 9 + 4]] == _running_recount(st, 3)
    play_round(st, {0: card(ELEPHANT, 1), 1: card(LION, 1), 2: card(MONKEY, 1)})
    assert st.g[0, ss.PHASE] == ss.CLAIM and st.g[0, ss.RACE] == 1
    assert G.running_score(st).tolist() == [[11, 10, 13]] == _running_recount(st, 3)
    # the first claim puts one animal on the board: still no places, the race has not begun
    act(st, int(np.flatnonzero(G.legal(st)[0])[0]))
    assert st.g[0, ss.PHASE] == ss.CLAIM
    assert G.running_score(st).tolist() == [[11, 10, 13]]


def test_the_search_defaults_at_four_search_backers_top_two():
    """Issue 32: at 4 players a play-out is longer, so the search plays backer's top 2 (SEARCH's
    "at" row; 2,196 decisions a second, 0.33 ± 0.03 against three backer, docs/search.md); at 3
    and 5 the top 3, and every other knob is the same at every count."""
    from strategies.search import Search

    three, four, five = (Search().settings("safari_sprint", n) for n in (3, 4, 5))
    assert (three.top_k, four.top_k, five.top_k) == (3, 2, 3)
    assert four.model_copy(update={"top_k": 3}) == three == five
    assert Search(top_k=3).settings("safari_sprint", 4).top_k == 3   # a knob set on the player wins
