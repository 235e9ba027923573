"""Compare rule variants side by side: scores, scratched boxes, bonuses, skill, first-player edge, length."""
from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

from ...interpreter.play.compare import Measures, Variant, compare, parse_variant
from ...interpreter.model.errors import UsageError
from ...interpreter.model.loader import load_model
from ..i18n import number, percent, pick_language, translator
from ..progress import progress_bar
from .outputs import output_file, write_output


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL", help="a bundled model's name or a model file")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE[,NAME=VALUE]",
                   help="options of MODEL for one variant (repeatable); without any, MODEL's defaults")
    p.add_argument("--model", dest="models", action="append", default=[], metavar="FILE",
                   help="another model file as a variant, with its default options (repeatable)")
    p.add_argument("--games", type=int, default=1000, help="simulated games per player and variant")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", type=Path, default=None, help="write the distributions of final scores (.svg)")
    p.add_argument("--force", action="store_true", help="replace the --plot file if it exists")
    p.add_argument("--no-cache", action="store_true", help="measure afresh and do not store the results")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="measure the variants as tasks of this Dask scheduler (e.g. tcp://host:8786): "
                        "the same results as here (needs the extra [dask])")
    p.add_argument("--versus", default=None, metavar="KIND:KIND",
                   help="two computer players against each other in every variant, e.g. win:optimal: the first "
                        "one's share of the games won with its standard error, half of the games seated first")
    p.add_argument("--lang", default=None)


def variants(args) -> list[tuple[Variant, object]]:
    """The variants asked for, each with its loaded model (errors name the variant)."""
    out = []
    for text in args.variant or [""]:
        options = parse_variant(text) if text else {}
        out.append((Variant(text or args.model, args.model, options), load_model(args.model, options)))
    for path in args.models:
        out.append((Variant(Path(path).name, path), load_model(path)))
    if len(out) < 2:
        raise UsageError("compare needs at least two variants",
                         "add --variant NAME=VALUE (options of the model) or --model FILE")
    return out


def run(args) -> int:
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.plot is not None and args.plot.suffix.lower() != ".svg":
        raise UsageError("--plot writes SVG; name the file *.svg, not '{name}'", name=args.plot.name)
    lang = pick_language(args.lang)
    chosen = variants(args)
    if args.plot is not None:  # checked before the games are played, not after
        output_file(args.plot, "--plot", [Path(m.path) for _v, m in chosen], args.force)
    versus = _versus(args.versus) if args.versus else None
    results = []
    if args.scheduler:  # every variant a task of the cluster (no progress bars: the workers play)
        from ...interpreter.adapters import cluster
        results = compare(chosen, args.games, args.seed, None, not args.no_cache,
                          lambda pairs: cluster.measure_variants(pairs, args.games, args.seed, args.scheduler))
    for variant, model in chosen if not args.scheduler else ():
        stages = _Stages(variant.label, lang)
        try:
            results += compare([(variant, model)], args.games, args.seed, lambda v: stages, not args.no_cache)
        finally:
            stages.close()
    if versus is not None:  # played here (not cached): the two kinds in every variant
        from ...interpreter.play.compare import head_to_head
        from .simulate import kind_name
        _ = translator(lang).gettext
        for m, (variant, model) in zip(results, chosen):
            label = _("{variant}: {first} against {second}").format(
                variant=variant.label, first=kind_name(versus[0], _), second=kind_name(versus[1], _))
            with progress_bar(label) as update:
                m.versus = head_to_head(model, versus, args.games, args.seed, update)
    if args.plot:
        from ..documents.histogram import histogram_svg
        _ = translator(lang).gettext
        series = {(_("{variant} ({player}, exact)") if m.exact_spread else _("{variant} ({player})")).format(
            variant=m.label, player=m.player): ({int(x): p for x, p in m.distribution.items()} if m.exact_spread else m.totals)
            for m in results}
        title = _("{game}: final scores in {games} games per variant").format(
            game=chosen[0][1].name[lang], games=number(args.games, lang))
        write_output(args.plot, histogram_svg(series, title, y_label=_("share of games"), x_label=_("final score")),
                     "--plot", args.force)
    if args.json:
        out = {"games": args.games, "seed": args.seed, "variants": [_public(m) for m in results]}
        if args.plot:
            out["plot"] = str(args.plot)
        print(json.dumps(out, indent=1))
        return 0
    print_table(results, [m for _, m in chosen], lang)
    return 0


class _Stages:
    """One progress bar (stderr, people only) per stage of measuring a variant."""

    def __init__(self, label: str, lang: str):
        _ = translator(lang).gettext
        self.names = {"solving": _("{variant}: solving").format(variant=label),
                      "best": _("{variant}: games of the best player").format(variant=label),
                      "greedy": _("{variant}: games of the greedy bot").format(variant=label),
                      "random": _("{variant}: random games").format(variant=label),
                      "two_players": _("{variant}: two-player games").format(variant=label)}
        self.stage: str | None = None
        self.stack: ExitStack | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self.close()
            self.stack, self.stage = ExitStack(), stage
            self.update = self.stack.enter_context(progress_bar(self.names.get(stage, stage)))
        self.update(done, total)

    def close(self) -> None:
        if self.stack is not None:
            self.stack.close()
            self.stack = None


def _versus(text: str) -> tuple[str, str]:
    """'win:optimal' → ('win', 'optimal'), 'reach:250:optimal' → ('reach:250', 'optimal'): two kinds of computer player."""
    from ...interpreter.players.registry import BOTS, REACH, is_kind
    kinds: list[str] = []
    for part in (k.strip().lower() for k in text.split(":")):
        if kinds and kinds[-1] + ":" == REACH:
            kinds[-1] += ":" + part
        else:
            kinds.append(part)
    if len(kinds) != 2 or not all(is_kind(k) for k in kinds):
        raise UsageError("--versus needs two computer players as KIND:KIND ({kinds}), not '{text}'",
                         kinds=", ".join(sorted(BOTS) + ["reach:T"]), text=text)
    return kinds[0], kinds[1]


def _rate(rate: float, stderr: float, lang: str) -> str:
    _ = translator(lang).gettext
    return _("{rate} ± {stderr}").format(rate=percent(rate, lang), stderr=percent(stderr, lang))


def _public(m: Measures) -> dict:
    data = m.to_json()
    data.pop("totals")  # the sampled scores go into the plot; the JSON keeps their percentiles
    if not data.get("exact_spread"):
        data.pop("distribution", None)
    return data


def print_table(results: list[Measures], models: list, lang: str) -> None:
    """One column per variant, one row per measure (rich)."""
    from rich.console import Console
    from rich.table import Column, Table
    from rich.text import Text

    from ..cli import printable
    _ = translator(lang).gettext

    def cell(text: str) -> Text:  # a model's or a file's text is shown, never read as markup or obeyed
        return Text(printable(str(text)))

    table = Table(*[Column(header=cell(h)) for h in [_("Measure"), *[m.label for m in results]]], show_edge=False)

    def row(title: str, values: list[str]) -> None:
        table.add_row(cell(title), *[cell(v) for v in values])

    players = {"optimal": _("optimal play (solver)"), "strong": _("strong bot (estimate)"),
               "greedy": _("greedy bot (estimate)")}
    row(_("Best play"), [players.get(m.player, m.player) for m in results])
    row(_("Expected score"), [number(m.expected_score, lang, 4 if m.exact else 1) for m in results])
    row(_("Spread of the scores"), [_("exact (solver)") if m.exact_spread else _("sampled") for m in results])
    row(_("Standard deviation"), [number(m.stdev, lang, 1) for m in results])
    row(_("Middle half of the scores"), [_("{low} to {high}").format(low=number(m.percentiles["p25"], lang),
                                                                  high=number(m.percentiles["p75"], lang))
                                      for m in results])
    row(_("Greedy bot, mean"), [number(m.skill["greedy"], lang, 1) for m in results])
    row(_("Random play, mean"), [number(m.skill["random"], lang, 1) for m in results])
    row(_("Skill gap: best − greedy"), [number(m.skill["best_minus_greedy"], lang, 1) for m in results])
    row(_("Skill gap: greedy − random"), [number(m.skill["greedy_minus_random"], lang, 1) for m in results])
    row(_("First player wins (two players)"),
        [_rate(m.first_player["first"], m.first_player.get("first_stderr", 0.0), lang) if m.first_player else "–"
         for m in results])
    row(_("Second player wins (two players)"),
        [_rate(m.first_player["second"], m.first_player.get("second_stderr", 0.0), lang) if m.first_player else "–"
         for m in results])
    if any(m.versus for m in results):
        from .simulate import kind_name
        v = next(m.versus for m in results if m.versus)
        first, second = (kind_name(k, _) for k in v["players"])
        for key, title in ((None, _("{first} against {second}: share won (a tie counts half)")),
                           ("first", _("{first} against {second}, seated first: share won")),
                           ("second", _("{first} against {second}, seated second: share won"))):
            row(title.format(first=first, second=second),
                [_rate((m.versus[key] if key else m.versus)["win_rate"], (m.versus[key] if key else m.versus)["win_rate_stderr"],
                       lang) if m.versus else "–" for m in results])
    row(_("Turns per player"), [number(m.turns, lang, 1) for m in results])
    row(_("Rolls per player"), [number(m.rolls, lang, 1) for m in results])
    names = {}
    for model in models:
        for b in model.boxes.values():
            names.setdefault(b.id, b.name[lang])
    bonus_names = {}
    for model in models:
        for b in model.bonuses:
            bonus_names.setdefault(b.id, b.name[lang])
    table.add_section()
    for box, name in names.items():
        row(_("{box}: scratched (0)").format(box=name),
            [percent(m.zero_rate[box], lang) if box in m.zero_rate else "–" for m in results])
    table.add_section()
    for bonus, name in bonus_names.items():
        row(_("{bonus}: earned").format(bonus=name),
            [percent(m.bonus_rate[bonus], lang) if bonus in m.bonus_rate else "–" for m in results])
    console = Console(highlight=False)
    games = results[0].games
    console.print(cell(_("{games} simulated games per player and variant (seed {seed}); the expected score of "
                         "optimal play is exact, from the solver.").format(games=number(games, lang),
                                                                            seed=results[0].seed)))
    for m in results:
        if m.exact_spread:
            console.print(cell(_("{variant}: the standard deviation and the middle half of the scores are exact, from the "
                                 "solver's distribution of the final score.").format(variant=m.label)))
        if m.unsolvable:
            console.print(cell(_("{variant}: not solvable ({reason}); the best bot's mean stands in.").format(
                variant=m.label, reason=m.unsolvable)))
    console.print(table)
