"""One routing pass of `msgfilter route`: a DataFrame of messages routed to a directory of
`subscription=<name>/` Parquet partitions, with the messages and bytes each subscription
receives. The batch job (`route`) makes one pass over the whole archive; the streaming
job (`follow`) one per micro-batch, with the same router, prepared once.

Two routers do a pass: `NativeRouter` evaluates every filter as a native Spark column
(`msgfilter.spark`), the fastest with few subscriptions; `IndexRouter` matches each
Arrow batch against one `SubscriptionIndex` (`route_index`), whose cost follows
rows + deliveries, not subscriptions x rows.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..filter import Filter
from . import spark_session
from .report import Delivery
from .route_input import RouteError, Subscription

#: The partition column of the routed messages.
SUBSCRIPTION_COLUMN = "subscription"
#: Where, under --out, the routed messages go.
MESSAGES_DIR = "messages"
#: Above this many subscriptions the console shows the top ones (the files have all).
CONSOLE_ROWS = 40


def session(master: str | None) -> tuple[Any, bool]:
    """The active SparkSession, or a new, quiet one on `master` (True: ours to stop)."""
    return spark_session.session(master, "msgfilter route", {
        # Spark's progress bar is the job's progress.
        "spark.ui.showConsoleProgress": "true",
        # Identifiers are case-sensitive; so must column names be.
        "spark.sql.caseSensitive": "true",
        "spark.python.sql.dataFrameDebugging.enabled": "false",
    })


def archive_schema(spark: Any, archive: str, archive_format: str) -> Any:
    """The archive's schema as the job reads it. In JSON Lines the `properties` objects
    are read as a map<string, string> (numbers and booleans as their JSON text), as
    brokers carry them, rather than as the struct Spark would infer."""
    if archive_format == "parquet":
        return spark.read.parquet(archive).schema
    from pyspark.sql import types as T

    inferred = spark.read.json(archive).schema
    return T.StructType([
        T.StructField(f.name, T.MapType(T.StringType(), T.StringType()), True)
        if f.name == "properties" else f
        for f in inferred.fields
    ])


def read_archive(spark: Any, archive: str, archive_format: str) -> Any:
    """The archive as a DataFrame (`archive_schema`'s reading of it)."""
    if archive_format == "parquet":
        return spark.read.parquet(archive)
    return spark.read.schema(archive_schema(spark, archive, archive_format)).json(archive)


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


@dataclass(frozen=True, slots=True)
class Routed:
    """What one pass delivered, and the messages and bytes it read."""

    deliveries: tuple[Delivery, ...]
    messages: int
    bytes: int


class NativeRouter:
    """Every filter a column of one projection; the routing an `explode` of the names of
    the subscriptions that accept the row; the counts an `Observation` of the pass."""

    def __init__(
        self, schema: Any, subscriptions: Sequence[Subscription], filters: Sequence[Filter]
    ) -> None:
        from ..backends.spark import lower

        if SUBSCRIPTION_COLUMN in schema.fieldNames():
            raise RouteError(f"the archive already has a column named {SUBSCRIPTION_COLUMN!r}")
        self.subscriptions = tuple(subscriptions)
        self.lowered = [lower(f, schema) for f in filters]
        python = 0
        for sub, plan in zip(subscriptions, self.lowered, strict=True):
            python += not plan.native
            how = "native" if plan.native else "python: " + "; ".join(
                why for _, why in plan.udf_parts
            )
            if len(subscriptions) <= CONSOLE_ROWS:
                print(f"  {sub.name} ({sub.dialect}): {how}")
        if len(subscriptions) > CONSOLE_ROWS:
            print(f"  {len(subscriptions) - python:,} native, {python:,} with Python parts "
                  "(report.json says which)")

    def route(self, df: Any, target: Path) -> Routed:
        """Write `df`'s messages under `target` (replaced), one partition a subscription."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        from ..backends.spark import column_ref

        flags = [f"#match{i}" for i in range(len(self.lowered))]
        base = df.select(
            "*", message_bytes(df.schema).alias("#bytes"),
            *[plan.column.alias(flag) for plan, flag in zip(self.lowered, flags, strict=True)],
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
                for sub, flag in zip(self.subscriptions, flags, strict=True)
            ]),
            lambda name: name.isNotNull(),
        )
        routed = observed.select(
            *[column_ref(c) for c in df.columns],
            F.explode(matched).alias(SUBSCRIPTION_COLUMN),
        )
        routed.write.mode("overwrite").partitionBy(SUBSCRIPTION_COLUMN).parquet(str(target))
        counts = observation.get
        deliveries = tuple(
            self.delivery(i, int(counts.get(f"m{i}") or 0), int(counts.get(f"b{i}") or 0))
            for i in range(len(self.subscriptions))
        )
        return Routed(deliveries, int(counts.get("messages") or 0), int(counts.get("bytes") or 0))

    def delivery(self, number: int, messages: int, size: int) -> Delivery:
        """What subscription `number` receives, with how its filter runs."""
        sub, plan = self.subscriptions[number], self.lowered[number]
        return Delivery(
            sub.name, sub.dialect, sub.expression, plan.native, messages, size,
            tuple(f"{part}: {why}" for part, why in plan.udf_parts),
        )

    def close(self) -> None:
        """Nothing to release."""


class IndexRouter:
    """One SubscriptionIndex over the archive's Arrow batches (see `route_index`), built
    and broadcast once, whatever the number of passes."""

    def __init__(
        self, spark: Any, schema: Any, subscriptions: Sequence[Subscription],
        filters: Sequence[Filter],
    ) -> None:
        from ..index import SubscriptionIndex
        from ..layout import DEFAULT_LAYOUT
        from . import route_index as ri

        if SUBSCRIPTION_COLUMN in schema.fieldNames():
            raise RouteError(f"the archive already has a column named {SUBSCRIPTION_COLUMN!r}")
        self.spark = spark
        self.subscriptions = tuple(subscriptions)
        index = SubscriptionIndex()
        for number, compiled in enumerate(filters):
            index.add_filter(number, compiled)
        source, travels = ri.IndexSource.of(index)
        print(f"  {travels}")
        print("  " + index.explain().replace("\n", "\n  "))
        self.read = ri.columns_read(filters, schema.fieldNames(), DEFAULT_LAYOUT)
        self.shipped = spark.sparkContext.broadcast(source)

    def route(self, df: Any, target: Path) -> Routed:
        """Write `df`'s messages under `target` (replaced), one file a subscription."""
        from pyspark.sql import types as T

        from . import route_index as ri

        spark = self.spark
        base = df.select("*", message_bytes(df.schema).alias(ri.BYTES_COLUMN))
        # An accumulator, not an Observation: when nothing matches, adaptive execution
        # drops the stage an Observation would report from the final plan.
        published = spark.sparkContext.accumulator([0, 0], ri.PairSum())
        routed_schema = T.StructType(
            [*base.schema.fields, T.StructField(ri.KEY_COLUMN, T.IntegerType(), False)]
        )
        routed = base.mapInArrow(
            partial(ri.route_batches, source=self.shipped, read=self.read, published=published),
            routed_schema,
        )
        staging = target.parent / f"_staging-{uuid.uuid4().hex}"
        names = [sub.name for sub in self.subscriptions]
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
            ri.commit([(row["path"], row["key"]) for row in written], staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        messages = [0] * len(names)
        sizes = [0] * len(names)
        for row in written:
            messages[row["key"]] += int(row["messages"])
            sizes[row["key"]] += int(row["bytes"])
        deliveries = tuple(self.delivery(i, messages[i], sizes[i]) for i in range(len(names)))
        total_messages, total_bytes = published.value
        return Routed(deliveries, int(total_messages), int(total_bytes))

    def delivery(self, number: int, messages: int, size: int) -> Delivery:
        """What subscription `number` receives, with how its filter runs."""
        sub = self.subscriptions[number]
        return Delivery(sub.name, sub.dialect, sub.expression, False, messages, size,
                        ("index: the SubscriptionIndex over Arrow batches",), runs="index")

    def close(self) -> None:
        """Drop the broadcast index from the executors."""
        self.shipped.unpersist()


Router = NativeRouter | IndexRouter


def make_router(
    plan: str, spark: Any, schema: Any, subscriptions: Sequence[Subscription],
    filters: Sequence[Filter],
) -> Router:
    """The router of `plan` ("native" or "index") for messages of `schema`."""
    if plan == "native":
        return NativeRouter(schema, subscriptions, filters)
    return IndexRouter(spark, schema, subscriptions, filters)
