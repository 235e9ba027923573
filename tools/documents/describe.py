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
(`_facts`), never from the name of a game. Whole sentences are written per language, so word
order, plurals and number words follow each language's grammar.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import prod

import jinja2

from ...interpreter.errors import UsageError
from ...interpreter.model import LANGUAGES, Model, Step
from ...interpreter.soundness import writes_per_player

# numbers in words -----------------------------------------------------------------------------

_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
       "fifteen sixteen seventeen eighteen nineteen").split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_DE = ("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "
       "fünfzehn sechzehn siebzehn achtzehn neunzehn").split()
_DE_TENS = "_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
_NL = ("nul één twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien "
       "vijftien zestien zeventien achttien negentien").split()
_NL_TENS = "_ _ twintig dertig veertig vijftig zestig zeventig tachtig negentig".split()


def number_words(n: int, lang: str) -> str:
    """A whole number in words: 13 → thirteen / dreizehn / dertien (digits from 10000 on)."""
    _check_lang(lang)
    if n < 0 or n >= 10000:
        return str(n)
    return {"en": _en_words, "de": _de_words, "nl": _nl_words}[lang](n)


def _en_words(n: int) -> str:
    if n < 20:
        return _EN[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _EN_TENS[tens] + (f"-{_EN[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_EN[hundreds]} hundred" + (f" and {_en_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    tail = "" if not rest else (f" and {_en_words(rest)}" if rest < 100 else f" {_en_words(rest)}")
    return f"{_EN[thousands]} thousand{tail}"


def _de_words(n: int, inner: bool = False) -> str:
    """German numbers are written as one word; 1 is 'eins' alone but 'ein' inside a compound."""
    if n == 1:
        return "ein" if inner else "eins"
    if n < 20:
        return _DE[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return (f"{_de_words(unit, True)}und" if unit else "") + _DE_TENS[tens]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{_de_words(hundreds, True)}hundert" + (_de_words(rest, inner) if rest else "")
    thousands, rest = divmod(n, 1000)
    return f"{_de_words(thousands, True)}tausend" + (_de_words(rest, inner) if rest else "")


def _nl_words(n: int, inner: bool = False) -> str:
    """Dutch numbers are one word; units come first with 'en' (ë after twee and drie)."""
    if n == 1 and inner:
        return "een"
    if n < 20:
        return _NL[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        if not unit:
            return _NL_TENS[tens]
        first = _nl_words(unit, True)
        return first + ("ën" if first.endswith("e") else "en") + _NL_TENS[tens]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = "honderd" if hundreds == 1 else f"{_nl_words(hundreds, True)}honderd"
        return head + (_nl_words(rest, True) if rest else "")
    thousands, rest = divmod(n, 1000)
    head = "duizend" if thousands == 1 else f"{_nl_words(thousands, True)}duizend"
    return head + (f" {_nl_words(rest, True)}" if rest else "")


def times_words(n: int, lang: str) -> str:
    """How often, as an adverb: once, twice, three times / einmal, zweimal / één keer, twee keer."""
    _check_lang(lang)
    if lang == "en":
        return {1: "once", 2: "twice"}.get(n) or f"{number_words(n, 'en')} times"
    if lang == "de":
        return f"{_de_words(n, True)}mal" if 0 < n < 10000 else f"{n}-mal"
    return f"{number_words(n, 'nl')} keer"


# the step kinds ---------------------------------------------------------------------------------

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
        _check_lang(lang)
        source = self.templates[lang].get(part, "")
        return _template(source).render(**facts).strip() if source else ""


# The facts every template may use (see `_facts`):
#   name            the step's name in the language;  often, bound: rendered loop bound (often
#                   without the "until" clause, for sentences whose verb comes later)
#   n               the repeat's `times`;   rounds: this repeat counts rounds (it holds the turns)
#   until_out       the repeat holds a roll of the unkept dice (so it runs until no rolls are left)
#   can_stop        a keep inside the repeat may stop it early (so "up to")
#   solo            the model allows one player only;   who: who decides (rendered `who`)
#   dice            how many dice;   unkept: a roll of the dice not kept
#   rolls_rest      a keep followed by a roll of the unkept dice
#   boxes           how many boxes;  uses: how often each is filled (0: they differ);  columns: how many
#   total_rounds, fills_sheet, extreme, early_end, bonuses, score_name, ties (end: the final score, tie-breaks)
# and the functions num(n) (number in words) and freq(n) (once, twice, three times).

_REPEAT = {
    "en": {
        "often": """
{%- if rounds %}{{ num(n) }} {{ 'round' if n == 1 else 'rounds' }}
{%- elif can_stop %}{{ 'at most once' if n == 1 else 'up to ' ~ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', until no rolls are left' if until_out }}",
        "sentence": """
{%- if rounds %}The game is played over {{ bound }}{% if not solo %}; in every round each player has one turn{% endif %}.
{%- else %}This is repeated {{ bound }}{{ '; the player may also stop earlier' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'It ends early as soon as its condition no longer holds.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (ends early when its condition fails)' if condition }}",
        "back": "{{ 'next round' if rounds else 'again' }}",
        "exit": """
{%- if rounds %}after {{ bound }}{% elif until_out %}no rolls left{% endif %}""",
    },
    "de": {
        "often": """
{%- if rounds %}{{ 'eine Runde' if n == 1 else num(n) ~ ' Runden' }}
{%- elif can_stop %}{{ 'höchstens einmal' if n == 1 else 'bis zu ' ~ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', bis keine Würfe mehr übrig sind' if until_out }}",
        "sentence": """
{%- if rounds %}Gespielt wird über {{ bound }}{% if not solo %}; in jeder Runde ist jeder Spieler einmal am Zug{% endif %}.
{%- else %}Das wird {{ often }} wiederholt{{ ', bis keine Würfe mehr übrig sind' if until_out }}
{{- '; man darf auch früher aufhören' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'Es endet früher, sobald seine Bedingung nicht mehr gilt.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (endet früher, wenn die Bedingung nicht mehr gilt)' if condition }}",
        "back": "{{ 'nächste Runde' if rounds else 'noch einmal' }}",
        "exit": """
{%- if rounds %}nach {{ 'einer Runde' if n == 1 else num(n) ~ ' Runden' }}
{%- elif until_out %}keine Würfe mehr{% endif %}""",
    },
    "nl": {
        "often": """
{%- if rounds %}{{ num(n) }} {{ 'ronde' if n == 1 else 'rondes' }}
{%- elif can_stop %}hooguit {{ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', tot er geen worpen meer over zijn' if until_out }}",
        "sentence": """
{%- if rounds %}Er {{ 'wordt' if n == 1 else 'worden' }} {{ bound }} gespeeld{% if not solo %}; in elke ronde is elke speler één keer aan de beurt{% endif %}.
{%- else %}Dit wordt {{ often }} herhaald{{ ', tot er geen worpen meer over zijn' if until_out }}
{{- '; je mag ook eerder stoppen' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'Het stopt eerder zodra de voorwaarde niet meer geldt.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (stopt eerder als de voorwaarde niet meer geldt)' if condition }}",
        "back": "{{ 'volgende ronde' if rounds else 'nog een keer' }}",
        "exit": """
{%- if rounds %}na {{ bound }}{% elif until_out %}geen worpen meer{% endif %}""",
    },
}

_EACH_PLAYER = {
    "en": {
        "bound": "{{ 'one turn' if solo else 'each player in turn' }}",
        "sentence": "{{ 'The player takes a turn.' if solo else 'The players take turns, one after another.' }}",
        "label": "↻ {{ name }}: {{ bound }}",
        "back": "{{ '' if solo else 'next player' }}",
        "exit": "",
    },
    "de": {
        "bound": "{{ 'ein Zug' if solo else 'jeder Spieler reihum' }}",
        "sentence": "{{ 'Der Spieler ist am Zug.' if solo else 'Die Spieler sind nacheinander am Zug.' }}",
        "label": "↻ {{ name }}: {{ bound }}",
        "back": "{{ '' if solo else 'nächster Spieler' }}",
        "exit": "",
    },
    "nl": {
        "bound": "{{ 'één beurt' if solo else 'elke speler om de beurt' }}",
        "sentence": "{{ 'De speler is aan de beurt.' if solo else 'De spelers spelen om de beurt.' }}",
        "label": "↻ {{ name }}: {{ bound }}",
        "back": "{{ '' if solo else 'volgende speler' }}",
        "exit": "",
    },
}

_ROLL = {
    "en": {
        "who": "chance",
        "choice": """
{%- if unkept %}{{ 'the die if it was not kept' if dice == 1 else 'the dice that were not kept' }}
{%- else %}{{ 'the die' if dice == 1 else 'both dice' if dice == 2 else 'all ' ~ num(dice) ~ ' dice' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'The die is rolled again unless it was kept.' if dice == 1 else 'The dice that were not kept are rolled again.' }}
{%- else %}{{ choice|capfirst }} {{ 'is' if dice == 1 else 'are' }} rolled.{% endif %}""",
        "label": "chance: {{ choice }}",
    },
    "de": {
        "who": "der Zufall",
        "choice": """
{%- if unkept %}{{ 'der Würfel, wenn er nicht behalten wurde' if dice == 1 else 'die Würfel, die nicht behalten wurden' }}
{%- else %}{{ 'der Würfel' if dice == 1 else 'beide Würfel' if dice == 2 else 'alle ' ~ num(dice) ~ ' Würfel' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'Der Würfel wird neu geworfen, wenn er nicht behalten wurde.' if dice == 1 else 'Die Würfel, die nicht behalten wurden, werden neu geworfen.' }}
{%- else %}{{ choice|capfirst }} {{ 'wird' if dice == 1 else 'werden' }} geworfen.{% endif %}""",
        "label": "Zufall: {{ choice }}",
    },
    "nl": {
        "who": "het toeval",
        "choice": """
{%- if unkept %}{{ 'de dobbelsteen als die niet is gehouden' if dice == 1 else 'de dobbelstenen die niet zijn gehouden' }}
{%- else %}{{ 'de dobbelsteen' if dice == 1 else 'beide dobbelstenen' if dice == 2 else 'alle ' ~ num(dice) ~ ' dobbelstenen' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'De dobbelsteen wordt opnieuw gegooid als die niet is gehouden.' if dice == 1 else 'De dobbelstenen die niet zijn gehouden, worden opnieuw gegooid.' }}
{%- else %}{{ choice|capfirst }} {{ 'wordt' if dice == 1 else 'worden' }} gegooid.{% endif %}""",
        "label": "toeval: {{ choice }}",
    },
}

_WHO = {
    "en": "{{ 'the player' if solo else 'the current player' }}",
    "de": "{{ 'wer spielt' if solo else 'wer am Zug ist' }}",
    "nl": "{{ 'wie speelt' if solo else 'wie aan de beurt is' }}",
}

_KEEP = {
    "en": {
        "who": _WHO["en"],
        "choice": """
{{- ('keep the dice the rule allows' if ruled else 'keep any dice') ~ ' and roll the rest again' if rolls_rest else 'the dice to keep' }}
{%- if can_stop %}, or stop{% endif %}""",
        "sentence": """
{{- who|capfirst }} chooses which dice to keep{% if rolls_rest %} and rolls the rest again{% endif %}
{%- if can_stop %}, or stops rolling{% endif %}.
{%- if ruled %} Only the keeps the rule allows may be chosen.{% endif %}
{%- if locked %} Dice set aside here stay aside for the rest of the turn.{% endif %}""",
        "label": """{{ who }} chooses:\n{{ choice }}
{{- '\ndice set aside stay aside' if locked }}""",
        "stop": "{{ 'stop' if can_stop }}",
    },
    "de": {
        "who": _WHO["de"],
        "choice": """
{{- ('die Würfel behalten, die die Regel erlaubt,' if ruled else 'beliebige Würfel behalten') ~ ' und den Rest neu werfen' if rolls_rest else 'die Würfel, die liegen bleiben' }}
{%- if can_stop %}, oder aufhören{% endif %}""",
        "sentence": """
{{- who|capfirst }}, wählt die Würfel, die liegen bleiben{% if rolls_rest %}, und wirft den Rest neu{% endif %}
{%- if can_stop %} – oder hört auf zu würfeln{% endif %}.
{%- if ruled %} Erlaubt ist nur, was die Regel zulässt.{% endif %}
{%- if locked %} Hier beiseitegelegte Würfel bleiben für den Rest des Zuges liegen.{% endif %}""",
        "label": """{{ who }}, wählt:\n{{ choice }}
{{- '\nbeiseitegelegte Würfel bleiben liegen' if locked }}""",
        "stop": "{{ 'aufhören' if can_stop }}",
    },
    "nl": {
        "who": _WHO["nl"],
        "choice": """
{{- ('de dobbelstenen houden die de regel toestaat' if ruled else 'dobbelstenen houden') ~ ' en de rest opnieuw gooien' if rolls_rest else 'de dobbelstenen die blijven liggen' }}
{%- if can_stop %}, of stoppen{% endif %}""",
        "sentence": """
{{- who|capfirst }}, kiest welke dobbelstenen blijven liggen{% if rolls_rest %} en gooit de rest opnieuw{% endif %}
{%- if can_stop %}, of stopt met gooien{% endif %}.
{%- if ruled %} Alleen wat de regel toestaat, mag worden gekozen.{% endif %}
{%- if locked %} Stenen die hier opzij zijn gelegd, blijven de rest van de beurt liggen.{% endif %}""",
        "label": """{{ who }}, kiest:\n{{ choice }}
{{- '\nopzij gelegde stenen blijven liggen' if locked }}""",
        "stop": "{{ 'stoppen' if can_stop }}",
    },
}

_WRITE = {
    "en": {
        "who": _WHO["en"],
        "choice": "an open box, with the points it would score",
        "notes": """{%- for c in cols %} Column “{{ c.name }}”{% if c.mult != 1 %} counts {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} and{% endif %}
{%- if c.order == 'down' %} is filled from the top down{% elif c.order == 'up' %} is filled from the bottom up{% elif c.order == 'announced' %} takes only the box announced this turn{% endif %}.{% endfor %}
{%- if announces %} If a box was announced this turn, the dice must be written there.{% endif %}
{%- if scratch %} If no box may take the dice, {{ who }} crosses out an open box for 0 points.{% endif %}""",
        "sentence": """
{{- who|capfirst }} writes the dice into an open box and scores what they are worth there; \
{% if uses %}{{ 'the box' if boxes == 1 else 'each of the ' ~ num(boxes) ~ ' boxes' }} is filled {{ freq(uses) }}
{%- else %}each box takes as many entries as the sheet shows{% endif %}
{%- if columns %}, in each of the {{ num(columns) }} columns{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }} chooses:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "de": {
        "who": _WHO["de"],
        "choice": "ein freies Feld, mit den Punkten, die es bringen würde",
        "notes": """{%- for c in cols %} Die Spalte „{{ c.name }}“{% if c.mult != 1 %} zählt {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} und{% endif %}
{%- if c.order == 'down' %} wird von oben nach unten gefüllt{% elif c.order == 'up' %} wird von unten nach oben gefüllt{% elif c.order == 'announced' %} nimmt nur das in diesem Zug angesagte Feld auf{% endif %}.{% endfor %}
{%- if announces %} Wurde in diesem Zug ein Feld angesagt, muss der Wurf dort eingetragen werden.{% endif %}
{%- if scratch %} Darf kein Feld den Wurf aufnehmen, streicht, {{ who }}, ein freies Feld mit 0 Punkten.{% endif %}""",
        "sentence": """
{{- who|capfirst }}, trägt den Wurf in ein freies Feld ein und bekommt die Punkte, die er dort wert ist; \
{% if uses %}{{ 'das Feld wird' if boxes == 1 else 'jedes der ' ~ num(boxes) ~ ' Felder wird' }} {{ freq(uses) }} ausgefüllt
{%- else %}jedes Feld nimmt so viele Einträge auf, wie der Spielzettel zeigt{% endif %}
{%- if columns %}, und zwar in jeder der {{ num(columns) }} Spalten{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, wählt:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "nl": {
        "who": _WHO["nl"],
        "choice": "een open vakje, met de punten die het zou opleveren",
        "notes": """{%- for c in cols %} Kolom ‘{{ c.name }}’{% if c.mult != 1 %} telt {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} en{% endif %}
{%- if c.order == 'down' %} wordt van boven naar beneden ingevuld{% elif c.order == 'up' %} wordt van beneden naar boven ingevuld{% elif c.order == 'announced' %} neemt alleen het vakje dat deze beurt is aangekondigd{% endif %}.{% endfor %}
{%- if announces %} Is deze beurt een vakje aangekondigd, dan moet de worp daar worden ingevuld.{% endif %}
{%- if scratch %} Mag geen vakje de worp opnemen, dan schrapt {{ who }} een open vakje voor 0 punten.{% endif %}""",
        "sentence": """
{{- who|capfirst }}, schrijft de worp in een open vakje en krijgt de punten die hij daar waard is; \
{% if uses %}{{ 'het vakje' if boxes == 1 else 'elk van de ' ~ num(boxes) ~ ' vakjes' }} wordt {{ freq(uses) }} ingevuld
{%- else %}elk vakje krijgt zoveel invullingen als het scoreblad aangeeft{% endif %}
{%- if columns %}, in elk van de {{ num(columns) }} kolommen{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, kiest:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
}

_COLUMNS = {  # a list of column names in a sentence
    "en": """{% if acols|length == 1 %}the column “{{ acols[0] }}”{% else %}the columns
{%- for c in acols %} “{{ c }}”{{ ' and' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
    "de": """{% if acols|length == 1 %}der Spalte „{{ acols[0] }}“{% else %}den Spalten
{%- for c in acols %} „{{ c }}“{{ ' und' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
    "nl": """{% if acols|length == 1 %}kolom ‘{{ acols[0] }}’{% else %}de kolommen
{%- for c in acols %} ‘{{ c }}’{{ ' en' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
}

_ANNOUNCE = {
    "en": {
        "who": _WHO["en"],
        "choice": "{{ 'an open box to announce, or none' if optional else 'an open box to announce' }}",
        "sentence": """
{{- who|capfirst }} {{ 'may announce' if optional else 'announces' }} an open box{{ ' of ' ~ columns_text if acols }}; \
this turn's dice must then be written there.
{%- if optional and acols %} Without an announcement, {{ columns_text }} cannot be written this turn.{% endif %}""",
        "label": "{{ who }} chooses:\n{{ choice }}\n(this turn's write goes there)",
    },
    "de": {
        "who": _WHO["de"],
        "choice": "{{ 'ein freies Feld zum Ansagen, oder keins' if optional else 'ein freies Feld zum Ansagen' }}",
        "sentence": """
{{- who|capfirst }}, {{ 'darf' if optional else 'sagt' }} ein freies Feld{{ ' aus ' ~ columns_text if acols }} {{ 'ansagen' if optional else 'an' }}; \
der Wurf dieses Zuges muss dann dort eingetragen werden.
{%- if optional and acols %} Ohne Ansage kann in diesem Zug nichts in {{ columns_text }} eingetragen werden.{% endif %}""",
        "label": "{{ who }}, wählt:\n{{ choice }}\n(der Eintrag des Zuges geht dorthin)",
    },
    "nl": {
        "who": _WHO["nl"],
        "choice": "{{ 'een open vakje om aan te kondigen, of geen' if optional else 'een open vakje om aan te kondigen' }}",
        "sentence": """
{{- who|capfirst }}, {{ 'mag' if optional else 'kondigt' }} een open vakje{{ ' uit ' ~ columns_text if acols }} {{ 'aankondigen' if optional else 'aan' }}; \
de worp van deze beurt moet dan daar worden ingevuld.
{%- if optional and acols %} Zonder aankondiging kan deze beurt niets in {{ columns_text }} worden ingevuld.{% endif %}""",
        "label": "{{ who }}, kiest:\n{{ choice }}\n(de invulling van deze beurt gaat daarheen)",
    },
}

_END = {
    "en": {
        "sentence": """
{%- if total_rounds == 1 %}After one round{% else %}After {{ num(total_rounds) }} rounds{% endif %}
{%- if fills_sheet %}, when every box is filled,{% endif %} the game ends
{%- if early_end %} (or at once, when a write meets the end condition){% endif %}; \
{%- if score_name %}{% if solo %} the aim is the {{ extreme }} score in “{{ score_name }}”{% else %} the player with the {{ extreme }} score in “{{ score_name }}” wins{% endif %}
{%- for tie in ties %}; if that is equal, “{{ tie }}” decides{% endfor %}.
{%- else %}{% if solo %} the aim is the {{ extreme }} total{% else %} the player with the {{ extreme }} total wins{% endif %} \
(all boxes{{ ' plus bonuses' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
    "de": {
        "sentence": """
{%- if total_rounds == 1 %}Nach einer Runde{% else %}Nach {{ num(total_rounds) }} Runden{% endif %}
{%- if fills_sheet %}, wenn alle Felder ausgefüllt sind,{% endif %} ist das Spiel zu Ende
{%- if early_end %} (oder sofort, wenn ein Eintrag die Endbedingung erfüllt){% endif %}; \
{%- if score_name %}{% if solo %} das Ziel ist der {{ extreme }} Wert bei „{{ score_name }}“{% else %} es gewinnt, wer den {{ extreme }}n Wert bei „{{ score_name }}“ hat{% endif %}
{%- for tie in ties %}; bei Gleichstand entscheidet „{{ tie }}“{% endfor %}.
{%- else %}{% if solo %} das Ziel ist die {{ extreme }} Gesamtsumme{% else %} es gewinnt, wer die {{ extreme }} Gesamtsumme hat{% endif %} \
(alle Felder{{ ' und Boni' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
    "nl": {
        "sentence": """
{%- if total_rounds == 1 %}Na één ronde{% else %}Na {{ num(total_rounds) }} rondes{% endif %}
{%- if fills_sheet %}, als alle vakjes zijn ingevuld,{% endif %} is het spel afgelopen
{%- if early_end %} (of meteen, als een invulling aan de eindvoorwaarde voldoet){% endif %}; \
{%- if score_name %}{% if solo %} het doel is de {{ extreme }} waarde bij ‘{{ score_name }}’{% else %} wie de {{ extreme }} waarde bij ‘{{ score_name }}’ heeft, wint{% endif %}
{%- for tie in ties %}; bij gelijkstand beslist ‘{{ tie }}’{% endfor %}.
{%- else %}{% if solo %} het doel is het {{ extreme }} totaal{% else %} wie het {{ extreme }} totaal heeft, wint{% endif %} \
(alle vakjes{{ ' plus bonussen' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
}

#: A write's effect on a counter (`Effect`): whose counter changes, in a sentence for the rule pages
#: (followed by the model's own `rule` text, if any) and a line for the diagram.
_EFFECT = {
    "en": {
        "sentence": """
{%- if whose == 'me' %}The write also changes the writer's “{{ counter }}”.
{%- elif whose == 'others' %}The write also changes “{{ counter }}” of every other player.
{%- elif whose == 'all' %}The write also changes every player's “{{ counter }}”.
{%- else %}The write also changes the game's “{{ counter }}”.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}then: own “{{ counter }}” changes
{%- elif whose == 'others' %}then: every other player's “{{ counter }}” changes
{%- elif whose == 'all' %}then: every player's “{{ counter }}” changes
{%- else %}then: the game's “{{ counter }}” changes{% endif %}""",
    },
    "de": {
        "sentence": """
{%- if whose == 'me' %}Der Eintrag ändert auch „{{ counter }}“ des Spielers, der einträgt.
{%- elif whose == 'others' %}Der Eintrag ändert auch „{{ counter }}“ jedes anderen Spielers.
{%- elif whose == 'all' %}Der Eintrag ändert auch „{{ counter }}“ aller Spieler.
{%- else %}Der Eintrag ändert auch „{{ counter }}“ des Spiels.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}dann: eigener Stand „{{ counter }}“ ändert sich
{%- elif whose == 'others' %}dann: Stand „{{ counter }}“ jedes anderen Spielers ändert sich
{%- elif whose == 'all' %}dann: Stand „{{ counter }}“ aller Spieler ändert sich
{%- else %}dann: Stand „{{ counter }}“ des Spiels ändert sich{% endif %}""",
    },
    "nl": {
        "sentence": """
{%- if whose == 'me' %}De invulling verandert ook ‘{{ counter }}’ van wie invult.
{%- elif whose == 'others' %}De invulling verandert ook ‘{{ counter }}’ van elke andere speler.
{%- elif whose == 'all' %}De invulling verandert ook ‘{{ counter }}’ van alle spelers.
{%- else %}De invulling verandert ook ‘{{ counter }}’ van het spel.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}dan: eigen stand ‘{{ counter }}’ verandert
{%- elif whose == 'others' %}dan: stand ‘{{ counter }}’ van elke andere speler verandert
{%- elif whose == 'all' %}dan: stand ‘{{ counter }}’ van alle spelers verandert
{%- else %}dan: stand ‘{{ counter }}’ van het spel verandert{% endif %}""",
    },
}

#: A counter (`Counter`) in a sentence: whose it is, where it starts, its bounds.
_COUNTER = {
    "en": """“{{ counter }}”: {{ 'every player has one' if per == 'player' else 'one for the whole game' }}, starting at {{ start }}
{%- if least is not none and most is not none %}; it stays between {{ least }} and {{ most }}
{%- elif least is not none %}; it never goes below {{ least }}
{%- elif most is not none %}; it never goes above {{ most }}{% endif %}. It carries over from turn to turn.""",
    "de": """„{{ counter }}“: {{ 'jeder Spieler hat einen eigenen Stand' if per == 'player' else 'ein Stand für das ganze Spiel' }}, zu Beginn {{ start }}
{%- if least is not none and most is not none %}; er bleibt zwischen {{ least }} und {{ most }}
{%- elif least is not none %}; er sinkt nie unter {{ least }}
{%- elif most is not none %}; er steigt nie über {{ most }}{% endif %}. Er bleibt von Zug zu Zug erhalten.""",
    "nl": """‘{{ counter }}’: {{ 'elke speler heeft een eigen stand' if per == 'player' else 'één stand voor het hele spel' }}, bij het begin {{ start }}
{%- if least is not none and most is not none %}; die blijft tussen {{ least }} en {{ most }}
{%- elif least is not none %}; die komt nooit onder {{ least }}
{%- elif most is not none %}; die komt nooit boven {{ most }}{% endif %}. Die blijft van beurt tot beurt bewaard.""",
}


_EXTREME = {"en": ("highest", "lowest"), "de": ("höchste", "niedrigste"), "nl": ("hoogste", "laagste")}

#: The one definition of every kind of step (and of the end of the game).
STEP_KINDS: dict[str, StepKind] = {
    "repeat": StepKind("repeat", "loop", _REPEAT),
    "each_player": StepKind("each_player", "loop", _EACH_PLAYER),
    "roll": StepKind("roll", "chance", _ROLL),
    "keep": StepKind("keep", "decision", _KEEP),
    "announce": StepKind("announce", "decision", _ANNOUNCE),
    "write": StepKind("write", "decision", _WRITE),
    "end": StepKind("end", "end", _END),
}


# words the diagrams need beyond single steps (score sheet), per language ---------------------

PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "sheet": "{{ game }}: score sheet",
        "section_total": "total of {{ section }}",
        "grand_total": "total: all boxes{{ ' plus bonuses' if bonuses }}",
        "at_end": "at the end of the game",
        "on_write": "every time dice are written",
        "example": "e.g. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "counter {{ 'per player' if per == 'player' else 'for the game' }}, starts at {{ start }}",
        "yes": "yes",
        "no": "no",
    },
    "de": {
        "sheet": "{{ game }}: Spielzettel",
        "section_total": "Summe {{ section }}",
        "grand_total": "Gesamtsumme: alle Felder{{ ' und Boni' if bonuses }}",
        "at_end": "am Ende des Spiels",
        "on_write": "bei jedem Eintrag",
        "example": "z. B. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "Zähler {{ 'je Spieler' if per == 'player' else 'für das Spiel' }}, Start bei {{ start }}",
        "yes": "ja",
        "no": "nein",
    },
    "nl": {
        "sheet": "{{ game }}: scoreblad",
        "section_total": "totaal {{ section }}",
        "grand_total": "totaal: alle vakjes{{ ' plus bonussen' if bonuses }}",
        "at_end": "aan het einde van het spel",
        "on_write": "bij elke invulling",
        "example": "bijv. {{ dice }} → {{ points }}",
        "option": "{{ option }}: {{ value }}",
        "counter": "teller {{ 'voor elke speler' if per == 'player' else 'voor het spel' }}, begint bij {{ start }}",
        "yes": "ja",
        "no": "nee",
    },
}


def phrase(key: str, lang: str, **values) -> str:
    """A diagram phrase (see `PHRASES`) in one language, with its values filled in."""
    _check_lang(lang)
    return _template(PHRASES[lang][key]).render(**values).strip()


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


def effect_words(effect, model: Model, lang: str) -> dict[str, str]:
    """A write's effect on a counter: {"sentence": for the rule pages, "label": for the diagram}."""
    _check_lang(lang)
    counter = next(c for c in model.counters if c.id == effect.counter)
    facts = {"counter": counter.name[lang], "whose": "game" if counter.per == "game" else effect.players,
             "rule": effect.rule[lang] if effect.rule else ""}
    return {part: _template(_EFFECT[lang][part]).render(**facts).strip() for part in ("sentence", "label")}


def counter_sentence(counter, lang: str) -> str:
    """A counter in a sentence: whose it is, its start value and bounds, and that it carries over."""
    _check_lang(lang)
    return _template(_COUNTER[lang]).render(counter=counter.name[lang], per=counter.per, start=counter.start,
                                            least=counter.least, most=counter.most).strip()


def end_text(model: Model, lang: str) -> str:
    """How the game ends and how the winner is found."""
    _check_lang(lang)
    return STEP_KINDS["end"].render("sentence", lang, _end_facts(model, lang))


# facts from the structure -----------------------------------------------------------------------

def _render(step: Step, model: Model, lang: str, part: str) -> str:
    _check_lang(lang)
    return kind_of(step).render(part, lang, _facts(step, model, lang))


def _facts(step: Step, model: Model, lang: str) -> dict:
    """Everything a template may say about a step, found from the tree and the model."""
    kind = kind_of(step)
    parents = model.flow.ancestors(step)
    facts = _common(model, lang) | {
        "name": step.name[lang],
        "n": step.times or 1,
        "rounds": step.kind == "repeat" and _nearest_repeat_of_turn(model.flow) is step,
        "until_out": step.kind == "repeat" and any(
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
        "ruled": step.kind == "keep" and step.allowed is not None,
        "locked": step.locked,
        "condition": step.condition is not None,
        "rule": step.rule[lang] if step.rule else "",
        "optional": step.optional,
        "acols": [c.name[lang] for c in model.columns if c.order == "announced"],
        "announces": any(s.kind == "announce" for s in model.flow.walk()),
        "effects": [effect_words(e, model, lang) for e in step.effects],
    }
    facts["columns_text"] = _template(_COLUMNS[lang]).render(**facts).strip()
    if step.kind in ("keep", "write", "announce"):
        facts["who"] = _template(kind.templates[lang]["who"]).render(**facts).strip()
    for part in ("often", "bound", "choice", "notes"):
        source = kind.templates[lang].get(part)
        if source:
            facts[part] = _template(source).render(**facts).strip()
    if kind.role == "end":
        facts |= _end_facts(model, lang)
    return facts


def _common(model: Model, lang: str) -> dict:
    return {
        "num": lambda n: number_words(n, lang), "freq": lambda n: times_words(n, lang),
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
        "extreme": _EXTREME[lang][model.winner == "lowest_total"], "early_end": model.end_if is not None,
        "bonuses": bool(model.bonuses),
    }
    facts["sentence"] = _template(_END[lang]["sentence"]).render(**facts).strip()
    return facts


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


# templates --------------------------------------------------------------------------------------

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
_ENV.filters["capfirst"] = lambda s: s[:1].upper() + s[1:]


@lru_cache(maxsize=None)
def _template(source: str) -> jinja2.Template:
    return _ENV.from_string(source)


def _check_lang(lang: str) -> None:
    if lang not in LANGUAGES:
        raise UsageError("--lang must be one of {languages}, not '{lang}'", languages=', '.join(LANGUAGES), lang=lang)
