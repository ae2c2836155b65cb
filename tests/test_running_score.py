"""Every game's running score (``Game.running_score``, issue 16: what a depth-limited search
scores its worlds by): over random games at every player count, once a game is over it equals
``outcome(state).score`` exactly; at every step before that it is a finite float[B, P] and
reading it changes nothing in the state.

Worked mid-game positions, recounted from the rulebooks, are in the games' own tests (and below
for Duck Duck Bruce, Paper Safari, Bluff in Zoo, Herds and Savannah)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from safari_sim.engine.chance import SeatRandom, deal_keys
from safari_sim.games import game_ids, get_game
from strategies.base import random_legal

GAMES = game_ids()
GAMES_AT = [(g, p) for g in GAMES
            for p in range(get_game(g).min_players, get_game(g).max_players + 1)]
# random games per (game, player count): a few hundred per game over its player counts
PER_GAME = 300
SLOW = {"savannah": 60, "herds": 120}  # long games: fewer (still every player count)


def _snapshot(obj, depth=0):
    """Every array the state holds (fields, and arrays inside caches and tuples), copied."""
    out = {}
    for name, v in vars(obj).items():
        if isinstance(v, np.ndarray):
            out[name] = v.copy()
        elif isinstance(v, (tuple, list)):
            for i, x in enumerate(v):
                if isinstance(x, np.ndarray):
                    out[f"{name}[{i}]"] = x.copy()
        elif depth < 2 and hasattr(v, "__dict__") and not isinstance(v, type) \
                and type(v).__module__.startswith("safari_sim"):
            for k, x in _snapshot(v, depth + 1).items():  # a cache object (a view, a buffer)
                out[f"{name}.{k}"] = x
    return out


def _same(before, after):
    assert before.keys() == after.keys()
    for k in before:
        a, b = before[k], after[k]
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True), \
            f"running_score changed state.{k}"


def _running(game, st, n_players):
    try:
        return game.running_score(st)
    except NotImplementedError as e:
        pytest.fail(f"{game.id}: {e}")


@pytest.mark.parametrize("game_id,players", GAMES_AT)
def test_running_score_is_a_read_and_ends_as_the_outcome(game_id, players):
    game = get_game(game_id)
    counts = range(game.min_players, game.max_players + 1)
    batch = max(8, SLOW.get(game_id, PER_GAME) // len(counts))
    rules = game.make_rules()
    keys = deal_keys(batch, 1600 + players)
    st = game.init(rules, players, keys)
    seat_rs = deal_keys(batch * players, 7 + players)
    steps = 0
    ended = np.zeros(batch, bool)
    while True:
        mover = game.to_move(st)
        before = _snapshot(st)
        rs = _running(game, st, players)
        _same(before, _snapshot(st))
        assert isinstance(rs, np.ndarray) and rs.dtype == np.float64, type(rs)
        assert rs.shape == (batch, players)
        assert np.isfinite(rs).all(), f"not finite at step {steps}"
        over = mover < 0
        if over.any():
            # a finished game: exactly its outcome's score (the same units, the same number)
            score = np.asarray(game.outcome(st).score, np.float64)
            np.testing.assert_array_equal(rs[over], score[over])
            ended |= over
        live = np.flatnonzero(~over)
        if live.size == 0:
            break
        legal = game.legal(st)
        rng = SeatRandom(seat_rs, live * players + mover[live])
        actions = np.zeros(batch, np.int64)
        actions[live] = random_legal(legal[live], rng)
        game.step(st, actions)
        steps += 1
        assert steps < 200_000
    assert ended.all()
    assert steps > 1


# ---- worked mid-game positions, recounted from the rulebooks ---------------------------------

def test_duck_duck_bruce_running_score_counts_banked_nests_not_the_row():
    """Totals of the finished rounds plus each nest's highest card of every suit; the row (at
    risk: a double duck or a Bruce loses it) counts nothing until it is banked."""
    from tests.test_duck_duck_bruce import (BLUE, FOUR, GREEN, ONE, ONE_B, ORANGE, RED, THREE,
                                            TWO, YELLOW, G, c, position)
    from safari_sim.games import duck_duck_bruce as ddb

    values = (1, 1, 2, 2, 3, 4)  # the printed cards of a suit, by slot

    def nest_points(cards):  # "the highest card of each colour counts", once
        best = {}
        for card in cards:
            suit, slot = divmod(card, len(values))
            best[suit] = max(best.get(suit, 0), values[slot])
        return sum(best.values())

    nests = {0: [c(RED, ONE), c(RED, FOUR), c(ORANGE, TWO)],
             1: [c(YELLOW, ONE), c(YELLOW, ONE_B), c(GREEN, THREE)]}
    totals = [10, 3, 25]
    _, st = position([c(BLUE, TWO), c(BLUE, FOUR)], nests=nests, totals=totals)
    assert st.g[0, ddb.ROW_LEN] == 1  # blue 2 is face up in seat 0's row
    want = [totals[p] + nest_points(nests.get(p, [])) for p in range(3)]
    assert want == [16, 7, 25]
    assert G.running_score(st)[0].tolist() == want
    G.step(st, np.array([ddb.BANK]))  # seat 0 banks the blue 2
    assert G.running_score(st)[0].tolist() == [want[0] + 2, 7, 25]
    # seat 1's turn: blue 4 face up, then (draw) the next card of the pile, red 1 (its twin is
    # in seat 0's nest): a row of two, still at risk, counts nothing
    assert G.to_move(st)[0] == 1 and st.row[0, 0] == c(BLUE, FOUR)
    G.step(st, np.array([ddb.DRAW]))
    assert st.row[0, :st.g[0, ddb.ROW_LEN]].tolist() == [c(BLUE, FOUR), c(RED, ONE_B)]
    assert G.running_score(st)[0].tolist() == [18, 7, 25]
    G.step(st, np.array([ddb.BANK]))  # banked: now they count
    want = [18, totals[1] + nest_points(nests[1] + [c(BLUE, FOUR), c(RED, ONE_B)]), 25]
    assert want[1] == 12 and G.running_score(st)[0].tolist() == want


def _paper_safari_oracle(values, tie_high=True):
    """Victory cards the round gives if scored now (plain Python, from the rulebook): each grid
    (2 rows x 3 columns of values; 'S' a Safari, copying the row neighbour that gives its owner
    the lowest total) summed, two equal cards in a column counting 0; the lowest total wins,
    a tie goes to more cards of the highest value; still tied: each gets one."""
    def total(grid):
        best = None
        options = []
        for r in range(2):
            for col in range(3):
                if grid[r][col] == "S":
                    options.append([(r, k) for k in (col - 1, col + 1) if 0 <= k < 3])
        for pick in itertools.product(*options) if options else [()]:
            v = [list(row) for row in grid]
            it = iter(pick)
            for r in range(2):
                for col in range(3):
                    if v[r][col] == "S":
                        rr, kk = next(it)
                        v[r][col] = grid[rr][kk]
            s = sum(0 if v[0][k] == v[1][k] else v[0][k] + v[1][k] for k in range(3))
            cards = sorted((x for row in v for x in row), reverse=True)
            if best is None or s < best[0]:
                best = (s, cards)
        return best

    scored = [total(g) for g in values]
    low = min(s for s, _ in scored)
    tied = [p for p, (s, _) in enumerate(scored) if s == low]
    if tie_high and len(tied) > 1:
        top = max(scored[p][1] for p in tied)
        tied = [p for p in tied if scored[p][1] == top]
    return [1 if p in tied else 0 for p in range(len(values))]


@pytest.mark.parametrize("tie_high", [True, False])
def test_paper_safari_running_score_is_victory_cards_and_this_rounds_if_scored_now(tie_high):
    from safari_sim.games import paper_safari as ps
    from tests.test_paper_safari import G, SAFARI, T, position

    cases = [  # (grids as values top row then bottom row, victory cards already won)
        ([[[5, 3, -2], [5, 0, 7]], [[8, 1, 2], [4, 6, 0]], [["S", 2, 3], [1, 1, 4]]], [1, 0, 2]),
        # a tie at 8: seat 1 holds the 8, the highest card
        ([[[4, 0, 1], [2, 3, -2]], [[8, 0, -2], [2, 0, 0]], [[8, 7, 6], [5, 4, 3]]], [0, 2, 1]),
    ]
    for grids, wins in cases:
        types = [[SAFARI if v == "S" else T(v) for row in g for v in row] for g in grids]
        _, st = position(types, up=[[True] + [False] * 5] * 3,
                         rules={"high_card_tie_break": tie_high})
        st.pp[0, :, ps.WINS] = wins  # rounds won before this one
        assert G.to_move(st)[0] == 0
        now = _paper_safari_oracle(grids, tie_high)
        assert G.running_score(st)[0].tolist() == [w + x for w, x in zip(wins, now)]
    assert _paper_safari_oracle(cases[0][0]) == [1, 0, 0]   # 8 against 21 and 13
    assert _paper_safari_oracle(cases[1][0], True) == [0, 1, 0]
    assert _paper_safari_oracle(cases[1][0], False) == [1, 1, 0]


def test_bluff_in_zoo_running_score_is_the_points_taken_not_the_pile():
    """The points each player took (one a card received); the pile on the table counts for
    nobody until a doubt gives it to someone."""
    from tests.test_bluff_in_zoo import HANDS3, MOUSE, G, bz, claim, place, position

    _, st = position(HANDS3)
    st.pp[0, :, bz.POINTS] = [7, 0, 3]  # points from earlier rounds
    place(st, "mouse 3")
    claim(st, 1, MOUSE)
    assert G.running_score(st)[0].tolist() == [7, 0, 3]
    G.step(st, np.array([bz.CONTINUE]))
    place(st, "mouse 1")
    claim(st, 5, MOUSE)  # the pile holds 4 mice: a lie
    assert G.running_score(st)[0].tolist() == [7, 0, 3]  # two cards at stake, nobody's yet
    G.step(st, np.array([bz.DOUBT]))
    pile = 2  # mouse 3 and mouse 1: "each card received counts one negative point"
    assert G.running_score(st)[0].tolist() == [7, 0 + pile, 3]


def test_herds_running_score_is_the_totals_and_the_herds_on_the_table():
    """Each side's total of the finished hands plus its herds scored now by the printed tables;
    the cards in hand count nothing; at four players both partners have the team's."""
    from tests.test_herds import EXP, LION, TIGER, G, c, position

    def herd_points(suit, cards):  # the rulebook's two tables
        if suit == EXP:
            return {3: 3, 4: 5, 5: 7, 6: 10}[len(cards)]
        return {1: 1, 2: 1, 3: 2, 4: 3, 5: 5, 6: 7}[sum(1 for x in cards if x < 60)]

    herds = [(0, EXP, [c("explorer", n) for n in range(1, 5)]),
             (0, LION, [c("lion", 2), c("lion", 3), c("lion", 4), c("explorer", 5)]),
             (1, TIGER, [c("tiger", n) for n in range(1, 6)] + [c("explorer", 6)])]
    totals = [20, 31]
    st = position({0: [c("lion", 6), c("lion", 5)], 1: [c("tiger", 6, 1)]},
                  [c("elephant", 1)], herds=herds, players=4, totals=totals)
    assert G.to_move(st)[0] == 0
    side = [totals[t] + sum(herd_points(s, cs) for o, s, cs in herds if o == t) for t in (0, 1)]
    assert side == [20 + 5 + 2, 31 + 5]
    assert G.running_score(st)[0].tolist() == [side[0], side[1], side[0], side[1]]
    # two players: each seat its own side
    st2 = position({0: [c("lion", 6)]}, [c("elephant", 1)], herds=herds, players=2,
                   totals=totals)
    assert G.running_score(st2)[0].tolist() == side


def test_savannah_running_score_is_the_points_as_they_are_scored():
    """The rulebook's Example B: each play's points count the moment it is made, the claim's
    point as soon as the space is found (before the card is chosen)."""
    from tests.test_savannah import C, G, T, example_b, play

    st = example_b()
    st.score[0] = [10, 0, 7]  # points from earlier turns
    run = [10, 0, 7]
    # the printed points: Debra 2 + 2, Kevin 3, Amy 2 + 3, Debra 3 + 1
    for card, y, x, seat, pts in [(C("3-Elephant"), 1, 1, 0, 4), (C("2-Zebra"), 3, 5, 1, 3),
                                  (C("2-Elephant", True), 2, 1, 2, 5),
                                  (C("2-Monkey"), 0, 2, 0, 4)]:
        play(st, card, y, x)
        run[seat] += pts
        assert G.running_score(st)[0].tolist() == run
    st.g[0, T.CUR] = 2
    G.relist(st)
    play(st, C("6-Lion"), 0, 0)  # 2 + 2, and an unplayable space found: 1 point
    run[2] += 4 + 1
    assert st.g[0, T.KIND] == T.KEEP  # the card to keep is not chosen yet
    assert G.running_score(st)[0].tolist() == run
