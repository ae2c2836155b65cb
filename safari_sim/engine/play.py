"""The lockstep loop: play one batch of games between strategies.

Knows games and strategies, nothing of experiments: the runner (``safari_sim.run``) calls it once
per batch. Per step it asks who is to move, groups the games by the strategy sitting in that
seat, gives each strategy a read-only observation of its games, a copy of their legal mask and
the seat streams of those games (never the game's own), checks the answers against the game's
own mask, and steps. ``play_on`` is that loop on a state already dealt (or part-played: the
worlds a search player plays out); a strategy with ``wants_worlds`` also gets a ``Worlds``
(``engine.worlds``) that deals worlds of the games it observes.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .chance import Keys, SeatRandom
from .protocol import Game, Outcome, sealed
from .worlds import Worlds


class IllegalActionError(RuntimeError):
    """A strategy's answer that is not a legal action: ``action`` is what it chose, ``detail``
    what is wrong with it (in the game's words, with the legal actions at that point)."""

    def __init__(self, strategy: str, game_id: str, batch_index: int, seat: int, action: Any,
                 detail: str = "", whole: bool = True):
        self.strategy = strategy
        self.game_id = game_id
        self.batch_index = batch_index
        if isinstance(action, np.generic):
            action = action.item()
        chose = f"illegal action {action}" if whole else \
            f"{action!r}, which is not a whole action number,"
        super().__init__(f"strategy '{strategy}' chose {chose} for seat {seat} in {game_id} "
                         f"game {batch_index} of its batch" + (f": {detail}" if detail else ""))


def _in_words(game: Game, rules: Any, players: int, action: int, legal: np.ndarray) -> str:
    """An illegal action and the legal ones at that point, in the game's words."""
    def name(a: int) -> str:
        try:
            return f"{a} ({game.action_name(rules, players, a)})"
        except Exception:  # an action number past the game's list has no name
            return str(a)
    ok = np.flatnonzero(legal).tolist()
    shown = ", ".join(name(a) for a in ok[:12]) + (f" and {len(ok) - 12} more" if len(ok) > 12
                                                   else "")
    what = name(action) if rules is not None and 0 <= action < legal.shape[0] else str(action)
    return f"{what} is not legal there; the legal actions were {shown}"


def whole_actions(a: Any) -> tuple[np.ndarray | None, int]:
    """``a`` as int64 action numbers, or (None, i) with i the first entry that is not a whole
    number (0.5, "1", True, None): such an answer is refused, never truncated."""
    # a list is read value by value (numpy would take [True, 2] for integers)
    arr = np.asarray(a, dtype=object) if isinstance(a, (list, tuple)) else np.asarray(a)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False), -1
    flat = arr.reshape(-1)
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(flat) | (flat != np.floor(flat)))
        if bad.size == 0:
            return arr.astype(np.int64), -1
        return None, int(bad[0])
    if arr.dtype.kind == "O":  # a list of Python values: whole numbers only, bools are not
        for i, v in enumerate(flat):
            if isinstance(v, (bool, np.bool_)) or not (
                    isinstance(v, (int, np.integer))
                    or (isinstance(v, (float, np.floating)) and float(v).is_integer())):
                return None, i
        return arr.astype(np.int64), -1
    return None, 0  # strings, bools, anything else


def _all_legal(a: np.ndarray, legal: np.ndarray) -> bool:
    """Whether every ``a[i]`` is a legal action of row i of ``legal``."""
    w = legal.shape[1]
    if a.min() < 0 or a.max() >= w:
        return False
    # one gather in the flattened mask: a third of the cost of 2-D fancy indexing
    return bool(np.take(legal.reshape(-1), np.arange(0, a.size * w, w) + a).all())


class StrategyFailed(RuntimeError):
    """A strategy's own code raised: the original exception is the cause (``__cause__``)."""

    def __init__(self, strategy: str, game_id: str, error: BaseException):
        self.strategy = strategy
        self.game_id = game_id
        super().__init__(f"strategy '{strategy}' failed in {game_id}: "
                         f"{type(error).__name__}: {error}")


def _compiled_play(strategies: Sequence[Any]):
    """The kernel that plays whole games with these strategies' compiled policies, or None
    (a strategy without one at the table, or policies of different games)."""
    plays = set()
    for s in strategies:
        if not getattr(s, "reads_state", False) or s.compiled_policy() is None:
            return None
        plays.add(s.play_compiled)
    return plays.pop() if len(plays) == 1 else None


_PARAMETERS: dict[Any, frozenset] = {}


def _parameters(fn) -> frozenset:
    """The names of a whole-game kernel's parameters (what ``play_on`` may hand it)."""
    got = _PARAMETERS.get(fn)
    if got is None:
        got = _PARAMETERS[fn] = frozenset(inspect.signature(fn).parameters)
    return got


def kernel_out(batch: int) -> np.ndarray:
    """The ``out`` array a whole-game kernel (``play_compiled``) fills: [0] the decisions made,
    [1] 1 + the first game whose policy chose an illegal action (0: none), [2 + b] the decisions
    of game b."""
    return np.zeros(2 + batch, np.int64)


def kernel_done(out: np.ndarray, per_game: np.ndarray | None = None) -> int:
    """The decisions a whole-game kernel made (``kernel_out``), each game's added to
    ``per_game``."""
    if out[1]:  # pragma: no cover - a compiled policy that disagrees with the rules
        raise RuntimeError(f"compiled policy chose an illegal action in game {out[1] - 1}")
    if per_game is not None:
        per_game += out[2:]
    return int(out[0])


@dataclass
class BatchResult:
    outcome: Outcome
    seating: np.ndarray  # int[B, P]: index of the strategy in each seat
    decisions: int       # decisions made in the whole batch
    per_game: np.ndarray  # int64[B]: decisions made in each game
    state: Any
    # seconds spent: deal (init), rules (step kernels, or whole games when compiled), observe,
    # strategies (act), loop (the rest: who moves, legality checks, bookkeeping)
    times: dict[str, float] = field(default_factory=dict)


def play_batch(game: Game, rules: Any, n_players: int, strategies: Sequence[Any],
               seating: np.ndarray, keys: Keys, log: bool = False,
               max_steps: int = 1_000_000, compiled: bool = True) -> BatchResult:
    """Play ``len(seating)`` games; ``seating[b, s]`` is the index in ``strategies`` of the
    strategy sitting in seat s (seat 0 starts) of game b; ``keys`` (``chance.game_keys``) are the
    games' chance streams and the seats' strategy streams.

    When every strategy at the table is a compiled heuristic (``compiled_policy()``, played by
    the same ``play_compiled``), whole games run inside one kernel; ``compiled=False`` plays the
    same games through the lockstep loop, each heuristic deciding for its rows with ``decide``:
    the same policies, so the same games (a test, every game)."""
    clock = time.perf_counter
    t_start = clock()
    batch = seating.shape[0]
    if len(keys) != batch:
        raise ValueError(f"{len(keys)} stream keys for {batch} games")
    state = game.init(rules, n_players, keys.deal, log=log)
    times = {"deal": clock() - t_start, "rules": 0.0, "observe": 0.0, "strategies": 0.0}
    for s in strategies:
        s.reset(batch, n_players)
    seat_rs = np.ascontiguousarray(keys.seat, dtype=np.uint64).reshape(-1).copy()
    per_game = np.zeros(batch, np.int64)
    decisions = play_on(game, state, strategies, seating, seat_rs, rules=rules,
                        max_steps=max_steps, compiled=compiled, times=times, per_game=per_game)
    times["loop"] = clock() - t_start - sum(times.values())
    return BatchResult(game.outcome(state), seating, decisions, per_game, state, times)


def play_on(game: Game, state: Any, strategies: Sequence[Any], seating: np.ndarray,
            seat_rs: np.ndarray, rules: Any = None, max_steps: int = 1_000_000,
            compiled: bool = True, times: dict[str, float] | None = None,
            stop: Any = None, per_game: np.ndarray | None = None, steps: int = 0,
            step_kinds: Sequence[int] | None = None) -> int:
    """Play the games of ``state`` (dealt, or part-played: a search's worlds) on to their end;
    returns the decisions made. ``seating`` as in ``play_batch``; ``seat_rs`` (uint64[B * P],
    advanced in place) the flat seat-stream states, row ``b * P + s`` for seat s of game b. The
    strategies must already be ``reset`` for this batch. ``rules`` (the state's) is for
    strategies that deal worlds (``wants_worlds``); ``times`` gathers rules, observe and
    strategies seconds. ``stop`` (a callable of the movers, int[B] with -1 where a game is over)
    ends the loop early, before a step, where it returns True (a tree search plays its tree part
    so, then the rest with the compiled heuristics); with ``stop`` the lockstep loop is played.
    ``per_game`` (int64[B]), when given, gets each game's decisions added. ``steps`` (> 0):
    each game plays at most that many more decisions (a search's depth): inside the whole-game
    kernel where the game's takes a ``steps`` argument (Savannah's), else the lockstep loop
    stopped after that many steps (every live game steps once per step: the same games).
    ``step_kinds`` (with ``steps``): only decisions of these kinds count, and each game stops
    before its next one once it has made ``steps`` of them (a turn's later decisions, e.g.
    Savannah's claims, are played); only a kernel that takes it plays so (else an error)."""
    clock = time.perf_counter
    if times is None:
        times = {"rules": 0.0, "observe": 0.0, "strategies": 0.0}
    batch = seating.shape[0]
    fused = _compiled_play(strategies) if compiled and stop is None else None
    if steps > 0 and fused is not None:
        takes = _parameters(fused)
        if "steps" not in takes or (step_kinds is not None and "step_kinds" not in takes):
            fused = None
    if fused is not None:
        t0 = clock()
        policies = [s.compiled_policy() for s in strategies]
        decisions = (fused(state, seating, policies, seat_rs, per_game, steps=steps,
                           **({} if step_kinds is None else {"step_kinds": tuple(step_kinds)}))
                     if steps > 0 else fused(state, seating, policies, seat_rs, per_game))
        times["rules"] += clock() - t0
        return decisions
    if steps > 0 and step_kinds is not None:
        raise NotImplementedError(
            f"{game.id}: a depth counting only decisions of kinds {list(step_kinds)} is played "
            "only by a whole-game kernel that takes it (Savannah's, with compiled heuristics in "
            "every seat)")
    if steps > 0:
        if stop is not None:
            raise ValueError("play_on: give steps or stop, not both")
        played = [0]

        def stop(mover):
            played[0] += 1
            return played[0] > steps
    actions = np.zeros(batch, dtype=np.int64)
    single = len(strategies) == 1
    wants = [bool(getattr(s, "wants_worlds", False)) for s in strategies]
    # a strategy that never reads its observation (``reads_obs = False``: random rollouts) is
    # spared building one
    state_of = [bool(getattr(s, "reads_state", False)) for s in strategies]
    blind = [getattr(s, "reads_obs", True) is False or state_of[k]
             for k, s in enumerate(strategies)]
    # flat seating: np.take on it is twice as fast as seating[live, mover[live]]
    width = seating.shape[1]
    seat_flat = np.ascontiguousarray(seating, dtype=np.int64).reshape(-1)
    decisions = 0
    for _ in range(max_steps):
        mover = game.to_move(state)
        live = np.flatnonzero(mover >= 0)
        if live.size == 0 or (stop is not None and stop(mover)):
            break
        legal = game.legal(state)
        who = None if single else np.take(seat_flat, live * width + np.take(mover, live))
        for k, strat in enumerate(strategies):
            idx = live if single else live[who == k]
            if idx.size == 0:
                continue
            t0 = clock()
            obs = None if blind[k] else game.observe(state, idx).freeze()
            lg = legal if idx.size == batch else np.take(legal, idx, axis=0)
            shown = sealed(lg)  # the strategy's own sealed copy: we check against lg
            seats = np.take(mover, idx)
            # the strategy draws on a copy of its own seats' streams alone (written back below):
            # nothing it holds reaches another seat's stream or another game's
            rows = idx * width + seats
            own = np.take(seat_rs, rows)
            rng = SeatRandom(own, np.arange(idx.size))
            t1 = clock()
            times["observe"] += t1 - t0
            try:
                if state_of[k]:  # a compiled heuristic: the same policy play_compiled plays
                    answer = strat.decide(state, idx, rng, shown)
                elif wants[k]:
                    answer = strat.act(obs, shown, rng,
                                       Worlds(game, rules, width, state, idx, seats))
                else:
                    answer = strat.act(obs, shown, rng)
            except Exception as e:
                raise StrategyFailed(getattr(strat, "label", type(strat).__name__), game.id,
                                     e) from e
            seat_rs[rows] = own
            times["strategies"] += clock() - t1
            a, bad = whole_actions(answer)
            if a is None:
                at = min(bad, idx.size - 1)
                raise IllegalActionError(getattr(strat, "label", type(strat).__name__), game.id,
                                         int(idx[at]), int(mover[idx[at]]),
                                         np.asarray(answer, dtype=object).reshape(-1)[bad],
                                         whole=False)
            if a.shape != idx.shape:
                raise RuntimeError(f"strategy '{getattr(strat, 'label', strat)}' returned "
                                   f"{a.shape[0] if a.ndim else 'a scalar'} actions for {idx.size} games")
            if not _all_legal(a, lg):
                ok = (a >= 0) & (a < lg.shape[1])
                ok[ok] = lg[np.flatnonzero(ok), a[ok]]
                bad = int(np.flatnonzero(~ok)[0])
                raise IllegalActionError(getattr(strat, "label", type(strat).__name__), game.id,
                                         int(idx[bad]), int(mover[idx[bad]]), int(a[bad]),
                                         detail=_in_words(game, rules, width, int(a[bad]),
                                                          lg[bad]))
            if idx.size == batch:
                actions[:] = a
            else:
                actions[idx] = a
        decisions += live.size
        if per_game is not None:
            per_game[live] += 1
        t0 = clock()
        game.step(state, actions)
        times["rules"] += clock() - t0
    else:  # pragma: no cover - a game that never ends is a bug in the game
        raise RuntimeError(f"{game.id}: games still running after {max_steps} steps")
    return decisions
