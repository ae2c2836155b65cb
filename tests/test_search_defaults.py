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
    return importlib.import_module(f"strategies.{game_id}").SEARCH


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
