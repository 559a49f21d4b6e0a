"""A bounded load test of ``canfield play``'s server on 127.0.0.1 (issue 31): CLIENTS clients at once, each
with its own game, REQUESTS requests each, moves mixed with hints, solutions and state reads, while the
meter's worker searches every new position.

    python benchmarks/bench_play_load.py [--clients 50] [--requests 20] [--workers 1] [--games all]

``--games``: the games the clients play, client k the k-th of the list in turn (``all``: Canfield and
the six other games of docs/play.md, mixed; ``canfield``: Canfield alone, as issue 31 measured).

Prints the requests by kind with their median, 95th-percentile and worst latency (client side, from
sending the request to reading the whole answer), the errors (any 5xx, a refused connection, or a 4xx
that the request did not call for), the 429s (none expected: each client plays one game at a person's
pace limit), and how many positions the answers showed decided by the meter. Exits 1 when there was an error
or the moves' 95th percentile passed 50 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--settle", type=float, default=2.0, help="seconds each client waits before its last read")
    ap.add_argument("--games", default="all", help="comma-separated games the clients play in turn, or all")
    a = ap.parse_args(argv)
    every = ["canfield", "nine-packets", "aces-and-kings", "bisley", "suit-neighbours", "ten-columns",
             "ten-columns-dealt"]
    games = every if a.games == "all" else a.games.split(",")
    exe = str(Path(sys.executable).with_name("canfield"))
    srv = subprocess.Popen([exe, "play", "--seed", "0", "--no-browser", "--port", "0", "--workers", str(a.workers),
                            "--meter-seconds", "10"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = srv.stdout.readline()
        m = re.search(r"http://([\d.]+):(\d+)/", line)
        if not m:
            print("the server did not start:", line, file=sys.stderr)
            return 1
        host, port = m.group(1), int(m.group(2))
        for _ in range(100):
            try:
                http.client.HTTPConnection(host, port, timeout=1).request("GET", "/api")
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(3)   # the worker process loads the solver
        lat: dict[str, list[float]] = {}
        errors: list[str] = []
        codes: dict[int, int] = {}
        final: list[dict] = []
        decided_seen: set = set()
        lock = threading.Lock()

        def client(k: int) -> None:
            rng = random.Random(k)
            conn = http.client.HTTPConnection(host, port, timeout=30)

            def req(kind: str, method: str, path: str, body: dict | None = None, ok=(200,),
                    also: str | None = None) -> dict | None:
                t0 = time.perf_counter()
                try:
                    conn.request(method, path, body=None if body is None else json.dumps(body),
                                 headers={"Content-Type": "application/json"})
                    r = conn.getresponse()
                    data = r.read()
                except OSError as e:
                    with lock:
                        errors.append(f"{kind}: {e}")
                    return None
                dt = time.perf_counter() - t0
                with lock:
                    lat.setdefault(kind, []).append(dt)
                    if also:
                        lat.setdefault(also, []).append(dt)
                    codes[r.status] = codes.get(r.status, 0) + 1
                    if r.status not in ok and r.status != 429:
                        errors.append(f"{kind} {path}: {r.status} {data[:120]!r}")
                out = json.loads(data) if r.headers.get("content-type", "").startswith("application/json") else None
                if isinstance(out, dict) and out.get("meter", {}).get("state") in ("winnable", "lost"):
                    with lock:
                        decided_seen.add((out["id"], out["meter"]["moves"]) if "id" in out else id(out))
                return out

            game = games[k % len(games)]
            spec = {"seed": k} if game == "canfield" else {"game": game, "seed": k}
            s = req("new game", "POST", "/api/games", spec, ok=(201,))
            if s is None:
                return
            gid = s["id"]
            for _ in range(a.requests - 1):
                x = rng.random()
                if x < 0.6 and s["legal"]:
                    s = req("move", "POST", f"/api/games/{gid}/moves", {"move": rng.choice(s["legal"])},
                            also=f"move:{game}") or s
                elif x < 0.75:
                    s = req("state", "GET", f"/api/games/{gid}") or s
                elif x < 0.9:
                    req("hint", "GET", f"/api/games/{gid}/hint")
                elif x < 0.95:
                    req("solution", "GET", f"/api/games/{gid}/solution", ok=(200, 409, 400))
                elif s["can_undo"]:
                    s = req("undo", "POST", f"/api/games/{gid}/undo") or s
                time.sleep(rng.uniform(0.0, 0.05))       # a person's pace is slower; a bot's is not
            time.sleep(a.settle)
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=30)   # the server closes idle ones after 5 s
            last = req("final state", "GET", f"/api/games/{gid}") or {}
            with lock:
                final.append(last)

        t0 = time.perf_counter()
        threads = [threading.Thread(target=client, args=(k,)) for k in range(a.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        total = sum(len(v) for k, v in lat.items() if not k.startswith("move:"))
        print(f"games: {', '.join(games)}")
        print(f"{a.clients} clients x {a.requests} requests, {a.workers} meter worker(s): {total} requests in "
              f"{wall:.1f} s; status codes {dict(sorted(codes.items()))}; errors {len(errors)}")
        print(f"{'request':>24} {'n':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
        for kind, xs in sorted(lat.items()):
            print(f"{kind:>24} {len(xs):5d} {1000 * statistics.median(xs):10.1f} {1000 * _pct(xs, 0.95):8.1f} "
                  f"{1000 * max(xs):8.1f}")
        decided = sum(1 for f in final if f.get("meter", {}).get("state") in ("winnable", "lost"))
        print(f"meter: {len(decided_seen)} positions seen decided (winnable or lost) in answers during the run; "
              f"at the end ({a.settle:g} s after each client's last request) {decided} of {len(final)} games' current "
              "positions decided")
        for e in errors[:10]:
            print("error:", e)
        p95 = _pct(lat.get("move", []), 0.95)
        return 1 if errors or p95 > 0.050 else 0
    finally:
        srv.terminate()
        srv.wait(10)


if __name__ == "__main__":
    sys.exit(main())
