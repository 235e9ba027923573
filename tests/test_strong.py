"""The strong bot: exact turns against the sum of exactly solved parts of the sheet."""
import numpy as np
import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.play.game import Game, Seat
from rulebook.interpreter.players.optimal import OptimalBot
from rulebook.interpreter.solver.space import Space
from rulebook.interpreter.solver.solve import solve
from rulebook.interpreter.players.strong import StrongBot, parts


@pytest.fixture(scope="module", autouse=True)
def solver_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("RULEBOOK_CACHE", str(tmp_path_factory.mktemp("strong-cache")))
    yield
    mp.undo()


def test_parts_are_the_whole_sheet_if_it_fits_else_the_sections_else_halves():
    model = load_model("yahtzee")
    assert parts(model) == [list(model.boxes)]  # 536,448 states: solved exactly
    assert parts(model, max_states=100_000) == [list(s.boxes) for s in model.sections]
    small = parts(model, max_states=100)
    assert [b for part in small for b in part] == list(model.boxes) and len(small) > 2
    assert all(sum(Space(model, part).level_counts()) <= 100 for part in small)


def test_a_part_is_solved_as_a_game_of_its_own():
    """The upper section alone: six turns, the 35 bonus at 63; the lower section alone: seven turns."""
    model = load_model("yahtzee")
    upper, lower = (Space(model, boxes) for boxes in parts(model, max_states=100_000))
    assert [f.name for f in upper.feats] == ["upper"] and [f.name for f in lower.feats] == ["yahtzee"]
    assert solve(model, space=upper).expected_score == pytest.approx(71.951530, abs=1e-5)
    assert solve(model, space=lower).expected_score == pytest.approx(141.191996, abs=1e-5)


def test_the_parts_together_are_a_strategy_so_they_promise_no_more_than_the_optimum():
    """Playing each part on its own turns is a way to play the game: the sum of the parts' values
    is at most the optimal expected score, and the bot plays legal games that reach the end."""
    model = load_model("yacht")
    strong, optimal = StrongBot(model, max_states=1000), OptimalBot(model)
    assert len(strong.parts) == 2
    assert 120 < strong.value({}) <= optimal.table.expected_score
    game = Game(model, [Seat("cpu", "strong")], seed=3)
    while not game.state.is_terminal():
        game.advance()
    assert len(game.state.sheets[0]) == len(model.boxes)


def test_the_strong_bot_plays_legal_games_where_parts_meet_the_write_rule():
    """Yahtzee's forced Joker sends a roll to the upper section: the bot writes only where allowed."""
    from rulebook.interpreter.engine.state import GameState
    from rulebook.interpreter.engine.actions import Roll
    import random
    model = load_model("yahtzee")
    bot = StrongBot(model, max_states=100_000)
    rng = random.Random(4)
    for _ in range(3):
        state = GameState(model, ["cpu"])
        while not state.is_terminal():
            if state.current_player() == 0:
                state.apply(bot.choose(state))
            else:
                state.apply(Roll(tuple(sorted(rng.randint(1, 6) for _ in range(state.dice_to_roll())))))
        assert len(state.sheets[0]) == 13


def test_the_strong_bot_prefers_the_part_where_a_roll_is_worth_most():
    """Five sixes on an empty sheet go to the Yahtzee box (50), not to sixes or chance."""
    from rulebook.interpreter.engine.state import GameState
    from rulebook.interpreter.engine.actions import Roll, Stop
    model = load_model("yahtzee")
    bot = StrongBot(model, max_states=100_000)
    state = GameState(model, ["cpu"])
    state.apply(Roll((6, 6, 6, 6, 6)))
    assert bot.choose(state) == Stop()
    state.apply(Stop())
    assert bot.choose(state).box == "yahtzee"
    boxes, table = bot.write_table(state)
    assert np.isfinite(table).all()


def test_where_the_solver_cannot_read_the_model_the_strong_bot_plays_like_greedy():
    """Generala's served win (a counter read by end_if and the ranking) ends a game early: no parts to
    solve; the bot still plays."""
    model = load_model("generala")
    bot = StrongBot(model)
    assert bot.parts == [] and "end_if" in str(bot.refused)
    game = Game(model, [Seat("cpu", "strong")], seed=2)
    while not game.state.is_terminal():
        game.advance()


def test_on_a_sheet_with_columns_each_column_is_a_part_counted_with_its_multiplier():
    """Triple Yahtzee (2^39 sheets): each column alone is the Yahtzee sheet without the Joker and the
    Yahtzee bonus (they need all three columns), so its value is Glenn's 245.87 × the column's factor."""
    model = load_model("triple_yahtzee")
    assert parts(model) == [[t for t in model.targets if t.endswith("@" + c.id)] for c in model.columns]
    bot = StrongBot(model)
    values = [table.expected_score for _, table in bot.parts]
    assert values == pytest.approx([245.870775 * m for m in (1, 2, 3)], abs=1e-5)
    assert [f.name for space, _ in bot.parts for f in space.feats] == ["upper@single", "upper@double", "upper@triple"]
    assert bot.value({}) == pytest.approx(sum(values))


def test_the_strong_bot_beats_greedy_by_far_on_triple_yahtzee():
    from rulebook.interpreter.play.simulate import run_games, summarize
    model = load_model("triple_yahtzee")
    means = {}
    for kind in ("greedy", "strong"):
        seats = [Seat("a", kind)]
        (s,) = summarize(model, seats, run_games(model, seats, 30, 5, engine="game"))
        means[kind] = s
    gap = means["strong"].mean - means["greedy"].mean
    assert gap > 3 * (means["strong"].stderr ** 2 + means["greedy"].stderr ** 2) ** 0.5


def test_on_yamb_the_parts_set_the_turn_rules_aside_and_the_bot_plays_by_them():
    """Yamb's announce step, its while condition and its announced columns are beyond the exact
    solver; the parts read the turn without them (a relaxation), a top-down column as positions,
    the middle bonus ((Max - Min) × Ones) exactly; the bot still plays by the real rules."""
    from rulebook.interpreter.solver.abstraction import NotSolvable
    model = load_model("yamb")
    with pytest.raises(NotSolvable):
        Space(model)
    down = Space(model, [t for t in model.targets if t.endswith("@down")], relaxed=True)
    assert down.codes == 13 and sorted(f.name for f in down.feats) == [
        "maximum@down", "minimum@down", "ones@down", "upper@down"]
    bot = StrongBot(model, max_states=20_000)
    assert len(bot.parts) > 5 and all(sum(s.level_counts()) <= 20_000 for s, _ in bot.parts)
    game = Game(model, [Seat("cpu", "greedy")], seed=2)
    game.bots[0] = bot  # (the small parts' bot, not the default one)
    while not game.state.is_terminal():
        game.advance()
    assert len(game.state.sheets[0]) == len(model.cells)
