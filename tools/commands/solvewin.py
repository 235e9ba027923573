"""`rulebook solve MODEL --objective win`: the exact chance to win with optimal play by every player."""
from __future__ import annotations

import json
import time

from ...interpreter.model.errors import UsageError
from ...interpreter.solver.winchance import win_chances
from ..i18n import number, options_text


def run_win(args, model, lang: str, _) -> int:
    """Explore the whole game for the players at the table and print the first player's chance to win."""
    players = args.players if args.players is not None else max(2, model.min_players)
    if not model.min_players <= players <= model.max_players:
        raise UsageError("{game} is for {least} to {most} players, not {count}", game=model.name[lang],
                         least=model.min_players, most=model.max_players, count=players)
    cpu, wall = time.process_time(), time.perf_counter()
    result = win_chances(model, players, max_states=args.max_states)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if args.json:
        print(json.dumps({"objective": "win", "maximizes": "chance to win", "players": players,
                          "win_probability": result.chances[0], "chances": list(result.chances),
                          "states": result.states, "transitions": result.edges, "sweeps": result.sweeps, "parts": result.parts,
                          "largest_change": result.change, "engine_steps": result.probes,
                          "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
                          "explore_seconds": round(result.explore_seconds, 3),
                          "iterate_seconds": round(result.iterate_seconds, 3)}))
        return 0
    opts = options_text(model, lang)
    print(f"{model.name[lang]} ({opts or _('no options')})")
    print(_("chance to win of the first of {players} players, every player playing to win: {chance} %").format(
        players=players, chance=number(100 * result.chances[0], lang, 4)))
    print(_("states of the whole game: {states}, moves and outcomes between them: {edges}; value iteration "
            "over {parts} parts settled after at most {sweeps} sweeps each; computed in {seconds} s").format(
        states=number(result.states, lang), edges=number(result.edges, lang), parts=number(result.parts, lang),
        sweeps=number(result.sweeps, lang), seconds=number(wall, lang, 1)))
    return 0
