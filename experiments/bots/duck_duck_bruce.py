"""Duck Duck Bruce strategies written one game at a time, as a designer would say them.

Each is a plain function of one game: ``view`` is what the player to move knows (the fields
`safari-sim strategies duck_duck_bruce --observation` lists, one game's values), ``legal`` the
numbers of the legal actions, ``rng`` this seat's own random stream. A keyword with a default
is a knob: set it under ``params:`` and sweep it as ``strategies.NAME.params.KNOB``.
See experiments/duck_duck_bruce-per-game.yaml.
"""

# the actions come from the view's helpers (view.draw_action(), view.bank_action(),
# view.pass_action(), view.steal_action(offset, cards)): no action numbers here
CHOOSE, BRUCE = 0, 1           # view.kind: take-or-bank, or a Bruce was revealed


def bank_at(view, legal, rng, cards=3):
    """bank once the row holds `cards` cards; after a Bruce rob the biggest nest of one card"""
    if view.kind == BRUCE:
        return rob_biggest(view, legal)
    return view.bank_action() if view.row_len >= cards else view.draw_action()


def nervous(view, legal, rng, risk=0.25, wobble=0.1):
    """bank when the chance the next card busts reaches `risk`, give or take `wobble`"""
    if view.kind == BRUCE:
        return rob_biggest(view, legal)
    unseen = view.deck_left
    bust = view.bust_cards / unseen if unseen else 1.0
    if view.row_len > 0 and bust >= risk + rng.uniform(-wobble, wobble):
        return view.bank_action()
    return view.draw_action()


def rob_biggest(view, legal):
    """Steal one card from the opponent with the most nest cards (the nearer seat on ties);
    pass when every nest is empty."""
    players = len(view.nest_size)
    best = max(range(1, players), key=lambda o: (view.nest_size[o], -((view.seat + o) % players)))
    if view.nest_size[best] == 0 and view.pass_action() in legal:
        return view.pass_action()
    return int(view.steal_action(best, 1))
