"""SubscriptionIndex speed and memory on a realistic broker workload.

    .venv/bin/python benchmarks/bench_index.py [--sizes 1000,10000,100000] [--messages 2000]
        [--rows 1000000] [--table-subs 10000]

The workload (tests/test_index_workload.py): jms subscriptions with tenant/region/type
equalities, IN lists, ranges, prefixes, some ORs and NOTs, some unkeyable selectors and
duplicates; messages with missing and mixed-type properties. For each size it prints:
`match` µs per message and the naive loop's (every compiled filter's `matches`), their
ratio, deliveries per message, `add` µs per subscription (cold compile and cached
compile) and `remove`, bytes per subscription beyond the compiled filters (tracemalloc),
and `match_table` rows per second at --table-subs subscriptions on --rows rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import msgfilter
from msgfilter import SubscriptionIndex
from test_index_workload import realistic_messages, realistic_selectors


def _best(fn: Any, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_size(size: int, n_messages: int) -> None:
    texts = realistic_selectors(size)
    msgs = realistic_messages(n_messages, size)

    msgfilter.purge()
    idx = SubscriptionIndex()
    start = time.perf_counter()
    for i, text in enumerate(texts):
        idx.add(i, text)
    add_cold = (time.perf_counter() - start) / size * 1e6

    idx2 = SubscriptionIndex()
    start = time.perf_counter()
    for i, text in enumerate(texts):
        idx2.add(i, text)
    add_cached = (time.perf_counter() - start) / size * 1e6

    start = time.perf_counter()
    for i in range(size):
        idx2.remove(i)
    remove = (time.perf_counter() - start) / size * 1e6
    del idx2

    filters = [(i, msgfilter.compile(t)) for i, t in enumerate(texts)]
    t_index = _best(lambda: [idx.match(m) for m in msgs]) / len(msgs) * 1e6
    naive_msgs = msgs[: max(50, min(len(msgs), 200_000 // size))]
    t_naive = _best(
        lambda: [frozenset(k for k, f in filters if f.matches(m)) for m in naive_msgs], 1
    ) / len(naive_msgs) * 1e6
    deliveries = statistics.mean(len(idx.match(m)) for m in msgs)
    top = max(len(idx.match(m)) for m in msgs)
    for m in naive_msgs[:50]:
        assert idx.match(m) == frozenset(k for k, f in filters if f.matches(m))

    # Memory of the index beyond the compiled filters (which the cache already holds).
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    probe = SubscriptionIndex()
    for i, text in enumerate(texts):
        probe.add(i, text)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    per_sub = (after - before) / size
    distinct = len({f for _, f in filters})
    print(
        f"{size:>7} subs ({distinct} distinct filters): match {t_index:8.1f} µs/msg, "
        f"naive {t_naive:10.1f} µs/msg, ratio {t_naive / t_index:7.1f}x, "
        f"deliveries/msg {deliveries:5.1f} (max {top}); add {add_cold:6.1f} µs cold, "
        f"{add_cached:5.1f} µs cached; remove {remove:5.1f} µs; "
        f"{per_sub:6.0f} B/sub beyond the filters"
    )
    print("   ", idx.explain().replace("\n", "\n    "))


def bench_table(subs: int, rows: int) -> None:
    import pyarrow as pa

    texts = realistic_selectors(subs)
    idx = SubscriptionIndex()
    for i, text in enumerate(texts):
        idx.add(f"s{i}", text)
    msgs = realistic_messages(min(rows, 20_000), subs, seed=5)
    # Typed columns where a name has one type, the rest as properties map strings.
    columns: dict[str, list[Any]] = {
        name: [m.get(name) for m in msgs] for name in ("tenant", "region", "type", "sku", "owner")
    }
    columns["customer"] = [m.get("customer") for m in msgs]
    columns["amount"] = [float(m["amount"]) if "amount" in m else None for m in msgs]
    columns["priority"] = [m["priority"] if isinstance(m.get("priority"), int) else None
                           for m in msgs]
    base = pa.table(columns)
    reps = max(1, rows // base.num_rows)
    table = pa.concat_tables([base] * reps)
    start = time.perf_counter()
    out = idx.match_table(table)
    seconds = time.perf_counter() - start
    print(
        f"match_table: {subs} subs, {table.num_rows} rows: {table.num_rows / seconds:,.0f} rows/s"
        f" ({out.num_rows} (row, key) pairs, {seconds:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--table-subs", type=int, default=10_000)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",") if s):
        bench_size(size, args.messages)
    if args.rows:
        bench_table(args.table_subs, args.rows)


if __name__ == "__main__":
    main()
