"""Localized rule pages: a static site with an index and one page per game and language.

Everything a page says about a game comes from its `Model`: names, rules and options from the
model's texts, points of the worked examples from the `Scorer`, how a turn goes from the phase tree
(worded by `describe`, the one definition of step texts shared with the diagrams). The frame around
it (headings, labels, the sentences that carry numbers) is English in the Jinja2 templates and in
this file, translated through the gettext catalogs in `locales/` (see `i18n.translator`).

`build_site` is pure: models in, a dict of file name → content out. `write_site` writes that dict.
"""
from __future__ import annotations

import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import jinja2
from markupsafe import Markup, escape

from ...interpreter.errors import UsageError
from ...interpreter.loader import bundled_models
from ...interpreter.model import LANGUAGES, Model, Step
from ...interpreter.scoring import Scorer
from ..i18n import translator

HERE = Path(__file__).resolve().parent
TEMPLATES_DIR = HERE / "templates"
STATIC_DIR = HERE / "static"
FORMATS = ("html", "md")
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands"}  # each in its own language
QUOTES = {"en": "“%s”", "de": "„%s“", "nl": "‘%s’"}


# the site's file names --------------------------------------------------------

@dataclass(frozen=True)
class Site:
    """Which games, languages and format a site has, and what its files are called."""

    models: tuple[Model, ...]
    langs: tuple[str, ...]
    fmt: str = "html"

    def index_file(self, lang: str) -> str:
        return f"index.{self.fmt}" if lang == self.langs[0] else f"index.{lang}.{self.fmt}"

    def game_file(self, model: Model, lang: str) -> str:
        return f"{model.id}.{lang}.{self.fmt}"

    def sheet_file(self, model: Model, lang: str) -> str:
        """The printable blank score sheet (HTML sites only)."""
        return f"{model.id}.{lang}.sheet.html"

    @staticmethod
    def diagram_file(model: Model, lang: str) -> str:
        return f"{model.id}.{lang}.svg"

    @staticmethod
    def model_file(model: Model) -> str:
        return f"{model.id}.yaml"


def check_site(models: Iterable[Model], langs: Iterable[str], fmt: str) -> Site:
    """A Site, or a UsageError for an unknown language or format or two games with one id."""
    models, langs = tuple(models), tuple(dict.fromkeys(langs))
    if not models:
        raise UsageError("no models to write pages for")
    for lang in langs:
        if lang not in LANGUAGES:
            raise UsageError("--lang: rulebook speaks {languages}, not '{lang}'", languages=', '.join(LANGUAGES), lang=lang)
    if not langs:
        raise UsageError("--lang needs at least one language")
    if fmt not in FORMATS:
        raise UsageError("--format must be one of {formats}, not '{fmt}'", formats=', '.join(FORMATS), fmt=fmt)
    seen: dict[str, str] = {}
    for m in models:
        if m.id in seen:
            raise UsageError("two models have the id '{id}' ({first} and {path})",
                             "give the copy its own id (rulebook new … --id NAME)", id=m.id, first=seen[m.id], path=m.path)
        seen[m.id] = m.path
    return Site(models, langs, fmt)


# what a page says ----------------------------------------------------------------

# where the pips of faces 1 to 9 sit on a 3×3 grid (columns, rows 0..2)
_PIPS = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (2, 0), (0, 2), (2, 2)],
         5: [(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)], 6: [(0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)],
         7: [(0, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (2, 2)],
         8: [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)],
         9: [(c, r) for r in range(3) for c in range(3)]}


@lru_cache(maxsize=None)
def die_svg(face: int) -> Markup:
    """One die drawn with its pips (faces above 9 as a number), for inline use in a page."""
    if face in _PIPS:
        inner = "".join(f'<circle cx="{5 + 7 * c}" cy="{5 + 7 * r}" r="1.9"/>' for c, r in _PIPS[face])
    else:
        inner = f'<text x="12" y="16" text-anchor="middle" font-size="11" font-family="sans-serif">{face}</text>'
    return Markup(f'<svg class="die" viewBox="-1 -1 26 26" width="1.4em" height="1.4em" aria-hidden="true">'
                  f'<rect x="0" y="0" width="24" height="24" rx="5" fill="#fff" stroke="#334155" stroke-width="1.5"/>'
                  f'<g fill="#111827">{inner}</g></svg>')


def _dice_html(dice: tuple[int, ...]) -> Markup:
    """The dice drawn with pips; the faces stay as text for screen readers, search and copying."""
    label = " ".join(map(str, dice))
    inner = Markup("").join(die_svg(d) for d in dice)
    return Markup('<span class="dice" role="img" aria-label="%s">%s</span>') % (label, inner)


def _dice_text(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, dice))


class Words:
    """The sentences of a page that carry numbers or game words, in one language and format.

    Each is one gettext message with named placeholders, so a translation can put the words in the
    order its language wants (German verb-final clauses, Dutch inversion) and ngettext picks the
    plural form. Numbers that count things are words ("five dice"); points stay digits.
    """

    def __init__(self, lang: str, fmt: str):
        from .describe import number_words
        self.lang, self.fmt = lang, fmt
        self.t = translator(lang)
        self._number_words = number_words

    def _(self, message: str, **values: Any) -> Markup | str:
        return self._fill(self.t.gettext(message), values)

    def n_(self, singular: str, plural: str, n: int, **values: Any) -> Markup | str:
        return self._fill(self.t.ngettext(singular, plural, n), values)

    def _fill(self, template: str, values: dict) -> Markup | str:
        if self.fmt == "html":
            return Markup(escape(template)) % values  # values are escaped unless they are Markup
        return template % values

    def number(self, n: int) -> str:
        return self._number_words(n, self.lang)

    def quote(self, text: str) -> str:
        """A name in the language's quotation marks (German „…“, Dutch ‘…’)."""
        return QUOTES[self.lang] % text

    def dice(self, dice: tuple[int, ...]) -> Markup | str:
        return _dice_html(dice) if self.fmt == "html" else _dice_text(dice)

    def example(self, dice, box_name: str, points: int) -> Markup | str:
        # a no-break space keeps the points and their unit on one line
        return self.n_("%(dice)s in %(box)s scores %(num)d\u00a0point.", "%(dice)s in %(box)s scores %(num)d\u00a0points.",
                       points, dice=self.dice(dice), box=box_name, num=points)

    def example_after(self, dice, box_name: str, points: int, other: str, value: int) -> Markup | str:
        """An example that needs another box filled first (a score that looks at the sheet)."""
        return self.n_("%(dice)s in %(box)s scores %(num)d\u00a0point once %(other)s holds %(value)d.",
                       "%(dice)s in %(box)s scores %(num)d\u00a0points once %(other)s holds %(value)d.",
                       points, dice=self.dice(dice), box=box_name, num=points, other=other, value=value)

    def first_roll(self, points: int) -> Markup | str:
        """What the same example scores on the first roll of a turn, when that differs."""
        return self.n_("On the first roll of a turn: %(num)d\u00a0point.",
                       "On the first roll of a turn: %(num)d\u00a0points.", points, num=points)

    def players(self, lo: int, hi: int) -> Markup | str:
        if lo == hi:
            return self.n_("%(num)d player", "%(num)d players", lo, num=lo)
        return self.n_("%(min)d to %(num)d player", "%(min)d to %(num)d players", hi, min=lo, num=hi)

    def dice_needed(self, n: int, faces: int) -> Markup | str:
        return self.n_("%(count)s die with the faces 1 to %(faces)d", "%(count)s dice with the faces 1 to %(faces)d",
                       n, count=self.number(n), faces=faces)

    def sheet_needed(self, boxes: int) -> Markup | str:
        return self.n_("a score sheet for each player, with %(count)s box",
                       "a score sheet for each player, with %(count)s boxes", boxes, count=self.number(boxes))

    def rounds(self, n: int) -> Markup | str:
        return self.n_("%(count)s round", "%(count)s rounds", n, count=self.number(n))

    def rolls_per_turn(self, n: int) -> Markup | str:
        return self.n_("up to %(count)s roll per turn", "up to %(count)s rolls per turn", n, count=self.number(n))

    def playing_time(self, minutes: int, players: int) -> Markup | str:
        if players == 1:
            return self._("about %(minutes)d minutes alone", minutes=minutes)
        return self.n_("about %(minutes)d minutes with %(num)d player", "about %(minutes)d minutes with %(num)d players",
                       players, minutes=minutes, num=players)


def rounds_of(model: Model) -> int:
    """How many rounds a game has: the repeats around the turn step, multiplied."""
    def walk(step: Step, times: int) -> int | None:
        if step.kind == "each_player":
            return times
        for child in step.steps:
            found = walk(child, times * (step.times or 1) if step.kind == "repeat" else times)
            if found is not None:
                return found
        return None
    return walk(model.flow, 1) or 1


def rolls_per_turn(model: Model) -> int:
    """The most rolls one turn can have: roll steps inside the turn, times their repeats."""
    def count(step: Step) -> int:
        if step.kind == "roll":
            return 1
        inner = sum(count(c) for c in step.steps)
        return inner * (step.times or 1) if step.kind == "repeat" else inner
    turn = next(s for s in model.flow.walk() if s.kind == "each_player")
    return count(turn)


def showcase_roll(model: Model) -> tuple[int, ...] | None:
    """The example roll most boxes share (the first on a tie): shown in every box on the page."""
    examples = [b.example for b in model.boxes.values() if b.example]
    if not examples:
        return None
    counts = Counter(examples)
    return max(examples, key=lambda e: counts[e])  # max keeps the first of equals


def zero_writes(model: Model, scorer: Scorer | None = None) -> bool:
    """Whether dice that do not fit a box may still be written into it (for 0), with an empty sheet."""
    scorer = scorer or Scorer(model)
    for box in model.boxes.values():
        if box.example and any(c.points == 0 for c in scorer.choices(box.example, {})):
            return True
    return False


def _step_tree(step: Step, model: Model, lang: str) -> dict:
    from . import describe
    return {
        "id": step.id,
        "kind": step.kind,
        "role": describe.kind_of(step).role,
        "name": step.name[lang],
        "sentence": describe.step_sentence(step, model, lang),
        "bound": describe.bound_text(step, model, lang),
        "who": describe.who_text(step, model, lang),
        "choice": describe.choice_text(step, model, lang),
        "rule": step.rule[lang] if step.rule else None,
        "steps": [_step_tree(s, model, lang) for s in step.steps],
    }


def _option_value(option, value, w: Words) -> str:
    if option.type == "bool":
        return w._("yes") if value else w._("no")
    if option.type == "word":
        return option.choices[str(value)][w.lang]
    return str(value)


def _other_value(option) -> str:
    """A value other than the default, to show how an option is chosen on the command line."""
    if option.type == "bool":
        return str(not option.default).lower()
    if option.type == "word":
        return next((c for c in option.choices if c != option.default), str(option.default))
    if option.min is not None and option.default != option.min:
        return str(option.min)
    return str(option.max if option.max is not None else option.default + 1)


def _options(model: Model, w: Words) -> list[dict]:
    out = []
    for o in model.options.values():
        value = model.option_values[o.id]
        item = {
            "id": o.id, "name": o.name[w.lang], "description": o.description[w.lang] if o.description else None,
            "default": _option_value(o, o.default, w), "value": _option_value(o, value, w),
            "default_short": _option_value(o, o.default, w).split(" (")[0], "value_short": _option_value(o, value, w).split(" (")[0],
            "default_id": str(o.default), "value_id": str(value), "changed": value != o.default, "type": o.type, "choices": [], "range": None,
            "example_flag": f"--option {o.id}={_other_value(o)}",
        }
        if o.type == "word":
            item["choices"] = [{"id": c, "text": t[w.lang], "default": c == o.default, "chosen": c == value}
                               for c, t in o.choices.items()]
        elif o.type == "number" and o.min is not None and o.max is not None:
            item["range"] = w._("%(min)d to %(max)d", min=o.min, max=o.max)
        out.append(item)
    return out


def worked_example(model: Model, box_id: str, w: Words, scorer: Scorer | None = None) -> dict | None:
    """A box's example roll, its points computed by the engine, worded in one language.

    Points are those of the last roll of a turn, the usual case. A score that depends on the roll
    number (e.g. more on the first roll) adds what the first roll scores. A score that depends on
    the sheet and is 0 on an empty one is shown with the first other box that, filled with the same
    dice, makes it score (e.g. a second five-alike once the five-alike box holds its points).
    """
    box = model.boxes[box_id]
    if not box.example:
        return None
    scorer = scorer or Scorer(model)
    last = rolls_per_turn(model)
    dice = box.example
    points = scorer.points(box_id, dice, {}, last)
    sentence = w.example(dice, box.name[w.lang], points)
    if points == 0 and "sheet" in box.score.deps:
        for other in model.boxes:
            value = scorer.points(other, dice, {}, last) if other != box_id else 0
            if value and scorer.points(box_id, dice, {other: value}, last):
                points = scorer.points(box_id, dice, {other: value}, last)
                sentence = w.example_after(dice, box.name[w.lang], points, model.boxes[other].name[w.lang], value)
                break
    first = None
    if "turn" in box.score.deps and last != 1:
        first = scorer.points(box_id, dice, {}, 1)
        if first != points:
            sentence = sentence + " " + w.first_roll(first)
        else:
            first = None
    return {"dice": w.dice(dice), "points": points, "first_roll": first, "sentence": sentence}


SECONDS_PER_ROLL = 10  # the playing-time estimate: a roll, a look, a choice


def playing_time(model: Model, players: int) -> int:
    """Minutes a game takes, estimated from its rounds, players and rolls per turn (rounded to 5)."""
    seconds = rounds_of(model) * players * rolls_per_turn(model) * SECONDS_PER_ROLL
    return max(5, round(seconds / 60 / 5) * 5)


def _turn_walkthrough(model: Model, w: Words) -> list[Markup | str]:
    """A real first turn, played by the engine: each roll, what stays and why, and the write."""
    from .examples import example_turn
    out = []
    for step in example_turn(model):
        if step.kind == "roll" and step.roll_number == 1:
            out.append(w._("First roll: %(dice)s.", dice=w.dice(step.dice)))
        elif step.kind == "roll":
            out.append(w._("Roll %(n)d: %(dice)s.", n=step.roll_number, dice=w.dice(step.dice)))
        elif step.kind == "keep" and step.kept:
            rest = len(step.dice) - len(step.kept)
            out.append(w.n_("%(kept)s stay, the face that came up most often; the other die is rolled again.",
                            "%(kept)s stay, the face that came up most often; the other %(count)s dice are rolled again.",
                            rest, kept=w.dice(step.kept), count=w.number(rest)))
        elif step.kind == "keep":
            out.append(w._("Nothing is worth keeping: all dice are rolled again."))
        elif step.kind == "stop":
            out.append(w._("That is good enough: the player stops rolling."))
        elif step.kind == "write":
            out.append(w.n_("%(dice)s goes into the box “%(box)s”: %(num)d\u00a0point.",
                            "%(dice)s goes into the box “%(box)s”: %(num)d\u00a0points.", step.points,
                            dice=w.dice(step.dice), box=model.boxes[step.box].name[w.lang], num=step.points))
    return out


def _played_sheet(model: Model, w: Words) -> dict:
    """A whole game played by the engine, as a filled-in sheet."""
    from .examples import example_game
    game = example_game(model)
    sections = []
    for section in model.sections:
        rows = []
        for box in section.boxes:
            cells = [c for t in (model.targets or {}).values() if t.box == box for c in t.cells] or [box]
            for k, cell in enumerate(cells, 1):
                write = game.writes.get(cell)
                name = model.boxes[box].name[w.lang] + (f" ({k})" if len(cells) > 1 else "")
                rows.append({"name": name, "dice": w.dice(write.dice) if write else "",
                             "points": write.points if write else 0,
                             "by_sheet": bool(write) and write.box in game.sheet_dependent and write.points > 0,
                             "bonus": write.bonus if write else 0, "crossed": bool(write) and write.points == 0})
        bonuses = [{"name": b.name[w.lang], "points": game.totals[b.id]} for b in model.bonuses if b.section == section.id]
        sections.append({"name": section.name[w.lang], "rows": rows, "bonuses": bonuses,
                         "total_name": section.total[w.lang] if section.total else None,
                         "total": game.totals[section.id]})
    loose = [{"name": b.name[w.lang], "points": game.totals[b.id]} for b in model.bonuses if b.section is None]
    return {"seed": game.seed, "sections": sections, "loose": loose, "total": game.totals["total"]}


def _faq(model: Model, w: Words, scorer: Scorer) -> list[dict]:
    """Questions a player asks, answered from the model's rules by the engine."""
    from . import examples
    lang = w.lang
    out = []
    if examples.rerolls_kept_dice(model):
        out.append({"q": w._("May a die that was kept be rolled again later in the turn?"),
                    "a": w._("Yes: you may re-roll dice you kept before. Before every roll you choose afresh "
                             "which dice stay.")})
    rolls = [b.example for b in model.boxes.values() if b.example]
    if rolls:
        roll = max(rolls, key=lambda r: (len(examples.fits(model, scorer, r)), sum(r)))
        fits = examples.fits(model, scorer, roll)
        listed = ", ".join(f"{model.boxes[b].name[lang]} ({p})" for b, p in fits)
        out.append({"q": w._("Which boxes does %(dice)s fit?", dice=w.dice(roll)),
                    "a": w.n_("On an empty sheet it scores in %(count)s box: %(boxes)s.",
                              "On an empty sheet it scores in %(count)s boxes: %(boxes)s.",
                              len(fits), count=w.number(len(fits)), boxes=listed)})
    if zero_writes(model, scorer):
        any_roll = examples.any_roll_boxes(model, scorer)
        answer = w._("It must still be written: into any open box, which is then crossed out and scores 0.")
        if any_roll:
            names = ", ".join(w.quote(model.boxes[b].name[lang]) for b in any_roll)
            answer = answer + " " + w.n_("While the box %(boxes)s is open, it takes any roll: the usual fallback.",
                                         "While the boxes %(boxes)s are open, they take any roll: the usual fallback.",
                                         len(any_roll), boxes=names)
        out.append({"q": w._("What if a roll fits no box?"), "a": answer})
    for a, b, roll in examples.also_counts(model, scorer)[:2]:
        last = rolls_per_turn(model)
        out.append({"q": w._("Does a roll for “%(a)s” also count for “%(b)s”?", a=model.boxes[a].name[lang],
                             b=model.boxes[b].name[lang]),
                    "a": w._("Yes: %(dice)s scores %(pa)d in “%(a)s” and %(pb)d in “%(b)s”; it goes into one of them.",
                             dice=w.dice(roll), a=model.boxes[a].name[lang], b=model.boxes[b].name[lang],
                             pa=scorer.points(a, roll, {}, last), pb=scorer.points(b, roll, {}, last))})
    return out


def _sections(model: Model, w: Words, scorer: Scorer) -> list[dict]:
    lang = w.lang
    out = []
    for section in model.sections:
        rows = [{"id": box_id, "name": model.boxes[box_id].name[lang], "rule": model.boxes[box_id].rule[lang],
                 "example": worked_example(model, box_id, w, scorer)} for box_id in section.boxes]
        bonuses = [{"id": b.id, "name": b.name[lang], "rule": b.rule[lang]}
                   for b in model.bonuses if b.section == section.id]
        out.append({"id": section.id, "name": section.name[lang], "rows": rows, "bonuses": bonuses,
                    "total": section.total[lang] if section.total else None})
    return out


def game_context(model: Model, lang: str, site: Site, scorer: Scorer | None = None) -> dict:
    """Everything one game page says, in one language: plain data for the templates."""
    from . import describe
    w = Words(lang, site.fmt)
    scorer = scorer or Scorer(model)
    showcase = showcase_roll(model)
    showcase_rows = []
    if showcase:
        last = rolls_per_turn(model)
        for box_id, box in model.boxes.items():
            showcase_rows.append({"name": box.name[lang], "points": scorer.points(box_id, showcase, {}, last)})
    total_parts = []
    for section in model.sections:
        if section.counts:  # a section read by bonuses only adds nothing itself
            total_parts.append(section.total[lang] if section.total else section.name[lang])
        total_parts += [b.name[lang] for b in model.bonuses if b.section == section.id]
    total_parts += [b.name[lang] for b in model.bonuses if b.section is None]
    bundled = bundled_models()
    source_name = model.id if bundled.get(model.id) and Path(model.path).name == bundled[model.id].name \
        else Site.model_file(model)
    copy_name = "my-" + model.id.replace("_", "-") + ".yaml"
    return {
        "lang": lang,
        "model": model,
        "name": model.name[lang],
        "tagline": model.tagline[lang] if model.tagline else None,
        "also_known_as": ", ".join(model.also_known_as.get(lang, ())),
        "objective": model.objective[lang] if model.objective else None,
        "end": describe.end_text(model, lang),
        "players": w.players(model.min_players, model.max_players),
        "needs": [w.dice_needed(model.n_dice, model.faces), w.sheet_needed(len(model.boxes)), w._("a pen")],
        "length": [w.rounds(rounds_of(model)), w.rolls_per_turn(rolls_per_turn(model))]
        + [w.playing_time(playing_time(model, n), n) for n in sorted({model.min_players, min(2, model.max_players),
                                                                     min(4, model.max_players)})],
        "walkthrough": _turn_walkthrough(model, w),
        "played": _played_sheet(model, w),
        "faq": _faq(model, w, scorer),
        "flow": _step_tree(model.flow, model, lang),
        "write_rules": [s.rule[lang] for s in model.flow.walk() if s.kind == "write" and s.rule],
        "counters": [{"id": c.id, "name": c.name[lang], "sentence": describe.counter_sentence(c, lang),
                      "effects": [describe.effect_words(e, model, lang)["sentence"]
                                  for st in model.flow.walk() for e in st.effects if e.counter == c.id]}
                     for c in model.counters],
        "zero_writes": zero_writes(model, scorer),
        "sections": _sections(model, w, scorer),
        "total_parts": total_parts,
        "loose_bonuses": [{"id": b.id, "name": b.name[lang], "rule": b.rule[lang]}
                          for b in model.bonuses if b.section is None],
        "showcase": {"dice": w.dice(showcase), "rows": showcase_rows} if showcase else None,
        "options": _options(model, w),
        "changed_options": [o for o in _options(model, w) if o["changed"]],
        "files": {
            "diagram": site.diagram_file(model, lang),
            "model": site.model_file(model),
            "index": site.index_file(lang),
            "sheet": site.sheet_file(model, lang),
        },
        "source_name": source_name,
        "copy_name": copy_name,
        "w": w,
    }


def _switcher(site: Site, lang: str, file_of) -> list[dict]:
    return [{"lang": other, "name": LANGUAGE_NAMES[other], "href": file_of(other), "current": other == lang}
            for other in site.langs]


# rendering -------------------------------------------------------------------------

_MARKDOWN = str.maketrans({"<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]", "|": "\\|"})


def markdown_text(value: Any) -> Any:
    """A value as Markdown shows it literally: no raw HTML (`<script>`), no links or images of its
    own (`[x](javascript:…)`), no table cell breaks. The page's own links are in the templates."""
    return value.translate(_MARKDOWN) if isinstance(value, str) else value


@lru_cache(maxsize=None)
def _bytecode_cache(setting: str) -> jinja2.BytecodeCache | None:
    """Compiled templates kept between runs ($RULEBOOK_CACHE or the user's cache directory; Jinja2
    checks each against its template's source and recompiles a changed one). One folder per
    environment `setting`: the compiled code holds the environment's escaping (`finalize`,
    `autoescape`), which Jinja2's check does not see, so code compiled under one setting (HTML, or
    an older rulebook's Markdown) must never run under another."""
    import hashlib
    import os
    folder = os.environ.get("RULEBOOK_CACHE")
    if not folder:
        from platformdirs import user_cache_dir
        folder = user_cache_dir("rulebook")
    folder = os.path.join(folder, "templates", hashlib.sha256(setting.encode()).hexdigest()[:16])
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(folder)


@lru_cache(maxsize=None)
def environment(lang: str, fmt: str) -> jinja2.Environment:
    """A Jinja2 environment whose gettext speaks `lang` (one per language and format, cached)."""
    options = dict(autoescape=fmt == "html", extensions=["jinja2.ext.i18n"], trim_blocks=True, lstrip_blocks=True,
                   keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
                   finalize=None if fmt == "html" else markdown_text)
    setting = repr(sorted((k, getattr(v, "__qualname__", v)) for k, v in options.items()))
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES_DIR)),
                             bytecode_cache=_bytecode_cache(setting), **options)
    env.install_gettext_translations(translator(lang), newstyle=True)
    return env


def render_game(model: Model, lang: str, site: Site, diagram_svg: str | None = None,
                scorer: Scorer | None = None) -> str:
    env = environment(lang, site.fmt)
    ctx = game_context(model, lang, site, scorer)
    ctx["has_diagram"] = diagram_svg is not None
    ctx["diagram_inline"] = inline_svg(diagram_svg) if diagram_svg is not None and site.fmt == "html" else None
    ctx["languages"] = _switcher(site, lang, lambda other: site.game_file(model, other))
    ctx["home"] = site.index_file(lang)
    return env.get_template(f"game.{site.fmt}.j2").render(ctx)


def inline_svg(svg: str) -> Markup:
    """A graphviz SVG ready to sit in a page: no XML prolog, as wide as the page (its own width at most)."""
    import re
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    width = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if width:
        # its own width as the width; the stylesheet's max-width: 100% narrows it to the page (no style
        # attribute: a served page's Content-Security-Policy allows the stylesheet only)
        svg = svg.replace(width.group(0), f'<svg class="flow" width="{float(width.group(1)) * 4 / 3:.0f}"', 1)
    svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
    return Markup(svg)


BLANK_SHEET_GAMES = 6  # columns on the printed sheet (seed 000 has three; six fill an A4 page)


def render_sheet(model: Model, lang: str, site: Site, scorer: Scorer | None = None) -> str:
    """The blank score sheet to print: every box, total and bonus, one column per game, the rule as a note."""
    env = environment(lang, site.fmt)
    ctx = game_context(model, lang, site, scorer)
    ctx["games"] = list(range(1, BLANK_SHEET_GAMES + 1))
    ctx["rules_file"] = site.game_file(model, lang)
    ctx["languages"] = _switcher(site, lang, lambda other: site.sheet_file(model, other))
    ctx["home"] = site.index_file(lang)
    return env.get_template("sheet.html.j2").render(ctx)


def render_index(site: Site, lang: str) -> str:
    env = environment(lang, site.fmt)
    games = [{"name": m.name[lang], "tagline": m.tagline[lang] if m.tagline else None,
              "href": site.game_file(m, lang),
              "players": Words(lang, site.fmt).players(m.min_players, m.max_players)} for m in site.models]
    ctx = {"lang": lang, "games": games, "home": site.index_file(lang),
           "languages": _switcher(site, lang, site.index_file)}
    return env.get_template(f"index.{site.fmt}.j2").render(ctx)


def diagram_svg(model: Model, lang: str) -> str | None:
    """The rule diagram (the phase tree) as SVG text in `lang`, drawn by tools/diagram.py."""
    import graphviz

    from . import diagram
    try:
        return diagram.render_svg(model, lang, "flow")
    except graphviz.ExecutableNotFound:
        raise UsageError("the pages embed the rule diagram, which needs Graphviz's dot",
                         "install it, e.g. apt-get install graphviz") from None


def build_site(models: Iterable[Model], langs: Iterable[str] = LANGUAGES, fmt: str = "html") -> dict[str, str]:
    """Every file of the site: file name (relative, '/' separated) → text."""
    site = check_site(models, langs, fmt)
    files: dict[str, str] = {}
    for lang in site.langs:
        files[site.index_file(lang)] = render_index(site, lang)
    # Graphviz runs as a separate process per diagram: draw them side by side
    jobs = [(i, lang) for i in range(len(site.models)) for lang in site.langs]
    with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        svgs = dict(zip(jobs, pool.map(lambda job: diagram_svg(site.models[job[0]], job[1]), jobs)))
    for i, model in enumerate(site.models):
        files[site.model_file(model)] = model.source
        scorer = Scorer(model)  # one per model: building one tabulates the scores
        for lang in site.langs:
            svg = svgs[i, lang]
            if svg is not None:
                files[site.diagram_file(model, lang)] = svg
            files[site.game_file(model, lang)] = render_game(model, lang, site, svg, scorer)
            if fmt == "html":
                files[site.sheet_file(model, lang)] = render_sheet(model, lang, site, scorer)
    if fmt == "html":
        for path in sorted(STATIC_DIR.iterdir()):
            if path.is_file():
                files[f"static/{path.name}"] = path.read_text(encoding="utf-8")
    return files


def write_site(files: dict[str, str], outdir: Path) -> list[Path]:
    """Write the files under `outdir` (created if needed); returns the paths written."""
    written = []
    try:
        for name, text in files.items():
            path = outdir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as exc:
        raise UsageError("cannot write the pages to {outdir}: {reason}", outdir=outdir, reason=exc.strerror or exc) from None
    return written
