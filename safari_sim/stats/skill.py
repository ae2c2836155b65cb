"""Skill and luck (restricted play, after Jaffe et al.): how much of a game the better player's
play decides.

The measure: a table of one copy of a stronger strategy A and P - 1 copies of a weaker one B,
seated in rotation (A in every seat equally often). Model each game as decided by skill with
probability s (then A wins) and by luck otherwise (then every seat is equally likely to win):
A wins w = s + (1 - s) / P of the games, so

    s = (w - 1/P) / (1 - 1/P)

is the share of games skill decides: 0 when A does no better than a fair share, 1 when A wins
every game (it may be negative when A does worse than fair). Its interval is A's win-rate interval
(stats.win_rates: Wilson, clustered by deal) mapped through the same line. Luck is the other side:
how often the weaker strategy wins a single game, 1 - w (under pure luck (P - 1) / P, under pure
skill 0); with two players, exactly how often the weaker of the two wins.

Per game (``measure_game``), at its baseline player count (the BENCHMARK's ``players``, else the
fewest of 3 the game allows, as `safari-sim new` does):

- **the best player** is the search player (``search`` with the game's measured defaults,
  ``SEARCH``) where the game's strategies module says, in ``SEARCH_AHEAD``, that docs/search.md
  measured it ahead of every shipped heuristic at this player count (``best="auto"``, the
  default; the screening is then skipped); elsewhere (or with ``best="heuristic"``) **the best
  shipped strategy**: the game's own strategy (default knobs) with the highest win rate against
  random players in a screening run of its own seed (seed + 1), so that the games that choose
  it are not the games that measure it (the winner's curse). ``GameSkill.why`` (and the end of
  its line) says which and why;
- **best against random**: s with B = random;
- **best against a weakened copy of itself**: s with B = ``blunder`` (the best with a uniformly
  random legal move at each decision with probability ``epsilon``; with the search player, the
  search that blunders, so every seat of that table searches); and the luck line: how often
  that weaker copy wins.

A game played in teams (Herds at four players) is a game of teams: the stronger side is a team of
copies of A (partners), the weaker the other team(s) of copies of B, and w is how often A's team
wins (``teams.team_wins``), against 1/T with T teams: s = (w - 1/T) / (1 - 1/T), and luck is how
often a weaker team wins (50% under pure luck with two teams). Only where rotation keeps the
partners together (Herds' partners across); otherwise one copy of A plays with a partner B and
its team's win rate is measured the same way.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl

from .wins import win_rates
from . import words

EPSILON = 0.25


def skill_share(rate: Any, players: int) -> Any:
    """s = (w - 1/P) / (1 - 1/P): the share of games skill decides (arrays or numbers)."""
    fair = 1.0 / players
    return (np.asarray(rate, dtype=float) - fair) / (1.0 - fair)


@dataclass
class Pairing:
    strong: str
    weak: str
    players: int
    games: int
    rate: float          # the strong strategy's win rate
    lo: float
    hi: float
    skill: float         # share of games skill decides
    skill_lo: float
    skill_hi: float
    upset: float         # share of games a weaker player wins (1 - rate)
    upset_lo: float
    upset_hi: float
    teams: int = 0       # a team game: the number of teams (the unit of the fair share), else 0
    strong_seats: int = 1  # how many seats the strong strategy holds (a team of copies)


def pairing(lf: pl.LazyFrame, strong: str, weak: str = "") -> Pairing:
    """The skill and luck of a dataset whose table is ``strong`` against copies of one weaker
    strategy (any names for the copies)."""
    from . import teams

    p = int(lf.select(pl.col("players").first()).collect().item())
    lay = teams.layout(lf)
    n_teams = int(lay["teams"].max()) if len(lay) else 0
    # in a team game: how often the strong strategy's team wins, against one over the teams
    rates = win_rates(teams.team_wins(lf, lay)).filter(pl.col("strategy") == strong)
    if not len(rates):
        raise ValueError(f"no strategy '{strong}' in the dataset")
    r = rates.row(0, named=True)
    import re

    copy = f"^{re.escape(strong)}(_[0-9]+)?$"  # the strong strategy and its numbered copies (_table)
    copies = int(lf.filter((pl.col("game") == pl.col("game").min()) & pl.col("strategy").cast(pl.String)
                           .str.contains(copy)).select(pl.len()).collect().item()) if n_teams else 1
    s, s_lo, s_hi = (float(x) for x in skill_share([r["rate"], r["lo"], r["hi"]], n_teams or p))
    return Pairing(strong, weak, p, int(r["games"]), r["rate"], r["lo"], r["hi"], s, s_lo, s_hi,
                   1 - r["rate"], 1 - r["hi"], 1 - r["lo"], n_teams, copies)


def skill_words(pr: Pairing, label: str = "interval ") -> str:
    """The share of games skill decides, with its interval, as the table prints it (the decimals
    its interval needs) and said as a finding at the top: "every one of the 400 games (interval
    98.1% to 100.0%)" where the stronger side won them all (docs/reports.md, certain margins)."""
    return words.share_of_games(pr.skill, pr.skill_lo, pr.skill_hi, pr.games, "the", "", label,
                                bottom=False).replace(" of the games", " of games")


def upset_words(pr: Pairing) -> str:
    """How often a weaker side wins: '46.5% of games', 'none of the 400 games'."""
    text = words.share_cell(pr.upset, pr.upset_lo, pr.upset_hi, pr.games)
    if text == "none":
        return f"none of the {pr.games:,} games"
    if text.startswith("all "):
        return f"every one of the {pr.games:,} games"
    return text.replace("> ", "more than ").replace("< ", "fewer than ") + " of games"


def exact(x: float) -> str:
    """A share known exactly (pure luck's, the blunder rate): '50%', '66.7%'."""
    return f"{100 * x:.1f}".rstrip("0").rstrip(".") + "%"


def line(game_name: str, vs_random: Pairing, vs_weak: Pairing, epsilon: float) -> str:
    """The one line per game; its numbers are the table's (``table``), worded as findings at the
    ends."""
    p = vs_random.players
    if vs_random.teams:
        return _team_line(game_name, vs_random, vs_weak, epsilon)
    return (f"{game_name} ({p} players): skill decides {skill_words(vs_random)} between the best "
            f"({vs_random.strong}) and random players, and {skill_words(vs_weak, '')} between it and a copy that "
            f"blunders {exact(epsilon)} of its moves; "

            + (f"luck: one of the {p - 1} weakened copies wins {upset_words(vs_weak)} "
               f"({exact((p - 1) / p)} under pure luck)" if p > 2 else
               f"luck: the weakened copy wins {upset_words(vs_weak)} (50% under pure luck)") + ".")


def _team_line(game_name: str, vs_random: Pairing, vs_weak: Pairing, epsilon: float) -> str:
    """The one line of a team game: teams against teams."""
    t = vs_random.teams
    team = (f"a team of {vs_random.strong} partners" if vs_random.strong_seats > 1
            else f"a team of the best ({vs_random.strong}) and a weaker partner")
    weak = "the weakened team wins" if t == 2 else f"one of the {t - 1} weakened teams wins"
    return (f"{game_name} ({vs_random.players} players in {t} teams): skill decides {skill_words(vs_random)} "
            f"between {team} and random players, and {skill_words(vs_weak, '')} against copies that blunder "
            f"{exact(epsilon)} of their moves; luck: {weak} {upset_words(vs_weak)} ({exact((t - 1) / t)} under "
            f"pure luck).")


def cells(pr: Pairing) -> dict[str, str]:
    """A pairing's numbers as the skill table prints them: the sentence's decimals, and 'all 400'
    / 'none' where the line says 'every one of' / 'none of'."""
    return {"rate_text": words.share_cell(pr.rate, pr.lo, pr.hi, pr.games),
            "skill_text": words.share_cell(pr.skill, pr.skill_lo, pr.skill_hi, pr.games, bottom=False),
            "upset_text": words.share_cell(pr.upset, pr.upset_lo, pr.upset_hi, pr.games),
            "rate_interval": words.interval(pr.lo, pr.hi), "skill_interval": words.interval(pr.skill_lo, pr.skill_hi)}


def baseline_players(game: Any, bench: dict | None) -> int:
    if bench and bench.get("players"):
        return int(bench["players"])
    return max(game.min_players, min(3, game.max_players))


@dataclass
class GameSkill:
    game: str
    game_name: str
    players: int
    best: str
    screen: dict[str, float]     # each candidate's win rate against random in the screening
    vs_random: Pairing
    vs_weak: Pairing
    epsilon: float
    line: str
    why: str = ""                # which player is the best, and why (the search or the screening)

    def to_json(self) -> dict:
        d = asdict(self)
        return d


BEST = ("auto", "heuristic")


def search_ahead(game_id: str, players: int) -> dict | None:
    """The game's ``SEARCH_AHEAD`` (strategies/<game>.py, next to ``SEARCH``: the measured row of
    docs/search.md where the search with the game's defaults is ahead of every shipped heuristic)
    when it holds at ``players``, else None. Its ``closest``, ``win``, ``half``, ``games`` are the
    row of the first count in ``players``; another count's row, where measured, is in ``at``
    (``{4: {"closest": ..., "win": ..., "half": ..., "games": ..., "against": ...}}``) and
    replaces them at that count (``against``: how the table was seated, e.g. teams)."""
    import importlib

    try:
        mod = importlib.import_module(f"strategies.{game_id}")
    except ModuleNotFoundError:
        return None
    ahead = getattr(mod, "SEARCH_AHEAD", None)
    if not ahead or players not in ahead.get("players", ()):
        return None
    # a count measured apart (``"at": {4: {...}}``) has its own row over the first count's
    rec = {k: v for k, v in ahead.items() if k != "at"}
    return {**rec, **ahead.get("at", {}).get(players, {})}


def _against(players: int) -> str:
    """"against two of it": the other seats of a table of ``players``, all the closest."""
    n = players - 1
    return f"against {['one', 'two', 'three', 'four', 'five'][n - 1] if 0 < n < 6 else n} of it"


def best_player(game_id: str, players: int, best: str = "auto") -> tuple[str, str]:
    """("search", why) where the search is the stronger player (``search_ahead``) and ``best`` is
    "auto"; else ("", why): the heuristic, chosen by the screening (``why`` then ends with the
    reason the search is not used, to be put after the heuristic's name)."""
    import importlib

    if best not in BEST:
        raise ValueError(f"best: '{best}' is not one of {', '.join(BEST)}")
    ahead = search_ahead(game_id, players)
    if best == "auto" and ahead:
        return "search", (f"search with the game's measured defaults, ahead of every shipped heuristic "
                          f"at {players} players in docs/search.md (the closest, {ahead['closest']}: the "
                          f"search wins {ahead['win']:.2f} ± {ahead['half']:.2f} "
                          f"{ahead.get('against') or _against(players)}, "
                          f"{ahead['games']} games)")
    if best == "heuristic":
        why = "asked for (--best heuristic)"
    else:
        try:
            measured = getattr(importlib.import_module(f"strategies.{game_id}"), "SEARCH_AHEAD", None)
        except ModuleNotFoundError:
            measured = None
        why = (f"the search is measured ahead only at {', '.join(map(str, sorted(measured['players'])))} "
               f"players" if measured else "the search is not measured ahead of every heuristic here "
               "(docs/search.md)")
    return "", why


def _table(strong: dict, weak: dict, players: int, strong_seats: list[int] = (0,)) -> list[dict]:
    """One strategy per seat: ``strong`` in ``strong_seats`` (copies numbered from the second),
    copies of ``weak`` elsewhere (numbered when more than one)."""
    seats, k = [], 0
    for s in range(players):
        if s in strong_seats:
            i = list(strong_seats).index(s)
            seats.append(strong if i == 0 else {**strong, "name": f"{strong['name']}_{i + 1}"})
        else:
            k += 1
            seats.append({**weak, "name": weak["name"] + (f"_{k}" if players - len(strong_seats) > 1 else "")})
    return seats


def strong_team(game: Any, rules: Any, players: int) -> list[int]:
    """The seats of the stronger side: the team of seat 0 where the game plays in teams and
    rotation keeps its partners together (every rotation of those seats is one team), else
    seat 0 alone."""
    t = game.teams(rules, players)
    if t is None:
        return [0]
    t = np.asarray(t)
    first = [int(s) for s in np.flatnonzero(t == t[0])]
    for r in range(players):
        moved = {(s + r) % players for s in first}
        if len({int(t[s]) for s in moved}) != 1 or int((t == t[next(iter(moved))]).sum()) != len(moved):
            return [0]
    return first


def measure_game(game_id: str, games: int = 2000, screen_games: int | None = None,
                 epsilon: float = EPSILON, seed: int = 0, output: str | Path = "results/skill",
                 jobs: int | None = 1, players: int | None = None, rules: dict | None = None,
                 on_step: Callable[[str], None] | None = None, replace: bool = False,
                 best: str = "auto") -> GameSkill:
    """Screen, then measure, one game (every run a normal, resumable dataset under ``output``),
    under the printed rules with ``rules`` overrides. ``replace``: a folder holding another
    experiment's results (a table or the game changed since) is moved aside, as `run --replace`
    does. ``best``: "auto" (the search where ``SEARCH_AHEAD`` says it is stronger, else the
    screened heuristic) or "heuristic" (always the screened heuristic); the search's tables are
    kept in folders of their own (``search-random``, ``search-blunder``)."""
    import importlib

    from ..games import get_game
    from .sensitivity import run_point
    from strategies import strategies_for
    from . import scan

    game = get_game(game_id)
    try:
        bench = getattr(importlib.import_module(f"strategies.{game_id}"), "BENCHMARK", None)
    except ModuleNotFoundError:
        bench = None
    p = players or baseline_players(game, bench)
    side = strong_team(game, game.make_rules(dict(rules or {})), p)  # a team of copies in a team game
    own = [n for n, c in strategies_for(game_id).items() if c.game == game_id]
    if not own:
        raise ValueError(f"{game_id} has no strategies of its own to measure")
    tag = "-" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted((rules or {}).items())) if rules else ""
    root = Path(output) / (f"{game_id}-{p}p{tag}" + (f"-seed{seed}" if seed else "") + (
        f"-epsilon{epsilon:g}" if epsilon != EPSILON else ""))
    rnd = {"name": "random", "use": "random", "params": {}}
    base = {"game": game_id, "players": p, "seating": "rotate", "rules": dict(rules or {}),
            "parallel": {"jobs": jobs or 1}}
    screen = {}
    n_screen = screen_games or max(games // 4, 200)
    n_screen -= n_screen % p
    chosen, why = best_player(game_id, p, best)
    if chosen:
        best = chosen
    elif len(own) > 1:
        for name in own:
            if on_step:
                on_step(f"{game_id}: screening {name} against random")
            raw = {**base, "name": f"skill-screen-{game_id}-{name}", "games": n_screen, "seed": seed + 1,
                   "strategies": _table({"name": name, "use": name, "params": {}}, rnd, p, side)}
            out = run_point(raw, Path.cwd(), root / f"screen-{name}", jobs, replace=replace)
            screen[name] = pairing(scan(out), name).rate
        best = max(own, key=lambda n: screen[n])
        why = f"{best}, the game's own strategy best against random in the screening: {why}"
    else:
        best = own[0]
        why = f"{best}, the game's only strategy of its own: {why}"
    strong = {"name": best, "use": best, "params": {}}
    weak = {"name": f"{best}_blunder", "use": "blunder",
            "params": {"base": f"{game_id}.{best}", "epsilon": epsilon}}
    n = games - games % p
    results = {}
    for key, other in (("random", rnd), ("blunder", weak)):
        if on_step:
            on_step(f"{game_id}: {best} against {other['name']}")
        raw = {**base, "name": f"skill-{game_id}-{key}", "games": n, "seed": seed,
               "strategies": _table(strong, other, p, side)}
        out = run_point(raw, Path.cwd(), root / (f"search-{key}" if chosen else key), jobs,
                        replace=replace)
        results[key] = pairing(scan(out), best, other["name"])
    res = GameSkill(game_id, game.name, p, best, screen, results["random"], results["blunder"], epsilon,
                    line(game.name, results["random"], results["blunder"], epsilon)
                    + f" Best player: {why}.", why)
    (root / "skill.json").write_text(json.dumps(res.to_json(), indent=2) + "\n")
    return res


def table(results: list[GameSkill]) -> pl.DataFrame:
    rows = []
    for r in results:
        for key, pr in (("random", r.vs_random), ("weakened", r.vs_weak)):
            rows.append({"game": r.game, "game_name": r.game_name, "players": r.players, "best": r.best,
                         "against": key, **{k: v for k, v in asdict(pr).items()
                                            if k not in ("players", "strong")}, **cells(pr)})
    return pl.DataFrame(rows)


def plot(results: list[GameSkill], path_stem: str | Path) -> list[Path]:
    """One figure across games: the share of games skill decides against random and against the
    weakened copy, with intervals; written as .png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from reports.figures import COLOURS, STYLE

    order = sorted(results, key=lambda r: r.vs_random.skill)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(6.4, 0.42 * len(order) + 1.2))
        y = np.arange(len(order))
        for k, (attr, label, dy) in enumerate((("vs_random", "best against random", 0.18),
                                               ("vs_weak", "best against its weakened copy", -0.18))):
            pr = [getattr(r, attr) for r in order]
            s = np.array([x.skill for x in pr])
            err = np.vstack([s - [x.skill_lo for x in pr], [x.skill_hi for x in pr] - s])
            ax.barh(y + dy, s, height=0.34, color=COLOURS[k], alpha=0.85, label=label)
            ax.errorbar(s, y + dy, xerr=err, fmt="none", ecolor="black", capsize=2, lw=0.8)
        ax.set_yticks(y, [f"{r.game_name} ({r.players}p, {r.best})" for r in order])
        ax.axvline(0, color="#555555", lw=0.8)
        ax.set_xlim(min(0.0, ax.get_xlim()[0]), 1.0)
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        ax.set_xlabel("share of games skill decides, (w - 1/P) / (1 - 1/P), with 95% interval")
        ax.grid(axis="y", visible=False)
        ax.legend(frameon=False, loc="lower right")
        fig.tight_layout()
        written = []
        for ext in ("png", "svg"):
            out = Path(f"{path_stem}.{ext}")
            out.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(out, dpi=150, metadata={"Date": None} if ext == "svg" else None)
            written.append(out)
        plt.close(fig)
    return written
