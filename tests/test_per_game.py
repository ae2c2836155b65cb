"""Strategies written one game at a time (strategies.base.PerGame, per_game of a plain function,
`use: FILE.py:FUNCTION`): the same games as the shipped strategy they restate, draws from their
own game's seat stream only, read-only views, and one clear message for a malformed function."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from safari_sim.cli import app
from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch, play_on
from safari_sim.games import get_game
from strategies import StrategyNotFound, get_strategy
from strategies.base import GameView, PerGame, per_game

ROOT = Path(__file__).resolve().parents[1]
BOTS = "bots/duck_duck_bruce.py"
G = get_game("duck_duck_bruce")


def bot(name):
    return get_strategy(G.id, f"{BOTS}:{name}", ROOT / "experiments")


@pytest.mark.parametrize("rules", [{}, {"bruce_cards": 12, "rounds": 2}])
def test_a_per_game_function_plays_the_games_of_the_strategy_it_restates(rules):
    """``bank_at`` is ``stop_at`` (declare 1) said one game at a time: the same games, to the
    decision, at a mixed table with another strategy."""
    r = G.make_rules(rules)
    B, P = 300, 3
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 2
    counter = get_strategy(G.id, "card_counter")()
    mine = play_batch(G, r, P, [bot("bank_at")(cards=4), counter], seating, game_keys(3, P, B))
    ref = play_batch(G, r, P, [get_strategy(G.id, "stop_at")(cards=4), counter], seating,
                     game_keys(3, P, B))
    assert mine.decisions == ref.decisions
    assert np.array_equal(mine.outcome.score, ref.outcome.score)
    for k in ref.outcome.stats:
        assert np.array_equal(mine.outcome.stats[k], ref.outcome.stats[k], equal_nan=True), k
    assert ref.outcome.stats["bruce_tried"].sum() > 0      # the Bruce branch was played
    other = play_batch(G, r, P, [bot("bank_at")(cards=2), counter], seating, game_keys(3, P, B))
    assert not np.array_equal(other.outcome.score, ref.outcome.score)  # the knob is read


def test_a_games_draws_come_from_its_own_seat_stream():
    """``rng.game(i)`` draws what ``SeatRandom`` gives row i, and a drawing per-game strategy
    plays the same games whatever else shares its batch (batches of 1, 5 and 24)."""
    rs = np.arange(1, 13, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    rows = np.array([4, 0, 9])
    whole = SeatRandom(rs.copy(), rows).random((3, 5))
    rs2 = rs.copy()
    one = SeatRandom(rs2, rows)
    for i in (2, 0, 1):
        g = one.game(i)
        assert [g.random() for _ in range(5)] == whole[i].tolist()
    assert g.integers(3, 9) in range(3, 9) and g.choice(["a", "b"]) in ("a", "b")
    nervous = bot("nervous")(risk=0.2, wobble=0.15)
    B, P = 24, 3
    seat = np.zeros((B, P), np.int64)
    full = play_batch(G, G.make_rules({}), P, [nervous], seat, game_keys(8, P, B))
    for size in (1, 5):
        for start in range(0, B, size):
            end = min(start + size, B)
            keys = game_keys(8, P, np.arange(start, end))
            part = play_batch(G, G.make_rules({}), P, [nervous], seat[start:end], keys)
            assert np.array_equal(part.outcome.score, full.outcome.score[start:end])
    calm = play_batch(G, G.make_rules({}), P, [bot("nervous")(risk=0.2, wobble=0.0)], seat,
                      game_keys(8, P, B))
    assert not np.array_equal(calm.outcome.score, full.outcome.score)  # the draws matter


def test_a_view_is_one_games_read_only_observation():
    state = G.init(G.make_rules({}), 3, game_keys(2, 3, 6).deal)
    obs = G.observe(state, np.arange(6))
    view = GameView(obs, 4)
    assert view.row_len == obs.row_len[4] and view.seat == obs.seat[4]
    assert np.array_equal(view.nest_size, obs.nest_size[4])
    assert np.array_equal(view.die, obs.die)                     # shared by every game
    assert view.max_steal == obs.max_steal
    assert view.steal_action(2, 1) == obs.steal_action(np.array([2]), np.array([1]))[0]
    with pytest.raises(AttributeError):
        view.row_len = 9
    with pytest.raises(ValueError):
        view.nest_size[0] = 9
    with pytest.raises(AttributeError):
        view.deck                                                # no such field: hidden

    seen = []

    class Spy(PerGame):
        name = "spy"

        def choose(self, view, legal, rng):
            seen.append((view.row_len, view.nest_size, legal))
            return int(legal[0])

    mask = np.zeros((6, 5), bool)
    mask[:, [0, 1]] = True
    mask[2, 3] = True
    Spy().act(obs, mask, SeatRandom(np.ones(18, np.uint64), np.arange(6)))
    assert [list(a) for _, _, a in seen] == [[0, 1]] * 2 + [[0, 1, 3]] + [[0, 1]] * 3
    assert [r for r, _, _ in seen] == obs.row_len.tolist()
    for _, nest, acts in seen:
        with pytest.raises(ValueError):
            acts[0] = 4                                          # nor into its legal actions
        with pytest.raises(ValueError):
            nest[0] = 4


def test_malformed_functions_get_one_clear_message():
    def two(view, legal):
        return 0

    def bare_knob(view, legal, rng, cards):
        return 0

    with pytest.raises(TypeError, match=r"'two' should take \(view, legal, rng\) first"):
        per_game(two)
    with pytest.raises(TypeError, match="knob 'cards' needs a default"):
        per_game(bare_knob)
    assert issubclass(per_game(bot_fn := (lambda view, legal, rng, k=2: 0), "lam"), PerGame)
    assert per_game(bot_fn, "lam") is per_game(bot_fn, "lam")    # one class per function
    with pytest.raises(StrategyNotFound, match="did you mean 'bank_at'"):
        bot("bank_a")


def test_run_a_per_game_function_from_an_experiment(tmp_path):
    """`use: FILE.py:FUNCTION` with a knob swept, on 2 workers; a bad function exits 2."""
    (tmp_path / "mine.py").write_text(textwrap.dedent("""
        def bank_at(view, legal, rng, cards=3):
            '''bank at `cards` cards'''
            if view.kind == 1:
                return int(legal[0])
            return 1 if view.row_len >= cards else 0

        def broken(view, legal):
            return 0
    """))
    text = textwrap.dedent("""
        game: duck_duck_bruce
        players: 3
        games: 600
        seed: 4
        rules: {rounds: 1}
        strategies:
          - {name: mine, use: mine.py:bank_at, params: {cards: 2}}
          - {name: bold, use: stop_at, params: {cards: 4}}
          - {name: counter, use: card_counter}
        sweep: {strategies.mine.params.cards: [2, 5]}
        parallel: {jobs: 2, batch: 100, chunk: 200}
    """)
    (tmp_path / "exp.yaml").write_text(text)
    runner = CliRunner()
    r = runner.invoke(app, ["run", str(tmp_path / "exp.yaml"), "--output", str(tmp_path / "res"),
                            "--quiet"])
    assert r.exit_code == 0, r.output
    df = pl.read_parquet(str(tmp_path / "res") + "/**/*.parquet")
    assert df.height == 2 * 600 * 3 and set(df["strategy"].unique()) == {"mine", "bold", "counter"}
    rates = df.filter(pl.col("strategy") == "mine").group_by("variant").agg(pl.col("win").mean())
    assert rates.height == 2 and rates["win"].n_unique() == 2
    (tmp_path / "bad.yaml").write_text(text.replace("mine.py:bank_at", "mine.py:broken"))
    r = runner.invoke(app, ["run", str(tmp_path / "bad.yaml"), "--output", str(tmp_path / "b"),
                            "--quiet"])
    assert r.exit_code == 2 and "'broken' should take (view, legal, rng) first" in r.output
    assert not (tmp_path / "b").exists()


def _pick(view, legal, rng):
    """a uniformly random legal action, drawn from this game's own stream"""
    return int(rng.choice(legal))


@pytest.mark.parametrize("game_id", [g for g in __import__("safari_sim.games", fromlist=["x"])
                                     .game_ids()])
def test_every_game_plays_a_per_game_function(game_id):
    """Every game's observation works as one game's view (its fields, its own take), and a
    per-game function plays legal games whose draws do not depend on the batch."""
    from safari_sim import observation_docs

    g = get_game(game_id)
    players = max(g.min_players, min(3, g.max_players))
    r = g.make_rules({})
    strat = per_game(_pick, "pick")()
    B = 6
    seat = np.zeros((B, players), np.int64)
    full = play_batch(g, r, players, [strat], seat, game_keys(2, players, B))
    assert full.decisions > 0
    for b in range(B):
        one = play_batch(g, r, players, [strat], seat[b:b + 1], game_keys(2, players, [b]))
        assert np.array_equal(one.outcome.score, full.outcome.score[b:b + 1]), b
    # as many games as a shared array has entries too: a view must not take it for a per-game one
    state = g.init(r, players, game_keys(2, players, 64).deal)
    obs = g.observe(state, np.arange(3))
    sizes = {3} | {len(v) for v in vars(obs).values() if isinstance(v, np.ndarray) and v.ndim
                   and 1 < len(v) <= 64 and len(v) != len(obs)}
    names = [f.name for f in observation_docs.fields(type(obs))]   # what the docs list
    assert names
    for n in sorted(sizes):
        obs = g.observe(state, np.arange(n)).freeze()
        view, one = GameView(obs, 1), obs.take(np.array([1]))
        for name in names:
            v, want = getattr(view, name), getattr(one, name)
            if isinstance(want, np.ndarray) and name not in obs.shared and want.ndim:
                want = want[0]               # the one game's own row of a per-game field
            assert np.array_equal(np.asarray(v), np.asarray(want)), (game_id, n, name)
    # part-played games (lists of different lengths): a game's view is the same whichever other
    # games share its observation (Savannah pads its candidate lists to the longest: trimmed)
    B = 30
    keys = game_keys(6, players, B)
    state = g.init(r, players, keys.deal)
    rand = get_strategy(game_id, "random")()
    rand.reset(B, players)
    steps = iter(range(9))
    play_on(g, state, [rand], np.zeros((B, players), np.int64), keys.seat.reshape(-1).copy(),
            rules=r, stop=lambda movers: next(steps, None) is None)
    batch = g.observe(state, np.arange(B)).freeze()
    for i in range(B):
        alone = g.observe(state, np.array([i])).freeze()
        for name in names:
            if name != "game":
                a, b = getattr(GameView(batch, i), name), getattr(GameView(alone, 0), name)
                assert np.array_equal(np.asarray(a), np.asarray(b)), (game_id, i, name)


def test_a_failing_function_says_which_game_it_was_choosing_for():
    def fails_on_long_rows(view, legal, rng):
        return 1 if view.row_len / (view.row_len - view.row_len) else 0

    state = G.init(G.make_rules({}), 3, game_keys(2, 3, 4).deal)
    obs = G.observe(state, np.arange(4)).freeze()
    mask = np.ones((4, 3), bool)
    with pytest.raises(ZeroDivisionError) as e:
        per_game(fails_on_long_rows)().act(obs, mask, SeatRandom(np.ones(12, np.uint64),
                                                                 np.arange(4)))
    assert "(choosing for the game in batch row 0, legal actions [0, 1, 2])" in e.value.__notes__


def test_a_misspelled_view_field_and_another_games_strategy_get_a_clear_message():
    state = G.init(G.make_rules({}), 3, game_keys(2, 3, 4).deal)
    view = GameView(G.observe(state, np.arange(4)).freeze(), 1)
    with pytest.raises(AttributeError, match="no field 'row_lenn'; did you mean 'row_len'"):
        view.row_lenn
    assert not hasattr(view, "deck")                 # hidden: no such field, and no hint of it
    with pytest.raises(StrategyNotFound,
                       match="'stop_at' is a strategy of duck_duck_bruce, not of hi_lo_hijinks"):
        get_strategy("hi_lo_hijinks", "stop_at")
    with pytest.raises(StrategyNotFound, match="did you mean 'stop_at'"):
        get_strategy("duck_duck_bruce", "stop_a")


def _nervous_one_game(view, legal, rng, risk=0.25, wobble=0.1):
    """The batch example's ``Nervous`` said one game at a time, drawing the same one number."""
    u = rng.random()
    bust = view.bust_chance()
    if view.kind == 1:
        biggest = 1 + int(np.argmax(view.nest_size[1:]))
        if view.nest_size[biggest] == 0 and 2 in legal:
            return 2
        return int(view.steal_action(biggest, 1))
    return 1 if view.row_len > 0 and bust >= risk + (2 * u - 1) * wobble else 0


@pytest.mark.parametrize("knobs", [{}, {"risk": 0.4, "wobble": 0.0}])
def test_the_batch_example_plays_what_it_says_beside_the_shipped_heuristics(knobs):
    """experiments/bots/duck_duck_bruce_batch.py (numpy over the batch) and the same strategy
    written one game at a time play the same games, at a table with two compiled heuristics
    (which the loop asks through their decide), and the knobs change the games."""
    batch = get_strategy(G.id, "bots/duck_duck_bruce_batch.py:Nervous", ROOT / "experiments")
    one = per_game(_nervous_one_game)
    r = G.make_rules({"rounds": 2})
    B, P = 240, 3
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 3
    others = [get_strategy(G.id, "card_counter")(), get_strategy(G.id, "scoreboard")()]
    a = play_batch(G, r, P, [batch(**knobs)] + others, seating, game_keys(4, P, B))
    b = play_batch(G, r, P, [one(**knobs)] + others, seating, game_keys(4, P, B))
    assert a.decisions == b.decisions
    assert np.array_equal(a.outcome.score, b.outcome.score)
    c = play_batch(G, r, P, [batch(risk=0.9, wobble=0.0)] + others, seating, game_keys(4, P, B))
    assert not np.array_equal(a.outcome.score, c.outcome.score)
