"""What a person types during play → actions: faces or positions to keep, a box by name or number.

Moves are checked here against the rules before they reach the engine, so a person reads why a
move is not allowed in their own language.
"""
from __future__ import annotations

from ...interpreter.engine.actions import Action, Announce, Keep, Stop, Write
from ...interpreter.model.errors import IllegalActionError, Message, did_you_mean
from ...interpreter.engine.state import GameState
from ..documents.sheetlayout import sheet_layout
from ..glossary import glossary, move_words, typed
from ..i18n import translator
from .view import target_name

COMMANDS = {"help", "?", "hint", "quit", "sheet"}
# the words for each move, in every language (English works everywhere): from the glossaries
VERBS = move_words()


def _verb(word: str) -> str | None:
    return next((v for v, words in VERBS.items() if word in words), None)


def parse_move(text: str, state: GameState, lang: str) -> list[Action] | str:
    """The actions a line asks for (checked), or one of COMMANDS. IllegalActionError says why not.

    A write typed while the dice may still be rolled again means: stop rolling, then write.
    """
    words = text.strip().split()
    if not words:
        raise IllegalActionError("type a move, or 'help'")
    verb = _verb(words[0].lower())
    if verb in COMMANDS:
        return verb
    step = state.step()
    if step is None:
        raise IllegalActionError("the game is over")
    if step.kind == "keep":
        if verb == "stop" and len(words) == 1:
            return [_stop(state, lang)]
        if verb == "roll" and len(words) == 1:
            return [Keep(())]
        if verb == "pos":
            if state.model.grouped:  # dice that differ: a place names the die's group and face
                return [_keep_places(_places(words[1:], state), state)]
            return [_keep(_positions(words[1:], state, lang), state, lang)]
        if state.model.grouped and verb == "keep" and words[1:] not in (["all"], ["alle"], ["allemaal"]):
            return [_keep_groups(words[1:], state, lang)]
        if verb == "keep" and words[1:] in (["all"], ["alle"], ["allemaal"]):
            return [_stop(state, lang) if step.can_stop else Keep(state.dice)]
        if verb == "keep" or words[0].isdigit():
            return [_keep(_faces(words[1:] if verb == "keep" else words, state, lang), state, lang)]
        if verb == "write" and len(words) > 1 and step.can_stop:
            return _stop_and_write(" ".join(words[1:]), state, lang)
        raise IllegalActionError("cannot read '{text}' here",
                                 hint="keep dice with 'keep 2 2 4' (faces) or 'pos 1 2 5' (positions), or 'stop'",
                                 text=text.strip())
    if step.kind == "write" and step.optional and verb in ("pass", "stop") and len(words) == 1:
        return [Stop()]  # write nothing (the engine says whether passing is allowed now)
    if step.kind == "write" and verb in ("roll", "stop") and len(words) == 1:
        raise IllegalActionError("no rolls are left this turn: write the dice into a box",
                                 hint="type the box's name or its number on the sheet")
    if step.kind == "announce" and verb in ("roll", "stop", "keep", "pos"):
        raise IllegalActionError("announce a box (or nothing) first; then the dice roll on")
    if step.kind == "write":
        name = " ".join(words[1:]) if verb == "write" and len(words) > 1 else " ".join(words)
        return [_write(box_from(name, state, lang), state, lang)]
    if step.kind == "announce":
        rest = words[1:] if verb == "announce" else words
        if not rest or (len(rest) == 1 and rest[0].lower() in NOTHING):
            action = Announce(None)
        else:
            action = Announce(box_from(" ".join(rest), state, lang))
        if action not in state.legal_actions():
            if action.box is None:
                raise IllegalActionError("you must announce a box now")
            raise IllegalActionError("{box} cannot be announced now",
                                     box=target_name(state.model, action.box, lang))
        return [action]
    raise IllegalActionError("wait: the dice are being rolled")


NOTHING = {"none", "no", "nothing", "nichts", "keins", "kein", "nein", "niets", "geen", "nee"}  # announce nothing


def _stop(state: GameState, lang: str) -> Action:
    if not state.step().can_stop:
        raise IllegalActionError("you cannot stop rolling here")
    return Stop()


def _faces(words: list[str], state: GameState, lang: str) -> tuple[int, ...]:
    if words in (["none"], ["keine"], ["geen"], []):
        return ()
    digits = [c for w in words for c in (w if w.isdigit() else [w])]
    try:
        return tuple(sorted(int(c) for c in digits))
    except ValueError:
        raise IllegalActionError("keep dice by their faces, as in 'keep 2 2 4'") from None


def _keep(dice: tuple[int, ...], state: GameState, lang: str) -> Action:
    have = list(state.dice)
    for d in dice:
        if d not in have:
            raise IllegalActionError("you cannot keep {keep}: the dice are {dice}",
                                     keep=" ".join(map(str, dice)), dice=" ".join(map(str, state.dice)))
        have.remove(d)
    if len(dice) == len(state.dice) and state.step().can_stop:
        return Stop()  # keeping every die is stopping
    return Keep(dice)


def _keep_groups(words: list[str], state: GameState, lang: str) -> Action:
    """Dice that differ kept by group and face: 'keep white:3 red:2', or 'keep white 3 5 red 2' (a group
    by its id or its name in the language, then its faces); 'keep none'."""
    if words in (["none"], ["keine"], ["geen"], []):
        return Keep(())
    names = {}
    for g in state.model.dice_groups:
        names[g.id.lower()] = g.id
        for text in (g.name or {}).values():
            names[text.lower()] = g.id
            names[text.split()[0].lower()] = g.id
    groups, dice, group = [], [], None
    try:
        for word in words:
            name, _, face = word.rpartition(":") if ":" in word else ("", "", word)
            if name:
                group = names[name.lower()]
            elif not face.isdigit():
                group = names[face.lower()]
                continue
            if group is None or not face.isdigit():
                raise KeyError(word)
            groups.append(group)
            dice.append(int(face))
    except KeyError:
        example = " ".join(f"{g.id}:1" for g in state.model.dice_groups[:2])
        raise IllegalActionError("cannot read '{text}' here", text=" ".join(["keep", *words]),
                                 hint=Message("keep dice by group and face, as in 'keep {example}'", {"example": example})) from None
    return _grouped_or_stop(Keep(tuple(dice), tuple(groups)), state)


def _grouped_or_stop(action: Keep, state: GameState) -> Action:
    """A keep of every die is stopping where the step may stop; the engine checks the rest."""
    if len(action.dice) == len(state.dice) and state.step().can_stop:
        return Stop()
    return action


def _places(words: list[str], state: GameState) -> tuple[int, ...]:
    chars = [c for w in words for c in (w if w.isdigit() else [w])]
    message = Message("positions are numbers from 1 to {n}", {"n": len(state.dice)})
    try:
        places = sorted({int(c) for c in chars})
    except ValueError:
        raise IllegalActionError(message) from None
    if any(not 1 <= p <= len(state.dice) for p in places):
        raise IllegalActionError(message)
    return tuple(places)


def _keep_places(places: tuple[int, ...], state: GameState) -> Action:
    """Dice that differ kept by their places on the table (1 = the first die of the first group)."""
    ids = [g.id for g in state.model.dice_groups for _ in range(g.count)]
    return _grouped_or_stop(Keep(tuple(state.dice[p - 1] for p in places), tuple(ids[p - 1] for p in places)), state)


def _positions(words: list[str], state: GameState, lang: str) -> tuple[int, ...]:
    chars = [c for w in words for c in (w if w.isdigit() else [w])]
    message = Message("positions are numbers from 1 to {n}", {"n": len(state.dice)})
    try:
        positions = sorted({int(c) for c in chars})
    except ValueError:
        raise IllegalActionError(message) from None
    if any(not 1 <= p <= len(state.dice) for p in positions):
        raise IllegalActionError(message)
    return tuple(sorted(state.dice[p - 1] for p in positions))


def _write(box: str, state: GameState, lang: str, choices=None) -> Action:
    choices = state.write_choices() if choices is None else choices
    if any(c.box == box for c in choices):
        return Write(box)
    name = target_name(state.model, box, lang)
    if state.announced is not None and box != state.announced:
        raise IllegalActionError("you announced {box}: the dice go there",
                                 box=target_name(state.model, state.announced, lang))
    if not state.scorer.is_open(box, state.sheets[state.actor]):
        raise IllegalActionError("{box} is already filled", box=name)
    rule = state.step().rule if state.step().kind == "write" else _write_step(state).rule
    raise IllegalActionError("the rules do not let these dice go into {box} now",
                             hint=Message("{rule}", {"rule": rule}) if rule else None, box=name)


def _write_step(state: GameState):
    return next(s for s in state.model.flow.walk() if s.kind == "write")


def _stop_and_write(name: str, state: GameState, lang: str) -> list[Action]:
    """Stop rolling and write: checked on a copy of the game."""
    box = box_from(name, state, lang)
    after = GameState.from_json(state.model, state.to_json())
    after.apply(Stop())
    if after.step() is None or after.step().kind != "write":
        raise IllegalActionError("stop rolling first")
    _write(box, after, lang)
    return [Stop(), Write(box)]


def box_from(text: str, state: GameState, lang: str) -> str:
    """A write target by id (`ones`, `ones@down`), by its name in any language ('Ones', 'Ones, Down'),
    or by its number on the sheet (1 = first, numbered as the sheet shows them)."""
    text = text.strip()
    model = state.model
    numbered = sheet_order(model)
    if text.isdigit() and 1 <= int(text) <= len(numbered):
        return numbered[int(text) - 1]
    key = _key(text)
    names = {}
    for t in model.targets.values():
        names[_key(t.id)] = t.id
        for lg in (lang, "en", "de", "nl"):
            names.setdefault(_key(target_name(model, t.id, lg)), t.id)
    for lg in (lang, "en", "de", "nl"):  # then the names players use (the glossary's other names of a box's word)
        for t in model.targets.values():
            concept = glossary(lg).concept_of(model.boxes[t.box].name[lg])
            for name in concept.names if concept else ():
                column = next((c.name[lg] for c in model.columns if c.id == t.column), None)
                names.setdefault(_key(name if column is None else f"{name}, {column}"), t.id)
    if key in names:
        return names[key]
    raise IllegalActionError("there is no box '{box}'", box=text,
                             hint=_did_you_mean(key, names, state, lang))


def sheet_order(model) -> list[str]:
    """The write targets as the sheet numbers them (the sheet layout's order): section by section, each
    box in every column."""
    return [t for s in sheet_layout(model).sections for row in s.rows for t in row.targets if t]


def _key(name: str) -> str:
    return typed(name)


def _did_you_mean(key: str, names: dict[str, str], state: GameState, lang: str) -> Message | None:
    close = did_you_mean(key, names)
    if close is None:
        return None
    return Message("did you mean '{box}'?", {"box": target_name(state.model, names[close.params["word"]], lang)})
