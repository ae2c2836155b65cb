"""The report: every printed number against a plain polars + scipy recomputation from the Parquet,
escaping, self-containment, the HTML in headless Chromium and the PDF's pages through pdftoppm.

How the browser check works (robust without a driver): the test copies report.html, lets inline
scripts run by widening the page's Content-Security-Policy by exactly script-src 'unsafe-inline',
and puts a probe script first in <head>. The probe records every error event (resource load
failures arrive as error events in the capture phase) and console.error call, and on `load` writes
onto <body> how many <img> completed with a real size and the errors seen. Chromium runs with
--dump-dom and a virtual time budget, so it prints the DOM after `load`; the test reads the two
attributes back. Chromium's own console log (--enable-logging=stderr --v=0) is checked too: the
report has no scripts, so any CONSOLE line (a CSP violation, say) is a failure. A second run takes
a screenshot that must not be blank.
"""

from __future__ import annotations

import base64
import html as html_lib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import chi2, norm

import reports
from report_data import frame, seat_test_oracle, write_dataset
from safari_sim.stats import words

GAMES = 12_000
NASTY = "<b>bold & $co$</b>"  # must come out escaped in HTML, and as written in the figures
STRATEGIES = ["cautious", NASTY, "counter"]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Two variants; the second plants a first-seat edge. Report written as HTML and PDF."""
    path = write_dataset(tmp_path_factory.mktemp("results"), players=3, games=GAMES, strategies=STRATEGIES,
                         strengths=[1.6, 1, 1], sweep={"rules.bruce_cards": [0, 12]},
                         variant_effect=lambda v: ([1.6, 1, 1], [1 + v["rules.bruce_cards"] / 40, 1, 1]),
                         seed=5)
    written = reports.build_report(path)
    return path, written


@pytest.fixture(scope="module")
def page(results):
    path, _ = results
    return Cells((path / "report.html").read_text())


class Cells(HTMLParser):
    """Elements with data-* attributes, their text, plus every <img> src."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.html = html
        self.items: list[dict] = []
        self.images: list[str] = []
        self._open: list[dict] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a.get("src", ""))
        item = {"tag": tag, **a, "text": ""}
        if tag not in ("img", "meta", "br", "link"):
            self._open.append(item)
            if any(k.startswith("data-") for k in a):
                self.items.append(item)

    def handle_endtag(self, tag):
        if self._open:
            done = self._open.pop()
            if self._open:
                self._open[-1]["text"] += done["text"]

    def handle_data(self, data):
        if self._open:
            self._open[-1]["text"] += data

    def find(self, **where) -> list[dict]:
        return [i for i in self.items if all(i.get(k.replace("_", "-")) == v for k, v in where.items())]


def table(path) -> pl.DataFrame:
    return pl.read_parquet(f"{path}/chunks/**/*.parquet")


def wilson(s, n):
    z = norm.ppf(0.975)
    p = s / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


def row_cells(html: str, attrs: str) -> str:
    """The HTML of the table row whose opening tag carries ``attrs``."""
    m = re.search(r"<tr " + re.escape(attrs) + r">(.*?)</tr>", html, re.S)
    assert m, attrs
    return m.group(1)


def cell(row_html: str, key: str) -> tuple[dict, str]:
    m = re.search(r'<td[^>]*data-key="' + key + r'"([^>]*)>(.*?)</td>', row_html, re.S)
    assert m, key
    attrs = dict(re.findall(r'(data-[a-z]+)="([^"]*)"', m.group(0).split(">")[0]))
    return attrs, re.sub(r"<[^>]+>", "", m.group(2))


# ---- every number equals a recomputation from the Parquet -----------------------------------------

def test_win_rates_printed_equal_recomputed(results):
    path, _ = results
    html = (path / "report.html").read_text()
    df = table(path)
    recomputed = df.group_by("variant_id", "strategy").agg(pl.len().alias("n"), pl.col("win").sum().alias("w"))
    assert len(recomputed) == 6
    for vid, name, n, w in recomputed.iter_rows():
        esc = name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        row = row_cells(html, f'data-variant="{vid}" data-strategy="{esc}"')
        attrs, text = cell(row, "rate")
        assert float(attrs["data-value"]) == pytest.approx(w / n, abs=1e-12)
        assert text == f"{100 * w / n:.1f}%"
        lo, hi = wilson(w, n)
        attrs, text = cell(row, "interval")
        assert float(attrs["data-lo"]) == pytest.approx(lo, abs=1e-12)
        assert float(attrs["data-hi"]) == pytest.approx(hi, abs=1e-12)
        assert text == f"{100 * lo:.1f}% – {100 * hi:.1f}%"
        attrs, text = cell(row, "games")
        assert int(attrs["data-value"]) == n and text == f"{n:,}"


def test_seat_tests_printed_equal_scipy(results, page):
    path, _ = results
    df = table(path)
    tests = page.find(tag="p", data_key="seat-test")
    verdicts = page.find(tag="p", data_key="seat-verdict")
    assert len(tests) == len(verdicts) == 2
    p_values = []
    for vid, (t, v) in enumerate(zip(tests, verdicts)):
        d = df.filter(pl.col("variant_id") == vid)
        stat, dof = seat_test_oracle(d)
        p = chi2.sf(stat, dof)
        p_values.append(p)
        assert float(t["data-p"]) == pytest.approx(p, rel=1e-9)
        assert float(t["data-statistic"]) == pytest.approx(stat, rel=1e-9)
        assert words.pvalue(p) in t["text"] and "with the strategies accounted for" in t["text"]
        first = d.filter(pl.col("seat") == 0)["win"]
        assert f"the first seat wins {100 * first.mean():.1f}% (interval " in v["text"]
    # two variants: Holm over both decides
    adjusted = [min(1, 2 * min(p_values)), max(min(1, 2 * min(p_values)), max(p_values))]
    adjusted = adjusted if p_values[0] <= p_values[1] else adjusted[::-1]
    for t, a in zip(tests, adjusted):
        assert f"adjusted {words.pvalue(a)} after Holm's correction for the 2 variants" in t["text"]
    assert verdicts[0]["text"].startswith("No evidence that the seats differ")
    assert verdicts[1]["text"].startswith("The seats are not equally placed to win")
    assert "an edge of" in verdicts[1]["text"] and "percentage points" in verdicts[1]["text"]


def test_head_to_head_printed_equal_recomputed(results, page):
    path, _ = results
    df = table(path)
    a = df.select("variant_id", "game", pl.col("strategy").alias("a"), pl.col("rank").alias("ra"))
    b = df.select("variant_id", "game", pl.col("strategy").alias("b"), pl.col("rank").alias("rb"))
    pairs = (a.join(b, on=["variant_id", "game"]).filter(pl.col("a") != pl.col("b"))
             .group_by("variant_id", "a", "b")
             .agg(pl.len().alias("n"),
                  ((pl.col("ra") < pl.col("rb")).cast(pl.Float64) + 0.5 * (pl.col("ra") == pl.col("rb"))).sum()
                  .alias("w")))
    assert len(pairs) == 12
    for vid, sa, sb, n, w in pairs.iter_rows():
        [c] = page.find(tag="td", data_variant=str(vid), data_strategy=sa, data_opponent=sb)
        assert int(c["data-games"]) == n
        assert float(c["data-value"]) == pytest.approx(w / n, abs=1e-12)
        lo, hi = wilson(w, n)
        assert (float(c["data-lo"]), float(c["data-hi"])) == pytest.approx((lo, hi), abs=1e-12)
        assert c["text"].startswith(f"{100 * w / n:.1f}% ± ")


def test_headline_and_summary_numbers(results, page):
    path, _ = results
    df = table(path)
    for vid in (0, 1):
        first = df.filter((pl.col("variant_id") == vid) & (pl.col("seat") == 0))["win"]
        row = row_cells(page.html, f'data-variant="{vid}"')  # the headline table comes first
        attrs, text = cell(row, "edge")
        assert float(attrs["data-value"]) == pytest.approx(first.mean() - 1 / 3, abs=1e-12)
        assert text == words.signed_points(first.mean() - 1 / 3)
        stat, dof = seat_test_oracle(df.filter(pl.col("variant_id") == vid))
        attrs, text = cell(row, "p_value")
        assert float(attrs["data-value"]) == pytest.approx(chi2.sf(stat, dof), rel=1e-9)
        attrs, text = cell(row, "outcome")
        assert attrs["data-value"] == ("no evidence" if vid == 0 else "differ")
    summary = re.search(r'<section id="summary".*?</section>', page.html, re.S).group(0)
    assert "Most balanced seats: <strong>rules.bruce_cards=0</strong>" in summary
    assert "tied with" not in summary.split("Most balanced")[1].split("</li>")[0]  # the planted edge is clear
    assert "wins most often in every variant" in summary
    assert ("The seats are not equally placed to win in 1 of 2 variants (testing each variant with the "
            "strategies accounted for, Holm-corrected for the 2 variants): <strong>rules.bruce_cards=12</strong>"
            in summary)
    text = re.sub(r"<[^>]+>", "", summary)
    assert " points" not in text.replace("percentage points", "").replace("Elo points", "").replace("game points", "")


def test_rating_printed_matches_its_table(results, page):
    path, _ = results
    lf, exp = reports.open_results(path)
    ratings = reports.compute.compute_tables(lf, exp)["ratings"]  # what build_view prints, without figures
    for vid, name, rating in ratings.select("variant_id", "strategy", "rating").iter_rows():
        [c] = [i for i in page.find(tag="td", data_key="rating")
               if float(i["data-value"]) == pytest.approx(rating, abs=1e-9)]
        assert c["text"] == words.signed(rating, 0)
    strongest = ratings.filter(pl.col("variant_id") == 0).row(0, named=True)
    assert strongest["strategy"] == "cautious"


# ---- escaping, self-containment, files -----------------------------------------------------------

def test_text_from_the_experiment_is_escaped(page):
    assert NASTY not in page.html
    assert "&lt;b&gt;bold &amp; $co$&lt;/b&gt;" in page.html
    assert "# synthetic experiment &lt;for tests&gt; &amp; co" in page.html
    assert "<b>" not in page.html


def test_html_is_self_contained(page):
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//|file:)""", page.html)
    assert "<script" not in page.html and "<link" not in page.html
    assert len(page.images) == 9  # 4 per variant and one per swept key
    for src in page.images:
        assert src.startswith("data:image/svg+xml;base64,")
        svg = base64.b64decode(src.split(",", 1)[1]).decode()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "href=\"http" not in svg


def test_written_files_and_options(results, tmp_path):
    path, written = results
    assert written == [path / "report.html", path / "report.pdf"]
    assert (path / "report.pdf").read_bytes().startswith(b"%PDF")
    assert not [p for p in path.iterdir() if p.name.endswith(".tmp")]
    out = reports.build_report(path, ["html"], out=tmp_path / "elsewhere")
    assert out == [tmp_path / "elsewhere" / "report.html"] and out[0].stat().st_size > 10_000
    with pytest.raises(reports.ReportError, match="unknown report format docx"):
        reports.build_report(path, ["docx"])


def test_clear_errors_without_dataset_or_experiment(tmp_path):
    with pytest.raises(reports.ReportError, match="no such results directory"):
        reports.build_report(tmp_path / "missing")
    with pytest.raises(reports.ReportError, match="no experiment.json"):
        reports.build_report(tmp_path)
    (tmp_path / "experiment.json").write_text(json.dumps({"name": "x"}))
    with pytest.raises(reports.ReportError, match="no dataset"):
        reports.build_report(tmp_path)


def test_two_players_lowest_score_fixed_seating(tmp_path):
    """The binomial path, a lowest-score-wins game and fixed seating render without surprises."""
    path = write_dataset(tmp_path, players=2, games=3000, seating="fixed", lower_score_wins=True,
                         integer_scores=True, strengths=[1.2, 1], seed=3)
    [html_path] = reports.build_report(path, ["html"])
    html = html_path.read_text()
    assert "There is no seat verdict: seating is fixed" in html and "(lower wins)" in html
    assert "No test of equal seats" in html
    verdict = re.search(r'data-key="seat-verdict">(.*?)</p>', html, re.S).group(1)
    assert "edge" not in verdict and "disadvantage" not in verdict
    assert "seat and strategy cannot be told apart" in verdict
    seats = [i for i in Cells(html).find(tag="td", data_key="versus")][-2:]  # the seat table's rows
    assert [c["text"] for c in seats] == ["no seat verdict"] * 2
    margin = float(re.search(r'data-key="margin" data-value="([^"]+)"', html).group(1))
    assert margin > 0


# ---- rendering in a real browser and the PDF -----------------------------------------------------

CHROMIUM = shutil.which("chromium")
PDFTOPPM = shutil.which("pdftoppm")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars"]
PROBE = (
    "<script>window.__e=[];"
    "window.addEventListener('error',function(e){window.__e.push(e.target&&e.target.tagName?"
    "'failed to load '+e.target.tagName:'error '+e.message);},true);"
    "(function(){var c=console.error;console.error=function(){window.__e.push('console.error '+"
    "Array.prototype.join.call(arguments,' '));c.apply(console,arguments);};})();"
    "window.addEventListener('load',function(){var im=document.images,ok=0;"
    "for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++;}"
    "document.body.setAttribute('data-images',ok+'/'+im.length);"
    "document.body.setAttribute('data-errors',window.__e.join(' | ')||'none');});</script>"
)


def nonblank(png: Path) -> float:
    """Share of pixels that are not (near) white."""
    import matplotlib.image

    img = matplotlib.image.imread(png)[..., :3]
    return float((img.min(axis=2) < 0.9).mean())


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={tmp / 'profile'}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup-system.sh installs it)")
def test_html_in_headless_chromium(results, tmp_path):
    path, _ = results
    html = (path / "report.html").read_text()
    assert "default-src 'none';" in html
    probed = html.replace("default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
    probed = probed.replace("<head>", "<head>" + PROBE, 1)
    (tmp_path / "probed.html").write_text(probed)
    run = chromium(tmp_path, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
                   "--dump-dom", (tmp_path / "probed.html").as_uri())
    body = re.search(r"<body[^>]*>", run.stdout)
    assert body, run.stderr[-2000:]
    images = re.search(r'data-images="(\d+)/(\d+)"', body.group(0))
    assert images and images.group(1) == images.group(2) and int(images.group(2)) == 9, body.group(0)
    assert 'data-errors="none"' in body.group(0), body.group(0)
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console
    shot = tmp_path / "shot.png"
    run = chromium(tmp_path, "--window-size=1200,2400", f"--screenshot={shot}", (path / "report.html").as_uri())
    assert shot.exists(), run.stderr[-2000:]
    assert nonblank(shot) > 0.03


@pytest.mark.skipif(PDFTOPPM is None, reason="pdftoppm is not installed (poppler-utils; scripts/setup-system.sh)")
def test_pdf_pages_are_not_blank(results, tmp_path):
    path, _ = results
    subprocess.run([PDFTOPPM, "-png", "-r", "50", str(path / "report.pdf"), str(tmp_path / "page")],
                   check=True, timeout=120)
    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= 4  # summary, comparison, one section per variant, appendix
    for p in pages:
        assert nonblank(p) > 0.005, p.name


# ---- duplicate deals, one verdict, ties -----------------------------------------------------------

def test_duplicate_deals_report_their_effective_games(tmp_path):
    """The report says what duplicate deals were worth: each win-rate interval's effective number
    of independent games, measured from the variance of per-deal averages."""
    path = write_dataset(tmp_path, players=3, games=3000, seating="duplicate", deal_luck=1.5,
                         strengths=[2, 1, 1], integer_scores=False, seed=21)
    [html_path] = reports.build_report(path, ["html"])
    page = Cells(html_path.read_text())
    df = table(path)
    eff = []
    for name in ("bot0", "bot1", "bot2"):
        rows = df.filter(pl.col("strategy") == name)
        avg = rows.group_by("deal").agg(pl.col("win").mean())["win"].to_numpy()
        n_eff = len(rows) * (rows["win"].var() / len(rows)) / (avg.var(ddof=1) / len(avg))
        [c] = [c for c in page.find(tag="td", data_key="n_eff")
               if row_cells(page.html, f'data-variant="0" data-strategy="{name}"').count(c["data-value"])]
        assert float(c["data-value"]) == pytest.approx(n_eff, rel=1e-3)
        eff.append(n_eff)
        # the printed interval is Wilson's at the effective games
        attrs, _ = cell(row_cells(page.html, f'data-variant="0" data-strategy="{name}"'), "interval")
        lo, hi = wilson(rows["win"].mean() * n_eff, n_eff)
        assert float(attrs["data-lo"]) == pytest.approx(lo, rel=1e-3)
    summary = re.sub(r"<[^>]+>", "", re.search(r'<section id="summary".*?</section>', page.html, re.S).group(0))
    summary = " ".join(html_lib.unescape(summary).split())
    assert "Duplicate deals: measured on this run, each strategy's win-rate interval is worth" in summary
    assert f"({min(eff) / 3000:.2f} to {max(eff) / 3000:.2f} times the 3,000 games played per variant): the luck" in summary
    assert min(eff) > 3000


def test_summary_never_contradicts_the_seat_verdict(tmp_path):
    """Seed 19 (see test_stats): the first seat's own interval leaves out fair, the test of all
    seats finds no evidence. The report says "no evidence" everywhere and no "edge"."""
    path = tmp_path / "r"
    d = frame(players=3, games=3000, seat_factors=[1.07, 1, 1], strengths=[2, 1, 1], rng=19)
    write_dataset(path, players=3, games=30)  # the experiment.json and layout ...
    for f in (path / "chunks").glob("**/*.parquet"):
        f.unlink()
    d.write_parquet(path / "chunks" / "v000" / "c000000.parquet")  # ... with seed 19's games
    [html_path] = reports.build_report(path, ["html"])
    html = html_path.read_text()
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "No evidence that the seats differ: the first seat wins" in text
    assert "so no evidence that the seats differ." in text
    assert "an edge of" not in text and "not equally placed" not in text
    seats = Cells(html).find(tag="td", data_key="versus")[-3:]
    assert [c["text"] for c in seats] == ["fair within reach"] * 3


# ---- issue 17: safety stops, certain margins, wrapped titles, play time ---------------------------

def _add_caps(path: Path, capped_games: dict[int, set[int]]) -> None:
    """Mark games (per variant) as ended by the safety stop: ``capped`` 1 on every seat's row, as a
    game writes a per-game statistic."""
    for f in sorted((path / "chunks").glob("*/*.parquet")):
        df = pl.read_parquet(f)
        vid = int(df["variant_id"][0])
        hit = pl.col("game").is_in(sorted(capped_games.get(vid, set())))
        df.with_columns(pl.when(hit).then(1).otherwise(0).cast(pl.Int32).alias("capped")).write_parquet(f)


def test_report_counts_safety_stops_per_variant(tmp_path):
    path = write_dataset(tmp_path, players=3, games=900, sweep={"rules.target": [50, 77]}, seed=4)
    _add_caps(path, {1: {3, 10, 400}})
    report = reports.build_view(*reports.open_results(path))
    text = " ".join("".join(p if isinstance(p, str) else p["strong"] for p in b) for b in report.context["summary"])
    assert "3 of 1,800 games were ended by the safety stop" in text
    assert "rules.target=77: 3 of 900 games were ended by the safety stop" in text
    assert "rules.target=50:" not in text.split("Per variant")[-1]
    html = reports.render_html(report)
    lines = re.findall(r'data-key="safety_stops">(.*?)</p>', html)
    assert lines == ["Safety stops: 3 of 900 games were ended by the safety stop: their results are the "
                     "cap&#39;s, not the rules&#39;."]


def test_report_without_a_cap_column_says_nothing_of_safety_stops(tmp_path):
    path = write_dataset(tmp_path, players=3, games=600, seed=4)
    html = reports.render_html(reports.build_view(*reports.open_results(path)))
    assert "safety stop" not in html.lower()


def test_a_certain_head_to_head_reads_as_a_finding(tmp_path):
    from reports.compute import share_of_games

    path = write_dataset(tmp_path, players=3, games=900, strategies=["bluffer", "middle", "random"],
                         strengths=[1e9, 1, 1e-9], integer_scores=False, seed=6)
    report = reports.build_view(*reports.open_results(path))
    text = " ".join("".join(p if isinstance(p, str) else p["strong"] for p in b) for b in report.context["summary"])
    assert re.search(r"bluffer finishes ahead of (random|middle) in every one of their 900 games together", text)
    assert "100.0% (interval" not in text
    assert "bluffer wins most often: every one of its 900 games (interval" in text
    assert share_of_games(0.99996, 0.9991, 1.0, 30_000).startswith("more than 99.9% (interval 99.91% to 100.00%)")
    assert share_of_games(0.0, 0.0, 0.004, 900).startswith("none of their 900 games")
    assert share_of_games(0.621, 0.6, 0.64, 900) == "62.1% (interval 60.0% to 64.0%) of their games together"


def test_game_shape_titles_do_not_overlap_with_a_long_score_name(monkeypatch):
    from reports import figures

    figs = []
    monkeypatch.setattr(figures, "to_data_uri", lambda fig: figs.append(fig) or "data:,")
    hist = lambda col: pl.DataFrame({"bin": [0, 1, 2], "bin_lo": [0.0, 1.0, 2.0], "width": [1.0] * 3,  # noqa: E731
                                     "count": [5, 3, 1]})
    length = pl.concat([hist("x").with_columns(pl.lit(s).alias("statistic")) for s in ("turns", "rounds")])
    figures.game_shape(hist("margin"), length, "points (cards taken; fewest wins)")
    fig = figs[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = sorted((ax._left_title.get_window_extent(renderer) for ax in fig.axes), key=lambda b: b.x0)
    assert len(boxes) == 3
    for left, right in zip(boxes, boxes[1:]):
        assert left.x1 < right.x0, "a panel title runs into the next one"
    assert "\n" in fig.axes[0].get_title(loc="left")


def test_play_time_estimate(tmp_path):
    from typer.testing import CliRunner

    from safari_sim.cli import app

    path = write_dataset(tmp_path / "r", players=3, games=900, seed=7)
    turns = table(path).filter(pl.col("seat") == 0)["turns"]
    report = reports.build_view(*reports.open_results(path))
    text = " ".join("".join(p if isinstance(p, str) else p["strong"] for p in b) for b in report.context["summary"])
    minutes = turns.mean() * 10 / 60
    assert f"a game takes about {minutes:.1f} minutes at the table" in text
    assert "at 10 seconds a decision" in text
    [out] = reports.build_report(path, ["html"], out=tmp_path / "o", seconds_per_decision=30)
    html = " ".join(out.read_text().split())
    assert f"a game takes about {turns.mean() * 30 / 60:.0f} minutes at the table" in html
    res = CliRunner().invoke(app, ["report", str(path), "--format", "html", "--out", str(tmp_path / "c"),
                                   "--seconds-per-decision", "0"])
    assert res.exit_code == 2 and "--seconds-per-decision" in res.output
    from reports.compute import play_time_sentence

    two = pl.DataFrame({"statistic": ["turns", "turns"], "mean": [72.9, 73.5], "q25": [60.0] * 2, "q75": [85.0] * 2})
    assert "about 12 minutes at the table on average in every variant" in play_time_sentence(two, 10)
    assert "about 6.1 to 12 minutes" in play_time_sentence(two.with_columns(pl.Series("mean", [36.5, 73.5])), 10)
    with pytest.raises(reports.ReportError, match="seconds per decision"):
        reports.build_report(path, ["html"], out=tmp_path / "o", seconds_per_decision=-1)


GAME_IDS = ["duck_duck_bruce", "paper_safari", "bluff_in_zoo", "savannah", "safari_sprint", "hi_lo_hijinks",
            "animal_hunt", "jungle_thrills", "herds", "deducktion"]


def test_docs_observations_is_the_generated_text():
    from safari_sim import observation_docs

    docs = Path(__file__).resolve().parents[1] / "docs" / "observations.md"
    assert docs.read_text() == observation_docs.document(), \
        "docs/observations.md is stale: python -m safari_sim.observation_docs > docs/observations.md"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_strategies_observation_prints_every_field(game_id):
    import dataclasses

    from typer.testing import CliRunner

    from safari_sim.cli import app
    from safari_sim.games import get_game
    from safari_sim.observation_docs import describe, observation_class

    game = get_game(game_id)
    cls = observation_class(game)
    _, rows = describe(game)
    names = [f.name for f in rows]
    if dataclasses.is_dataclass(cls):  # every public dataclass field is documented, in order
        public = [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]
        assert names[:len(public)] == public
    assert len(names) == len(set(names)) and {"game", "seat", "kind"} <= set(names)
    assert sum(bool(f.doc) for f in rows) >= 0.7 * len(rows), "most fields have a description"
    res = CliRunner().invoke(app, ["strategies", game_id, "--observation"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    for f in rows:
        assert f"│ {f.name} " in res.output
        if f.doc:
            assert " ".join(f.doc.split()[:4]) in " ".join(res.output.split())


def test_observation_text_is_the_source_comment_and_its_continuation():
    from safari_sim.games import get_game
    from safari_sim.observation_docs import describe

    rows = {f.name: f for f in describe(get_game("paper_safari"))[1]}
    assert rows["seen_sum"].doc == ("int16[n, P] what the cards this player sees in each grid add up to "
                                    "(equal seen cards of a column count 0, a Safari 0)")
    assert rows["grid"].doc == "int8[n, P, S] the cards as this player knows them (-1 unseen)"
    ddb = {f.name: f for f in describe(get_game("duck_duck_bruce"))[1]}
    assert ddb["bust_cards"].doc.endswith("ducks of the row's suits and Bruces")
    assert ddb["unseen"].on_demand and ddb["unseen"].doc.startswith("int16[n, S]")
    sav = {f.name: f for f in describe(get_game("savannah"))[1]}
    assert sav["phase"].doc.startswith("0 opening, 1 first phase, 2 second phase")


# ---- issue 30: numbers that say what they know ------------------------------------------------------

def _summary(d: pl.DataFrame) -> list[str]:
    """The summary's bullets as plain text, from one variant's games in memory."""
    t = reports.compute.compute_tables(d.lazy(), {"seating": "rotate"})
    return ["".join(p if isinstance(p, str) else p["strong"] for p in b)
            for b in reports.compute.summarise(t, {"seating": "rotate"})]


def test_order_sentence_singles_out_no_strategy_when_all_are_equal():
    """Every strategy equal (known truth): every interval overlaps, so the summary names them all
    together and calls none the one that wins least (or most)."""
    for seed in (3, 4):
        text = " ".join(_summary(frame(players=3, games=3000, rng=seed)))
        assert "wins least" not in text and "wins most" not in text and "win least" not in text
        line = next(b for b in _summary(frame(players=3, games=3000, rng=seed)) if "all overlap" in b)
        assert line.startswith("No strategy is shown to win more or less often than another")
        assert all(s in line for s in ("bot0", "bot1", "bot2"))


def test_order_sentence_names_the_one_clearly_lowest():
    """One strategy far below the others (strength 0.4 against 1, 1): it alone wins least."""
    bullets = _summary(frame(players=3, games=3000, strengths=[1, 1, 0.4], rng=3))
    [least] = [b for b in bullets if "least" in b]
    assert least.startswith("bot2 wins least: ") and "bot0" not in least.split(";")[0]
    assert not any("all overlap" in b for b in bullets)


def test_across_variants_overlapping_leaders_are_named_together():
    """Two strategies equally strong in both variants (strengths 1, 1, 0.4): neither is "the one
    that wins most often in every variant"; the two are named together, as the headline table's
    "wins most" names them, and the clearly weakest alone wins least."""
    d = pl.concat([frame(players=3, games=3000, strengths=[1, 1, 0.4], rng=5 + k, variant_id=k,
                         label=f"v{k}") for k in range(2)])
    t = reports.compute.compute_tables(d.lazy(), {"seating": "rotate"})
    head = t["headlines"]
    assert [sorted(g) for g in head["best_group"].to_list()] == [["bot0", "bot1"]] * 2
    assert head["worst_group"].to_list() == [["bot2"]] * 2
    text = ["".join(p if isinstance(p, str) else p["strong"] for p in b)
            for b in reports.compute.summarise(t, {"seating": "rotate"})]
    [line] = [b for b in text if "most often" in b]
    assert re.fullmatch(r"bot[01] and bot[01] win most often in every variant, their intervals "
                        r"overlapping \(no order between them\)\.", line), line
    clear = pl.concat([frame(players=3, games=3000, strengths=s, rng=9 + k, variant_id=k, label=f"v{k}")
                       for k, s in enumerate(([3, 1, 1], [1, 1, 1]))])
    t = reports.compute.compute_tables(clear.lazy(), {"seating": "rotate"})
    line = next("".join(p if isinstance(p, str) else p["strong"] for p in b)
                for b in reports.compute.summarise(t, {"seating": "rotate"})
                if "most often" in "".join(p if isinstance(p, str) else p["strong"] for p in b))
    assert line.startswith("The strategy that wins most often changes with the variant: bot0 in v0; ")
    assert re.search(r"; bot\d, bot\d and bot\d in v1 \(together: their intervals overlap\)\.$", line), line


def _head_to_head_claims(monkeypatch, players: int, games: int, replicates: int, seed: int) -> float:
    """Share of null replicates (every strategy equal) whose head-to-head sentence names a pair as
    finishing ahead. The replicates are the variants of one frame, so one head_to_head pass."""
    monkeypatch.setattr("gc.collect", lambda *a: 0)  # statsmodels' Holm calls it: 60 ms a call here
    d = pl.concat([frame(players=players, games=games, rng=seed + k, variant_id=k) for k in range(replicates)])
    h2h = reports.compute.stats.head_to_head(d.lazy())
    claims = 0
    for (_,), g in h2h.group_by(["variant_id"]):
        text = "".join(p if isinstance(p, str) else p["strong"] for p in reports.compute.head_to_head_sentence(g))
        claims += " finishes ahead of " in text
    return claims / replicates


@pytest.mark.parametrize("players", [3, 4])
def test_head_to_head_sentence_holds_its_level_on_null_data(monkeypatch, players):
    """Every strategy equal: the largest of all pairs with its plain interval claimed a difference
    in 12-23% of reports; Holm over the pairs keeps it at 5% or less (300 replicates: 8% is 2.4
    standard errors above 5%)."""
    assert _head_to_head_claims(monkeypatch, players, 300, 300, 1000) <= 0.08


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
def test_head_to_head_sentence_level_slow(monkeypatch, players):
    assert _head_to_head_claims(monkeypatch, players, 600, 1500, 50_000) <= 0.065  # 1.7 se above 5%


def test_head_to_head_sentence_names_a_clear_pair():
    h2h = reports.compute.stats.head_to_head(frame(players=4, games=3000, strengths=[1.3, 1, 1, 1], rng=3).lazy())
    text = "".join(p if isinstance(p, str) else p["strong"] for p in reports.compute.head_to_head_sentence(h2h))
    assert text.startswith("Head to head, bot0 finishes ahead of ") and "the clearest of the 6 pairs" in text
    lo, hi = re.search(r"interval ([\d.]+)% to ([\d.]+)%", text).groups()
    assert float(lo) > 50  # the widened interval leaves out an even split, as the adjusted p says


def test_table_cells_print_the_decimals_a_narrow_interval_needs(tmp_path):
    """One strategy always wins and one never: their intervals are a few hundredths of a point
    wide, which one decimal printed as "0.0% – 0.0%" and "100.0% – 100.0%". Every interval cell
    shows distinct ends, with the decimals the sentences use (words.digits_for)."""
    path = write_dataset(tmp_path, players=3, games=12_000, strategies=["always", "middle", "never"],
                         strengths=[1e9, 1, 1e-9], integer_scores=False, seed=6, sweep={"rules.bruce_cards": [0, 12]})
    [html_path] = reports.build_report(path, ["html"])
    cells = Cells(html_path.read_text()).find(tag="td", data_key="interval")
    ends = [c["text"].split(" – ") for c in cells]
    assert len(ends) >= 12 and all(lo != hi for lo, hi in ends)
    assert ["0.000%", "0.032%"] in ends
    lo, hi = float(cells[0]["data-lo"]), float(cells[0]["data-hi"])
    assert cells[0]["text"] == f"{words.pct(lo, words.digits_for(hi - lo))} – {words.pct(hi, words.digits_for(hi - lo))}"


def test_narrow_elo_and_point_intervals_keep_distinct_ends():
    """Ratings and percentage-point cells take their decimals from the width too."""
    d = words.decimals(0.9 - -0.4)  # an Elo interval 1.3 points wide
    assert (words.signed(-0.4, d), words.signed(0.9, d)) == ("\u22120.4", "+0.9")  # was "-0 to +1"
    assert words.decimals(40) == 0 and words.decimals(0.04, most=3) == 3 and words.decimals(0) == 0
    d = words.digits_for(0.0003)
    assert words.signed_points(0.0412, d) != words.signed_points(0.0415, d)
    assert words.pm(0.3332, 0.3336) == "± 0.020%"


def test_play_time_says_what_it_counts():
    """Every game 12 turns (as Deducktion's): no "2.0 to 2.0 minutes", and the sentence says a turn
    is counted as one decision; with a per-game decisions column it counts decisions."""
    from reports.compute import compute_tables, play_time_sentence

    fixed = frame(players=3, games=600, rng=3).with_columns(pl.lit(12, pl.Int32).alias("turns"))
    bullets = " ".join(_summary(fixed))
    assert "Every game lasts 12 turns." in bullets and "12 to 12" not in bullets
    line = play_time_sentence(compute_tables(fixed.lazy(), {"seating": "rotate"})["length"], 10)
    assert line.startswith("Play time: a game takes about 2.0 minutes at the table (every game 12 turns)")
    assert "counting each turn as one decision: the dataset records turns, not the decisions" in line
    assert "2.0 to 2.0" not in line
    both = frame(players=3, games=600, rng=3).with_columns((3 * pl.col("turns")).alias("decisions"))
    length = compute_tables(both.lazy(), {"seating": "rotate"})["length"]
    decisions = length.filter(pl.col("statistic") == "decisions").row(0, named=True)
    line = play_time_sentence(length, 10)
    assert f"about {decisions['mean'] * 10 / 60:.0f} minutes at the table" in line
    assert "counting every decision a player makes" in line and "each turn" not in line


def test_sentences_and_the_compare_table_keep_a_narrow_intervals_ends_apart(tmp_path):
    """The tournament's lead, the skill line and `compare`'s table take their decimals from the
    interval's width: no "interval -0 to +1", "40% (interval 40% to 40%)" or "+0.1 (+0.1 to +0.1)"."""
    import polars as pl
    from typer.testing import CliRunner

    from safari_sim.cli import app
    import importlib

    from safari_sim.stats import skill
    tournament = importlib.import_module("safari_sim.stats.tournament")  # the module, not the function

    r = pl.DataFrame({"strategy": ["a", "b"], "rating": [0.6, -0.6], "lead": [0.0, 1.2],
                      "lead_lo": [0.0, -0.3], "lead_hi": [0.0, 2.4]})
    t = {"ratings": r, "best": {"strategy": "a", "share": 0.8, "tied": ["b"], "tables": 3,
                                "resamples": 200}}
    text = "".join(x if isinstance(x, str) else x["strong"] for x in tournament.best_sentence(t))
    assert "its lead over b is 1.2 Elo points (interval \u22120.3 to +2.4, which reaches 0)" in text
    t["best"]["tied"] = []
    t["ratings"] = r.with_columns(pl.Series("lead_lo", [0.0, 0.4]))
    text = "".join(x if isinstance(x, str) else x["strong"] for x in tournament.best_sentence(t))
    assert "by 1.2 Elo points (interval 0.4 to 2.4)" in text
    narrow = skill.Pairing("best", "random", 3, 10**6, 0.7, 0.699, 0.701, 0.4012, 0.4001, 0.4023,
                           0.3, 0.299, 0.301)
    line = skill.line("Duck Duck Bruce", narrow, narrow, 0.25)
    assert "skill decides 40.12% (interval 40.01% to 40.23%)" in line
    a = write_dataset(tmp_path / "a", players=3, games=300_000, seed=1, integer_scores=False)
    b = write_dataset(tmp_path / "b", players=3, games=300_000, seed=2, integer_scores=False)
    res = CliRunner().invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "250"})
    assert res.exit_code == 0, res.output
    rows = [ln for ln in res.output.splitlines() if "win rate" in ln and ln.startswith("│")]
    assert len(rows) == 4, res.output
    for ln in rows:   # a change's interval of a few tenths of a point: two decimals, ends apart
        m = re.search(r"([+−-]\d+\.(\d+)) \(([+−-]\d+\.\d+) to ([+−-]\d+\.\d+)\)", ln)
        assert m and len(m.group(2)) == 2 and m.group(3) != m.group(4), ln


def test_the_sample_size_sentence_says_where_the_widest_interval_is():
    """In a sweep, and at a pool's tables, the widest interval is named with its variant (table)."""
    d = pl.concat([frame(players=3, games=g, rng=3 + k, variant_id=k, label=f"lineup={k}")
                   for k, g in enumerate((3000, 1000))])
    t = reports.compute.compute_tables(d.lazy(), {"seating": "rotate"})
    for exp, where in (({"seating": "rotate"}, " in lineup=1, "),
                       ({"seating": "rotate", "pool": [{"name": "bot0"}]}, " at the table lineup=1, ")):
        [line] = ["".join(p if isinstance(p, str) else p["strong"] for p in b)
                  for b in reports.compute.summarise(t, exp) if "Sample size" in str(b)]
        assert re.search(r"percentage points wide \(bot\d" + re.escape(where), line), line


def test_a_spread_interval_never_passes_100_points():
    """One strategy wins almost every game: the spread's upper end was 100.4 points (normal
    intervals past 0% and 100%); a spread of two rates in [0, 1] is at most 100."""
    t = reports.compute.compute_tables(frame(players=3, games=300, strengths=[200, 1, 1], rng=2).lazy(),
                                       {"seating": "rotate"})
    h = t["headlines"].row(0, named=True)
    assert h["spread"] > 0.98 and h["spread_lo"] <= h["spread"] <= h["spread_hi"] <= 1.0


def test_an_estimate_beside_its_interval_has_the_intervals_decimals():
    """At 300,000 games the summary said "53.0% (interval 52.78% to 53.14%)": the estimate now
    prints with its interval's decimals, in the order, seat and head-to-head sentences alike."""
    text = " ".join(_summary(frame(players=3, games=300_000, strengths=[1.6, 1, 0.5], rng=8)))
    found = re.findall(r"(\d+\.(\d+))% \(interval (\d+\.(\d+))% to", text)
    assert len(found) >= 3, text
    assert all(len(a) == len(b) == 2 for _, a, _, b in found), found
