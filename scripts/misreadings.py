"""Prove a game's tests: make each plausible misreading of the rules in a scratch copy of the
project and run the game's tests there; every misreading must make a test fail.

    .venv/bin/python scripts/misreadings.py duck_duck_bruce

A misreading is one text substitution in the game's module (the table below); the copy lives in a
temporary folder, so the working tree is never touched.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MISREADINGS = {
    "duck_duck_bruce": ("safari_sim/games/duck_duck_bruce.py", [
        ("a double duck loses the whole row", "keep = j\n", "keep = 0\n"),
        ("a nest scores its number of cards", "pts = _nest_score(b, p, best, nsuits)",
         "pts = pp[b, p, NEST_LEN]"),
        ("a roll of -1 lets the roller take a card", "taken = -_take_random(b, p, t, -face,",
         "taken = -_take_random(b, t, p, -face,"),
        ("the highest scorer begins the next round", "lowest = min(lowest, pp[b, p, by])",
         "lowest = -min(-lowest, -pp[b, p, by])"),
        ("the last card ends the round at once", "if params[P_FLAGS] & F_LAST_BANKS:", "if False:"),
        ("the target must be passed, not reached", "if pp[b, p, TOTAL] >= params[P_TARGET]:",
         "if pp[b, p, TOTAL] > params[P_TARGET]:"),
    ]),
    "bluff_in_zoo": ("safari_sim/games/bluff_in_zoo.py", [
        ("a claim met exactly is a lie", "    if counted >= g[b, CLAIM_N]:\n",
         "    if counted > g[b, CLAIM_N]:\n"),
        ("any stop card cancels the action cards", "if stops % 2 == 1:", "if stops > 0:"),
        ("the starting player card passes left of the taker",
         "starter = (g[b, STARTER] + 1) % nplayers", "starter = (taker + 1) % nplayers"),
        ("'All cards count 1' spares the wild cards", "total += n * (1 if one else t_val[t])",
         "total += n * (1 if one and c == ANIMAL else t_val[t])"),
        ("the same number of a bigger animal is no raise",
         "if ck < nkinds - 1:\n                    out[b, count0 + cn - 1] = True",
         "if False:\n                    out[b, count0 + cn - 1] = True"),
        ("the point limit means more than 30", "if pp[b, taker, POINTS] >= params[P_LIMIT]:",
         "if pp[b, taker, POINTS] > params[P_LIMIT]:"),
        ("only the player who took the points refills",
         "_draw_to_hand(b, p, params[P_HAND] - pp[b, p, HAND_N], g, pp, deck, hand)",
         "_draw_to_hand(b, p, (params[P_HAND] - pp[b, p, HAND_N]) * (p == taker), g, pp, "
         "deck, hand)"),
    ]),
}


def main(game: str) -> int:
    module, table = MISREADINGS[game]
    missed = 0
    for name, old, new in table:
        with tempfile.TemporaryDirectory(prefix="misreading-") as tmp:
            copy = Path(tmp) / "project"
            shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(
                ".venv", ".git", "results", "__pycache__"))
            f = copy / module
            text = f.read_text()
            if text.count(old) != 1:
                print(f"{name}: the text to change is not in {module} once; update this table")
                missed += 1
                continue
            f.write_text(text.replace(old, new))
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                                f"tests/test_{game}.py"], cwd=copy, capture_output=True, text=True)
            failed = re.findall(r"FAILED (\S+)", r.stdout)
            print(f"{name}: " + (f"caught by {failed[0]}" if failed else "NOT CAUGHT"), flush=True)
            missed += not failed
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "duck_duck_bruce"))
