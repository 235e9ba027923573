"""The one place where each step kind of the phase tree is put into words and given a look.

"One phase tree, three readers": the engine runs `Model.flow`, the rule pages describe it and the
diagram draws it. The pages and the diagram both take their words from here, so a step reads the
same everywhere and in every language.

`STEP_KINDS` holds one `StepKind` per kind of step (repeat, each_player, roll, keep, write) plus
`end` (the end of the game). Each has its role (loop, chance, decision, end), its diagram style,
and small Jinja2 templates per language for:

- `bound`    how often a loop runs ("thirteen rounds", "up to twice, until no rolls are left")
- `who`      who decides (the current player; chance for a roll)
- `choice`   what can be chosen (for a roll: which dice are thrown)
- `sentence` a full sentence for a rules page
- `label`    the detail line under the step's name in a diagram
- `back`, `exit`, `stop`  arrow labels in a diagram: back to a loop's start, out of it, stopping early

Every template sees the facts of its step, computed from the structure of the tree and the model
(`_facts`, here), never from the name of a game. Whole sentences are written per language, so word
order, plurals and number words follow each language's grammar.

The pieces: `stepkinds` (the kinds, their roles and looks, the diagram phrases), `steptexts` (the
templates per language), `numbers` (numbers in words) and `wording` (the template environment and
the language check); this module finds the facts and is the API the pages and the diagram call.
"""
from __future__ import annotations

from math import prod

from ...interpreter.model.errors import UsageError
from ...interpreter.model.frozen import Model, Step
from ...interpreter.model.soundness import writes_per_player
from .numbers import count_text, number_words, times_words
from .stepkinds import PHRASES, ROLE_STYLES, STEP_KINDS, StepKind, Style, phrase
from .steptexts import COLUMNS, COUNTER, EFFECT, END, EXTREME
from .wording import check_lang, template

__all__ = ["PHRASES", "ROLE_STYLES", "STEP_KINDS", "StepKind", "Style", "bound_text", "choice_text", "counter_sentence",
           "edge_text", "effect_words", "end_text", "kind_of", "number_words", "phrase", "step_label",
           "step_sentence", "times_words", "who_text"]


# the public API -------------------------------------------------------------------------------

def kind_of(step: Step) -> StepKind:
    """The definition of a step's kind."""
    try:
        return STEP_KINDS[step.kind]
    except KeyError:
        raise UsageError("step '{id}' has an unknown kind '{kind}'", id=step.id, kind=step.kind) from None


def bound_text(step: Step, model: Model, lang: str) -> str:
    """How often a loop runs: 'thirteen rounds', 'up to twice, until no rolls are left'; '' otherwise."""
    return _render(step, model, lang, "bound")


def who_text(step: Step, model: Model, lang: str) -> str:
    """Who decides a step: the current player for a decision, chance for a roll; '' for a loop."""
    return _render(step, model, lang, "who")


def choice_text(step: Step, model: Model, lang: str) -> str:
    """What can be chosen (for a roll: which dice are thrown); '' for a loop."""
    return _render(step, model, lang, "choice")


def step_sentence(step: Step, model: Model, lang: str) -> str:
    """A full sentence describing the step for a rules page (the write `rule` text is separate)."""
    return _render(step, model, lang, "sentence")


def step_label(step: Step, model: Model, lang: str) -> str:
    """The diagram text of a step: the loop heading, or the detail line under a step's name."""
    return _render(step, model, lang, "label")


def edge_text(step: Step, model: Model, lang: str, which: str) -> str:
    """A diagram arrow label: `back` (a loop to its first step), `exit` (out of a loop) or `stop`
    (a decision that ends its loop early); '' where the arrow has no label or does not exist."""
    if which not in ("back", "exit", "stop"):
        raise ValueError(f"no arrow '{which}'")
    return _render(step, model, lang, which)


#: who does what an effect follows from, per step kind and language (the subject of its sentence)
DOER = {"en": {"write": "The write", "roll": "The roll", "keep": "Setting dice aside", "bank": "Banking"},
        "de": {"write": "Der Eintrag", "roll": "Der Wurf", "keep": "Das Beiseitelegen", "bank": "Das Sichern"},
        "nl": {"write": "De invulling", "roll": "De worp", "keep": "Het opzij leggen", "bank": "Het veiligstellen"}}


def effect_words(effect, model: Model, lang: str, kind: str = "write") -> dict[str, str]:
    """A step's effect on a counter: {"sentence": for the rule pages, "label": for the diagram}."""
    check_lang(lang)
    counter = next(c for c in model.counters if c.id == effect.counter)
    facts = {"counter": counter.name[lang], "whose": "game" if counter.per == "game" else effect.players,
             "rule": effect.rule[lang] if effect.rule else "", "kind": kind, "doer": DOER[lang].get(kind, DOER[lang]["write"])}
    return {part: template(EFFECT[lang][part]).render(**facts).strip() for part in ("sentence", "label")}


def counter_sentence(counter, lang: str) -> str:
    """A counter in a sentence: whose it is, its start value and bounds, and that it carries over."""
    check_lang(lang)
    return template(COUNTER[lang]).render(counter=counter.name[lang], per=counter.per, start=counter.start,
                                            least=counter.least, most=counter.most).strip()


def end_text(model: Model, lang: str) -> str:
    """How the game ends and how the winner is found."""
    check_lang(lang)
    return STEP_KINDS["end"].render("sentence", lang, _end_facts(model, lang))


# facts from the structure -----------------------------------------------------------------------

def _render(step: Step, model: Model, lang: str, part: str) -> str:
    check_lang(lang)
    return kind_of(step).render(part, lang, _facts(step, model, lang))


def _facts(step: Step, model: Model, lang: str) -> dict:
    """Everything a template may say about a step, found from the tree and the model."""
    kind = kind_of(step)
    parents = model.flow.ancestors(step)
    facts = _common(model, lang) | {
        "name": step.name[lang],
        "n": step.times or 1,
        "rounds": step.kind == "repeat" and _nearest_repeat_of_turn(model.flow) is step,
        "until_out": step.kind == "repeat" and step.times is not None and any(
            s.kind == "roll" and s.dice == "unkept" and _nearest_loop(model.flow, s) is step for s in step.walk()),
        "can_stop": any(s.kind == "keep" and s.can_stop and _nearest_loop(model.flow, s) is step for s in step.walk())
        if step.kind == "repeat" else step.can_stop,
        "unkept": step.dice == "unkept",
        "rolls_rest": step.kind == "keep" and _rolls_rest(step, parents),
        "scratch": step.otherwise == "scratch",
        # the columns with something to say: a multiplier other than 1, or a fill order
        "cols": [{"name": c.name[lang], "mult": c.multiplier, "order": c.order} for c in model.columns
                 if c.multiplier != 1 or c.order != "free"],
        # turn rules: a keep rule, dice that stay aside, a repeat's while, an announcement
        "ruled": step.kind in ("keep", "bank") and step.allowed is not None,
        "forced": step.kind == "keep" and step.allowed is not None and _keeps_set_by_rule(model),
        "locked": step.locked,
        "condition": step.condition is not None,
        "rule": step.rule[lang] if step.rule else "",
        "optional": step.optional,
        "by": step.by,
        "pass_rule": step.may_pass is not None,
        "rows": [s.name[lang] for s in model.sections if s.order == "row"] if step.kind == "write" else [],
        "acols": [c.name[lang] for c in model.columns if c.order == "announced"],
        "announces": any(s.kind == "announce" for s in model.flow.walk()),
        "effects": [effect_words(e, model, lang, step.kind) for e in step.effects],
        # push your luck: a repeat without times, a roll that can bust, hot dice, a bank decision
        "unbounded": step.kind == "repeat" and step.times is None,
        "banks": any(s.kind == "bank" for s in step.walk()),
        "busts": step.bust is not None if step.kind == "roll" else any(s.bust is not None for s in step.walk()),
        "bust_rule": (step.rule[lang] if step.rule else str(step.bust.text).strip()) if step.bust is not None else "",
        "hot_dice": step.hot_dice,
    }
    facts["columns_text"] = template(COLUMNS[lang]).render(**facts).strip()
    if step.kind in ("keep", "write", "announce", "bank"):
        facts["who"] = template(kind.templates[lang]["who"]).render(**facts).strip()
    for part in ("often", "bound", "choice", "notes"):
        source = kind.templates[lang].get(part)
        if source:
            facts[part] = template(source).render(**facts).strip()
    if kind.role == "end":
        facts |= _end_facts(model, lang)
    return facts


def _common(model: Model, lang: str) -> dict:
    return {
        "num": lambda n: count_text(n, lang), "freq": lambda n: times_words(n, lang),
        "solo": model.max_players == 1, "dice": model.n_dice, "boxes": len(model.boxes),
        # how often each box is filled (0: boxes differ), and how many columns the sheet has
        "uses": next(iter(u)) if len(u := {b.uses for b in model.boxes.values()}) == 1 else 0,
        "columns": len(model.columns),
    }


def _end_facts(model: Model, lang: str) -> dict:
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    rounds = prod(s.times or 1 for s in model.flow.ancestors(turn) if s.kind == "repeat")
    facts = _common(model, lang) | {
        "total_rounds": rounds, "fills_sheet": writes_per_player(model) == len(model.cells),
        "score_name": model.ranking.name[lang] if model.ranking else "",
        "ties": [name[lang] for name, _ in model.ranking.tie_breaks] if model.ranking else [],
        "extreme": EXTREME[lang][model.winner == "lowest_total"], "early_end": model.end_if is not None,
        "bonuses": bool(model.bonuses),
        "unbounded": any(s.kind == "repeat" and s.times is None for s in model.flow.ancestors(turn)), "end_mode": model.end,
    }
    facts["sentence"] = template(END[lang]["sentence"]).render(**facts).strip()
    return facts


def _keeps_set_by_rule(model: Model) -> bool:
    """The rule leaves no choice of dice (the engine allows one keep on every first roll; `examples`)."""
    from .examples import keeps_set_by_rule
    return keeps_set_by_rule(model)


def _nearest_repeat(root: Step, step: Step) -> Step | None:
    return next((a for a in reversed(root.ancestors(step)) if a.kind == "repeat"), None)


def _nearest_loop(root: Step, step: Step) -> Step | None:
    return next((a for a in reversed(root.ancestors(step)) if kind_of(a).role == "loop"), None)


def _nearest_repeat_of_turn(root: Step) -> Step | None:
    turn = next((s for s in root.walk() if s.kind == "each_player"), None)
    return _nearest_repeat(root, turn) if turn else None


def _rolls_rest(step: Step, parents: list[Step]) -> bool:
    """A keep whose own container rolls the unkept dice after it."""
    if not parents:
        return False
    siblings = parents[-1].steps
    later = siblings[siblings.index(step) + 1:]
    return any(s.kind == "roll" and s.dice == "unkept" for sib in later for s in sib.walk())
