"""Untrusted models checked and drawn in a separate process, bounded in size, time and memory.

A model typed into the workshop is untrusted input. Before any work its size is checked
(`MAX_SOURCE`); then one short-lived worker process (`python -m rulebook.tools.serve.sandbox`)
loads it exactly as `rulebook check` does and, if it is sound, writes its rule page, its diagram
and what each step of the diagram decides. The worker runs under `resource.setrlimit` limits on
memory (address space) and CPU time, and the server kills it after `WALL_SECONDS`, so a huge model,
a YAML alias bomb or a never-ending expression costs one worker a few seconds and is refused with
its reason while the server goes on serving others.

Workers start ahead of time (imports done, limits set) and each does exactly one job, so a check
costs no start-up and no job can leave anything behind for the next.
"""
from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

MAX_SOURCE = 256 * 1024  # bytes of YAML, refused before parsing
# A job's time on the clock, then the worker is killed: a backstop only, since a model cannot make a worker
# wait (the CPU and memory limits bound its work). With 45 s, a test run on two cores at load 11 had a sound
# copy's check refused beside a hostile one; 120 s leaves a machine that busy room.
WALL_SECONDS = 120.0
CPU_SECONDS = 8  # computing time of one check (RLIMIT_CPU, counted from the job's arrival)
MEMORY_BYTES = 1024 * 1024 * 1024  # RLIMIT_AS of a worker
MAX_OUTPUT = 8 * 1024 * 1024  # bytes of a worker's answer
MAX_WORKERS = 2  # jobs at once; more wait their turn
# a comparison solves and simulates: more time and memory, and it may write the solver's cache
COMPARE_CPU_SECONDS = 900
COMPARE_MEMORY_BYTES = 3 * 1024 * 1024 * 1024


class Refused(Exception):
    """A model the sandbox would not or could not finish: the reason in one sentence."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def check_size(source: str) -> None:
    """Refuse a model larger than MAX_SOURCE before anything parses it."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE:
        raise Refused(f"the model is {size / 1024:,.0f} KB; a model may have at most {MAX_SOURCE // 1024} KB")


@dataclass
class _Worker:
    proc: asyncio.subprocess.Process


class Sandbox:
    """Runs jobs in fresh, limited worker processes, one job per process."""

    def __init__(self, workers: int = MAX_WORKERS, wall: float = WALL_SECONDS, warm: bool = True):
        self.wall = wall
        self.keep_warm = warm
        self.closed = False
        self._slots = asyncio.Semaphore(workers)
        self._spare: _Worker | None = None

    async def _start(self) -> _Worker:
        env = dict(os.environ)
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "rulebook.tools.serve.sandbox", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env=env, limit=MAX_OUTPUT + 1024)
        return _Worker(proc)

    async def _take(self) -> _Worker:
        worker, self._spare = self._spare, None
        if worker is None or worker.proc.returncode is not None:
            worker = await self._start()
        return worker

    async def warm(self) -> None:
        """Start a spare worker, so the next job finds its imports done."""
        if self._spare is None and not self.closed:
            spare = await self._start()
            if self.closed or self._spare is not None:
                _kill(spare.proc)
                await spare.proc.wait()
            else:
                self._spare = spare

    async def close(self) -> None:
        self.closed = True
        if self._spare is not None:
            _kill(self._spare.proc)
            await self._spare.proc.wait()
            self._spare = None

    async def run(self, job: dict[str, Any], wall: float | None = None) -> dict[str, Any]:
        """One job in one worker: its answer, or Refused with the reason."""
        check_size(job.get("source", ""))
        wall = wall or self.wall
        async with self._slots:
            worker = await self._take()
            try:
                if self.keep_warm:
                    asyncio.get_running_loop().create_task(self._rewarm())
                proc = worker.proc
                data = (json.dumps(job, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass")
                try:
                    out, _ = await asyncio.wait_for(proc.communicate(data), wall)
                except asyncio.TimeoutError:
                    raise Refused(f"checking the model took longer than {wall:.0f} seconds; "
                                  "it was stopped (an expression or a loop that never ends?)") from None
                if len(out) > MAX_OUTPUT:
                    raise Refused("the model's pages are too large to show")
                if proc.returncode != 0 or not out.strip():
                    raise Refused(_death(proc.returncode))
                try:
                    return json.loads(out)
                except ValueError:
                    raise Refused(_death(proc.returncode)) from None
            finally:
                if worker.proc.returncode is None:
                    _kill(worker.proc)
                    await worker.proc.wait()

    async def _rewarm(self) -> None:
        try:
            await self.warm()
        except OSError:
            pass


def _kill(proc) -> None:
    try:
        proc.kill()
    except ProcessLookupError:
        pass


def _death(code: int | None) -> str:
    import signal
    if code is not None and code < 0 and -code in (signal.SIGXCPU, signal.SIGKILL):
        return f"checking the model used more than {CPU_SECONDS} seconds of computing time; it was stopped"
    if code == 3:
        return f"checking the model needed more than {MEMORY_BYTES // 2**20:,} MB of memory; it was stopped"
    return "checking the model failed; it was stopped"


# the worker process ---------------------------------------------------------------------------------

def _limit(kind: str) -> None:
    import resource
    compare = kind == "compare"
    memory = COMPARE_MEMORY_BYTES if compare else MEMORY_BYTES
    cpu = COMPARE_CPU_SECONDS if compare else CPU_SECONDS
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu += int(used.ru_utime + used.ru_stime) + 1  # the imports before the job do not count
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    # files: only the caches the code keeps (parser, schema note, solver tables), bounded in size; a larger
    # write fails (EFBIG) instead of killing the worker
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    size = 256 * 2**20 if compare else 64 * 2**20
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def compare_work(job: dict[str, Any]) -> dict[str, Any]:
    """`rulebook compare` of a copy with its original (a bundled model with its defaults)."""
    from ...interpreter.play.compare import Variant, compare
    from ...interpreter.model.errors import RulebookError
    from ...interpreter.model.loader import load_model, load_source
    try:
        copy = load_source(job["source"], str(job.get("file") or "copy.yaml"))
        pairs = []
        if job.get("original"):
            pairs.append((Variant("original", str(job["original"])), load_model(str(job["original"]))))
        pairs.append((Variant("copy", "copy"), copy))
        results = compare(pairs, int(job.get("games") or 200), 1)
    except RulebookError as exc:
        return {"error": str(exc)}
    boxes: dict[str, dict] = {}
    bonuses: dict[str, dict] = {}
    for _, model in pairs:
        for b in model.boxes.values():
            boxes.setdefault(b.id, dict(b.name))
        for b in model.bonuses:
            bonuses.setdefault(b.id, dict(b.name))
    return {"variants": [m.to_json() for m in results], "boxes": boxes, "bonuses": bonuses}


def probe_work(job: dict[str, Any]) -> dict[str, Any]:
    """Play one whole game of a copy with computer players, as a table of it would on the server.

    A copy is played on the server only after this worked inside the worker's limits: a model whose
    check passes but whose play is too costly (an exponential sheet, a huge keep rule) is refused here."""
    from ...interpreter.model.errors import RulebookError
    from ...interpreter.play.game import Game, Seat
    from ...interpreter.model.loader import load_source
    try:
        model = load_source(job["source"], str(job.get("file") or "copy.yaml"))
        players = max(model.min_players, min(2, model.max_players))
        game = Game(model, [Seat(f"P{i + 1}", "greedy") for i in range(players)], 1)
        for _ in game.run_bots():
            pass
        return {"ok": game.state.is_terminal()}
    except RulebookError as exc:
        return {"ok": False, "error": str(exc)}
    except RecursionError:
        return {"ok": False, "error": "the model is nested too deeply"}


def work(job: dict[str, Any]) -> dict[str, Any]:
    """Check a model as `rulebook check` does; if it is sound, its page, diagram and steps."""
    from ...interpreter.model.errors import ErrorList, RulebookError
    from ...interpreter.model.loader import load_source
    name = str(job.get("file") or "copy.yaml")
    lang = job.get("lang") if job.get("lang") in ("en", "de", "nl") else "en"
    try:
        model = load_source(job["source"], name, job.get("options") or {})
    except ErrorList as exc:
        return {"ok": False, "errors": [_error(e, lang) for e in exc.errors]}
    except RulebookError as exc:
        return {"ok": False, "errors": [_error(exc, lang)]}
    except RecursionError:
        return {"ok": False, "errors": [{"line": None, "col": None, "message": "the model is nested too deeply",
                                         "text": f"{name}: error: the model is nested too deeply"}]}
    out: dict[str, Any] = {"ok": True, "errors": [], "model": {"id": model.id, "name": model.name,
                                                               "hash": model.hash}}
    if job.get("render"):
        from .steps import step_infos
        from ..documents import pages
        svg = pages.diagram_svg(model, lang)
        site = pages.Site((model,), ("en", "de", "nl"))
        out["page"] = pages.render_game(model, lang, site, svg)
        out["diagram"] = svg
        out["steps"] = step_infos(model, lang)
    return out


def _error(err, lang: str) -> dict[str, Any]:
    """One message as `rulebook check` prints it in `lang`, with its line and column."""
    from ..i18n import error_text, translator
    pos = getattr(err, "pos", None)
    gettext = translator(lang).gettext
    return {"line": getattr(pos, "line", None), "col": getattr(pos, "col", None),
            "message": err.msg.render(gettext, lang), "hint": err.hint_msg.render(gettext, lang) if err.hint_msg else None,
            "text": error_text(err, lang)}


def main() -> int:
    # everything a job needs, imported before the job arrives; the limits hold from the job on
    from ...interpreter.model import loader
    from ...interpreter.solver import solve as solver
    from ..documents import pages, diagram  # noqa: F401
    from . import steps  # noqa: F401
    line = sys.stdin.readline(MAX_SOURCE * 4 + 4096)
    try:
        job = json.loads(line)
        kind = job.get("kind", "check")
        _limit(kind)
        result = {"compare": compare_work, "probe": probe_work}.get(kind, work)(job)
    except MemoryError:
        os._exit(3)
    sys.stdout.write(json.dumps(result))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
