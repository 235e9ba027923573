"""The engine's fast paths (GameState.apply, legal_actions, sample_chance; what a state remembers between
moves) against a state freshly loaded from the same position, for every bundled model.

A state loaded by `from_json` has nothing remembered (no write plan, no options), so it answers by the
general paths. Played side by side, move by move, the two must offer the same actions with the same
chances and reach the same positions."""
from __future__ import annotations

import random

import pytest

from rulebook.interpreter import bundled_models, load_model
from rulebook.interpreter.engine.actions import Keep, Roll, Stop, Write
from rulebook.interpreter.engine.state import GameState, tables

MODELS = list(bundled_models())
PINNED = (77, [44])  # yahtzee, 1 player, seed 7: positions compared and the final score


def _shown(state: GameState) -> list[str]:
    if state.is_chance_node():
        return [f"{a} {p:.12f}" for a, p in state.chance_outcomes()]
    return [str(a) for a in state.legal_actions()]


def side_by_side(model, players: int, seed: int) -> tuple[int, list[int]]:
    """A random game played on a state and, move by move, on a copy loaded from its JSON; returns the
    number of positions compared and the final scores."""
    rng = random.Random(seed)
    state = GameState(model, [f"p{i}" for i in range(players)])
    compared = 0
    while not state.is_terminal():
        # (a save does not carry the game's end once end_if has begun it, `end: round|last_turn`: from
        # there on the copy is a clone, which remembers nothing it would not also get from a save)
        fresh = GameState.from_json(model, state.to_json()) if state._ending is None else state.clone()
        fresh._options = fresh._plan = None
        assert _shown(state) == _shown(fresh), f"at {state.step().id}, move {compared}"
        assert state.current_player() == fresh.current_player()
        action = state.sample_chance(rng) if state.is_chance_node() else rng.choice(state.legal_actions())
        state.apply(action)
        fresh.apply(action)
        assert fresh.to_json() == state.to_json()
        compared += 1
    return compared, state.returns()


@pytest.mark.parametrize("name", MODELS)
def test_fast_paths_match_a_freshly_loaded_state(name):
    model = load_model(name)
    for players in sorted({model.min_players, min(model.min_players + 1, model.max_players)}):
        for seed in range(2):
            compared, scores = side_by_side(model, players, seed)
            assert compared > 0 and len(scores) == players


def test_a_yahtzee_game_side_by_side_pins_its_moves_and_score():
    model = load_model("yahtzee")
    compared, scores = side_by_side(model, 1, 7)
    assert (compared, scores) == PINNED
    tables(model).precompute()  # the tables filled up front: the same game
    assert side_by_side(model, 1, 7) == PINNED


def test_the_write_plan_follows_a_sheet_changed_by_hand():
    """Legal writes are read from the sheet when asked, not remembered from the last write: a box
    filled by hand drops out of the legal actions, as it does for a freshly loaded state."""
    model = load_model("yahtzee")
    state = GameState(model, ["Ann"])
    state.apply(Roll((2, 3, 3, 5, 6)))
    state.apply(Stop())
    before = [str(a) for a in state.legal_actions()]
    state.sheets[0]["chance"] = 19
    after = [str(a) for a in state.legal_actions()]
    assert len(before) == 13 and len(after) == 12 and "write chance" not in after
    assert after == [str(a) for a in GameState.from_json(model, state.to_json()).legal_actions()]


def test_a_roll_not_drawn_by_the_state_is_checked_the_same():
    """A roll given by hand (unsorted, or a Roll object of its own) lands where the drawn one does."""
    model = load_model("yahtzee")
    tables(model).precompute()
    drawn, given = GameState(model, ["Ann"]), GameState(model, ["Ann"])
    roll = drawn.sample_chance(random.Random(3))
    drawn.apply(roll)
    given.apply(Roll(tuple(reversed(roll.faces))))
    assert drawn.dice == given.dice == tuple(sorted(roll.faces))
    drawn.apply(Keep(drawn.dice[:2]))
    given.apply(Keep(tuple(reversed(given.dice[:2]))))
    roll = drawn.sample_chance(random.Random(4))
    drawn.apply(roll)
    given.apply(Roll(tuple(reversed(roll.faces))))
    assert drawn.to_json() == given.to_json() and drawn.roll_number == 2
    drawn.apply(Stop())
    given.apply(Stop())
    box = next(a for a in drawn.legal_actions() if isinstance(a, Write))
    drawn.apply(box)
    given.apply(Write(box.box))
    assert drawn.to_json() == given.to_json() and len(drawn.sheets[0]) == 1


def test_the_remembered_node_follows_dice_set_by_hand():
    """A state remembers the node of its dice (their keeps, by identity) and the roll beside its kept
    dice only while those very tuples are its dice and kept dice: set by hand, as a solver's probe
    sets a position, they are looked up afresh, and a keep of the dice before is refused."""
    from rulebook.interpreter.model.errors import IllegalActionError
    model = load_model("yahtzee")
    tables(model).precompute()
    state = GameState(model, ["Ann"])
    state.apply(Roll((1, 2, 3, 4, 5)))
    before = state.legal_actions()
    state.dice = (6, 6, 6, 6, 6)
    assert [str(a) for a in state.legal_actions()] == [
        str(a) for a in GameState.from_json(model, state.to_json()).legal_actions()]
    with pytest.raises(IllegalActionError):
        state.apply(next(a for a in before if isinstance(a, Keep) and 1 in a.dice))
    state.apply(Keep((6, 6)))
    state.kept = (6, 6, 6)  # by hand: the roll lands beside these
    state.apply(Roll((1, 2)))
    assert state.dice == (1, 2, 6, 6, 6) and state.roll_number == 2


def test_actions_the_tables_hand_out_travel_as_their_fields_alone():
    """The engine notes on the actions its tables hand out what taking them does (a keep's `_at`, a roll's
    `_i`); a copy or a pickle carries the fields alone, and a roll of the tables for another number of
    dice than is due is checked and refused, not looked up by its index."""
    import copy
    import pickle

    from rulebook.interpreter.model.errors import IllegalActionError
    model = load_model("yahtzee")
    state = GameState(model, ["Ann"])
    state.apply(Roll((1, 2, 3, 4, 5)))
    keep = next(a for a in state.legal_actions() if isinstance(a, Keep) and a.dice == (2, 4))
    assert "_at" in vars(keep)
    for other in (copy.copy(keep), copy.deepcopy(keep), pickle.loads(pickle.dumps(keep))):
        assert other == keep and "_at" not in vars(other)
    state.apply(keep)  # three dice are due
    two, three = tables(model).chance(2)[2][5], tables(model).chance(3)[2][5]
    assert two._i == three._i == 5
    with pytest.raises(IllegalActionError):
        state.apply(two)
    state.apply(three)
    assert state.dice == tuple(sorted((2, 4) + three.faces)) and state.roll_number == 2


def test_every_roll_hands_out_the_models_one_keep_of_the_same_dice():
    """With dice alike, the keeps of every roll are the model's one Keep per kept dice (and one Stop), so a
    game touches a few hundred actions; a keep handed out at one roll is taken at another roll that holds
    those dice (on a position and off it) and refused where the dice are not there, as a Keep made by hand."""
    from rulebook.interpreter.model.errors import IllegalActionError
    model = load_model("yahtzee")
    t = tables(model)
    first, second = t.keeps((1, 2, 3, 4, 5)), t.keeps((2, 2, 4, 5, 6))
    shared = {a.dice for a in first[0][1:]} & {a.dice for a in second[0][1:]}
    assert len(shared) == 8  # (none, 2, 4, 5, 2 4, 2 5, 4 5, 2 4 5)
    assert all(next(a for a in first[0][1:] if a.dice == d) is next(a for a in second[0][1:] if a.dice == d) for d in shared)
    assert first[0][0] is second[0][0] is t.stop
    t.precompute()
    assert len({id(a) for dice, node in t._keeps.items() for a in node[1]}) == 462  # every sub-multiset of 5 dice, once
    for positions in (True, False):
        state = GameState(model, ["Ann"])
        state.apply(Roll((1, 2, 3, 4, 5)))
        keep_24, keep_1, keep_5 = (next(a for a in state.legal_actions() if a == Keep(d)) for d in ((2, 4), (1,), (5,)))
        if not positions:
            state.kept = state.kept  # (set by hand: the state leaves its position, the general paths take the moves)
        state.apply(keep_5)
        state.apply(Roll((2, 4, 6, 6)))
        assert (state._pos is not None) == positions
        with pytest.raises(IllegalActionError):
            state.apply(keep_1)
        state.apply(keep_24)
        assert state.kept == (2, 4) and state.roll_number == 2 and state.current_player() < 0


def test_the_writes_offered_are_the_open_boxes_of_the_plan_in_sheet_order():
    """A write's legal writes come from two small tables (boxes 0-7 and 8-15) or, on a larger sheet, from the
    remembered masks: either way the boxes of the plan still open, in the order of the sheet."""
    rng = random.Random(3)
    for name in ("yahtzee", "maxi_yatzy"):
        model = load_model(name)
        state = GameState(model, ["Ann"])
        boxes = list(tables(model).bit)
        assert (len(boxes) > 16) == (name == "maxi_yatzy")
        for _ in range(200):
            bits, filled = rng.getrandbits(len(boxes)), rng.sample(boxes, rng.randrange(len(boxes)))
            state.sheets[0] = {b: 0 for b in filled}
            want = [b for i, b in enumerate(boxes) if bits >> i & 1 and b not in filled]
            assert [w.box for w in state._open_writes(bits, 0)] == want
