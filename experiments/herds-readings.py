"""Herds: how the documented readings move results (docs/rules/herds.md).

Usage: .venv/bin/python experiments/herds-readings.py PLAYERS GAMES [what]
  what = readings (default): the same deals under the printed rules and each alternative, the
         shipped strategies in rotated seats: win shares and how often the winner differs;
  what = forbidden: how often, at a step two, a trade the printed rule allows ('playable') is
         forbidden by the older reading ('grows'): a grassland explorer that grows no herd of
         the side but can be laid in a new herd with the cards held after some trade;
  what = trades: the share of the strategies' trades that are the planned one-for-one trade,
         and of null trades (the twin card taken back), from the event log;
  what = teams (4 players): the team of seat 0 (the first player) and each strategy, for the
         partners and end_tie values, and the tied games.
"""
import sys

import numpy as np

from safari_sim.engine.chance import SeatRandom, game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from safari_sim.games import herds as H
from strategies import get_strategy

G = get_game("herds")
NAMES = ["collector", "blocker", "sprinter"]
P, B = int(sys.argv[1]), int(sys.argv[2])
WHAT = sys.argv[3] if len(sys.argv) > 3 else "readings"


def strategies():
    return [get_strategy("herds", n)() for n in NAMES]


def play(over, seed=11, log=False, names=NAMES, specs=None):
    S = [get_strategy("herds", n)(**(specs or {}).get(n, {})) for n in names]
    seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % len(names)
    res = play_batch(G, G.make_rules(over), P, S, seating, game_keys(seed, P, B), log=log)
    return res, seating


def shares(res, seating, k):
    return [round(float(res.outcome.win[seating == i].mean()), 3) for i in range(k)]


if WHAT == "readings":
    base = None
    for label, over in [("printed (trade_explorer playable)", {}),
                        ("trade_explorer grows", {"trade_explorer": "grows"}),
                        ("trade_explorer any", {"trade_explorer": "any"}),
                        ("flip plays on", {"flip_last_ends": False}),
                        ("swap in opponents' herds", {"swap_in_opponents_herds": True}),
                        ("grass explorer must be played", {"grass_draw_explorer_kept": False}),
                        ("end tie plays on", {"end_tie": "play_on"})]:
        res, seating = play(over)
        if base is None:
            base = res.outcome.win
        changed = (np.abs(res.outcome.win - base).sum(1) > 1e-9).mean()
        tied = ((res.outcome.win > 0) & (res.outcome.win < 1)).any(1).mean()
        tr = res.outcome.stats["trades"].sum(1).mean()
        print(P, label, dict(zip(NAMES, shares(res, seating, 3))), "winner differs in",
              round(float(changed), 3), "trades/game", round(float(tr), 2),
              "hands", round(float(res.outcome.stats["hands"].mean()), 2),
              "games with a shared win", round(float(tied), 4))

elif WHAT == "forbidden":
    # (with the shipped strategies the games are the same under both readings: see "readings")
    for reading in ("playable",):
        st = G.init(G.make_rules({"trade_explorer": reading}), P, game_keys(11, P, B).deal)
        keys = game_keys(11, P, B)
        seat_rs = keys.seat.reshape(-1).copy()
        S = strategies()
        for s in S:
            s.reset(B, P)
        seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 3
        step2 = forbidden = no_trade = 0
        grows_params = st.params.copy()
        grows_params[H.P_FLAGS] &= ~H.F_PLAYABLE
        scratch = np.zeros_like(st.legal_)
        while True:
            mover = G.to_move(st)
            live = np.flatnonzero(mover >= 0)
            if not live.size:
                break
            for b in live:
                if st.g[b, H.PHASE] != H.K_STEP2:
                    continue
                step2 += 1
                p = int(st.g[b, H.CUR])
                team = H._team(p, st.params)
                for e in range(6):
                    if st.zone[b, 60 + e] == H.Z_GRASS and not H._explorer_grows(
                            b, team, e, st.g, st.hown, st.hlo, st.hhi) and \
                            H._new_herd_trade(b, p, e, -1, -1, 0, -1, st.zone):
                        forbidden += 1
                        # and is a trade left at all under 'grows'?
                        H._step2_options(b, p, st.g, st.zone, st.hown, st.hlo, st.hhi, scratch,
                                         grows_params, True)
                        if st.legal_[b, H.A_TRADE] and not scratch[b, H.A_TRADE]:
                            no_trade += 1
                        scratch[b] = False
                        break
            lg = np.asarray(G.legal(st))
            actions = np.zeros(B, np.int64)
            for k, s in enumerate(S):
                rows = live[seating[live, mover[live]] == k]
                if rows.size:
                    rng = SeatRandom(seat_rs, rows * P + mover[rows])
                    actions[rows] = s.decide(st, rows, rng, lg[rows].copy())
            G.step(st, actions)
        print(P, "played under", reading, ": step twos", step2, "with a printed-legal trade "
              "that 'grows' forbids", forbidden, round(forbidden / step2, 4),
              "; of them with no trade at all under 'grows'", no_trade,
              round(no_trade / step2, 4))

elif WHAT == "trades":
    for reading in ("playable", "grows", "any"):
        res, _ = play({"trade_explorer": reading}, log=True)
        n = planned = null = 0
        for b in range(B):
            ev = res.state.ev[b, :int(res.state.g[b, H.NEV])]
            taken = []
            i = 0
            while i < len(ev):
                if ev[i, 0] == H.E_TRADE_TAKE:
                    taken.append(int(ev[i, 2]))
                elif ev[i, 0] == H.E_TRADE_GIVE:
                    given = []
                    while i < len(ev) and ev[i, 0] == H.E_TRADE_GIVE:
                        given.append(int(ev[i, 2]))
                        i += 1
                    n += 1
                    if len(given) == 1 and len(taken) == 1 and given[0] % 6 == taken[0] % 6:
                        if min(given[0] // 12, 5) == min(taken[0] // 12, 5):
                            null += 1
                        else:
                            planned += 1
                    taken = []
                    continue
                i += 1
        print(P, reading, "trades", n, "planned one-for-one", round(planned / max(n, 1), 3),
              "null", round(null / max(n, 1), 3))

elif WHAT == "teams":
    for label, over in [("across, shared", {}), ("beside, shared", {"partners": "beside"}),
                        ("across, play_on", {"end_tie": "play_on"}),
                        ("beside, play_on", {"partners": "beside", "end_tie": "play_on"})]:
        S = [get_strategy("herds", "collector")(), get_strategy("herds", "blocker")(),
             get_strategy("herds", "sprinter")(),
             get_strategy("herds", "collector")(lay_deck=10, lay_min_hand=9)]
        seating = (np.arange(P)[None, :] + np.arange(B)[:, None]) % 4
        res = play_batch(G, G.make_rules(over), P, S, seating, game_keys(94, P, B))
        w = res.outcome.win
        # a team's win gives each partner 0.5 (a tie between the teams 0.25)
        first = 2 * float(w[:, 0].mean())  # seat 0's team: it has the first turn of the game
        ties = float(np.isclose(w[:, 0], 0.25).mean())
        print(P, label, "first player's side", round(first, 3), "ties", round(ties, 4),
              dict(zip(["collector", "blocker", "sprinter", "patient"], shares(res, seating, 4))),
              "hands", round(float(res.outcome.stats["hands"].mean()), 2))
