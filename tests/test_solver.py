"""The solver against published optimal scores, and the pieces it is built from."""
import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.solver.abstraction import Feature, NotSolvable, features, turn_shape
from rulebook.interpreter.play.game import Game, Seat
from rulebook.interpreter.players.optimal import OptimalBot
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.solve import solved
from rulebook.interpreter.engine.turn import turn_tables


@pytest.fixture(scope="module", autouse=True)
def solver_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RULEBOOK_CACHE", str(tmp_path_factory.mktemp("solver-cache")))
    yield
    mp.undo()


def test_five_alike_within_three_rolls():
    tt = turn_tables(5, 6)
    five = np.array([[1.0 if len(set(r)) == 1 else 0.0] for r in tt.rolls])
    assert tt.start_value(five, 2)[0] == pytest.approx(0.04602864, abs=1e-8)  # 2,783,176/60,466,176


def test_keep_values_equal_the_transition_matrix():
    tt = turn_tables(5, 6)
    V = np.random.default_rng(1).random((252, 7))
    assert np.allclose(tt.keep_values(V), tt.T @ V)


def test_state_features_are_derived_from_the_model():
    assert features(load_model("yahtzee")) == [Feature("total", "upper", 63), Feature("equals", "yahtzee", 50)]
    assert features(load_model("yahtzee", {"joker": "none"})) == [Feature("total", "upper", 63)]
    assert features(load_model("yahtzee", {"upper_bonus_threshold": "68"}))[0] == Feature("total", "upper", 68)
    assert features(load_model("yacht")) == []
    assert turn_shape(load_model("yahtzee")) == 2


def test_reachable_state_count_matches_the_literature():
    space = Space(load_model("yahtzee"))
    assert sum(len(space.level(k)[0]) for k in range(14)) == 536_448  # Glenn 2006


def test_unsolvable_models_are_refused_with_a_reason():
    with pytest.raises(NotSolvable, match="end_if"):
        Space(load_model("generala"))


def test_free_joker_optimum_is_verhoeff_254_5896():
    _, table = solved(load_model("yahtzee", {"joker": "free"}))
    assert table.expected_score == pytest.approx(254.5896, abs=1e-4)
    assert table.states == 536_448


def test_no_joker_optimum_is_glenn_245_87():
    _, table = solved(load_model("yahtzee", {"joker": "none"}))
    assert table.expected_score == pytest.approx(245.87, abs=5e-3)


def test_optimal_bot_agrees_with_the_table_and_plays_a_game():
    model = load_model("yahtzee", {"joker": "free"})
    bot = OptimalBot(model)
    game = Game(model, [Seat("cpu", "optimal")], seed=7)
    game.advance()  # first roll
    # the value of the turn, planned from scratch, equals the table's value of the empty sheet
    tt = turn_tables(5, 6)
    boxes, table = bot.write_table(game.state)
    start = tt.start_value(table.max(axis=0)[:, None], 2)[0]
    assert start == pytest.approx(bot.table.expected_score, abs=1e-9)
    while not game.state.is_terminal():
        game.advance()
    assert len(game.state.sheets[0]) == 13


def test_forced_joker_optimum_is_close_to_but_not_verhoeff():
    _, table = solved(load_model("yahtzee"))
    assert table.expected_score == pytest.approx(254.5877, abs=1e-4)


def test_yatzy_optimum_matches_the_open_source_solvers():
    _, table = solved(load_model("yatzy"))
    assert table.expected_score == pytest.approx(248.44, abs=5e-3)  # KTH 2012 reports 248.63


def test_yacht_optimum():
    _, table = solved(load_model("yacht"))
    assert table.expected_score == pytest.approx(166.955068, abs=1e-6)
    assert table.states == 4096


def test_hint_agrees_with_the_solver():
    from rulebook.tools.terminal.hint import hint_lines
    from rulebook.tools.terminal.view import View
    model = load_model("yahtzee", {"joker": "free"})
    game = Game(model, [Seat("me", "human")], seed=11)
    game.advance()
    bot = OptimalBot(model)
    values = bot.keep_values(game.state)
    best = max(values.values())
    lines = hint_lines(game.state, View("en"))
    assert lines[0] == "Hint (expected final score):"
    assert float(lines[1].split()[-1]) == pytest.approx(best, abs=0.005)
    # at the start of the game the best keep is worth exactly what the table promises on average
    assert best <= bot.table.expected_score + 200


def test_first_roll_bonus_is_solved_per_roll_number():
    """Generala's served bonus depends on the roll number: each roll of a turn gets its own write table."""
    model = load_model("generala", {"served_generala_wins": "false"})
    space, table = solved(model)
    assert space.roll_dependent and space.roll_numbers == [1, 2, 3]
    assert table.expected_score == pytest.approx(159.618456, abs=1e-6)
    served = load_model("generala", {"served_generala_wins": "false", "served_bonus": "0"})
    assert solved(served)[1].expected_score < table.expected_score


def test_roll_dependent_simulation_agrees_with_the_solver():
    from rulebook.interpreter.play.simulate import run_games, summarize
    model = load_model("generala", {"served_generala_wins": "false"})
    seats = [Seat("cpu", "optimal")]
    (s,) = summarize(model, seats, run_games(model, seats, 200, seed=3))
    assert abs(s.mean - solved(model)[1].expected_score) < 3 * s.stderr


def test_too_large_state_spaces_are_refused_with_an_estimate(tmp_path):
    """Doubling Yatzy's sheet (30 boxes): 65,873,379,328 reachable states (of 2^30 × 64 slots), counted
    without listing them, and refused with what to change."""
    from rulebook.interpreter.solver import induction
    import yaml
    from rulebook.interpreter.model.loader import RULES_DIR, load_source
    data = yaml.safe_load((RULES_DIR / "yatzy.yaml").read_text(encoding="utf-8"))
    for section in data["sections"]:
        section["boxes"] += [{**b, "id": b["id"] + "_again"} for b in section["boxes"]]
    data["flow"]["times"] = 30
    model = load_source(yaml.safe_dump(data, allow_unicode=True), "big.yaml")
    space = Space(model)
    est = induction.estimate(space, induction.Limits(), on_disk=True)
    assert est.states == 65_873_379_328 and est.table_bytes == 2**30 * 64 * 8 and est.seconds > 3600
    with pytest.raises(NotSolvable, match=r"65,873,379,328 states") as refused:
        induction.refuse_beyond(space, est, induction.Limits())
    assert refused.value.hint.startswith("to solve it anyway, use --max-states 65873379328 --memory ")
    with pytest.raises(NotSolvable, match=r"65,873,379,328 states"):
        induction.run(space)  # the solve itself refuses too
