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
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import dialects
from ..engine import compile as compile_filter
from ..errors import FilterError
from ..filter import Filter
from . import needs, spark_session
from .report import Delivery, RouteReport, write_report

#: The partition column of the routed messages.
SUBSCRIPTION_COLUMN = "subscription"
#: Where, under --out, the routed messages go.
MESSAGES_DIR = "messages"
#: `--plan auto` routes with the SubscriptionIndex from this many subscriptions on; below
#: it, native Spark columns. Measured with benchmarks/bench_route.py on the 200 000-message
#: demo archive (local[*], 2 cores): see docs/route.md.
INDEX_FROM = 50
#: Above this many subscriptions the console shows the top ones (the files have all).
CONSOLE_ROWS = 40
PLANS = ("auto", "native", "index")


@dataclass(frozen=True, slots=True)
class Subscription:
    """One entry of the subscriptions file."""

    name: str
    dialect: str
    expression: str


class RouteError(Exception):
    """The job cannot start: a bad subscriptions file, expression or path."""


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


def main(args: argparse.Namespace) -> int:
    """Run the job: 0 on success, 2 when it cannot start (nothing is written then),
    1 when Spark fails."""
    try:
        # The cheap mistakes first (the subscriptions need only PyYAML), then what Spark
        # and the report need: all before Spark starts.
        path = Path(args.subscriptions)
        needs.check("spark", () if path.suffix.lower() == ".json" else (YAML_NEED,))
        subscriptions = load_subscriptions(path)
        filters = compile_subscriptions(subscriptions)
        archive_format = _archive_format(args.archive, args.format)
        check_needs()
    except (RouteError, needs.NotInstalled) as error:
        print(f"msgfilter route: {error}", file=sys.stderr)
        return 2
    try:
        report = run(
            args.archive, archive_format, subscriptions, filters, Path(args.out), args.master,
            plan=getattr(args, "plan", "auto"),
        )
    except RouteError as error:
        print(f"msgfilter route: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a job reports failure by its exit code
        print(f"msgfilter route: Spark failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    many = len(report.deliveries) > CONSOLE_ROWS
    print(report.table(top=20 if many else None))
    print(f"\nwritten: {Path(args.out) / MESSAGES_DIR}/, report.json, report.txt, report.png")
    return 0


# -- before Spark ---------------------------------------------------------------------------

#: What the job imports: all of it in the `spark` extra.
NEEDS = (
    needs.Need("pyspark", "runs the job"),
    needs.Need("pyarrow", "the Arrow batches of the index plan and of filters' Python parts"),
    # pyspark checks for it at mapInArrow (the index plan) even though no pandas runs.
    needs.Need("pandas", "pyspark's mapInArrow"),
    needs.Need("matplotlib", "draws report.png"),
)
YAML_NEED = needs.Need("yaml", "reads a YAML subscriptions file (PyYAML)")


def check_needs() -> None:
    """NotInstalled (naming the `spark` extra) when a package the job imports is not
    installed, or when no Java is found."""
    needs.check("spark", NEEDS)
    java = spark_session.java_missing()
    if java is not None:
        raise needs.NotInstalled(java)


def load_subscriptions(path: Path) -> list[Subscription]:
    """The subscriptions of a YAML or JSON file: a list of {name, dialect, expression},
    or a mapping with such a list under `subscriptions`. `dialect` defaults to jms."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise RouteError(f"cannot read the subscriptions file: {error}") from None
    data: Any
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            # libyaml's loader, when PyYAML has it: 10 000 subscriptions load in 0.3 s,
            # not 3 s.
            data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception as error:  # yaml and json raise their own kinds
        raise RouteError(f"{path}: not valid YAML or JSON: {error}") from None
    if isinstance(data, dict) and "subscriptions" in data:
        data = data["subscriptions"]
    if not isinstance(data, list) or not data:
        raise RouteError(f"{path}: expected a non-empty list of subscriptions")
    found: list[Subscription] = []
    seen: set[str] = set()
    for index, entry in enumerate(data, 1):
        where = f"{path}: subscription #{index}"
        if not isinstance(entry, dict):
            raise RouteError(f"{where}: expected a mapping with name, dialect, expression")
        unknown = set(entry) - {"name", "dialect", "expression"}
        if unknown:
            raise RouteError(f"{where}: unknown keys {sorted(unknown)}")
        name, dialect = entry.get("name"), entry.get("dialect", dialects.DEFAULT)
        expression = entry.get("expression", "")
        if not isinstance(name, str) or not name.strip() or not name.isprintable():
            raise RouteError(f"{where}: `name` must be a non-empty printable string")
        if name in seen:
            raise RouteError(f"{where}: the name {name!r} is used twice")
        if not isinstance(dialect, str):
            raise RouteError(f"{where} ({name!r}): `dialect` must be a string")
        if expression is None:
            expression = ""
        if not isinstance(expression, str):
            raise RouteError(f"{where} ({name!r}): `expression` must be a string")
        seen.add(name)
        found.append(Subscription(name, dialect, expression))
    return found


def compile_subscriptions(subscriptions: Sequence[Subscription]) -> list[Filter]:
    """Each subscription's filter; RouteError naming every bad one, with its caret."""
    filters: list[Filter] = []
    errors: list[str] = []
    for sub in subscriptions:
        try:
            filters.append(compile_filter(sub.expression, sub.dialect))
        except FilterError as error:
            errors.append(f"subscription {sub.name!r} ({sub.dialect}): {error}")
    if errors:
        raise RouteError("bad filter expression\n" + "\n".join(errors))
    return filters


def choose_plan(requested: str, count: int) -> tuple[str, str]:
    """The plan to run ("native" or "index") for `count` subscriptions, and why."""
    if requested not in PLANS:
        raise RouteError(f"unknown plan {requested!r}: one of {', '.join(PLANS)}")
    if requested != "auto":
        return requested, f"--plan {requested}"
    if count >= INDEX_FROM:
        return "index", f"auto: {count:,} subscriptions, the index from {INDEX_FROM} on"
    return "native", f"auto: {count:,} subscriptions, native columns below {INDEX_FROM}"


def _archive_format(archive: str, given: str | None) -> str:
    local = "://" not in archive
    if local and not Path(archive).exists():
        raise RouteError(f"no archive at {archive}")
    if given is not None:
        return given
    if Path(archive).suffix.lower() in (".json", ".jsonl"):
        return "json"
    return "parquet"


# -- with Spark -----------------------------------------------------------------------------


def _session(master: str | None) -> tuple[Any, bool]:
    """The active SparkSession, or a new, quiet one on `master` (True: ours to stop)."""
    return spark_session.session(master, "msgfilter route", {
        # Spark's progress bar is the job's progress.
        "spark.ui.showConsoleProgress": "true",
        # Identifiers are case-sensitive; so must column names be.
        "spark.sql.caseSensitive": "true",
        "spark.python.sql.dataFrameDebugging.enabled": "false",
    })


def read_archive(spark: Any, archive: str, archive_format: str) -> Any:
    """The archive as a DataFrame. In JSON Lines the `properties` objects are read as a
    map<string, string> (numbers and booleans as their JSON text), as brokers carry
    them, rather than as the struct Spark would infer."""
    if archive_format == "parquet":
        return spark.read.parquet(archive)
    from pyspark.sql import types as T

    inferred = spark.read.json(archive).schema
    fields = [
        T.StructField(f.name, T.MapType(T.StringType(), T.StringType()), True)
        if f.name == "properties" else f
        for f in inferred.fields
    ]
    return spark.read.schema(T.StructType(fields)).json(archive)


def message_bytes(schema: Any) -> Any:
    """A Column: each message's payload, key, tag and property bytes (UTF-8 for text)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    types = {f.name: f.dataType for f in schema.fields}
    parts = [
        F.coalesce(F.octet_length(F.col(name)), F.lit(0)).cast("long")
        for name in ("payload", "key", "tags")
        if isinstance(types.get(name), T.StringType | T.BinaryType)
    ]
    props = types.get("properties")
    if isinstance(props, T.MapType) and isinstance(props.keyType, T.StringType):

        def add(total: Any, entry: Any) -> Any:
            value = F.coalesce(F.octet_length(entry["value"].cast("string")), F.lit(0))
            return total + F.octet_length(entry["key"]) + value

        parts.append(
            F.coalesce(
                F.aggregate(F.map_entries(F.col("properties")), F.lit(0).cast("long"), add),
                F.lit(0).cast("long"),
            )
        )
    if not parts:
        return F.lit(0).cast("long")
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


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
    spark, ours = _session(master)
    try:
        df = read_archive(spark, archive, archive_format)
        if SUBSCRIPTION_COLUMN in df.columns:
            raise RouteError(f"the archive already has a column named {SUBSCRIPTION_COLUMN!r}")
        route = _route_native if chosen == "native" else _route_index
        deliveries, published_messages, published_bytes = route(
            spark, df, subscriptions, filters, out
        )
        report = RouteReport(
            archive=archive,
            output=str(out),
            published_messages=published_messages,
            published_bytes=published_bytes,
            deliveries=deliveries,
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


def _route_native(
    spark: Any, df: Any, subscriptions: Sequence[Subscription], filters: Sequence[Filter],
    out: Path,
) -> tuple[tuple[Delivery, ...], int, int]:
    """Every filter a column of one projection; the routing an `explode` of the names of
    the subscriptions that accept the row; the counts an `Observation` of the pass.
    Returns the deliveries and the messages and bytes published."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    from ..backends.spark import column_ref, lower

    lowered = [lower(f, df.schema) for f in filters]
    python = 0
    for sub, plan in zip(subscriptions, lowered, strict=True):
        python += not plan.native
        how = "native" if plan.native else "python: " + "; ".join(
            why for _, why in plan.udf_parts
        )
        if len(subscriptions) <= CONSOLE_ROWS:
            print(f"  {sub.name} ({sub.dialect}): {how}")
    if len(subscriptions) > CONSOLE_ROWS:
        print(f"  {len(subscriptions) - python:,} native, {python:,} with Python parts "
              "(report.json says which)")
    flags = [f"#match{i}" for i in range(len(filters))]
    base = df.select(
        "*", message_bytes(df.schema).alias("#bytes"),
        *[plan.column.alias(flag) for plan, flag in zip(lowered, flags, strict=True)],
    )
    observation = Observation("msgfilter-route")
    metrics = [F.count(F.lit(1)).alias("messages"), F.sum("#bytes").alias("bytes")]
    for i, flag in enumerate(flags):
        metrics.append(F.count(F.when(F.col(flag), True)).alias(f"m{i}"))
        metrics.append(F.sum(F.when(F.col(flag), F.col("#bytes"))).alias(f"b{i}"))
    observed = base.observe(observation, *metrics)
    matched = F.filter(
        F.array(*[
            F.when(F.col(flag), F.lit(sub.name))
            for sub, flag in zip(subscriptions, flags, strict=True)
        ]),
        lambda name: name.isNotNull(),
    )
    routed = observed.select(
        *[column_ref(c) for c in df.columns],
        F.explode(matched).alias(SUBSCRIPTION_COLUMN),
    )
    (
        routed.write.mode("overwrite")
        .partitionBy(SUBSCRIPTION_COLUMN)
        .parquet(str(out / MESSAGES_DIR))
    )
    counts = observation.get
    deliveries = tuple(
        Delivery(
            sub.name, sub.dialect, sub.expression, plan.native,
            int(counts.get(f"m{i}") or 0), int(counts.get(f"b{i}") or 0),
            tuple(f"{part}: {why}" for part, why in plan.udf_parts),
        )
        for i, (sub, plan) in enumerate(zip(subscriptions, lowered, strict=True))
    )
    return deliveries, int(counts.get("messages") or 0), int(counts.get("bytes") or 0)


def _route_index(
    spark: Any, df: Any, subscriptions: Sequence[Subscription], filters: Sequence[Filter],
    out: Path,
) -> tuple[tuple[Delivery, ...], int, int]:
    """One SubscriptionIndex over the archive's Arrow batches (see `route_index`).
    Returns the deliveries and the messages and bytes published."""
    import uuid
    from functools import partial

    from pyspark.sql import types as T

    from ..index import SubscriptionIndex
    from ..layout import DEFAULT_LAYOUT
    from . import route_index as ri

    index = SubscriptionIndex()
    for number, compiled in enumerate(filters):
        index.add_filter(number, compiled)
    source, travels = ri.IndexSource.of(index)
    print(f"  {travels}")
    print("  " + index.explain().replace("\n", "\n  "))
    read = ri.columns_read(filters, df.columns, DEFAULT_LAYOUT)
    base = df.select("*", message_bytes(df.schema).alias(ri.BYTES_COLUMN))
    # An accumulator, not an Observation: when nothing matches, adaptive execution drops
    # the stage an Observation would report from the final plan.
    published = spark.sparkContext.accumulator([0, 0], ri.PairSum())
    shipped = spark.sparkContext.broadcast(source)
    routed_schema = T.StructType(
        [*base.schema.fields, T.StructField(ri.KEY_COLUMN, T.IntegerType(), False)]
    )
    routed = base.mapInArrow(
        partial(ri.route_batches, source=shipped, read=read, published=published),
        routed_schema,
    )
    staging = out / f"_staging-{uuid.uuid4().hex}"
    names = [sub.name for sub in subscriptions]
    written_schema = ", ".join(f"{name} {kind}" for name, kind in ri.WRITTEN_FIELDS)
    # Each subscription's rows in one task, in a run: one file per subscription.
    shuffled = routed.repartition(
        max(1, spark.sparkContext.defaultParallelism), ri.KEY_COLUMN
    ).sortWithinPartitions(ri.KEY_COLUMN)
    try:
        writing = shuffled.mapInArrow(
            partial(ri.write_batches, names=names, staging=str(staging),
                    column=SUBSCRIPTION_COLUMN),
            written_schema,
        )
        written = writing.collect()
        ri.commit([(row["path"], row["key"]) for row in written], staging, out / MESSAGES_DIR)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shipped.unpersist()
    messages = [0] * len(subscriptions)
    sizes = [0] * len(subscriptions)
    for row in written:
        messages[row["key"]] += int(row["messages"])
        sizes[row["key"]] += int(row["bytes"])
    deliveries = tuple(
        Delivery(sub.name, sub.dialect, sub.expression, False, messages[i], sizes[i],
                 ("index: the SubscriptionIndex over Arrow batches",), runs="index")
        for i, sub in enumerate(subscriptions)
    )
    total_messages, total_bytes = published.value
    return deliveries, int(total_messages), int(total_bytes)
