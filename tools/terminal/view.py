"""The terminal's view of a game, drawn with rich: dice, rolls left, score sheets, events."""
from __future__ import annotations

from typing import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ...interpreter.engine.actions import Announce, Keep, Roll, RollOn, Stop, Write
from ...interpreter.model.errors import RulebookError
from ...interpreter.engine.state import GameState
from ..documents.sheetlayout import sheet_layout
from ..i18n import translator
from .names import announce_column, target_name


class View:
    """Prints a game for people in one language."""

    def __init__(self, lang: str, console: Console | None = None):
        self.lang = lang
        self.t = translator(lang)
        self.console = console or Console(highlight=False, markup=False)
        self.kept: tuple[int, ...] = ()  # the dice kept before the last roll, shown on the board
        # paging (interactive play): the terminal's height, how to wait for Enter, the computer seats,
        # and the lines printed since the player last typed (of them, the computers' moves)
        self.height: int | None = None
        self.wait: Callable[[str], object] = lambda text: input(text)
        self.computers: set[int] = set()
        self.since_input = self.computer_lines = 0

    def page(self, height: int, computers: set[int], wait: Callable[[str], object] | None = None) -> None:
        """Wait for Enter before the computers' moves would scroll out of a terminal of `height` lines:
        before more lines than fit, and before a board that would push their last moves away."""
        self.height, self.computers = max(height, 3), computers
        if wait is not None:
            self.wait = wait

    def typed(self) -> None:
        """The player typed a line: what is on the screen from here on is new."""
        self.since_input = self.computer_lines = 0

    def _pause(self, text: str) -> None:
        try:
            self.wait(text)
        except EOFError:
            pass
        self.typed()

    def fit(self, draw: Callable[["View"], None]) -> None:
        """Before drawing a board (or the final sheet) after computer moves: if together they do not
        fit the terminal, wait for Enter first, so the moves can be read."""
        if self.height is None or not self.computer_lines:
            return
        if self.since_input + self.drawn_lines(draw) + 1 > self.height:
            self._pause(self._("— press Enter to see the board —"))

    def drawn_lines(self, draw: Callable[["View"], None]) -> int:
        """How many lines `draw(view)` prints at this terminal's width."""
        import io
        probe = View(self.lang, Console(file=io.StringIO(), width=self.console.width, color_system=None,
                                        highlight=False, markup=False))
        probe.kept = self.kept
        draw(probe)
        return probe.console.file.getvalue().count("\n")

    def _(self, msg: str, **kw) -> str:
        return self.t.gettext(msg).format(**kw)

    def box_name(self, state: GameState, box: str) -> str:
        """The name of a box, or of a write target (a box in a column: 'Ones, Down')."""
        return target_name(state.model, box, self.lang)

    def error(self, exc: RulebookError) -> None:
        """A move that was not allowed, in red, without the command-line prefix."""
        hint = exc.hint_msg.render(self.t.gettext, self.lang) if exc.hint_msg else None
        self.console.print(Text(exc.msg.render(self.t.gettext, self.lang) + (f" ({hint})" if hint else ""), style="red"))

    # events --------------------------------------------------------------------
    def event(self, ev, state: GameState) -> None:
        """One line for a move as it happens (everyone's rolls, keeps and choices are shown)."""
        a = ev.action
        if isinstance(a, Keep):
            self.kept = a.dice
        elif isinstance(a, Roll) and len(a.faces) == len(state.dice) or not isinstance(a, Roll):
            self.kept = ()
        line = self.describe(ev, state)
        lines = 1 + len(line) // max(self.console.width, 1)
        if self.height is not None and self.since_input + lines > self.height - 1:
            self._pause(self._("— press Enter for more —"))
        self.console.print(line, markup=False)
        self.since_input += lines
        if ev.player in self.computers:
            self.computer_lines += lines

    def describe(self, ev, state: GameState) -> str:
        who = state.players[ev.player]
        a = ev.action
        if isinstance(a, Roll) and len(a.faces) == len(state.dice):
            return self._("{player} rolls {dice}", player=who, dice=_dice(state.dice))
        if isinstance(a, Roll):
            return self._("{player} rolls {faces} → {dice}", player=who, faces=_dice(a.faces), dice=_dice(state.dice))
        if isinstance(a, Keep) and not a.dice:
            return self._("{player} rolls all dice again", player=who)
        if isinstance(a, Keep):
            return self._("{player} keeps {dice}", player=who, dice=_dice(a.dice))
        if isinstance(a, Stop) and getattr(ev, "passed", False):
            return self._("{player} passes", player=who)
        if isinstance(a, RollOn):
            return self._("{player} rolls on", player=who)
        if isinstance(a, Stop) and getattr(ev, "banked", False):
            return self._("{player} banks", player=who)
        if isinstance(a, Stop):
            return self._("{player} stops rolling", player=who)
        if isinstance(a, Announce) and a.box is None:
            return self._("{player} announces nothing", player=who)
        if isinstance(a, Announce):
            column = announce_column(state.model, a.box, self.lang)
            box = state.model.boxes[state.model.targets[a.box].box].name[self.lang]
            if column is None:
                return self._("{player} announces {box}", player=who, box=box)
            return self._("{player} announces {box} in the {column} column", player=who, box=box, column=column)
        assert isinstance(a, Write)
        line = self.t.ngettext("{player} writes {points} point in {box}", "{player} writes {points} points in {box}",
                               ev.points).format(player=who, points=ev.points, box=self.box_name(state, a.box))
        if ev.bonus:
            line += " " + self._("(+{bonus} bonus)", bonus=ev.bonus)
        if state.is_terminal() and state.ended_by == ev.player:
            line += " — " + self._("and ends the game at once")
        return line

    # the board -----------------------------------------------------------------
    def board(self, state: GameState) -> None:
        model = state.model
        rnd = round_of(state)
        head = f"{model.name[self.lang]} — " + self._("Round {n} of {total}", n=rnd[0], total=rnd[1])
        head += " — " + self._("{player}'s turn", player=state.players[state.player])
        self.console.rule(Text(head))
        self.console.print(self.sheet(state))
        if state.dice and model.grouped:  # dice that differ: each group by name, in its colour
            self.console.print(self.group_dice(state))
            if state.actor != state.player:
                self.console.print(self._("{player} decides on this roll now.", player=state.players[state.actor]))
        elif state.dice:
            dice = Text(self._("Dice:") + " ")
            kept = list(self.kept)
            for d in state.dice:  # the dice kept from the roll before are marked
                if d in kept:
                    kept.remove(d)
                    dice.append(f"[{d}]", style="bold")
                else:
                    dice.append(f" {d} ", style="bold reverse")
                dice.append(" ")
            dice.append("   " + self._("(positions 1 to {n}, left to right)", n=len(state.dice)), style="dim")
            if self.kept:
                dice.append("   " + self._("[ ] kept: {dice}", dice=_dice(self.kept)), style="dim")
            self.console.print(dice)
        step = state.step()
        if step is not None and step.kind == "keep":
            left = state.rolls_left()
            self.console.print(self.t.ngettext("{n} roll left", "{n} rolls left", left).format(n=left)
                               + "   " + self._("keep dice: keep 2 2 4 or pos 1 2 5; roll, stop, write BOX, help"))
        elif step is not None and step.kind == "announce":
            self.console.print(self._("Announce a box (its name or number) for this turn's dice, or 'announce none'."))
        elif step is not None and step.kind == "write":
            if state.announced is not None:
                column = announce_column(model, state.announced, self.lang)
                box = model.boxes[model.targets[state.announced].box].name[self.lang]
                self.console.print(self._("You announced {box}: write the dice there.", box=box) if column is None
                                   else self._("You announced {box} in the {column} column: write the dice there.",
                                               box=box, column=column))
            self.console.print(self._("Write the dice into a box: its name or its number (the green ones may take them)."))

    def group_dice(self, state: GameState) -> Text:
        """The dice group by group: “White dice: 3 5   Red die: 2 …”, each die in its group's colour."""
        from ...interpreter.model.dice import group_slices
        line = Text()
        for group, where in zip(state.model.dice_groups, group_slices(state.model.groups)):
            line.append((group.name[self.lang] if group.name else group.id) + ": ")
            for d in state.dice[where]:
                line.append(f" {d} ", style=_die_style(group.colour))
                line.append(" ")
            line.append("  ")
        return line

    def sheet(self, state: GameState) -> Table:
        """Every player's sheet; for the player to move, what each open box would score now."""
        model = state.model
        me = state.actor
        would = {}
        if not state.is_terminal() and state.dice and len(state.dice) == model.n_dice:
            step = state.step()
            write = step if step.kind == "write" else next((s for s in model.flow.walk() if s.kind == "write"), None)
            would = {c.box: c for c, _ in state.scorer.write_map(state.dice, state.sheets[me], state.roll_number, write,
                                                                   state.announced,
                                                                   state.counters_of(me)).values()}
        table = Table(show_lines=False, header_style="bold")
        table.add_column("#", justify="right", style="dim")
        table.add_column(self._("Box"))
        for p, name in enumerate(state.players):
            table.add_column(Text(name, style="bold underline" if p == me and not state.is_terminal() else ""),
                             justify="right")
        totals = [state.totals(p) for p in range(len(state.players))]
        progress = [state.scorer.progress(state.sheets[p]) for p in range(len(state.players))]
        number = 0
        layout = {s.id: s for s in sheet_layout(model).sections}  # the one sheet layout every reader draws
        for section in model.sections:
            heading = section.name[self.lang] if layout[section.id].counts else \
                self._("{section} (not added to the grand total)", section=section.name[self.lang])
            table.add_row("", Text(heading, style="bold"), *[""] * len(state.players))
            for box in [t for row in layout[section.id].rows for t in row.targets if t]:
                number += 1
                cells = []
                target = model.targets[box]
                for p in range(len(state.players)):
                    entries = [str(state.sheets[p][c]) for c in target.cells if c in state.sheets[p]]
                    if entries and not (p == me and box in would):
                        cells.append(" ".join(entries))
                    elif entries:
                        c = would[box]
                        cells.append(Text(" ".join(entries) + f" ({c.points}{'+' + str(c.bonus) if c.bonus else ''})",
                                          style="green"))
                    elif p == me and box in would:
                        c = would[box]
                        cells.append(Text(f"({c.points}{'+' + str(c.bonus) if c.bonus else ''})", style="green"))
                    else:
                        cells.append("")
                table.add_row(str(number), self.box_name(state, box), *cells)
            total = section.total[self.lang] if section.total else self._("Total {section}", section=section.name[self.lang])
            table.add_row("", Text(total, style="italic"),
                          *[str(t[section.id]) for t in totals])
            for bonus in model.bonuses:
                if bonus.section == section.id:
                    cells = []
                    for p in range(len(state.players)):
                        cell = str(totals[p][bonus.id])
                        if bonus.id in progress[p]:
                            value, goal = progress[p][bonus.id]
                            cell = f"{cell}  ({value}/{goal})"
                        cells.append(cell)
                    table.add_row("", bonus.name[self.lang], *cells)
        for bonus in model.bonuses:
            if bonus.section is None:
                table.add_row("", bonus.name[self.lang], *[str(t[bonus.id]) for t in totals])
        table.add_row("", Text(self._("Grand total"), style="bold"),
                      *[Text(str(t["total"]), style="bold") for t in totals])
        if model.ranking is not None:  # the game's own final score (and what breaks ties)
            finals = state.final_scores()
            table.add_row("", Text(model.ranking.name[self.lang], style="bold"),
                          *[Text(str(f[0]), style="bold") for f in finals])
        for counter in model.counters:  # numbers that outlive a turn: each player's, or the game's
            values = ([str(state.counter_values[p][counter.id]) for p in range(len(state.players))]
                      if counter.per != "game" else [str(state.game_counters[counter.id])] * len(state.players))
            table.add_row("", Text(counter.name[self.lang], style="italic"), *values)
        return table

    def final(self, state: GameState) -> None:
        self.console.rule(Text(self._("Game over")))
        self.console.print(self.sheet(state))
        for line in self.ranking(state):
            self.console.print(line, markup=False)

    def ranking(self, state: GameState) -> list[str]:
        lines = []
        if state.ended_by is not None and state.ranking()[0][1] == state.players[state.ended_by] \
                and state.model.ahead_if is not None:  # the ranking put them first (a sudden win)
            lines.append(self._("{player} ended the game at once and wins.", player=state.players[state.ended_by]))
        for rank, name, total in state.ranking():
            lines.append(self.t.ngettext("{rank}. {player}: {total} point", "{rank}. {player}: {total} points",
                                         total).format(rank=rank, player=name, total=total))
        return lines


def _die_style(colour: str | None) -> str:
    """A die drawn in its group's colour (a colour the terminal does not know: plain)."""
    from rich.color import Color, ColorParseError
    if colour:
        for name in (colour, colour + "1"):  # rich calls gold "gold1"
            try:
                Color.parse(name)
                return f"bold reverse {name}"
            except ColorParseError:
                pass
    return "bold reverse"


def _dice(dice) -> str:
    return " ".join(map(str, dice)) or "–"


def round_of(state: GameState) -> tuple[int, int]:
    """(current round, number of rounds) from the repeat around the players' turns."""
    return state.round()
