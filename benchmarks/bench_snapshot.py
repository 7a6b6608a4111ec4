"""Index snapshots (msgfilter.index.snapshot) against pickle: seconds and bytes.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_snapshot.py [--workload broker]
        [--size 100000] [--pickle]

Builds the workload's index (tests/index_workloads.py), then times `save` to a file and
`load` from it after `msgfilter.purge()` (a cold compile cache, as after a restart: load
compiles each distinct text once), checks the loaded index has the same keys in order,
equal filters and the same answers on 200 messages, and with --pickle does the same
with pickle.dumps/pickle.loads.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import msgfilter
from index_workloads import WORKLOADS
from msgfilter import SubscriptionIndex
from msgfilter.index.snapshot import load, save


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workload", default="broker", choices=sorted(WORKLOADS))
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--pickle", action="store_true")
    args = parser.parse_args()
    selectors, messages = WORKLOADS[args.workload]
    print(f"{args.workload}, {args.size} subscriptions, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    msgfilter.purge()
    start = time.perf_counter()
    idx = SubscriptionIndex()
    for key, (text, dialect) in enumerate(selectors(args.size, 1)):
        idx.add(key, text, dialect=dialect)
    print(f"  build {time.perf_counter() - start:.1f} s", flush=True)
    msgs = messages(200, args.size, 2)
    want = idx.match_many(msgs)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "subs.idx"
        start = time.perf_counter()
        save(idx, path)
        saved = time.perf_counter() - start
        size = path.stat().st_size
        msgfilter.purge()
        start = time.perf_counter()
        again = load(path)
        loaded = time.perf_counter() - start
    assert list(again.keys()) == list(idx.keys())
    assert all(a == b for (_, a), (_, b) in zip(idx.items(), again.items(), strict=True))
    assert again.match_many(msgs) == want
    print(f"  snapshot: save {saved:.2f} s, load {loaded:.1f} s "
          f"({loaded / args.size * 1e6:.0f} µs/subscription), {size:,} bytes "
          f"({size / args.size:.0f} B/subscription)", flush=True)
    if args.pickle:
        start = time.perf_counter()
        blob = pickle.dumps(idx)
        dumped = time.perf_counter() - start
        msgfilter.purge()
        start = time.perf_counter()
        pickle.loads(blob)
        print(f"  pickle: dumps {dumped:.2f} s, loads {time.perf_counter() - start:.1f} s, "
              f"{len(blob):,} bytes", flush=True)
    print(f"  load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
