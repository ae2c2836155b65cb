"""Information-set MCTS (strategies/ismcts.py), the search player's second mode.

A small game with a known best move and a hidden card (the vault, below), and the real games
that deal worlds: legal whole games, the same game in any batch, choices that never read the
hidden cards.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest

from safari_sim.engine import chance
from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch, play_on
from safari_sim.engine.protocol import Game, Observation, Outcome, rule
from safari_sim.engine.worlds import Worlds, has_worlds
from safari_sim.games import game_ids, get_game
from strategies import get_strategy
from strategies.base import random_legal
from strategies.ismcts import Ismcts, rollout_spec
from tests.test_integrity import _players, _rules
from tests.test_paper_safari import permuted as paper_safari_permuted
from tests.test_search import _permuted as duck_duck_bruce_permuted

DDB = get_game("duck_duck_bruce")


# ---- the vault: a game whose best move is known and needs the tree --------------------------

@dataclass(frozen=True)
class VaultRules:
    sure: float = rule(0.8, "chance that the gamble of the second stage pays")


@dataclass
class VaultState:
    rs: np.ndarray
    rules: VaultRules
    hidden: np.ndarray  # int64[B]: the card seat 0 cannot see, 0..2
    stage: np.ndarray   # int64[B]: 0 first decision, 1 second, 2 over
    won: np.ndarray     # bool[B]: seat 0 won


@dataclass
class VaultObs(Observation):
    game: np.ndarray
    seat: np.ndarray
    kind: np.ndarray


class Vault(Game):
    """Two seats; only seat 0 decides. First: guess the hidden card (0, 1, 2: the game ends,
    won if right: 1/3) or pass (3). After a pass: gamble (0: won with chance ``sure``) or one
    of two losing actions (1, 2). Best: pass, then gamble (0.8). A random play-out after a pass
    wins 0.8 / 3 < 1/3, so a flat search with random rollouts guesses; a search that read the
    hidden card would guess it right every time."""

    id = "vault_test"
    name = "Vault (test)"
    min_players = max_players = 2
    Rules = VaultRules

    def n_actions(self, rules, n_players):
        return 4

    def init(self, rules, n_players, keys, log=False):
        rs = np.asarray(keys, np.uint64).copy()
        hidden = np.array([chance.below(rs, b, 3) for b in range(len(rs))], np.int64)
        return VaultState(rs, rules, hidden, np.zeros(len(rs), np.int64), np.zeros(len(rs), bool))

    def to_move(self, state):
        return np.where(state.stage < 2, 0, -1)

    def legal(self, state):
        lg = np.zeros((len(state.rs), 4), bool)
        lg[state.stage == 0] = True
        lg[state.stage == 1, :3] = True
        return lg

    def observe(self, state, games):
        games = np.asarray(games, np.int64)
        return VaultObs(games.copy(), np.zeros(len(games), np.int64), state.stage[games].copy())

    def step(self, state, actions):
        for b in np.flatnonzero(state.stage < 2):
            a = int(actions[b])
            if state.stage[b] == 0 and a < 3:
                state.won[b] = a == state.hidden[b]
                state.stage[b] = 2
            elif state.stage[b] == 0:
                state.stage[b] = 1
            else:
                state.won[b] = a == 0 and chance.uniform(state.rs, b) < state.rules.sure
                state.stage[b] = 2

    def outcome(self, state):
        win = np.stack([state.won, ~state.won], axis=1).astype(np.float64)
        return Outcome(win.copy(), np.where(win == 1, 1, 2).astype(np.int16), win,
                       np.ones(len(win), np.int32))

    def describe(self, state, i):
        return f"vault {i}"

    def determinize(self, state, games, seat, keys):
        w = self.clone(state, games)
        w.rs = np.asarray(keys, np.uint64).copy()
        w.hidden = np.array([chance.below(w.rs, b, 3) for b in range(len(w.rs))], np.int64)
        return w


VAULT = Vault()


def _decide(strategy, game, rules, p, state, salt=0):
    """The strategy's choices at the decision every live game of ``state`` awaits, called as the
    play loop calls it (one observation, a Worlds of the real state, the seats' streams)."""
    mover = np.asarray(game.to_move(state))
    idx = np.flatnonzero(mover >= 0)
    rs = game_keys(100 + salt, p, len(mover)).seat.reshape(-1).copy()
    legal = np.asarray(game.legal(state))[idx].copy()
    legal.flags.writeable = False
    strategy.reset(len(mover), p)
    a = strategy.act(game.observe(state, idx).freeze(), legal,
                     SeatRandom(rs, idx * p + mover[idx]),
                     Worlds(game, rules, p, state, idx, mover[idx].copy()))
    assert legal[np.arange(idx.size), a].all()
    return idx, np.asarray(a)


def test_ismcts_finds_the_vaults_best_move_without_reading_the_card():
    """Every game: pass, whatever the hidden card (a search reading it would guess it); the
    flat search with random rollouts guesses instead (the tree is what finds the pass)."""
    rules = VAULT.make_rules()
    state = VAULT.init(rules, 2, chance.deal_keys(12, 3))
    assert len(set(state.hidden.tolist())) == 3
    _, a = _decide(Ismcts(iterations=200), VAULT, rules, 2, state)
    assert (a == 3).all(), a
    flat = get_strategy(VAULT.id, "search")(rollouts=300)
    _, b = _decide(flat, VAULT, rules, 2, state)
    assert (b != 3).mean() > 0.5, b
    # and then the gamble
    VAULT.step(state, np.full(12, 3))
    _, a = _decide(Ismcts(iterations=60), VAULT, rules, 2, state)
    assert (a == 0).all(), a


def test_ismcts_tree_counts():
    """The tree's books: every iteration visits the root's child it took once (visits sum to
    the iterations), availability is at least the visits, and a better action is visited more."""
    rules = VAULT.make_rules()
    state = VAULT.init(rules, 2, chance.deal_keys(5, 1))
    s = Ismcts(iterations=120)
    mover = VAULT.to_move(state)
    idx = np.arange(5)
    worlds = Worlds(VAULT, rules, 2, state, idx, mover.copy())
    from safari_sim.engine.worlds import seed_keys

    rs = game_keys(1, 2, 5).seat.reshape(-1).copy()
    base = seed_keys(SeatRandom(rs, idx * 2))
    visits, mean = s._search(VAULT, worlds, idx, base, s._rollout(VAULT), 4)
    assert np.array_equal(visits.sum(axis=1), np.full(5, 120.0))
    assert (visits[:, 3] > visits[:, :3].max(axis=1)).all()
    assert np.all((mean[:, :3] >= 0) & (mean[:, :3] <= 1))


def test_ismcts_knobs_are_checked():
    with pytest.raises(Exception, match="iterations"):
        Ismcts(iterations=0)
    with pytest.raises(Exception, match="objective"):
        Ismcts(objective="points")
    with pytest.raises(Exception, match="c"):
        Ismcts(c=-1)
    with pytest.raises(Exception, match="depth"):
        Ismcts(depth=-2)
    with pytest.raises(TypeError, match="play loop"):
        Ismcts().act(None, np.ones((1, 2), bool), None)
    assert rollout_spec("duck_duck_bruce", "benchmark", {}) == ("stop_at", {"cards": 3})
    assert rollout_spec("vault_test", "benchmark", {}) == ("random", {})
    assert rollout_spec("paper_safari", "closer", {"x": 1}) == ("closer", {"x": 1})


# ---- the real games -------------------------------------------------------------------------

class FirstDecisions:
    """Plays ``inner`` at the first ``first`` decisions of its seat in each game, random after
    (whole games stay cheap: every iteration plays a whole game)."""

    wants_worlds = True
    label = "first"

    def __init__(self, inner, first=2):
        self.inner, self.first = inner, first

    def reset(self, batch, n_players):
        self.inner.reset(batch, n_players)
        self.count = np.zeros(batch, np.int64)

    def act(self, obs, legal, rng, worlds):
        out = random_legal(legal, rng)
        rows = np.flatnonzero(self.count[obs.game] < self.first)
        self.count[obs.game] += 1
        if rows.size:
            sub = SeatRandom(rng._rs, rng._rows[rows])
            out[rows] = self.inner.act(obs.take(rows), legal[rows], sub, worlds.take(rows))
        return out


def _table(players, batch):
    seating = np.ones((batch, players), np.int64)
    seating[np.arange(batch), np.arange(batch) % players] = 0
    return seating


@pytest.mark.parametrize("game_id", game_ids())
def test_ismcts_plays_legal_games_the_same_in_any_batch(game_id):
    """Whole games at a tiny budget in every game that deals worlds: legal (the play loop checks
    every action), and game 3 of a batch of 7 is the same game played alone."""
    game = get_game(game_id)
    if not has_worlds(game):
        pytest.skip(f"{game_id} has no determinize")
    p, rules = _players(game), _rules(game)
    strats = [FirstDecisions(Ismcts(iterations=3, rollout="random")),
              get_strategy(game_id, "random")()]
    keys = game_keys(11, p, 7)
    seating = _table(p, 7)
    seven = play_batch(game, rules, p, strats, seating, keys)
    one = play_batch(game, rules, p, strats, seating[3:4], keys.take([3]))
    for k in ("score", "turns", "win"):
        assert np.array_equal(getattr(seven.outcome, k)[3:4], getattr(one.outcome, k))
    assert (strats[0].count >= 1).all()


@pytest.mark.parametrize("depth", [0, 2])
def test_ismcts_duck_duck_bruce_whole_games_any_batch_and_margin(depth):
    """Duck Duck Bruce, every decision searched (benchmark rollouts: the compiled play-out; the
    margin objective; max_worlds 3 splits the searched games; and with ``depth``, the worlds
    stopped after the root action and 2 steps, scored by the running score): the same games in
    batches of 7 and 1, and chunks change nothing."""
    rules = DDB.make_rules(rounds=1)
    keys = game_keys(5, 3, 7)
    seating = _table(3, 7)
    opp = get_strategy(DDB.id, "card_counter")()
    kw = dict(iterations=6, objective="margin", depth=depth)
    seven = play_batch(DDB, rules, 3, [Ismcts(**kw), opp], seating, keys)
    chunks = play_batch(DDB, rules, 3, [Ismcts(**kw, max_worlds=3), opp], seating, keys)
    one = play_batch(DDB, rules, 3, [Ismcts(**kw), opp], seating[3:4], keys.take([3]))
    assert np.array_equal(seven.outcome.score, chunks.outcome.score)
    assert np.array_equal(seven.outcome.score[3:4], one.outcome.score)
    assert np.array_equal(seven.outcome.turns[3:4], one.outcome.turns)


def _random_steps(game, state, p, steps, seed):
    """``steps`` steps of random play (the play loop's, stopped by ``stop``)."""
    left = iter(range(steps, -1, -1))
    random = get_strategy(game.id, "random")()
    random.reset(len(state.rs), p)
    play_on(game, state, [random], np.zeros((len(state.rs), p), np.int64),
            game_keys(seed, p, len(state.rs)).seat.reshape(-1).copy(),
            stop=lambda mover: next(left) == 0)


def _arrays(state):
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)
            if isinstance(getattr(state, f.name), np.ndarray)}


@pytest.mark.parametrize("game_id", ["duck_duck_bruce", "paper_safari"])
def test_ismcts_never_reads_the_hidden_cards(game_id):
    """Its choices at real positions are the same when every card the seat cannot see is moved
    (the games' own permutations), and deciding leaves the real state as it was."""
    game = get_game(game_id)
    p = 3
    rules = game.make_rules(rounds=1) if game_id == "duck_duck_bruce" else game.make_rules()
    state = game.init(rules, p, game_keys(7, p, 10).deal)
    _random_steps(game, state, p, 9, 2)
    mover = np.asarray(game.to_move(state))
    idx = np.flatnonzero(mover >= 0)
    assert idx.size >= 5
    if game_id == "duck_duck_bruce":
        other = duck_duck_bruce_permuted(state, 3)
    else:
        other = paper_safari_permuted(state, idx, mover[idx], np.random.default_rng(3))
    changed = [k for k, v in _arrays(state).items() if not np.array_equal(v, _arrays(other)[k])]
    assert changed  # the permutation moved something
    before = copy.deepcopy(_arrays(state))
    kw = dict(iterations=16, rollout="random")
    for salt in range(2 if game_id == "duck_duck_bruce" else 1):
        i1, a1 = _decide(Ismcts(**kw), game, rules, p, state, salt)
        i2, a2 = _decide(Ismcts(**kw), game, rules, p, other, salt)
        assert np.array_equal(i1, i2) and np.array_equal(a1, a2)
    for k, v in _arrays(state).items():
        assert np.array_equal(v, before[k]), f"searching changed the real state's {k}"



def test_ismcts_depth_counts_the_tree_part():
    """Every world plays exactly the root action and ``depth`` more steps, the tree's own
    included, however deep its tree goes: the decisions made in each iteration's worlds (tree
    part and play-out) are (d + 1) per world (no round ends that soon after the deal)."""
    import strategies.ismcts as im

    made = []
    real = im.play_on

    def counting(*a, **kw):
        made.append(real(*a, **kw))
        return made[-1]

    rules = DDB.make_rules(rounds=1)
    n, p, it = 4, 3, 5
    st = DDB.init(rules, p, game_keys(9, p, n).deal)
    idx = np.arange(n)
    mover = DDB.to_move(st)
    try:
        im.play_on = counting
        for d in (1, 3, 6):
            made.clear()
            s = Ismcts(iterations=it, depth=d, rollout="random")
            s.reset(n, p)
            s.act(DDB.observe(st, idx).freeze(), DDB.legal(st).copy(),
                  SeatRandom(game_keys(9, p, n).seat.reshape(-1).copy(), idx * p + mover),
                  Worlds(DDB, rules, p, st, idx, mover.copy()))
            assert sum(made) == it * n * (d + 1), (d, made)
    finally:
        im.play_on = real
