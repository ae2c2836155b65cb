"""What a strategy is: an object built from validated parameters with one method, ``act``.

A strategy knows nothing of the runner. It receives the observations of the games where its seat
is to move (numpy arrays, first axis = those games), the legal mask for them, and the seats'
random streams, and returns one action per game. ``PerGame`` (or ``per_game`` of a plain
function) is the same, written for one game at a time.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, create_model

from safari_sim.engine.protocol import sealed, sealed_copy


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Strategy:
    """Base class. Subclasses set ``name``, ``game`` (None = works for every game), a one-line
    ``summary`` and ``Params`` (a pydantic model whose fields are the knobs)."""

    name: ClassVar[str]
    game: ClassVar[str | None] = None
    summary: ClassVar[str] = ""
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, **params: Any):
        self.params = self.Params(**params)
        self.label = self.name

    def reset(self, batch: int, n_players: int) -> None:
        """Called before each batch; strategies with memory allocate [batch, n_players] arrays here."""

    def act(self, obs: Any, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per observed game."""
        raise TypeError(f"strategy {type(self).__name__} does not define act()")

    # A strategy that decides from the game's state (``reads_state``: the shipped heuristics,
    # ``Heuristic``) is called as ``decide(state, games, rng, legal)`` by the play loop instead
    # of ``act``; its ``compiled_policy()`` (None for the others) is what the game's whole-game
    # kernel (``play_compiled``) plays it by.
    reads_state: ClassVar[bool] = False

    def compiled_policy(self) -> Any:
        return None


class Heuristic(Strategy):
    """A shipped heuristic of one game: a compiled scalar policy, written once, in the game's
    ``strategies/_<game>_compiled.py`` (its ``KINDS`` name the policies by number).

    It reads the state of the game rather than an observation, held to its seat's knowledge by
    a test per game (everything the seat cannot see is scrambled, and its action must not
    change). The play loop calls ``decide`` for the games where it sits (one compiled call per
    strategy per step); a table of nothing but heuristics plays whole games inside
    ``play_compiled``; both play the very same policy. Subclasses set ``kernels`` (the compiled
    module's name), ``Params`` (the knobs, pydantic-validated) and ``knobs()`` (the numbers the
    policy reads, in its order); one with memory allocates it in ``reset`` and returns it as the
    third entry of ``policy()``."""

    kernels: ClassVar[str]
    reads_state: ClassVar[bool] = True

    @classmethod
    def compiled(cls):
        return importlib.import_module(cls.kernels)  # numba: compiled on first use

    def knobs(self) -> tuple:
        return tuple(self.params.model_dump().values())

    def policy(self) -> tuple:
        """(kind, knobs) or (kind, knobs, memory): what the compiled policy is called with."""
        return self.kind(), self.knobs()

    def kind(self) -> int:
        """The policy's number: the shipped class's name in ``KINDS`` (a user's subclass that
        only renames it, or adds a reset, plays the policy of the class it extends)."""
        kinds = self.compiled().KINDS
        for c in type(self).__mro__:
            if c.__dict__.get("name") in kinds:
                return kinds.index(c.__dict__["name"])
        raise TypeError(f"strategy '{self.name}': none of its classes is a policy of "
                        f"{self.kernels} (KINDS: {', '.join(kinds)})")

    def compiled_policy(self) -> Any:
        return self.policy()

    @property
    def play_compiled(self):
        return self.compiled().play_compiled

    def decide(self, state: Any, games: np.ndarray, rng: Any, legal: np.ndarray) -> np.ndarray:
        """The policy's action in each game of ``games`` (int64[n]) of ``state``, for the seat to
        move there; ``rng`` (``SeatRandom``) holds those seats' streams, advanced by what the
        policy draws; ``legal`` (bool[n, W]) the actions it may choose among."""
        rs = rng.states()
        out = self.compiled().decide(state, np.ascontiguousarray(games, np.int64),
                                     self.policy(), rs, legal)
        rng.advance(rs)
        return out

    def act(self, obs: Any, legal: np.ndarray, rng: Any) -> np.ndarray:
        raise TypeError(
            f"strategy '{self.name}' is a compiled heuristic: it decides from the game's state "
            "inside the play loop (engine.play), not from an observation; to write your own, "
            "subclass strategies.base.Strategy with act(obs, legal, rng), or write a per-game "
            "function (docs/strategies.md)")


def random_legal(legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``legal``."""
    # the pick-th True in each row; a narrow cumulative count keeps wide masks cheap
    csum = np.cumsum(legal, axis=1, dtype=np.int16 if legal.shape[1] < 2**15 else np.int32)
    pick = (rng.random(legal.shape[0]) * csum[:, -1]).astype(csum.dtype)
    return (csum <= pick[:, None]).sum(axis=1)


def first_legal(legal: np.ndarray) -> np.ndarray:
    return np.argmax(legal, axis=1)


class GameView:
    """One game's observation, for a strategy written one game at a time: ``view.row_len`` is
    ``obs.row_len[i]`` (a Python number, or a sealed row for a per-player field), values
    shared by every game as they are, a row padded to the batch's widest game trimmed to this
    game's entries (``Observation.padded``), and the observation's methods asked of this game
    alone (an ``action_helper``, which reads only its arguments and shared values, of the
    observation's ``shell``, which holds no game's values). Nothing can be written into it, nothing in it depends on the other games, and none of
    its attributes (private ones and ``.base`` included) leads to the other games' rows: it
    holds only a function that reads this game's values."""

    __slots__ = ("_get",)

    def __init__(self, obs: Any, i: int, cols: "Columns | None" = None):
        object.__setattr__(self, "_get", (cols if cols is not None else columns(obs))(i))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("an observation is read-only")

    def __dir__(self):
        return self._get(_DIR)


_METHOD = object()
_DIR = object()

# columns(obs) -> reader; reader(i) -> get(name): game i's value of a field
Columns = Any


def columns(obs: Any) -> Columns:
    """An observation's fields as the games' views read them, each worked out once for all of
    them on first use: a per-game number field as a list of Python numbers, a wider field as
    each game's own sealed row (a copy, whose ``.base`` holds that game's entries alone), a
    shared value as it is, a method marked as one. The batch's observation stays inside these
    closures, out of the views' attributes."""
    cache: dict[str, tuple[bool, Any]] = {}

    def column(name: str) -> tuple[bool, Any]:
        hit = cache.get(name)
        if hit is None:
            if callable(getattr(type(obs), name, None)):
                hit = (False, _METHOD)
            else:
                try:
                    v = getattr(obs, name)
                except AttributeError:
                    raise AttributeError(_no_field(obs, name)) from None
                count = obs.padded.get(name)
                if count is not None:   # a row padded to the batch's widest: this game's part
                    n = getattr(obs, count).tolist()
                    hit = (True, n if np.isscalar(v) else
                           [sealed_copy(row[:k]) for row, k in zip(v, n)])
                elif (isinstance(v, np.ndarray) and name not in obs.shared and v.ndim
                        and len(v) == len(obs)):
                    hit = (True, v.tolist() if v.ndim == 1 else [sealed_copy(row) for row in v])
                else:   # the loop's observations are frozen; a hand-made one may not be
                    hit = (False, sealed(v))
            cache[name] = hit
        return hit

    shell: list[Any] = []     # the observation without any game's values, made once

    def reader(i: int):
        one: list[Any] = []   # the one-game observation, made when a method is first asked

        def method(name: str):
            if getattr(getattr(type(obs), name), "shared_only", False):
                # an action helper reads its arguments and shared values only: asked of the
                # shell, with no copy of this game's rows (and nothing of the other games')
                if not shell:
                    shell.append(obs.shell())
                bound = getattr(shell[0], name)
            else:
                if not one:
                    one.append(obs.take(np.array([i])))
                bound = getattr(one[0], name)

            def ask(*args, **kwargs):
                out = bound(*(np.atleast_1d(a) if np.isscalar(a) else a for a in args), **kwargs)
                return out[0] if isinstance(out, np.ndarray) and out.ndim and len(out) == 1 else out
            return ask

        def get(name: Any) -> Any:
            if name is _DIR:
                return [n for n in dir(obs) if not n.startswith("_")]
            per_game, v = column(name)
            if per_game:
                return v[i]
            if v is _METHOD:
                return method(name)
            return v
        return get
    return reader


def _no_field(obs: Any, name: str) -> str:
    import difflib

    names = [n for n in dir(obs) if not n.startswith("_") and n not in ("take", "freeze",
                                                                        "shared", "padded")]
    near = difflib.get_close_matches(name, names, n=1)
    hint = f"; did you mean '{near[0]}'?" if near else ""
    return (f"the view has no field '{name}'{hint} (what it holds: "
            f"safari-sim strategies GAME --observation)")


class PerGame(Strategy):
    """A strategy written for one game at a time, the way a designer says it ("if my row holds
    three cards, bank"): ``choose(view, legal, rng)`` returns one action for one game, where
    ``view`` is that game's observation (``GameView``), ``legal`` the numbers of its legal
    actions (a sealed array of that game's alone), and ``rng`` that game's own seat stream
    (``chance.GameRandom``: ``random()``, ``integers(n)``, ``uniform(lo, hi)``,
    ``choice(options)``). It runs as plain Python, once per game at every decision: simple to
    write, slower than numpy over the observations (``act``)."""

    def choose(self, view: GameView, legal: np.ndarray, rng: Any) -> int:
        raise TypeError(f"strategy {type(self).__name__} does not define choose()")

    def act(self, obs: Any, legal: np.ndarray, rng: Any) -> list:
        n = len(obs)
        reader = columns(obs)
        rows, actions = np.nonzero(legal)
        split = np.split(actions, np.searchsorted(rows, np.arange(1, n)))
        legal_of = [sealed_copy(x) for x in split]
        out: list[Any] = [0] * n   # as chosen: the play loop refuses what is not a whole number
        i = 0
        try:
            for i in range(n):  # the point of this class: the designer's per-game Python
                g = rng.game(i)
                out[i] = self.choose(GameView(obs, i, reader), legal_of[i], g)
                rng.settle(i, g)
        except Exception as e:
            e.add_note(f"(choosing for the game in batch row {int(obs.game[i])}, legal actions "
                       f"{legal_of[i].tolist()})")
            raise
        return out


def per_game(fn: Any, name: str | None = None) -> type[PerGame]:
    """A ``PerGame`` strategy from a plain function ``fn(view, legal, rng, **knobs) -> action``:
    each keyword with a default after the first three is a knob (its default's type, settable
    in ``params:`` and sweepable as ``strategies.NAME.params.KNOB``)."""
    if (fn, name) in _PER_GAME:  # one class per function, however often it is loaded
        return _PER_GAME[fn, name]
    label = name or fn.__name__
    params = list(inspect.signature(fn).parameters.values())
    if len(params) < 3 or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                              for p in params[:3]):
        raise TypeError(f"'{label}' should take (view, legal, rng) first, then its knobs")
    knobs = {}
    for p in params[3:]:
        if p.default is p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"'{label}': knob '{p.name}' needs a default value (its type and "
                            f"the value it takes when params: leaves it out)")
        knobs[p.name] = (type(p.default) if p.default is not None else Any, p.default)
    doc = (inspect.getdoc(fn) or "").strip().splitlines()

    def choose(self, view, legal, rng):
        return fn(view, legal, rng, **self._knobs)

    def init(self, **params):
        PerGame.__init__(self, **params)
        self._knobs = dict(self.params)   # read once, not at every decision

    cls = _PER_GAME[fn, name] = type(label, (PerGame,), {
        "name": label, "summary": doc[0] if doc else f"the function {label}",
        "Params": create_model(f"{label}_params", __config__=ConfigDict(extra="forbid"), **knobs),
        "choose": choose, "__init__": init, "__module__": getattr(fn, "__module__", __name__)})
    return cls


_PER_GAME: dict[tuple[Any, str | None], type[PerGame]] = {}
