"""Measures of a finished Jungle Thrills game, as a designer asks them (issue 30's case: how
often does the second version end with face-down pairs nothing can complete?).

Each is a function of one finished game: ``game.position`` is its final position with every card
revealed (the game's state arrays, this game's row: ``pair``, ``set_state``, ``card_value``...),
``game.score`` / ``rank`` / ``win`` per seat, ``game.turns``, ``game.stats``. Named in
experiments/jungle_thrills-v2-measures.yaml as ``measures: [FILE.py:FUNCTION]``: each becomes a
dataset column of the same name.
"""


def stranded_pairs(game):
    """pairs left face down in the centre when the game ended"""
    return sum(1 for slot in game.position.pair if slot[0] >= 0)


def ends_stranded(game):
    """1 when the game ended with at least one pair left in the centre"""
    return 1 if stranded_pairs(game) else 0


def centre_points(game):
    """points of the cards left in the centre's pairs at the end (nobody scores them; the
    game's own `points_unwon` counts every point no one won)"""
    value = game.position.card_value
    return sum(int(value[c]) for slot in game.position.pair for c in slot if c >= 0)
