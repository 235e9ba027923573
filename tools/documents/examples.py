"""What a printed rule book shows besides the rules, played and computed by the engine from a model:
a turn walked through, a filled-in sheet from a whole game, and short questions the rules answer.

The games are played by `SimplePlayer`, a quick rule of thumb (collect the most frequent face, write
where the dice score most), through the real `GameState` with seeded dice, so every number shown is
what the engine computes. Which seed is shown is chosen by what the game demonstrates (a turn with
two rerolls; a sheet with every bonus the model has), from a small fixed range: the pages stay
deterministic and fast.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from ...interpreter.engine.actions import Announce, Keep, Stop, Write
from ...interpreter.model.dice import outcomes
from ...interpreter.model.frozen import Model
from ...interpreter.model.scoring import Scorer
from ...interpreter.engine.state import CHANCE, GameState

SEEDS = range(40)  # the seeds tried for the example game and turn (the first that shows most wins)


class SimplePlayer:
    """Keeps the dice of its most frequent face (the higher on a tie) and stops once a box whose
    points do not depend on the faces can be written; writes where points plus bonus are highest.
    Where a keep rule forbids its keep, it keeps the allowed dice nearest to it; it announces
    nothing where it may (else the first box it may announce)."""

    def __init__(self, model: Model, fixed_boxes: frozenset[str]):
        self.model, self.fixed = model, fixed_boxes

    def choose(self, state: GameState):
        return self.choose_why(state)[0]

    def choose_why(self, state: GameState):
        """The action and why it was chosen (the one account the worked turn words): `most` (the
        dice of the most frequent face), `rule` (the keep the rule leaves, or the allowed one nearest
        the wish), `enough` (a stop), or None (a write or an announcement)."""
        step = state.step()
        if step.kind == "write":
            return Write(max(state.write_choices(), key=lambda c: c.points + c.bonus).box), None
        if step.kind == "announce":
            return state.legal_actions()[0], None
        action = self._wish(state, step)
        legal = state.legal_actions()
        keeps = [a for a in legal if isinstance(a, Keep)]
        if action in legal:
            if isinstance(action, Stop):
                return action, "enough"
            return action, self._why(state, step, action, keeps, "most")
        wished = getattr(action, "dice", state.dice)
        if not keeps:
            return legal[0], "enough" if isinstance(legal[0], Stop) else "rule"
        keep = max(keeps, key=lambda k: (sum(min(k.dice.count(f), wished.count(f)) for f in set(k.dice)), len(k.dice)))
        return keep, self._why(state, step, keep, keeps, "rule")

    @staticmethod
    def _why(state: GameState, step, keep: Keep, keeps: list, otherwise: str) -> str:
        if step.locked and state.held and sorted(keep.dice) == sorted(state.held):
            return "again"  # nothing new set aside: the rest is rolled again for more
        return "rule" if step.allowed is not None and len(keeps) == 1 else otherwise

    def _wish(self, state: GameState, step):
        choices = state.scorer.choices(state.dice, state.sheets[state.player], state.roll_number)
        if step.can_stop and any(c.box in self.fixed and c.points > 0 for c in choices):
            return Stop()
        counts: dict[int, int] = {}
        for d in state.dice:
            counts[d] = counts.get(d, 0) + 1
        face = max(counts, key=lambda f: (counts[f], f))
        keep = tuple(d for d in state.dice if d == face)
        if len(keep) == len(state.dice):
            return Stop() if step.can_stop else Keep(keep)
        return Keep(keep)


@dataclass
class TurnStep:
    """One moment of a turn: a roll (`dice`), a keep (`kept`, what it promises), or the write."""

    kind: str  # roll | keep | stop | roll_on | write
    dice: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()
    roll_number: int = 0
    box: str | None = None
    cell: str | None = None  # the sheet cell written (the box id, or box#k / box@column)
    points: int = 0
    bonus: int = 0
    reason: str | None = None  # why a keep kept what it kept (`SimplePlayer.choose_why`)


@dataclass
class PlayedGame:
    """A whole solitaire game: every write (box → the dice and the points) and the end totals."""

    seed: int
    writes: dict[str, TurnStep] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    final: tuple[int, ...] = ()  # the final score and tie-breaks (`GameState.final_scores`)
    sheet_dependent: list[str] = field(default_factory=list)  # boxes scored only thanks to what the sheet holds


def fixed_boxes(model: Model, scorer: Scorer) -> frozenset[str]:
    """Boxes that score one fixed number whenever they score (such as a run of five)."""
    return _cached("fixed", model, lambda: _fixed_boxes(model, scorer))


def _fixed_boxes(model: Model, scorer: Scorer) -> frozenset[str]:
    last = _last_roll(model)
    out = set()
    for box in model.boxes:
        if "sheet" in model.boxes[box].score.deps:
            continue
        values = {scorer.points(box, roll, {}, last) for roll in _rolls(model)} - {0}
        if len(values) == 1:
            out.add(box)
    return frozenset(out)


@lru_cache(maxsize=None)
def _all_rolls(n: int, faces: int) -> tuple[tuple[int, ...], ...]:
    return tuple(roll for roll, _ in outcomes(n, faces))


def _rolls(model: Model) -> tuple[tuple[int, ...], ...]:
    if model.grouped:  # dice that differ: every roll of the groups, group after group
        from ...interpreter.model.dice import group_rolls
        return group_rolls(model.groups)
    return _all_rolls(model.n_dice, model.faces)


_CACHE: dict[tuple, object] = {}


def _cached(kind: str, model: Model, make):
    """One result per model, file version and options (the pages of three languages share it)."""
    key = (kind, model.id, model.hash, tuple(sorted((k, str(v)) for k, v in model.option_values.items())))
    if key not in _CACHE:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = make()
    return _CACHE[key]


def _last_roll(model: Model) -> int:
    from .gamefacts import rolls_per_turn
    return rolls_per_turn(model)


def _play(model: Model, seed: int, scorer: Scorer, fixed: frozenset[str], turns: int | None = None):
    """Play one game (or the first `turns` turns of player A): the state and every step of A's turns;
    alone where the model allows, else with the fewest players it takes."""
    # a game for at least two players is played with the fewest it allows; the example follows A
    state = GameState(model, ["A"] + [chr(ord("B") + i) for i in range(max(model.min_players, 1) - 1)])
    rng = random.Random(seed)
    player = SimplePlayer(model, fixed)
    steps: list[list[TurnStep]] = [[]]
    turn = state.round()
    while not state.is_terminal():
        if state.player != 0 or (state.current_player() not in (CHANCE, 0)):  # another player's move
            state.apply(state.sample_chance(rng) if state.current_player() == CHANCE else player.choose(state))
            continue
        if state.round() != turn:  # A's next turn (a turn that writes nothing ends with its round)
            turn = state.round()
            if steps[-1]:
                if turns is not None and len(steps) >= turns:
                    break
                steps.append([])
        if state.current_player() == CHANCE:
            roll = state.sample_chance(rng)
            state.apply(roll)
            steps[-1].append(TurnStep("roll", state.dice, roll_number=state.roll_number))
            continue
        action, why = player.choose_why(state)
        if isinstance(action, Write):
            bonus_before = sum(state.awards[0].values())
            dice, before = state.dice, set(state.sheets[0])
            state.apply(action)
            cell = next(iter(set(state.sheets[0]) - before))
            target = model.targets.get(action.box) if model.targets else None
            steps[-1].append(TurnStep("write", dice, box=target.box if target else action.box, cell=cell,
                                      points=state.sheets[0][cell], bonus=sum(state.awards[0].values()) - bonus_before))
            if turns is not None and len(steps) >= turns:
                break
            steps.append([])
        elif isinstance(action, Announce):
            state.apply(action)  # the simple player announces nothing where it may: no step to show
        elif isinstance(action, Stop):
            state.apply(action)
            steps[-1].append(TurnStep("stop", state.dice))
        elif not isinstance(action, Keep):  # a bank step's roll on
            state.apply(action)
            steps[-1].append(TurnStep("roll_on", state.dice))
        else:
            state.apply(action)
            steps[-1].append(TurnStep("keep", state.dice, kept=action.dice, reason=why))
    return state, [s for s in steps if s]


def example_game(model: Model) -> PlayedGame:
    """The first game of `SEEDS` that earns every bonus the model has (else the one earning most)."""
    return _cached("game", model, lambda: _example_game(model))


def _example_game(model: Model) -> PlayedGame:
    scorer = Scorer(model)
    fixed = fixed_boxes(model, scorer)
    best: tuple[int, PlayedGame] | None = None
    for seed in SEEDS:
        state, turns = _play(model, seed, scorer, fixed)
        game = PlayedGame(seed, totals=state.totals(0), final=tuple(state.final_scores()[0]))
        for turn in turns:
            write = turn[-1]
            game.writes[write.cell] = write
            if write.points and not scorer.points(write.box, write.dice, {}, _last_roll(model)):
                game.sheet_dependent.append(write.box)
        earned = sum(1 for b in model.bonuses if game.totals[b.id] > 0) + bool(game.sheet_dependent)
        wanted = len(model.bonuses) + any("sheet" in b.score.deps for b in model.boxes.values())
        if best is None or earned > best[0]:
            best = (earned, game)
        if earned >= wanted:
            break
    return best[1]


def example_turn(model: Model) -> list[TurnStep]:
    """A first turn that keeps dice twice and then writes points: the rolls, keeps and the write."""
    return _cached("turn", model, lambda: _example_turn(model))


def _example_turn(model: Model) -> list[TurnStep]:
    scorer = Scorer(model)
    fixed = fixed_boxes(model, scorer)
    fallback = None
    for seed in SEEDS:
        _, turns = _play(model, seed, scorer, fixed, turns=1)
        turn = turns[0]
        keeps = [s for s in turn if s.kind == "keep" and s.kept]
        fallback = fallback or turn
        if len(keeps) >= 2 and turn[-1].points > 0:
            return turn
    return fallback


def fits(model: Model, scorer: Scorer, roll: tuple[int, ...]) -> list[tuple[str, int]]:
    """The boxes a roll scores in on an empty sheet, best first: (box, points)."""
    last = _last_roll(model)
    scored = [(b, scorer.points(b, roll, {}, last)) for b in model.boxes]
    return sorted([(b, p) for b, p in scored if p > 0], key=lambda bp: -bp[1])


def any_roll_boxes(model: Model, scorer: Scorer) -> list[str]:
    """Boxes that score for every roll (a Chance): where a roll that fits nothing else can go."""
    last = _last_roll(model)
    return [b for b in model.boxes if "sheet" not in model.boxes[b].score.deps
            and all(scorer.points(b, roll, {}, last) > 0 for roll in _rolls(model))]


def also_counts(model: Model, scorer: Scorer) -> list[tuple[str, str, tuple[int, ...]]]:
    """(a, b, roll): a fixed-points box whose example also scores in another fixed-points box."""
    fixed = fixed_boxes(model, scorer)
    last = _last_roll(model)
    out = []
    for a in model.boxes:
        ex = model.boxes[a].example
        if a not in fixed or not ex or not scorer.points(a, ex, {}, last):
            continue
        for b in model.boxes:
            if b != a and b in fixed and scorer.points(b, ex, {}, last) > 0:
                out.append((a, b, ex))
    return out


def keeps_set_by_rule(model: Model) -> bool:
    """Whether the first keep of a turn leaves the player no choice: on every first roll the engine
    allows at most one keep (the rule sets the dice aside itself)."""
    return _cached("forced", model, lambda: _keeps_set_by_rule(model))


def _keeps_set_by_rule(model: Model) -> bool:
    if not any(s.kind == "keep" and s.allowed is not None for s in model.flow.walk()):
        return False
    state = GameState(model, [f"P{i + 1}" for i in range(max(1, model.min_players))])
    if not state.is_chance_node():
        return False
    for roll, _ in state.chance_outcomes():
        after = state.clone()
        after.apply(roll)
        if after.is_terminal() or after.is_chance_node() or after.step().kind != "keep":
            return False
        if sum(isinstance(a, Keep) for a in after.legal_actions()) > 1:
            return False
    return True


def rerolls_kept_dice(model: Model) -> bool:
    """Whether a turn has two keeps or more, each choosing afresh from all dice (a kept die may be rolled again)."""
    return _last_roll(model) >= 3 and any(s.kind == "keep" for s in model.flow.walk()) and not any(
        s.kind == "keep" and s.locked for s in model.flow.walk())
