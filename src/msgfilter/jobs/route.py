"""`msgfilter route`: route a message archive to subscriptions with Spark.

    msgfilter route --archive archive.parquet --subscriptions subs.yaml --out out/route

Every subscription's filter (any dialect: jms, rocketmq, rocketmq-tag, pulsar-tag) is
compiled before Spark starts, so a bad expression fails at once with its caret error
and the subscription's name. Then one pass over the archive routes every message,
writes each subscription's matched messages (Parquet, partitioned by `subscription`)
and counts the messages and bytes each subscription receives. The report (report.json,
report.txt and report.png) says what filtering at the broker saves against sending
every message to every subscription.

Two plans do the pass (`--plan`, default auto): `native` evaluates every filter as a
native Spark column (`msgfilter.spark`), the fastest with few subscriptions; `index`
matches each Arrow batch against one `SubscriptionIndex` (`route_index`), whose cost
follows rows + deliveries, not subscriptions x rows. `auto` takes the index from
`INDEX_FROM` subscriptions on (measured: benchmarks/bench_route.py).

`--master` is any Spark master URL (default: the one `spark-submit` gives, else
`local[*]`). On a cluster the archive and `--out` must be on a filesystem the executors
and the driver share, and executors need msgfilter installed only for filters that have
Python parts (see `explain`).

`--follow` routes a folder that grows, micro-batch after micro-batch, exactly once
through crashes (`follow`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..filter import Filter
from . import follow, needs
from .report import RouteReport, write_report
from .route_input import (
    INDEX_FROM,
    PLANS,
    RouteError,
    Subscription,
    choose_plan,
    fail,
    prepare,
)
from .routing import CONSOLE_ROWS, MESSAGES_DIR, make_router, read_archive, session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `msgfilter route` options."""
    parser.add_argument(
        "--archive", required=True,
        help="message archive: a Parquet file or directory, or JSON Lines",
    )
    parser.add_argument(
        "--subscriptions", required=True,
        help="YAML or JSON list of {name, dialect, expression}",
    )
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument(
        "--master", default=None,
        help="Spark master URL (default: spark-submit's, else local[*])",
    )
    parser.add_argument(
        "--format", choices=("parquet", "json"), default=None,
        help="archive format (default: by extension; .json/.jsonl are JSON Lines)",
    )
    parser.add_argument(
        "--plan", choices=PLANS, default="auto",
        help="native: a Spark column per subscription; index: one SubscriptionIndex over "
        f"Arrow batches; auto (default): index from {INDEX_FROM} subscriptions on",
    )
    follow.add_arguments(parser)


def main(args: argparse.Namespace) -> int:
    """Run the job: 0 on success, 2 when it cannot start (nothing is written then),
    1 when Spark fails. `--follow` runs the streaming job (`follow.main`)."""
    try:
        prepared = prepare(args.subscriptions, args.archive, args.format)
    except (RouteError, needs.NotInstalled) as error:
        return fail("route", error)
    if getattr(args, "follow", False):
        return follow.main(args, prepared)
    try:
        report = run(
            args.archive, prepared.archive_format, prepared.subscriptions, prepared.filters,
            Path(args.out), args.master, plan=getattr(args, "plan", "auto"),
        )
    except RouteError as error:
        return fail("route", error)
    except Exception as error:  # a job reports failure by its exit code
        print(f"msgfilter route: Spark failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    many = len(report.deliveries) > CONSOLE_ROWS
    print(report.table(top=20 if many else None))
    print(f"\nwritten: {Path(args.out) / MESSAGES_DIR}/, report.json, report.txt, report.png")
    return 0


def run(
    archive: str,
    archive_format: str,
    subscriptions: Sequence[Subscription],
    filters: Sequence[Filter],
    out: Path,
    master: str | None = None,
    *,
    plan: str = "auto",
) -> RouteReport:
    """Route `archive` with Spark and write the messages and the report under `out`."""
    started = time.perf_counter()
    chosen, reason = choose_plan(plan, len(subscriptions))
    print(f"msgfilter route: plan {chosen} ({reason})")
    spark, ours = session(master)
    try:
        df = read_archive(spark, archive, archive_format)
        router = make_router(chosen, spark, df.schema, subscriptions, filters)
        try:
            routed = router.route(df, out / MESSAGES_DIR)
        finally:
            router.close()
        report = RouteReport(
            archive=archive,
            output=str(out),
            published_messages=routed.messages,
            published_bytes=routed.bytes,
            deliveries=routed.deliveries,
            seconds=round(time.perf_counter() - started, 2),
            master=str(spark.sparkContext.master),
            spark_version=str(spark.version),
            plan=chosen,
            plan_reason=reason,
        )
        write_report(report, out)
        return report
    finally:
        if ours:
            spark.stop()
