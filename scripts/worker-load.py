#!/usr/bin/env python3
"""Simulated remote workers against a coordinator (`arbiter serve`).

Each simulated worker is a task with its own HTTPS connection, as
`arbiter worker --server` would be: it claims one game, "plays" it for
--game-seconds (renewing its claim every third of the lease), and uploads
the game's real record, read from a store where one process played the same
tournament (seeded players play the same games), so that the coordinator
verifies and stores real games. It ends when the coordinator says the
tournament is finished, and prints games stored per second and the claim
and upload latencies.

Each simulated worker holds a token of its own from --tokens FILE (one a
line, as `arbiter tokens issue` prints them; worker n takes line n, wrapping),
so the coordinator sees as many workers as there are tokens; --token gives
them all one.

The workers are spread over --processes event loops (4 by default), each a
process of its own: one Python event loop doing a thousand TLS handshakes
in a second is itself at a full core, and its claims then wait for it, not
for the coordinator (real workers are a thousand machines).

Usage: scripts/worker-load.py --server https://127.0.0.1:8443 --tokens tokens.txt
           --ca-cert ca.pem --records one.db --workers 1000 [--game-seconds 2]
           [--processes 4]
"""

import argparse
import asyncio
import json
import multiprocessing
import random
import sqlite3
import ssl
import time
import urllib.parse


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    who = ap.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="one token for every simulated worker")
    who.add_argument("--tokens", help="a file of tokens, one a line: one for each worker")
    ap.add_argument("--ca-cert")
    ap.add_argument("--records", required=True, help="an SQLite store holding the same tournament, played")
    ap.add_argument("--workers", type=int, default=1000)
    ap.add_argument("--game-seconds", type=float, default=2.0)
    ap.add_argument("--tournament", type=int, default=1)
    ap.add_argument("--processes", type=int, default=4, help="event loops, each a process of its own")
    args = ap.parse_args()

    if args.tokens:
        with open(args.tokens) as f:
            args.token_list = [line.strip() for line in f if line.strip()]
        if not args.token_list:
            ap.error(f"{args.tokens}: no tokens")
    else:
        args.token_list = [args.token]
    db = sqlite3.connect(args.records)
    records = {index: text for index, text in db.execute("SELECT game_index, record FROM games")}
    pins = asyncio.run(Connection(args).call("GET", "pins"))[0]["tournaments"][str(args.tournament)]
    pins = json.dumps({"plugins": pins["plugins"], "engines": {}})
    # Every process starts its workers from the same instant (the monotonic
    # clock is the machine's, shared by processes).
    t0 = time.monotonic() + 0.5
    parts = max(1, min(args.processes, args.workers))
    jobs = [(args, records, pins, range(p, args.workers, parts), t0) for p in range(parts)]
    with multiprocessing.get_context("fork").Pool(parts) as pool:
        results = pool.starmap(load_part, jobs)
    report(args, results, t0)


class Connection:
    """One keep-alive HTTP/1.1 connection (TLS for https), as a worker holds."""

    def __init__(self, args, n=0):
        self.url = urllib.parse.urlparse(args.server)
        self.context = ssl.create_default_context(cafile=args.ca_cert) if self.url.scheme == "https" else None
        self.auth = "Bearer " + args.token_list[n % len(args.token_list)]
        self.reader = self.writer = None

    async def call(self, method, path, body=b""):
        """The answer's JSON and the time the exchange took; on a kept-alive
        connection the coordinator closed (after 10 s idle), once more on a
        new one, as a real worker's client does."""
        reused = self.writer is not None
        try:
            return await self.exchange(method, path, body)
        except (ConnectionError, IndexError, asyncio.IncompleteReadError):
            if not reused:
                raise
            return await self.exchange(method, path, body)

    async def exchange(self, method, path, body):
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                self.url.hostname, self.url.port, ssl=self.context)
        t0 = time.perf_counter()
        head = (f"{method} /api/worker/{path} HTTP/1.1\r\nHost: {self.url.netloc}\r\n"
                f"Authorization: {self.auth}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n")
        try:
            self.writer.write(head.encode() + body)
            status = int((await self.reader.readline()).split()[1])
            length = 0
            while (line := await self.reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            data = await self.reader.readexactly(length)
        except Exception:
            self.writer = None
            raise
        took = time.perf_counter() - t0
        if status != 200:
            raise RuntimeError(f"{path}: {status} {data[:200]!r}")
        return json.loads(data), took


def load_part(args, records, pins, workers, t0):
    """Runs the simulated workers numbered `workers` in this process's event loop: their stats."""
    random.seed()  # a forked process would repeat its parent's (and its siblings') random numbers
    return asyncio.run(load(args, records, pins, workers, t0))


async def load(args, records, pins, workers, t0):
    stats = {"claims": [], "claimed_at": [], "uploads": [], "heartbeats": [], "errors": [],
             "verdicts": {"stored": 0, "already_stored": 0, "duplicate": 0, "agrees": 0, "refused": 0,
                          "unconfirmed": 0}}
    await asyncio.sleep(max(0.0, t0 - time.monotonic()))
    await asyncio.gather(*(worker(args, n, Connection(args, n), records, pins, stats) for n in workers))
    stats["ended"] = time.monotonic()
    return stats


def report(args, results, t0):
    """Prints the stats of every process together."""
    claims = [c for r in results for c in r["claims"]]
    claimed_at = [at for r in results for at in r["claimed_at"]]
    uploads = [u for r in results for u in r["uploads"]]
    heartbeats = [h for r in results for h in r["heartbeats"]]
    errors = [e for r in results for e in r["errors"]]
    verdicts = {k: sum(r["verdicts"][k] for r in results) for k in results[0]["verdicts"]}
    elapsed = max(r["ended"] for r in results) - t0
    ms = lambda v: f"{v * 1000:.1f} ms"
    print(f"workers {args.workers} in {len(results)} processes, games {verdicts['stored']} stored, "
          f"{verdicts['duplicate']} duplicates, {verdicts['agrees']} played twice and equal, "
          f"{verdicts['refused']} refused, in {elapsed:.1f} s: {verdicts['stored'] / elapsed:.1f} games/s")
    print(f"claims {len(claims)}: p50 {ms(percentile(claims, 50))}, p99 {ms(percentile(claims, 99))}, "
          f"max {ms(max(claims))}")
    # Past the first two seconds, when every worker connects and claims.
    steady = [c for c, at in zip(claims, claimed_at) if at - t0 > 2]
    print(f"claims after the first 2 s {len(steady)}: p50 {ms(percentile(steady, 50))}, "
          f"p99 {ms(percentile(steady, 99))}")
    print(f"uploads {len(uploads)}: p50 {ms(percentile(uploads, 50))}, p99 {ms(percentile(uploads, 99))}")
    if heartbeats:
        print(f"heartbeats {len(heartbeats)}: p99 {ms(percentile(heartbeats, 99))}")
    for e in errors[:5]:
        print("error:", e)
    if errors:
        print(f"{len(errors)} errors")


async def worker(args, n, conn, records, pins, stats):
    # Workers start within a second of each other, not at one instant.
    await asyncio.sleep(random.random())
    slot = f"sim:{n}#0"
    claim = json.dumps({"slot": slot, "tournament": args.tournament, "most": 1}).encode()
    wait = 0
    while True:
        try:
            answer, took = await conn.call("POST", "claim", claim)
        except Exception as e:
            stats["errors"].append(f"claim: {e}")
            await asyncio.sleep(1)
            continue
        stats["claims"].append(took)
        stats["claimed_at"].append(time.monotonic())
        if not answer["games"]:
            if answer["queue"] == "finished":
                return
            # As `arbiter worker --server` does: about a game's time (at most
            # 0.2 s), then half as long again each time, up to 2 s.
            wait = min(max(wait * 1.5, 0.2), 2.0)
            await asyncio.sleep(wait)
            continue
        wait = 0
        key = answer["games"][0]["key"]
        held = json.dumps({"holder": answer["holder"], "games": [key]}).encode()
        lease = answer["lease_ms"] / 1000
        # Play: wait, renewing the claim every third of the lease.
        deadline = time.monotonic() + args.game_seconds * random.uniform(0.5, 1.5)
        while (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(left, lease / 3))
            if deadline - time.monotonic() > 0:
                stats["heartbeats"].append((await conn.call("POST", "heartbeat", held))[1])
        body = (f'{{"holder": {json.dumps(answer["holder"])}, "games": [{{"key": {json.dumps(key)}, '
                f'"record": {records[key["index"]]}, "pins": {pins}}}]}}').encode()
        try:
            result, took = await conn.call("POST", "upload", body)
        except Exception as e:
            stats["errors"].append(f"upload: {e}")
            continue
        stats["uploads"].append(took)
        for v in result["verdicts"]:
            kind = next(iter(v)) if isinstance(v, dict) else v
            stats["verdicts"][kind] = stats["verdicts"].get(kind, 0) + 1
            if isinstance(v, dict):
                stats["errors"].append(f"{kind}: {v[kind]}")


if __name__ == "__main__":
    main()
