"""A Duck Duck Bruce strategy written with numpy over the batch: the user's batch API.

``act`` is asked once per step for every game where this strategy is to move: ``obs`` holds
those games' observations (one row each: the fields `safari-sim strategies duck_duck_bruce
--observation` lists), ``legal`` their legal masks (bool[n, actions]), ``rng`` their seats' own
random streams (``rng.random(n)`` gives one number per game). It returns one action per game,
with no Python loop over the games: as fast as numpy, which the per-game functions beside it
(``duck_duck_bruce.py``) trade for simplicity. Run by experiments/duck_duck_bruce-batch.yaml.
"""

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from strategies.base import Strategy

DRAW, BANK, PASS = 0, 1, 2   # the game's actions (safari-sim strategies duck_duck_bruce --actions)
BRUCE = 1                    # obs.kind after a Bruce: rob a nest (obs.steal_action) or pass


class Nervous(Strategy):
    name = "nervous_batch"
    game = "duck_duck_bruce"
    summary = "banks once the chance the next card busts reaches `risk`, give or take `wobble`"

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        risk: float = Field(0.25, ge=0, le=1, description="bust chance at which it banks")
        wobble: float = Field(0.1, ge=0, description="random spread around `risk`")

    def act(self, obs, legal, rng):
        n = len(obs)
        u = rng.random(n)  # one draw per game, every time, so each game's stream is its own
        bust = obs.bust_chance()
        risk = self.params.risk + (2 * u - 1) * self.params.wobble
        out = np.where((obs.row_len > 0) & (bust >= risk), BANK, DRAW)
        # after a Bruce: rob one card from the biggest nest, or pass when every nest is empty
        bruce = obs.kind == BRUCE
        if bruce.any():
            biggest = 1 + np.argmax(obs.nest_size[:, 1:], axis=1)
            rob = obs.steal_action(biggest, np.ones(n, np.int64))
            empty = obs.nest_size[np.arange(n), biggest] == 0
            out = np.where(bruce, np.where(empty & legal[:, PASS], PASS, rob), out)
        return out
