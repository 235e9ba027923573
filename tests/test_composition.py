"""The composition test (issue 22): small random models built from the mechanisms (dice groups and their keeps x
columns x uses x counters x keep rules x announce x while x effects x end conditions, tests/compose.py), each
- loaded and checked, or refused in one line;
- played by every bot kind, the engine's totals equal to a plain Python twin's (tests/compose.py);
- read by every reader: pages and blank sheet, diagram source, terminal board, web sheet info;
- where solvable, solved, with the optimal bot's simulated mean within 3 standard errors.
Seeded; COMPOSE_MODELS=N runs more (the larger run of the issue's note)."""
from __future__ import annotations

import io
import os
import random
import statistics

import pytest
from rich.console import Console

from rulebook.interpreter.engine.actions import Stop, Write
from rulebook.interpreter.players.registry import make_bot
from rulebook.interpreter.model.errors import RulebookError
from rulebook.interpreter.model.loader import load_source
from rulebook.interpreter.engine.state import CHANCE, GameState

from compose import random_model

N = int(os.environ.get("COMPOSE_MODELS", "240"))


def play(model, twin, kinds, rng):
    """One game; returns the state and the twin's totals."""
    state = GameState(model, [f"p{i}" for i in range(len(kinds))])
    bots = [make_bot(k, model, rng) for k in kinds]
    n = len(kinds)
    marks = [0] * n
    game_marks = 0
    points = [0] * n
    pot, banked = 0, [0] * n  # push your luck: this turn's rolls, each player's banked rolls
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            gamble = state.step().id == "chance_roll"
            roll = state.sample_chance(rng)
            pot = 0 if gamble and min(roll.faces) == 1 else pot + 1 if gamble else pot
            state.apply(roll)
            continue
        p = state.current_player()
        action = bots[p].choose(state)
        if type(action) is Stop and state.step().kind == "bank":
            banked[p] += pot
        if state.step().kind == "bank":
            pot = 0 if type(action) is Stop else pot
        if isinstance(action, Write):
            target = model.targets[action.box]
            mine = game_marks if twin.counter == "game" else marks[p]
            fn = twin.boxes[target.box]
            got = fn(list(state.dice), mine) if twin.allowed(target.box, mine) else 0
            points[p] += got * (twin.columns[target.column] if target.column else 1)
            if twin.counter and target.box == twin.marked:
                if twin.counter == "game":
                    game_marks = min(20, game_marks + 1)
                else:
                    marks[p] = min(20, marks[p] + 1)
        state.apply(action)
    final = [game_marks if twin.counter == "game" else marks[p] for p in range(n)]
    totals = [points[p] + twin.bonus * final[p] + twin.luck * banked[p] for p in range(n)]
    ended_early = any(len(s) < len(model.cells) for s in state.sheets)
    if twin.end_at is None:
        assert not ended_early
    elif ended_early:
        assert max(final) >= twin.end_at
    return state, totals


def readers(model, state, lang):
    from rulebook.tools.documents.diagram import diagram
    from rulebook.tools.documents.pages import render_game, render_sheet
    from rulebook.tools.documents.sitefiles import check_site
    from rulebook.tools.serve.views import model_info
    from rulebook.tools.terminal.view import View
    site = check_site([model], [lang], "html")
    assert model.name[lang] in render_game(model, lang, site, None)
    assert "<table" in render_sheet(model, lang, site)
    assert "digraph" in diagram(model, lang).source
    out = io.StringIO()
    View(lang, Console(file=out, width=120)).board(state)
    assert out.getvalue().strip()
    assert model_info(model, lang)


def solvable(model):
    from rulebook.interpreter.solver.space import Space
    try:
        Space(model)
        return True
    except RulebookError as exc:
        assert "\n" not in str(exc)  # a refusal in one line
        return False


def test_random_models_compose():
    rng = random.Random(22)
    seen, loaded, solved = set(), 0, 0
    for i in range(N):
        source, twin = random_model(rng, i)
        try:
            model = load_source(source, f"m{i}.yaml")
        except RulebookError as exc:  # refused in one line, never a traceback
            assert str(exc).strip() and "Traceback" not in str(exc)
            continue
        loaded += 1
        seen |= twin.features
        can_solve = solvable(model)
        kinds = ["random", "greedy", "strong"] + (["optimal"] if can_solve else [])
        for k, kind in enumerate(kinds):
            seats = [kind] + [rng.choice(("random", "greedy"))] * (k % 3)
            state, totals = play(model, twin, seats, rng)
            assert [state.totals(p)["total"] for p in range(len(seats))] == totals, (source, seats)
        readers(model, state, ("en", "de", "nl")[i % 3])
        if can_solve and i % 4 == 0:
            from rulebook.interpreter.solver.solve import solve
            expected = solve(model).expected_score
            games = [play(model, twin, ["optimal"], rng)[1][0] for _ in range(300)]
            se = statistics.stdev(games) / len(games) ** 0.5
            assert abs(statistics.fmean(games) - expected) <= 3 * se + 1e-9, (source, expected)
            solved += 1
    assert loaded >= N * 0.8
    assert seen >= {"counter", "columns", "uses", "end_if", "announce", "while", "keep_rule", "write_rule", "effects", "groups",
                    "group_keeps", "luck", "end_round", "end_last_turn"}
    assert solved >= 5
