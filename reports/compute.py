"""Every number the report shows, computed from the dataset and experiment.json only.

``compute_tables`` returns the statistics as polars tables (all variants together), so tests and
notebooks see exactly what the report prints. ``summarise`` turns them into the sentences at the
top of the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from safari_sim import stats
from safari_sim.stats import caps, drama, teams
from safari_sim.stats.words import ci, digits_for, interval, number, pct, points, pvalue, rate_ci, signed, signed_points


class ReportError(Exception):
    """The report cannot be made (no dataset, no experiment.json); the message is one line."""


def open_results(results_dir: str | Path) -> tuple[pl.LazyFrame, dict[str, Any]]:
    """The lazy dataset and the experiment of a results directory, or a ReportError."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir}: no such results directory")
    try:
        experiment = stats.load_experiment(results_dir)
        lf = stats.scan(results_dir)
    except stats.DatasetError as e:
        raise ReportError(str(e)) from None
    return lf, experiment


def compute_tables(lf: pl.LazyFrame, experiment: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """All the report's statistics, each a polars table with a variant_id column."""
    lower = bool(experiment.get("lower_score_wins", False))
    seating = experiment.get("seating") or "rotate"
    t: dict[str, pl.DataFrame] = {}
    # A variant played in teams is read as teams: one row per team per game (stats/teams.py),
    # so every table below is the teams' (partners' wins together, a fair share of one over the
    # teams, the team that plays first, the margin and ties between teams); the per-player
    # statistics come from the player rows.
    players_lf = teams.with_teams(lf, experiment)
    t["teams"] = teams.layout(players_lf)
    lf = stats.with_design(teams.team_frame(players_lf, t["teams"]))
    t["variants"] = stats.variants(lf)
    names = stats.strategies(lf)
    # "above / below fair" is one question per strategy and variant: Holm over all of them
    t["win_rates"] = stats.versus_fair(stats.win_rates(lf, "strategy"))
    t["seat_rates"] = stats.seat_win_rates(lf)
    t["seat_advantage"] = stats.seat_advantage(lf, t["seat_rates"], seating, teams=t["teams"])
    t["seat_rates"] = seat_rows_versus(t["seat_rates"], t["seat_advantage"])
    games = stats.pairs.rank_tables(lf, names)  # one group-by over games for both, or by slices
    t["head_to_head"] = stats.head_to_head(lf, names, games)
    t["ratings"] = stats.ratings(lf, names, t["head_to_head"], games)
    t["scores_strategy"] = stats.distribution(lf, "score", "strategy")
    t["scores_seat"] = stats.distribution(lf, "score", "seat")
    bins = stats.scores.bins_for(lf, "score")
    t["hist_strategy"] = stats.histogram(lf, "score", "strategy", bins)
    t["hist_seat"] = stats.histogram(lf, "score", "seat", bins)
    # The margin needs a group-by over games: how many games had each margin, slice by slice,
    # then the summaries of that small table.
    margin = stats.scores.margin_counts(lf, lower).lazy()
    t["margin"] = (stats.distribution(margin, "margin", by=None, weight="count")
                   .join(margin.group_by("variant_id").agg(
                       ((pl.col("count") * pl.col("tied")).sum() / pl.col("count").sum()).alias("tied_share")).collect(),
                       on="variant_id"))
    t["hist_margin"] = stats.histogram(margin, "margin", by=None, weight="count")
    per_game = [c for c in stats.per_game_columns(lf) if c not in drama.COLUMNS]  # drama: its own table
    t["length"] = stats.game_length(lf, per_game)
    games = stats.one_row_per_game(lf)
    t["hist_length"] = pl.concat(
        [stats.histogram(games, c, by=None).with_columns(pl.lit(c).alias("statistic"))
         for c in per_game if c in ("turns", "rounds")] or [pl.DataFrame()], how="diagonal")
    t["seat_stats"] = stats.seat_statistics(players_lf.drop("team", strict=False), "strategy")
    t["sweep"] = stats.sweep_table(experiment)
    t["headlines"] = stats.headlines(t["win_rates"], t["seat_advantage"], t["length"], t["margin"])
    if len(t["sweep"].columns) > 1:
        t["headlines"] = t["headlines"].join(t["sweep"], on="variant_id", how="left")
    t["balance"] = stats.most_balanced(t["headlines"])
    t["safety_stops"] = caps.safety_stops(lf)
    t["drama"] = drama.table(lf)  # lead changes, lead for good, comeback, margin (when kept)
    return t


# A decision at the table (look, think, play) takes about this long; `safari-sim report
# --seconds-per-decision S` (or build_report(..., seconds_per_decision=S)) sets another.
SECONDS_PER_DECISION = 10.0


def _minutes(seconds: float) -> str:
    m = seconds / 60
    return f"{m:.1f}" if m < 10 else f"{m:.0f}"


def play_time_sentence(length: pl.DataFrame, seconds: float) -> str | None:
    """"A game takes about N minutes at the table", ``seconds`` a decision, and what it counts:
    the decisions of each game where the dataset has a per-game ``decisions`` column, else its
    turns, each counted as one decision (the runner records turns; a game whose turn holds
    several decisions takes longer at the table, and the sentence says so)."""
    if not len(length) or seconds <= 0:
        return None
    stat = "decisions" if (length["statistic"] == "decisions").any() else "turns"
    rows = length.filter(pl.col("statistic") == stat)
    if not len(rows):
        return None
    lo, hi = rows["mean"].min(), rows["mean"].max()
    unit = "decisions" if stat == "decisions" else "turns"
    if len(rows) == 1:
        r = rows.row(0, named=True)
        if r.get("min") is not None and r.get("min") == r.get("max"):
            middle = f"every game {r['min']:g} {unit}"
        elif r["q25"] == r["q75"]:
            middle = f"the middle half of games {r['q25']:g} {unit}, {_minutes(r['q25'] * seconds)} minutes"
        else:
            middle = (f"the middle half of games {_minutes(r['q25'] * seconds)} to "
                      f"{_minutes(r['q75'] * seconds)} minutes")
        span = f"about {_minutes(r['mean'] * seconds)} minutes at the table ({middle})"
    elif _minutes(lo * seconds) == _minutes(hi * seconds):
        span = f"about {_minutes(lo * seconds)} minutes at the table on average in every variant"
    else:
        span = (f"about {_minutes(lo * seconds)} to {_minutes(hi * seconds)} minutes at the table on "
                f"average, depending on the variant")
    if stat == "decisions":
        counts = "counting every decision a player makes (the dataset's decisions per game)"
    else:
        counts = ("counting each turn as one decision: the dataset records turns, not the decisions "
                  "within a turn, so where a turn holds several (a draw and a play, a claim and a "
                  "doubt) the game takes longer")
    return (f"Play time: a game takes {span}, at {seconds:g} seconds a decision, {counts}; set the pace "
            f"with --seconds-per-decision.")


def safety_stop_sentences(stops: pl.DataFrame, n_var: int) -> list[str]:
    """How many games or rounds a safety stop ended, overall and per variant where any did (none
    when the game has no safety stop)."""
    line = caps.sentence(stops)
    if line is None:
        return []
    out = ["Safety stops: " + line + "."]
    hit = [r for r in stops.iter_rows(named=True)
           if r.get("capped", 0) or r.get("capped_rounds", 0)]
    if n_var > 1 and hit:
        out.append("Per variant: " + "; ".join(
            f"{r['variant']}: " + caps.sentence(stops.filter(pl.col("variant_id") == r["variant_id"]))
            .split(": their results")[0] for r in hit) + ".")
    return out


def seat_rows_versus(seats: pl.DataFrame, verdicts: pl.DataFrame) -> pl.DataFrame:
    """Each seat's "against fair", following its variant's one seat outcome: a seat is above or
    below fair only when the seats differ (and then only where Holm over that variant's seats
    says so); with no evidence every seat is within reach; with no verdict there is no label."""
    out = []
    for (vid,), g in seats.group_by(["variant_id"], maintain_order=True):
        outcome = verdicts.filter(pl.col("variant_id") == vid)["outcome"][0]
        if outcome == "differ":
            g = stats.versus_fair(g)
        else:
            label = "fair within reach" if outcome == "no evidence" else "no seat verdict"
            g = g.with_columns(pl.lit(float("nan")).alias("p_fair_holm"), pl.lit(label).alias("versus"))
        out.append(g)
    return pl.concat(out).sort("variant_id", "seat")


def about(n: int) -> int:
    """A sample size to two significant digits: 120,012 -> 120,000."""
    step = 10 ** max(len(str(n)) - 2, 0)
    return int(round(n / step)) * step


def _strong(name: str) -> dict:
    return {"strong": name}


def _names(rows: list[str]) -> list:
    """'A', 'A and B', 'A, B and C' with every name emphasised."""
    parts: list = []
    for k, s in enumerate(rows):
        if k:
            parts.append(" and " if k == len(rows) - 1 else ", ")
        parts.append(_strong(s))
    return parts


def _pp_interval(lo: float, hi: float) -> str:
    """'0.0 to 14.1 percentage points': both ends with the decimals the width needs."""
    d = digits_for(hi - lo)
    low = points(lo, d) if lo >= 0 else signed(100 * lo, d)
    return f"{low} to {points(hi, d)} percentage points"


def _tied_words(tied: pl.DataFrame, what: str) -> list:
    """', tied with B and C (intervals overlap)' for the rows after the first."""
    others = tied["variant"].to_list()[1:]
    if not others:
        return []
    return [", tied with ", *_names(others), f" (their intervals of the {what} overlap, so no order between them)"]


def share_of_games(rate: float, lo: float, hi: float, games: int, owner: str = "their",
                   together: str = " together") -> str:
    """"62.1% (interval ...) of their games together", said as a finding at the ends: "every one
    of their 3,000 games together" (not "100.0%", which reads as rounding), "more than 99.9%",
    "fewer than 0.1%", "none of their ... games"."""
    interval = ci(lo, hi)
    if rate >= 1:
        return f"every one of {owner} {games:,} games{together} {interval}"
    if rate <= 0:
        return f"none of {owner} {games:,} games{together} {interval}"
    if pct(rate) == pct(1.0):
        return f"more than 99.9% {interval} of {owner} {games:,} games{together}"
    if pct(rate) == pct(0.0):
        return f"fewer than 0.1% {interval} of {owner} {games:,} games{together}"
    return f"{pct(rate, digits_for(hi - lo))} {interval} of {owner} games{together}"


def duplicate_sentence(rates: pl.DataFrame, h2h: pl.DataFrame, games: int) -> list:
    """What duplicate deals were worth on this run: each win-rate interval's effective number of
    independent games (against plain rotation), and the head-to-head shares' too."""
    lo, hi = rates["n_eff"].min(), rates["n_eff"].max()
    ratio = rates["n_eff"] / rates["games"]
    parts = [f"Duplicate deals: measured on this run, each strategy's win-rate interval is worth "
             f"{number(about(int(lo)), 0)} to {number(about(int(hi)), 0)} independent games of plain rotation "
             f"({ratio.min():.2f} to {ratio.max():.2f} times the {games:,} games played per "
             f"variant)"]
    if ratio.min() > 1:
        parts.append(": the luck of the deal cancels between the strategies")
    elif ratio.max() < 1:
        parts.append(": here the rotations of one deal go the same way for a strategy (a deal that suits it "
                     "suits it in every seat), so duplicate deals cost precision and plain rotation "
                     "would give narrower intervals for the same games")
    else:
        parts.append(": narrower for some strategies, wider for others")
    if len(h2h):
        r = h2h["n_eff"] / h2h["games"]
        parts.append(f"; for head-to-head shares {r.min():.2f} to {r.max():.2f} times the games together")
    return ["".join(parts) + "."]


def order_sentences(rates: pl.DataFrame, h: dict, fair: float, players: int, partners: bool = False) -> list[list]:
    """Which strategy wins most and least, from one variant's win rates: a strategy is singled
    out only when no other's interval overlaps its own; strategies whose intervals overlap the
    best's (or the worst's) are named together, and when every interval overlaps every other
    at both ends none is named as winning most or least. With ``partners`` the rows are pairs of
    partners (a team variant's ``teams.team_frame``) and ``players`` the number of teams."""
    rates = rates.sort("rate", descending=True)
    best, worst = rates.row(0, named=True), rates.row(-1, named=True)
    top = rates.filter(pl.col("hi") >= best["lo"])  # strategies whose interval reaches the best's
    bottom = rates.filter(pl.col("lo") <= worst["hi"]).sort("rate")
    noun = "pair of partners" if partners else "strategy"
    table = f"{players} teams" if partners else f"{players} players"

    def win(names: list) -> str:  # a pair of partners is plural: "blocker + patient win"
        return "win" if partners or len(names) > 1 else "wins"

    spread = (f"the spread between best and worst is {points(h['spread'])} percentage points (interval "
              f"{_pp_interval(h['spread_lo'], h['spread_hi'])})")
    if len(top) == len(rates) and len(bottom) == len(rates):
        above = rates.filter(pl.col("versus") == "above fair")["strategy"].to_list()
        below = rates.filter(pl.col("versus") == "below fair")["strategy"].to_list()
        fairness = [f"; none wins detectably more or less than its fair share of {pct(fair)}"]
        if above or below:
            fairness = [f"; against a fair share of {pct(fair)} (Holm-corrected), "]
            if above:
                fairness += [*_names(above), " " + win(above), " more"]
            if below:
                fairness += [" and " if above else "", *_names(below), " " + win(below), " less"]
        spread = spread.replace("best and worst", "the highest and lowest estimate")
        return [[f"No {noun} is shown to win more or less often than another: the win-rate intervals of ",
                 *_names(rates["strategy"].to_list()), f" all overlap (no order between them; estimates "
                 f"{interval(worst['rate'], best['rate'])})", *fairness, f"; {spread}."]]
    out: list[list] = []
    as_partners = ["As partners, "] if partners else []
    if best["versus"] == "above fair":
        if len(top) == 1:
            lead = [*as_partners, _strong(best["strategy"]), f" {win([1])} most often: "]
        else:
            lead = [*as_partners, *_names(top["strategy"].to_list()), " win most often, their intervals "
                    "overlapping (no order between them); the best estimate, ", _strong(best["strategy"]),
                    f", {win([1])} "]
        out.append([*lead, f"{share_of_games(best['rate'], best['lo'], best['hi'], int(best['games']), 'their' if partners else 'its', '')}"
                    f", against a fair share of {pct(fair)} with {table}."])
    else:
        out.append([f"No {noun} wins detectably more than its fair share of "
                    f"{pct(fair)}; the highest estimate, ", _strong(best["strategy"]),
                    f", {win([1])} {rate_ci(best['rate'], best['lo'], best['hi'])}."])
    if worst["strategy"] != best["strategy"]:
        if len(bottom) == 1:
            low = [_strong(worst["strategy"]), f" {win([1])} least: "
                   f"{rate_ci(worst['rate'], worst['lo'], worst['hi'])}"]
        else:
            low = [*_names(bottom["strategy"].to_list()), " win least, their intervals overlapping; the lowest, ",
                   _strong(worst["strategy"]), f", {win([1])} {rate_ci(worst['rate'], worst['lo'], worst['hi'])}"]
        out.append([*low, f"; {spread}."])
    return out


def _units(head: pl.DataFrame) -> set[str]:
    """How the variants of ``headlines`` are played: {"seat"}, {"team"} or both (a mixed
    experiment, e.g. a sweep over Herds' teams_at_four)."""
    return set(head["unit"].to_list()) if "unit" in head.columns else {"seat"}


def leaders_sentence(head: pl.DataFrame) -> list:
    """Which strategy (in a variant played in teams, which pair of partners) wins most often
    across the variants. A strategy leads a variant only where no other's interval overlaps its
    own (``best_group`` of one); where several overlap they are named together, never one of
    them as the leader."""
    units = _units(head)
    noun = {frozenset({"seat"}): "strategy", frozenset({"team"}): "pair of partners"}.get(
        frozenset(units), "strategy (in teams, the pair of partners)")
    shown = head["best_group"].to_list()
    groups = [frozenset(g) for g in shown]   # the same strategies, whichever estimate is higher
    variants = head["variant"].to_list()
    first = {}
    for g, names in zip(groups, shown):
        first.setdefault(g, names)
    if len(first) == 1:
        g = shown[0]
        if len(g) == 1:  # a pair of partners is plural: "blocker + patient win"
            return [_strong(g[0]), f" {'win' if units == {'team'} else 'wins'} most often in every variant."]
        return [*_names(list(g)), " win most often in every variant, their intervals overlapping (no "
                "order between them)."]
    parts: list = [f"The {noun} that wins most often changes with the variant: "]
    for k, (key, g) in enumerate(first.items()):
        where = [v for v, x in zip(variants, groups) if x == key]
        parts += ["; " if k else "", *_names(list(g)),
                  f" in {', '.join(where) if len(where) < 4 else f'{len(where)} variants'}"]
        if len(g) > 1:
            parts.append(" (together: their intervals overlap)")
    return parts + ["."]


def head_to_head_sentence(h2h: pl.DataFrame) -> list:
    """The clearest head-to-head result of one variant, or that there is none: each of the N
    pairs is tested against an even split, Holm-corrected over the N, and the pair with the
    smallest p-value is named only when its adjusted p is below 5%, with its interval widened to
    hold all N pairs at once (Bonferroni), which then leaves out 50% too."""
    tests = stats.pair_tests(h2h)
    top = tests.sort(["p_value", "rate"], descending=[False, True]).row(0, named=True)
    n = int(top["pairs"])
    if top["p_holm"] >= stats.design.LEVEL:
        family = (f"each of the {n} pairs tested against an even split, Holm-corrected for the {n}"
                  if n > 1 else "tested against an even split")
        return [f"Head to head, no strategy is shown to finish ahead of another more often than not: "
                f"{family} (smallest adjusted {pvalue(top['p_holm'])})."]
    which = (f"the clearest of the {n} pairs, each tested against an even split (Holm-adjusted "
             f"{pvalue(top['p_holm'])}); the interval holds all {n} pairs' shares at once" if n > 1
             else f"against an even split, {pvalue(top['p_holm'])}")
    return ["Head to head, ", _strong(top["strategy"]), " finishes ahead of ", _strong(top["opponent"]),
            f" in {share_of_games(top['rate'], top['lo_family'], top['hi_family'], int(top['games']))}: "
            f"{which}."]


def _firsts(row: dict) -> str:
    """Whose edge a variant's row of ``headlines`` holds: "first team's" where it plays in teams."""
    return "first team's" if row.get("unit") == "team" else "first seat's"


def first_unit(seat_advantage: pl.DataFrame) -> str:
    """What "first" is across the variants: "first seat", or where partners play as teams "first
    team" (the team of seat 0), or "first seat or team" when some variants play in teams."""
    units = set(seat_advantage["unit"].to_list()) if "unit" in seat_advantage.columns else {"seat"}
    return {frozenset({"seat"}): "first seat", frozenset({"team"}): "first team"}.get(frozenset(units),
                                                                                      "first seat or team")


def summarise(t: dict[str, pl.DataFrame], experiment: dict[str, Any]) -> list[list]:
    """The "what this says" bullets. Each bullet is a list of parts: plain strings, or
    {"strong": text} for names, so the template can escape everything and still emphasise.

    Every sentence about the seats follows the seat table's one ``outcome`` per variant, and
    every "above fair" the Holm-adjusted verdict, so no two sentences can disagree.
    """
    out: list[list] = []
    head = t["headlines"]
    n_var = len(head)
    players = int(head["players"][0])
    fair = 1 / players
    games = int(head["games"].max())
    fixed = (head["outcome"] == "no verdict").all()
    first = first_unit(t["seat_advantage"])
    firsts = {"first seat": "first seat's", "first team": "first team's"}.get(
        first, "first seat's (in teams, the first team's)")
    if n_var == 1:
        seat = t["seat_advantage"].row(0, named=True)
        v = seat["verdict"]
        partners = seat.get("unit") == "team"
        if partners:  # the headline: does the team that plays first have an edge?
            out.append([v[0].upper() + v[1:] + "."])
        out += order_sentences(t["win_rates"], head.row(0, named=True), fair, players, partners)
        if not partners:
            out.append([v[0].upper() + v[1:] + "."])
        h2h = t["head_to_head"]
        if len(h2h) and players > 2:  # with two players head to head is the win rate again
            out.append(head_to_head_sentence(h2h))
    elif fixed:
        out.append(["There is no seat verdict in any variant: seating is fixed, so each strategy always sits "
                    "in the same seat and seat and strategy cannot be told apart."])
    else:
        lo_row, hi_row = head.sort("edge").row(0, named=True), head.sort("edge").row(-1, named=True)
        out.append(["Across the ", f"{n_var} variants the {firsts} edge goes from "
                    f"{signed_points(lo_row['edge'])} percentage points (", _strong(lo_row["variant"]), f") to "
                    f"{signed_points(hi_row['edge'])} percentage points (", _strong(hi_row["variant"]), ")."])
        differ = head.filter(pl.col("outcome") == "differ")["variant"].to_list()
        tested = int((head["outcome"] != "no verdict").sum())
        accounted = {"first seat": "the strategies", "first team": "the partners"}.get(
            first, "the strategies (or, in teams, the partners)")
        correction = f"testing each variant with {accounted} accounted for, Holm-corrected for the {tested} variants"
        seats = {"first seat": "seats", "first team": "teams"}.get(first, "seats (or teams)")
        if differ:
            out.append([f"The {seats} are not equally placed to win in ", f"{len(differ)} of {tested} variants (",
                        correction, "): ", *_names(differ),
                        *(["; in the other" + ("s" if tested - len(differ) > 1 else "")
                           + " there is no evidence that they differ."] if tested > len(differ) else ["."])])
        else:
            out.append([f"There is no evidence that the {seats} differ in any of the {tested} variants ({correction})."])
        bal = t["balance"].filter(pl.col("outcome") != "no verdict")
        tied = stats.tied_with_best(bal, "abs_edge", "abs_edge_lo", "abs_edge_hi")
        b = tied.row(0, named=True)
        out.append([f"Most balanced {seats}: ", _strong(b["variant"]), f", where the {_firsts(b)} edge is "
                    f"{signed_points(b['edge'])} percentage points (its size: "
                    f"{_pp_interval(b['abs_edge_lo'], b['abs_edge_hi'])})", *_tied_words(tied, "edge"), "."])
    if n_var > 1:
        close = stats.tied_with_best(head, "spread", "spread_lo", "spread_hi")
        far = stats.tied_with_best(head.with_columns(-pl.col("spread"), -pl.col("spread_hi").alias("spread_lo"),
                                                     -pl.col("spread_lo").alias("spread_hi")),
                                   "spread", "spread_lo", "spread_hi")
        a, z = close.row(0, named=True), far.row(0, named=True)
        units = _units(head)
        # a team variant's spread is between pairs of partners: a mixed experiment says whose
        subject = {frozenset({"seat"}): "Strategies are", frozenset({"team"}): "Pairs of partners are"}.get(
            frozenset(units), "Win rates are")
        whose = (lambda r: "") if len(units) == 1 else (
            lambda r: "pairs of partners, " if r.get("unit") == "team" else "strategies, ")
        out.append([f"{subject} closest together in ", _strong(a["variant"]),
                    f" ({whose(a)}best minus worst: {points(a['spread'])} percentage points, interval "
                    f"{_pp_interval(a['spread_lo'], a['spread_hi'])})", *_tied_words(close, "spread"),
                    "; furthest apart in ", _strong(z["variant"]), f" ({whose(z)}{points(-z['spread'])} percentage points, "
                    f"interval {_pp_interval(-z['spread_hi'], -z['spread_lo'])})", *_tied_words(far, "spread"), "."])
        out.append(leaders_sentence(head))
    if "turns_mean" in head.columns and head["turns_mean"].is_not_null().all():
        length = t["length"].filter(pl.col("statistic") == "turns")
        if n_var == 1:
            r = length.row(0, named=True)
            if r["min"] == r["max"]:
                out.append([f"Every game lasts {r['min']:g} turns."])
            else:
                middle = f"{r['q25']:g}" if r["q25"] == r["q75"] else f"{r['q25']:g} to {r['q75']:g}"
                out.append([f"A game lasts {r['mean']:.1f} turns on average (the middle half of games "
                            f"{middle} turns)."])
        else:
            out.append([f"Games last {head['turns_mean'].min():.1f} to {head['turns_mean'].max():.1f} "
                        "turns on average across variants."])
    play = play_time_sentence(t["length"], float(experiment.get("seconds_per_decision")
                                                 or SECONDS_PER_DECISION))
    if play:
        out.append([play])
    out += [[line] for line in safety_stop_sentences(t.get("safety_stops", pl.DataFrame()), n_var)]
    rates = t["win_rates"]
    if experiment.get("seating") == "duplicate":
        out.append(duplicate_sentence(rates, t["head_to_head"], games))
    widest = rates.with_columns((pl.col("hi") - pl.col("lo")).alias("w")).sort("w").row(-1, named=True)
    need = about(int(rates["games_to_halve"].max()))
    per = "per variant " if n_var > 1 else ""
    # which of the variants (a pool's tables) the widest is in: where more games would go
    where = "" if n_var == 1 else (f" at the table {widest['variant']}" if experiment.get("pool")
                                   else f" in {widest['variant']}")
    out.append([f"Sample size: the widest win-rate interval is {points(widest['hi'] - widest['lo'])} percentage "
                f"points wide ({widest['strategy']}{where}, {interval(widest['lo'], widest['hi'])}); about "
                f"{need:,} games {per}(now {games:,}) would halve it; running the experiment "
                f"again with --games {need} into the same output plays only the new games."])
    return out
