"""The measured tables of docs/search.md: the search player (`search`) in one seat of
three, one shipped heuristic in the other two, seats rotated (game b: the searcher in seat
b mod 3), seed 16, the printed rules. Games are played in chunks of ``--chunk`` (game numbers
a..b, each with its own keys: a game is the same whatever the chunking), each chunk appended as
one JSON line to ``--out`` (so a run stopped early keeps what it played); ``--summary`` reads such
files back into win share ± 95% half-width and the searcher's decisions per CPU second (its own
``act`` calls, process time).

    .venv/bin/python experiments/search-measure.py GAME OPPONENT --budget 16 \\
        --games 300 [--objective margin] [--top-k 6 --prior greedy] [--rollout random] \\
        --out /work/measure/GAME.jsonl
    .venv/bin/python experiments/search-measure.py GAME OPPONENT --knobs '{}' --games 600 \
        --chunk 100 --out /work/measure/GAME.jsonl     # the game's own search defaults (SEARCH)
    .venv/bin/python experiments/search-measure.py --summary /work/measure/*.jsonl

Rollouts: the game's BENCHMARK heuristic with its params (``--rollout NAME`` for
another; ``random`` for the old table's rows). Opponents play with their default knobs, but
Duck Duck Bruce's as its search yaml (stop_at cards 2, card_counter risk 0.3).

Other player counts (issue 32): ``--players N`` seats N players, the searcher in seat b mod N
in game b (the others all ``OPPONENT``). ``--rules JSON`` sets rules over the printed ones (e.g.
Herds' ``'{"teams_at_four": false}'``; at four players Herds plays in teams by its printed rules,
partners opposite: 0+2 against 1+3). Where the game has teams (``game.teams(rules, N)``) the
searcher's partners are played by ``--partner NAME`` (default: ``OPPONENT``; ``search``: the
search with the measured seat's knobs, a team of search partners), the row's win is
its team's (the partners' shares added) and the fair share is one over the number of sides (1/2 in
teams), else 1/N. ``--heuristic NAME`` plays the measured seat with that heuristic instead of
the search (its default knobs): the comparison row of the same seats (e.g. all `collector`).
Rows carry ``players``, ``rules``, ``partner``, ``player`` (``search`` or the heuristic) and
``fair``; rows written before these keys read as 3 players, printed rules, the search, fair 1/3.

    .venv/bin/python experiments/search-measure.py herds sprinter --knobs '{}' --players 4 \
        --partner collector --games 600 --chunk 100 --out /work/measure/herds4.jsonl
    .venv/bin/python experiments/search-measure.py herds collector --heuristic collector \
        --players 4 --games 600 --chunk 100 --out /work/measure/herds4.jsonl
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
import time
from collections import defaultdict

import numpy as np

from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from safari_sim.games import get_game
from strategies import get_strategy
from strategies.search import Search, rollout_spec

from measuring import timed  # experiments/measuring.py (this script's folder)

OPPONENT_PARAMS = {("duck_duck_bruce", "stop_at"): {"cards": 2},
                   ("duck_duck_bruce", "card_counter"): {"risk": 0.3}}


def searcher(args):
    """The timed search player and the label of its row."""
    if args.knobs is not None:  # the game's own defaults, but for these knobs
        knobs = json.loads(args.knobs)
        me, spent = timed(Search, **knobs)
        return me, spent, "defaults", knobs
    name, params = rollout_spec(args.game, args.rollout, {})
    extra = {"top_k": args.top_k} if args.top_k else {}
    if args.prior:
        extra["prior"] = args.prior
    me, spent = timed(Search, rollouts=args.budget, objective=args.objective, rollout=name,
                      rollout_params=params, **extra)
    return me, spent, name, params


def heuristic(args, name):
    """A shipped heuristic of the game, with the opponents' knobs where it has them; ``search``
    (as ``--partner``) is the search player with the measured seat's knobs (``--knobs``, else the
    game's defaults), untimed: a team of search partners, as `skill` seats one."""
    if name == "search":
        return Search(**json.loads(args.knobs or "{}"))
    return get_strategy(args.game, name)(**OPPONENT_PARAMS.get((args.game, name), {}))


def seating_of(game, rules, P, nums):
    """(seating, fair share): game b's strategy index per seat (0: the measured seat b mod P,
    2: its partners where the game has teams, 1: the opponents) and the fair share of a side."""
    seating = np.ones((len(nums), P), np.int64)
    mine = nums % P
    teams = game.teams(rules, P) if hasattr(game, "teams") else None
    if teams is not None:
        teams = np.asarray(teams)
        seating[teams[None, :] == teams[mine][:, None]] = 2
    seating[np.arange(len(nums)), mine] = 0
    return seating, 1 / (P if teams is None else len(set(teams.tolist())))


def run(args):
    game = get_game(args.game)
    rules = game.make_rules(json.loads(args.rules) if args.rules else None)
    opp_params = OPPONENT_PARAMS.get((args.game, args.opponent), {})
    P = args.players
    partner = args.partner or args.opponent
    # warm-up (not recorded): one game at budget 1, so that compiling (a numba cache made stale
    # by an edit of the game) is not timed as deciding
    # (with --knobs: those knobs, so their rollout and prior are compiled too)
    warm = argparse.Namespace(**{**vars(args), "budget": 1, "knobs": None if args.knobs is None
                                 else json.dumps({**json.loads(args.knobs), "rollouts": 1})})
    me, _, _, _ = searcher(warm)
    if args.heuristic is None:
        play_batch(game, rules, P, [me, get_strategy(args.game, args.opponent)(**opp_params),
                                    heuristic(args, partner)],
                   seating_of(game, rules, P, np.array([0]))[0], game_keys(16, P, np.array([10**6])))
    for a in range(args.start, args.games, args.chunk):
        b = min(a + args.chunk, args.games)
        if args.heuristic is None:
            me, spent, rname, rparams = searcher(args)  # fresh per chunk: its own batch
        else:  # the comparison row: the same seat played by a heuristic
            me, spent = timed(type(heuristic(args, args.heuristic)),
                              **OPPONENT_PARAMS.get((args.game, args.heuristic), {}))
            rname, rparams = args.heuristic, {}
        opp = get_strategy(args.game, args.opponent)(**opp_params)
        nums = np.arange(a, b)
        seating, fair = seating_of(game, rules, P, nums)
        t0 = time.process_time()
        res = play_batch(game, rules, P, [me, opp, heuristic(args, partner)], seating,
                         game_keys(16, P, nums))
        cpu = time.process_time() - t0
        # the measured side's win: in teams the partners split it (a shared win is 1/2 each)
        win = (np.asarray(res.outcome.win, np.float64) * (seating != 1)).sum(axis=1)
        row = dict(game=args.game, opponent=args.opponent, opponent_params=opp_params,
                   mode=args.mode, budget=args.budget, objective=args.objective,
                   top_k=args.top_k, prior=args.prior, rollout=rname, rollout_params=rparams,
                   players=P, rules=json.loads(args.rules) if args.rules else {},
                   partner=partner if (seating == 2).any() else None,
                   player=args.heuristic or "search", fair=fair,
                   first=int(a), last=int(b), wins=win.tolist(),
                   decisions=spent["d"], search_cpu=spent["t"], cpu=cpu)
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"{args.game} {args.heuristic or args.mode} {args.budget} vs {args.opponent} games {a}-{b}: "
              f"win {win.mean():.3f}, {spent['d'] / max(spent['t'], 1e-9):.1f} decisions/s, "
              f"{cpu:.0f} s cpu", flush=True)


def key(r):
    return (r["game"], r["opponent"], r.get("player", "search"), r["budget"], r["objective"],
            r["top_k"], r["rollout"] if r["rollout"] != "defaults" else
            "defaults " + json.dumps(r["rollout_params"], sort_keys=True),
            r.get("players", 3), json.dumps(r.get("rules", {}), sort_keys=True),
            r.get("partner") or "")


def summary(paths):
    rows = defaultdict(list)
    for p in paths:
        for line in open(p):
            r = json.loads(line)
            rows[key(r)].append(r)
    print("| game | players | rules | partner | opponent | player | rollout | objective | top_k | "
          "budget | games | win share | decisions/s | cpu s | verdict |")
    print("|" + "---|" * 15)
    for k in sorted(rows):
        rs = rows[k]
        kept, taken = [], set()
        # a game played twice counts once: the bigger chunk's, among equal ones the later's
        for r in sorted(rs[::-1], key=lambda r: r["first"] - r["last"]):
            games = set(range(r["first"], r["last"]))
            if not games & taken:
                kept.append(r)
                taken |= games
        rs = kept
        w = np.concatenate([r["wins"] for r in rs])
        n = len(w)
        m = w.mean()
        half = 1.96 * w.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        d = sum(r["decisions"] for r in rs)
        t = sum(r["search_cpu"] for r in rs)
        cpu = sum(r["cpu"] for r in rs)
        fair = rs[0].get("fair", 1 / rs[0]["players"])
        who = rs[0].get("player", "search")  # a comparison row's seat is a heuristic
        verdict = (f"{who} ahead" if m - half > fair else
                   ("heuristic" if who == "search" else "opponents") + " ahead" if m + half < fair
                   else ("heuristic matches" if who == "search" else "level"))
        print(f"| {k[0]} | {k[7]} | {k[8]} | {k[9]} | {k[1]} | {k[2]} | {k[6]} | {k[4]} | {k[5]} | {k[3]} | {n} | "
              f"{m:.2f} ± {half:.2f} | {d / max(t, 1e-9):,.0f} | {cpu:.0f} | {verdict} |")


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("game", nargs="?")
    ap.add_argument("opponent", nargs="?")
    ap.add_argument("--mode", choices=["search"], default="search",
                    help="the player (only the flat search since ismcts was retired, issue 32)")
    ap.add_argument("--budget", type=int, default=4, help="rollouts per candidate")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--start", type=int, default=0, help="first game number (resume)")
    ap.add_argument("--chunk", type=int, default=30)
    ap.add_argument("--players", type=int, default=3,
                    help="players at the table; the measured seat is b mod N in game b")
    ap.add_argument("--rules", default=None, help="JSON: rules over the printed ones")
    ap.add_argument("--partner", default=None, help=(
        "the heuristic playing the measured seat's partners where the game has teams "
        "(default: OPPONENT)"))
    ap.add_argument("--heuristic", default=None, help=(
        "play the measured seat with this heuristic instead of the search (comparison row)"))
    ap.add_argument("--objective", choices=["win", "margin"], default="win")
    ap.add_argument("--top-k", type=int, default=0)
    ap.add_argument("--prior", default=None)
    ap.add_argument("--rollout", default="benchmark")
    ap.add_argument("--knobs", default=None, help=(
        "JSON: the search with the game's own defaults (SEARCH) but for these knobs (budget, "
        "objective, rollout, top-k and prior are then ignored); '{}': the defaults"))
    ap.add_argument("--out", default="/work/measure/search.jsonl")
    ap.add_argument("--summary", nargs="*")
    args = ap.parse_args(argv)
    if args.summary is not None:
        summary(sorted({p for g in args.summary for p in glob.glob(g)}))
    else:
        run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
