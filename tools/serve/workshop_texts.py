"""The workshop's words and the HTML it builds: the script's texts, the comparison table (with its
uncertainty) and the extras of a served rule page ("Edit a copy", the tap-a-step panel)."""
from __future__ import annotations

import math
from typing import Any

from ...interpreter.model.loader import bundled_models
from ...interpreter.model.frozen import LANGUAGES
from ..i18n import translator


# texts -----------------------------------------------------------------------------------------------

def client_texts(lang: str) -> dict[str, str]:
    """The workshop script's words, translated on the server."""
    _ = translator(lang).gettext
    return {
        "checking": _("Checking…"),
        "ok": _("The model passes the check."),
        "saved": _("Saved."),
        "not_saved": _("This copy is someone else's: start typing, and your changes go into a copy of your own."),
        "own_copy": _("This is your own copy now, with your changes; its link is in the address bar."),
        "errors": _("The check found these mistakes:"),
        "line": _("line {line}"),
        "refused": _("The model was refused:"),
        "who": _("Who decides"),
        "choice": _("What can be chosen"),
        "example": _("Example"),
        "nobody": _("Nobody decides here: the dice do."),
        "tap": _("Tap a step of the diagram to see what is decided there."),
        "preparing": _("Preparing the table…"),
        "computing": _("Computing: solving both versions and playing simulated games. This can take a minute."),
        "failed": _("The comparison failed:"),
    }


def compare_html(result: dict[str, Any], lang: str) -> str:
    """The comparison table (the measures of `rulebook compare`) as HTML, escaped."""
    from markupsafe import escape

    from ..i18n import number, percent
    _ = translator(lang).gettext
    variants = result["variants"]

    def expected(v: dict[str, Any]) -> str:
        """Exact from the solver, or the estimate with its 95 % interval (1.96 standard errors)."""
        if v["exact"]:
            return number(v["expected_score"], lang, 4)
        margin = 1.96 * v["stdev"] / math.sqrt(max(1, v["games"]))
        return _("{mean} ± {margin}").format(mean=number(v["expected_score"], lang, 1), margin=number(margin, lang, 1))
    players = {"optimal": _("optimal play (solver)"), "strong": _("strong bot (estimate)"),
               "greedy": _("greedy bot (estimate)")}
    rows: list[tuple[str, list[str]]] = [
        (_("Best play"), [players.get(v["player"], v["player"]) for v in variants]),
        (_("Expected score"), [expected(v) for v in variants]),
        (_("Standard deviation"), [number(v["stdev"], lang, 1) for v in variants]),
        (_("Greedy bot, mean"), [number(v["skill"]["greedy"], lang, 1) for v in variants]),
        (_("Random play, mean"), [number(v["skill"]["random"], lang, 1) for v in variants]),
        (_("Skill gap: best − greedy"), [number(v["skill"]["best_minus_greedy"], lang, 1) for v in variants]),
        (_("First player wins (two players)"),
         [percent(v["first_player"]["first"], lang) if v["first_player"] else "–" for v in variants]),
        (_("Turns per player"), [number(v["turns"], lang, 1) for v in variants]),
        (_("Rolls per player"), [number(v["rolls"], lang, 1) for v in variants]),
    ]
    names = result.get("boxes", {})
    for box, name in names.items():
        rows.append((_("{box}: scratched (0)").format(box=name[lang]),
                     [percent(v["zero_rate"][box], lang) if box in v["zero_rate"] else "–" for v in variants]))
    for bonus, name in result.get("bonuses", {}).items():
        rows.append((_("{bonus}: earned").format(bonus=name[lang]),
                     [percent(v["bonus_rate"][bonus], lang) if bonus in v["bonus_rate"] else "–" for v in variants]))
    labels = [_("The original") if v["label"] == "original" else _("Your copy") for v in variants]
    from ..documents.histogram import histogram_svg
    title = _("{game}: final scores in {games} games per variant").format(
        game=variants[-1]["name"][lang] if variants else "", games=number(variants[0]["games"] if variants else 0, lang))
    plot = histogram_svg({f"{label} ({v['player']})": v["totals"] for label, v in zip(labels, variants)}, title,
                         y_label=_("share of games"), x_label=_("final score"))
    head = "".join(f'<th scope="col">{escape(label)}</th>' for label in labels)
    body = "".join(f'<tr><th scope="row">{escape(title)}</th>' + "".join(f"<td>{escape(c)}</td>" for c in cells)
                   + "</tr>" for title, cells in rows)
    games = variants[0]["games"] if variants else 0
    measure = _("Measure")
    note = _("{games} simulated games per player and variant (seed {seed}); the expected score of "
             "optimal play is exact, from the solver; an estimate is shown with its 95% interval (±).").format(games=number(games, lang), seed=variants[0]["seed"] if variants else 1)
    return (f'<p class="compare-note">{escape(note)}</p><table class="compare" id="compare-table"><thead><tr>'
            f'<th scope="col">{escape(measure)}</th>{head}</tr></thead><tbody>{body}</tbody></table>'
            + f'<figure class="compare-plot">{plot}</figure>')


# the served rule pages ----------------------------------------------------------------------------------

def rule_page_extras(text: str, name: str, lang: str) -> str:
    """A bundled game's rule page as served: the "Edit a copy" button and the tap-a-step panel.

    The written site (`rulebook pages`) stays as it is; only the server adds these, since both need it.
    """
    from markupsafe import escape
    parts = name.split(".")
    if len(parts) != 3 or parts[0] not in bundled_models() or parts[1] not in LANGUAGES:
        return text
    model, lang = parts[0], parts[1]
    _ = translator(lang).gettext
    button, why = _("Edit a copy in the browser"), _("Change the rules and see at once what the change does.")
    form = (f'<form class="edit-copy" method="post" action="/workshop/{escape(model)}?lang={lang}">'
            f'<button type="submit">{escape(button)}</button> {escape(why)}</form>')
    start = text.find('<section id="model">')
    if start >= 0:
        at = text.find("</h2>", start)
        if at >= 0:
            text = text[:at + 5] + "\n" + form + text[at + 5:]
    tap = _("Tap a step of the diagram to see what is decided there.")
    panel = f'<aside id="step-panel" class="step-panel" aria-live="polite"><p>{escape(tap)}</p></aside>'
    figure = text.find('<figure class="diagram"')
    if figure >= 0:
        end = text.find("</figure>", figure)
        text = text[:end + 9] + "\n" + panel + text[end + 9:]
    head = '<link rel="stylesheet" href="/static/steps.css">\n<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
    text = text.replace("</head>", head + "</head>", 1)
    script = f'<script src="/static/steps.js" data-model="{escape(model)}" data-lang="{lang}" defer></script>\n'
    return text.replace("</body>", script + "</body>", 1)
