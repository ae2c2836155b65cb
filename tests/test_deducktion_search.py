"""Deducktion's search defaults (issue 32): the game's own candidates for the search
(``strategies.deducktion.search_candidates``) and the defaults that name them. The figures that
chose them are in docs/search.md ("Deducktion"), not in the suite."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim.engine.chance import game_keys
from safari_sim.games import deducktion as dk
from safari_sim.games import get_game
from strategies import deducktion as sd
from strategies import get_strategy
from strategies.search import Search

from heuristics import positions

G = get_game("deducktion")
HEURISTICS = ("naive", "collector", "deducer")


def _guess_positions(players, B, seed):
    """(state, games at a guess) at every guess decision of games the three heuristics play."""
    for st, _, _, live in positions(G, G.make_rules(), players, HEURISTICS, B, seed):
        at = live[st.g[live, dk.PHASE] == dk.GUESS]
        if at.size:
            yield st, at


@pytest.mark.parametrize("players", [2, 3, 5])
def test_guess_candidates_are_the_unseen_numbers_and_keep_the_missing_card(players):
    """At a guess the candidates are the animal's numbers the seat never saw and no guess; the
    missing card (read here from the real state, which the function never sees) is always
    among them; where one number is left unseen it is the missing card, and the only
    candidate."""
    sure = narrowed = 0
    for st, at in _guess_positions(players, 40, 3 + players):
        obs = G.observe(st, at)
        legal = G.legal(st)[at]
        cand = sd.search_candidates(obs, legal)
        assert not (cand & ~legal).any()
        for i, b in enumerate(at):
            a = int(st.g[b, dk.GANIMAL])
            box = [n for n in range(dk.NN) if st.loc[b, a * dk.NN + n] == dk.MISSING]
            assert len(box) == 1
            seen = obs.seen[i, a * dk.NN:(a + 1) * dk.NN]
            guesses = cand[i, dk.A_GUESS:dk.A_GUESS + dk.NN]
            assert guesses[box[0]]                      # the missing card is never left out
            assert not (guesses & seen).any()           # a card seen is no candidate
            assert np.array_equal(guesses, ~seen)
            if (~seen).sum() == 1:
                sure += 1
                assert not cand[i, dk.A_NO_GUESS] and cand[i].sum() == 1
            else:
                assert cand[i, dk.A_NO_GUESS]
                narrowed += int((~seen).sum() < dk.NN)
    assert sure > 20 and narrowed > 20


def test_other_decisions_keep_every_legal_action():
    keys = game_keys(4, 3, 8)
    st = G.init(G.make_rules(), 3, keys.deal)
    games = np.arange(8)
    legal = G.legal(st)
    assert np.array_equal(sd.search_candidates(G.observe(st, games), legal), legal)


def test_the_default_search_plays_deducktion_whole_games():
    """The shipped defaults (only the guess searched, the game's candidates, the other decisions
    by the deducer holding its melds to five): legal whole games against two deducers, the
    same in any batch."""
    p = Search().settings("deducktion")
    assert p.kinds == [5] and p.candidates == "search_candidates"
    keys = game_keys(5, 3, 6)
    seating = np.ones((6, 3), np.int64)
    seating[np.arange(6), np.arange(6) % 3] = 0
    from safari_sim.engine.play import play_batch
    a = play_batch(G, G.make_rules(), 3, [Search(), get_strategy(G.id, "deducer")()], seating,
                   keys)
    one = play_batch(G, G.make_rules(), 3, [Search(), get_strategy(G.id, "deducer")()],
                     seating[2:3], game_keys(5, 3, np.array([2])))
    assert np.array_equal(a.outcome.score[2:3], one.outcome.score)
