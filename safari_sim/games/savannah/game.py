"""Savannah (duck! duck! SAFARI!), 2-3 players: the Game object, the state, the observation.

Read next to the rulebook's Savannah section: rules.py holds the printed numbers, grid.py the
playing space and what may go where (Step A), turn.py the turn in the printed order. Every
reading of a gap is in docs/rules/savannah.md.

The action space is a candidate list: the observation lists every legal placement of the player
to move -- (hand slot, space) with the points it scores now -- packed at the front, and the action
is its index. The list is as long as it can ever need to be: a hand of H cards and at most 8 empty
spaces around each of at most N face-up cards give at most H * 8 * N placements (``n_actions``),
so no legal placement is ever left out. A claim's choice (keep the 1st or the 2nd pile's card)
uses candidates 0 and 1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...engine import buffers, drama
from ...engine.chance import deal_keys, shuffle_rows
from ...engine.protocol import Game, Observation, action_helper, Outcome, ranks_and_wins, read_only
from . import turn as T
from . import worlds as W
from .grid import BLOCKED, side
from .rules import BURIED, Rules, card_name, copies

CLAIM_ACTIONS = 2


@dataclass
class State:
    n_players: int
    rules: Rules
    prm: np.ndarray        # int64[turn.NP]: see turn.P_*
    copies: np.ndarray     # int8[36]: cards of each type in the deck
    g: np.ndarray          # int32[B, NG]: per-game scalars (turn.CUR, ...)
    board: np.ndarray      # int8[B, S*S]: EMPTY, OPEN, card id + 1 face up, BLOCKED (grid.py)
    up_pos: np.ndarray     # int32[B, N]: spaces of the face-up cards (first g[N_UP])
    up_count: np.ndarray   # int8[B, 36]: face-up cards of each type
    hand: np.ndarray       # int8[B, P, H] (first hand_n valid)
    hand_n: np.ndarray     # int8[B, P]
    pile1: np.ndarray      # int8[B, N]: the 1st pile (phase two: the draw pile), top = last
    pile2: np.ndarray      # int8[B, N]: the 2nd pile
    fd_pos: np.ndarray     # int32[B, N]: unplayable spaces holding a face-down card
    fd_card: np.ndarray    # int8[B, N]: which card lies face down there
    fd_owner: np.ndarray   # int8[B, N]: the seat that buried it (-1: set up by hand, nobody)
    box: np.ndarray        # int8[B, N]: cards removed in phase two
    score: np.ndarray      # int32[B, P]
    claims: np.ndarray     # int32[B, P]: unplayable spaces found
    unpl: np.ndarray       # int32[B, F]: this turn's unplayable spaces
    fr: np.ndarray         # int32[B, F]: the open spaces (first g[N_FR])
    sc: np.ndarray         # int64[B, 2F]: both lines through each (grid.pack), then the card
                           # types each may take (grid.allowed of both), if g[FR_OK]
    cand_slot: np.ndarray  # int8[B, K]: hand slot (claim: 0 keep 1st pile's card, 1 the 2nd's)
    cand_card: np.ndarray  # int8[B, K]
    cand_cell: np.ndarray  # int32[B, K]: the space (flat index)
    cand_pts: np.ndarray   # int16[B, K]: points now (phase two: cards removed x removal_point)
    legal_mask: np.ndarray  # bool[B, K]: True on the first g[N_CAND] entries
    ev: np.ndarray         # int16[B, L, 7]; L = 0 unless logging
    rs: np.ndarray         # uint64[B]: each game's chance stream (engine.chance)
    dr: np.ndarray         # int32[B, drama_width(P)]: the lead in points (engine.drama)

    @property
    def S(self) -> int:
        return int(self.prm[T.P_S])

    def xy(self, cell: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) of flat cells, relative to the first card (row grows downward)."""
        c = self.S // 2
        cell = np.asarray(cell)
        return cell // self.S - c, cell % self.S - c

    def cell(self, y, x):
        c = self.S // 2
        return (np.asarray(y) + c) * self.S + np.asarray(x) + c

    def arrays(self):
        return (self.g, self.board, self.up_pos, self.up_count, self.copies, self.hand,
                self.hand_n, self.pile1, self.pile2, self.fd_pos, self.fd_card, self.fd_owner,
                self.box,
                self.score, self.claims, self.unpl, self.fr, self.sc, self.cand_slot,
                self.cand_card, self.cand_cell, self.cand_pts, self.legal_mask, self.ev, self.rs,
                self.prm, self.dr)


class Obs(Observation):
    """What the player to move knows, for the games ``game`` (first axis of every array).

    Always there: ``game``, ``seat``, ``kind`` (0 place a card, 1 claim: keep which card),
    ``phase`` (0 opening, 1 first phase, 2 second phase), ``n_cand`` and ``points`` [n, W]: the
    points each candidate scores now (W = the longest list among these games; entries from
    n_cand on are padding), the player's ``hand``, ``score`` and ``hand_size`` rotated so index
    0 is this player, the piles' sizes (``pile1``, ``pile2``) and ``blocked`` (face-down cards
    on the table), ``slot``, ``card``, ``y``, ``x`` of each candidate. On demand: ``valid``,
    ``unseen`` (cards of each type this player has not seen: not face up, not in hand),
    ``table`` (the face-up layout). Also: ``width`` (W, the candidate lists' width), ``n_players``
    (players at the table), ``S`` (the side of the square grid of spaces), ``prm`` (the rules
    as numbers, for the lookahead), and ``cell`` (the flat grid index of a row and column).

    A snapshot: every array is made for this call (the candidate lists, the hand, the counts of
    face-up cards, and the table as lists: ``_up_pos`` / ``_up_card``, the face-up cards' spaces
    and cards, ``_fd_pos``, the face-down cards' spaces), so an observation kept across steps
    still says what it said, and nothing here is a view of the state. Values worked out on demand are
    computed from the snapshot and read-only. Face-down cards, other hands and the piles' order
    are never reachable from here: the grid holds BLOCKED, not the card, for a face-down card.
    """

    shared = ("prm", "_copies")     # the same for every game (a one-game view reads them whole)
    padded = {k: "n_cand" for k in ("points", "slot", "card", "cell", "y", "x", "valid", "width")}
    _per_game = ("game", "seat", "kind", "phase", "n_cand", "points", "pile1", "pile2", "blocked",
                 "hand", "score", "hand_size", "_slot", "_card", "_cell", "_up_pos", "_up_card",
                 "_fd_pos", "_up_count")

    def __init__(self, st: State, games: np.ndarray):
        self.game = games.copy()
        g = st.g[games]                     # fancy indexing: copies, like every array below
        cur = g[:, T.CUR]
        self.seat = cur.astype(np.int8)
        self.kind = g[:, T.KIND].astype(np.int8)
        self.phase = g[:, T.PHASE].astype(np.int8)
        self.n_cand = g[:, T.N_CAND].astype(np.int64)
        self.width = max(int(self.n_cand.max(initial=1)), 1)
        self.points = st.cand_pts[games, :self.width]
        self.pile1 = g[:, T.N1].copy()
        self.pile2 = g[:, T.N2].copy()
        self.blocked = g[:, T.N_FD].copy()
        self.n_players = st.n_players
        self.S = st.S
        self.prm = st.prm.copy()
        self.hand = st.hand[games, cur]
        self.score = self._rot(st.score, st.n_players)
        self.hand_size = self._rot(st.hand_n, st.n_players)
        self._slot = st.cand_slot[games, :self.width]
        self._card = st.cand_card[games, :self.width]
        self._cell = st.cand_cell[games, :self.width]
        # the padding past each list reads 0: the state's entries there are stale (another
        # player's earlier list), and a world (``clone``) holds zeros there
        pad = np.arange(self.width)[None, :] >= self.n_cand[:, None]
        for a in (self.points, self._slot, self._card, self._cell):
            a[pad] = 0
        self._up_pos, self._up_card, self._fd_pos = public_layout(st, games)
        self._up_count = st.up_count[games]
        self._copies = st.copies.copy()

    def take(self, rows: np.ndarray) -> "Obs":
        """The observation of a subset of its games (rows index its first axis)."""
        sub = object.__new__(Obs)
        sub.__dict__.update(self.__dict__)
        for name in self._per_game:
            setattr(sub, name, getattr(self, name)[rows])
        return sub.freeze()

    def _rot(self, a: np.ndarray, p: int) -> np.ndarray:
        idx = (self.seat[:, None].astype(np.int64) + np.arange(p)[None, :]) % p
        return a[self.game[:, None], idx]

    @property
    def slot(self):
        return read_only(self._slot)

    @property
    def card(self):
        return read_only(self._card)

    @property
    def cell(self):
        return read_only(self._cell)

    @property
    def y(self):
        return read_only(self._cell // self.S - self.S // 2)

    @property
    def x(self):
        return read_only(self._cell % self.S - self.S // 2)

    @property
    def valid(self):
        """bool[n, W]: the entries that are candidates (not padding)."""
        return read_only(np.arange(self.width)[None, :] < self.n_cand[:, None])

    # the actions by meaning: an action is a candidate's index in the lists above
    def place_action(self, card, y, x) -> np.ndarray:
        """Action (place a card): the candidate that plays card ``card`` (an id as in ``hand``)
        on the space at ``y``, ``x`` (as the candidates' ``y`` and ``x`` give them); -1 where
        no candidate does."""
        card, y, x = (np.asarray(v)[..., None] for v in (card, y, x))
        hit = (self.valid & (self.kind[:, None] == 0) & (self._card == card) & (self.y == y)
               & (self.x == x))
        return read_only(np.where(hit.any(axis=1), hit.argmax(axis=1), -1))

    @action_helper
    def keep_action(self, pile) -> np.ndarray:
        """Action (claim): keep the card drawn from pile ``pile`` (1 or 2)."""
        return np.asarray(pile, np.int64) - 1

    @property
    def grid(self):
        """int8[n, S * S]: each game's flat grid, face-up cards as card id + 1 and BLOCKED for a
        face-down card (never which card), 0 elsewhere."""
        out = np.zeros((len(self.game), self.S * self.S), np.int8)
        i, k = np.nonzero(self._up_pos >= 0)
        out[i, self._up_pos[i, k]] = self._up_card[i, k] + 1
        i, k = np.nonzero(self._fd_pos >= 0)
        out[i, self._fd_pos[i, k]] = BLOCKED
        return read_only(out)

    @property
    def table(self):
        """int8[n, S, S]: card ids face up, -1 empty, -2 a face-down card."""
        t = self.grid.reshape(len(self.game), self.S, self.S)
        return read_only(np.where(t == BLOCKED, -2, np.where(t > 0, t - 1, -1)).astype(np.int8))

    @property
    def unseen(self):
        """int16[n, 36]: cards of each type neither face up nor in this player's hand."""
        u = self._copies[None, :].astype(np.int16) - self._up_count
        h = self.hand.astype(np.int64)
        t = np.where(h >= 0, (h // 12) * 6 + h % 6, 36)
        cnt = np.zeros((len(self.game), 37), np.int16)
        np.add.at(cnt, (np.arange(len(self.game))[:, None], t), 1)
        return read_only(u - cnt[:, :36])


def public_layout(st: State, games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Copies of what lies on the table in each game, as lists: the spaces of the face-up cards
    (int32[n, N], -1 past the last), the cards there (int8[n, N], -1 past the last) and the
    spaces holding a face-down card (int32[n, N], -1 past the last; never which card)."""
    n, N = len(games), st.up_pos.shape[1]
    pos = np.empty((n, N), np.int32)
    card = np.empty((n, N), np.int8)
    fd = np.empty((n, N), np.int32)
    _layout(st.g, st.board, st.up_pos, st.fd_pos, np.asarray(games, np.int64), pos, card, fd)
    return pos, card, fd


@njit(cache=True, _nrt=False)
def _layout(g, board, up_pos, fd_pos, games, pos, card, fd):
    for i in range(games.shape[0]):
        b = games[i]
        n_up = g[b, T.N_UP]
        n_fd = g[b, T.N_FD]
        for k in range(pos.shape[1]):
            if k < n_up:
                q = up_pos[b, k]
                pos[i, k] = q
                card[i, k] = board[b, q] - 1
            else:
                pos[i, k] = -1
                card[i, k] = -1
            fd[i, k] = fd_pos[b, k] if k < n_fd else -1


class Savannah(Game):
    id = "savannah"
    measures = ("phase_two_points", "cards_unplayed")
    name = "Savannah"
    min_players = 2
    max_players = 3
    Rules = Rules
    score_name = "points"
    decision_kinds = ("place a card", "unplayable space: keep which drawn card")
    outcome_by_rows = True    # ``outcome`` reads each game's own scores, turns and counts

    def check(self, rules: Rules, n_players: int) -> None:
        super().check(rules, n_players)
        rules.check(n_players)

    def n_actions(self, rules: Rules, n_players: int) -> int:
        return max(rules.hand_size * 8 * rules.n_cards, CLAIM_ACTIONS)

    def action_name(self, rules: Rules, n_players: int, action: int) -> str:
        return (f"candidate {action} of the list in the observation (a card and a space; "
                f"in a claim, 0 keeps the 1st pile's card and 1 the 2nd pile's)")

    # -- Setup
    def init(self, rules: Rules, n_players: int, keys: np.ndarray, log: bool = False) -> State:
        self.check(rules, n_players)
        st = self.empty_state(rules, n_players, keys, log)
        batch = len(keys)
        N, H, P = rules.n_cards, rules.hand_size, n_players
        deck = np.tile(np.arange(N, dtype=np.int8), (batch, 1))
        # "The dealer shuffles the 66 game cards": each game from its own stream
        shuffle_rows(deck, N, st.rs)
        st.hand[:, :, :H] = deck[:, :P * H].reshape(batch, P, H)
        st.hand_n[:] = H
        n1, n2 = rules.pile_sizes(P)
        st.pile1[:, :n1] = deck[:, P * H:P * H + n1]
        st.pile2[:, :n2] = deck[:, P * H + n1:]
        st.g[:, T.N1] = n1
        st.g[:, T.N2] = n2
        T.init_kernel(st.g, st.board, st.up_pos, st.hand, st.hand_n, st.fr, st.sc, st.cand_slot,
                      st.cand_card, st.cand_cell, st.cand_pts, st.legal_mask, st.prm)
        return st

    def empty_state(self, rules: Rules, n_players: int, keys: np.ndarray,
                    log: bool = False) -> State:
        """A state with nothing dealt (tests and tools fill it by hand, then call ``relist``);
        ``keys`` (uint64[B]) are the games' chance streams."""
        keys = np.asarray(keys, dtype=np.uint64)
        N, H, P = rules.n_cards, rules.hand_size, n_players
        S = side(N, rules.pile_sizes(P)[1] if rules.touch_face_down else 0)
        K = self.n_actions(rules, n_players)
        F = 8 * N
        prm = np.zeros(T.NP, np.int64)
        prm[[T.P_PLAYERS, T.P_HAND, T.P_CARDS, T.P_S, T.P_ORIGIN, T.P_LINE, T.P_LESS, T.P_CLAIM,
             T.P_MAXCLAIMS, T.P_REMOVAL, T.P_OPEN_DRAW, T.P_K, T.P_BURIED, T.P_TOUCH_FD]] = [
            P, H, N, S, (S // 2) * S + S // 2, rules.line_point, rules.all_different_less,
            rules.claim_point, rules.max_claims, rules.removal_point, int(rules.opening_draw), K,
            BURIED.index(rules.buried_on_table), int(rules.touch_face_down)]
        B = len(keys)
        return State(
            n_players=P, rules=rules, prm=prm, copies=copies(rules),
            g=buffers.zeros((B, T.NG), np.int32), board=buffers.zeros((B, S * S), np.int8),
            up_pos=buffers.zeros((B, N), np.int32), up_count=buffers.zeros((B, 36), np.int8),
            hand=buffers.full((B, P, H), -1, np.int8), hand_n=buffers.zeros((B, P), np.int8),
            pile1=buffers.zeros((B, N), np.int8), pile2=buffers.zeros((B, N), np.int8),
            fd_pos=buffers.zeros((B, N), np.int32), fd_card=buffers.zeros((B, N), np.int8),
            fd_owner=buffers.full((B, N), -1, np.int8),
            box=buffers.zeros((B, N), np.int8), score=buffers.zeros((B, P), np.int32),
            claims=buffers.zeros((B, P), np.int32), unpl=buffers.zeros((B, F), np.int32),
            fr=buffers.zeros((B, F), np.int32), sc=buffers.zeros((B, 2 * F), np.int64),
            cand_slot=buffers.zeros((B, K), np.int8), cand_card=buffers.zeros((B, K), np.int8),
            cand_cell=buffers.zeros((B, K), np.int32),
            cand_pts=buffers.zeros((B, K), np.int16), legal_mask=buffers.zeros((B, K), np.bool_),
            ev=buffers.zeros((B, 2 * N + 8 if log else 0, 7), np.int16), rs=keys.copy(),
            dr=drama.drama_new(B, P))

    def relist(self, st: State, games=None) -> None:
        """Recompute the candidate list of ``games`` (all by default) after editing a state."""
        games = np.arange(st.g.shape[0]) if games is None else np.asarray(games, np.int64)
        T.regen_kernel(games, st.g, st.board, st.up_pos, st.hand, st.hand_n, st.fr, st.sc,
                       st.cand_slot, st.cand_card, st.cand_cell, st.cand_pts, st.legal_mask, st.prm)

    def arrange(self, rules: Rules, n_players: int, layout: dict, hands: list, pile1=(),
                pile2=(), phase: int = T.ONE, cur: int = 0, face_down: dict | None = None,
                scores=None, log: bool = True, buried_by: dict | None = None,
                seed: int = 0) -> State:
        """One game set up by hand (for tests and tools): ``layout`` maps (row, column), relative
        to the centre, to a face-up card id; ``hands`` lists each seat's cards; ``pile1`` /
        ``pile2`` list cards bottom to top; ``face_down`` maps spaces to buried cards (and
        ``buried_by`` spaces to the seat that buried them; nobody if left out). The
        candidates of the player ``cur`` are listed; cards nobody placed are in the box; the
        game's chance (the shuffle that starts phase two) is stream ``deal_keys(1, seed)``."""
        self.check(rules, n_players)
        st = self.empty_state(rules, n_players, deal_keys(1, seed), log)
        g = st.g
        for (y, x), c in layout.items():
            T._put_up(0, int(st.cell(y, x)), c, g, st.board, st.up_pos, st.up_count, st.fr,
                      st.sc, st.S)
        for (y, x), c in (face_down or {}).items():
            q = int(st.cell(y, x))
            T._block(0, q, g, st.board, st.fr, st.sc, st.prm)
            st.fd_pos[0, g[0, T.N_FD]] = q
            st.fd_card[0, g[0, T.N_FD]] = c
            st.fd_owner[0, g[0, T.N_FD]] = (buried_by or {}).get((y, x), -1)
            g[0, T.N_FD] += 1
        for p, h in enumerate(hands):
            st.hand[0, p, :len(h)] = h
            st.hand_n[0, p] = len(h)
        st.pile1[0, :len(pile1)] = pile1
        st.pile2[0, :len(pile2)] = pile2
        g[0, T.N1], g[0, T.N2] = len(pile1), len(pile2)
        used = set(layout.values()) | set((face_down or {}).values()) | set(pile1) | set(pile2)
        used |= {c for h in hands for c in h}
        rest = [c for c in range(rules.n_cards) if c not in used]
        st.box[0, :len(rest)] = rest
        g[0, T.N_BOX] = len(rest)
        g[0, T.PHASE] = phase
        g[0, T.CUR] = cur
        g[0, T.KIND] = T.PLACE
        if scores is not None:
            st.score[0] = scores
        self.relist(st)
        return st

    def zones(self, st: State, b: int) -> dict[str, list[int]]:
        """Every card of game b by where it is (to check that cards are conserved)."""
        g = st.g[b]
        out = {"table": [int(st.board[b, q]) - 1 for q in st.up_pos[b, :g[T.N_UP]]],
               "face_down": st.fd_card[b, :g[T.N_FD]].tolist(),
               "pile1": st.pile1[b, :g[T.N1]].tolist(), "pile2": st.pile2[b, :g[T.N2]].tolist(),
               "box": st.box[b, :g[T.N_BOX]].tolist()}
        for p in range(st.n_players):
            out[f"hand{p}"] = st.hand[b, p, :st.hand_n[b, p]].tolist()
        if g[T.KIND] == T.KEEP and g[T.PHASE] == T.ONE:
            # a claim in progress: the 1st pile's top card and the 2nd's are in the player's hand
            out["pile1"] = out["pile1"][:-1]
            out["claim"] = [int(g[T.KEEP1]), int(g[T.KEEP2])]
        return out

    # -- play
    def to_move(self, state: State) -> np.ndarray:
        g = state.g
        return np.where(g[:, T.PHASE] == T.OVER, -1, g[:, T.CUR])

    def legal(self, state: State) -> np.ndarray:
        # the candidate lists are prefixes: columns past the longest list in use are all False,
        # so they are left out (the protocol allows a mask narrower than n_actions)
        width = max(int(state.g[:, T.N_CAND].max(initial=0)), 1)
        # a copy: the mask is rewritten for the next player to move, and a view kept by a
        # strategy would show how many placements another player's hand has
        return state.legal_mask[:, :width].copy()

    def observe(self, state: State, games: np.ndarray) -> Obs:
        return Obs(state, np.asarray(games, dtype=np.int64))

    def step(self, state: State, actions: np.ndarray) -> None:
        T.step_kernel(np.asarray(actions, np.int64), *state.arrays())
        if state.g[:, T.ERR].any():  # pragma: no cover - the bounds in grid.py / game.py
            b = int(np.flatnonzero(state.g[:, T.ERR])[0])
            raise RuntimeError(f"savannah: game {b} broke a proven bound (flags "
                               f"{int(state.g[b, T.ERR])}): a bug, please report")

    def outcome(self, state: State) -> Outcome:
        g = state.g
        score = state.score.astype(np.float64)
        rank, win = ranks_and_wins(score)
        return Outcome(
            score=score, rank=rank, win=win, turns=g[:, T.TURNS].copy(),
            stats={
                "laps": state.score // state.rules.lap_points,
                "unplayable_found": state.claims.copy(),
                "phase_one_turns": g[:, T.TURNS1].copy(),
                "table_left": g[:, T.N_UP].copy(),
                "table_cleared": g[:, T.CLEARED].copy(),
                # the designer's measures (docs/rules/savannah.md, "Measures"): the points of the
                # second phase's removals, and the cards no one played
                "phase_two_points": (g[:, T.N_BOX] * state.rules.removal_point).astype(np.int32),
                "cards_unplayed": (state.hand_n.sum(axis=1) + g[:, T.N1]
                                   + g[:, T.N2]).astype(np.int32),
                **drama.drama_stats(state.dr, score, win, False),
            })

    def running_score(self, state: State) -> np.ndarray:
        """The points each player has scored so far: every point is scored the moment it is
        made (a placement's lines in phase one, a claim, a removal in phase two) and never
        lost, and the end adds nothing, so the running score is the score."""
        return state.score.astype(np.float64)

    # -- worlds, for search (worlds.py; docs/rules/savannah.md, "Worlds for search")
    constant_fields = ("prm", "copies")

    def clone(self, state: State, rows: np.ndarray) -> State:
        """``Game.clone`` (game i a copy of game ``rows[i]``), made for a search's thousands of
        worlds: the large arrays (the grid, the open spaces' lists, the candidates: about 70 kB
        a game) in reused buffers (``buffers.scratch``: no fresh pages to fault in at every
        decision), copied only where anything reads them (``worlds.copy_rows``: the grid's used
        cells, EMPTY elsewhere; each list up to its length, zeros past it); the small ones
        copied whole.
        Played on, a copy plays as the game it copies (``tests/test_savannah.py``)."""
        rows = np.asarray(rows, np.int64)
        new = super().clone(state, rows)
        W.copy_rows(rows, state.g, *(getattr(state, k) for k in W.COPIED),
                    *(getattr(new, k) for k in W.COPIED))
        return new

    def clone_field(self, name: str, value: np.ndarray, rows: np.ndarray) -> np.ndarray:
        if name in W.COPIED:  # filled by ``clone`` after (``worlds.copy_rows``)
            return buffers.scratch((len(rows),) + value.shape[1:], value.dtype)
        return value[rows]

    def determinize(self, state: State, games: np.ndarray, seat: np.ndarray,
                    keys: np.ndarray) -> State:
        # a world keeps no log (the log names hidden cards), and copying it would be slow
        w = self.clone(dataclasses.replace(state, ev=state.ev[:, :0]), games)
        w.rs = np.array(keys, dtype=np.uint64)
        W.redeal(np.asarray(seat, np.int64), w.g, w.board, w.up_pos, w.hand, w.hand_n, w.pile1,
                 w.pile2, w.fd_card, w.fd_owner, w.unpl, w.fr, w.sc, w.cand_slot, w.cand_card,
                 w.cand_cell, w.cand_pts, w.legal_mask, w.rs, w.prm)
        return w

    # -- words
    def describe(self, state: State, i: int) -> str:
        if state.ev.shape[1] == 0:
            return "(no log: make the state with log=True)"
        out = []
        n_open = state.n_players
        placed = 0
        for t, seat, a, b_, c, d, e in state.ev[i, :int(state.g[i, T.NEV])]:
            if t == T.E_PLACE:
                placed += 1
                where = f"({b_:+d},{c:+d})"
                if placed == 1:
                    out.append(f"P{seat} (dealer) opens with {card_name(a)} at {where}")
                elif placed <= n_open:
                    out.append(f"P{seat} places {card_name(a)} at {where}, touching one card "
                               f"on a corner")
                elif e:
                    out.append(f"P{seat} plays {card_name(a)} at {where}: removes {e} card(s), "
                               f"+{d}")
                else:
                    out.append(f"P{seat} plays {card_name(a)} at {where}: +{d}")
            elif t == T.E_CLAIM:
                out.append(f"   P{seat} finds the unplayable space ({a:+d},{b_:+d}): +{e}, keeps "
                           f"{card_name(c)}, buries {card_name(d)} face down")
            elif t == T.E_PHASE2:
                out.append(f"-- The 1st pile is used up: phase two. {b_} face-down card(s) "
                           f"shuffled into the 2nd pile, which now holds {a} --")
            elif t == T.E_END:
                why = "the table is clear" if a else f"every hand is empty ({b_} cards left)"
                out.append(f"== Game over: {why}. Scores: "
                           + ", ".join(f"P{p} {int(s)}" for p, s in enumerate(state.score[i]))
                           + " ==")
        return "\n".join(out)


GAME = Savannah()
