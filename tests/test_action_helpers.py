"""Every game's observation builds each kind of action from its meaning (``view.draw_action()``,
``view.steal_action(offset, k)``, ...), asked of one game's view as a per-game function asks it:
each helper's number is the action whose ``action_name`` says that meaning, together they reach
every action the game has, and the opening decision's helper is a legal action there."""

from __future__ import annotations

import numpy as np
import pytest

from safari_sim import observation_docs
from safari_sim.engine.chance import game_keys
from safari_sim.games import game_ids, get_game
from strategies.base import GameView

P = 3


def _view(g, rules, players=P):
    state = g.init(rules, players, game_keys(4, players, 2).deal)
    obs = g.observe(state, np.arange(2)).freeze()
    return GameView(obs, 1), g.legal(state)[1], state


def _animal_hunt(g, r, v):
    places = v.places
    out = {v.flip_action(k): f"flip the card at place {k}" for k in range(places)}
    out[v.show_action()] = "show the match from the hand (choice A)"
    out.update({v.ask_action(o): f"ask the player {o} to the left (choice B)"
                for o in range(1, P)})
    return out, v.flip_action(0)


def _bluff_in_zoo(g, r, v):
    out = {v.go_on_action(): "go on (make a bigger claim)",
           v.doubt_action(): "doubt the last claim",
           v.draw_action(): "draw a card from the draw pile, look at it and place it",
           v.no_card_action(): "place no card"}
    out.update({v.card_action(t): f"place the hand card {g.card_name(r, t)}"
                for t in range(g.n_types(r))})
    out.update({v.count_action(c): f"claim {c} animals (the kind comes next)"
                for c in range(1, r.claim_cap() + 1)})
    out.update({v.kind_action(k): f"name the animal: {a}" for k, a in enumerate(r.animals)})
    t = int(np.flatnonzero(np.asarray(v.hand))[0])           # the opening: place a hand card
    return out, v.card_action(t)


def _deducktion(g, r, v):
    from safari_sim.games.deducktion import NC, QNAMES
    out = {v.meld_action(n): f"meld the {n}s" for n in range(1, 7)}
    out[v.stop_meld_action()] = "stop melding"
    out.update({v.ask_action(o): f"ask the player {o} to the left" for o in range(1, 5)})
    out.update({v.question_action(q): name for q, name in enumerate(QNAMES) if name})
    out.update({v.card_action(c): f"pass the {g.card_name(c)}" for c in range(NC)})
    out.update({v.guess_action(n): f"guess number {n}" for n in range(1, 7)})
    out[v.no_guess_action()] = "no guess"
    opening = v.stop_meld_action() if v.kind == 0 else v.ask_action(1)
    return out, opening


def _duck_duck_bruce(g, r, v):
    out = {v.draw_action(): "take another card", v.bank_action(): "bank the row",
           v.pass_action(): "pass on the Bruce"}
    out.update({v.steal_action(o, k): f"declare {k} against the player {o} to the left"
                for o in range(1, P) for k in range(1, r.max_steal + 1)})
    return out, v.draw_action()


def _herds(g, r, v):
    from safari_sim.games.herds import ANIMALS, MAXH, NCARDS
    out = {v.deck_action(): "draw the deck's top card", v.trade_action(): "trade",
           v.trade_done_action(): "trade these cards", v.done_action(): "done with herds"}
    out.update({v.card_action(c): f"card {g.card_name(c)}" for c in range(NCARDS)})
    out.update({v.new_herd_action(s, lo): f"new {ANIMALS[s]} herd {lo}-{lo + 2}"
                for s in range(6) for lo in range(1, 5)})
    out.update({v.grow_action(h, e): f"grow herd {h} at its {('low', 'high')[e]} end"
                for h in range(MAXH) for e in (0, 1)})
    out.update({v.swap_action(k): f"swap the real card for explorer {k}" for k in range(1, 7)})
    out.update({v.pass_action(o): f"pass to the player {o} to the left" for o in range(1, P)})
    return out, v.deck_action()


def _hi_lo_hijinks(g, r, v):
    from safari_sim.games.hi_lo_hijinks import ANIMAL_NAMES
    nv, na = r.values, r.animals
    out = {v.play_action(s * nv + k, s): f"play {g.kind_name(r, s * nv + k)}"
           for s in range(na) for k in range(nv)}
    out.update({v.play_action(na * nv + k, s):
                f"play {k + 1}-Explorer on the {ANIMAL_NAMES[s]} stack"
                for s in range(na) for k in range(nv)})
    out.update({v.keep_action(): "keep the stack's direction",
                v.reverse_action(): "reverse the stack's direction",
                v.no_give_action(): "give no card"})
    out.update({v.give_action(k, o): f"give {g.kind_name(r, k)} to the player {o} to the left"
                for k in range((na + 1) * nv) for o in range(1, P)})
    k = int(np.flatnonzero(np.asarray(v.hand))[0])           # the opening: play a hand card
    return out, v.play_action(k, 0)


def _jungle_thrills(g, r, v):
    if r.version == 2:
        out = {v.hunt_action(s): f"hunt the pair in slot {s}"
               for s in range(r.animals * len(r.animal_values) // 2)}
        out[v.no_hunt_action()] = "do not go hunting"
        return out, None
    out = {v.demand_action(o, a): f"demand the {g.animal_name(a)}s from the player {o} to the left"
           for o in range(1, P) for a in range(r.animals)}
    if r.may_decline:
        out[v.no_demand_action()] = "do not use the right to demand"
    return out, None   # the opening turns a card up: no decision until a Hunter comes


def _paper_safari(g, r, v):
    out = {v.deck_action(): "draw from the deck", v.take_action(): "take the top of the discard pile",
           v.discard_action(): "discard the drawn card", v.no_peek_action(): "do not look"}
    out.update({v.slot_action(i, j): f"slot row {i} column {j}"
                for i in range(1, r.rows + 1) for j in range(1, r.cols + 1)})
    return out, v.slot_action(1, 1)   # the setup turns a card of the grid face up


def _safari_sprint(g, r, v):
    from safari_sim.games.safari_sprint import ANIMALS, SUIT_NAMES
    out = {v.play_action(s, n): f"play the {n} {SUIT_NAMES[s].capitalize()}"
           for s in range(6) for n in range(1, 7)}
    out.update({v.claim_action(a, s): f"put the {ANIMALS[a]} on space {s}"
                for a in range(5) for s in range(1, r.explorer_start)})
    return out, None


CASES = {"animal_hunt": [{}], "bluff_in_zoo": [{}], "deducktion": [{}],
         "duck_duck_bruce": [{}, {"bruce_may_pass": True}], "herds": [{}],
         "hi_lo_hijinks": [{}], "jungle_thrills": [{}, {"may_decline": True}, {"version": 2}],
         "paper_safari": [{}], "safari_sprint": [{}]}


def test_every_action_has_a_meaning():
    """No action is listed without a meaning (Deducktion's unused question numbers say so)."""
    for game_id in game_ids():
        g = get_game(game_id)
        r = g.make_rules({})
        n = max(g.min_players, min(3, g.max_players))
        assert all(g.action_name(r, n, a) for a in range(g.n_actions(r, n))), game_id


def test_every_game_is_covered():
    assert set(CASES) | {"savannah"} == set(game_ids())


@pytest.mark.parametrize("game_id,changes", [(g, c) for g, cs in CASES.items() for c in cs])
def test_each_helper_builds_the_action_of_its_meaning(game_id, changes):
    g = get_game(game_id)
    r = g.make_rules(changes)
    v, legal, _ = _view(g, r)
    want, opening = globals()[f"_{game_id}"](g, r, v)
    for a, name in want.items():
        assert isinstance(a, (int, np.integer)), (name, a)   # one number for one game's view
        assert g.action_name(r, P, int(a)) == name, (int(a), name)
    named = {a for a in range(g.n_actions(r, P)) if not g.action_name(r, P, a).startswith("(unused")}
    assert named == {int(a) for a in want}                  # every kind of action has a helper
    if opening is not None:
        assert legal[int(opening)], g.action_name(r, P, int(opening))
    # the batch observation answers for all its games at once
    state = g.init(r, P, game_keys(4, P, 3).deal)
    obs = g.observe(state, np.arange(3)).freeze()
    some = next(n for n in ("steal_action", "ask_action", "card_action", "slot_action",
                            "demand_action", "claim_action", "hunt_action", "play_action")
                if hasattr(type(obs), n))
    import inspect
    k = len(inspect.signature(getattr(type(obs), some)).parameters) - 1
    got = getattr(obs, some)(*([np.array([1, 1, 1])] * k))
    assert np.asarray(got).shape == (3,)


def test_savannah_helpers_name_the_candidates():
    g = get_game("savannah")
    r = g.make_rules({})
    v, legal, _ = _view(g, r)
    assert v.kind == 0 and v.n_cand > 3
    for k in range(v.n_cand):
        a = v.place_action(v.card[k], v.y[k], v.x[k])
        assert v.card[a] == v.card[k] and (v.y[a], v.x[a]) == (v.y[k], v.x[k]) and legal[a]
    assert v.place_action(v.card[0], 99, 99) == -1          # no such candidate
    assert (v.keep_action(1), v.keep_action(2)) == (0, 1)
    assert "0 keeps the 1st pile's card and 1 the 2nd pile's" in g.action_name(r, P, 0)


def test_the_helpers_are_listed_for_the_user():
    """``strategies GAME --observation`` and docs/observations.md list every helper."""
    from typer.testing import CliRunner

    from safari_sim.cli import app

    for game_id in game_ids():
        cls = observation_docs.observation_class(get_game(game_id))
        names = [n for n in vars(cls) if n.endswith("_action") and not n.startswith("_")]
        assert len(names) >= 2, game_id
        assert [h.call.split("(")[0] for h in observation_docs.helpers(cls)] == \
            [f"view.{n}" for n in names]
        r = CliRunner().invoke(app, ["strategies", game_id, "--observation"], env={"COLUMNS": "200"})
        assert r.exit_code == 0 and all(f"view.{n}(" in r.output for n in names), game_id


def test_a_views_helpers_read_no_games_rows():
    """The helpers marked ``action_helper`` are asked of the observation's shell (every game's
    row zeroed; the shared values kept), not of a copy of the game's rows: the same answers, at
    a fraction of the cost, and the shell holds nothing of any game."""
    import time

    from safari_sim.engine.protocol import action_helper  # noqa: F401  (the marker exists)

    for game_id in game_ids():
        cls = observation_docs.observation_class(get_game(game_id))
        marked = [n for n, f in vars(cls).items() if getattr(f, "shared_only", False)]
        assert marked or game_id == "savannah", game_id
        assert "place_action" not in marked          # it reads the game's candidate lists
    g = get_game("duck_duck_bruce")
    r = g.make_rules({})
    state = g.init(r, P, game_keys(1, P, 400).deal)
    obs = g.observe(state, np.arange(400)).freeze()
    shell = obs.shell()
    assert not np.asarray(shell.nest_size).any() and shell.max_steal == obs.max_steal
    assert np.array_equal(shell.die, obs.die)        # shared values as they are
    from strategies.base import columns
    reader = columns(obs)
    t0 = time.perf_counter()
    got = [GameView(obs, i, reader).steal_action(2, 1) for i in range(400)]
    t1 = time.perf_counter()
    for i in range(400):
        obs.take(np.array([i]))                      # what each view's first helper call cost
    t2 = time.perf_counter()
    assert got == [int(obs.steal_action(2, 1))] * 400
    assert t1 - t0 < (t2 - t1) / 2, (t1 - t0, t2 - t1)
