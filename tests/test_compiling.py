"""The first run says what it is doing: a kernel numba compiles is counted and said, with the
time so far; a kernel already compiled (or loaded from the cache) says nothing."""

from __future__ import annotations

from numba import njit
from rich.console import Console

from safari_sim.compiling import FIRST_RUN_SECONDS, first_notice, watch


def test_compiling_is_said_with_the_kernels_and_time_and_a_compiled_kernel_is_not():
    @njit
    def inner(x):
        return x + 1

    @njit
    def outer(x):
        return inner(x) * 2

    said = []
    with watch(said.append, "duck_duck_bruce", "Duck Duck Bruce") as c:
        assert outer(3) == 8
    assert c.kernels == 2 and said and said[0] is c
    console = Console(width=300, record=True)
    console.print(c)
    line = console.export_text()
    about = f"about {FIRST_RUN_SECONDS['duck_duck_bruce']} s of CPU"
    assert "compiling Duck Duck Bruce for this machine" in line and about in line
    assert "2 kernels" in line and "now" in line
    again = []
    with watch(again.append, "duck_duck_bruce", "Duck Duck Bruce") as c2:
        assert outer(4) == 10
    assert c2.kernels == 0 and not again


def test_commands_with_their_own_progress_get_one_line():
    @njit
    def f(x):
        return x - 1

    @njit
    def g(x):
        return f(x) + f(x)

    lines = []
    with first_notice(lines.append, "savannah", "Savannah"):
        g(2)
    assert len(lines) == 1 and lines[0].startswith("compiling Savannah for this machine")


def test_a_run_into_a_log_says_it_is_compiling_at_once(monkeypatch):
    """Into a log (not a terminal) the live status line shows nothing: a first run was silent for
    its whole compile (97 s under load for Duck Duck Bruce), then said "compiled 16 kernels".
    Now it says one line at the first kernel, then the count at the end."""
    import io
    from types import SimpleNamespace

    from safari_sim import cli
    import safari_sim.engine.play as play
    import safari_sim.run.runner as runner

    @njit
    def kernel(x):
        return x * 3

    log = io.StringIO()
    monkeypatch.setattr(cli, "out", Console(file=log, width=300))
    assert not cli.out.is_terminal
    monkeypatch.setattr(play, "play_batch", lambda *a, **k: kernel(2))
    monkeypatch.setattr(runner, "build_strategies", lambda *a, **k: [None, None])
    variant = SimpleNamespace(strategies=[], rules=None)
    exp = SimpleNamespace(game=SimpleNamespace(id="herds", name="Herds"), variants=[variant], players=2,
                          base_dir=".")
    cli._compile_first(exp, quiet=False)
    lines = log.getvalue().splitlines()
    from safari_sim.compiling import FIRST_RUN_SECONDS

    assert lines[0].startswith("compiling Herds for this machine, its first run here (about "
                               f"{FIRST_RUN_SECONDS['herds']} s of CPU")
    assert lines[-1].startswith("compiled 1 kernel of Herds in ")
