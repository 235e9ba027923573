"""Building the phase tree from YAML: each step with its kind, rules and checks, and the order a turn's steps must keep."""
from __future__ import annotations


from .dsl.compiler import Compiled, Context
from .errors import Either, Message
from .frozen import Step
from .yamlsource import Node

ALL_DEPS = {"dice", "sheet", "target", "turn"}  # what an expression may depend on
MAX_REPEAT = 1000


class FlowBuilder:
    """Building the phase tree from YAML: each step with its kind, rules and checks, and the order a turn's steps must keep."""

    # flow ----------------------------------------------------------------
    def _step(self, node: Node, where: list) -> Step:
        kind, sid = str(node["kind"]), str(node["id"])
        if sid in self.step_ids:
            self.fail("two steps are called '{step}' (the first is at line {line})", node.value_pos["id"], step=sid,
                      line=self.step_ids[sid].line)
        self.step_ids.setdefault(sid, node.value_pos["id"])
        times = None
        if kind == "repeat" and "times" in node:  # without times: until it is left (a stop, bank, bust, the end)
            c = self._compile(node["times"], "number", set(), Message("the 'times' of step '{step}'", {"step": str(node["id"])}),
                              node.value_pos["times"])
            times = c(Context()) if c else 1
            if c and not 1 <= times <= MAX_REPEAT:
                self.fail("repeat '{step}' must run 1 to {most} times, not {times}", node.value_pos["times"], step=str(node["id"]),
                          most=MAX_REPEAT, times=times)
                times = 1
        elif "times" in node:
            self.fail("only a repeat step has 'times' (this is a {kind} step)", node.key_pos["times"], kind=kind)
        if kind not in ("repeat", "each_player") and "steps" in node:
            self.fail("a {kind} step cannot contain steps", node.key_pos["steps"], kind=kind)
        allowed = condition = None
        if kind == "write" and "allowed" in node:
            allowed = self._compile(node["allowed"], "bool", ALL_DEPS | {"counter"}, Message("a write rule"), node.value_pos["allowed"])
        if kind == "keep" and "allowed" in node:  # cached per (roll, dice set aside): it reads nothing else
            allowed = self._compile(node["allowed"], "bool", {"dice", "keep"}, Message("a keep rule"), node.value_pos["allowed"])
        if kind == "bank" and "allowed" in node:
            allowed = self._compile(node["allowed"], "bool", {"dice", "sheet", "turn", "counter", "keep"},
                                    Message("a bank rule"), node.value_pos["allowed"])
        bust = None
        if kind == "roll" and "bust" in node:
            bust = self._compile(node["bust"], "bool", {"dice", "sheet", "turn", "counter", "keep"},
                                 Message("a bust condition"), node.value_pos["bust"])
        if kind == "repeat" and "while" in node:
            condition = self._compile(node["while"], "bool", {"dice", "sheet", "turn", "announce", "counter"},
                                      Message("a while condition"), node.value_pos["while"])
            if condition is not None and not condition.deps and condition(Context()) is True:
                condition = None  # the chosen options make it always hold: a plain repeat
        for key, owners in (("dice", ("roll",)), ("can_stop", ("keep",)), ("allowed", ("write", "keep", "bank")),
                            ("rule", ("write", "keep", "repeat", "bank", "roll")), ("locked", ("keep",)), ("while", ("repeat",)),
                            ("optional", ("announce", "write")), ("by", ("write",)), ("bust", ("roll",)),
                            ("hot_dice", ("roll",))):
            if key in node and kind not in owners:
                self.fail("'{key}' belongs to a {owner} step, not a {kind} step", node.key_pos[key], key=key,
                          owner=Either(owners), kind=kind)
        children = tuple(self._step(s, where + ["steps", i]) for i, s in enumerate(node.get("steps", [])))
        if "otherwise" in node and kind != "write":
            self.fail("'otherwise' belongs to a write step, not a {kind} step", node.key_pos["otherwise"], kind=kind)
        effects = ()
        if "effects" in node:
            if kind not in ("write", "roll", "keep", "bank"):
                self.fail("'effects' belong to a write, roll, keep or bank step, not a {kind} step", node.key_pos["effects"], kind=kind)
            else:
                effects = self._effects(node["effects"], kind)
        return Step(str(node["id"]), kind, self._text(node["name"]), children, times,
                    str(node["dice"]) if "dice" in node else None, bool(node.get("can_stop", False)),
                    allowed, self._variant(node["rule"], []) if "rule" in node else None, node.pos,
                    str(node["otherwise"]) if "otherwise" in node else None,
                    node.value_pos.get("times") if kind == "repeat" else None,
                    bool(node.get("locked", False)) and kind == "keep", condition,
                    self._optional(node, kind), effects, str(node.get("by", "active")),
                    self._pass_rule(node, kind), bust, bool(node.get("hot_dice", False)) and kind == "roll")

    def _optional(self, node: Node, kind: str) -> bool:
        """announce or write: the player may also choose nothing (`optional: true`, or a condition)."""
        value = node.get("optional", False)
        return kind in ("announce", "write") and (value is True or (kind == "write" and isinstance(value, str)))

    def _pass_rule(self, node: Node, kind: str) -> Compiled | None:
        """A write's `optional: EXPR`: when the player may write nothing (the dice, the sheet, counters)."""
        value = node.get("optional")
        if kind != "write" or not isinstance(value, str):
            return None
        return self._compile(value, "bool", (ALL_DEPS | {"counter"}) - {"target"}, Message("an optional condition"),
                             node.value_pos["optional"])

    def _check_flow(self, flow: Step) -> None:
        kinds = [s.kind for s in flow.walk()]
        if "write" not in kinds and "bank" not in kinds:  # a game scored by counters banks them
            self.fail("the flow never writes into a box, so the game cannot progress", flow.pos)
        if kinds.count("each_player") != 1:
            self.fail("the flow needs exactly one each_player step (whose turn it is)", flow.pos)
        self._check_order(flow, rolled=False, inside_player=False)

    def _check_order(self, step: Step, rolled: bool, inside_player: bool) -> bool:
        """Dice must be rolled before they are kept or written; decisions need a player."""
        if step.kind == "roll":
            if step.dice == "unkept" and not rolled and not (step.hot_dice or step.bust is not None):
                # (a push-your-luck roll of the unkept dice may open the turn: nothing is kept yet, all dice roll)
                self.fail("step '{step}' rolls the unkept dice before any dice were rolled", step.pos, step=step.id)
            return True
        if step.kind in ("announce", "bank"):
            if not inside_player:
                self.fail("step '{step}' is a player's decision outside the each_player step", step.pos, step=step.id)
            return rolled
        if step.kind in ("keep", "write"):
            if not inside_player:
                self.fail("step '{step}' is a player's decision outside the each_player step", step.pos, step=step.id)
            if not rolled:
                self.fail("step '{step}' uses the dice before they are rolled", step.pos, step=step.id)
            return rolled
        inner = inside_player or step.kind == "each_player"
        for child in step.steps:
            rolled = self._check_order(child, rolled, inner)
        return rolled
