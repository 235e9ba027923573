"""The words of every step kind, per language: small Jinja2 templates for a loop's bound, who decides,
what can be chosen, a rules-page sentence, a diagram label and arrow labels (see `stepkinds` for
the kinds and `describe` for the facts they are filled with). Whole sentences per language, so
word order, plurals and number words follow each language's grammar."""
from __future__ import annotations

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

REPEAT = {
    "en": {
        "often": """
{%- if unbounded %}{{ 'rounds until the game ends' if rounds else 'as often as the player goes on' }}
{%- elif rounds %}{{ num(n) }} {{ 'round' if n == 1 else 'rounds' }}
{%- elif can_stop %}{{ 'at most once' if n == 1 else 'up to ' ~ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', until no rolls are left' if until_out }}",
        "sentence": """
{%- if unbounded and rounds %}The game is played in rounds until it ends{% if not solo %}; in every round each player has one turn{% endif %}.
{%- elif unbounded %}This is repeated for as long as the player goes on: until they stop{{ ' or bank' if banks }}{{ ', or a roll busts' if busts }}.
{%- elif rounds %}The game is played over {{ bound }}{% if not solo %}; in every round each player has one turn{% endif %}.
{%- else %}This is repeated {{ bound }}{{ '; the player may also stop earlier' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'It ends early as soon as its condition no longer holds.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (ends early when its condition fails)' if condition }}",
        "back": "{{ 'next round' if rounds else 'again' }}",
        "exit": """
{%- if unbounded and rounds %}when the game ends{% elif rounds %}after {{ bound }}{% elif until_out %}no rolls left{% endif %}""",
    },
    "de": {
        "often": """
{%- if unbounded %}{{ 'Runden bis zum Spielende' if rounds else 'immer wieder, solange man weitermacht' }}
{%- elif rounds %}{{ 'eine Runde' if n == 1 else num(n) ~ ' Runden' }}
{%- elif can_stop %}{{ 'höchstens einmal' if n == 1 else 'bis zu ' ~ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', bis keine Würfe mehr übrig sind' if until_out }}",
        "sentence": """
{%- if unbounded and rounds %}Gespielt wird in Runden, bis das Spiel endet{% if not solo %}; in jeder Runde ist jeder Spieler einmal am Zug{% endif %}.
{%- elif unbounded %}Das wird wiederholt, solange man weitermacht: bis man aufhört{{ ' oder die Punkte sichert' if banks }}{{ ' oder ein Wurf alles verliert' if busts }}.
{%- elif rounds %}Gespielt wird über {{ bound }}{% if not solo %}; in jeder Runde ist jeder Spieler einmal am Zug{% endif %}.
{%- else %}Das wird {{ often }} wiederholt{{ ', bis keine Würfe mehr übrig sind' if until_out }}
{{- '; man darf auch früher aufhören' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'Es endet früher, sobald seine Bedingung nicht mehr gilt.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (endet früher, wenn die Bedingung nicht mehr gilt)' if condition }}",
        "back": "{{ 'nächste Runde' if rounds else 'noch einmal' }}",
        "exit": """
{%- if unbounded and rounds %}wenn das Spiel endet{% elif rounds %}nach {{ 'einer Runde' if n == 1 else num(n) ~ ' Runden' }}
{%- elif until_out %}keine Würfe mehr{% endif %}""",
    },
    "nl": {
        "often": """
{%- if unbounded %}{{ 'rondes tot het spel afloopt' if rounds else 'zo vaak als de speler doorgaat' }}
{%- elif rounds %}{{ num(n) }} {{ 'ronde' if n == 1 else 'rondes' }}
{%- elif can_stop %}hooguit {{ freq(n) }}
{%- else %}{{ freq(n) }}{% endif %}""",
        "bound": "{{ often }}{{ ', tot er geen worpen meer over zijn' if until_out }}",
        "sentence": """
{%- if unbounded and rounds %}Er wordt in rondes gespeeld tot het spel afloopt{% if not solo %}; in elke ronde is elke speler één keer aan de beurt{% endif %}.
{%- elif unbounded %}Dit wordt herhaald zolang de speler doorgaat: tot die stopt{{ ' of de punten veiligstelt' if banks }}{{ ' of een worp alles verliest' if busts }}.
{%- elif rounds %}Er {{ 'wordt' if n == 1 else 'worden' }} {{ bound }} gespeeld{% if not solo %}; in elke ronde is elke speler één keer aan de beurt{% endif %}.
{%- else %}Dit wordt {{ often }} herhaald{{ ', tot er geen worpen meer over zijn' if until_out }}
{{- '; je mag ook eerder stoppen' if until_out and can_stop }}.{% endif %}
{%- if condition %} {{ rule if rule else 'Het stopt eerder zodra de voorwaarde niet meer geldt.' }}{% endif %}""",
        "label": "↻ {{ name }}: {{ bound }}{{ ' (stopt eerder als de voorwaarde niet meer geldt)' if condition }}",
        "back": "{{ 'volgende ronde' if rounds else 'nog een keer' }}",
        "exit": """
{%- if unbounded and rounds %}als het spel afloopt{% elif rounds %}na {{ bound }}{% elif until_out %}geen worpen meer{% endif %}""",
    },
}

EACH_PLAYER = {
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

ROLL = {
    "en": {
        "who": "chance",
        "choice": """
{%- if unkept %}{{ 'the die if it was not kept' if dice == 1 else 'the dice that were not kept' }}
{%- else %}{{ 'the die' if dice == 1 else 'both dice' if dice == 2 else 'all ' ~ num(dice) ~ ' dice' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'The die is rolled again unless it was kept.' if dice == 1 else 'The dice that were not kept are rolled again.' }}
{%- else %}{{ choice|capfirst }} {{ 'is' if dice == 1 else 'are' }} rolled.{% endif %}
{%- if busts %} If the roll busts ({{ bust_rule }}), the turn ends at once and its turn total is lost.{% endif %}
{%- if hot_dice %} When every die has been set aside, all of them are rolled again (hot dice).{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "chance: {{ choice }}{{ '\nbust: ' ~ bust_rule if busts }}{{ '\nhot dice: all roll again' if hot_dice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "de": {
        "who": "der Zufall",
        "choice": """
{%- if unkept %}{{ 'der Würfel, wenn er nicht behalten wurde' if dice == 1 else 'die Würfel, die nicht behalten wurden' }}
{%- else %}{{ 'der Würfel' if dice == 1 else 'beide Würfel' if dice == 2 else 'alle ' ~ num(dice) ~ ' Würfel' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'Der Würfel wird neu geworfen, wenn er nicht behalten wurde.' if dice == 1 else 'Die Würfel, die nicht behalten wurden, werden neu geworfen.' }}
{%- else %}{{ choice|capfirst }} {{ 'wird' if dice == 1 else 'werden' }} geworfen.{% endif %}
{%- if busts %} Verliert der Wurf ({{ bust_rule }}), endet der Zug sofort, und seine Zugsumme verfällt.{% endif %}
{%- if hot_dice %} Sind alle Würfel beiseitegelegt, werden alle wieder geworfen (heiße Würfel).{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "Zufall: {{ choice }}{{ '\nverloren: ' ~ bust_rule if busts }}{{ '\nheiße Würfel: alle neu' if hot_dice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "nl": {
        "who": "het toeval",
        "choice": """
{%- if unkept %}{{ 'de dobbelsteen als die niet is gehouden' if dice == 1 else 'de dobbelstenen die niet zijn gehouden' }}
{%- else %}{{ 'de dobbelsteen' if dice == 1 else 'beide dobbelstenen' if dice == 2 else 'alle ' ~ num(dice) ~ ' dobbelstenen' }}{% endif %}""",
        "sentence": """
{%- if unkept %}{{ 'De dobbelsteen wordt opnieuw gegooid als die niet is gehouden.' if dice == 1 else 'De dobbelstenen die niet zijn gehouden, worden opnieuw gegooid.' }}
{%- else %}{{ choice|capfirst }} {{ 'wordt' if dice == 1 else 'worden' }} gegooid.{% endif %}
{%- if busts %} Verliest de worp ({{ bust_rule }}), dan eindigt de beurt meteen en is het beurttotaal weg.{% endif %}
{%- if hot_dice %} Zijn alle stenen opzij gelegd, dan worden ze allemaal opnieuw gegooid (hete stenen).{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "toeval: {{ choice }}{{ '\nverloren: ' ~ bust_rule if busts }}{{ '\nhete stenen: alle opnieuw' if hot_dice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
}

WHO = {  # who takes a step (acting.py: by active, others or all)
    "en": """{{ ('the player' if solo else 'every player in turn (the current player first)') if by == 'all'
        else 'each other player' if by == 'others' else 'the player' if solo else 'the current player' }}""",
    "de": """{{ ('wer spielt' if solo else 'jeder Spieler, zuerst der, der am Zug ist') if by == 'all'
        else 'jeder Spieler, der nicht am Zug ist' if by == 'others' else 'wer spielt' if solo else 'wer am Zug ist' }}""",
    "nl": """{{ ('wie speelt' if solo else 'elke speler, te beginnen bij wie aan de beurt is') if by == 'all'
        else 'elke andere speler' if by == 'others' else 'wie speelt' if solo else 'wie aan de beurt is' }}""",
}

KEEP = {
    "en": {
        "who": WHO["en"],
        "choice": """
{{- ('keep the dice the rule allows' if ruled else 'keep any dice') ~ ' and roll the rest again' if rolls_rest else 'the dice to keep' }}
{%- if can_stop %}, or stop{% endif %}""",
        "sentence": """
{%- if forced %}The rule decides which dice are set aside{% if rolls_rest %}, and the rest is rolled again{% endif %}
{%- if can_stop %}; {{ who }} may also stop rolling{% endif %}.
{%- else %}{{ who|capfirst }} chooses which dice to keep{% if rolls_rest %} and rolls the rest again{% endif %}
{%- if can_stop %}, or stops rolling{% endif %}.
{%- if ruled %} Only the keeps the rule allows may be chosen.{% endif %}{% endif %}
{%- if locked %} Dice set aside here stay aside for the rest of the turn.{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": """{{ who }} chooses:\n{{ choice }}
{{- '\ndice set aside stay aside' if locked }}{% for e in effects %}\n{{ e.label }}{% endfor %}""",
        "stop": "{{ 'stop' if can_stop }}",
    },
    "de": {
        "who": WHO["de"],
        "choice": """
{{- ('die Würfel behalten, die die Regel erlaubt,' if ruled else 'beliebige Würfel behalten') ~ ' und den Rest neu werfen' if rolls_rest else 'die Würfel, die liegen bleiben' }}
{%- if can_stop %}, oder aufhören{% endif %}""",
        "sentence": """
{%- if forced %}Welche Würfel beiseitegelegt werden, legt die Regel fest{% if rolls_rest %}; der Rest wird neu geworfen{% endif %}
{%- if can_stop %}; {{ who }}, darf auch aufhören zu würfeln{% endif %}.
{%- else %}{{ who|capfirst }}, wählt die Würfel, die liegen bleiben{% if rolls_rest %}, und wirft den Rest neu{% endif %}
{%- if can_stop %} – oder hört auf zu würfeln{% endif %}.
{%- if ruled %} Erlaubt ist nur, was die Regel zulässt.{% endif %}{% endif %}
{%- if locked %} Hier beiseitegelegte Würfel bleiben für den Rest des Zuges liegen.{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": """{{ who }}, wählt:\n{{ choice }}
{{- '\nbeiseitegelegte Würfel bleiben liegen' if locked }}{% for e in effects %}\n{{ e.label }}{% endfor %}""",
        "stop": "{{ 'aufhören' if can_stop }}",
    },
    "nl": {
        "who": WHO["nl"],
        "choice": """
{{- ('de dobbelstenen houden die de regel toestaat' if ruled else 'dobbelstenen houden') ~ ' en de rest opnieuw gooien' if rolls_rest else 'de dobbelstenen die blijven liggen' }}
{%- if can_stop %}, of stoppen{% endif %}""",
        "sentence": """
{%- if forced %}Welke stenen opzij gaan, bepaalt de regel{% if rolls_rest %}; de rest wordt opnieuw gegooid{% endif %}
{%- if can_stop %}; {{ who }}, mag ook stoppen met gooien{% endif %}.
{%- else %}{{ who|capfirst }}, kiest welke dobbelstenen blijven liggen{% if rolls_rest %} en gooit de rest opnieuw{% endif %}
{%- if can_stop %}, of stopt met gooien{% endif %}.
{%- if ruled %} Alleen wat de regel toestaat, mag worden gekozen.{% endif %}{% endif %}
{%- if locked %} Stenen die hier opzij zijn gelegd, blijven de rest van de beurt liggen.{% endif %}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": """{{ who }}, kiest:\n{{ choice }}
{{- '\nopzij gelegde stenen blijven liggen' if locked }}{% for e in effects %}\n{{ e.label }}{% endfor %}""",
        "stop": "{{ 'stoppen' if can_stop }}",
    },
}

WRITE = {
    "en": {
        "who": WHO["en"],
        "choice": "an open box, with the points it would score",
        "notes": """{%- for c in cols %} Column “{{ c.name }}”{% if c.mult != 1 %} counts {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} and{% endif %}
{%- if c.order == 'down' %} is filled from the top down{% elif c.order == 'up' %} is filled from the bottom up{% elif c.order == 'announced' %} takes only the box announced this turn{% elif c.order == 'row' %} is crossed from the top down with skips: a cross closes every box above it{% endif %}.{% endfor %}
{%- if announces %} If a box was announced this turn, the dice must be written there.{% endif %}
{%- if scratch %} If no box may take the dice, {{ who }} crosses out an open box for 0 points.{% endif %}
{%- for r in rows %} The row “{{ r }}” is crossed from left to right: a cross closes every box to its left for good.{% endfor %}
{%- if optional and by != 'active' %} Each of them may also write nothing.{% elif optional %} Writing nothing is {{ 'allowed only when the rule says so' if pass_rule else 'allowed too' }}.{% endif %}""",
        "sentence": """
{{- who|capfirst }} writes the dice into an open box and scores what they are worth there; \
{% if uses %}{{ 'the box' if boxes == 1 else 'each of the ' ~ num(boxes) ~ ' boxes' }} is filled {{ freq(uses) }}
{%- else %}each box takes as many entries as the sheet shows{% endif %}
{%- if columns > 1 %}, in each of the {{ num(columns) }} columns{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }} chooses:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "de": {
        "who": WHO["de"],
        "choice": "ein freies Feld, mit den Punkten, die es bringen würde",
        "notes": """{%- for c in cols %} Die Spalte „{{ c.name }}“{% if c.mult != 1 %} zählt {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} und{% endif %}
{%- if c.order == 'down' %} wird von oben nach unten gefüllt{% elif c.order == 'up' %} wird von unten nach oben gefüllt{% elif c.order == 'announced' %} nimmt nur das in diesem Zug angesagte Feld auf{% elif c.order == 'row' %} wird von oben nach unten mit Lücken angekreuzt: Ein Kreuz schließt jedes Feld darüber{% endif %}.{% endfor %}
{%- if announces %} Wurde in diesem Zug ein Feld angesagt, muss der Wurf dort eingetragen werden.{% endif %}
{%- if scratch %} Darf kein Feld den Wurf aufnehmen, streicht, {{ who }}, ein freies Feld mit 0 Punkten.{% endif %}
{%- for r in rows %} Die Reihe „{{ r }}“ wird von links nach rechts angekreuzt: Ein Kreuz schließt jedes Feld links davon für immer.{% endfor %}
{%- if optional and by != 'active' %} Jeder von ihnen darf auch nichts eintragen.{% elif optional %} Nichts einzutragen ist {{ 'nur erlaubt, wenn die Regel es sagt' if pass_rule else 'ebenfalls erlaubt' }}.{% endif %}""",
        "sentence": """
{{- who|capfirst }}, trägt den Wurf in ein freies Feld ein und bekommt die Punkte, die er dort wert ist; \
{% if uses %}{{ 'das Feld wird' if boxes == 1 else 'jedes der ' ~ num(boxes) ~ ' Felder wird' }} {{ freq(uses) }} ausgefüllt
{%- else %}jedes Feld nimmt so viele Einträge auf, wie der Spielzettel zeigt{% endif %}
{%- if columns > 1 %}, und zwar in jeder der {{ num(columns) }} Spalten{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, wählt:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
    "nl": {
        "who": WHO["nl"],
        "choice": "een open vakje, met de punten die het zou opleveren",
        "notes": """{%- for c in cols %} Kolom ‘{{ c.name }}’{% if c.mult != 1 %} telt {{ freq(c.mult) }}{% endif %}
{%- if c.mult != 1 and c.order != 'free' %} en{% endif %}
{%- if c.order == 'down' %} wordt van boven naar beneden ingevuld{% elif c.order == 'up' %} wordt van beneden naar boven ingevuld{% elif c.order == 'announced' %} neemt alleen het vakje dat deze beurt is aangekondigd{% elif c.order == 'row' %} wordt van boven naar beneden met gaten aangekruist: een kruisje sluit elk vakje erboven{% endif %}.{% endfor %}
{%- if announces %} Is deze beurt een vakje aangekondigd, dan moet de worp daar worden ingevuld.{% endif %}
{%- if scratch %} Mag geen vakje de worp opnemen, dan schrapt {{ who }} een open vakje voor 0 punten.{% endif %}
{%- for r in rows %} De rij ‘{{ r }}’ wordt van links naar rechts aangekruist: een kruisje sluit elk vakje links ervan voorgoed.{% endfor %}
{%- if optional and by != 'active' %} Ieder van hen mag ook niets invullen.{% elif optional %} Niets invullen mag {{ 'alleen als de regel het zegt' if pass_rule else 'ook' }}.{% endif %}""",
        "sentence": """
{{- who|capfirst }}, schrijft de worp in een open vakje en krijgt de punten die hij daar waard is; \
{% if uses %}{{ 'het vakje' if boxes == 1 else 'elk van de ' ~ num(boxes) ~ ' vakjes' }} wordt {{ freq(uses) }} ingevuld
{%- else %}elk vakje krijgt zoveel invullingen als het scoreblad aangeeft{% endif %}
{%- if columns > 1 %}, in elk van de {{ num(columns) }} kolommen{% endif %}.{{ ' ' ~ notes if notes }}
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, kiest:\n{{ choice }}{{ '\n' ~ notes if notes }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
    },
}

BANK = {  # push your luck: bank (the step's effects, the turn's rolling ends) or roll on
    "en": {
        "who": WHO["en"],
        "choice": "bank, or roll on",
        "sentence": """
{{- who|capfirst }} banks, which ends the rolling, or rolls on{{ ' (banking only when the rule allows it)' if ruled }}.
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }} chooses:\n{{ choice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
        "stop": "bank",
    },
    "de": {
        "who": WHO["de"],
        "choice": "Punkte sichern oder weiterwürfeln",
        "sentence": """
{{- who|capfirst }}, sichert die Punkte, womit das Würfeln endet, oder würfelt weiter{{ ' (sichern nur, wenn die Regel es erlaubt)' if ruled }}.
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, wählt:\n{{ choice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
        "stop": "sichern",
    },
    "nl": {
        "who": WHO["nl"],
        "choice": "de punten veiligstellen of doorgooien",
        "sentence": """
{{- who|capfirst }}, stelt de punten veilig, waarmee het gooien stopt, of gooit door{{ ' (veiligstellen alleen als de regel het toestaat)' if ruled }}.
{%- for e in effects %} {{ e.sentence }}{% endfor %}""",
        "label": "{{ who }}, kiest:\n{{ choice }}{% for e in effects %}\n{{ e.label }}{% endfor %}",
        "stop": "veiligstellen",
    },
}

COLUMNS = {  # a list of column names in a sentence
    "en": """{% if acols|length == 1 %}the column “{{ acols[0] }}”{% else %}the columns
{%- for c in acols %} “{{ c }}”{{ ' and' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
    "de": """{% if acols|length == 1 %}der Spalte „{{ acols[0] }}“{% else %}den Spalten
{%- for c in acols %} „{{ c }}“{{ ' und' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
    "nl": """{% if acols|length == 1 %}kolom ‘{{ acols[0] }}’{% else %}de kolommen
{%- for c in acols %} ‘{{ c }}’{{ ' en' if loop.revindex == 2 else ',' if not loop.last }}{% endfor %}{% endif %}""",
}

ANNOUNCE = {
    "en": {
        "who": WHO["en"],
        "choice": "{{ 'an open box to announce, or none' if optional else 'an open box to announce' }}",
        "sentence": """
{{- who|capfirst }} {{ 'may announce' if optional else 'announces' }} an open box{{ ' of ' ~ columns_text if acols }}; \
this turn's dice must then be written there.
{%- if optional and acols %} Without an announcement, {{ columns_text }} cannot be written this turn.{% endif %}""",
        "label": "{{ who }} chooses:\n{{ choice }}\n(this turn's write goes there)",
    },
    "de": {
        "who": WHO["de"],
        "choice": "{{ 'ein freies Feld zum Ansagen, oder keins' if optional else 'ein freies Feld zum Ansagen' }}",
        "sentence": """
{{- who|capfirst }}, {{ 'darf' if optional else 'sagt' }} ein freies Feld{{ ' aus ' ~ columns_text if acols }} {{ 'ansagen' if optional else 'an' }}; \
der Wurf dieses Zuges muss dann dort eingetragen werden.
{%- if optional and acols %} Ohne Ansage kann in diesem Zug nichts in {{ columns_text }} eingetragen werden.{% endif %}""",
        "label": "{{ who }}, wählt:\n{{ choice }}\n(der Eintrag des Zuges geht dorthin)",
    },
    "nl": {
        "who": WHO["nl"],
        "choice": "{{ 'een open vakje om aan te kondigen, of geen' if optional else 'een open vakje om aan te kondigen' }}",
        "sentence": """
{{- who|capfirst }}, {{ 'mag' if optional else 'kondigt' }} een open vakje{{ ' uit ' ~ columns_text if acols }} {{ 'aankondigen' if optional else 'aan' }}; \
de worp van deze beurt moet dan daar worden ingevuld.
{%- if optional and acols %} Zonder aankondiging kan deze beurt niets in {{ columns_text }} worden ingevuld.{% endif %}""",
        "label": "{{ who }}, kiest:\n{{ choice }}\n(de invulling van deze beurt gaat daarheen)",
    },
}

END = {
    "en": {
        "sentence": """
{%- if unbounded %}The game has no fixed number of rounds: it ends {{ 'as soon as the end condition holds' if end_mode == 'now' else 'at the end of the round in which the end condition first holds' if end_mode == 'round' else 'once the end condition holds and every other player has had one more turn' }}; \
{%- else %}{% if total_rounds == 1 %}After one round{% else %}After {{ num(total_rounds) }} rounds{% endif %}
{%- if fills_sheet %}, when every box is filled,{% endif %} the game ends
{%- if early_end %} (or {{ 'at once, when a write meets the end condition' if end_mode == 'now' else 'at the end of the round in which the end condition first holds' if end_mode == 'round' else 'once the end condition holds and every other player has had one more turn' }}){% endif %}; \
{%- endif %}
{%- if score_name %}{% if solo %} the aim is the {{ extreme }} score in “{{ score_name }}”{% else %} the player with the {{ extreme }} score in “{{ score_name }}” wins{% endif %}
{%- for tie in ties %}; if that is equal, “{{ tie }}” decides{% endfor %}.
{%- else %}{% if solo %} the aim is the {{ extreme }} total{% else %} the player with the {{ extreme }} total wins{% endif %} \
(all boxes{{ ' plus bonuses' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
    "de": {
        "sentence": """
{%- if unbounded %}Das Spiel hat keine feste Zahl von Runden: Es endet {{ 'sofort, wenn die Endbedingung erfüllt ist' if end_mode == 'now' else 'am Ende der Runde, in der die Endbedingung erfüllt wird' if end_mode == 'round' else 'wenn die Endbedingung erfüllt ist und jeder andere Spieler noch einen Zug hatte' }}; \
{%- else %}{% if total_rounds == 1 %}Nach einer Runde{% else %}Nach {{ num(total_rounds) }} Runden{% endif %}
{%- if fills_sheet %}, wenn alle Felder ausgefüllt sind,{% endif %} ist das Spiel zu Ende
{%- if early_end %} (oder {{ 'sofort, wenn ein Eintrag die Endbedingung erfüllt' if end_mode == 'now' else 'am Ende der Runde, in der die Endbedingung erfüllt wird' if end_mode == 'round' else 'wenn die Endbedingung erfüllt ist und jeder andere Spieler noch einen Zug hatte' }}){% endif %}; \
{%- endif %}
{%- if score_name %}{% if solo %} das Ziel ist der {{ extreme }} Wert bei „{{ score_name }}“{% else %} es gewinnt, wer den {{ extreme }}n Wert bei „{{ score_name }}“ hat{% endif %}
{%- for tie in ties %}; bei Gleichstand entscheidet „{{ tie }}“{% endfor %}.
{%- else %}{% if solo %} das Ziel ist die {{ extreme }} Gesamtsumme{% else %} es gewinnt, wer die {{ extreme }} Gesamtsumme hat{% endif %} \
(alle Felder{{ ' und Boni' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
    "nl": {
        "sentence": """
{%- if unbounded %}Het spel heeft geen vast aantal rondes: het is afgelopen {{ 'zodra aan de eindvoorwaarde is voldaan' if end_mode == 'now' else 'aan het einde van de ronde waarin aan de eindvoorwaarde wordt voldaan' if end_mode == 'round' else 'als aan de eindvoorwaarde is voldaan en elke andere speler nog één beurt heeft gehad' }}; \
{%- else %}{% if total_rounds == 1 %}Na één ronde{% else %}Na {{ num(total_rounds) }} rondes{% endif %}
{%- if fills_sheet %}, als alle vakjes zijn ingevuld,{% endif %} is het spel afgelopen
{%- if early_end %} (of {{ 'meteen, als een invulling aan de eindvoorwaarde voldoet' if end_mode == 'now' else 'aan het einde van de ronde waarin aan de eindvoorwaarde wordt voldaan' if end_mode == 'round' else 'als aan de eindvoorwaarde is voldaan en elke andere speler nog één beurt heeft gehad' }}){% endif %}; \
{%- endif %}
{%- if score_name %}{% if solo %} het doel is de {{ extreme }} waarde bij ‘{{ score_name }}’{% else %} wie de {{ extreme }} waarde bij ‘{{ score_name }}’ heeft, wint{% endif %}
{%- for tie in ties %}; bij gelijkstand beslist ‘{{ tie }}’{% endfor %}.
{%- else %}{% if solo %} het doel is het {{ extreme }} totaal{% else %} wie het {{ extreme }} totaal heeft, wint{% endif %} \
(alle vakjes{{ ' plus bonussen' if bonuses }}).{% endif %}""",
        "label": "{{ sentence }}",
    },
}

#: A write's effect on a counter (`Effect`): whose counter changes, in a sentence for the rule pages
#: (followed by the model's own `rule` text, if any) and a line for the diagram.
EFFECT = {
    "en": {
        "sentence": """
{%- if whose == 'me' %}{{ doer }} also changes {{ 'the writer' if kind == 'write' else 'the player' }}'s “{{ counter }}”.
{%- elif whose == 'others' %}{{ doer }} also changes “{{ counter }}” of every other player.
{%- elif whose == 'all' %}{{ doer }} also changes every player's “{{ counter }}”.
{%- else %}{{ doer }} also changes the game's “{{ counter }}”.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}then: own “{{ counter }}” changes
{%- elif whose == 'others' %}then: every other player's “{{ counter }}” changes
{%- elif whose == 'all' %}then: every player's “{{ counter }}” changes
{%- else %}then: the game's “{{ counter }}” changes{% endif %}""",
    },
    "de": {
        "sentence": """
{%- if whose == 'me' %}{{ doer }} ändert auch „{{ counter }}“ des Spielers, der {{ 'einträgt' if kind == 'write' else 'am Zug ist' }}.
{%- elif whose == 'others' %}{{ doer }} ändert auch „{{ counter }}“ jedes anderen Spielers.
{%- elif whose == 'all' %}{{ doer }} ändert auch „{{ counter }}“ aller Spieler.
{%- else %}{{ doer }} ändert auch „{{ counter }}“ des Spiels.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}dann: eigener Stand „{{ counter }}“ ändert sich
{%- elif whose == 'others' %}dann: Stand „{{ counter }}“ jedes anderen Spielers ändert sich
{%- elif whose == 'all' %}dann: Stand „{{ counter }}“ aller Spieler ändert sich
{%- else %}dann: Stand „{{ counter }}“ des Spiels ändert sich{% endif %}""",
    },
    "nl": {
        "sentence": """
{%- if whose == 'me' %}{{ doer }} verandert ook ‘{{ counter }}’ van wie {{ 'invult' if kind == 'write' else 'aan de beurt is' }}.
{%- elif whose == 'others' %}{{ doer }} verandert ook ‘{{ counter }}’ van elke andere speler.
{%- elif whose == 'all' %}{{ doer }} verandert ook ‘{{ counter }}’ van alle spelers.
{%- else %}{{ doer }} verandert ook ‘{{ counter }}’ van het spel.{% endif %}{{ ' ' ~ rule if rule }}""",
        "label": """
{%- if whose == 'me' %}dan: eigen stand ‘{{ counter }}’ verandert
{%- elif whose == 'others' %}dan: stand ‘{{ counter }}’ van elke andere speler verandert
{%- elif whose == 'all' %}dan: stand ‘{{ counter }}’ van alle spelers verandert
{%- else %}dan: stand ‘{{ counter }}’ van het spel verandert{% endif %}""",
    },
}

#: A counter (`Counter`) in a sentence: whose it is, where it starts, its bounds.
COUNTER = {
    "en": """“{{ counter }}”: {{ 'every player has one' if per == 'player' else 'every player has one, back to its start when their turn starts' if per == 'turn' else 'one for the whole game' }}, starting at {{ start }}
{%- if least is not none and most is not none %}; it stays between {{ least }} and {{ most }}
{%- elif least is not none %}; it never goes below {{ least }}
{%- elif most is not none %}; it never goes above {{ most }}{% endif %}. It carries over from turn to turn.""",
    "de": """„{{ counter }}“: {{ 'jeder Spieler hat einen eigenen Stand' if per == 'player' else 'jeder Spieler hat einen eigenen Stand, der zu Beginn seines Zuges zurückgesetzt wird' if per == 'turn' else 'ein Stand für das ganze Spiel' }}, zu Beginn {{ start }}
{%- if least is not none and most is not none %}; er bleibt zwischen {{ least }} und {{ most }}
{%- elif least is not none %}; er sinkt nie unter {{ least }}
{%- elif most is not none %}; er steigt nie über {{ most }}{% endif %}. Er bleibt von Zug zu Zug erhalten.""",
    "nl": """‘{{ counter }}’: {{ 'elke speler heeft een eigen stand' if per == 'player' else 'elke speler heeft een eigen stand, die aan het begin van de eigen beurt terugspringt' if per == 'turn' else 'één stand voor het hele spel' }}, bij het begin {{ start }}
{%- if least is not none and most is not none %}; die blijft tussen {{ least }} en {{ most }}
{%- elif least is not none %}; die komt nooit onder {{ least }}
{%- elif most is not none %}; die komt nooit boven {{ most }}{% endif %}. Die blijft van beurt tot beurt bewaard.""",
}


EXTREME = {"en": ("highest", "lowest"), "de": ("höchste", "niedrigste"), "nl": ("hoogste", "laagste")}
