"""Each game's search defaults (its ``SEARCH``, chosen by the measured table in docs/search.md,
"Per-game defaults"): the default ``search``, with no knobs set, plays with them; a knob set on
the player wins; the strategies they name are the game's. No play: the figures that chose
them are in the table, not in the suite."""

from __future__ import annotations

import importlib

import pytest

from safari_sim.games import get_game
from strategies import get_strategy
from strategies.search import Search

# the games whose defaults issue 32 measured here (Bluff in Zoo's: tests/test_search_weighed.py
# and the table; Animal Hunt's candidates and worlds: tests/test_animal_hunt_search.py)
GAMES = ["jungle_thrills", "hi_lo_hijinks", "safari_sprint", "herds", "paper_safari",
         "duck_duck_bruce", "animal_hunt", "deducktion", "savannah"]


def search_of(game_id):
    """The game's SEARCH but for the rows of player counts measured apart (``"at"``)."""
    return {k: v for k, v in importlib.import_module(f"strategies.{game_id}").SEARCH.items()
            if k != "at"}


@pytest.mark.parametrize("game_id", GAMES)
def test_the_default_search_plays_the_games_defaults(game_id):
    want = search_of(game_id)
    p = Search().settings(game_id)
    assert {k: getattr(p, k) for k in want} == want
    # every knob the game leaves unset is the generic one
    generic = Search.Params()
    assert {k: v for k, v in p.model_dump().items() if k not in want} == \
        {k: v for k, v in generic.model_dump().items() if k not in want}
    # a knob set on the player wins over the game's
    assert Search(rollouts=1, depth=0).settings(game_id).rollouts == 1
    assert Search(rollouts=1, depth=0).settings(game_id).depth == 0


@pytest.mark.parametrize("game_id", GAMES)
def test_the_defaults_name_the_games_own_strategies(game_id):
    """The rollout, prior and elsewhere strategies are built (as the search builds them on its
    first decision), and the searched kinds are the game's."""
    game = get_game(game_id)
    p, prior, rollout, other = Search()._strategies(game)
    assert (prior is None) == (p.prior is None) and (other is None) == (p.elsewhere is None)
    for name in (p.prior, p.elsewhere, p.own_rollout,
                 None if p.rollout == "benchmark" else p.rollout):
        if name is not None:
            get_strategy(game_id, name)
    assert all(0 <= k < len(game.decision_kinds) for k in p.kinds or [])
    if p.candidates is not None:   # the game's own candidates: a function of its module
        assert callable(getattr(importlib.import_module(f"strategies.{game_id}"), p.candidates))


def test_a_player_count_measured_apart_has_its_own_knobs(monkeypatch):
    """``SEARCH["at"]``: a player count's own knobs replace the game's at that count only (the
    search reads the count from its worlds); a knob set on the player still wins; the player
    checks every count's settings."""
    import numpy as np

    from safari_sim.engine.chance import game_keys
    from safari_sim.engine.play import play_batch
    from strategies import jungle_thrills

    monkeypatch.setattr(jungle_thrills, "SEARCH", {"rollouts": 3, "rollout": "benchmark",
                                                   "at": {4: {"rollouts": 1, "top_k": 2}}})
    three, four = Search().settings("jungle_thrills", 3), Search().settings("jungle_thrills", 4)
    assert (three.rollouts, three.top_k, four.rollouts, four.top_k) == (3, 0, 1, 2)
    assert Search().settings("jungle_thrills") == three            # no count: the game's row
    assert Search(rollouts=5).settings("jungle_thrills", 4).rollouts == 5
    assert "at" not in Search().settings("jungle_thrills", 4).model_dump()

    # the searcher plays each table with its count's knobs (seen in what it builds)
    game = get_game("jungle_thrills")
    rules = game.make_rules(None)
    s = Search()
    for players in (3, 4):
        seating = np.zeros((2, players), np.int64)
        seating[:, 1:] = 1
        play_batch(game, rules, players, [s, get_strategy("jungle_thrills", "rememberer")()],
                   seating, game_keys(3, players, np.arange(2)))
    assert s._helpers[("jungle_thrills", 3)][0].rollouts == 3
    assert s._helpers[("jungle_thrills", 4)][0].rollouts == 1
    assert s._helpers[("jungle_thrills", 4)][0].top_k == 2

    # a count's knob that names no strategy of the game fails the check, as the game's would
    monkeypatch.setattr(jungle_thrills, "SEARCH", {"rollouts": 3, "at": {4: {"prior": "nobody"}}})
    with pytest.raises(ValueError, match="prior"):
        Search().check_for(game)
