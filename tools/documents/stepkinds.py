"""The kinds of step of the phase tree (repeat, each_player, roll, keep, announce, write, bank, and the end
of the game): each one's role (loop, chance, decision, end), its look in a diagram (`ROLE_STYLES`)
and its templates per language (`steptexts`); and the phrases the diagrams need beyond single steps."""
from __future__ import annotations

from dataclasses import dataclass, field

from .steptexts import ANNOUNCE, BANK, EACH_PLAYER, END, KEEP, REPEAT, ROLL, WRITE
from .wording import check_lang, template

@dataclass(frozen=True)
class Style:
    """How a role looks in a diagram (graphviz attributes)."""

    shape: str
    fillcolor: str
    color: str
    style: str
    fontcolor: str = "#111827"


#: One look per role, so every chance step, decision and loop is drawn alike (and every part of
#: the score sheet in the scoring diagram).
ROLE_STYLES: dict[str, Style] = {
    "loop": Style("box", "#eff6ff", "#2563eb", "rounded,dashed,filled", "#1e3a8a"),
    "chance": Style("ellipse", "#fef3c7", "#b45309", "filled"),
    "decision": Style("box", "#dcfce7", "#15803d", "rounded,filled"),
    "end": Style("box", "#e5e7eb", "#374151", "rounded,filled,bold"),
    # the score sheet (scoring diagram)
    "section": Style("box", "#f8fafc", "#64748b", "rounded,filled", "#0f172a"),
    "box": Style("box", "#ffffff", "#64748b", "filled"),
    "total": Style("box", "#f1f5f9", "#334155", "filled,bold"),
    "bonus": Style("box", "#fce7f3", "#be185d", "rounded,filled"),
    # a counter: a number kept from turn to turn (drawn beside the steps that change or read it)
    "counter": Style("cylinder", "#ede9fe", "#6d28d9", "filled", "#2e1065"),
}


@dataclass(frozen=True)
class StepKind:
    """What a kind of step is (its role), how it is drawn, and how it is said in each language."""

    kind: str
    role: str  # loop | chance | decision | end
    templates: dict[str, dict[str, str]] = field(repr=False)  # lang -> part -> Jinja2 source

    @property
    def style(self) -> Style:
        return ROLE_STYLES[self.role]

    @property
    def shape(self) -> str:
        return self.style.shape

    @property
    def color(self) -> str:
        return self.style.color

    def render(self, part: str, lang: str, facts: dict) -> str:
        """One template of this kind in one language, filled with the step's facts."""
        check_lang(lang)
        source = self.templates[lang].get(part, "")
        return template(source).render(**facts).strip() if source else ""


#: The one definition of every kind of step (and of the end of the game).
STEP_KINDS: dict[str, StepKind] = {
    "repeat": StepKind("repeat", "loop", REPEAT),
    "each_player": StepKind("each_player", "loop", EACH_PLAYER),
    "roll": StepKind("roll", "chance", ROLL),
    "keep": StepKind("keep", "decision", KEEP),
    "announce": StepKind("announce", "decision", ANNOUNCE),
    "write": StepKind("write", "decision", WRITE),
    "bank": StepKind("bank", "decision", BANK),
    "end": StepKind("end", "end", END),
}


# words the diagrams need beyond single steps (score sheet), per language ---------------------

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "sheet": "{{ game }}: score sheet",
        "section_total": "total of {{ section }}",
        "grand_total": "total: all boxes{{ ' plus bonuses' if bonuses }}",
        "grand_total_of": "total: {{ parts }}",
        "at_end": "at the end of the game",
        "on_write": "every time dice are written",
        "example": "e.g. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "counter {{ 'per player' if per == 'player' else 'per player and turn' if per == 'turn' else 'for the game' }}, starts at {{ start }}",
        "yes": "yes",
        "no": "no",
    },
    "de": {
        "sheet": "{{ game }}: Spielzettel",
        "section_total": "Summe {{ section }}",
        "grand_total": "Gesamtsumme: alle Felder{{ ' und Boni' if bonuses }}",
        "grand_total_of": "Gesamtsumme: {{ parts }}",
        "at_end": "am Ende des Spiels",
        "on_write": "bei jedem Eintrag",
        "example": "z. B. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "Zähler {{ 'je Spieler' if per == 'player' else 'je Spieler und Zug' if per == 'turn' else 'für das Spiel' }}, Start bei {{ start }}",
        "yes": "ja",
        "no": "nein",
    },
    "nl": {
        "sheet": "{{ game }}: scoreblad",
        "section_total": "totaal {{ section }}",
        "grand_total": "totaal: alle vakjes{{ ' plus bonussen' if bonuses }}",
        "grand_total_of": "totaal: {{ parts }}",
        "at_end": "aan het einde van het spel",
        "on_write": "bij elke invulling",
        "example": "bijv. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "teller {{ 'voor elke speler' if per == 'player' else 'voor elke speler en beurt' if per == 'turn' else 'voor het spel' }}, begint bij {{ start }}",
        "yes": "ja",
        "no": "nee",
    },
}


def phrase(key: str, lang: str, **values) -> str:
    """A diagram phrase (see `PHRASES`) in one language, with its values filled in."""
    check_lang(lang)
    return template(PHRASES[lang][key]).render(**values).strip()

