"""Savannah: the rulebook's worked examples (B: phase one; C: phase two) from constructed
positions, each rule on its own, the unbounded grid, hidden information, and properties over many
random games checked against an independent re-implementation of the rules (below)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.engine.protocol import RulesError
from safari_sim.games import get_game
from safari_sim.games.savannah import card_of, turn as T
from safari_sim.games.savannah.rules import card_name
from strategies import get_strategy
from strategies.base import random_legal

from heuristics import ask, check_knowledge, choose, leaky_policy_is_caught
from mixed_play import assert_drama, check_search_space
from worlds_check import check_worlds

G = get_game("savannah")
R = G.make_rules()


def C(name, second=False):
    return card_of(name, second)


def cards(*names):
    """Card ids for names, taking the second copy when a name repeats."""
    seen, out = set(), []
    for n in names:
        out.append(C(n, n in seen))
        seen.add(n)
    return out


def cands(st, b=0):
    o = G.observe(st, np.array([b]))
    n = int(o.n_cand[0])
    return [(int(o.slot[0, j]), int(o.card[0, j]), int(o.y[0, j]), int(o.x[0, j]),
             int(o.points[0, j])) for j in range(n)]


def play(st, card, y, x):
    """The current player plays ``card`` at (y, x); returns the points the candidate listed and
    the player's score change."""
    p = int(G.to_move(st)[0])
    before = int(st.score[0, p])
    found = [j for j, c in enumerate(cands(st)) if c[1] == card and (c[2], c[3]) == (y, x)]
    assert found, f"{card_name(card)} at ({y},{x}) should be legal"
    j = found[0]
    listed = cands(st)[j][4]
    assert G.legal(st)[0, j]
    G.step(st, np.array([j]))
    return listed, int(st.score[0, p]) - before


def legal_at(st, card, y, x):
    return any(c[1] == card and (c[2], c[3]) == (y, x) for c in cands(st))


def conserved(st, b=0):
    z = G.zones(st, b)
    allc = sorted(c for zone in z.values() for c in zone)
    assert allc == list(range(st.rules.n_cards)), z


# ---- Example B (phase one), three players: Debra seat 0, Kevin 1, Amy 2 --------------------------

def example_b():
    E = {"E2": C("2-Elephant"), "E2b": C("2-Elephant", True)}
    layout = {(-1, 0): C("4-Lion"), (0, 1): C("5-Elephant"), (1, 2): E["E2"],
              (2, 2): C("2-Tiger"), (3, 3): C("2-Lion"), (3, 4): C("2-Tiger", True)}
    hands = [[C("3-Elephant"), C("2-Monkey"), C("1-Zebra"), C("3-Zebra")],
             [C("2-Zebra"), C("1-Monkey"), C("3-Monkey"), C("4-Monkey")],
             [E["E2b"], C("6-Lion"), C("5-Monkey"), C("6-Monkey")]]
    pile1 = [C("2-Explorer"), C("3-Explorer"), C("1-Tiger"), C("3-Tiger"), C("4-Tiger"),
             C("5-Tiger")]
    pile2 = [C("6-Tiger"), C("1-Explorer"), C("6-Zebra")]
    st = G.arrange(R, 3, layout, hands, pile1, pile2, phase=T.ONE, cur=0)
    return st


def test_example_b_phase_one_scores():
    st = example_b()
    conserved(st)
    # Debra: 3-Elephant, 2 for the row of elephants and 2 for the column of elephants
    assert play(st, C("3-Elephant"), 1, 1) == (4, 4)
    assert st.g[0, T.KIND] == T.PLACE and G.to_move(st)[0] == 1
    # Kevin: 2-Zebra, 3 for the row of 2s
    assert play(st, C("2-Zebra"), 3, 5) == (3, 3)
    # Amy: 2-Elephant, 2 for the row of 2s and 3 for the column of elephants
    assert play(st, C("2-Elephant", True), 2, 1) == (5, 5)
    # Debra: 2-Monkey, 3 for the column of 2s and 1 for the all-different row 5-Elephant 2-Monkey
    assert play(st, C("2-Monkey"), 0, 2) == (4, 4)
    conserved(st)
    assert st.g[0, T.N_FD] == 0, "no space was unplayable so far"
    # the text has Amy follow (Kevin's turn is not told): give Amy the turn
    st.g[0, T.CUR] = 2
    G.relist(st)
    # Amy: 6-Lion, 2 for the column of lions and 2 for extending the all-different row
    listed, gained = play(st, C("6-Lion"), 0, 0)
    assert listed == 4
    # ...and the space at the left of the top elephants' row is no longer playable: a lion (its
    # column) and an elephant (its row) at once. One point, and a card from each pile to choose.
    assert gained == 4 + 1
    assert st.g[0, T.KIND] == T.KEEP and G.to_move(st)[0] == 2
    o = G.observe(st, np.array([0]))
    assert o.kind[0] == 1 and o.n_cand[0] == 2
    assert (o.card[0, 0], o.card[0, 1]) == (C("3-Explorer"), C("6-Zebra"))
    assert (o.y[0, 0], o.x[0, 0]) == (1, 0)
    conserved(st)
    # keep the 2nd pile's 6-Zebra (back on top of the 1st pile); 3-Explorer goes face down
    G.step(st, np.array([1]))
    assert st.board[0, st.cell(1, 0)] == -1                      # BLOCKED
    assert st.fd_card[0, 0] == C("3-Explorer") and st.g[0, T.N_FD] == 1
    # Step D: Amy draws the top of the 1st pile, the card she kept
    assert C("6-Zebra") in st.hand[0, 2].tolist()
    assert (st.g[0, T.N1], st.g[0, T.N2]) == (1, 2) and st.g[0, T.PHASE] == T.ONE
    assert G.to_move(st)[0] == 0
    assert st.score[0].tolist() == [8, 3, 10]
    conserved(st)
    # the blocked space takes no card now
    assert not any((c[2], c[3]) == (1, 0) for c in cands(st))


# ---- Example C (phase two): Kevin seat 0, Debra 1, Amy 2 -----------------------------------------

def example_c():
    layout = {(0, 1): C("6-Elephant"), (0, 2): C("5-Elephant"),
              (1, 0): C("1-Elephant"), (1, 1): C("3-Lion"), (1, 2): C("6-Monkey"),
              (2, 0): C("2-Lion"), (2, 1): C("2-Monkey"), (2, 2): C("2-Zebra")}
    hands = [[C("2-Tiger"), C("1-Tiger")], [C("4-Zebra"), C("3-Tiger")],
             [C("4-Elephant"), C("5-Tiger")]]
    return G.arrange(R, 3, layout, hands, pile1=[C("6-Tiger"), C("4-Tiger")], phase=T.TWO, cur=0)


def test_example_c_phase_two_removals():
    st = example_c()
    conserved(st)
    boxed = int(G.outcome(st).stats["phase_two_points"][0])
    # Kevin: 2-Tiger ends the row of 2s: the whole matching line goes, 4 points
    assert play(st, C("2-Tiger"), 2, 3) == (4, 4)
    table = {tuple(map(int, st.xy(q))) for q in st.up_pos[0, :st.g[0, T.N_UP]]}
    assert table == {(0, 1), (0, 2), (1, 0), (1, 1), (1, 2)}
    conserved(st)
    # Debra: 4-Zebra makes the all-different row 1-E 3-L 6-M 4-Z: all but her card go, 3 points
    assert play(st, C("4-Zebra"), 1, 3) == (3, 3)
    table = {tuple(map(int, st.xy(q))) for q in st.up_pos[0, :st.g[0, T.N_UP]]}
    assert table == {(0, 1), (0, 2), (1, 3)}
    # Amy: 4-Elephant crosses the elephants' row and the 4s' column: both go, 4 points
    assert play(st, C("4-Elephant"), 0, 3) == (4, 4)
    assert st.g[0, T.N_UP] == 0
    # "The board is now empty": the game is over
    assert G.to_move(st)[0] == -1 and st.g[0, T.CLEARED] == 1
    assert st.score[0].tolist() == [4, 3, 4]
    assert G.outcome(st).win[0].tolist() == [0.5, 0, 0.5]
    # the example's removals, 4 + 3 + 4 cards, went to the box (which holds the cards the
    # position set aside too): each a point of the second phase
    assert G.outcome(st).stats["phase_two_points"][0] == boxed + 11
    conserved(st)


# ---- Beginning the First Phase -----------------------------------------------------------------

def test_the_66_cards():
    """Components: five animals with two sets of 1-6 each, and one set of explorer cards 1-6
    (a sixth kind in Savannah, see docs/rules/savannah.md)."""
    from safari_sim.games.savannah.rules import copies
    names = [card_name(c) for c in range(66)]
    count = {}
    for n in names:
        count[n] = count.get(n, 0) + 1
    for a in ("Elephant", "Lion", "Monkey", "Tiger", "Zebra"):
        for k in range(1, 7):
            assert count.pop(f"{k}-{a}") == 2
    for k in range(1, 7):
        assert count.pop(f"{k}-Explorer") == 1
    assert not count
    assert copies(R).sum() == 66 and copies(G.make_rules({"explorer_cards": False})).sum() == 60
    # the engine reads animal and number off the card the way the names do
    for c in range(66):
        assert (c // 12, c % 6 + 1) == (ANIMAL_NAMES.index(kind(c)[0]), kind(c)[1])
        assert card_of(card_name(c), c % 12 >= 6) == c


def test_deal_piles_and_opening():
    st = G.init(R, 3, deal_keys(5, 3))
    assert (st.hand_n == 5).all()
    n1, n2 = R.pile_sizes(3)
    assert (n1, n2) == (26, 25) and (st.g[:, T.N1] == 26).all() and (st.g[:, T.N2] == 25).all()
    for b in range(5):
        conserved(st, b)
    # the dealer (seat 0) places any card: one space, each card of the hand
    c = cands(st)
    assert len(c) == 5 and {(y, x) for _, _, y, x, _ in c} == {(0, 0)}
    G.step(st, np.zeros(5, np.int64))
    # seat 1: touching that card on one corner only
    assert {(y, x) for _, _, y, x, _ in cands(st)} == {(-1, -1), (-1, 1), (1, -1), (1, 1)}
    first = [j for j, cc in enumerate(cands(st)) if (cc[2], cc[3]) == (1, 1)][0]
    G.step(st, np.full(5, first))
    # seat 2: on a corner of exactly one card, touching no other (so not (0, 1) / (1, 0) etc.)
    assert {(y, x) for _, _, y, x, _ in cands(st)} == {(-1, -1), (-1, 1), (1, -1), (2, 0), (2, 2),
                                                       (0, 2)}
    G.step(st, np.zeros(5, np.int64))
    # no draw in the opening; the game begins with the dealer
    assert (st.hand_n == 4).all() and (G.to_move(st) == 0).all()
    assert (st.g[:, T.PHASE] == T.ONE).all() and (st.score == 0).all()


def test_opening_draw_option():
    r = G.make_rules({"opening_draw": True})
    st = G.init(r, 2, deal_keys(3, 3))
    G.step(st, np.zeros(3, np.int64))
    G.step(st, np.zeros(3, np.int64))
    assert (st.hand_n == 5).all()


# ---- Step A: placement legality ----------------------------------------------------------------

@pytest.mark.parametrize("line, card, ok, pts", [
    (["1-Elephant", "2-Elephant"], "3-Elephant", True, 3),     # A: same animal
    (["1-Elephant", "2-Elephant"], "2-Elephant", False, 0),    # number repeated
    (["1-Elephant", "2-Elephant"], "3-Lion", False, 0),
    (["2-Elephant", "2-Lion"], "2-Monkey", True, 3),           # B: same number
    (["2-Elephant", "2-Lion"], "2-Elephant", False, 0),        # animal repeated
    (["1-Elephant", "2-Lion"], "3-Monkey", True, 2),           # C: all different, one less
    (["1-Elephant", "2-Lion"], "3-Elephant", False, 0),
    (["1-Elephant", "2-Lion"], "2-Monkey", False, 0),
    (["4-Lion"], "4-Lion", False, 0),                           # the other copy: identical
    (["4-Lion"], "4-Explorer", True, 2),                        # explorers: a sixth animal
    (["4-Lion"], "1-Explorer", True, 1),
])
def test_line_rules(line, card, ok, pts):
    layout = {(0, i): c for i, c in enumerate(cards(*line))}
    c = C(card, card in line)
    st = G.arrange(R, 2, layout, [[c], [C("6-Zebra")]], pile1=[C("5-Zebra")], pile2=[])
    assert legal_at(st, c, 0, len(line)) == ok
    assert legal_at(st, c, 0, -1) == ok                         # either end of the row
    if ok:
        assert [cc[4] for cc in cands(st) if (cc[2], cc[3]) == (0, len(line))] == [pts]
    # on a corner only, any card goes, for no points
    assert legal_at(st, c, 1, len(line)) and legal_at(st, c, -1, -1)
    assert not legal_at(st, c, 2, 0) and not legal_at(st, c, 0, 0)   # not touching / taken


def test_both_lines_must_hold_and_gaps_join_lines():
    # a card at (0,0) joins the row 2-L 3-L and the column under 1-L
    layout = {(-1, 0): C("1-Lion"), (0, 1): C("2-Lion"), (0, 2): C("3-Lion")}
    h = [C("4-Lion"), C("1-Lion", True), C("5-Elephant")]
    st = G.arrange(R, 2, layout, [h, [C("6-Zebra")]], pile1=[C("5-Zebra")], pile2=[])
    assert [c[4] for c in cands(st) if (c[1], c[2], c[3]) == (C("4-Lion"), 0, 0)] == [3 + 2]
    assert not legal_at(st, C("1-Lion", True), 0, 0)   # the row is fine, the column is not
    assert not legal_at(st, C("5-Elephant"), 0, 0)     # the column is fine, the row is not
    # a space between two runs joins them into one line: 2-L 3-L _ 5-L
    layout = {(0, 0): C("2-Lion"), (0, 1): C("3-Lion"), (0, 3): C("5-Lion")}
    st = G.arrange(R, 2, layout, [[C("4-Lion"), C("6-Lion"), C("4-Tiger")], [C("6-Zebra")]],
                   pile1=[C("5-Zebra")], pile2=[])
    assert [c[4] for c in cands(st) if (c[1], c[2], c[3]) == (C("4-Lion"), 0, 2)] == [4]
    assert not legal_at(st, C("4-Tiger"), 0, 2)


# ---- Step C: unplayable spaces -----------------------------------------------------------------

def test_unplayable_when_only_cards_on_the_table_fit():
    # (0,2) must be an elephant with a number other than 1-2 (row) and a 3 (column of 3s)...:
    # the only fitting card type is 3-Elephant; both copies face up elsewhere -> unplayable.
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant"), (7, 7): C("3-Elephant", True)}
    # (the far cards just lie on the table; this test is about the definition)
    hand = [C("3-Tiger"), C("6-Zebra")]
    st = G.arrange(R, 2, layout, [hand, [C("6-Monkey")]], pile1=[C("5-Zebra"), C("4-Zebra")],
                   pile2=[C("1-Zebra")])
    # play 3-Tiger at (2,2): column 3-L 3-T (B); now (0,2) needs a 3, an elephant, not L/T
    play(st, C("3-Tiger"), 2, 2)
    assert st.g[0, T.KIND] == T.KEEP
    assert {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]} == {(0, 2)}
    # with one 3-Elephant in a hand instead of on the table, the space is playable
    layout2 = dict(layout)
    del layout2[(7, 7)]
    st = G.arrange(R, 2, layout2, [hand, [C("3-Elephant", True)]],
                   pile1=[C("5-Zebra"), C("4-Zebra")], pile2=[C("1-Zebra")])
    play(st, C("3-Tiger"), 2, 2)
    assert st.g[0, T.KIND] == T.PLACE and st.g[0, T.N_UNPL] == 0


def buried_position(mode, buried_by):
    """(0,2) takes only a 3-Elephant once 3-Tiger goes to (2,2); one 3-Elephant is face up, the
    other lies face down (buried by seat ``buried_by``)."""
    r = G.make_rules({"buried_on_table": mode})
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant")}
    return G.arrange(r, 2, layout, [[C("3-Tiger"), C("6-Zebra")], [C("6-Monkey")]],
                     pile1=[C("5-Zebra"), C("4-Zebra")], pile2=[C("1-Zebra")],
                     face_down={(5, 6): C("3-Elephant", True)}, buried_by={(5, 6): buried_by})


@pytest.mark.parametrize("mode, buried_by, claimed", [
    ("none", 0, False),     # the default: only face-up cards are "already on the table"
    ("own", 0, True),       # the finder buried it: it knows the card is on the table
    ("own", 1, False),      # the other player's face-down card: the finder cannot know it
    ("all", 1, True),
])
def test_face_down_cards_on_the_table(mode, buried_by, claimed):
    st = buried_position(mode, buried_by)
    play(st, C("3-Tiger"), 2, 2)
    found = {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]}
    assert (st.g[0, T.KIND] == T.KEEP) == claimed
    assert found == ({(0, 2)} if claimed else set())
    assert int(st.score[0, 0]) == 2 + claimed


def test_a_card_buried_now_can_make_another_space_unplayable():
    """With ``own``, the card a claim buries counts at once: (-6,-6) takes only the single
    1-Explorer, which the first claim buries, so the finder claims (-6,-6) too."""
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant"), (7, 7): C("3-Elephant", True),
              (-6, -5): C("2-Explorer"), (-6, -4): C("3-Explorer"), (-5, -6): C("1-Lion"),
              (-4, -6): C("1-Monkey")}
    for mode, n in (("none", 1), ("own", 2), ("all", 2)):
        r = G.make_rules({"buried_on_table": mode})
        st = G.arrange(r, 2, layout, [[C("3-Tiger"), C("5-Zebra")], [C("6-Monkey")]],
                       pile1=[C("4-Zebra"), C("6-Zebra")],
                       pile2=[C("2-Zebra"), C("1-Explorer")])
        play(st, C("3-Tiger"), 2, 2)
        o = G.observe(st, np.array([0]))
        assert (o.card[0, 0], o.card[0, 1]) == (C("6-Zebra"), C("1-Explorer"))
        G.step(st, np.array([0]))      # bury the 1-Explorer
        claimed = 1
        while st.g[0, T.KIND] == T.KEEP:
            assert {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]} == {
                (-6, -6)}
            G.step(st, np.array([0]))
            claimed += 1
        assert claimed == n and st.g[0, T.N_FD] == n and int(st.score[0, 0]) == 2 + n
        conserved(st)


@pytest.mark.parametrize("touch", [True, False])
def test_a_card_may_touch_only_a_face_down_card(touch):
    """Step A: "This card must touch at least one card already on the table". With
    ``touch_face_down`` (the default) a face-down card is such a card: (2,2) touches only the
    face-down card at (1,1); it scores nothing (a face-down card is in no line). When phase one
    ends the face-down card leaves, and so does the space that only it made playable."""
    r = G.make_rules({"touch_face_down": touch})
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant")}
    hands = [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra"), C("5-Monkey")]]
    st = G.arrange(r, 2, layout, hands, pile1=[C("5-Zebra"), C("4-Zebra")],
                   pile2=[C("1-Zebra"), C("2-Zebra")], face_down={(1, 1): C("4-Tiger")})
    for sp in ((2, 2), (2, 1), (2, 0)):
        assert legal_at(st, C("1-Lion"), *sp) == touch, sp
    assert legal_at(st, C("1-Lion"), 1, 0) and not legal_at(st, C("1-Lion"), 1, 1)
    if touch:
        assert play(st, C("1-Lion"), 2, 2) == (0, 0)
        assert st.board[0, st.cell(2, 2)] == C("1-Lion") + 1
    else:
        play(st, C("1-Lion"), 1, 0)
    # the other player draws the 1st pile's last card: phase two, (1,1) open again
    play(st, C("6-Zebra"), -1, -1)
    assert st.g[0, T.PHASE] == T.TWO and st.g[0, T.N_FD] == 0
    p = int(G.to_move(st)[0])
    assert p == 0
    assert legal_at(st, C("3-Elephant"), 1, 1)                  # reopened: "playable again"
    # the spaces below the face-down card touch no face-up card now (with touch, the 1-Lion
    # at (2,2) keeps its own neighbours open)
    if not touch:
        assert not any((y, x) in {(2, 2), (2, 3)} for _, _, y, x, _ in cands(st))
    else:
        assert legal_at(st, C("3-Elephant"), 3, 3)
        assert not any((y, x) == (2, 0) for _, _, y, x, _ in cands(st))
    conserved(st)


def two_unplayable(**rules):
    """Lions' columns above and below a gap at (0,0)-(1,0); 6-Elephant at (1,1) makes (1,0) need
    an elephant (row) and a lion (column); (0,0) needs both already."""
    r = G.make_rules(rules)
    layout = {(-2, 0): C("1-Lion"), (-1, 0): C("2-Lion"), (0, 1): C("1-Elephant"),
              (0, 2): C("2-Elephant"), (2, 0): C("3-Lion"), (3, 0): C("4-Lion"),
              (1, 2): C("5-Elephant")}
    hand = [C("6-Elephant"), C("6-Zebra")]
    return r, G.arrange(r, 2, layout, [hand, [C("6-Monkey")]],
                        pile1=[C("1-Zebra"), C("2-Zebra")],
                        pile2=[C("3-Zebra"), C("4-Zebra"), C("5-Zebra")])


def test_every_unplayable_space_is_claimed_one_by_one():
    r, st = two_unplayable()
    listed, gained = play(st, C("6-Elephant"), 1, 1)
    assert listed == 4
    spaces = {tuple(map(int, st.xy(q))) for q in st.unpl[0, :st.g[0, T.N_UNPL]]}
    assert spaces == {(0, 0), (1, 0)}
    claimed = 0
    while st.g[0, T.KIND] == T.KEEP:
        G.step(st, np.array([0]))
        claimed += 1
        conserved(st)
    assert claimed == 2 == st.g[0, T.N_FD] and int(st.score[0, 0]) == 4 + 2
    assert st.g[0, T.N2] == 1                   # a card from the 2nd pile for each
    # the rules field: at most one a turn
    r, st = two_unplayable(max_claims=1)
    play(st, C("6-Elephant"), 1, 1)
    G.step(st, np.array([0]))
    assert st.g[0, T.KIND] == T.PLACE and st.g[0, T.N_FD] == 1
    # no claim without a card in the 2nd pile
    r = G.make_rules()
    st = G.arrange(r, 2, {(k[0], k[1]): v for k, v in zip(
        [(-2, 0), (-1, 0), (0, 1), (0, 2), (2, 0), (3, 0), (1, 2)],
        cards("1-Lion", "2-Lion", "1-Elephant", "2-Elephant", "3-Lion", "4-Lion",
              "5-Elephant"))}, [[C("6-Elephant")], [C("6-Monkey")]],
        pile1=[C("1-Zebra"), C("2-Zebra")], pile2=[])
    play(st, C("6-Elephant"), 1, 1)
    assert st.g[0, T.KIND] == T.PLACE and st.score[0, 0] == 4


# ---- Ending the First Phase / the Second Phase -------------------------------------------------

def test_phase_one_ends_with_the_first_pile_and_spaces_reopen():
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra")]],
                   pile1=[C("5-Zebra")], pile2=[C("1-Zebra"), C("2-Zebra")],
                   face_down={(1, 1): C("4-Tiger")})
    play(st, C("3-Elephant"), 0, 2)
    assert st.g[0, T.PHASE] == T.TWO and st.g[0, T.N_FD] == 0
    assert st.board[0, st.cell(1, 1)] == -2                    # reopened (OPEN)
    assert sorted(st.pile1[0, :st.g[0, T.N1]].tolist()) == sorted(
        [C("1-Zebra"), C("2-Zebra"), C("4-Tiger")]) and st.g[0, T.N2] == 0
    assert G.to_move(st)[0] == 1                                # play continues with the next
    assert legal_at(st, C("6-Zebra"), 1, 1)
    conserved(st)
    # "Shuffle these cards into the second deck": the new draw pile's order depends on chance
    orders = set()
    for seed in range(12):
        st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra")]],
                       pile1=[C("5-Zebra")], pile2=[C("1-Zebra"), C("2-Zebra")],
                       face_down={(1, 1): C("4-Tiger")}, seed=seed)
        play(st, C("3-Elephant"), 0, 2)
        orders.add(tuple(st.pile1[0, :st.g[0, T.N1]].tolist()))
    assert len(orders) > 2


def test_phase_two_ends_when_every_hand_is_empty():
    layout = {(0, 0): C("1-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Tiger")], [C("6-Zebra")]], phase=T.TWO)
    play(st, C("3-Tiger"), 1, 1)        # a corner: nothing removed
    assert G.to_move(st)[0] == 1
    play(st, C("6-Zebra"), -1, -1)
    assert G.to_move(st)[0] == -1 and st.g[0, T.CLEARED] == 0 and st.g[0, T.N_UP] == 3
    # a player with no cards is skipped
    st = G.arrange(R, 3, layout, [[C("3-Tiger")], [], [C("6-Zebra")]], phase=T.TWO)
    play(st, C("3-Tiger"), 1, 1)
    assert G.to_move(st)[0] == 2


def test_phase_two_single_line_all_different_keeps_the_played_card():
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion")}
    st = G.arrange(R, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], pile1=[C("4-Tiger")],
                   phase=T.TWO)
    assert play(st, C("3-Monkey"), 0, 2) == (2, 2)
    assert st.g[0, T.N_UP] == 1 and st.board[0, st.cell(0, 2)] == C("3-Monkey") + 1
    assert C("4-Tiger") in st.hand[0, 0].tolist()              # draw a card to end the turn
    # a crossing of two all-different lines: all but the played card
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion"), (1, 2): C("4-Tiger"),
              (2, 2): C("5-Zebra")}
    st = G.arrange(R, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], phase=T.TWO)
    assert play(st, C("3-Monkey"), 0, 2) == (4, 4)
    assert st.g[0, T.N_UP] == 1
    # a crossing of a matching row (elephants) and an all-different column: "at least one of
    # them is a matching line": both lines go, the played card too (3 + 2 - 1 shared = 4)
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("4-Lion"),
              (3, 3): C("6-Zebra")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant")], [C("6-Monkey")]], phase=T.TWO)
    assert play(st, C("3-Elephant"), 0, 2) == (4, 4)
    assert st.g[0, T.N_UP] == 1 and st.board[0, st.cell(3, 3)] == C("6-Zebra") + 1
    conserved(st)


# ---- The Playing Space: no borders -------------------------------------------------------------

def test_a_diagonal_of_every_card_fits():
    # the most spread-out layout there is: every card on one diagonal, touching by corners
    deck = list(range(66))
    layout = {(i, i): deck[i] for i in range(65)}
    st = G.arrange(R, 2, layout, [[deck[65]], []], phase=T.TWO)
    spots = {(c[2], c[3]) for c in cands(st)}
    assert (65, 65) in spots and (-1, -1) in spots and (64, 63) in spots
    assert st.S >= 2 * 66 + 3
    play(st, deck[65], 65, 65)          # the farthest space there can ever be
    assert st.g[0, T.ERR] == 0


class Farthest:
    """Always the candidate farthest down and right: stretches the layout as far as it goes."""
    label = "farthest"

    def reset(self, batch, n_players):
        pass

    def act(self, obs, legal, rng):
        return np.argmax(np.where(obs.valid, obs.y + obs.x, -10**6), axis=1)


def test_layout_stretched_to_the_limit_plays_out():
    res = play_batch(G, R, 2, [Farthest()], np.zeros((8, 2), int), game_keys(1, 2, 8),
                     log=True)
    ev = res.state.ev
    reach = max(int(ev[b, i, 3]) + int(ev[b, i, 4]) for b in range(8)
                for i in range(res.state.g[b, T.NEV]) if ev[b, i, 0] == T.E_PLACE)
    assert reach >= 60 and (res.state.g[:, T.ERR] == 0).all()


# ---- An independent reading of the rules, to check whole games against -----------------------
# Plain Python from the rulebook, sharing nothing with the kernels: a card is (animal, number)
# read off its printed name, the table a dict of spaces, and Ref steps one game as the text says.

ANIMAL_NAMES = ["Elephant", "Lion", "Monkey", "Tiger", "Zebra", "Explorer"]
COPIES = {(a, n): (1 if a == "Explorer" else 2) for a in ANIMAL_NAMES for n in range(1, 7)}
NEAR = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]


@functools.lru_cache(maxsize=None)
def kind(c):
    """(animal, number) of card c, read from its printed name."""
    n, a = card_name(c).split("-")
    return a, int(n)


def line_rule(line):
    """(obeys A, B or C, matches in a feature) for a list of (animal, number)."""
    an = {a for a, _ in line}
    nn = {n for _, n in line}
    a_ = len(an) == 1 and len(nn) == len(line)
    b_ = len(nn) == 1 and len(an) == len(line)
    c_ = len(an) == len(line) and len(nn) == len(line)
    return a_ or b_ or c_, a_ or b_


def runs(board, y, x):
    """The row and the column through (y, x): the unbroken runs of face-up cards, as lists of
    spaces, (y, x) included."""
    out = []
    for dy, dx in ((0, 1), (1, 0)):
        line = [(y, x)]
        for s in (-1, 1):
            k = 1
            while (y + s * k * dy, x + s * k * dx) in board:
                line.append((y + s * k * dy, x + s * k * dx))
                k += 1
        out.append(line)
    return out


def placed_value(board, y, x, card, phase, line_point=1, less=1, removal=1):
    """Phase one: the points of playing ``card`` at (y, x); phase two: the spaces it clears
    (with the points). Touching only on corners: no line, nothing."""
    b2 = dict(board)
    b2[(y, x)] = card
    lines = [ln for ln in runs(b2, y, x) if len(ln) > 1]
    rules = [line_rule([kind(b2[sp]) for sp in ln]) for ln in lines]
    assert all(ok for ok, _ in rules)
    if phase == 1:
        return sum(len(ln) * line_point - (0 if m else less) for ln, (_, m) in zip(lines, rules)), set()
    gone = set()
    for ln in lines:
        gone |= set(ln)
    if lines and not any(m for _, m in rules):
        gone.discard((y, x))                # every line all different: the played card stays
    return len(gone) * removal, gone


class Ref:
    """One game of Savannah stepped from the rulebook, in plain Python."""

    def __init__(self, rules, players, hands, pile1, pile2):
        self.r, self.P = rules, players
        self.up = {}                    # space -> face-up card
        self.down = {}                  # space -> (face-down card, the seat that buried it)
        self.hands = [set(h) for h in hands]
        self.pile1, self.pile2 = list(pile1), list(pile2)   # bottom .. top
        self.box = set()
        self.score = [0] * players
        self.found = [0] * players
        self.placed = 0
        self.phase = 0                  # 0 the opening placements, 1, 2; 3 over
        self.cur = 0                    # "The dealer chooses a card ..."
        self.claim = None               # (card from the 1st pile, card from the 2nd) to choose
        self.claims_this_turn = 0
        self.cleared = False
        self.reshuffled = False
        self.due = set()

    # Step A
    def on_table(self, sp):
        return sp in self.up or (self.r.touch_face_down and sp in self.down)

    def legal(self):
        """{(card, space): value now} the player to move may play (space None: the first card)."""
        hand = self.hands[self.cur]
        if not self.up:
            return {(c, None): 0 for c in hand}
        spaces = {(y + dy, x + dx) for (y, x) in list(self.up) + list(self.down)
                  for dy, dx in NEAR}
        out = {}
        for sp in spaces:
            if sp in self.up or sp in self.down:
                continue
            near = [(sp[0] + dy, sp[1] + dx) for dy, dx in NEAR]
            if self.phase == 0:
                # "touching one other card on one corner": exactly one card, diagonally
                t = [n for n in near if n in self.up]
                if len(t) == 1 and t[0][0] != sp[0] and t[0][1] != sp[1]:
                    out.update({(c, sp): 0 for c in hand})
                continue
            if not any(self.on_table(n) for n in near):
                continue
            lines = self.lines_at(sp)
            for c in hand:
                v = self.value(lines, kind(c))
                if v is not None:
                    out[(c, sp)] = v
        return out

    def lines_at(self, sp):
        """The (animal, number)s of the face-up runs beside sp in its row and its column."""
        return [[kind(self.up[q]) for q in ln if q != sp] for ln in runs(self.up, *sp)]

    def value(self, lines, kd):
        """None if a card kd may not join these lines, else what it scores: phase one, each
        line's length (an all-different line one less); phase two, the cards it removes."""
        made = [line_rule(ln + [kd]) for ln in lines if ln]
        if not all(ok for ok, _ in made):
            return None
        if self.phase == 1:
            return sum((len(ln) + 1) * self.r.line_point - (0 if m else self.r.all_different_less)
                       for ln, (_, m) in zip([ln for ln in lines if ln], made))
        if self.phase == 2 and made:
            # a matching line: every card of both lines and the played one; else all but it
            n = sum(len(ln) for ln in lines) + any(m for _, m in made)
            return n * self.r.removal_point
        return 0

    # Step C
    def unplayable(self):
        """Empty spaces touching a face-up card where no card may go but cards already on the
        table (face up; face down as ``buried_on_table`` says)."""
        left = dict(COPIES)
        for c in self.up.values():
            left[kind(c)] -= 1
        for c, who in self.down.values():
            if self.r.buried_on_table == "all" or (self.r.buried_on_table == "own"
                                                    and who == self.cur):
                left[kind(c)] -= 1
        if not self.r.explorer_cards:
            left = {k: n for k, n in left.items() if k[0] != "Explorer"}
        spaces = {(y + dy, x + dx) for (y, x) in self.up for dy, dx in NEAR}
        out = set()
        for sp in spaces:
            if sp in self.up or sp in self.down:
                continue
            lines = [ln for ln in self.lines_at(sp) if ln]
            if not any(n > 0 and all(line_rule(ln + [kd])[0] for ln in lines)
                       for kd, n in left.items()):
                out.add(sp)
        return out

    def _next_claim(self):
        """Start the next claim if a space is unplayable (and the claim can be made)."""
        cap = self.r.max_claims
        self.due = self.unplayable()
        if self.due and (cap == 0 or self.claims_this_turn < cap) and self.pile2:
            self.score[self.cur] += self.r.claim_point      # "immediately score one point"
            self.found[self.cur] += 1
            self.claim = (self.pile1[-1], self.pile2.pop())  # one card from each deck
            return True
        self.due = set()
        return False

    def place(self, card, sp):
        """Play ``card`` to ``sp`` (None: the dealer's first card); the caller has checked the
        placement is in ``legal()``."""
        p = self.cur
        if sp is None:
            sp = (0, 0)
        self.hands[p].remove(card)
        value, gone = placed_value(self.up, *sp, card, max(self.phase, 1), self.r.line_point,
                                   self.r.all_different_less, self.r.removal_point)
        self.up[sp] = card
        self.placed += 1
        if self.phase == 0:
            if self.r.opening_draw:
                self.hands[p].add(self.pile1.pop())
            self.cur = (p + 1) % self.P     # then "The game now begins with the dealer"
            if self.placed == self.P:
                self.phase = 1
            return
        self.score[p] += value
        if self.phase == 1:
            self.claims_this_turn = 0
            if not self._next_claim():
                self._step_d()
            return
        for s in gone:                          # phase two: back to the box
            self.box.add(self.up.pop(s))
        if self.pile1:
            self.hands[p].add(self.pile1.pop())  # "Draw a card to end your turn"
        if not self.up:
            self.cleared, self.phase = True, 3
            return
        with_cards = [(p + i) % self.P for i in range(1, self.P + 1)
                      if self.hands[(p + i) % self.P]]
        if not with_cards:
            self.phase = 3
        else:
            self.cur = with_cards[0]

    def keep(self, a, sp):
        """The claim of space ``sp``: keep card a (0 the 1st pile's, 1 the 2nd's) on top of the
        1st pile, the other face down in the space."""
        assert self.claim is not None and sp in self.due, (sp, self.due)
        kept, buried = self.claim[a], self.claim[1 - a]
        self.pile1[-1] = kept
        self.down[sp] = (buried, self.cur)
        self.claim = None
        self.claims_this_turn += 1
        if not self._next_claim():
            self._step_d()

    def _step_d(self):
        p = self.cur
        self.hands[p].add(self.pile1.pop())     # "Draw a card from the top of the first deck"
        self.cur = (p + 1) % self.P
        if not self.pile1:
            # "Pick up any cards marking unplayable spaces ... Shuffle these cards into the
            # second deck": the order is chance's; the engine's order is taken once checked
            self.pile2 += [c for c, _ in self.down.values()]
            self.down = {}
            self.pile1, self.pile2 = self.pile2, []
            self.phase = 2
            self.reshuffled = True

    def to_move(self):
        return -1 if self.phase == 3 else self.cur


def engine_view(st, b):
    """Game b of the state, read straight from its arrays into the reference's terms."""
    g = st.g[b]
    up = {}
    for q in st.up_pos[b, :g[T.N_UP]]:
        y, x = st.xy(q)
        up[(int(y), int(x))] = int(st.board[b, q]) - 1
    down = {}
    for i in range(g[T.N_FD]):
        y, x = st.xy(st.fd_pos[b, i])
        down[(int(y), int(x))] = (int(st.fd_card[b, i]), int(st.fd_owner[b, i]))
    return dict(up=up, down=down,
                hands=[set(st.hand[b, p, :st.hand_n[b, p]].tolist()) for p in range(st.n_players)],
                pile1=st.pile1[b, :g[T.N1]].tolist(), pile2=st.pile2[b, :g[T.N2]].tolist(),
                box=set(st.box[b, :g[T.N_BOX]].tolist()), score=st.score[b].tolist(),
                found=st.claims[b].tolist())


def check_against(ref, st, b):
    e = engine_view(st, b)
    assert e["up"] == ref.up
    assert e["down"] == ref.down, "the buried cards, where they lie and who buried them"
    assert e["hands"] == ref.hands
    assert e["pile1"] == ref.pile1 and e["pile2"] == ref.pile2
    assert e["box"] == ref.box
    assert e["score"] == ref.score and e["found"] == ref.found
    assert int(G.to_move(st)[b]) == ref.to_move()
    if ref.to_move() < 0:
        assert bool(st.g[b, T.CLEARED]) == ref.cleared
        return
    o = G.observe(st, np.array([b]))
    n = int(o.n_cand[0])
    assert G.legal(st)[b].sum() == n
    card, y, x = o.card[0].tolist(), o.y[0].tolist(), o.x[0].tolist()
    if ref.claim is not None:
        # the choice shows the 1st pile's card as candidate 0 and the 2nd pile's as 1
        assert o.kind[0] == T.KEEP and n == 2
        assert (card[0], card[1]) == ref.claim
        assert (y[0], x[0]) in ref.due
        return
    assert o.kind[0] == T.PLACE
    pts = o.points[0].tolist()
    got = {(card[j], (y[j], x[j]) if ref.up else None): pts[j] for j in range(n)}
    assert got == ref.legal(), "the candidates are exactly the legal placements, valued as printed"


def ref_from_deal(st, b, rules, players):
    """The reference's game from the engine's deal, once the deal itself is checked."""
    H, N = rules.hand_size, rules.n_cards
    hands = [st.hand[b, p, :st.hand_n[b, p]].tolist() for p in range(players)]
    n1, n2 = int(st.g[b, T.N1]), int(st.g[b, T.N2])
    rest = N - players * H
    assert all(len(h) == H for h in hands)
    assert (n1, n2) == ((rules.first_pile or (rest + 1) // 2),
                        rest - (rules.first_pile or (rest + 1) // 2))
    everything = sorted(sum(hands, []) + st.pile1[b, :n1].tolist() + st.pile2[b, :n2].tolist())
    assert everything == list(range(N)), "the deal holds every card once"
    return Ref(rules, players, hands, st.pile1[b, :n1].tolist(), st.pile2[b, :n2].tolist())


def play_against_reference(rules, players, B, seed, chooser):
    """B games stepped by the engine and by Ref side by side, compared after every step."""
    keys = game_keys(seed, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(rules, players, keys.deal)
    refs = [ref_from_deal(st, b, rules, players) for b in range(B)]
    seen = {"claims": 0, "phase2": 0, "touch_only": 0}
    running = [[] for _ in range(B)]    # the scores after each turn of the two phases
    for _ in range(2000):
        for b in range(B):
            check_against(refs[b], st, b)
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        legal = G.legal(st)
        a = np.zeros(B, np.int64)
        if hasattr(chooser, "act"):   # a strategy, asked as the play loop asks it
            a[live] = choose(chooser, G, st, live, seat_rs, players)
        else:
            a[live] = chooser(G.observe(st, live).freeze(), legal[live],
                              SeatRandom(seat_rs, live * players + mv[live]))
        moves = []
        o = G.observe(st, live)
        for i, b in enumerate(live):
            j = int(a[b])
            assert legal[b, j]
            moves.append((b, o.kind[i], j, int(o.card[i, j]), (int(o.y[i, j]), int(o.x[i, j]))))
        G.step(st, a)
        for b, k, j, card, sp in moves:
            ref = refs[b]
            phase = ref.phase
            if k == T.KEEP:
                ref.keep(j, sp)
                seen["claims"] += 1
            else:
                if ref.up and not any((sp[0] + dy, sp[1] + dx) in ref.up for dy, dx in NEAR):
                    seen["touch_only"] += 1
                ref.place(card, sp if ref.up else None)
            if phase in (1, 2) and ref.claim is None:   # the turn is over: the score is kept
                running[b].append(list(ref.score))
            if ref.reshuffled:
                ref.reshuffled = False
                seen["phase2"] += 1
                drawn = st.pile1[b, :st.g[b, T.N1]].tolist()
                assert sorted(drawn) == sorted(ref.pile1), "the 2nd pile and the buried cards"
                ref.pile1 = drawn
    assert (G.to_move(st) == -1).all(), "every game ends"
    for b in range(B):
        check_against(refs[b], st, b)
        # final scores equal a recount from the final state
        out = G.outcome(st)
        best = max(refs[b].score)
        winners = [p for p in range(players) if refs[b].score[p] == best]
        assert out.win[b].tolist() == [1 / len(winners) if p in winners else 0
                                       for p in range(players)]
        assert out.score[b].tolist() == refs[b].score
        assert_drama(out, b, running[b], lower_wins=False)
        # the measures, from the reference's final position: the cards in the box (each
        # removal scored), and the cards still in hands and piles
        ref = refs[b]
        assert out.stats["phase_two_points"][b] == len(ref.box) * rules.removal_point
        assert out.stats["cards_unplayed"][b] == (sum(len(h) for h in ref.hands) + len(ref.pile1)
                                                  + len(ref.pile2))
    seen["lead_changes"] = int(G.outcome(st).stats["lead_changes"].sum())
    return seen


def mixed(obs, legal, rng):
    """Greedy most of the time (it builds long lines and closes spaces), random otherwise."""
    pts = np.where(legal[:, :obs.width], obs.points, -1)
    best = np.argmax(pts, axis=1)
    wild = rng.random(len(best)) < 0.3
    return np.where(wild, random_legal(legal, rng), best)


@pytest.mark.parametrize("players, rules, seed", [
    (2, {}, 1), (3, {}, 2),
    (3, {"touch_face_down": False}, 3),
    (2, {"buried_on_table": "own"}, 4), (3, {"buried_on_table": "all"}, 5),
    (3, {"max_claims": 1, "opening_draw": True}, 6),
    (2, {"explorer_cards": False, "line_point": 2, "all_different_less": 0, "claim_point": 2,
         "removal_point": 3}, 7),
    (2, {"hand_size": 12}, 8),      # hand slots past the 10 whose types the listing packs
])
def test_every_step_against_the_reference(players, rules, seed):
    """Every step of many games, against Ref (plain Python from the rulebook): the layout, the
    face-down cards (which card, where, buried by whom), hands, both piles in order, the box,
    scores and claims, who moves, the claim's two cards, and the candidate list (exactly the
    legal placements, with their values). Every game ends; the winner is the best score."""
    r = G.make_rules(rules)
    seen = play_against_reference(r, players, 10, seed, mixed)
    assert seen["claims"] > 5 and seen["phase2"] == 10 and seen["lead_changes"] > 0
    if r.touch_face_down:
        assert seen["touch_only"] > 0, "cards went where they touch only a face-down card"


def test_strategies_against_the_reference():
    for who in ("greedy", "cautious", "space_maker", "random"):
        s = get_strategy("savannah", who)()
        play_against_reference(R, 3, 4, 11, s)


def test_the_trace_tells_the_claims_as_they_were():
    """describe(): every claim names the card kept and the card buried, as the state holds
    them (the buried cards lie face down, the kept ones went on top of the 1st pile)."""
    res = play_batch(G, R, 3, [get_strategy("savannah", "space_maker")()], np.zeros((4, 3), int),
                     game_keys(3, 3, 4), log=True)
    st = res.state
    for b in range(4):
        text = G.describe(st, b)
        assert text.startswith("P0 (dealer) opens with") and "== Game over" in text
        ev = st.ev[b, :st.g[b, T.NEV]]
        claims = [e for e in ev if e[0] == T.E_CLAIM]
        assert text.count("finds the unplayable space") == len(claims) > 0
        for e in claims:
            assert f"keeps {card_name(int(e[4]))}, buries {card_name(int(e[5]))}" in text


def hidden_information_is_absent(observe):
    """Two games that differ only in what the player to move cannot see (the other hand, the
    piles' order, the face-down cards) give equal observations through ``observe(state,
    games)``: every attribute it holds and every value it works out on demand."""
    keys = game_keys(11, 2, 1)
    seat_rs = keys.seat.reshape(-1).copy()
    strat = get_strategy("savannah", "greedy")()
    st = G.init(R, 2, keys.deal)
    # play until a face-down card lies on the table
    for _ in range(200):
        if st.g[0, T.N_FD] > 0 and st.g[0, T.KIND] == T.PLACE and st.g[0, T.PHASE] == T.ONE:
            break
        G.step(st, ask(strat, G, st, [0], seat_rs, 2))
    assert st.g[0, T.N_FD] > 0
    import copy
    st2 = copy.deepcopy(st)
    me = int(st.g[0, T.CUR])
    other = 1 - me
    # swap a face-down card, a card of the other hand and the top cards of both piles around
    fd = int(st2.fd_card[0, 0])
    oh = int(st2.hand[0, other, 0])
    p1 = int(st2.pile1[0, st2.g[0, T.N1] - 1])
    p2 = int(st2.pile2[0, st2.g[0, T.N2] - 1])
    st2.fd_card[0, 0], st2.hand[0, other, 0] = oh, p1
    st2.pile1[0, st2.g[0, T.N1] - 1], st2.pile2[0, st2.g[0, T.N2] - 1] = p2, fd
    conserved(st2)
    assert not np.array_equal(st.fd_card, st2.fd_card)
    a, b = observe(st, np.array([0])), observe(st2, np.array([0]))
    derived = ("slot", "card", "y", "x", "valid", "grid", "table", "unseen")
    for name in sorted(vars(a)) + list(derived):  # every attribute: a new one cannot slip past
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    return st, a


def test_hidden_information_is_absent():
    st, a = hidden_information_is_absent(G.observe)
    # and nothing the observation keeps (or works out) is a view of the state: a snapshot
    live = [v for v in vars(st).values() if isinstance(v, np.ndarray)]
    assert not np.shares_memory(G.legal(st), st.legal_mask)
    held = [v for v in vars(a).values() if isinstance(v, np.ndarray)]
    held += [getattr(a, n) for n in ("slot", "card", "y", "x", "valid", "table", "unseen", "grid")]
    assert len(held) > 15
    for arr in held:
        assert not any(np.shares_memory(arr, h) for h in live)


@pytest.mark.parametrize("what", ["other_hand", "face_down", "pile_top"])
def test_the_hidden_information_check_catches_a_leak(what):
    """The positive control: the same check on an observation that also holds a hidden card
    (the other player's hand, the face-down cards, the top of the 1st pile) must fail."""
    def leaky(st, games):
        o = G.observe(st, games)
        me = st.g[games, T.CUR]
        o.leak = {"other_hand": lambda: st.hand[games, 1 - me],
                  "face_down": lambda: st.fd_card[games],
                  "pile_top": lambda: st.pile1[games, st.g[games, T.N1] - 1]}[what]().copy()
        return o
    with pytest.raises(AssertionError, match="leak"):
        hidden_information_is_absent(leaky)


def test_a_kept_observation_shows_nothing_later():
    """An observation (and legal mask) a strategy keeps from its turn must not turn into a view
    of the next player's hand once the state moves on: the candidate lists are copies."""
    st = G.init(R, 2, deal_keys(1, 3))
    for _ in range(3):
        G.step(st, np.zeros(1, np.int64))
    me = int(G.to_move(st)[0])
    o = G.observe(st, np.array([0]))
    lg = G.legal(st)
    before = {name: np.array(getattr(o, name)) for name in ("slot", "card", "y", "x", "points")}
    lg_before = lg.copy()
    mine = set(o.card[0, :o.n_cand[0]].tolist())
    assert mine <= set(st.hand[0, me, :st.hand_n[0, me]].tolist())
    G.step(st, np.zeros(1, np.int64))
    other = 1 - me
    assert int(G.to_move(st)[0]) == other
    theirs = set(st.hand[0, other, :st.hand_n[0, other]].tolist())
    assert not (mine & theirs)
    for name, v in before.items():
        assert np.array_equal(getattr(o, name), v), name
    assert np.array_equal(lg, lg_before)
    assert not (set(o.card[0, :o.n_cand[0]].tolist()) & theirs)
    sub = o.take(np.array([0]))
    assert np.array_equal(sub.card, before["card"])


def test_observation_take_keeps_rows_aligned():
    st = G.init(R, 3, deal_keys(6, 2))
    G.step(st, np.zeros(6, np.int64))
    o = G.observe(st, np.arange(6))
    sub = o.take(np.array([4, 1]))
    assert sub.game.tolist() == [4, 1] and len(sub) == 2
    assert np.array_equal(sub.card, o.card[[4, 1]]) and np.array_equal(sub.hand, o.hand[[4, 1]])
    assert np.array_equal(sub.points, o.points[[4, 1]])


def test_same_seed_same_games():
    outs = [play_batch(G, R, 3, [get_strategy("savannah", "random")()], np.zeros((16, 3), int),
                       game_keys(5, 3, 16)).outcome.score for _ in range(2)]
    assert np.array_equal(*outs)


def test_pure_python_mode_plays_the_same_game():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python: the game comes out as compiled."""
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "safari_sim.cli", "trace", "savannah", "--seed", "2",
            "--strategies", "greedy,cautious,space_maker"]
    cwd = os.path.dirname(os.path.dirname(__file__))
    jit = subprocess.run(args, capture_output=True, text=True, check=True, cwd=cwd)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    py = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=cwd,
                        timeout=120)
    assert "Game over" in jit.stdout and "finds the unplayable space" in jit.stdout
    assert py.stdout == jit.stdout


def test_rules_checks():
    with pytest.raises(RulesError):
        G.make_rules({"hand_size": 0})
    with pytest.raises(RulesError):
        G.check(G.make_rules({"hand_size": 30}), 3)
    with pytest.raises(RulesError):
        G.check(G.make_rules({"first_pile": 60}), 2)
    with pytest.raises(RulesError):
        G.check(R, 4)
    with pytest.raises(RulesError):
        G.make_rules({"buried_on_table": "mine"})
    r = G.make_rules({"explorer_cards": False})
    st = G.init(r, 2, deal_keys(4, 0))
    assert st.rules.n_cards == 60 and (st.hand < 60).all()
    res = play_batch(G, r, 2, [get_strategy("savannah", "greedy")()], np.zeros((8, 2), int),
                     game_keys(1, 2, 8))
    assert (G.to_move(res.state) == -1).all()


def test_scoring_fields_change_the_points():
    r = G.make_rules({"line_point": 2, "all_different_less": 0, "claim_point": 3})
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Lion")}
    st = G.arrange(r, 2, layout, [[C("3-Monkey")], [C("6-Zebra")]], pile1=[C("4-Tiger")],
                   pile2=[])
    assert play(st, C("3-Monkey"), 0, 2) == (6, 6)


# ---- The strategies' lookahead, against brute force from the rules ----------------------------
# What each strategy is meant to see, computed again in plain Python from the full state: the
# board before and after the play (phase two: after its removals, as Ref plays it), every space,
# every card type. Neither oracle asks the lookahead where to look.

@functools.lru_cache(maxsize=None)
def kinds_allowed(lines):
    """The (animal, number)s that may join these runs (a tuple of tuples of kinds)."""
    return tuple(kd for kd in COPIES if all(not ln or line_rule(list(ln) + [kd])[0]
                                            for ln in lines))


def lines_key(board, sp):
    return tuple(tuple(kind(board[q]) for q in ln if q != sp) for ln in runs(board, *sp))


def spaces_of(board, down):
    """Empty spaces touching a face-up card (the only ones a card's lines can reach)."""
    return {(y + dy, x + dx) for (y, x) in board for dy, dx in NEAR} - set(board) - set(down)


def after_play(board, sp, card, phase):
    b2 = dict(board)
    _, gone = placed_value(board, *sp, card, phase)
    b2[sp] = card
    for q in gone:
        del b2[q]
    return b2


def reply_value(lines, kd, phase, r=R):
    """What a card kd scores in a space with these runs (Step B; phase two, the removals)."""
    ref = Ref(r, 2, [[], []], [], [])
    ref.phase = phase
    return ref.value([list(ln) for ln in lines], kd)


def brute_threat(board, down, unseen, sp, card, phase, before=None):
    """The most the next player could score, with a card type this player has not seen, at a
    space whose row or column the play changes, on the board after the play (``before``: the
    runs beside each space before it, if worked out already)."""
    after = after_play(board, sp, card, phase)
    before = {} if before is None else before
    best = 0
    for s in spaces_of(after, down):
        key = lines_key(after, s)
        if s not in before:
            before[s] = None if s in board else lines_key(board, s)
        if key != before[s]:
            for kd in kinds_allowed(key):
                if unseen.get(kd, 0) > 0:
                    best = max(best, reply_value(key, kd, phase))
    return best


def closed_spaces(board, down):
    """Step C on the face-up cards: spaces where only cards already face up could go."""
    left = dict(COPIES)
    for c in board.values():
        left[kind(c)] -= 1
    return {s for s in spaces_of(board, down)
            if not any(left[kd] > 0 for kd in kinds_allowed(lines_key(board, s)))}


def lookahead_positions(players, seed, B, every=3, every2=None):
    """(state, game) at place decisions of phases one and two of mixed-play games, every
    ``every`` steps in phase one and ``every2`` in phase two."""
    keys = game_keys(seed, players, B)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(R, players, keys.deal)
    for step in range(2000):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            return
        for b in live:
            phase = st.g[b, T.PHASE]
            if st.g[b, T.KIND] == T.PLACE and phase in (T.ONE, T.TWO) and \
                    step % (every if phase == T.ONE else every2 or every) == 0:
                yield st, int(b)
        legal = G.legal(st)
        a = np.zeros(B, np.int64)
        a[live] = mixed(G.observe(st, live).freeze(), legal[live],
                        SeatRandom(seat_rs, live * players + mv[live]))
        G.step(st, a)


@pytest.mark.parametrize("players", [2, 3])
def test_threat_against_brute_force(players):
    """lookahead.threat (cautious) for every candidate of many positions, phase two included
    (where the reply is scored on the board after the play's removals)."""
    from safari_sim.games.savannah import lookahead
    done = {1: 0, 2: 0}
    bigger_after_removals = 0
    for st, b in lookahead_positions(players, 20 + players, 3, every=6, every2=5):
        o = G.observe(st, np.array([b]))
        th = lookahead.threat(o)[0]
        e = engine_view(st, b)
        p = int(st.g[b, T.CUR])
        unseen = dict(COPIES)
        for c in list(e["up"].values()) + list(e["hands"][p]):
            unseen[kind(c)] -= 1
        phase = int(st.g[b, T.PHASE])
        before = {}
        for j in range(int(o.n_cand[0])):
            sp, card = (int(o.y[0, j]), int(o.x[0, j])), int(o.card[0, j])
            want = brute_threat(e["up"], e["down"], unseen, sp, card, phase, before)
            assert th[j] == want, (phase, card_name(card), sp, th[j], want)
            if phase == 2 and want > 0 and placed_value(e["up"], *sp, card, 2)[1]:
                bigger_after_removals += 1
        done[phase] += 1
    assert done[1] > 8 and done[2] > 8 and bigger_after_removals > 0


@pytest.mark.parametrize("players", [2, 3])
def test_new_unplayable_against_brute_force(players):
    """lookahead.new_unplayable (space_maker): the spaces anywhere on the table that Step C
    finds unplayable after the play and did not before, for every phase-one candidate."""
    from safari_sim.games.savannah import lookahead
    far = 0
    n = 0
    for st, b in lookahead_positions(players, 30 + players, 4, every=3):
        if st.g[b, T.PHASE] != T.ONE:
            continue
        o = G.observe(st, np.array([b]))
        got = lookahead.new_unplayable(o)[0]
        e = engine_view(st, b)
        before = closed_spaces(e["up"], e["down"])
        for j in range(int(o.n_cand[0])):
            sp, card = (int(o.y[0, j]), int(o.x[0, j])), int(o.card[0, j])
            after = after_play(e["up"], sp, card, 1)
            new = closed_spaces(after, e["down"]) - before
            assert got[j] == len(new), (card_name(card), sp, got[j], new)
            ends = {s for s in new if lines_key(after, s) != lines_key(e["up"], s)}
            far += len(new - ends)
        n += 1
    assert n > 20 and far > 0, "some spaces closed far from the play (the last copy of a card)"


def test_strategies_take_their_best_value():
    """greedy takes a best-scoring play, cautious the best points minus caution x threat,
    space_maker the best points plus space_value x new unplayable spaces (first on ties)."""
    from safari_sim.games.savannah import lookahead
    st = example_b()
    o = G.observe(st, np.array([0])).freeze()
    rs = game_keys(0, 3, 1).seat.reshape(-1).copy()
    n = int(o.n_cand[0])
    g = ask(get_strategy("savannah", "greedy")(), G, st, [0], rs, 3)
    assert o.points[0, g[0]] == o.points[0, :n].max() == 6
    th = lookahead.threat(o)[0, :n]
    k = ask(get_strategy("savannah", "cautious")(caution=10.0), G, st, [0], rs, 3)
    value = o.points[0, :n] - 10.0 * th
    assert k[0] == int(np.argmax(value)) and k[0] != g[0]
    # Debra's 3-Elephant at (1,1) scores 4 but opens a row and a column of elephants
    j = [i for i in range(n) if o.card[0, i] == C("3-Elephant") and (o.y[0, i], o.x[0, i]) ==
         (1, 1)][0]
    assert th[j] >= 3
    # Amy's 6-Lion at (0,0) in example B makes (1,0) unplayable: the space maker sees it
    for card, y, x in ((C("3-Elephant"), 1, 1), (C("2-Zebra"), 3, 5),
                       (C("2-Elephant", True), 2, 1), (C("2-Monkey"), 0, 2)):
        play(st, card, y, x)
    st.g[0, T.CUR] = 2
    G.relist(st)
    o = G.observe(st, np.array([0])).freeze()
    j = [k for k in range(o.n_cand[0]) if o.card[0, k] == C("6-Lion") and (o.y[0, k], o.x[0, k])
         == (0, 0)][0]
    sm = lookahead.new_unplayable(o)[0]
    assert sm[j] == 1
    pick = ask(get_strategy("savannah", "space_maker")(space_value=10.0), G, st, [0], rs, 3)
    value = o.points[0, :o.n_cand[0]] + 10.0 * sm[:o.n_cand[0]]
    assert pick[0] == int(np.argmax(value))


def _scramble(st, games, rng):
    """``permuted`` (below) for the seat to move in each game of ``games``."""
    return permuted(st, games, G.to_move(st)[games], rng)


KNOWLEDGE_SPECS = [("greedy", {}), ("cautious", {}), ("space_maker", {}),
                   ("cautious", {"caution": 2.0, "noise": 0.1}),
                   ("space_maker", {"space_value": 4.0, "noise": 0.2}), ("greedy", {"noise": 0.3})]


@pytest.mark.parametrize("players,rules", [
    (2, {}), (3, {}),
    (2, {"buried_on_table": "own", "opening_draw": True}),
    (3, {"buried_on_table": "all", "touch_face_down": False, "max_claims": 1}),
])
def test_every_heuristic_acts_only_on_what_its_seat_may_know(players, rules):
    """At every decision, the cards the mover cannot see (the other hands, both piles, the
    face-down cards others buried) dealt again among those places: no heuristic's action
    changes, nor what it draws (rules that hide more or less: buried cards on the table for
    their owner or everyone, an opening draw, one claim)."""
    strats = [get_strategy(G.id, n)(**p) for n, p in KNOWLEDGE_SPECS]
    assert check_knowledge(G, G.make_rules(rules), players, strats, _scramble, games=8) > 2000


def test_the_knowledge_check_catches_a_policy_that_reads_a_hidden_card():
    def other_hand(st, b):
        q = (int(st.g[b, T.CUR]) + 1) % st.n_players
        return st.hand[b, q, 0] if st.hand_n[b, q] else 0

    def pile_top(st, b):
        return st.pile2[b, st.g[b, T.N2] - 1] if st.g[b, T.N2] else 0

    for peek in (other_hand, pile_top):
        leaky_policy_is_caught(G, R, 2, get_strategy(G.id, "cautious")(), peek, _scramble,
                               games=3, max_steps=200)


# ---- Worlds for search (issue 16) ---------------------------------------------------------------

def permuted(st, games, seats, rng):
    """A copy of ``st`` in which, for each game b of ``games``, the cards ``seats`` cannot see
    are moved among the places it cannot see (written from the rulebook, not from the module):
    the other hands (in any order), both piles, the face-down cards others buried; not the 1st
    pile's top in the seat's own claim (it drew that card). In phase two the cards the seat
    buried itself (shuffled into the draw pile, it knows) only among themselves."""
    import copy
    other = copy.deepcopy(st)
    for b, s in zip(games, seats):
        g = st.g[b]
        places = [("hand", q, k) for q in range(st.n_players) if q != s
                  for k in range(st.hand_n[b, q])]
        top_known = g[T.KIND] == T.KEEP and g[T.CUR] == s
        places += [("pile1", j, 0) for j in range(g[T.N1] - (1 if top_known else 0))]
        places += [("pile2", j, 0) for j in range(g[T.N2])]
        places += [("fd", j, 0) for j in range(g[T.N_FD]) if st.fd_owner[b, j] != s]
        mine = set()
        if g[T.PHASE] == T.TWO:
            mine = {int(st.fd_card[b, j]) for j in range(g[T.N_FD1]) if st.fd_owner[b, j] == s}

        def at(arr, z, q, k):
            if z == "hand":
                return arr.hand[b, q, k]
            return {"pile1": arr.pile1, "pile2": arr.pile2, "fd": arr.fd_card}[z][b, q]

        def put(z, q, k, c):
            if z == "hand":
                other.hand[b, q, k] = c
            elif z == "pile1":
                other.pile1[b, q] = c
            elif z == "pile2":
                other.pile2[b, q] = c
            else:
                other.fd_card[b, q] = c

        for pool in ([p for p in places if int(at(st, *p)) in mine],
                     [p for p in places if int(at(st, *p)) not in mine]):
            cards = [int(at(st, *p)) for p in pool]
            for p, c in zip(pool, rng.permutation(cards)):
                put(*p, c)
    return other


def _assert_worlds(st, games, rng, **kw):
    check_worlds(G, st, permuted(st, games, G.to_move(st)[games], rng), games, **kw)


@pytest.mark.parametrize("players, rules", [(2, {}), (3, {}), (3, {"buried_on_table": "own"}),
                                            (2, {"touch_face_down": False})])
def test_worlds_of_random_positions(players, rules):
    """Positions of mixed play at every player count, in the opening, phase one (claims
    included) and phase two: the worlds depend only on what the mover may know, keep it exactly,
    vary, and play to their end (tests/worlds_check.py)."""
    r = G.make_rules(rules)
    rng = np.random.default_rng(players)
    keys = game_keys(30 + players, players, 6)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(r, players, keys.deal)
    kinds = set()
    claims = 0
    for step in range(400):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        keep = live[st.g[live, T.KIND] == T.KEEP]
        if keep.size and claims < 2:
            claims += 1
            _assert_worlds(st, keep, rng, worlds_per_game=2, seed=step)
            kinds |= {(int(st.g[b, T.PHASE]), int(st.g[b, T.KIND])) for b in keep}
        elif step in (1, 12, 30, 60, 100):
            _assert_worlds(st, live, rng, worlds_per_game=2, seed=step)
            kinds |= {(int(st.g[b, T.PHASE]), int(st.g[b, T.KIND])) for b in live}
        a = np.zeros(len(mv), np.int64)
        a[live] = mixed(G.observe(st, live), G.legal(st)[live],
                        SeatRandom(seat_rs, live * players + mv[live]))
        G.step(st, a)
    assert {(T.ONE, T.PLACE), (T.ONE, T.KEEP), (T.TWO, T.PLACE)} <= kinds


def _worlds(st, n, seat=None, seed=0):
    seat = G.to_move(st)[[0]] if seat is None else np.array([seat])
    return G.determinize(st, np.zeros(n, np.int64), np.repeat(seat, n), deal_keys(n, seed))


def test_worlds_keep_the_cards_a_seat_buried_and_its_claim():
    """Seat 0 finds a space and is choosing which card to keep: it sees both drawn cards, and
    the 1st pile's top (its card) stays; the card seat 1 buried earlier is dealt again, seat 0's
    own buried card is not. Seen from seat 1 the claim's cards are dealt again, and the mover's
    two choices with them."""
    # (0, 2) takes only a 3-Elephant once 3-Tiger goes to (2, 2), and both are face up
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant"), (1, 2): C("3-Lion"),
              (5, 5): C("3-Elephant"), (7, 7): C("3-Elephant", True)}
    st = G.arrange(R, 2, layout, [[C("3-Tiger"), C("6-Zebra")], [C("6-Monkey"), C("5-Lion")]],
                   pile1=cards("5-Zebra", "4-Zebra", "1-Monkey"),
                   pile2=cards("1-Zebra", "2-Monkey", "2-Lion"),
                   face_down={(9, 9): C("5-Monkey"), (-5, -5): C("4-Lion")},
                   buried_by={(9, 9): 0, (-5, -5): 1})
    play(st, C("3-Tiger"), 2, 2)
    assert st.g[0, T.KIND] == T.KEEP and G.to_move(st)[0] == 0
    _assert_worlds(st, np.array([0]), np.random.default_rng(5))
    w = _worlds(st, 300)
    n1 = st.g[0, T.N1]
    assert (w.pile1[:, n1 - 1] == C("1-Monkey")).all() and (w.g[:, T.KEEP1] == C("1-Monkey")).all()
    assert (w.g[:, T.KEEP2] == C("2-Lion")).all()
    mine = [j for j in range(st.g[0, T.N_FD]) if st.fd_owner[0, j] == 0]
    theirs = [j for j in range(st.g[0, T.N_FD]) if st.fd_owner[0, j] == 1]
    assert (w.fd_card[:, mine] == st.fd_card[0, mine]).all()
    assert len(set(w.fd_card[:, theirs[0]].tolist())) > 2
    assert (w.hand[:, 0, :st.hand_n[0, 0]] == st.hand[0, 0, :st.hand_n[0, 0]]).all()
    # seen from seat 1: the claim's two cards are not its knowledge
    w1 = _worlds(st, 300, seat=1)
    assert len(set(w1.g[:, T.KEEP2].tolist())) > 2 and len(set(w1.g[:, T.KEEP1].tolist())) > 2
    assert (w1.pile1[np.arange(300), n1 - 1] == w1.g[:, T.KEEP1]).all()
    assert (w1.cand_card[:, :2] == w1.g[:, [T.KEEP1, T.KEEP2]]).all()
    assert (w1.fd_card[:, theirs] == st.fd_card[0, theirs]).all()
    for i in range(0, 300, 37):
        conserved(w1, i)
        conserved(w, i)


def _phase_two_started():
    """Two players: seat 0 empties the 1st pile; the card seat 1 buried, 4-Tiger, is shuffled
    with the 2nd pile into the draw pile; seat 1 is to move. Every card nobody holds is in the
    box (arrange), so seat 1 cannot see: seat 0's hand (1-Lion, 5-Zebra) and the draw pile
    (1-Zebra, 2-Zebra, 4-Tiger)."""
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra"), C("6-Lion")]],
                   pile1=[C("5-Zebra")], pile2=[C("1-Zebra"), C("2-Zebra")],
                   face_down={(1, 1): C("4-Tiger")}, buried_by={(1, 1): 1})
    play(st, C("3-Elephant"), 0, 2)
    assert st.g[0, T.PHASE] == T.TWO and G.to_move(st)[0] == 1
    return st


def test_worlds_in_phase_two_keep_a_buried_card_in_the_draw_pile():
    """Seat 1 buried the 4-Tiger, which went into the draw pile: until seat 0 draws in phase
    two, no world puts it in seat 0's hand; once seat 0 has drawn, one of its cards may be it."""
    st = _phase_two_started()
    _assert_worlds(st, np.array([0]), np.random.default_rng(6))
    w = _worlds(st, 400)
    tiger = C("4-Tiger")
    assert not (w.hand[:, 0] == tiger).any()
    assert (w.pile1[:, :3] == tiger).any(axis=1).all()
    # seat 1 plays (a corner) and draws; seat 0 plays and draws: it may hold the tiger now
    play(st, C("6-Zebra"), 1, -1)
    assert G.to_move(st)[0] == 0 and st.g[0, T.DRAWN2 + 1] == 1
    c0 = [c for c in st.hand[0, 0, :st.hand_n[0, 0]] if c >= 0][0]
    seen_tiger = int(tiger in st.hand[0, 1, :st.hand_n[0, 1]].tolist())
    play(st, int(c0), -1, -1)
    assert st.g[0, T.DRAWN2] == 1
    if not seen_tiger:
        _assert_worlds(st, np.array([0]), np.random.default_rng(7))
        w = _worlds(st, 400)
        assert (w.hand[:, 0] == tiger).any()


def test_world_frequencies_match_the_rulebook():
    """Seat 1 at the start of phase two (above): it knows its 4-Tiger was shuffled into the 3-card
    draw pile, so the tiger is in each pile place with probability 1/3 and never in seat 0's
    hand; the other 4 cards it cannot see (1-Lion, 5-Zebra, 1-Zebra, 2-Zebra) fill the 4 places
    left, each equally likely: seat 0's first card is the 1-Lion with probability 1/4."""
    st = _phase_two_started()
    n = 6000
    w = _worlds(st, n, seed=9)
    tiger = C("4-Tiger")
    for j in range(3):
        freq = (w.pile1[:, j] == tiger).mean()
        assert abs(freq - 1 / 3) < 4 * np.sqrt(1 / 3 * 2 / 3 / n), (j, freq)
    assert not (w.hand[:, 0, :2] == tiger).any()
    freq = (w.hand[:, 0, 0] == C("1-Lion")).mean()
    assert abs(freq - 1 / 4) < 4 * np.sqrt(1 / 4 * 3 / 4 / n), freq
    # phase one: seat 0 to move, one card buried by seat 1 and the two piles: a given card is in
    # each of the places seat 0 cannot see with the same probability
    layout = {(0, 0): C("1-Elephant"), (0, 1): C("2-Elephant")}
    st = G.arrange(R, 2, layout, [[C("3-Elephant"), C("1-Lion")], [C("6-Zebra"), C("6-Lion")]],
                   pile1=cards("5-Zebra", "4-Zebra"), pile2=[C("1-Zebra"), C("2-Zebra")],
                   face_down={(1, 1): C("4-Tiger")}, buried_by={(1, 1): 1})
    w = _worlds(st, n, seed=10)
    k = 7   # seat 1's hand (2), the piles (2 + 2), the face-down card: 7 places, 7 cards
    for freq in ((w.fd_card[:, 0] == C("6-Zebra")).mean(), (w.pile1[:, 1] == C("4-Tiger")).mean(),
                 (w.hand[:, 1, 0] == C("2-Zebra")).mean()):
        assert abs(freq - 1 / k) < 4 * np.sqrt(1 / k * (1 - 1 / k) / n), freq


def _mixed_positions(players, rules, steps, batch=6, seed=0):
    """A batch of games played ``steps`` decisions by ``mixed`` (the same each time)."""
    r = G.make_rules(rules)
    keys = game_keys(50 + seed, players, batch)
    seat_rs = keys.seat.reshape(-1).copy()
    st = G.init(r, players, keys.deal)
    for _ in range(steps):
        mv = G.to_move(st)
        live = np.flatnonzero(mv >= 0)
        if live.size == 0:
            break
        a = np.zeros(len(mv), np.int64)
        a[live] = mixed(G.observe(st, live), G.legal(st)[live],
                        SeatRandom(seat_rs, live * players + mv[live]))
        G.step(st, a)
    return st


@pytest.mark.parametrize("players, rules, steps", [
    (3, {}, 3), (3, {}, 25), (2, {}, 40), (3, {}, 70), (2, {"touch_face_down": False}, 30),
    (3, {"buried_on_table": "own", "max_claims": 1}, 45)])
def test_clone_copies_what_is_read_and_plays_on(players, rules, steps):
    """Savannah's own ``clone`` (a search's worlds) copies the large arrays only where they are
    read: the grid exactly, each list (open spaces and their cached lines, this turn's unplayable
    spaces, the candidates and the legal mask) up to its length and zeros past it, every other
    array whole, as ``Game.clone`` does; cloned rows (repeated, out of order) play on as the
    games they copy."""
    from types import SimpleNamespace

    from clone_check import check_clone_plays_on

    st = _mixed_positions(players, rules, steps)
    rows = np.array([3, 0, 3, 5, 1, 1, 2, 4])
    # the clone's buffers (``buffers.scratch``, reused) hold another game's leftovers
    from safari_sim.engine import buffers
    big = np.repeat(rows, 60)                      # pooled: more than a megabyte of grids
    other = _mixed_positions(players, rules, steps + 30, seed=1)
    old = G.clone(other, big)
    for name in ("fr", "sc", "unpl", "cand_pts", "cand_cell", "cand_card", "cand_slot"):
        getattr(old, name)[:] = 7                  # stale entries past every list's length
    del old
    assert buffers._scratch
    whole = G.clone(st, big)
    # the reference: every per-game array copied by rows, written here (not the code checked)
    B = len(st.rs)
    slow = SimpleNamespace(**{k: v[rows].copy() for k, v in vars(st).items()
                              if isinstance(v, np.ndarray) and v.shape[:1] == (B,)
                              and k not in G.constant_fields})
    fast = SimpleNamespace(**{k: v[::60] for k, v in vars(whole).items()
                              if isinstance(v, np.ndarray) and v.shape[:1] == big.shape})
    F = st.sc.shape[1] // 2
    g = slow.g
    for name in ("g", "board", "up_pos", "up_count", "hand", "hand_n", "pile1", "pile2",
                 "fd_pos", "fd_card", "fd_owner", "box", "score", "claims", "rs", "dr", "ev"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    for i in range(len(rows)):
        for names, n in ((("unpl",), g[i, T.N_UNPL]), (("fr",), g[i, T.N_FR]),
                         (("cand_slot", "cand_card", "cand_cell", "cand_pts", "legal_mask"),
                          g[i, T.N_CAND])):
            for name in names:
                assert np.array_equal(getattr(fast, name)[i, :n], getattr(slow, name)[i, :n])
        n = g[i, T.N_FR]
        assert np.array_equal(fast.sc[i, :n], slow.sc[i, :n])
        assert np.array_equal(fast.sc[i, F:F + n], slow.sc[i, F:F + n])
        # the legal mask is False past the candidates in both; past each list the copy holds
        # zeros, nothing an earlier world left in its buffer (the 7s above)
        assert not fast.legal_mask[i, g[i, T.N_CAND]:].any()
        assert not slow.legal_mask[i, g[i, T.N_CAND]:].any()
        for name, n in (("unpl", g[i, T.N_UNPL]), ("fr", g[i, T.N_FR]), ("cand_slot", g[i, T.N_CAND]),
                        ("cand_card", g[i, T.N_CAND]), ("cand_cell", g[i, T.N_CAND]),
                        ("cand_pts", g[i, T.N_CAND])):
            assert not getattr(fast, name)[i, n:].any(), name
        assert not fast.sc[i, g[i, T.N_FR]:F].any() and not fast.sc[i, F + g[i, T.N_FR]:].any()
    check_clone_plays_on(G, lambda: _mixed_positions(players, rules, steps), rows)


# ---- Searchable rules (issue 14) ----------------------------------------------------------------

def test_every_search_value_plays():
    """Every field but lap_points (a statistic's unit) declares its values; each alone makes
    valid rules at 2 and 3 players and a small batch plays to the end."""
    check_search_space(G, (2, 3), left_out=("lap_points",))


def test_noisy_strategies_play_a_game_the_same_in_any_batch():
    """With ``noise`` a strategy draws both of its numbers for every game at every decision, so
    how many a game's seat stream gives never depends on the other games of its batch."""
    from strategies import get_strategy

    game = get_game("savannah")
    strats = [get_strategy("savannah", n)(noise=0.2) for n in ("greedy", "cautious", "space_maker")]
    n = 24
    keys = game_keys(3, 3, np.arange(n))
    seating = (np.arange(3)[None, :] + np.arange(n)[:, None]) % 3
    # the lockstep loop, each heuristic deciding for its rows of the batch (the whole-game
    # kernel plays each game on its own: tests/test_savannah_compiled.py compares the two)
    whole = play_batch(game, game.make_rules(), 3, strats, seating, keys, compiled=False)
    parts = [play_batch(game, game.make_rules(), 3, strats, seating[f:f + 5],
                        keys.take(np.arange(f, min(f + 5, n))), compiled=False)
             for f in range(0, n, 5)]
    assert np.array_equal(np.concatenate([p.outcome.score for p in parts]), whole.outcome.score)
