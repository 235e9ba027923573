"""Small random models built from the model language's mechanisms (issue 22's composition test), with
a plain Python twin of each model's scoring to check the engine against.

`random_model(rng)` gives (YAML text, Twin). A model is drawn from: dice (2-3, 4-6 faces), boxes from
a palette, a box used twice, columns (0-2, orders free/down/up, multipliers), dice that differ (the last die a group
of its own, scored by a box and kept by group), a counter (per player or per game) changed by an effect and read by a box score, a write rule (with scratch) and an end bonus,
`end_if` on that counter (ending now, at the end of the round or after the others' last turns), a keep rule,
a `while:` on the rerolls, an optional announcement, and push your luck after the write: a repeat without
`times` of a roll that busts on a 1 (a turn counter `pot` counts the rolls) and a bank step that adds the pot to
a counter `banked`, paid as an end bonus.
The twin scores a write from the dice and its own count of the counter, never from the engine.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

T3 = "{en: %s, de: %s, nl: %s}"


def text(word: str) -> str:
    return T3 % (word, word, word)


@dataclass
class Twin:
    """What the model means, in plain Python."""

    boxes: dict[str, callable]  # box → points(dice, counter value)
    columns: dict[str, int]  # column → multiplier ({} without columns)
    counter: str | None = None  # "player" or "game"
    marked: str | None = None  # the box whose writes add 1 to the counter
    rule_box: str | None = None  # a write rule: this box only while the counter is below 2
    bonus: int = 0  # end bonus per counter point
    end_at: int | None = None  # end_if: the counter reaches this
    luck: int = 0  # push your luck: points per banked roll (0: none)
    features: set = field(default_factory=set)

    def allowed(self, box: str, marks: int) -> bool:
        return box != self.rule_box or marks < 2


PALETTE = {
    "all": ("sum(dice)", lambda d, c: sum(d)),
    "highest": ("max(dice)", lambda d, c: max(d)),
    "ones": ("count(1)", lambda d, c: d.count(1)),
    "pair": ("10 if max(counts) >= 2 else 0", lambda d, c: 10 if max(d.count(f) for f in set(d)) >= 2 else 0),
    "top": ("count(FACES) * FACES", None),  # filled in per model
    "late": ("sum(dice) + 2 * counter.marks", lambda d, c: sum(d) + 2 * c),
    "last": ("2 * dice.b[0]", None),  # dice that differ only: the die of group b
}


def random_model(rng: random.Random, index: int) -> tuple[str, Twin]:
    n, faces = rng.choice((2, 3)), rng.choice((4, 5, 6))
    counter = rng.choice((None, None, "player", "game"))
    names = [b for b in PALETTE if b not in ("late", "last")]
    chosen = rng.sample(names, rng.choice((2, 3)))
    if counter:
        chosen.append("late")
    ncols = rng.choice((0, 0, 1, 2))
    columns = {}
    orders = {}
    for k in range(ncols):
        cid = f"c{k}"
        columns[cid] = rng.choice((1, 1, 2))
        orders[cid] = rng.choice(("free", "down", "up"))
    uses = {b: 1 for b in chosen}
    if not columns and rng.random() < 0.3:
        uses[chosen[0]] = 2
    funcs = {}
    for b in chosen:
        expr, fn = PALETTE[b]
        if b == "top":
            fn = (lambda f: (lambda d, c: d.count(f) * f))(faces)
        funcs[b] = fn
    grouped = rng.random() < 0.25  # dice that differ: the last die is a group of its own ("b")
    if grouped:
        funcs["last"] = lambda d, c: 2 * d[-1]
        chosen.append("last")
        uses["last"] = 1
    twin = Twin(funcs, columns, counter)
    cells = sum(uses.values()) * max(1, len(columns))
    lines = ["rulebook: 1", f"id: m{index}", f"name: {text('M' + str(index))}", "players: {min: 1, max: 3}",
             f"dice: {{count: {n}, faces: {faces}}}"]
    if grouped:
        lines[-1] = "dice:"
        lines += ["  groups:", f"    - {{id: a, name: {text('A')}, count: {n - 1}, faces: {faces}}}",
                  f"    - {{id: b, name: {text('B')}, count: 1, faces: {rng.choice((4, 6))}, colour: red}}"]
        twin.features.add("groups")
    twin.luck = rng.choice((0, 0, 0, 2))
    if counter or twin.luck:
        lines.append("counters:")
    if twin.luck:
        lines += ["  - id: pot", f"    name: {text('Pot')}", "    per: turn", "    min: 0",
                  "  - id: banked", f"    name: {text('Banked')}", "    per: player", "    min: 0"]
        twin.features.add("luck")
    if counter:
        twin.marked = chosen[0]
        lines += ["  - id: marks", f"    name: {text('Marks')}", f"    per: {counter}", "    min: 0",
                  "    max: 20"]
        if rng.random() < 0.5:
            twin.rule_box = chosen[1]
        if rng.random() < 0.5:
            twin.bonus = 3
        if rng.random() < 0.3 and not columns:
            twin.end_at = 2
        twin.features.add("counter")
    if columns:
        lines.append("columns:")
        for cid, mult in columns.items():
            lines += [f"  - id: {cid}", f"    name: {text(cid.upper())}", f"    multiplier: {mult}",
                      f"    order: {orders[cid]}"]
        twin.features.add("columns")
    lines += ["sections:", "  - id: main", f"    name: {text('Main')}", "    boxes:"]
    for b in chosen:
        expr = PALETTE[b][0].replace("FACES", str(faces))
        lines += [f"      - id: {b}", f"        name: {text(b.title())}", f"        rule: {text(b)}",
                  f"        score: {expr}", f"        example: {[1] * n}"]
        if uses[b] > 1:
            lines.append(f"        uses: {uses[b]}")
            twin.features.add("uses")
    if twin.bonus or twin.luck:
        lines.append("bonuses:")
    if twin.bonus:
        lines += ["  - id: marks_bonus", f"    name: {text('Bonus')}", "    when: end",
                  f"    points: {twin.bonus} * counter.marks", f"    rule: {text('bonus')}"]
    if twin.luck:
        lines += ["  - id: luck_bonus", f"    name: {text('Luck')}", "    when: end",
                  f"    points: {twin.luck} * counter.banked", f"    rule: {text('luck')}"]
    if twin.end_at:
        lines.append(f"end_if: counter.marks >= {twin.end_at}")
        twin.features.add("end_if")
        end = rng.choice(("now", "now", "round", "last_turn"))
        lines.append(f"end: {end}")
        if end != "now":
            twin.features.add("end_" + end)
    rerolls = rng.choice((0, 1, 2))
    keep_rule = rerolls and rng.random() < 0.3
    use_while = rerolls and rng.random() < 0.3
    announce = not columns and rng.random() < 0.2
    lines += ["flow:", "  id: game", "  kind: repeat", f"  times: {cells}", f"  name: {text('Game')}", "  steps:",
              "    - id: turn", "      kind: each_player", f"      name: {text('Turn')}", "      steps:",
              "        - id: roll", "          kind: roll", "          dice: all", f"          name: {text('Roll')}"]
    if announce:
        lines += ["        - id: say", "          kind: announce", "          optional: true",
                  f"          name: {text('Announce')}"]
        twin.features.add("announce")
    if rerolls:
        lines += ["        - id: rerolls", "          kind: repeat", f"          times: {rerolls}",
                  f"          name: {text('Rerolls')}"]
        if use_while:
            lines.append(f"          while: max(dice) < {faces}")
            twin.features.add("while")
        if grouped:
            twin.features.add("group_keeps")
        lines += ["          steps:", "            - id: keep", "              kind: keep",
                  "              can_stop: true", f"              name: {text('Keep')}"]
        if keep_rule:
            lines += ["              allowed: kept == [] or max(kept) == max(dice)"]
            twin.features.add("keep_rule")
        lines += ["            - id: reroll", "              kind: roll", "              dice: unkept",
                  f"              name: {text('Reroll')}"]
    lines += ["        - id: write", "          kind: write", f"          name: {text('Write')}"]
    if twin.rule_box:
        lines += [f"          allowed: target != {twin.rule_box} or counter.marks < 2", "          otherwise: scratch"]
        twin.features.add("write_rule")
    if counter:
        lines += ["          effects:", "            - counter: marks", "              add: 1",
                  f"              when: target == {twin.marked}", f"              rule: {text('mark')}"]
        twin.features.add("effects")
    if twin.luck:
        lines += ["        - id: gamble", "          kind: repeat", f"          name: {text('Gamble')}", "          steps:",
                  "            - id: chance_roll", "              kind: roll", "              dice: all",
                  "              bust: min(dice) == 1", f"              name: {text('Chance')}",
                  "              effects:", "                - counter: pot", "                  add: 1",
                  "            - id: cash", "              kind: bank", f"              name: {text('Cash')}",
                  "              effects:", "                - counter: banked", "                  add: counter.pot"]
    return "\n".join(lines) + "\n", twin
