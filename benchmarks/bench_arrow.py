"""Arrow backend speed: msgfilter.arrow over a 1M-row table vs DuckDB's WHERE on one thread.

    .venv/bin/python benchmarks/bench_arrow.py [--rows 1000000] [--repeat 7]

For each selector it prints rows per second of `msgfilter.arrow.evaluate` (the BooleanArray
of TRUE/FALSE/UNKNOWN) and of `msgfilter.arrow.filter` (the matching rows as a Table), and,
where DuckDB has the same query, DuckDB's `SELECT count(*) ... WHERE` and
`SELECT * ... WHERE` (to an Arrow table) over the same Arrow table with `SET threads=1`,
and the ratio of ours to theirs (above 1: we are faster). Arrow's own thread pool is set
to one thread too. Figures are the best of --repeat runs, taken in one process, so the
ratios compare like with like on a busy machine. Also: the cost of building a plan
(first call for a schema) and of a cached call on a tiny table.
"""

from __future__ import annotations

import argparse
import functools
import math
import time
from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

import msgfilter
import msgfilter.arrow as ma

# (label, selector, dialect, DuckDB WHERE clause or None)
CASES: list[tuple[str, str, str, str | None]] = [
    (
        "four predicates (typed columns)",
        "color = 'red' AND weight > 2.5 AND qty BETWEEN 1 AND 10 AND region IN ('eu','us')",
        "jms",
        "color = 'red' AND weight > 2.5 AND qty BETWEEN 1 AND 10 AND region IN ('eu','us')",
    ),
    ("string equality", "color = 'red'", "jms", "color = 'red'"),
    ("double comparison", "weight > 2.5", "jms", "weight > 2.5"),
    ("IN list", "region IN ('eu', 'us', 'apac')", "jms", "region IN ('eu', 'us', 'apac')"),
    ("LIKE prefix", "name LIKE 'ord\\_1%' ESCAPE '\\'", "jms", "name LIKE 'ord\\_1%' ESCAPE '\\'"),
    ("LIKE general", "name LIKE '%d_1_3%'", "jms", "name LIKE '%d_1_3%'"),
    # DuckDB's `/` on integers is a double division: `//` is Java's for positive values.
    (
        "long arithmetic",
        "qty * 3 - 1 > 20 OR qty / 4 = 2",
        "jms",
        "qty * 3 - 1 > 20 OR qty // 4 = 2",
    ),
    (
        "NOT, OR, IS NULL",
        "NOT (color = 'blue' OR note IS NULL) AND weight < 4",
        "jms",
        "NOT (color = 'blue' OR note IS NULL) AND weight < 4",
    ),
    ("map column (strings)", "m_color = 'red' AND m_region IN ('eu','us')", "jms", None),
    ("concatenation with a double", "'w' + weight <> 'w1.0'", "jms", None),
    ("rocketmq: string property vs number", "m_qty > 5 AND m_color = 'red'", "rocketmq", None),
    # amqp-sql has no BETWEEN, and its `/` is a float division, as DuckDB's.
    (
        "amqp-sql: five conditions",
        "color = 'red' AND weight > 2.5 AND qty >= 1 AND qty <= 10 AND region IN ('eu','us')",
        "amqp-sql",
        "color = 'red' AND weight > 2.5 AND qty >= 1 AND qty <= 10 AND region IN ('eu','us')",
    ),
    (
        "amqp-sql: arithmetic",
        "qty * 3 - 1 > 20 OR qty / 4 = 2.5 OR qty % 7 = 1",
        "amqp-sql",
        "qty * 3 - 1 > 20 OR qty / 4 = 2.5 OR qty % 7 = 1",
    ),
    ("amqp-sql: LIKE regex", "name LIKE '%d_1_3%'", "amqp-sql", "name LIKE '%d_1_3%'"),
    (
        "amqp-sql: fields",
        "p.subject LIKE 'ord%' AND h.priority > 4 AND color <> 'blue'",
        "amqp-sql",
        "\"properties.subject\" LIKE 'ord%' AND \"header.priority\" > 4 AND color <> 'blue'",
    ),
]


def make_table(rows: int, seed: int = 1) -> pa.Table:
    rng = np.random.default_rng(seed)
    colors = np.array(["red", "green", "blue", "yellow"])
    regions = np.array(["eu", "us", "apac", "latam"])
    color = colors[rng.integers(0, 4, rows)]
    region = regions[rng.integers(0, 4, rows)]
    qty = rng.integers(0, 20, rows)
    weight = np.round(rng.random(rows) * 5, 1)  # few distinct doubles, as prices are
    names = np.char.add("ord_", rng.integers(0, 100_000, rows).astype(str))
    note_mask = rng.random(rows) < 0.1
    # A map<string,string> as brokers carry properties, with the same values as text.
    keys = np.tile(np.array(["color", "region", "qty"]), rows)
    values = np.stack([color, region, qty.astype(str)], axis=1).reshape(-1)
    offsets = np.arange(0, 3 * rows + 1, 3, dtype=np.int32)
    properties = pa.MapArray.from_arrays(offsets, pa.array(keys), pa.array(values))
    return pa.table(
        {
            "color": pa.array(color),
            "weight": pa.array(weight),
            "qty": pa.array(qty, pa.int64()),
            "region": pa.array(region),
            "name": pa.array(names),
            "note": pa.array(np.full(rows, "n"), pa.string(), mask=note_mask),
            # AMQP header and properties fields, by msgfilter.layout's column names.
            "header.priority": pa.array(rng.integers(0, 10, rows), pa.int8(),
                                        mask=rng.random(rows) < 0.2),
            "properties.subject": pa.array(names),
            "properties": properties,
        }
    )


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def best_of_each(fns: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The best time of each function, running them in turn so that a busy spell on the
    machine hits all of them alike."""
    times = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
    return times


def _count(duck: Any, sql: str) -> Any:
    return duck.sql(sql).fetchall()


def _rows(duck: Any, sql: str) -> Any:
    return duck.sql(sql).to_arrow_table()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="", help="run the selectors whose label has this")
    args = parser.parse_args()

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = make_table(args.rows)
    # The map column's keys as identifiers: rename them so that typed columns don't win.
    mapped = table.set_column(
        table.schema.get_field_index("properties"),
        "properties",
        pa.MapArray.from_arrays(
            table.column("properties").chunk(0).offsets,
            pa.compute.binary_join_element_wise(
                "m_", table.column("properties").chunk(0).keys, ""
            ),
            table.column("properties").chunk(0).items,
        ),
    )
    duck = duckdb.connect()
    duck.execute("SET threads=1")
    # Typed selectors run over the typed columns only, the table DuckDB sees as well.
    typed = table.drop_columns(["properties"])
    duck.register("t", typed)

    rows = args.rows
    print(f"{rows:,} rows, best of {args.repeat}; Arrow and DuckDB on one thread each")
    print(f"pyarrow {pa.__version__}, duckdb {duckdb.__version__}\n")
    header = (
        f"{'selector':<38} {'evaluate':>10} {'filter':>10} {'duck count':>11} "
        f"{'duck rows':>10} {'eval/count':>10} {'filter/rows':>11}"
    )
    print(header + "\n" + "-" * len(header))
    for label, text, dialect, where in CASES:
        if args.only not in label:
            continue
        f = msgfilter.compile(text, dialect)
        data = mapped if label.startswith(("map", "rocketmq")) else typed
        ma.evaluate(f, data)  # build and cache the plan
        fns: list[Callable[[], Any]] = [
            functools.partial(ma.evaluate, f, data), functools.partial(ma.filter, f, data)
        ]
        if where is not None:
            fns.append(functools.partial(_count, duck, f"SELECT count(*) FROM t WHERE {where}"))
            fns.append(functools.partial(_rows, duck, f"SELECT * FROM t WHERE {where}"))
        ours, ours_filter, *duck_times = best_of_each(fns, args.repeat)
        line = f"{label:<38} {rows / ours / 1e6:>8.1f} M {rows / ours_filter / 1e6:>8.1f} M"
        if duck_times:
            theirs, theirs_rows = duck_times
            line += (
                f" {rows / theirs / 1e6:>9.1f} M {rows / theirs_rows / 1e6:>8.1f} M"
                f" {theirs / ours:>10.2f} {theirs_rows / ours_filter:>11.2f}"
            )
        print(line)

    if args.only in "amqp property filter":
        # An AMQP property filter (built from mappings, not text): prefix, equality, null.
        from msgfilter.amqp import property_filter

        pf = property_filter(
            properties={"subject": "&p:ord_1"},
            application_properties={"color": "red", "region": "&p:e", "note": None},
        )
        ma.evaluate(pf, typed)
        (took,) = best_of_each([functools.partial(ma.evaluate, pf, typed)], args.repeat)
        print(f"{'amqp property filter':<38} {rows / took / 1e6:>8.2f} M")

    print()
    four = CASES[0][1]
    cold = []
    for _ in range(5):
        ma.cache_clear()
        f = msgfilter.compile(four)
        start = time.perf_counter()
        ma.evaluate(f, table.slice(0, 10))
        cold.append(time.perf_counter() - start)
    f = msgfilter.compile(four)
    small = table.slice(0, 10)
    warm = best(lambda: ma.evaluate(f, small), 200)
    print(f"plan build + first evaluation (10 rows): {min(cold) * 1e3:.2f} ms")
    print(f"cached evaluation of a 10-row table:     {warm * 1e6:.0f} µs")


if __name__ == "__main__":
    main()
