"""Ship, Captain and Crew as rules/ship_captain_crew.yaml states it (Bicycle's published rules): a 6,
then a 5, then a 4 set aside in that order and kept aside, the other two dice are the cargo, both
cargo dice may be rolled again with the rolls left. The keep rule is the engine's (keep step
`allowed:` + `locked`); the numbers are worked out by hand or by an independent count below."""
from fractions import Fraction
from functools import lru_cache
from itertools import product

import pytest

from rulebook.interpreter import load_model
from rulebook.interpreter.solver.abstraction import NotSolvable, turn_shape
from rulebook.interpreter.engine.actions import Keep, Roll, Stop, Write
from rulebook.interpreter.players.registry import GreedyBot, StrongBot
from rulebook.interpreter.model.errors import IllegalActionError
from rulebook.interpreter.model.scoring import Scorer
from rulebook.interpreter.engine.state import GameState

MODEL = load_model("ship_captain_crew")


def test_check_and_shape(cli):
    code, out, _ = cli("check", "rules/ship_captain_crew.yaml")
    assert code == 0 and "ok (ship_captain_crew: 1 boxes" in out
    assert MODEL.n_dice == 5 and MODEL.flow.times == 5  # five rounds, one cargo entry each
    assert MODEL.cells == tuple(f"cargo#{k}" for k in range(1, 6))
    keep = MODEL.step("set_aside")
    assert keep.locked and keep.allowed is not None and keep.can_stop


@pytest.mark.parametrize("dice, cargo", [
    ([6, 5, 4, 6, 3], 9),   # the example: cargo 6 + 3
    ([6, 5, 4, 1, 1], 2),   # the lowest cargo
    ([6, 6, 6, 5, 4], 12),  # the highest: two more sixes
    ([6, 5, 3, 3, 2], 0),   # no crew
    ([5, 4, 3, 2, 1], 0),   # no ship
    ([6, 4, 4, 4, 4], 0),   # no captain
])
def test_cargo_counts_only_with_ship_captain_and_crew(dice, cargo):
    assert Scorer(MODEL).points("cargo", dice) == cargo


def at_keep(*rolls_and_keeps):
    """A one-player game after the given rolls and keeps (alternating, starting with a roll)."""
    state = GameState(MODEL, ["a"])
    for i, item in enumerate(rolls_and_keeps):
        state.apply(Roll(tuple(sorted(item))) if i % 2 == 0 else Keep(tuple(sorted(item))))
    return state


def keeps(state):
    return sorted(a.dice for a in state.legal_actions() if isinstance(a, Keep))


@pytest.mark.parametrize("roll, allowed", [
    ((1, 2, 3, 3, 6), [(6,)]),              # a ship: it must be set aside
    ((1, 2, 4, 5, 5), [()]),                # a 5 and a 4 but no ship: nothing may be kept
    ((1, 2, 4, 5, 6), [(4, 5, 6)]),         # all three at once
    ((6, 6, 5, 2, 2), [(5, 6)]),            # the second 6 is not kept: it is rolled again
])
def test_only_the_next_faces_in_order_may_be_set_aside(roll, allowed):
    state = at_keep(roll)
    assert keeps(state) == allowed
    assert Stop() in state.legal_actions()  # stopping (writing the dice as they are) stays possible


def test_a_five_before_a_six_is_refused_with_the_rule():
    state = at_keep((1, 2, 4, 5, 5))
    with pytest.raises(IllegalActionError) as info:
        state.apply(Keep((5,)))
    assert "5" in str(info.value) and "A 6 must be set aside first" in str(info.value)


def test_dice_set_aside_stay_aside():
    state = at_keep((1, 1, 2, 3, 6), (6,), (2, 3, 3, 5))
    assert state.held == (6,)
    assert keeps(state) == [(5, 6)]  # the 6 stays; the 5 joins it
    with pytest.raises(IllegalActionError) as info:
        state.apply(Keep(()))
    assert "set aside and stay aside" in str(info.value)
    state.apply(Keep((5, 6)))
    assert state.held == (5, 6)
    state.apply(Roll((1, 4, 6)))
    assert state.step().id == "write" and state.dice == (1, 4, 5, 6, 6)
    assert [c.points for c in state.write_choices()] == [7]  # cargo 1 + 6


def test_with_the_crew_complete_both_cargo_dice_may_be_rolled_again():
    state = at_keep((2, 3, 4, 5, 6))
    assert keeps(state) == [(4, 5, 6)] and Stop() in state.legal_actions()
    state.apply(Keep((4, 5, 6)))
    state.apply(Roll((1, 1)))  # a worse cargo must be taken
    state.apply(Keep((4, 5, 6)))
    state.apply(Roll((1, 2)))
    assert [c.points for c in state.write_choices()] == [3]


def test_a_saved_game_keeps_the_dice_set_aside():
    state = at_keep((1, 1, 2, 3, 6), (6,))
    data = state.to_json()
    assert data["held"] == [6]
    again = GameState.from_json(MODEL, data)
    assert again.held == (6,) and again.to_json() == data


# the expected cargo of a turn, counted independently of the engine ------------------------------

@lru_cache(None)
def _cargo(total: int, rolls: int) -> Fraction:
    """The best expected cargo with `total` showing and `rolls` left to roll both cargo dice again."""
    if rolls == 0:
        return Fraction(total)
    again = sum(_cargo(a + b, rolls - 1) for a in range(1, 7) for b in range(1, 7)) / 36
    return max(Fraction(total), again)


@lru_cache(None)
def _turn(found: int, rolls: int) -> Fraction:
    """The expected score with `found` of ship, captain, crew set aside and `rolls` rolls left."""
    total = Fraction(0)
    for roll in product(range(1, 7), repeat=5 - found):
        dice, stage = list(roll), found
        for face, need in ((6, 0), (5, 1), (4, 2)):
            if stage == need and face in dice:
                dice.remove(face)
                stage += 1
        total += _cargo(sum(dice), rolls - 1) if stage == 3 else 0 if rolls == 1 else _turn(stage, rolls - 1)
    return total / 6 ** (5 - found)


def test_the_bot_plays_each_turn_exactly():
    """The greedy bot plans within the keep rule: its value of a turn is the exact expectation."""
    expected = _turn(0, 3)
    assert float(expected) == pytest.approx(4.084579617462395, abs=1e-12)
    start, bot = GameState(MODEL, ["a"]), GreedyBot()
    value = 0.0
    for roll, p in start.chance_outcomes():
        state = start.clone()
        state.apply(roll)
        value += p * bot.turn_value(state)
    assert value == pytest.approx(float(expected), abs=1e-9)


def test_the_solver_refuses_the_keep_rule_and_strong_plays_like_greedy():
    with pytest.raises(NotSolvable) as info:
        turn_shape(MODEL)
    assert "keep rules" in str(info.value) and info.value.pos.line > 0
    import random
    for bot in (GreedyBot(), StrongBot(MODEL)):
        state, rng = GameState(MODEL, ["a"]), random.Random(3)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply(state.sample_chance(rng))
                continue
            action = bot.choose(state)
            assert action in state.legal_actions()
            state.apply(action)
        assert len(state.sheets[0]) == 5


def test_simulate_plays_full_games(cli):
    code, out, _ = cli("simulate", "ship_captain_crew", "--games", "50", "--players", "a:greedy,b:strong")
    assert code == 0 and "50 games" in out
