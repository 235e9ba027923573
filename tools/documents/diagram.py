"""Rule diagrams drawn from the model's phase tree and score sheet (pure: Model + language → Digraph).

The flow diagram walks `Model.flow`, the same tree the engine runs: loops become clusters that
carry their bound, chance steps and decisions become nodes in the look of their role, and arrows
go back to a loop's first step, out of a loop, and out of it early when a decision may stop.
The scoring diagram draws the score sheet: sections with their boxes and rules, the bonuses, the
write rule (already resolved for the chosen options) and how the total decides the winner.

Every word comes from the model's texts or from `describe` (the one source of step texts).
"""
from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

import graphviz

from ...interpreter.model.errors import RulebookError
from ...interpreter.model.frozen import Model, Step
from ...interpreter.model.scoring import Scorer
from .describe import (ROLE_STYLES, counter_sentence, edge_text, end_text, kind_of, phrase, step_label,
                       step_sentence)

FONT = "Helvetica,Arial,sans-serif"
WRAP = 36  # characters per line in a node
EDGE_COLOR = "#475569"
BACK_COLOR = "#2563eb"  # arrows back to a loop's start, in the loop colour
STOP_COLOR = "#15803d"  # a decision leaving its loop early, in the decision colour


def diagram(model: Model, lang: str, what: str = "flow") -> graphviz.Digraph:
    """The flow diagram (`what='flow'`) or the scoring diagram (`what='scoring'`)."""
    if what == "flow":
        return flow_diagram(model, lang)
    if what == "scoring":
        return scoring_diagram(model, lang)
    raise ValueError(f"no diagram '{what}'")


# shared ---------------------------------------------------------------------------------------

def node_id(step: Step) -> str:
    """The SVG id of a step's node or loop box: what a rule page's step list links to."""
    return f"node-{step.id}"


def _tooltip(text: str) -> str:
    return text.replace("\\", "\\\\")


def svg_titles(model: Model, lang: str) -> dict[str, str]:
    """What each graphviz object name of the model's diagrams is called in `lang` (for <title>s)."""
    names = {f"step_{s.id}": s.name[lang] for s in model.flow.walk()}
    names |= {f"cluster_{s.id}": s.name[lang] for s in model.flow.walk()}
    names |= {f"section_{s.id}": s.name[lang] for s in model.sections}
    names |= {f"bonus_{b.id}": b.name[lang] for b in model.bonuses}
    names |= {f"counter_{c.id}": c.name[lang] for c in model.counters}
    if model.grouped:  # dice that differ: the node naming the groups
        names["dice_groups"] = ", ".join(g.name[lang] if g.name else g.id for g in model.dice_groups)
    names |= {"start": "▶", "end": "■", "grand_total": phrase("grand_total", lang, bonuses=bool(model.bonuses)),
              f"{model.id}_flow": model.name[lang], f"{model.id}_scoring": phrase("sheet", lang, game=model.name[lang]),
              "sheet": phrase("sheet", lang, game=model.name[lang])}
    return names


def localize_svg(svg: str, model: Model, lang: str) -> str:
    """Graphviz names every <title> (the browser's tooltip and tab title) after the object's id:
    name them in the reader's language instead; an arrow 'a->b' becomes 'A → B'."""
    names = svg_titles(model, lang)

    def name(raw: str) -> str:
        raw = html.unescape(raw).split(":")[0]
        return names.get(raw, raw)

    def title(match) -> str:
        raw = html.unescape(match.group(1))
        if "->" in raw:
            tail, head = raw.split("->", 1)
            text = f"{name(tail)} → {name(head)}"
        else:
            text = name(raw)
        return f"<title>{html.escape(text, quote=False)}</title>"
    return re.sub(r"<title>([^<]*)</title>", title, svg)


def render_svg(model: Model, lang: str, what: str = "flow") -> str:
    """The diagram as SVG text, its titles in `lang` (graphviz.ExecutableNotFound without dot)."""
    return localize_svg(diagram(model, lang, what).pipe(format="svg", encoding="utf-8"), model, lang)


def _graph(model: Model, lang: str, name: str, title: str) -> graphviz.Digraph:
    g = graphviz.Digraph(name=name)
    g.attr("graph", rankdir="TB", fontname=FONT, fontsize="18", labelloc="t", labeljust="c",
           label=_html(title, _option_lines(model, lang), title_size=20, width=80), nodesep="0.35", ranksep="0.45",
           newrank="true", compound="true", bgcolor="white", pad="0.3")
    g.attr("node", fontname=FONT, fontsize="12", margin="0.18,0.08")
    g.attr("edge", fontname=FONT, fontsize="11", color=EDGE_COLOR, fontcolor="#334155", arrowsize="0.8")
    return g


def _style(role: str) -> dict[str, str]:
    s = ROLE_STYLES[role]
    return {"shape": s.shape, "style": s.style, "fillcolor": s.fillcolor, "color": s.color, "fontcolor": s.fontcolor}


def _wrap(text: str, width: int = WRAP) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        out.extend(textwrap.wrap(line, width, break_on_hyphens=False) or [""])
    return out


def _html(title: str, lines: list[str] = (), small: list[str] = (), title_size: int | None = None,
          width: int = WRAP) -> str:
    """An HTML-like graphviz label: a bold title, then wrapped lines, then smaller grey lines."""
    size = f' point-size="{title_size}"' if title_size else ""

    def run(text: str, opening: str, closing: str = "</font>") -> list[str]:
        # graphviz rejects an empty <font></font>: an empty line is just a line break
        return [f"{opening}{html.escape(line)}{closing}" if line.strip() else "" for line in _wrap(text, width)]
    parts = run(title, f"<font{size}><b>", "</b></font>") if title else []
    for text in lines:
        parts += run(text, '<font point-size="11">')
    for text in small:
        parts += run(text, '<font point-size="10" color="#64748b">')
    return "<" + "<br/>".join(parts) + ">" if any(parts) else '" "'



def _option_lines(model: Model, lang: str) -> list[str]:
    """The options chosen away from their defaults, so two diagrams of one model can be told apart."""
    lines = []
    for oid, value in model.option_values.items():
        option = model.options[oid]
        if value == option.default:
            continue
        if option.choices:
            shown = option.choices[str(value)][lang]
        elif isinstance(value, bool):
            shown = phrase("yes" if value else "no", lang)
        else:
            shown = str(value)
        lines.append(phrase("option", lang, option=option.name[lang], value=shown))
    return lines


# flow -----------------------------------------------------------------------------------------

@dataclass
class _Exit:
    node: str
    label: str = ""
    color: str = EDGE_COLOR


@dataclass
class _Entry:
    node: str
    cluster: str = ""  # the outermost loop this node is the first step of


@dataclass
class _Flow:
    model: Model
    lang: str
    edges: list[tuple[str, str, dict]] = field(default_factory=list)

    def edge(self, tail: _Exit, head: _Entry, **attrs) -> None:
        attrs = {"label": tail.label, "color": tail.color, "fontcolor": tail.color, "lhead": head.cluster} | attrs
        self.edges.append((tail.node, head.node, {k: v for k, v in attrs.items() if v}))

    def step(self, graph: graphviz.Digraph, step: Step) -> tuple[_Entry, list[_Exit], list[_Exit]]:
        """Draw a step; returns how to enter it, the ways out of it, and early ways out of its loop."""
        kind = kind_of(step)
        if kind.role == "loop":
            return self.loop(graph, step)
        node = f"step_{step.id}"
        graph.node(node, _html(step.name[self.lang], [step_label(step, self.model, self.lang)]), **_style(kind.role),
                   id=node_id(step), tooltip=_tooltip(step_sentence(step, self.model, self.lang) or step.name[self.lang]))
        stop = edge_text(step, self.model, self.lang, "stop")
        return _Entry(node), [_Exit(node)], [_Exit(node, stop, STOP_COLOR)] if stop else []

    def loop(self, graph: graphviz.Digraph, step: Step) -> tuple[_Entry, list[_Exit], list[_Exit]]:
        s = ROLE_STYLES["loop"]
        cluster = f"cluster_{step.id}"
        with graph.subgraph(name=cluster) as c:
            # a line break in a cluster's plain-text label is DOT's \n escape, not a newline in the source
            c.attr(label=step_label(step, self.model, self.lang).replace("\n", "\\n"), style=s.style, color=s.color, fillcolor=s.fillcolor,
                   fontcolor=s.fontcolor, fontname=FONT, fontsize="13", labeljust="l", margin="14", penwidth="1.4",
                   id=node_id(step), tooltip=_tooltip(step_sentence(step, self.model, self.lang) or step.name[self.lang]))
            entry, pending, breaks = None, [], []
            for child in step.steps:
                first, exits, stops = self.step(c, child)
                for tail in pending:
                    self.edge(tail, first)
                entry = entry or first
                pending, breaks = exits, breaks + stops
        back = edge_text(step, self.model, self.lang, "back")
        if back:
            for tail in pending:
                self.edge(_Exit(tail.node, back, BACK_COLOR), _Entry(entry.node), constraint="false", style="dashed")
        out = edge_text(step, self.model, self.lang, "exit")
        # arrows into the loop end at its border, so they never cross its label
        return _Entry(entry.node, cluster), [_Exit(t.node, out or t.label, t.color) for t in pending] + breaks, []


def flow_diagram(model: Model, lang: str) -> graphviz.Digraph:
    """The phase tree top to bottom: loops as clusters, chance steps, decisions and the end."""
    g = _graph(model, lang, f"{model.id}_flow", model.name[lang])
    flow = _Flow(model, lang)
    g.node("start", "", shape="circle", style="filled", fillcolor="#111827", color="#111827", width="0.22",
           fixedsize="true")
    entry, exits, stops = flow.step(g, model.flow)
    flow.edge(_Exit("start"), entry)
    g.node("end", _html("", [end_text(model, lang)], width=44), **_style("end"), id="node-end",
           tooltip=_tooltip(end_text(model, lang)))
    for tail in exits + stops:
        flow.edge(tail, _Entry("end"))
    for tail, head, attrs in flow.edges:
        g.edge(tail, head, **attrs)
    if model.grouped:
        _dice_groups(g, model, lang)
    _counters(g, model, lang, {s.id: f"step_{s.id}" for s in model.flow.walk() if s.effects},
              {s.id: (_first_node(s), f"cluster_{s.id}") for s in model.flow.walk()
               if s.condition is not None and _reads_counters(s.condition)})
    return g


def _counters(g: graphviz.Digraph, model: Model, lang: str, changers: dict[str, str],
              readers: dict[str, tuple[str, str | None]]) -> None:
    """Each counter as a cylinder; dashed arrows from the steps that change it (`changers`: step id →
    node) and to what reads it (`readers`: id → (node, cluster the arrow ends at))."""
    look = ROLE_STYLES["counter"]
    for counter in model.counters:
        node = f"counter_{counter.id}"
        g.node(node, _html(counter.name[lang], [phrase("counter", lang, per=counter.per, start=counter.start)]),
               **_style("counter"), tooltip=_tooltip(counter_sentence(counter, lang)))
        for step in model.flow.walk():
            if step.id in changers and any(e.counter == counter.id for e in step.effects):
                g.edge(changers[step.id], node, style="dashed", color=look.color, constraint="false",
                       **({"tailport": "e"} if step.kind != "write" else {}))  # (beside the loop labels above it)
        for _, (head, cluster) in readers.items():
            g.edge(node, head, style="dashed", color=look.color, constraint="false",
                   **({"lhead": cluster} if cluster else {}))


def _dice_groups(g: graphviz.Digraph, model: Model, lang: str) -> None:
    """Dice that differ: one node naming each group (“2 × White dice”) in its colour, with dotted
    arrows to the steps that roll them."""
    from html import escape
    rows = "".join(
        f'<tr><td bgcolor="{escape(grp.colour or "white")}" width="14"> </td>'
        f'<td align="left">{grp.count} × {escape(grp.name[lang] if grp.name else grp.id)}</td></tr>'
        for grp in model.dice_groups)
    g.node("dice_groups", f'<<table border="0" cellspacing="2" cellpadding="2">{rows}</table>>', shape="box",
           style="rounded", color="#6b7280", id="node-dice-groups")
    for step in model.flow.walk():
        if step.kind == "roll":
            g.edge("dice_groups", f"step_{step.id}", style="dotted", color="#6b7280", constraint="false",
                   arrowhead="none")


def _reads_counters(compiled) -> bool:
    return compiled is not None and "counter" in compiled.deps


def _first_node(step: Step) -> str:
    """The node a loop's arrows end at: its first leaf step."""
    leaf = next(s for s in step.walk() if not s.steps)
    return f"step_{leaf.id}"


# scoring --------------------------------------------------------------------------------------

def scoring_diagram(model: Model, lang: str) -> graphviz.Digraph:
    """The score sheet: write rule → sections (a table of boxes each) → totals and bonuses → winner."""
    g = _graph(model, lang, f"{model.id}_scoring", phrase("sheet", lang, game=model.name[lang]))
    scorer = Scorer(model)
    writes = [s for s in model.flow.walk() if s.kind == "write"]
    for step in writes:
        rule = ["", step.rule[lang]] if step.rule and step.rule[lang] else []  # "" leaves a blank line
        g.node(f"step_{step.id}", _html(step.name[lang], [step_label(step, model, lang)] + rule, width=52),
               **_style("decision"))
    with g.subgraph(name="sheet") as row:  # the sections side by side
        row.attr(rank="same")
        for section in model.sections:
            row.node(f"section_{section.id}", _section_table(model, section, scorer, lang), shape="plain")
    for section in model.sections:
        for step in writes:
            g.edge(f"step_{step.id}", f"section_{section.id}")
    from .gamefacts import grand_total_parts
    label = phrase("grand_total", lang, bonuses=bool(model.bonuses)) if len(scorer.counted_sections) == len(model.sections) \
        else phrase("grand_total_of", lang, parts=" + ".join(grand_total_parts(model, lang, scorer)))
    g.node("grand_total", _html(label), **_style("total"))
    for section in model.sections:  # only what the scorer adds up (a section read by bonuses only adds nothing)
        if section.id in scorer.counted_sections:
            g.edge(f"section_{section.id}:total:s", "grand_total")
    for bonus in model.bonuses:
        node = f"bonus_{bonus.id}"
        g.node(node, _html(bonus.name[lang], [bonus.rule[lang]], width=30), **_style("bonus"))
        if bonus.when == "write":
            for step in writes:
                g.edge(f"step_{step.id}", node, label=phrase("on_write", lang))
        else:
            sources = [s.id for s in model.sections if s.id == bonus.section] or [s.id for s in model.sections]
            for source in sources:
                g.edge(f"section_{source}:total:s", node, label=phrase("at_end", lang))
        g.edge(node, "grand_total")
    g.node("end", _html("", [end_text(model, lang)], width=44), **_style("end"))
    g.edge("grand_total", "end")
    readers = {b.id: (f"bonus_{b.id}", None) for b in model.bonuses if _reads_counters(b.points)}
    if model.ranking is not None and _reads_counters(model.ranking.score):
        readers["end"] = ("end", None)
    _counters(g, model, lang, {s.id: f"step_{s.id}" for s in writes if s.effects}, readers)
    return g


ORDER_MARKS = {"down": "↓", "up": "↑", "announced": "!"}  # a column's fill order as a shape: the words are in the write step's note


def _section_table(model: Model, section, scorer: Scorer, lang: str) -> str:
    """A section as a table: its name, one row per box (name, the sheet's cells, rule, example), its total.

    The cells are drawn as the paper sheet has them: one per entry of a box used several times, and a
    column of them per sheet column (headed by its name, its multiplier and an arrow for its fill order)."""
    look, box, total = ROLE_STYLES["section"], ROLE_STYLES["box"], ROLE_STYLES["total"]
    esc = html.escape
    grid = bool(model.columns) or any(model.boxes[b].uses > 1 for b in section.boxes)
    columns = model.columns or (None,)
    span = 3 + (len(columns) if grid else 0)
    rows = [f'<tr><td colspan="{span}" align="left" bgcolor="{look.fillcolor}"><font point-size="14"><b>'
            f'{esc(section.name[lang])}</b></font></td></tr>']
    if model.columns:
        heads = []
        for c in model.columns:
            mult = f"×{c.multiplier}" if c.multiplier != 1 and f"×{c.multiplier}" not in c.name[lang] else ""
            mark = " ".join(x for x in (mult, ORDER_MARKS.get(c.order, "")) if x)
            heads.append(f'<td bgcolor="{box.fillcolor}"><font point-size="11"><b>{esc(c.name[lang])}</b>'
                         f'{"<br/>" + esc(mark) if mark else ""}</font></td>')
        rows.append(f'<tr><td bgcolor="{box.fillcolor}"></td>{"".join(heads)}'
                    f'<td colspan="2" bgcolor="{box.fillcolor}"></td></tr>')
    for box_id in section.boxes:
        b = model.boxes[box_id]
        rule = "<br/>".join(esc(line) for line in _wrap(b.rule[lang], 34))
        example = "".join(f'<font point-size="10" color="#64748b">{esc(x)}</font>' for x in _example(scorer, box_id, lang))
        cells = "".join(_cells(b.uses) for _ in columns) if grid else ""
        rows.append(f'<tr><td port="{box_id}" align="left" bgcolor="{box.fillcolor}"><b>{esc(b.name[lang])}</b></td>'
                    f'{cells}<td align="left" balign="left" bgcolor="{box.fillcolor}"><font point-size="11">{rule}</font></td>'
                    f'<td align="left" bgcolor="{box.fillcolor}">{example}</td></tr>')
    label = esc(section.total[lang] if section.total else phrase("section_total", lang, section=section.name[lang]))
    rows.append(f'<tr><td port="total" colspan="{span}" align="left" bgcolor="{total.fillcolor}"><b>{label}</b></td></tr>')
    return (f'<<table border="1" cellborder="1" cellspacing="0" cellpadding="6" color="{look.color}" '
            f'style="rounded">{"".join(rows)}</table>>')


def _cells(uses: int) -> str:
    """One sheet column of a box: an empty cell per entry it takes."""
    inner = "".join('<td width="14" height="14" fixedsize="true" bgcolor="white"></td>' for _ in range(uses))
    return (f'<td cellpadding="3"><table border="0" cellborder="1" cellspacing="2" cellpadding="0">'
            f'<tr>{inner}</tr></table></td>')


def _example(scorer: Scorer, box_id: str, lang: str) -> list[str]:
    """'e.g. 1 1 3 1 5 → 3': the box's example roll as the turn's last roll, on an empty sheet.

    An example that needs a filled sheet to score (it gives 0 on an empty one) is left out."""
    box = scorer.model.boxes[box_id]
    if not box.example:
        return []
    try:
        points = scorer.points(box_id, box.example, {}, _rolls_per_turn(scorer.model))
    except RulebookError:
        return []
    if points == 0 and "sheet" in box.score.deps:
        return []
    return [phrase("example", lang, dice=" ".join(map(str, box.example)), points=points)]


def _rolls_per_turn(model: Model) -> int:
    """The number of a turn's last roll, as the pages count it (one fact: `gamefacts.rolls_per_turn`)."""
    from .gamefacts import rolls_per_turn
    return rolls_per_turn(model)
