"""Load test of `rulebook serve` on loopback: many concurrent tables played to the end.

    python benchmarks/load_serve.py [--tables 50] [--mode mixed|bots] [--model yahtzee] [--time-limit 300]

Starts `rulebook serve` as a child process on 127.0.0.1 (a free port, a fresh SQLite file, no
pause before computer moves), then runs every table at once:

- mixed (default): each table has a client-driven seat (this script plays it with random legal
  decisions over HTTP, following its own WebSocket) and a greedy computer player on the server;
- bots: two computer players on the server, and this script only watches.

Every table also has a spectator WebSocket. Nothing may be lost: each spectator must see the
events 1..N exactly once and in order, N must equal the table's final sequence number and the
number of events stored, and the game must end with a ranking. Only loopback is used, the run is
bounded by --time-limit, and the server is stopped at the end.

Reports throughput (moves per second, all tables together) and latency percentiles: for the
client's moves (HTTP request to response) and for delivery (an update leaving the server to the
spectator receiving it). Exit code 0 if every table finished with nothing lost.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import urllib.error
import urllib.request

import websockets

HOST = "127.0.0.1"  # loopback only, always


@dataclass
class Result:
    table: str
    seq_seen: list[int] = field(default_factory=list)
    final_seq: int = 0
    stored: int = 0
    ranked: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return (self.error is None and self.ranked and self.final_seq > 0 and self.stored == self.final_seq
                and self.seq_seen == list(range(1, self.final_seq + 1)))


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    v = sorted(values)

    def at(q: float) -> float:
        return v[min(len(v) - 1, int(q * len(v)))]
    return {"n": len(v), "p50_ms": at(0.50) * 1000, "p90_ms": at(0.90) * 1000, "p99_ms": at(0.99) * 1000,
            "max_ms": v[-1] * 1000, "mean_ms": sum(v) / len(v) * 1000}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def choose(state: dict, rng: random.Random) -> str:
    """A random legal decision, read from the public state."""
    step = state["step"]
    if step["kind"] == "write":
        return "write " + rng.choice(state["choices"])["box"]
    if step["can_stop"] and rng.random() < 0.2:
        return "stop"
    kept = [d for d in state["dice"] if rng.random() < 0.5]
    return "keep " + (" ".join(map(str, sorted(kept))) or "none")


class Conn:
    """One keep-alive HTTP/1.1 connection with JSON in and out: a lean client, so that the
    latencies measured are the server's and not a client library's."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader = self.writer = None
        self.reconnects = 0

    async def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        """Like a browser: a connection the server closed (idle, or busy) is opened again and the
        request sent once more. Safe for moves too: each carries its position, so a move that did
        arrive the first time is refused with 409 and the current state, never made twice."""
        for attempt in range(3):
            try:
                return await self._request(method, path, body)
            except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError) as exc:
                await self.close()
                self.reconnects += 1
                if attempt == 2:
                    raise ConnectionError(f"{method} {path}: {exc.__class__.__name__} three times") from exc
        raise AssertionError("unreachable")

    async def _request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n")
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        line = await self.reader.readline()
        if not line:
            raise ConnectionResetError("closed by the server")
        status = int(line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "connection" and "close" in value.lower():
                close = True
        payload = json.loads(await self.reader.readexactly(length)) if length else {}
        if close:
            await self.close()
        return status, payload

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
            self.reader = self.writer = None


class Load:
    def __init__(self, port: int, args):
        self.port, self.args = port, args
        self.ws_base = f"ws://{HOST}:{port}"
        self.act_latency: list[float] = []
        self.delivery: list[float] = []
        self.requests = 0
        self.ws_reconnects = 0
        self.repeats = 0
        self.http_reconnects = 0

    async def follow(self, table: str, since: int):
        """The table's live stream as the page follows it: after a closed connection, connect
        again from the last event seen (the hello brings what was missed). Yields messages."""
        while True:
            try:
                async with websockets.connect(f"{self.ws_base}/ws/tables/{table}?since={since}",
                                              max_size=2**22) as ws:
                    async for text in ws:
                        msg = json.loads(text)
                        if msg.get("type") == "error":
                            raise RuntimeError(f"stream refused: {msg}")
                        for ev in msg.get("events") or ([msg["event"]] if msg.get("event") else []):
                            since = max(since, ev["seq"])
                        if (yield msg) == "done":
                            return
            except (websockets.ConnectionClosed, OSError) as exc:
                self.ws_reconnects += 1
                if self.ws_reconnects > 100 * self.args.tables:
                    raise RuntimeError(f"the stream keeps closing: {exc}") from exc
                await asyncio.sleep(0.05)

    async def spectator(self, table: str, result: Result, started: asyncio.Event) -> None:
        stream = self.follow(table, 0)
        try:
            state = None
            async for msg in stream:
                got = time.time()
                if msg.get("type") == "hello":
                    started.set()
                    result.seq_seen += [e["seq"] for e in msg["events"] if e["seq"] > len(result.seq_seen)]
                else:
                    if "at" in msg:
                        self.delivery.append(max(0.0, got - msg["at"]))
                    if msg.get("event") and msg["event"]["seq"] > len(result.seq_seen):
                        result.seq_seen.append(msg["event"]["seq"])
                if msg.get("state"):
                    state = msg["state"]
                if state is not None and (state["terminal"] or state.get("broken")):
                    break
        finally:
            await stream.aclose()
        if state and state.get("broken"):
            result.error = f"table stopped: {state['broken']}"

    async def player(self, http: Conn, table: str, seat: int, token: str, seed: int) -> None:
        rng = random.Random(seed)
        stream = self.follow(table, 0)
        try:
            state = (await stream.__anext__())["state"]
            while not state["terminal"]:
                if state["player"] == seat and not state["chance"]:
                    t0 = time.perf_counter()
                    status, body = await http.request("POST", f"/api/tables/{table}/act",
                                                      {"seat": seat, "token": token, "action": choose(state, rng),
                                                       "seq": state["seq"]})
                    self.act_latency.append(time.perf_counter() - t0)
                    self.requests += 1
                    if status == 409 and "state" in body:  # sent twice after a reconnect: already made
                        self.repeats += 1
                        state = body["state"]
                        continue
                    if status != 200:
                        raise RuntimeError(f"move refused: {status} {body}")
                    state = body["state"]
                    continue
                msg = await stream.__anext__()
                if msg.get("state") and msg["state"]["seq"] >= state["seq"]:
                    state = msg["state"]
        finally:
            await stream.aclose()

    async def table(self, i: int) -> Result:
        http = Conn(HOST, self.port)
        try:
            return await self._table(http, i)
        finally:
            self.http_reconnects += http.reconnects
            await http.close()

    async def _table(self, http: Conn, i: int) -> Result:
        mixed = self.args.mode == "mixed"
        seats = ([{"name": "client", "kind": "human"}, {"name": "server", "kind": "greedy"}] if mixed
                 else [{"name": "greedy", "kind": "greedy"}, {"name": "random", "kind": "random"}])
        # the table starts with nobody to move but the client, so the spectator misses nothing;
        # in bots mode the spectator's hello carries whatever already happened
        status, created = await http.request("POST", "/api/tables", {"model": self.args.model, "seats": seats,
                                                                      "seed": 1000 + i, "pace_ms": 0})
        self.requests += 1
        if status != 201:
            return Result("?", error=f"create refused: {status} {created}")
        result = Result(created["table"])
        started = asyncio.Event()
        try:
            tasks = [asyncio.create_task(self.spectator(result.table, result, started))]
            await started.wait()
            if mixed:
                tasks.append(asyncio.create_task(self.player(http, result.table, created["seat"], created["token"], i)))
            await asyncio.gather(*tasks)
            final = (await http.request("GET", f"/api/tables/{result.table}"))[1]
            events = (await http.request("GET", f"/api/tables/{result.table}/events"))[1]["events"]
            self.requests += 2
            result.final_seq = final["seq"]
            result.stored = len(events)
            result.ranked = bool(final.get("ranking"))
        except Exception as exc:  # noqa: BLE001 - reported per table
            result.error = f"{exc.__class__.__name__}: {exc}"
        return result

    async def run(self) -> tuple[list[Result], float]:
        start = time.perf_counter()
        results = await asyncio.wait_for(asyncio.gather(*(self.table(i) for i in range(self.args.tables))),
                                         self.args.time_limit)
        return list(results), time.perf_counter() - start


def start_server(port: int, db: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rulebook.tools.cli", "serve", "--host", HOST, "--port", str(port),
           "--db", str(db), "--bot-delay", "0", "--log-level", "warning",
           # one address plays every table here: the per-client quotas are raised to fit
           "--tables-per-hour", "10000", "--moves-per-minute", "1000000", "--connections-per-client", "10000"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: {proc.stderr.read()}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/api/games", timeout=2) as r:
                if r.status == 200:
                    return proc
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not answer within 30 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--mode", choices=("mixed", "bots"), default="mixed")
    p.add_argument("--model", default="yahtzee")
    p.add_argument("--time-limit", type=float, default=300, help="seconds for the whole run (default 300)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 500:
        p.error("--tables must be from 1 to 500")
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(port, Path(tmp) / "load.sqlite3")
        try:
            load = Load(port, args)
            try:
                results, seconds = asyncio.run(load.run())
            except (asyncio.TimeoutError, TimeoutError):
                print(f"load_serve: not finished within {args.time_limit:.0f} s", file=sys.stderr)
                return 1
        finally:
            stop_server(proc)
        server_log = proc.stderr.read() if proc.stderr else ""
    server_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    client_cpu = resource.getrusage(resource.RUSAGE_SELF)
    moves = sum(r.final_seq for r in results)
    bad = [r for r in results if not r.ok]
    report = {
        "tables": args.tables, "mode": args.mode, "model": args.model, "seconds": round(seconds, 2),
        "moves": moves, "moves_per_s": round(moves / seconds, 1), "requests": load.requests,
        "requests_per_s": round(load.requests / seconds, 1),
        "reconnects": {"http": load.http_reconnects, "websocket": load.ws_reconnects, "moves_sent_again": load.repeats},
        "move_latency": {k: round(v, 2) for k, v in percentiles(load.act_latency).items()},
        "delivery_latency": {k: round(v, 2) for k, v in percentiles(load.delivery).items()},
        "server_cpu_s": round(server_cpu.ru_utime + server_cpu.ru_stime, 2),
        "client_cpu_s": round(client_cpu.ru_utime + client_cpu.ru_stime, 2),
        "finished_ok": len(results) - len(bad), "lost_or_failed": len(bad),
        "failures": [{"table": r.table, "error": r.error, "seen": len(r.seq_seen), "final": r.final_seq,
                      "stored": r.stored} for r in bad[:5]],
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        ml, dl = report["move_latency"], report["delivery_latency"]
        print(f"{args.tables} concurrent {args.model} tables ({args.mode}) on {HOST}: {moves} moves in "
              f"{seconds:.1f} s = {report['moves_per_s']} moves/s, {report['requests_per_s']} HTTP requests/s")
        if ml.get("n"):
            print(f"  client move (HTTP round trip): p50 {ml['p50_ms']:.1f} ms, p90 {ml['p90_ms']:.1f} ms, "
                  f"p99 {ml['p99_ms']:.1f} ms, max {ml['max_ms']:.1f} ms over {ml['n']} moves")
        if dl.get("n"):
            print(f"  delivery to spectators: p50 {dl['p50_ms']:.1f} ms, p90 {dl['p90_ms']:.1f} ms, "
                  f"p99 {dl['p99_ms']:.1f} ms, max {dl['max_ms']:.1f} ms over {dl['n']} updates")
        rc = report["reconnects"]
        print(f"  reconnects: {rc['http']} HTTP, {rc['websocket']} WebSocket; {rc['moves_sent_again']} moves sent "
              f"again and refused as already made")
        try:
            print(f"  machine load (1/5/15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        except OSError:
            pass
        print(f"  CPU: server {report['server_cpu_s']} s, this client {report['client_cpu_s']} s "
              f"(both on this machine's {os.cpu_count()} cores)")
        print(f"  {report['finished_ok']} of {args.tables} tables finished with every event seen once and "
              f"in order and stored; {len(bad)} lost or failed")
        for f in report["failures"]:
            print(f"  failed: {f}")
    if bad and server_log.strip():
        print(server_log[-2000:], file=sys.stderr)
    return 0 if not bad else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
