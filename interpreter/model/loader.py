"""Load a model: YAML with positions → schema → names and types → compiled `Model`.

Problems are collected and raised together as an `ErrorList` of one-line errors, each with its
`file:line:col`, so `rulebook check` can report them all at once.
"""
from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path
from typing import Any

from .dsl.compiler import Compiled, Compiler, Context, Scope
from .errors import ErrorList, Message, ModelError, Number, Pos, RulebookError, UsageError, did_you_mean
from . import limits
from .limits import read_untrusted
from .dice import canonical
from .frozen import LANGUAGES, Bonus, Box, Column, Counter, DiceGroup, Effect, Model, Option, Ranking, Section, Step, Target
from .yamlsource import Node, Text, load_yaml
from .optionvalues import parse_option_value
from .schemacheck import valid_marker as _valid_marker, schema_errors as _schema_errors
from .flowbuild import ALL_DEPS, FlowBuilder

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = PACKAGE_ROOT / "rules"

MAX_ROLLS = 50_000  # distinct rolls (multisets) whose scores are tabulated


def model_hash(source: str) -> str:
    """The short hash logs and saves record to recognise a model's exact text."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def bundled_models() -> dict[str, Path]:
    """The models shipped with rulebook, by name, in the order of rules/index.txt (then by name)."""
    found = {p.stem: p for p in sorted(RULES_DIR.glob("*.yaml"))}
    index = RULES_DIR / "index.txt"
    order = index.read_text(encoding="utf-8").split() if index.exists() else []
    return {name: found[name] for name in dict.fromkeys([*order, *sorted(found)]) if name in found}


def is_bundled(model: Model) -> bool:
    """Whether `model` was read from a model shipped with rulebook, unchanged (not a file someone shared)."""
    path = Path(model.path)
    shipped = bundled_models().get(path.stem)
    try:
        return shipped is not None and path.resolve() == shipped.resolve() and \
            shipped.read_text(encoding="utf-8") == model.source
    except OSError:
        return False


def default_model() -> str:
    """The bundled model played when none is named: the first in rules/index.txt."""
    return next(iter(bundled_models()))


def resolve(name_or_path: str) -> Path:
    """A model path from a path or a bundled model's name."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists() or "/" in name_or_path:
        if not path.exists():
            raise UsageError("no such model file: {path}", path=name_or_path)
        return path
    bundled = bundled_models()
    if name_or_path in bundled:
        return bundled[name_or_path]
    raise UsageError("unknown model '{name}'", did_you_mean(name_or_path, bundled)
                     or Message("bundled models: {names}", {"names": ", ".join(f"'{b}'" for b in bundled)}), name=name_or_path)


def load_model(name_or_path: str | Path, options: dict[str, str] | None = None, validate: bool | None = None) -> Model:
    """Load, validate and compile a model with the given option values (strings are parsed).

    validate: True checks the schema always; None (the default) only for a text not yet seen to
    pass it (see `load_source`).
    """
    source, file = _read(name_or_path)
    return load_source(source, file, options, validate)


def _read(name_or_path: str | Path) -> tuple[str, str]:
    """A model's text and the name errors give its file."""
    path = resolve(str(name_or_path))
    source = read_untrusted(path, "model", ModelError)  # a regular file within the budget, or refused unread
    return source, display_name(path)


def read_model(name_or_path: str | Path) -> tuple[str, str, Any]:
    """(text, file name, positioned YAML data) of a model, for callers that look at the data
    before loading it (`load_source(text, file, options, data=data)` then parses nothing again)."""
    source, file = _read(name_or_path)
    return source, file, load_yaml(source, file)


def display_name(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_source(source: str, file: str, options: dict[str, str] | None = None, validate: bool | None = None,
                data: Any = None) -> Model:
    """Load a model from YAML text; `file` names it in error messages.

    The schema check (jsonschema: slow to import and to run) is skipped for a text that passed it
    before: its hash, with the schema's, is noted in the user's cache directory (`_valid_marker`).
    Every other check runs every time. `validate=True` checks the schema always. `data`: the text
    already parsed by `load_yaml` (see `read_model`).
    """
    if data is None:
        data = load_yaml(source, file)
    if not isinstance(data, Node):
        raise ModelError("a model must be a mapping of keys to values", getattr(data, "pos", Pos(file, 1, 1)))
    marker = _valid_marker(source)
    from .cachedir import mark, marked
    if validate or marker is None or not marked(marker):
        errors = _schema_errors(data, file)
        if errors:
            raise ErrorList(errors)
        model = _build(data, file, source, options)
        if marker is not None:
            mark(marker)  # sealed; no note, no harm: the schema is checked again next time
        return model
    return _build(data, file, source, options)


def _build(data: Node, file: str, source: str, options: dict[str, str] | None) -> Model:
    """Build the model; its expressions' trees come from (and new ones go to) the tree cache."""
    from .dsl import parser, treecache
    known = treecache.load(source)
    with parser.recording() as (trees, fresh):
        model = _Builder(data, file, source, options or {}).build()
    if fresh[0]:
        treecache.save(source, {**known, **trees})
    return model


# What a name in the model is, as a message says it ("box 'sum' has the same name as the built-in function 'sum'").
_NAMED = {"section": "section '{name}'", "box": "box '{name}'", "definition": "definition '{name}'"}
_THE_NAMED = {"section": "the section '{name}'", "box": "the box '{name}'", "definition": "the definition '{name}'",
              "built-in name": "the built-in name '{name}'", "built-in function": "the built-in function '{name}'"}
_NAMED_TEMPLATES = (Message("section '{name}'"), Message("box '{name}'"), Message("definition '{name}'"),
                    Message("the section '{name}'"), Message("the box '{name}'"), Message("the definition '{name}'"),
                    Message("the built-in name '{name}'"), Message("the built-in function '{name}'"))  # (for the catalogs)


class _Builder(FlowBuilder):
    """Turns schema-valid data into a Model, collecting every problem it finds."""

    def __init__(self, data: Node, file: str, source: str, chosen: dict[str, str]):
        self.data, self.file, self.source, self.chosen = data, file, source, chosen
        self.errors: list[RulebookError] = []
        self.step_ids: dict[str, Pos] = {}
        self.groups: tuple[DiceGroup, ...] = ()

    def fail(self, message: str | Message, pos: Pos | None, hint: str | Message | None = None, **params) -> None:
        self.errors.append(ModelError(message, pos or self.data.pos, hint, **params))

    def build(self) -> Model:
        d = self.data
        options = self._options()
        values = self._option_values(options)
        sections = self._sections()
        if d["players"]["min"] > d["players"]["max"]:
            self.fail("players.min is larger than players.max", d["players"].value_pos["min"])
        define = d.get("define", Node())
        groups = self._dice_groups()
        self.n_dice = sum(g.count for g in groups) if groups else d["dice"]["count"]
        self.faces = max(g.faces for g in groups) if groups else d["dice"]["faces"]
        n_dice, faces = self.n_dice, self.faces
        if groups:
            rolls = math.prod(math.comb(g.count + g.faces - 1, g.count) for g in groups)
        else:
            rolls = math.comb(n_dice + faces - 1, n_dice)
        table = limits.table_bytes(n_dice, faces)
        if rolls <= MAX_ROLLS and table > limits.limits().table_bytes:  # checked before any table is built
            raise ErrorList([ModelError(
                "{count} dice with {faces} faces need tables of {size} MB for their rolls and keeps; the limit is {limit} MB",
                d.value_pos["dice"], limits.hint_for("table_bytes"), count=n_dice, faces=faces,
                size=-(-table // 2**20), limit=limits.limits().table_bytes // 2**20)])
        if rolls > MAX_ROLLS:
            raise ErrorList([ModelError("{count} dice with {faces} faces can show {rolls} different rolls; rulebook "
                                        "tabulates scores for every roll and allows at most {limit}", d.value_pos["dice"],
                                        count=n_dice, faces=faces, rolls=Number(rolls), limit=Number(MAX_ROLLS))])
        scope = Scope(n_dice, faces, {s.id: s.boxes for s in sections}, values,
                      {name: self._as_text(define[name], define.value_pos[name]) for name in define})
        scope.groups = {g.id: (g.count, g.faces) for g in groups}
        scope.option_choices = {o.id: list(o.choices) for o in options.values() if o.choices}
        counters = self._counters()
        scope.counters = {c.id: c.start for c in counters}
        self.compiler = Compiler(scope)
        self.options, self.values = options, values
        self._check_names(sections)
        boxes = self._boxes(sections)
        bonuses = self._bonuses(sections)
        flow = self._step(d["flow"], ["flow"])
        self._check_flow(flow)
        self.errors += limits.flow_errors(flow, d["players"]["max"])
        self.errors += limits.box_errors([b for s in d["sections"] for b in s["boxes"]])
        definitions = {}
        for name in d.get("define", {}):
            c = self._compile(d["define"][name], ("number", "bool", "list", "box", "boxes", "string", "section"),
                              ALL_DEPS | {"counter", "keep", "announce"}, Message("definition '{name}'", {"name": name}),
                              d["define"].value_pos[name])
            if c:
                definitions[name] = c
        end_if = self._compile(d["end_if"], "bool", {"dice", "sheet", "turn", "counter"}, "end_if", d.value_pos["end_if"]) if "end_if" in d else None
        if end_if is not None and not end_if.deps and end_if(Context()) is False:
            end_if = None  # the chosen options rule an early end out: the game runs its full course
        columns = self._columns()
        if not any(s.kind == "announce" for s in flow.walk()):
            for c, node in zip(columns, self.data.get("columns", [])):
                if c.order == "announced":
                    self.fail("column '{column}' is filled by announcement, but the turn has no announce step",
                              node.value_pos["order"], column=c.id)
        targets = self._targets(boxes, columns)
        ranking = self._ranking()
        ahead_if = self._ahead_if()
        tagline, objective = self._filled_text(d, "tagline"), self._filled_text(d, "objective")
        if self.errors:
            unique = {str(e): e for e in self.errors}  # a broken definition fails at every use
            raise ErrorList(sorted(unique.values(), key=lambda e: (e.pos.line, e.pos.col)))
        model = Model(
            id=str(d["id"]), name=self._text(d["name"]), tagline=tagline,
            objective=objective, min_players=d["players"]["min"],
            max_players=d["players"]["max"], n_dice=n_dice, faces=faces, dice_groups=groups,
            winner=self._winner(), options=options, option_values=values,
            sections=tuple(sections), boxes=boxes, bonuses=tuple(bonuses), flow=flow, end_if=end_if,
            path=self.file, source=self.source, hash=model_hash(self.source),
            definitions=definitions, targets=targets,
            cells=tuple(c for t in targets.values() for c in t.cells), ranking=ranking, columns=columns,
            also_known_as={lang: tuple(str(n) for n in (d.get("also_known_as") or {}).get(lang, ()))
                           for lang in LANGUAGES},
            counters=self._used_counters(counters, flow, bonuses, ranking,
                                         [b.score for b in boxes.values()] + [end_if, ahead_if]
                                         + [s.bust for s in flow.walk()]),
            ahead_if=ahead_if, end=str(d.get("end", "now")),
        )
        from .soundness import check_soundness  # it scores rolls, so it needs the built model
        problems = check_soundness(model)
        if problems:
            raise ErrorList(problems)
        return model

    # counters and effects -----------------------------------------------------------
    def _counters(self) -> tuple[Counter, ...]:
        out, seen = [], set()
        for c in self.data.get("counters", []):
            cid = str(c["id"])
            if cid in seen:
                self.fail("two counters are called '{counter}'", c.value_pos["id"], counter=cid)
            seen.add(cid)
            least, most, start = c.get("min"), c.get("max"), int(c.get("start", 0))
            if least is not None and most is not None and least > most:
                self.fail("counter '{counter}' has min {least} above max {most}", c.value_pos["min"], counter=cid, least=least, most=most)
            elif (least is not None and start < least) or (most is not None and start > most):
                self.fail("counter '{counter}' starts at {start}, outside its bounds", c.value_pos.get("start", c.pos), counter=cid,
                          start=start)
            out.append(Counter(cid, self._text(c["name"]), str(c.get("per", "player")), start, least, most, c.pos))
        return tuple(out)

    def _effects(self, nodes, kind: str = "write") -> tuple[Effect, ...]:
        """A step's effects; those the chosen options rule out (`when` always false) are left out. A
        keep's and a roll's effects may read the dice set aside (`aside`, `held`, `rolled`)."""
        out = []
        known = getattr(self.compiler.scope, "counters", {})
        per = {str(c["id"]): str(c.get("per", "player")) for c in self.data.get("counters", [])}
        seen = ALL_DEPS | {"counter"} | ({"keep"} if kind in ("keep", "roll", "bank") else set())
        for e in nodes:
            cid = str(e["counter"])
            if cid not in known:
                self.fail("unknown counter '{counter}'", e.value_pos["counter"], did_you_mean(cid, known), counter=cid)
                continue
            players = str(e.get("players", "me"))
            if per[cid] == "game" and "players" in e:
                self.fail(Message("counter '{counter}' belongs to the game, not to players: leave out 'players'", {"counter": cid}),
                          e.key_pos["players"])
            op = "set" if "set" in e else "add"
            amount = self._compile(e[op], "number", seen, Message("the change of counter '{counter}'", {"counter": cid}), e.value_pos[op])
            when = self._compile(e["when"], "bool", seen, Message("an effect's condition"), e.value_pos["when"]) if "when" in e else None
            if when is not None and not when.deps and when(Context()) is False:
                continue  # the chosen options rule it out
            if when is not None and not when.deps:
                when = None
            if amount is not None:
                out.append(Effect(cid, op, amount, players, when, e.pos,
                                  self._variant(e["rule"], []) if "rule" in e else None))
        return tuple(out)

    def _used_counters(self, counters, flow: Step, bonuses, ranking, more=()) -> tuple[Counter, ...]:
        """The counters the model reads or changes (for the chosen options); the others are left out,
        so a variant that does not use them is exactly the model without them."""
        used = {e.counter for s in flow.walk() for e in s.effects}
        compiled = [s.condition for s in flow.walk()] + [s.allowed for s in flow.walk()] + [b.points for b in bonuses]
        compiled += list(more)
        compiled += [c for s in flow.walk() for e in s.effects for c in (e.amount, e.when)]
        if ranking is not None:
            compiled += [ranking.score] + [c for _, c in ranking.tie_breaks]
        for c in compiled:
            if c is not None and "counter" in c.deps:
                used |= counters_read(c.ast)
        return tuple(c for c in counters if c.id in used)

    # the sheet's cells and the ranking -------------------------------------------
    def _columns(self) -> tuple[Column, ...]:
        out, seen = [], set()
        for c in self.data.get("columns", []):
            cid = str(c["id"])
            if cid in seen:
                self.fail("two columns are called '{column}'", c.value_pos["id"], column=cid)
            seen.add(cid)
            out.append(Column(cid, self._text(c["name"]), int(c.get("multiplier", 1)), str(c.get("order", "free"))))
        return tuple(out)

    def _targets(self, boxes: dict[str, Box], columns: tuple[Column, ...]) -> dict[str, "Target"]:
        """Every place a write can go, with its cells (see `Target`), in sheet order (column by column)."""
        out = {}
        for column in columns or (None,):
            for box in boxes.values():
                tid = box.id if column is None else f"{box.id}@{column.id}"
                cells = (tid,) if box.uses == 1 else tuple(f"{tid}#{k}" for k in range(1, box.uses + 1))
                out[tid] = Target(tid, box.id, column.id if column else None, cells)
        return out

    def _winner(self) -> str:
        w = self.data.get("winner", "highest_total")
        if isinstance(w, Node):
            return "lowest_total" if str(w.get("by", "highest")) == "lowest" else "highest_total"
        return str(w)

    def _ranking(self) -> Ranking | None:
        """The final score and tie-breaks of a `winner` mapping (None for highest_total/lowest_total)."""
        w = self.data.get("winner")
        if not isinstance(w, Node):
            return None
        score = self._compile(w["score"], "number", {"sheet", "counter"}, Message("the final score"),
                              w.value_pos["score"]) if "score" in w else None
        breaks = []
        for t in w.get("tie_breaks", []):
            c = self._compile(t["score"], "number", {"sheet", "counter"}, Message("a tie-break"), t.value_pos["score"])
            if c:
                breaks.append((self._text(t["name"]), c))
        if "score" not in w:
            return None  # ranked by the grand total (perhaps with ahead_if)
        if "name" not in w:
            self.fail("a final score needs a name (winner.name)", w.pos)
            return None
        rule = self._variant(w["rule"], []) if "rule" in w else None
        return Ranking(self._text(w["name"]), score, tuple(breaks), rule) if score else None

    def _ahead_if(self) -> Compiled | None:
        """`winner.ahead_if`: who ranks first at the end (None: nobody is put ahead, also when the
        chosen options make it always false)."""
        w = self.data.get("winner")
        if not isinstance(w, Node) or "ahead_if" not in w:
            return None
        c = self._compile(w["ahead_if"], "bool", {"sheet", "counter"}, Message("the winner's ahead_if"), w.value_pos["ahead_if"])
        if c is not None and not c.deps:
            return None if c(Context()) is False else c
        return c

    # texts ---------------------------------------------------------------
    def _text(self, node) -> dict[str, str]:
        return {lang: str(node[lang]) for lang in LANGUAGES}

    def _opt_text(self, d, key):
        return self._text(d[key]) if key in d else None

    def _filled_text(self, d, key) -> dict[str, str] | None:
        """A text of the game's own (tagline, objective) with its {expression} values filled in."""
        return {lang: self._fill(d[key][lang]) for lang in LANGUAGES} if key in d else None

    def _variant(self, node, where: list) -> dict[str, str]:
        """A text, picked by an option value if it varies, with {expression} filled in."""
        if "by_option" in node:
            opt = str(node["by_option"])
            if opt not in self.options:
                self.fail("unknown option '{name}'", node.value_pos["by_option"], did_you_mean(opt, self.options), name=opt)
                return {lang: "" for lang in LANGUAGES}
            option = self.options[opt]
            if option.type == "number":
                self.fail("texts cannot vary by the number option '{option}'; use {text} in the text",
                          node.value_pos["by_option"], option=opt, text="{option.%s}" % opt)
                return {lang: "" for lang in LANGUAGES}
            choices = option.choices or {"true": None, "false": None}  # a true/false option
            for c in choices:
                if c not in node["cases"]:
                    self.fail("no text for {option}={value}", node.value_pos["cases"], option=opt, value=c)
            for c in node["cases"]:
                if c not in choices:
                    self.fail("option '{option}' has no value '{value}'", node["cases"].key_pos[c], did_you_mean(c, choices),
                              option=opt, value=c)
            value = self.values[opt]
            node = node["cases"].get(str(value).lower() if isinstance(value, bool) else str(value))
            if node is None:
                return {lang: "" for lang in LANGUAGES}
        return {lang: self._fill(node[lang]) for lang in LANGUAGES}

    def _fill(self, text: Text) -> str:
        def repl(match: re.Match) -> str:
            sub = text.slice(match.start(1), match.end(1))
            c = self._compile(sub, ("number", "string", "bool"), set(), Message("a value in a text"))
            return str(c(Context())) if c else "?"
        return re.sub(r"\{([^{}]+)\}", repl, str(text))

    # options -------------------------------------------------------------
    def _options(self) -> dict[str, Option]:
        out = {}
        for oid, o in self.data.get("options", {}).items():
            default, choices = o["default"], o.get("choices")
            if isinstance(default, float):
                self.fail("option '{option}' must default to a word, a whole number or true/false", o.value_pos["default"],
                          option=oid)
            if choices is not None and str(default) not in choices:
                self.fail("the default '{default}' of option '{option}' is not one of its choices",
                          o.value_pos["default"], did_you_mean(str(default), choices), default=default, option=oid)
            if isinstance(default, str) and choices is None:
                yes_no = str(default).lower() in ("yes", "no", "on", "off", "y", "n")
                self.fail("option '{option}' defaults to the word '{default}', so it needs 'choices'",
                          o.value_pos["default"], "a true/false option defaults to true or false" if yes_no else None,
                          option=oid, default=default)
            out[oid] = Option(oid, self._text(o["name"]), self._opt_text(o, "description"), default,
                              {k: self._text(v) for k, v in choices.items()} if choices else None,
                              o.get("min"), o.get("max"))
        return out

    def _option_values(self, options: dict[str, Option]) -> dict[str, Any]:
        values = {k: o.default for k, o in options.items()}
        for key, raw in self.chosen.items():
            if key not in options:
                raise UsageError("unknown option '{option}'", did_you_mean(key, options)
                                 or (Message("options: {names}", {"names": ", ".join(f"'{o}'" for o in options)}) if options
                                     else "this game has no options"), option=key)
            values[key] = parse_option_value(options[key], raw)
        return values

    # sheet ---------------------------------------------------------------
    def _dice_groups(self) -> tuple[DiceGroup, ...]:
        """The groups of dice that differ (`dice: {groups: [...]}`); () for plain dice."""
        dice = self.data["dice"]
        if "groups" not in dice:
            return ()
        out, seen = [], set()
        for g in dice["groups"]:
            gid = str(g["id"])
            if gid in seen:
                self.fail("two groups of dice are called '{group}'", g.value_pos["id"], group=gid)
            seen.add(gid)
            out.append(DiceGroup(gid, self._text(g["name"]) if "name" in g else None, int(g["count"]),
                                 int(g["faces"]), str(g["colour"]) if "colour" in g else None, g.pos))
        self.groups = tuple(out)
        return self.groups

    def _sections(self) -> list[Section]:
        out = []
        for s in self.data["sections"]:
            out.append(Section(str(s["id"]), self._text(s["name"]), tuple(str(b["id"]) for b in s["boxes"]),
                               self._opt_text(s, "total"), bool(s.get("counts", True)), str(s.get("order", "free"))))
        return out

    def _check_names(self, sections: list[Section]) -> None:
        seen: dict[str, str] = {}

        def claim(name: str, what: str, pos: Pos) -> None:
            if name in seen:
                self.fail("{this} has the same name as {that}", pos, this=Message(_NAMED[what], {"name": name}),
                          that=seen[name])
            else:
                seen[name] = Message(_THE_NAMED[what], {"name": name})

        from .dsl.builtins import FUNCTIONS, VARIABLES
        for name in list(VARIABLES) + ["option", "counter"]:
            seen[name] = Message(_THE_NAMED["built-in name"], {"name": name})
        for name in FUNCTIONS:
            seen[name] = Message(_THE_NAMED["built-in function"], {"name": name})
        for s in self.data["sections"]:
            claim(str(s["id"]), "section", s.value_pos["id"])
            for b in s["boxes"]:
                claim(str(b["id"]), "box", b.value_pos["id"])
        for name in self.data.get("define", {}):
            claim(name, "definition", self.data["define"].key_pos[name])

    def _as_text(self, value, pos: Pos | None) -> Text:
        """An expression as positioned text, also when YAML gave a bare number or true/false."""
        if isinstance(value, Text):
            return value
        text = Text(str(value).lower() if isinstance(value, bool) else str(value))
        text.pos, text.raw = pos or self.data.pos, str(text)
        return text

    def _compile(self, text, expect, allowed: set[str], what: str, pos: Pos | None = None) -> Compiled | None:
        text = self._as_text(text, pos)
        try:
            return self.compiler.compile(text, expect, allowed, what)
        except RulebookError as exc:
            self.errors.append(exc)
            return None

    def _boxes(self, sections) -> dict[str, Box]:
        out = {}
        n, faces = self.n_dice, self.faces
        spec = tuple((g.count, g.faces) for g in self.groups) or ((n, faces),)
        for s in self.data["sections"]:
            for b in s["boxes"]:
                score = self._compile(b["score"], "number", ALL_DEPS | {"counter"}, Message("the score of box '{box}'", {"box": str(b["id"])}),
                                      b.value_pos["score"])
                example = tuple(b["example"]) if "example" in b else None
                if example is not None and len(spec) > 1 and canonical(example, spec) is None:
                    self.fail("an example needs one die of each group, group after group, each within its faces",
                              b.value_pos["example"])
                elif example is not None and (len(example) != n or any(not 1 <= x <= faces for x in example)):
                    self.fail("an example needs {count} dice with faces 1 to {faces}", b.value_pos["example"], count=n, faces=faces)
                out[str(b["id"])] = Box(str(b["id"]), str(s["id"]), self._text(b["name"]),
                                        self._variant(b["rule"], []), score, example, b.pos,
                                        int(b.get("uses", 1)))
        return out

    def _bonuses(self, sections) -> list[Bonus]:
        out, ids = [], set()
        section_ids = [s.id for s in sections]
        for b in self.data.get("bonuses", []):
            bid = str(b["id"])
            if bid in ids:
                self.fail("two bonuses are called '{bonus}'", b.value_pos["id"], bonus=bid)
            ids.add(bid)
            if "section" in b and b["section"] not in section_ids:
                self.fail("unknown section '{section}'", b.value_pos["section"], did_you_mean(str(b["section"]), section_ids),
                          section=str(b["section"]))
            if "only_if" in b:  # a variant's row: present only for the options that say so
                present = self._compile(b["only_if"], "bool", set(), Message("the only_if of bonus '{bonus}'", {"bonus": bid}),
                                        b.value_pos["only_if"])
                skip = present is not None and not present(Context())
            else:
                skip = False
            allowed = {"sheet", "counter"} if b["when"] == "end" else ALL_DEPS | {"counter"}
            points = self._compile(b["points"], "number", allowed, Message("the points of bonus '{bonus}'", {"bonus": bid}), b.value_pos["points"])
            progress = None
            if "progress" in b:
                v = self._compile(b["progress"]["value"], "number", {"sheet"}, Message("a progress value"))
                g = self._compile(b["progress"]["goal"], "number", {"sheet"}, Message("a progress goal"))
                progress = (v, g) if v and g else None
            per_column = bool(b.get("per_column", False))
            if per_column and (b["when"] != "end" or "columns" not in self.data):
                self.fail("only an end bonus on a sheet with columns can be scored per column", b.key_pos["per_column"])
            if skip:
                continue  # checked, but not part of the sheet for these options
            out.append(Bonus(bid, self._text(b["name"]), str(b["section"]) if "section" in b else None,
                             str(b["when"]), points, self._variant(b["rule"], []), progress, per_column))
        return out


def counters_read(node) -> set[str]:
    """The counters an expression reads, through the definitions it uses."""
    found = set()
    for n in node.walk():
        if n.op == "counter":
            found.add(n.value)
        elif getattr(n, "definition", None) is not None:
            found |= counters_read(n.definition)
    return found
