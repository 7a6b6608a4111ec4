"""Spark backend speed: native Columns vs a plain Python UDF doing the same per-message
`matches`, counting the matches of a filtered frame.

    .venv/bin/python benchmarks/bench_spark.py [--rows 1000000 [10000000]] [--repeat 3]
        [--only 4-predicate [--only ...]] [--master local[2]] [--driver-memory 4g]

The data is `msgfilter demo-data`'s archive without payloads, written as Parquet once per
size (1M-row files of 128Ki-row groups, as demo-data writes them) and cached in Spark's
memory before timing, so the figures are the filtering work, not the file scan. For each
selector the script prints the seconds of `df.where(column).count()` for

* native: `msgfilter.spark.to_column` (Catalyst, generated code, no Python per row);
* arrow-udf: `msgfilter.spark.filter_udf`, the fallback: an Arrow UDF evaluating each
  batch with the Arrow backend's kernels (`filter.evaluate` once per distinct tuple of
  the values read, where no kernel exists: the activemq dialect);
* python-udf: a classic pickled UDF (`useArrow=False`) calling `filter.matches` on a
  dict of the row's properties and columns: the baseline the issue names;

and the ratios python-udf / native and python-udf / arrow-udf. A row of several filters
(the mixed-dialect one) ANDs their columns; its python-udf asks each filter in one call.
Figures are the median of --repeat runs, all in one session (local[2] unless --master
says otherwise): each selector's three queries are warmed up, then timed in turn round
after round, so the ratios compare like with like on a busy machine.
--explain prints each native plan and the size of its generated code.
"""

from __future__ import annotations

import argparse
import functools
import operator
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SELECTORS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    # (label, ((dialect, expression), ...)): several filters are ANDed, as a router
    # routing one frame by several subscriptions' filters at once.
    ("4-predicate jms", (("jms",
     "region = 'eu-west' AND tier IN ('gold', 'silver') AND priority >= 4 "
     "AND source <> 'batch'"),)),
    ("LIKE + OR jms", (("jms",
     "topic LIKE 'persistent://shop/orders/%' AND (priority > 6 OR redelivery_count > 0)"),)),
    ("rocketmq tags", (("rocketmq-tag", "order-paid || refund || payment"),)),
    ("pulsar anytag", (("pulsar-tag", "anytag: fragile, gift"),)),
    # RocketMQ's SQL92 over string properties: `amount` is text ('95.62') converted by
    # Double.valueOf to meet the double literal, as the broker does.
    ("rocketmq SQL", (("rocketmq",
     "region = 'eu-west' AND amount > 50.0 AND tier IN ('gold', 'silver')"),)),
    # Every value must be a tag: one pass over the map's entries for all of them.
    ("pulsar alltag", (("pulsar-tag", "alltag: fragile, gift"),)),
    # Conversions under an OR: each comparison converts `amount` (a text) again.
    ("rocketmq OR", (("rocketmq",
     "amount > 90.0 OR amount < 10.0 OR (amount BETWEEN 40 AND 45 AND region = 'eu-west')"),)),
    # Two properties, each converted once per row whatever the comparisons reading it
    # (a CASE of a cast would be pushed into each comparison: rocketmq_values.py).
    ("rocketmq conversions", (("rocketmq",
     "amount > 90.0 OR amount < 10.0 OR amount BETWEEN 40.0 AND 45.0 OR amount = 50.5 "
     "OR trace_id > 1.0E18 OR trace_id < 1.0E3"),)),
    # Many values: the values-only pre-test is one `exists` pass with IN (tags.py).
    ("pulsar anytag x10", (("pulsar-tag",
     "anytag: fragile, gift, urgent, a, b, c, d, e, f, g"),)),
    # ActiveMQ's value model: `priority` is an int column, an Integer to the dialect.
    ("activemq", (("activemq",
     "priority > 5 AND region LIKE 'eu-%' AND redelivery_count = 0"),)),
    # RabbitMQ 4.2's AMQP SQL over the same application properties: strings ordered
    # bytewise, `!=`, a long column against a double literal (exact, through its floor).
    ("amqp-sql", (("amqp-sql",
     "region = 'eu-west' AND tier IN ('gold', 'silver') AND priority > 3.5 "
     "AND source != 'batch' AND topic LIKE 'persistent://shop/%'"),)),
    # LIKE patterns RabbitMQ runs as regular expressions (`_`, several `%`): `rlike`.
    ("amqp-sql regex LIKE", (("amqp-sql",
     "topic LIKE 'persistent://shop/%/c_eated' OR region LIKE '%-w_st'"),)),
    # amqp-sql arithmetic: native, exact (integers in a long or a decimal by their
    # limits, backends/spark/amqp_arith.py); its fallback runs on the Arrow kernels.
    ("amqp-sql arithmetic", (("amqp-sql",
     "priority * 2 - 1 > 7 AND redelivery_count % 2 = 0 AND region = 'eu-west'"),)),
    # One frame routed by a JMS selector, a RocketMQ tag set and a Pulsar tag filter
    # together: the rows every one of them accepts.
    ("mixed dialects", (
        ("jms", "priority >= 4 AND region = 'eu-west'"),
        ("rocketmq-tag", "order-paid || refund"),
        ("pulsar-tag", "anytag: urgent, fragile"),
    )),
)


def write_archive(rows: int, directory: Path) -> None:
    import pyarrow.parquet as pq

    from msgfilter.jobs.demo import demo_table

    chunk = 1_000_000
    for index, start in enumerate(range(0, rows, chunk)):
        table = demo_table(min(chunk, rows - start), seed=100 + index, payload=False)
        # Row groups as `msgfilter demo-data` writes them: Spark splits a file by row
        # groups, and one group of a million rows would leave one of local[2]'s cores idle.
        pq.write_table(table, directory / f"part-{index:04d}.parquet",
                       row_group_size=128 * 1024)


def timed(actions: list[Callable[[], object]], repeat: int) -> list[tuple[float, object]]:
    """(median seconds, result) of each action: all warmed up first (code generation,
    Python workers, the JIT), then timed in turn, round after round, so that a change
    in the machine's load falls on every action alike."""
    results = [action() for action in actions]
    times: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for index, action in enumerate(actions):
            started = time.perf_counter()
            results[index] = action()
            times[index].append(time.perf_counter() - started)
    return [(statistics.median(t), r) for t, r in zip(times, results, strict=True)]


def python_udf(filters: list[Any]) -> Any:
    """The baseline: one pickled Python call per row, building the message dict and
    asking every filter."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    names = ("topic", "priority", "redelivery_count", "batch_index")

    def matches(properties: Any, tags: Any, *values: Any) -> bool:
        message = dict(properties or {})
        message.update(zip(names, values, strict=True))
        if tags is not None:
            message.setdefault("TAGS", tags)
        return all(f.matches(message) for f in filters)

    udf = F.udf(matches, T.BooleanType(), useArrow=False)
    return udf(F.col("properties"), F.col("tags"), *[F.col(n) for n in names])


def _all(columns: list[Any]) -> Any:
    return functools.reduce(operator.and_, columns)


def measure(df: Any, filters: list[Any], repeat: int) -> tuple[int, float, float, float]:
    """(matches, native s, arrow-udf s, python-udf s) for `filters` ANDed over `df`."""
    import msgfilter.spark as ms

    native = _all([ms.to_column(f, df) for f in filters])
    fallback = _all([ms.filter_udf(f, df) for f in filters])
    baseline = python_udf(filters)
    (native_s, count), (arrow_s, arrow_count), (python_s, python_count) = timed(
        [lambda: df.where(native).count(), lambda: df.where(fallback).count(),
         lambda: df.where(baseline).count()],
        repeat,
    )
    assert count == arrow_count == python_count, (count, arrow_count, python_count)
    return int(count), native_s, arrow_s, python_s  # type: ignore[call-overload]


def show_plan(df: Any, filters: list[Any]) -> None:
    """The native query's physical plan and the size of the Java code Spark generates."""
    import contextlib
    import io

    import msgfilter.spark as ms

    query = df.where(_all([ms.to_column(f, df) for f in filters]))
    query.explain("formatted")
    code = io.StringIO()
    with contextlib.redirect_stdout(code):
        query.explain("codegen")
    lines = code.getvalue().splitlines()
    print(f"generated code: {len(lines)} lines, {len(code.getvalue()):,} characters")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="4g", help="room to cache 10M rows")
    parser.add_argument("--only", action="append", default=None, help="run only the "
                        "selectors whose label contains this text (repeat for several)")
    parser.add_argument("--explain", action="store_true", help="print each native "
                        "plan (explain formatted) and the size of its generated code")
    args = parser.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    import msgfilter

    spark = (
        SparkSession.builder.master(args.master).appName("bench_spark")
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.python.sql.dataFrameDebugging.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    print(f"Spark {spark.version}, master {spark.sparkContext.master}, "
          f"median of {args.repeat} runs after a warm-up")
    for rows in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            write_archive(rows, Path(tmp))
            df = spark.read.parquet(tmp).cache()
            assert df.count() == rows
            print(f"\n{rows:,} rows (generated and cached in "
                  f"{time.perf_counter() - started:.1f} s)")
            print(f"{'selector':<20} {'matches':>10} {'native s':>9} {'arrow-udf s':>11} "
                  f"{'python-udf s':>12} {'python/native':>13} {'python/arrow-udf':>16}")
            for label, parts in SELECTORS:
                if args.only and not any(part in label for part in args.only):
                    continue
                filters = [msgfilter.compile(text, dialect) for dialect, text in parts]
                if args.explain:
                    show_plan(df, filters)
                row = measure(df, filters, args.repeat)
                print(f"{label:<20} {row[0]:>10,} {row[1]:>9.3f} {row[2]:>11.3f} "
                      f"{row[3]:>12.3f} {row[3] / row[1]:>12.1f}x {row[3] / row[2]:>15.1f}x",
                      flush=True)
            df.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
