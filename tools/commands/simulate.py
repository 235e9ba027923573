"""Play many games between computer players and report statistics."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ...interpreter.model.errors import UsageError
from ...interpreter.play.game import parse_players
from ...interpreter.players.registry import reach_target, win_is_exact
from ...interpreter.model.loader import load_model
from ...interpreter.play.simulate import run_games, summarize
from ..terminal.names import target_name
from .options import add_option_argument, parse_options
from .outputs import output_file, write_output
from ..i18n import number, percent, pick_language, translator
from ..progress import progress_bar


MAX_GAMES = 10_000_000


def add_arguments(p) -> None:
    p.add_argument("model", metavar="MODEL")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", default=None, help='computer players random, greedy, strong, optimal, win (plays to win) or reach:T (plays to score at least T), '
                        'e.g. "a:optimal,b:reach:250" '
                        '(default: as many greedy players as the game needs at least)')
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core this process may use)")
    p.add_argument("--engine", choices=("auto", "bulk", "game"), default="auto",
                   help="bulk: all games at once with numpy (greedy and optimal bots); game: one by one "
                        "through the per-game engine; auto (default): bulk where it can")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the blocks of games as tasks of this Dask scheduler (e.g. tcp://host:8786): "
                        "the same results as here (needs the extra [dask])")
    p.add_argument("--plot", type=Path, default=None, help="write a histogram of final scores (.svg)")
    p.add_argument("--force", action="store_true", help="replace the --plot file if it exists")
    p.add_argument("--lang", default=None)
    p.add_argument("--json", action="store_true")
    add_option_argument(p)


def kind_name(kind: str, _) -> str:
    """A computer player's kind in the user's language."""
    if kind.startswith("reach:"):
        return _("plays to reach {target}").format(target=kind.partition(":")[2])
    return {"human": _("human"), "random": _("random"), "greedy": _("greedy"), "optimal": _("optimal"),
            "strong": _("strong"), "win": _("plays to win")}.get(kind, kind)


def head_to_head(summary) -> list[tuple[float, float]] | None:
    """With two players: each one's share of the games won, a tie counted half, and its standard error."""
    if len(summary) != 2 or not summary[0].games:
        return None
    n = summary[0].games
    ties = summary[0].wins + summary[1].wins - n  # both first
    out = []
    for s in summary:
        p = (s.wins - ties / 2) / n
        out.append((p, (p * (1 - p) / n) ** 0.5))
    return out


def run(args) -> int:
    lang = pick_language(args.lang)
    _ = translator(lang).gettext
    model = load_model(args.model, parse_options(args.option))
    seats = parse_players(args.players or ",".join([_("Computer") + ":greedy"] * model.min_players))
    if any(s.kind == "human" for s in seats):
        raise UsageError("simulate plays computer players only (random, greedy, strong, optimal, win)")
    if not model.min_players <= len(seats) <= model.max_players:
        raise UsageError("{game} is for {least} to {most} players, not {count}", game=model.name,
                         least=model.min_players, most=model.max_players, count=len(seats))
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.jobs is None:  # both cores of a 2-core machine: results do not depend on the number of jobs
        args.jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.games > MAX_GAMES:
        raise UsageError("--games must be at most {most}, not {value}", most=MAX_GAMES, value=args.games)
    most_jobs = 4 * (os.cpu_count() or 1)
    if args.jobs > most_jobs:
        raise UsageError("--jobs must be at most {most} on this computer, not {value}", most=most_jobs, value=args.jobs)
    if args.plot is not None:  # checked before the games are played, not after
        output_file(args.plot, "--plot", [Path(model.path)], args.force)
    if args.plot is not None and args.plot.suffix.lower() != ".svg":
        raise UsageError("--plot writes SVG; name the file *.svg, not '{name}'", name=args.plot.name)
    exact = any(s.kind == "win" for s in seats) and win_is_exact(model)
    if any(s.kind == "optimal" for s in seats) or (any(s.kind == "win" for s in seats) and not exact):
        from ...interpreter.solver.solve import solved
        with progress_bar(_("solving")) as update:
            solved(model, update)
    if exact:  # the play-to-win seat's exact chances, for the players at the table; one process plays them
        from ...interpreter.players.exactwin import prepare
        with progress_bar(_("the whole game's states explored for the play-to-win player")) as update:
            prepare(model, len(seats), update)
        args.jobs = 1
    for target in sorted({reach_target(s.kind) for s in seats} - {None}):  # before any worker forks
        from ...interpreter.players.reach import reach_table
        with progress_bar(_("solving")) as update:
            reach_table(model, target, update)
    with progress_bar(translator(lang).ngettext("{n} game", "{n} games", args.games).format(n=number(args.games, lang))) as update:
        if args.scheduler:  # the same blocks of games as tasks of a Dask scheduler
            from ...interpreter.adapters import cluster
            results = cluster.run_games(model, seats, args.games, args.seed, args.scheduler, update, args.engine)
        else:
            results = run_games(model, seats, args.games, args.seed, args.jobs, update, args.engine)
    summary = summarize(model, seats, results)
    if args.plot:
        from ..documents.histogram import histogram_svg
        series = {f"{s.name} ({kind_name(s.kind, _)})": _totals_of(results, i) for i, s in enumerate(seats)}
        title = translator(lang).ngettext("{game}: {n} game", "{game}: {n} games", args.games).format(
            game=model.name[lang], n=number(args.games, lang))
        write_output(args.plot, histogram_svg(series, title, y_label=_("share of games"), x_label=_("final score")),
                     "--plot", args.force)
    if args.json:
        players = [s.__dict__ for s in summary]
        for entry, rate in zip(players, head_to_head(summary) or []):
            entry.update(win_rate=round(rate[0], 6), win_rate_stderr=round(rate[1], 6))
        print(json.dumps({"games": args.games, "seed": args.seed, "players": players}, indent=1))
        return 0
    from rich.console import Console
    from rich.table import Table
    console = Console(highlight=False, markup=False)
    for s in summary:
        console.rule(_("{player} ({kind}): {games} games").format(player=s.player, kind=kind_name(s.kind, _), games=number(s.games, lang)))
        # the grand total's figures; a model with its own final score (winner: score, e.g. points
        # per row) gets both, each line named
        scores = [(None, s.mean, s.stderr, s.stdev, s.percentiles)]
        if s.final is not None:
            f = s.final
            scores = [(_("Grand total"), *scores[0][1:]),
                      (f["name"][lang], f["mean"], f["stderr"], f["stdev"], f["percentiles"])]
        for name, mean, stderr, stdev, percentiles in scores:
            figures = dict(mean=number(mean, lang, 2), stderr=number(stderr, lang, 2), stdev=number(stdev, lang, 2))
            values = ", ".join(f"{k} {number(v, lang)}" for k, v in percentiles.items())
            if name is None:
                console.print(_("mean {mean} ± {stderr} (standard error), standard deviation {stdev}").format(**figures))
                console.print(_("percentiles: {values}").format(values=values))
            else:
                console.print(_("{score}: mean {mean} ± {stderr} (standard error), standard deviation {stdev}").format(
                    score=name, **figures))
                console.print(_("{score}, percentiles: {values}").format(score=name, values=values))
        if len(summary) > 1:
            console.print(_("wins (shared included): {wins} ({share})").format(wins=s.wins, share=percent(s.wins / s.games, lang)))
        rates = head_to_head(summary)
        if rates is not None:
            rate, se = rates[summary.index(s)]
            console.print(_("head to head: wins {share} ± {margin} of the games (standard error; a tie counts half)").format(
                share=percent(rate, lang), margin=percent(se, lang)))
        table = Table(_("Box"), _("scored 0"), show_edge=False)
        for box, rate in s.zero_rate.items():
            table.add_row(target_name(model, box, lang), percent(rate, lang))
        for bonus, rate in s.bonus_rate.items():
            name = next(b.name[lang] for b in model.bonuses if b.id == bonus)
            table.add_row(name, _("earned in {share} (mean {mean})").format(
                share=percent(rate, lang), mean=number(s.bonus_mean[bonus], lang, 2)))
        console.print(table)
    return 0


def _totals_of(results, seat: int) -> list[int]:
    """One seat's totals, from the columns of bulk games where they are there."""
    totals = getattr(results, "totals", None)
    return totals[:, seat].tolist() if totals is not None else [r.totals[seat] for r in results]
