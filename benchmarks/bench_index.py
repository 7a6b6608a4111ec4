"""SubscriptionIndex speed and memory on workloads that try to break it.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_index.py \
        [--workload friendly,broker,device,rocketmq,mixed,amqp,hot] [--sizes 10000,100000] \
        [--messages 500] [--rows 1000000] [--table-subs 10000] [--explain]

Workloads (tests/index_workloads.py): `friendly` is the one the index was built against
(tests/index_generators.py: most subscriptions narrowed by a tenant or customer
equality); `broker` (the same family with the selective predicates in scores, IN lists,
price/qty ranges and ORs), `device` (threshold alerts: ranges on two or three readings),
`rocketmq` (string properties compared as numbers), `mixed` (jms + rocketmq +
rocketmq-tag + pulsar-tag in one index), `amqp` (the broker shapes in amqp-sql) and `hot`
(one identifier in every signature, beside an attribute per subscription).
`--sizes 1000000` runs (slowly).

For each workload and size it prints:

- `match` µs/message: best of 3 passes of `idx.match` over the messages (fewer messages
  when a pass would be long: the count is printed);
- the naive loop's µs/message (`frozenset(k for k, f in items if f.matches(m))` over the
  same compiled filters) on a sample of the messages (smaller at larger sizes), and the
  ratio naive / index. On that sample the index's answers must equal the naive loop's:
  the benchmark stops with an AssertionError on any difference;
- matches per message (mean, max);
- candidates verified per message: how many times the index calls a compiled
  evaluator per message (always-checked subscriptions included; candidates the index
  decides alone are not verified and not counted). Filters are immutable, so the count
  is taken on a second index built over *counting proxies*: for each distinct filter, an
  instance of a subclass of its own class (so the index plans it exactly as the
  original: same tree, same equality and hash) whose `matches` attribute is a wrapper
  that increments a counter and calls the original `matches`. The index reads
  `filter.matches` once per entry and calls it for every candidate it verifies, so the
  counter is exactly the number of evaluator calls. That index's answers are checked
  equal to the real one's; its timings are not used;
- `add` µs of a new text of a known shape (same shapes as the workload, new literals:
  texts of another seed that the index lacks, compile cache warm) and of a new shape
  (identifiers and structure the workload does not have; `msgfilter.purge()` before each
  add: a cold compile), then removed again;
- total build seconds: `add(key, text, dialect)` of every subscription into an empty
  index after `msgfilter.purge()` (compiling included);
- `pickle.dumps` and `pickle.loads` seconds of the index (`loads` after `purge()`: it
  recompiles every filter, as a restarted broker would), and the same of a snapshot
  (`msgfilter.index.snapshot.dumps` / `loads`, its load after `purge()` too);
- bytes per subscription (tracemalloc, current traced memory after building a second
  index from the texts inside the traced region after `purge()`: compiled filters,
  compile cache entries and index structures included; the texts themselves were made
  before). Skipped above `--memory-max` subscriptions (a traced build is 2-3x slower).
  With it: the objects per subscription the cycle collector tracks, and the CPU time of
  one full collection (`gc.collect()`) while that index is alive: what a broker process
  pays on each of Python's full collections;
- `match_table` rows/s on `--rows` rows (messages of the workload as Arrow columns,
  `index_workloads.to_table`) at `--table-subs` subscriptions: first call (builds Arrow
  plans) and next call; its pairs on the first 300 rows are checked against per-row
  `match` of `msgfilter.arrow.messages`.

A summary table follows. Figures are noisy on a shared machine: compare the ratio, which
is measured in one process, and note the load average (printed).
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import msgfilter
from index_workloads import WORKLOADS, Selectors, to_table
from msgfilter import Filter, SubscriptionIndex
from msgfilter.index import snapshot


def _best(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


# -- counting proxies -----------------------------------------------------------------------

_PROXY_CLASSES: dict[type, type] = {}


def counting_proxy(f: Filter, counter: list[int]) -> Filter:
    """A filter equal to `f`, of a subclass of its class, whose `matches` counts its calls
    in `counter[0]` (see the module docstring). Only for this benchmark."""
    cls = type(f)
    sub = _PROXY_CLASSES.get(cls)
    if sub is None:
        sub = _PROXY_CLASSES[cls] = type(f"Counting{cls.__name__}", (cls,), {"__slots__": ()})
    proxy = object.__new__(sub)
    for klass in cls.__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            if name in ("__weakref__", "__dict__"):
                continue
            try:
                value = getattr(f, name)
            except AttributeError:
                continue
            object.__setattr__(proxy, name, value)
    inner = f.matches

    def matches(message: Any) -> bool:
        counter[0] += 1
        return inner(message)

    object.__setattr__(proxy, "matches", matches)
    return proxy


# -- one workload at one size ---------------------------------------------------------------


def build(texts: Selectors) -> SubscriptionIndex:
    idx = SubscriptionIndex()
    for key, (text, dialect) in enumerate(texts):
        idx.add(key, text, dialect=dialect)
    return idx


def _new_shapes(count: int) -> list[str]:
    """jms texts whose identifiers and structure no workload has."""
    out = []
    for i in range(count):
        parts = [f"zq{i}_{j} {('>', '<', '=', '<>')[j % 4]} {i + j}" for j in range(2 + i % 5)]
        joiner = " OR " if i % 2 else " AND "
        out.append(f"NOT (zz{i} LIKE 'x{i}%') AND ({joiner.join(parts)})")
    return out


def bench_one(workload: str, size: int, n_messages: int, memory_max: int,
              show_explain: bool, skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    selectors, messages_of = WORKLOADS[workload]
    row: dict[str, Any] = {"workload": workload, "size": size}
    texts = selectors(size, 1)
    msgs = messages_of(n_messages, size, 2)
    print(f"\n== {workload}, {size} subscriptions (load average {_load()})", flush=True)

    msgfilter.purge()
    start = time.perf_counter()
    idx = build(texts)
    row["build_s"] = time.perf_counter() - start
    items = idx.items()
    filters = [f for _, f in items]
    row["distinct"] = len(set(filters))
    print(f"  build {row['build_s']:.1f} s ({row['distinct']} distinct filters)", flush=True)

    # match: best of 3, on as many messages as fit ~4 s a pass.
    start = time.perf_counter()
    first = [idx.match(m) for m in msgs[:20]]
    per = (time.perf_counter() - start) / 20
    used = msgs[: max(20, min(len(msgs), int(4.0 / max(per, 1e-9))))]
    match = idx.match
    row["match_us"] = _best(lambda: [match(m) for m in used]) / len(used) * 1e6
    answers = [idx.match(m) for m in used]
    assert answers[:20] == first
    counts = [len(a) for a in answers]
    row["matches"] = statistics.mean(counts)
    row["matches_max"] = max(counts)
    row["messages"] = len(used)

    # naive loop on a sample, and the index must agree with it.
    sample = used[: max(5, min(len(used), 2_000_000 // size))]
    start = time.perf_counter()
    naive = [frozenset(k for k, f in items if f.matches(m)) for m in sample]
    row["naive_us"] = (time.perf_counter() - start) / len(sample) * 1e6
    row["naive_sample"] = len(sample)
    for n, (m, want) in enumerate(zip(sample, naive, strict=True)):
        got = answers[n]
        if got != want:
            raise AssertionError(
                f"{workload} at {size}: index answer differs from the naive loop on message "
                f"{m!r}: missing {sorted(want - got, key=str)[:10]}, extra "
                f"{sorted(got - want, key=str)[:10]}"
            )
    row["ratio"] = row["naive_us"] / row["match_us"]
    print(f"  match {row['match_us']:.1f} µs/msg ({len(used)} msgs), naive "
          f"{row['naive_us']:.1f} µs/msg ({len(sample)} msgs), ratio {row['ratio']:.1f}x; "
          f"matches/msg {row['matches']:.1f} (max {row['matches_max']})", flush=True)

    # candidates verified: an index over counting proxies of the same filters.
    counter = [0]
    proxies: dict[int, Filter] = {}
    counting = SubscriptionIndex()
    for key, f in items:
        proxy = proxies.get(id(f))
        if proxy is None:
            proxy = proxies[id(f)] = counting_proxy(f, counter)
        counting.add_filter(key, proxy)
    counter[0] = 0
    counted = [counting.match(m) for m in used]
    row["verified"] = counter[0] / len(used)
    assert counted == answers, f"{workload} at {size}: the counting index answers differently"
    del counting, proxies, counted
    print(f"  candidates verified/msg {row['verified']:.1f}", flush=True)

    # add: a new text of a known shape, and of a new shape (cold).
    present = set(texts)
    known = [t for t in selectors(size + 400, 77)[-400:] if t not in present][:200]
    del present
    start = time.perf_counter()
    for n, (text, dialect) in enumerate(known):
        idx.add(("known", n), text, dialect=dialect)
    row["add_known_us"] = (time.perf_counter() - start) / max(1, len(known)) * 1e6
    fresh = _new_shapes(30)
    spent = 0.0
    for n, text in enumerate(fresh):
        msgfilter.purge()
        start = time.perf_counter()
        idx.add(("new", n), text)
        spent += time.perf_counter() - start
    row["add_new_us"] = spent / len(fresh) * 1e6
    start = time.perf_counter()
    for n in range(len(known)):
        idx.remove(("known", n))
    for n in range(len(fresh)):
        idx.remove(("new", n))
    row["remove_us"] = (time.perf_counter() - start) / (len(known) + len(fresh)) * 1e6
    print(f"  add known shape {row['add_known_us']:.0f} µs, new shape (cold) "
          f"{row['add_new_us']:.0f} µs, remove {row['remove_us']:.1f} µs", flush=True)

    if "pickle" not in skip:
        _bench_pickle(idx, size, row)
    if show_explain:
        print("   ", idx.explain().replace("\n", "\n    "))
    del idx, items, filters

    # bytes per subscription, compiled filters included.
    if size <= memory_max and "memory" not in skip:
        msgfilter.purge()
        gc.collect()
        objects = len(gc.get_objects())
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        traced = build(texts)
        row["bytes_sub"] = (tracemalloc.get_traced_memory()[0] - before) / size
        tracemalloc.stop()
        # What the cycle collector walks on each full collection: the index's objects
        # that it tracks, and the CPU time of one full collection with them alive.
        gc.collect()
        row["tracked_sub"] = (len(gc.get_objects()) - objects) / size
        start = time.process_time()
        gc.collect()
        row["full_gc_ms"] = (time.process_time() - start) * 1e3
        del traced
        msgfilter.purge()
        print(f"  {row['bytes_sub']:.0f} B/sub (tracemalloc, compiled filters included); "
              f"{row['tracked_sub']:.1f} objects/sub tracked by the cycle collector, one full "
              f"collection {row['full_gc_ms']:.0f} ms (CPU)", flush=True)
    return row


def _bench_pickle(idx: SubscriptionIndex, size: int, row: dict[str, Any]) -> None:
    """pickle and snapshot round trips, each load after `purge()` (a fresh process)."""
    ways: tuple[tuple[str, str, Callable[[Any], bytes], Callable[[bytes], Any]], ...] = (
        ("pickle", "pickle.dumps / pickle.loads", pickle.dumps, pickle.loads),
        ("snapshot", "snapshot save / load", snapshot.dumps, snapshot.loads),
    )
    for name, label, dump, load in ways:
        start = time.perf_counter()
        blob = dump(idx)
        row[f"{name}_save_s"] = time.perf_counter() - start
        msgfilter.purge()
        start = time.perf_counter()
        again = load(blob)
        row[f"{name}_load_s"] = time.perf_counter() - start
        assert again.items() == idx.items()
        del again
        print(f"  {label} {row[f'{name}_save_s']:.2f} / {row[f'{name}_load_s']:.1f} s "
              f"({len(blob) / size:.0f} B/sub)", flush=True)
        del blob


def bench_table(workload: str, subs: int, rows: int) -> dict[str, Any]:
    import pyarrow as pa

    import msgfilter.arrow

    selectors, messages_of = WORKLOADS[workload]
    idx = build(selectors(subs, 1))
    base = to_table(messages_of(min(rows, 20_000), subs, 5))
    order = {k: n for n, k in enumerate(idx.keys())}
    head = base.slice(0, 300)
    got = idx.match_table(head)
    pairs = list(zip(got.column("row").to_pylist(), got.column("key").to_pylist(), strict=True))
    want = [(r, k) for r, m in enumerate(msgfilter.arrow.messages(head))
            for k in sorted(idx.match(m), key=order.__getitem__)]
    assert pairs == want, f"{workload}: match_table differs from per-row match"
    table = pa.concat_tables([base] * max(1, rows // base.num_rows))
    row: dict[str, Any] = {}
    for label in ("first", "next"):
        start = time.perf_counter()
        out = idx.match_table(table)
        seconds = time.perf_counter() - start
        row[f"table_{label}"] = table.num_rows / seconds
        print(f"  match_table ({label} call) {workload}, {subs} subs, {table.num_rows} rows: "
              f"{table.num_rows / seconds:,.0f} rows/s ({out.num_rows} pairs, {seconds:.1f} s)",
              flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workload", default="friendly,broker,device,rocketmq,mixed,hot")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--messages", type=int, default=500)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--table-subs", type=int, default=10_000)
    parser.add_argument("--memory-max", type=int, default=100_000,
                        help="skip the tracemalloc build above this many subscriptions")
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("--skip", default="",
                        help="measures to leave out, comma-separated: memory, pickle "
                             "(pickle and snapshots)")
    args = parser.parse_args()
    workloads = [w for w in args.workload.split(",") if w]
    for w in workloads:
        if w not in WORKLOADS:
            parser.error(f"unknown workload {w!r} (known: {', '.join(WORKLOADS)})")
    print(f"python {sys.version.split()[0]}, msgfilter {msgfilter.__version__}, "
          f"load average {_load()}, {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    results: list[dict[str, Any]] = []
    tables: dict[str, dict[str, Any]] = {}
    for w in workloads:
        for size in (int(s) for s in args.sizes.split(",") if s):
            results.append(bench_one(w, size, args.messages, args.memory_max, args.explain,
                                     frozenset(args.skip.split(","))))
        if args.rows:
            tables[w] = bench_table(w, args.table_subs, args.rows)

    print(f"\nload average at the end {_load()}")
    print("| workload | subs (distinct) | match µs/msg | naive µs/msg | ratio | matches/msg "
          "(max) | verified/msg | add known / new µs | build s | pickle dumps / loads s "
          "| snapshot save / load s | B/sub |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        memory = f"{r['bytes_sub']:,.0f}" if "bytes_sub" in r else "-"
        pickled, saved = (
            f"{r[f'{w}_save_s']:.2f} / {r[f'{w}_load_s']:,.1f}" if f"{w}_save_s" in r else "-"
            for w in ("pickle", "snapshot"))
        print(f"| {r['workload']} | {r['size']:,} ({r['distinct']:,}) | {r['match_us']:,.1f} | "
              f"{r['naive_us']:,.0f} | {r['ratio']:,.1f}x | {r['matches']:.1f} "
              f"({r['matches_max']}) | {r['verified']:,.1f} | {r['add_known_us']:,.0f} / "
              f"{r['add_new_us']:,.0f} | {r['build_s']:,.1f} | {pickled} | {saved} | {memory} |")
    if tables:
        print(f"\nmatch_table at {args.table_subs:,} subscriptions, {args.rows:,} rows: rows/s")
        print("| workload | first call | next call |\n|---|---|---|")
        for w, t in tables.items():
            print(f"| {w} | {t['table_first']:,.0f} | {t['table_next']:,.0f} |")


if __name__ == "__main__":
    main()
