"""Herds: how often the two documented readings change results (docs/rules/herds.md).

Usage: .venv/bin/python experiments/herds-readings.py PLAYERS GAMES
Plays the same deals under the printed reading and each alternative with the three shipped
strategies; prints win shares and how often the game's winner differs."""
import numpy as np, sys
from safari_sim.games import get_game
from safari_sim.engine.chance import game_keys
from safari_sim.engine.play import play_batch
from strategies import get_strategy
G=get_game("herds")
names=["collector","blocker","sprinter"]
P=int(sys.argv[1]); B=int(sys.argv[2])
for label, over in [("printed",{}),("explorer any",{"trade_explorer_must_grow":False}),("flip plays on",{"flip_last_ends":False}),("swap in opponents' herds",{"swap_in_opponents_herds":True}),("grass explorer must be played",{"grass_draw_explorer_kept":False})]:
    S=[get_strategy("herds",n)() for n in names]
    seating=(np.arange(P)[None,:]+np.arange(B)[:,None])%3
    keys=game_keys(11,P,B)
    res=play_batch(G,G.make_rules(over),P,S,seating,keys)
    w=[res.outcome.win[seating==k].mean() for k in range(3)]
    if label=="printed": base=res.outcome.win.argmax(1); bw=res.outcome.win
    changed=(np.abs(res.outcome.win-bw).sum(1)>0).mean()
    print(P,label,dict(zip(names,np.round(w,3))),"winner differs in",round(changed,3),"hands",res.outcome.stats["hands"].mean())
