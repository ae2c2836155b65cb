"""`safari-sim tune`: search a game's rules (or a strategy's knobs) for the values that meet a
designer's objectives, with Optuna, in rungs of games, confirming the best candidates at the end.

    from safari_sim.tune import load_tune, run_tune
    tune = load_tune("experiments/duck_duck_bruce-tune.yaml")   # TuneError names the key
    run_tune(tune)                                              # resumable: the same call again

The pieces: ``config`` (the tune file), ``space`` (what may be searched, from the fields'
declared ``search`` or the file), ``objectives`` (what a dataset scores, with intervals),
``search`` (the Optuna loop, independent of games: any evaluation function plugs in), ``verdict``
(is there a dominant strategy) and ``runner`` (trials and confirmations as normal datasets).
"""

from .config import Tune, TuneError, load_tune

__all__ = ["Tune", "TuneError", "load_tune", "run_tune"]


def run_tune(tune: Tune, **kw):
    from .runner import run_tune as _run

    return _run(tune, **kw)
