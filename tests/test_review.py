"""`rulebook review LOG`: every decision of a played game against the solver's table.

The optimal player's own game loses nothing; a random player's loss is, move by move, the best value
minus the value of the move made, recomputed here from the solver's table by a plain expectimax over
the turn (not the bots' planner); and a Yacht position whose two values are worked out by hand.
"""
from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement, product
from pathlib import Path

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.engine.actions import Keep, Stop, Write, parse_action
from rulebook.interpreter.engine.state import CHANCE, GameState
from rulebook.interpreter.model.dice import outcomes
from rulebook.interpreter.play.game import Game, Seat
from rulebook.interpreter.solver.solve import solved
from rulebook.interpreter.solver.writetable import encode


@pytest.fixture(scope="module")
def yacht_game(tmp_path_factory):
    """A two-player Yacht log: a random player and the optimal one (seed 7), and its review as JSON."""
    from rulebook.tools.cli import main
    import contextlib
    import io
    path = tmp_path_factory.mktemp("review") / "yacht.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["play", "yacht", "--players", "r:random,o:optimal", "--seed", "7", "--log", str(path)]) == 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["review", str(path), "--json"]) == 0
    return path, json.loads(out.getvalue())


def test_the_optimal_players_game_loses_nothing(yacht_game):
    _, review = yacht_game
    optimal = review["players"][1]
    assert optimal["kind"] == "optimal" and optimal["decisions"] >= 24  # at least a keep and a write a round
    assert optimal["total_loss"] == 0 and optimal["mistakes"] == []
    assert all(d["loss"] == 0 and d["made"] == d["best"] for d in review["decisions"] if d["player"] == 1)


def _table_value(space, V, sheet) -> float:
    """The solver's table at a turn-start sheet: the expected points still to come."""
    mask, fvals = encode(space, sheet)
    return float(V[mask * space.F + sum(f * r for f, r in zip(fvals, space.radix))])


def _expectimax(model, space, V, sheet):
    """The values of a turn from a sheet, by plain recursion over keeps and rolls: write(dice) is the
    best points + the table's value of the sheet after; keep(kept, j) the mean over the rerolls."""
    scorer, n, faces = GameState(model, ["x"]).scorer, model.n_dice, model.faces

    @lru_cache(maxsize=None)
    def writes(dice):
        return {c.box: c.points + c.bonus + _table_value(space, V, {**sheet, c.box: c.points})
                for c in scorer.choices(list(dice), sheet)}

    @lru_cache(maxsize=None)
    def best(dice, j):
        if j == 0:
            return max(writes(dice).values())
        return max(keep(kept, j) for m in range(n + 1) for kept in set(combinations_with_replacement(dice, m))
                   if all(kept.count(f) <= dice.count(f) for f in kept))

    @lru_cache(maxsize=None)
    def keep(kept, j):
        total = sum(w * best(tuple(sorted(kept + r)), j - 1) for r, w in outcomes(n - len(kept), faces))
        return total / faces ** (n - len(kept))
    return writes, keep, best


def test_a_random_players_loss_is_the_tables_move_by_move(yacht_game):
    path, review = yacht_game
    model = load_model("yacht")
    space, table = solved(model)
    lines = path.read_text().splitlines()
    reviewed = {d["line"]: d for d in review["decisions"]}
    state = GameState(model, ["r", "o"])
    checked, total, turns = 0, 0.0, {}
    for n, text in enumerate(lines[1:], start=2):
        action = parse_action(json.loads(text)["move"])
        if state.current_player() != CHANCE and state.player == 0 and len(state.legal_actions()) > 1:
            sheet = dict(state.sheets[0])
            base = sum(sheet.values())
            key = tuple(sorted(sheet.items()))
            if key not in turns:
                turns[key] = _expectimax(model, space, table.values, sheet)
            writes, keep, best = turns[key]
            j = state.rolls_left()
            if isinstance(action, Write):
                values = {Write(b): v for b, v in writes(state.dice).items()}
            else:
                values = {Keep(k): keep(k, j) for k in {a.dice for a in state.legal_actions() if isinstance(a, Keep)}}
                if any(isinstance(a, Stop) for a in state.legal_actions()):
                    values[Stop()] = max(writes(state.dice).values())
            top = max(values.values())
            d = reviewed[n]
            assert d["made"] == str(action)
            assert d["made_value"] == pytest.approx(base + values[action], abs=1e-6)
            assert d["best_value"] == pytest.approx(base + top, abs=1e-6)
            assert d["loss"] == pytest.approx(top - values[action], abs=1e-6)
            total += top - values[action]
            checked += 1
        state.apply(action)
    assert checked == review["players"][0]["decisions"] and checked >= 24
    assert review["players"][0]["total_loss"] == pytest.approx(total, abs=1e-5)
    assert total > 50  # a random player loses a lot
    worst = sorted((d for d in review["decisions"] if d["player"] == 0), key=lambda d: (-d["loss"], d["line"]))[:3]
    assert review["players"][0]["mistakes"] == [d["line"] for d in worst]


def _p_yacht_in_three() -> Fraction:
    """The chance of five of a kind within three rolls, keeping the most frequent face each time:
    a Markov chain over how many dice show the most frequent face (worked out without the solver;
    the rerolled dice may make another face the most frequent)."""
    def counted(k: int) -> dict[int, Fraction]:  # k dice of face 0 kept, the other 5 - k rolled
        out: dict[int, Fraction] = {}
        m = 5 - k
        for roll in product(range(6), repeat=m):
            c = max([k + roll.count(0)] + [roll.count(f) for f in range(1, 6)])
            out[c] = out.get(c, Fraction(0)) + Fraction(1, 6 ** m)
        return out
    dist = counted(0)
    for _ in range(2):
        nxt: dict[int, Fraction] = {}
        for k, p in dist.items():
            for k2, q in counted(k).items():
                nxt[k2] = nxt.get(k2, Fraction(0)) + p * q
        dist = nxt
    return dist[5]


def test_a_hand_checked_yacht_position(tmp_path, cli):
    """Yacht, last two boxes open (Yacht and Choice), five sixes on the first roll, written into Choice.
    Into Yacht: 50 now + Choice alone later, where each die is rerolled while it shows less than 4,
    then less than 5: 5 × 14/3 = 70/3. Into Choice: 30 now + 50 × P(five of a kind in three rolls)."""
    model = load_model("yacht")
    game = Game(model, [Seat("Ann", "human")], seed=1)
    others = [b for b in model.cells if b not in ("yacht", "choice")]
    game.state = GameState.from_json(model, {**game.state.to_json(), "sheets": [{b: 0 for b in others}]})
    log = tmp_path / "hand.jsonl"
    game.start_log(log)
    game.apply(parse_action("roll 6 6 6 6 6"))
    game.apply(Stop())
    game.apply(Write("choice"))
    code, out, err = cli("review", str(log), "--json")
    assert (code, err) == (0, "")
    d = json.loads(out)["decisions"]
    stop, write = d
    p = _p_yacht_in_three()
    assert float(p) == pytest.approx(0.0460286, abs=1e-7)
    assert (write["made"], write["best"]) == ("write choice", "write yacht")
    assert write["best_value"] == pytest.approx(50 + 70 / 3, abs=1e-6)  # 73.3333
    assert write["made_value"] == pytest.approx(30 + 50 * float(p), abs=1e-6)  # 32.3014
    assert write["loss"] == pytest.approx(41.0319, abs=1e-4)
    assert (stop["made"], stop["loss"]) == ("stop", 0)  # five sixes: stopping is best
    code, out, _ = cli("review", str(log), "--lang", "de")
    assert "Runde 1, Würfel 6 6 6 6 6: Chance statt Yacht kostete 41,03 Punkte." in out


def test_words_in_every_language(yacht_game, cli):
    path, _ = yacht_game
    for lang, words in {"en": ("decisions reviewed", "biggest mistakes of r", "lost nothing"),
                        "de": ("Entscheidungen geprüft", "größten Fehler von r", "nichts verloren"),
                        "nl": ("beslissingen bekeken", "grootste fouten van r", "niets verloren")}.items():
        code, out, err = cli("review", str(path), "--lang", lang)
        assert (code, err) == (0, "")
        for w in words:
            assert w in out, (lang, w)


def test_refusals_are_one_line(tmp_path, cli):
    log = tmp_path / "q.jsonl"
    code, _, _ = cli("play", "qwixx", "--players", "a:random,b:random", "--seed", "1", "--log", str(log))
    assert code == 0
    code, out, err = cli("review", str(log))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "the solver cannot read this game's model, so its moves cannot be reviewed" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"rulebook": 1}\n')
    code, out, err = cli("review", str(bad), "--lang", "de")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, out, err = cli("review", str(tmp_path / "missing.jsonl"))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_a_win_seat_is_rated_by_its_chance_to_win(tmp_path, cli):
    """At a table of two, the play-to-win seat's own choices lose no chance to win, and the optimal
    seat's no points; a random seat's losses are in points."""
    log = tmp_path / "win.jsonl"
    code, _, err = cli("play", "yacht", "--players", "w:win,o:optimal,r:random", "--seed", "2", "--log", str(log))
    assert code == 0, err
    code, out, err = cli("review", str(log), "--json")
    assert (code, err) == (0, "")
    review = json.loads(out)
    w, o, r = review["players"]
    assert (w["unit"], o["unit"], r["unit"]) == ("chance", "points", "points")
    assert w["total_loss"] == 0 and o["total_loss"] == 0 and r["total_loss"] > 20
    chances = [d for d in review["decisions"] if d["player"] == 0]
    assert all(d["unit"] == "chance" and 0 <= d["made_value"] <= 1 for d in chances) and len(chances) >= 24
    code, out, _ = cli("review", str(log), "--lang", "nl")
    assert "speelt om te winnen" in out or "kans om te winnen" in out
