"""Everything one game page says, in one language, as plain data for the templates (`game_context`):
the worked examples computed by the engine, the turn walked through, a played sheet, the questions
the rules answer, the options, and the phase tree worded by `describe`."""
from __future__ import annotations

from pathlib import Path

from markupsafe import Markup

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import Model, Step
from ...interpreter.model.scoring import Scorer
from .sheetlayout import sheet_layout
from .gamefacts import grand_total_parts, playing_time, rolls_per_turn, rounds_of, showcase_roll, turn_rolls, zero_writes
from .sitefiles import Site
from .words import Words

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


def _turn_walkthrough(model: Model, w: Words) -> list[Markup | str]:
    """A real first turn, played by the engine: each roll, what stays and why, and the write."""
    from .examples import example_turn
    out = []
    for step in example_turn(model):
        if step.kind == "roll" and step.roll_number == 1:
            out.append(w._("First roll: %(dice)s.", dice=w.dice(step.dice)))
        elif step.kind == "roll":
            out.append(w._("Roll %(n)d: %(dice)s.", n=step.roll_number, dice=w.dice(step.dice)))
        elif step.kind == "keep" and step.kept and step.reason == "again":
            rest = len(step.dice) - len(step.kept)
            out.append(w.n_("%(kept)s stay aside; the other die is rolled again, for more.",
                            "%(kept)s stay aside; the other %(count)s dice are rolled again, for more.",
                            rest, kept=w.dice(step.kept), count=w.number(rest)))
        elif step.kind == "keep" and step.kept and step.reason == "rule":
            rest = len(step.dice) - len(step.kept)
            out.append(w.n_("%(kept)s are set aside, as the rule requires; the other die is rolled again.",
                            "%(kept)s are set aside, as the rule requires; the other %(count)s dice are rolled again.",
                            rest, kept=w.dice(step.kept), count=w.number(rest)))
        elif step.kind == "keep" and step.kept:
            rest = len(step.dice) - len(step.kept)
            out.append(w.n_("%(kept)s stay, the face that came up most often; the other die is rolled again.",
                            "%(kept)s stay, the face that came up most often; the other %(count)s dice are rolled again.",
                            rest, kept=w.dice(step.kept), count=w.number(rest)))
        elif step.kind == "keep" and step.reason == "rule":
            out.append(w._("The rule lets nothing be set aside: all dice are rolled again."))
        elif step.kind == "keep":
            out.append(w._("Nothing is worth keeping: all dice are rolled again."))
        elif step.kind == "roll_on":
            out.append(w._("The player rolls on."))
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
                         "total": game.totals[section.id], "counts": section.counts})
    loose = [{"name": b.name[w.lang], "points": game.totals[b.id]} for b in model.bonuses if b.section is None]
    final = []
    if model.ranking is not None:  # the final score the ranking reads, and its tie-breaks, as the engine computes them
        names = [model.ranking.name[w.lang]] + [name[w.lang] for name, _ in model.ranking.tie_breaks]
        final = [{"name": n, "text": str(v)} for n, v in zip(names, game.final)]
    return {"seed": game.seed, "sections": sections, "loose": loose, "total": game.totals["total"], "final": final}


def _faq(model: Model, w: Words, scorer: Scorer) -> list[dict]:
    """Questions a player asks, answered from the model's rules by the engine."""
    from . import examples
    lang = w.lang
    out = []
    if examples.keeps_set_by_rule(model):
        rules = [st.rule[lang] for st in model.flow.walk() if st.kind == "keep" and st.allowed is not None and st.rule]
        out.append({"q": w._("Who chooses which dice stay?"),
                    "a": (w._("Nobody: after every roll the rule says which dice are set aside; the player only "
                              "decides whether to roll on.") if any(st.can_stop for st in model.flow.walk() if st.kind == "keep")
                          else w._("Nobody: after every roll the rule says which dice are set aside."))
                    + (" " + rules[0] if rules else "")})
    elif examples.rerolls_kept_dice(model):
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
        readers = [b.name[lang] for b in model.bonuses if b.section == section.id]
        if section.id in scorer.counted_sections:
            total_rule = w._("the points of the boxes above, added up; they count towards the grand total")
        elif readers:
            total_rule = w._("the points of the boxes above; not added to the grand total, only read by %(bonuses)s",
                             bonuses=", ".join(w.quote(r) for r in readers))
        else:
            total_rule = w._("the points of the boxes above; not added to the grand total")
        out.append({"id": section.id, "name": section.name[lang], "rows": rows, "bonuses": bonuses,
                    "total": section.total[lang] if section.total else None, "total_rule": total_rule})
    return out


def chapters(w: Words) -> dict[str, str]:
    """The chapter titles of a printed rule book, in its order: idea, material, set-up, play, scoring,
    special rules, end, variants."""
    return {"objective": w._("The idea of the game"), "material": w._("Material"), "setup": w._("Set-up"),
            "turn": w._("Playing the game"), "sheet": w._("Scoring"), "special": w._("Special rules"),
            "end": w._("End of the game"), "options": w._("Variants")}


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
    total_parts = grand_total_parts(model, lang, scorer)
    rolls = turn_rolls(model)
    bundled = bundled_models()
    source_name = model.id if bundled.get(model.id) and Path(model.path).name == bundled[model.id].name \
        else Site.model_file(model)
    copy_name = "my-" + model.id.replace("_", "-") + ".yaml"
    chapter = chapters(w)
    faq = _faq(model, w, scorer)
    write_rules = [s.rule[lang] for s in model.flow.walk() if s.kind == "write" and s.rule]
    shown = ["objective", "material", "setup", "turn", "sheet"] + (["special"] if write_rules or model.counters or faq else []) \
        + ["end"] + (["options"] if model.options else [])
    return {
        "chapter": chapter,
        "chapters": [{"id": c, "title": chapter[c]} for c in shown],
        "setup": [w.setup(model.min_players, model.max_players, bool(model.cells))],
        "ties": w.ties(bool(model.ranking and model.ranking.tie_breaks)),
        "final_score": {"name": model.ranking.name[lang], "rule": model.ranking.rule[lang]}
        if model.ranking is not None and model.ranking.rule else None,
        "lang": lang,
        "model": model,
        "name": model.name[lang],
        "tagline": model.tagline[lang] if model.tagline else None,
        "also_known_as": ", ".join(model.also_known_as.get(lang, ())),
        "objective": model.objective[lang] if model.objective else None,
        "end": describe.end_text(model, lang),
        "players": w.players(model.min_players, model.max_players),
        "needs": ([w.group_needed(g.count, g.name[lang] if g.name else g.id, g.faces) for g in model.dice_groups]
                  if model.grouped else [w.dice_needed(model.n_dice, model.faces)])
        + [w.sheet_needed(sheet_layout(model).cells) if model.cells else w._("paper to note each player's score"), w._("a pen")],
        "length": ([w.rounds(rounds_of(model))] if rounds_of(model) else [])
        + [w.rolls_per_turn(rolls.most, [c.name[lang] for c in model.counters if c.id in rolls.counters])]
        + [w.playing_time(playing_time(model, n), n) for n in sorted({model.min_players, min(2, model.max_players),
                                                                     min(4, model.max_players)})],
        "walkthrough": _turn_walkthrough(model, w),
        "played": _played_sheet(model, w),
        "faq": faq,
        "flow": _step_tree(model.flow, model, lang),
        "write_rules": write_rules,
        "counters": [{"id": c.id, "name": c.name[lang], "sentence": describe.counter_sentence(c, lang),
                      "effects": [describe.effect_words(e, model, lang, st.kind)["sentence"]
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
