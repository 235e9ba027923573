"""Which boxes may take a roll given a score sheet, and what each scores."""
from __future__ import annotations

import json

from ...interpreter.model.errors import UsageError, did_you_mean
from ...interpreter.model.loader import load_model
from ...interpreter.model.scoring import Scorer
from ..terminal.names import target_name
from .options import add_option_argument, parse_options


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--dice", required=True, help="the roll, e.g. 2,2,4,3,4")
    p.add_argument("--sheet", default="{}", help='filled boxes and their points, e.g. \'{"chance": 20}\'')
    p.add_argument("--roll-number", type=int, default=1, help="which roll of the turn this is (default 1)")
    p.add_argument("--lang", default=None, help="language of box names: en, de or nl")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_option_argument(p)


def parse_dice(text: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise UsageError("--dice needs whole numbers such as 2,2,4,3,4, not '{text}'", text=text) from None


def parse_sheet(text: str, model) -> dict[str, int]:
    from ...interpreter.model.limits import NumberTooLong, hint_for, limits, loads_json
    if len(text) > limits().file_bytes:
        raise UsageError("--sheet has {size} characters; the limit is {limit}", hint_for("file_bytes"),
                         size=len(text), limit=limits().file_bytes)
    try:
        sheet = loads_json(text)
    except json.JSONDecodeError as exc:
        raise UsageError("--sheet is not valid JSON (column {colno})", colno=exc.colno) from None
    except NumberTooLong as exc:
        raise UsageError("--sheet holds a number of {digits} digits; numbers may have at most {limit} digits",
                         hint_for("number_digits"), digits=exc.digits, limit=limits().number_digits) from None
    except (ValueError, RecursionError):
        raise UsageError("--sheet is not valid JSON (column {colno})", colno=1) from None
    if not isinstance(sheet, dict):
        raise UsageError("--sheet must be a JSON object of box names and points")
    for box, points in sheet.items():
        if box not in model.cells:
            raise UsageError("--sheet: unknown box '{box}'", did_you_mean(box, model.cells), box=box)
        if not isinstance(points, int) or isinstance(points, bool):
            raise UsageError("--sheet: the points of '{box}' must be a whole number", box=box)
    return sheet


def run(args) -> int:
    from ..i18n import pick_language, translator
    model = load_model(args.model, parse_options(args.option))
    dice = parse_dice(args.dice)
    sheet = parse_sheet(args.sheet, model)
    for d in dice:
        if not 1 <= d <= model.faces:
            raise UsageError("--dice: {d} is not a face of a {faces}-sided die", d=d, faces=model.faces)
    choices = Scorer(model).choices(dice, sheet, args.roll_number)
    if args.json:
        print(json.dumps({"dice": dice, "options": [
            {"box": c.box, "points": c.points, "bonus": c.bonus} for c in choices]}))
        return 0
    import sys
    from ..terminal.plaintable import render
    lang = pick_language(args.lang)
    _ = translator(lang).gettext
    rows = [[target_name(model, c.box, lang), str(c.points), str(c.bonus) if c.bonus else ""] for c in choices]
    if not choices:
        rows.append([_("(no open box may take these dice)"), "", ""])
    print(render(f"{model.name[lang]}: {' '.join(map(str, dice))}", [_("Box"), _("Points"), _("Write bonus")],
                 rows, right={1, 2}, encoding=getattr(sys.stdout, "encoding", None)))
    return 0
