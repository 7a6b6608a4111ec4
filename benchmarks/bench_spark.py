"""Spark backend speed: native Columns vs a plain Python UDF doing the same per-message
`matches`, counting the matches of a filtered frame.

    .venv/bin/python benchmarks/bench_spark.py [--rows 1000000 [10000000]] [--repeat 3]
        [--only 4-predicate] [--master local[2]] [--driver-memory 4g]

The data is `msgfilter demo-data`'s archive without payloads, written as Parquet once per
size (in 1M-row files) and cached in Spark's memory before timing, so the figures are the
filtering work, not the file scan. For each selector the script prints the seconds of
`df.where(column).count()` for

* native: `msgfilter.spark.to_column` (Catalyst, generated code, no Python per row);
* arrow-udf: `msgfilter.spark.filter_udf` (`filter.evaluate` per row in an Arrow UDF);
* python-udf: a classic pickled UDF (`useArrow=False`) calling `filter.matches` on a
  dict of the row's properties and columns: the baseline the issue names;

and the ratio python-udf / native. Figures are the median of --repeat runs after one
warm-up, all in one session (local[2] unless --master says otherwise), so the ratios
compare like with like on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SELECTORS = (
    # (label, dialect, expression)
    ("4-predicate jms", "jms",
     "region = 'eu-west' AND tier IN ('gold', 'silver') AND priority >= 4 "
     "AND source <> 'batch'"),
    ("LIKE + OR jms", "jms",
     "topic LIKE 'persistent://shop/orders/%' AND (priority > 6 OR redelivery_count > 0)"),
    ("rocketmq tags", "rocketmq-tag", "order-paid || refund || payment"),
    ("pulsar anytag", "pulsar-tag", "anytag: fragile, gift"),
)


def write_archive(rows: int, directory: Path) -> None:
    import pyarrow.parquet as pq

    from msgfilter.jobs.demo import demo_table

    chunk = 1_000_000
    for index, start in enumerate(range(0, rows, chunk)):
        table = demo_table(min(chunk, rows - start), seed=100 + index, payload=False)
        pq.write_table(table, directory / f"part-{index:04d}.parquet")


def timed(action: Callable[[], object], repeat: int) -> tuple[float, object]:
    result = action()  # warm-up: code generation, Python workers
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def python_udf(f: Any) -> Any:
    """The baseline: one pickled Python call per row, building the message dict."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    names = ("topic", "priority", "redelivery_count", "batch_index")

    def matches(properties: Any, tags: Any, *values: Any) -> bool:
        message = dict(properties or {})
        message.update(zip(names, values, strict=True))
        if tags is not None:
            message.setdefault("TAGS", tags)
        return bool(f.matches(message))

    udf = F.udf(matches, T.BooleanType(), useArrow=False)
    return udf(F.col("properties"), F.col("tags"), *[F.col(n) for n in names])


def measure(df: Any, f: Any, repeat: int) -> tuple[int, float, float, float]:
    """(matches, native s, arrow-udf s, python-udf s) for filter `f` over `df`."""
    import msgfilter.spark as ms

    native_s, count = timed(lambda: df.where(ms.to_column(f, df)).count(), repeat)
    arrow_s, arrow_count = timed(lambda: df.where(ms.filter_udf(f, df)).count(), repeat)
    python_s, python_count = timed(lambda: df.where(python_udf(f)).count(), repeat)
    assert count == arrow_count == python_count, (count, arrow_count, python_count)
    return int(count), native_s, arrow_s, python_s  # type: ignore[call-overload]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--driver-memory", default="4g", help="room to cache 10M rows")
    parser.add_argument("--only", default=None, help="run only the selectors whose label "
                        "contains this text")
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
            print(f"{'selector':<18} {'matches':>10} {'native s':>9} {'arrow-udf s':>11} "
                  f"{'python-udf s':>12} {'python/native':>13}")
            for label, dialect, text in SELECTORS:
                if args.only and args.only not in label:
                    continue
                row = measure(df, msgfilter.compile(text, dialect), args.repeat)
                print(f"{label:<18} {row[0]:>10,} {row[1]:>9.3f} {row[2]:>11.3f} "
                      f"{row[3]:>12.3f} {row[3] / row[1]:>12.1f}x")
            df.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
