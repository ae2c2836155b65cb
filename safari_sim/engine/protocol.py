"""The batched game protocol every game implements.

A game plays a batch of B independent games in lockstep. Its state is a struct of numpy arrays
whose first axis is the batch; the rules run in numba kernels that loop over the batch. The play
loop (``engine.play``) only ever stops at real decisions: chance and forced moves are resolved
inside ``init`` and ``step``.

A game knows nothing of experiments or strategies: it deals, says who must decide and what is
legal, shows each seat only what that seat may know, applies decisions, and scores.
"""

from __future__ import annotations

import abc
import dataclasses
import difflib
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np


class RulesError(ValueError):
    """A rules override that is unknown, of the wrong type, or impossible for the game."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"rules.{field_name}: {message}" if field_name else message)


def rule(default: Any, doc: str, search: Any = None) -> Any:
    """A Rules field with its printed default and a one-line meaning (shown by `safari-sim rules`).

    ``search`` declares the values worth trying when tuning or screening the rules (`safari-sim
    tune` and `sensitivity` need only the field's name then): a ``range(lo, hi + 1[, step])`` of
    whole numbers, a ``(lo, hi)`` pair of floats for a continuous field, or a list of choices.
    None (the default) leaves the field out unless a tune file gives its values."""
    meta = {"doc": doc}
    if search is not None:
        meta["search"] = search if isinstance(search, range) else (
            tuple(search) if isinstance(search, (list, tuple)) else search)
    if isinstance(default, (list, tuple)):
        value = tuple(default)
        return field(default_factory=lambda: value, metadata=meta)
    return field(default=default, metadata=meta)


def search_space(rules_cls: type) -> dict[str, Any]:
    """The declared ``search`` of every Rules field that has one, by field name."""
    return {f.name: f.metadata["search"] for f in dataclasses.fields(rules_cls)
            if "search" in f.metadata}


@dataclass(frozen=True)
class Outcome:
    """Final result of every game in a batch.

    score: the game's own score per seat (what the rulebook calls points; see ``Game.score_name``).
    rank:  1 = best, ties share the better rank (1, 1, 3).
    win:   1 for a sole winner, 1/k for each of k tied winners, else 0.
    turns: turns played per game.
    stats: extra columns; an array [B] is a per-game statistic, [B, P] a per-seat one.
    """

    score: np.ndarray
    rank: np.ndarray
    win: np.ndarray
    turns: np.ndarray
    stats: dict[str, np.ndarray] = field(default_factory=dict)


def action_helper(fn):
    """Marks an observation's method that builds an action number from its arguments and the
    values shared by every observed game alone (sizes, offsets, shared tables: never a game's
    own row). A one-game view (strategies.base.GameView) asks it of an observation that holds
    no game's values (``Observation.shell``) instead of copying its game's rows first: a field's
    cost (a few microseconds) rather than a copy's (a few hundred)."""
    fn.shared_only = True
    return fn


class Observation:
    """Base for a game's observation dataclass: numpy arrays whose first axis is the observed
    games, plus values shared by all of them (named in ``shared``)."""

    shared: ClassVar[tuple[str, ...]] = ()
    # Fields padded to the widest of the observed games, each with the per-game field that
    # counts its real entries: a one-game view (strategies.base.GameView) trims each row to that
    # count, and gives the count itself for a number such as a width, so it never depends on
    # which games share the batch.
    padded: ClassVar[dict[str, str]] = {}

    def take(self, rows: np.ndarray) -> "Observation":
        """The observation of a subset of its games (rows index its first axis)."""
        kw = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            kw[f.name] = v[rows] if isinstance(v, np.ndarray) and f.name not in self.shared else v
        return dataclasses.replace(self, **kw).freeze()

    def freeze(self) -> "Observation":
        """Seal every array it holds (in place; returns self): each becomes a read-only copy
        whose memory is an immutable bytes object (``sealed``), so that a strategy writing into
        its observation gets an error, and setting ``flags.writeable`` back on, on the array or
        on anything its ``.base`` leads to, is refused: nothing reaches the game's state.

        A game's ``observe`` must also hand out a snapshot: arrays made for this observation
        (or for this step), never views of the live state, so that an observation kept across
        steps still says what it said. Sealing copies every array once more, so a field that
        aliases the state (a rules table, a constant) is cut loose from it here too."""
        for name, v in list(vars(self).items()):
            if isinstance(v, np.ndarray):
                object.__setattr__(self, name, sealed(v))
            elif isinstance(v, tuple) and any(isinstance(x, np.ndarray) for x in v):
                object.__setattr__(self, name, tuple(sealed(x) for x in v))
        return self

    def shell(self) -> "Observation":
        """The observation with no game's values: the shared values and plain numbers as they
        are, each per-game array as zeros of one game's shape (so a helper can read a size from
        it). What ``action_helper`` methods are asked on for a one-game view."""
        out = object.__new__(type(self))
        for name, v in vars(self).items():
            if isinstance(v, np.ndarray):
                if name not in self.shared and v.ndim and len(v) == len(self):
                    v = np.zeros((1,) + v.shape[1:], v.dtype)
                object.__setattr__(out, name, sealed(v))
            elif name.startswith("_"):
                continue                       # private blocks, cached values: not carried
            elif v is None or isinstance(v, (bool, int, float, str, np.generic)):
                object.__setattr__(out, name, v)
        return out

    def __len__(self) -> int:
        return len(self.game)


def sealed(x: Any, copy: bool = False) -> Any:
    """``x`` as a read-only array that nothing can make writable again: a copy whose memory is
    an immutable bytes object (numpy refuses ``flags.writeable = True`` on it and on every
    array its ``.base`` leads to). An array already sealed is returned as it is, unless
    ``copy`` (a part of one that must not lead to the rest)."""
    if not isinstance(x, np.ndarray):
        return x
    if not copy and not x.flags.writeable:   # a writable array is never sealed: no walk
        root = x.base
        while isinstance(root, np.ndarray):
            root = root.base
        if isinstance(root, bytes):
            return x
    if x.dtype.hasobject:  # no buffer to seal: a read-only copy is the most numpy gives
        y = x.copy()
        y.flags.writeable = False
        return y
    return sealed_copy(x)


def sealed_copy(x: np.ndarray) -> np.ndarray:
    """A sealed copy of ``x`` (a numeric array), with no questions asked: the fast path."""
    out = np.frombuffer(x.tobytes(), x.dtype)
    return out if x.ndim == 1 else out.reshape(x.shape)


# What strategies get is sealed: a read-only view alone can be made writable again.
read_only = sealed


def ranks_and_wins(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (1 = best, ties share) and win shares from a [B, P] key where higher is better."""
    key = np.asarray(key, dtype=np.float64)
    # rank = 1 + number of seats strictly better
    rank = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
    first = rank == 1
    win = first / first.sum(axis=1, keepdims=True)
    return rank.astype(np.int16), win.astype(np.float64)


def winners_changed(before: np.ndarray, after: np.ndarray, lower_wins: bool = False) -> np.ndarray:
    """int8[B]: 1 where the players who win on the ``before`` scores [B, P] (ties share) are not
    those who win on ``after``: a game's measure of whether one part of the score (a bonus, the
    last round) decided who won."""
    sign = -1.0 if lower_wins else 1.0
    first = lambda s: sign * s == (sign * s).max(axis=1, keepdims=True)  # noqa: E731
    return (first(np.asarray(before, np.float64))
            != first(np.asarray(after, np.float64))).any(axis=1).astype(np.int8)


class Game(abc.ABC):
    """Base class: one instance per game, holding no per-batch state.

    Subclasses set the class attributes and implement the methods below. States are plain
    objects (usually a dataclass of numpy arrays) owned by the game.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Rules: ClassVar[type]
    score_name: ClassVar[str] = "points"
    lower_score_wins: ClassVar[bool] = False
    # True where ``outcome(state)`` of a batch in which some games still run gives each finished
    # game its own result (a finished game's row reads only that game): a search then scores
    # its finished worlds in place, not from a copy of them (``strategies.search.world_results``)
    outcome_by_rows: ClassVar[bool] = False
    # Names of the decision kinds, indexed by the ``kind`` field of the observation.
    decision_kinds: ClassVar[tuple[str, ...]] = ()
    # The game's own measures: the ``Outcome.stats`` columns its rules notes list under
    # "Measures" (docs/rules/<id>.md). ``compare`` shows each as a line, ``sensitivity``
    # screens it, ``tune`` can take it as an objective and the report shows it, as they do the
    # designer's ``measures:`` (stats.dataset.measure_columns reads both). A measure is one
    # number a game (an array [B]) unless it is named in ``seat_measures`` too: one number per
    # seat ([B, P], like Paper Safari's rounds_closed_won), read per strategy, never from one
    # seat's row (stats.dataset.seat_measures).
    measures: ClassVar[tuple[str, ...]] = ()
    seat_measures: ClassVar[tuple[str, ...]] = ()

    # ---- rules -------------------------------------------------------------------------
    def make_rules(self, overrides: dict[str, Any] | None = None, **fields: Any) -> Any:
        """Printed rules with ``overrides`` (and keyword ``fields``) applied; unknown names and
        wrong types raise RulesError."""
        return make_rules(self.Rules, {**(overrides or {}), **fields})

    def check(self, rules: Any, n_players: int) -> None:
        """Raise RulesError for a combination the game cannot be played with."""
        if not self.min_players <= n_players <= self.max_players:
            raise RulesError(
                "", f"{self.id} is for {self.min_players} to {self.max_players} players, not {n_players}"
            )

    @abc.abstractmethod
    def n_actions(self, rules: Any, n_players: int) -> int:
        ...

    def teams(self, rules: Any, n_players: int) -> np.ndarray | None:
        """Who is partnered: int[P], the team number of each seat (partners share one; numbered
        in the order of their first seat, so seat 0's team is 0), or None when every player
        plays for themselves (the default). The runner writes it as the dataset's ``team``
        column and the report then reads teams, not players: a team's win is its partners'
        shares together, against a fair share of one over the number of teams."""
        return None

    def action_name(self, rules: Any, n_players: int, action: int) -> str:
        return f"action {action}"

    # ---- play --------------------------------------------------------------------------
    @abc.abstractmethod
    def init(self, rules: Any, n_players: int, keys: np.ndarray, log: bool = False) -> Any:
        """Shuffle, deal and advance every game to its first decision. ``keys`` (uint64[B],
        ``chance.game_keys(...).deal``) are the games' chance streams: game b draws every card
        and die from stream b alone (``chance.below(rs, b, n)``, its state kept in the game's
        state), so a game is the same in any batch. ``log`` records events so that ``describe``
        can tell the game move by move (used by `safari-sim trace`)."""
        ...

    @abc.abstractmethod
    def to_move(self, state: Any) -> np.ndarray:
        """int[B]: the seat that must decide now, -1 where the game is over."""
        ...

    @abc.abstractmethod
    def legal(self, state: Any) -> np.ndarray:
        """bool[B, W]: the legal actions of the seat to move (all False where the game is over).

        W may be less than ``n_actions``: every action from W on is then illegal (a game whose
        legal actions form a short prefix of a long list returns just that prefix)."""
        ...

    @abc.abstractmethod
    def observe(self, state: Any, games: np.ndarray) -> Any:
        """What the seat to move in each of ``games`` (indices into the batch) may know.

        Every array in the observation has first axis len(games). It must carry ``game``
        (the batch index, for strategies that keep memory), ``seat`` and ``kind`` (the
        decision kind). Nothing hidden from that seat may be in it.
        """
        ...

    @abc.abstractmethod
    def step(self, state: Any, actions: np.ndarray) -> None:
        """Apply ``actions[b]`` in every game b that awaits a decision, then resolve chance (from
        each game's own stream) and forced moves up to the next decision or the end."""
        ...

    @abc.abstractmethod
    def outcome(self, state: Any) -> Outcome:
        ...

    def points_available(self, rules: Any, n_players: int) -> float | None:
        """The points the players share out in a game under ``rules`` (all of them together),
        where the rules fix it; None where they do not. A rules change that moves it rescales
        the score: ``compare`` then says so and shows each score as a share of it."""
        return None

    def running_score(self, state: Any) -> np.ndarray:
        """float64[B, P]: each seat's score if the game were scored now, in the same units and
        direction as ``outcome(state).score`` (so it EQUALS outcome's score once a game is over;
        ``lower_score_wins`` still says which way is better). Mid-game it is the rulebook's own
        count applied to the position as it stands: what is banked, held, collected or owed now
        (e.g. Duck Duck Bruce: the points banked, finished rounds and this round's banked nests;
        never cards still at risk). A read of the state: it changes nothing."""
        raise NotImplementedError(f"{self.name} has no running score: a depth-limited search "
                                  "cannot score its worlds")

    @abc.abstractmethod
    def describe(self, state: Any, i: int) -> str:
        """A readable account of game ``i`` so far (needs ``init(..., log=True)``)."""
        ...

    # ---- worlds, for search players ------------------------------------------------------
    # Names of State fields that are not per-game arrays (constants shared by the batch) though
    # their first axis may happen to equal the batch size; ``clone`` shares them.
    constant_fields: ClassVar[tuple[str, ...]] = ()

    def clone(self, state: Any, rows: np.ndarray) -> Any:
        """A new state of ``len(rows)`` games, game i a deep copy of game ``rows[i]`` (rows may
        repeat). Every array field whose first axis is the batch is copied by rows; other
        fields (rules, constants, scalars) are shared; cached per-step buffers are dropped.
        A game whose State does not fit this overrides it."""
        rows = np.asarray(rows, np.int64)
        batch = len(state.rs)
        kw = {}
        for f in dataclasses.fields(state):
            v = getattr(state, f.name)
            if (isinstance(v, np.ndarray) and v.ndim >= 1 and v.shape[0] == batch
                    and f.name not in self.constant_fields):
                kw[f.name] = self.clone_field(f.name, v, rows)
            elif f.default is None and not isinstance(v, np.ndarray) and v is not None:
                kw[f.name] = None  # a cache (a view of the state): rebuilt on use
        return dataclasses.replace(state, **kw)

    def row_bytes(self, state: Any) -> int:
        """Bytes of one game of ``state``: its per-game arrays, those ``clone`` copies by rows
        (what each world of a search costs in memory)."""
        batch = len(state.rs)
        return int(sum(v.nbytes // batch for f in dataclasses.fields(state)
                       if isinstance(v := getattr(state, f.name), np.ndarray) and v.ndim >= 1
                       and v.shape[0] == batch and batch and f.name not in self.constant_fields))

    def clone_field(self, name: str, value: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """One per-game array of a ``clone``: row i a copy of row ``rows[i]`` (a game may hand
        some fields reused buffers and fill them itself after: Savannah's)."""
        return value[rows]  # fancy indexing: a copy

    def determinize(self, state: Any, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> Any:
        """Plausible worlds for search: a new state of ``len(games)`` games, game i a copy of
        game ``games[i]`` in which everything ``seat[i]`` cannot see (other hands, the deck's
        order, face-down cards) is dealt again, consistently with everything that seat has
        seen, and whose chance stream is ``keys[i]`` (drawn from the seat's own stream: the
        world's future dice and draws are not the real game's). ``games`` may repeat.

        The worlds depend only on what the seat may know: permuting the hidden cards of the real
        state leaves their distribution unchanged, and the seat's observation of each world
        equals its observation of the real game."""
        raise NotImplementedError(f"{self.id} cannot deal worlds for search yet")

    def world_weights(self, state: Any, seat: np.ndarray, trust: float) -> np.ndarray:
        """float64[B]: how likely what the other seats said is in each world of ``state``, for
        the seat ``seat[i]`` that deals world i (a search weighs its worlds by it, Bayes' rule:
        a world where a claim is true counts ``trust / (1 - trust)`` times one where it is
        false), under an honest-leaning model of them: each public statement of another seat
        (a claim, a bid) that the world could make false is true with chance ``trust``. A read
        of the worlds, before anything is played in them. Games where no seat says anything
        about hidden cards weigh every world alike (the default)."""
        return np.ones(len(np.asarray(seat)), np.float64)


# ---- rules overrides ---------------------------------------------------------------------

def rules_fields(rules_cls: type) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(rules_cls)]


def rules_to_dict(rules: Any) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(rules):
        v = getattr(rules, f.name)
        out[f.name] = list(v) if isinstance(v, tuple) else v
    return out


def _coerce(name: str, tp: Any, value: Any) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for a in args:
            if a is type(None):
                continue
            try:
                return _coerce(name, a, value)
            except RulesError:
                pass
        raise RulesError(name, f"expected {_type_name(tp)}, got {value!r}")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise RulesError(name, f"expected a list, got {value!r}")
        item = args[0] if args else Any
        return tuple(_coerce(name, item, v) for v in value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise RulesError(name, f"expected true or false, got {value!r}")
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(name, f"expected a whole number, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RulesError(name, f"expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise RulesError(name, f"expected text, got {value!r}")
        return value
    return value


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", str(tp)).replace("NoneType", "null")


def make_rules(rules_cls: type, overrides: dict[str, Any]) -> Any:
    """Build ``rules_cls`` from its defaults and ``overrides``, with errors that name the field."""
    hints = typing.get_type_hints(rules_cls)
    names = [f.name for f in dataclasses.fields(rules_cls)]
    kwargs = {}
    for key, value in overrides.items():
        if key not in names:
            near = difflib.get_close_matches(key, names, n=1)
            hint = f"; did you mean '{near[0]}'?" if near else f"; known fields: {', '.join(names)}"
            raise RulesError(key, f"no such rules field{hint}")
        kwargs[key] = _coerce(key, hints[key], value)
    rules = rules_cls(**kwargs)
    validate = getattr(rules, "validate", None)
    if validate is not None:
        validate()
    return rules
