"""The search: Optuna's ask-and-tell loop over rungs of games, independent of any game.

``search`` asks Optuna for a candidate, has ``evaluate(number, values, games)`` play it at the
first rung (a dict of ``Measure`` by objective name), and goes on to the next rung only while
the candidate is not hopeless:

- one objective: each rung's value is reported to Optuna (``trial.report``) and its pruner
  decides. The default pruner, ``NoisePruner``, is noise-aware: it prunes a trial only when its
  95% interval lies wholly on the wrong side of the interval of the best finished trial, so a
  candidate that merely had a bad draw of games goes on. ``median`` is Optuna's MedianPruner.
- several objectives (Optuna does not prune those): a trial stops when some finished trial
  beats even its best case (the good end of its interval) on every objective, beyond noise on
  at least one: then more games could not put it on the front.

The default sampler starts with a space-filling design: the first ``QMC_START`` trials are points
of a scrambled Sobol sequence (Optuna's ``QMCSampler``, seeded by the tune's seed), so that even
a small budget spreads its trials over every searched range (each coordinate of the first 2^k
points falls once in each of 2^k equal slices); then TPE models where the good values are.

Every trial records what it played at each rung as user attributes (``rung{k}.games``,
``rung{k}.NAME``, ``rung{k}.NAME.se``, and the last rung's as ``games``, ``NAME``, ``NAME.se``),
so the history is complete and a resumed search counts the games already spent. The loop stops
when the trials' games reach the budget. A trial that was running when a search was stopped is
marked failed and its values asked again first (its games already on disk are kept).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.pruners import BasePruner
from optuna.samplers import BaseSampler
from optuna.trial import TrialState

from .objectives import Measure, Objective
from .space import Param

Evaluate = Callable[[int, dict[str, Any], int], dict[str, Measure]]


class TrialFailed(RuntimeError):
    """An evaluation that cannot be played (a combination of values the rules refuse)."""


def _z() -> float:
    from ..stats.intervals import z_value

    return z_value()


class NoisePruner(BasePruner):
    """Prune a trial when its interval at this rung is wholly worse than the best finished
    trial's interval (one objective). Needs ``n_startup`` finished trials first."""

    def __init__(self, n_startup: int = 2):
        self.n_startup = n_startup

    def prune(self, study: optuna.Study, trial: optuna.trial.FrozenTrial) -> bool:
        step = trial.last_step
        if step is None:
            return False
        value = trial.intermediate_values[step]
        se = trial.user_attrs.get(f"step{step}.se", 0.0)
        done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if t.values and "se" in t.user_attrs]
        if len(done) < self.n_startup or not math.isfinite(value):
            return False
        sign = 1 if study.direction == optuna.study.StudyDirection.MINIMIZE else -1
        best = min(done, key=lambda t: sign * t.values[0])
        z = _z()
        # the trial's best case is still worse than the best trial's worst case
        return sign * value - z * se > sign * best.values[0] + z * best.user_attrs["se"]


def make_pruner(kind: str, multi: bool) -> BasePruner:
    if kind == "none" or multi:
        return optuna.pruners.NopPruner()
    if kind == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=3, n_warmup_steps=0)
    return NoisePruner()


QMC_START = 8  # trials of the space-filling design before TPE (a power of two: balanced slices)


def distributions(space: list[Param]) -> dict[str, BaseDistribution]:
    """The Optuna distributions that ``Param.suggest`` asks for, by key."""
    out: dict[str, BaseDistribution] = {}
    for p in space:
        if p.kind == "choice":
            out[p.key] = CategoricalDistribution(p.labels())
        elif p.kind == "int":
            out[p.key] = IntDistribution(int(p.low), int(p.high), log=p.log, step=int(p.step or 1))
        else:
            out[p.key] = FloatDistribution(float(p.low), float(p.high), log=p.log, step=p.step)
    return out


class SpaceFillingStart(BaseSampler):
    """Trials 0 .. n - 1 from Optuna's QMCSampler (scrambled Sobol), the rest from ``then``.

    The QMC sampler is given the search space (``space``, set by ``search``) rather than left to
    infer it from a first trial it would draw at random, so the design starts at its first point.
    Its place in the sequence is kept in the study (a resumed tune goes on with the next point),
    which is why its seed is the tune's own, not the resumed sampler's."""

    def __init__(self, then: BaseSampler, seed: int, n: int = QMC_START):
        self.then, self.n, self.space = then, n, None
        self.qmc = optuna.samplers.QMCSampler(qmc_type="sobol", scramble=True, seed=seed)

    def _start(self, trial) -> bool:
        return self.space is not None and trial.number < self.n

    def infer_relative_search_space(self, study, trial):
        if self._start(trial):
            return dict(self.space)
        return self.then.infer_relative_search_space(study, trial)

    def sample_relative(self, study, trial, search_space):
        if self._start(trial):
            return self.qmc.sample_relative(study, trial, search_space) if search_space else {}
        return self.then.sample_relative(study, trial, search_space)

    def sample_independent(self, study, trial, param_name, param_distribution):
        return self.then.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study, trial) -> None:
        self.then.before_trial(study, trial)

    def after_trial(self, study, trial, state, values) -> None:
        self.then.after_trial(study, trial, state, values)

    def reseed_rng(self) -> None:
        self.then.reseed_rng()


def make_sampler(kind: str, seed: int, multi: bool, start_seed: int | None = None) -> optuna.samplers.BaseSampler:
    """``start_seed``: the seed of the space-filling design (the tune's; ``seed`` may be a resumed
    sampler's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if kind == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if kind == "nsga2":
            return optuna.samplers.NSGAIISampler(seed=seed, population_size=8)
        tpe = optuna.samplers.TPESampler(seed=seed, n_startup_trials=QMC_START, multivariate=True)
        return SpaceFillingStart(tpe, seed if start_seed is None else start_seed)


def open_study(storage: str | None, name: str, objectives: list[Objective], sampler: str = "tpe",
               pruner: str = "noise", seed: int = 0) -> optuna.Study:
    """A new study, or the one already in ``storage`` (``load_if_exists``: a tune resumes)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    multi = len(objectives) > 1
    study = optuna.create_study(
        storage=storage, study_name=name, load_if_exists=True,
        directions=[o.direction for o in objectives],
        sampler=make_sampler(sampler, seed, multi), pruner=make_pruner(pruner, multi))
    done = len(study.trials)
    if done:  # resumed: a sampler seeded as at the start would ask its first values again
        study.sampler = make_sampler(sampler, seed + done, multi, start_seed=seed)
    return study


def games_used(study: optuna.Study) -> int:
    return sum(int(t.user_attrs.get("played", 0)) for t in study.get_trials(deepcopy=False))


def recover(study: optuna.Study) -> list[int]:
    """Trials left running by a stopped search: marked failed, their values queued again (so the
    same candidate is played next, from the games its folder already holds). Their numbers."""
    stale = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    for t in stale:
        study._storage.set_trial_user_attr(t._trial_id, "error", "stopped while running; asked again")
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
        study.enqueue_trial(t.params, user_attrs={"again": t.number}, skip_if_exists=False)
    return [t.number for t in stale]


def _dominated(measures: dict[str, Measure], objectives: list[Objective], study: optuna.Study) -> bool:
    """Whether a finished trial makes this one hopeless: on every objective this one's best case
    (the good end of its 95% interval) is no better than the finished trial's value, and on at
    least one it is clearly worse (the two intervals apart). A candidate whose interval still
    reaches past a rival's value on some objective might yet join the front, so it goes on."""
    z = _z()
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if not t.values:
            continue
        clearly = False
        for o, v in zip(objectives, t.values):
            sign = 1 if o.direction == "minimize" else -1
            m = measures[o.name]
            se_t = t.user_attrs.get(f"{o.name}.se", 0.0)
            if sign * m.value - z * m.se < sign * v:
                break          # its best case beats the finished trial here: not hopeless
            if sign * v + z * se_t < sign * m.value - z * m.se:
                clearly = True
        else:
            if clearly:
                return True
    return False


def search(study: optuna.Study, space: list[Param], objectives: list[Objective], evaluate: Evaluate,
           rungs: list[int], budget: int, prune: bool = True,
           on_trial: Callable[[optuna.trial.FrozenTrial], None] | None = None,
           max_failures: int = 5) -> int:
    """Run trials until the games spent reach ``budget``. Returns the trials run now."""
    multi = len(objectives) > 1
    if isinstance(study.sampler, SpaceFillingStart):
        study.sampler.space = distributions(space)
    ran = 0
    failures = 0
    while games_used(study) < budget:
        trial = study.ask()
        values = {p.key: p.suggest(trial) for p in space}
        state, result, played = TrialState.COMPLETE, None, 0
        try:
            for k, games in enumerate(rungs):
                measures = evaluate(trial.number, values, games)
                played = games
                trial.set_user_attr("played", played)
                trial.set_user_attr(f"rung{k}.games", games)
                for o in objectives:
                    m = measures[o.name]
                    trial.set_user_attr(f"rung{k}.{o.name}", m.value)
                    trial.set_user_attr(f"rung{k}.{o.name}.se", m.se)
                result = [measures[o.name].value for o in objectives]
                if any(not math.isfinite(v) for v in result):
                    raise TrialFailed("an objective could not be measured (no games to measure)")
                if k == len(rungs) - 1 or not prune:
                    break
                if multi:
                    if _dominated(measures, objectives, study):
                        state = TrialState.PRUNED
                        break
                else:
                    trial.set_user_attr(f"step{games}.se", measures[objectives[0].name].se)
                    trial.report(result[0], games)
                    if trial.should_prune():
                        state = TrialState.PRUNED
                        break
        except TrialFailed as e:
            trial.set_user_attr("error", str(e))
            study.tell(trial, state=TrialState.FAIL)
            failures += 1
            if failures >= max_failures:
                raise TrialFailed(f"{failures} trials in a row could not be played; the last: {e}")
            continue
        failures = 0
        trial.set_user_attr("games", played)
        for o in objectives:
            m = measures[o.name]
            trial.set_user_attr(o.name, m.value)
            trial.set_user_attr(f"{o.name}.se", m.se)
            for k, v in m.extra.items():  # e.g. the signed edge behind |edge|
                if isinstance(v, (int, float)):
                    trial.set_user_attr(f"{o.name}.{k}", float(v))
        if not multi:
            trial.set_user_attr("se", measures[objectives[0].name].se)
        if state == TrialState.PRUNED:
            frozen = study.tell(trial, state=TrialState.PRUNED)
        else:
            frozen = study.tell(trial, result if multi else result[0])
        ran += 1
        if on_trial:
            on_trial(frozen)
    return ran


def candidates(study: optuna.Study, objectives: list[Objective], top: int) -> list[optuna.trial.FrozenTrial]:
    """The trials to confirm: finished (every finished trial played the last rung; pruned ones
    are not candidates), distinct values; the ``top`` best for one objective, else up to ``top``
    of the Pareto front (the best on each objective first, then the rest of the front)."""
    done = [t for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) if t.values]
    seen, unique = set(), []
    sign = [1 if o.direction == "minimize" else -1 for o in objectives]
    for t in sorted(done, key=lambda t: [s * v for s, v in zip(sign, t.values)]):
        key = tuple(sorted((k, repr(v)) for k, v in t.params.items()))
        if key not in seen:
            seen.add(key)
            unique.append(t)
    if len(objectives) == 1:
        return unique[:top]
    front = [t for t in unique if not any(
        all(s * a <= s * b for s, a, b in zip(sign, u.values, t.values)) and u.values != t.values
        for u in unique)]
    picked: list = []
    for i in range(len(objectives)):  # the best on each objective, then the rest of the front
        best = min(front, key=lambda t: sign[i] * t.values[i])
        if best not in picked:
            picked.append(best)
    picked += [t for t in front if t not in picked]
    return picked[:top]
