"""`msgfilter demo-data`: a synthetic message archive to route, filter and benchmark.

The archive looks like what a Pulsar or RocketMQ topic dump holds: producer batches
(`batch_id`, `batch_index`, one publish time per batch), skewed topics, tags and
property values, properties that are often missing, a message key per customer and
payloads of lognormal size. It is built with numpy and pyarrow, column by column
(1M rows take a few seconds), and is the same for the same `--seed`.

Columns:

    message_id        string     "ledger:entry:partition:batch_index", as Pulsar prints ids
    topic             string     8 topics, Zipf-like shares
    publish_time      timestamp  UTC milliseconds, one per batch, increasing
    key               string     "cust-<n>", skewed; NULL for 8% of messages
    tags              string     RocketMQ tag ("order-created", ...); NULL for 5%
    properties        map<string, string>
                                 region, tier, source, amount, currency, tag1, tag2,
                                 trace_id, schema: each present with its own rate
    priority          int32      0-9, mostly 4 (the JMS default); NULL for 5%
    redelivery_count  int32      mostly 0
    batch_id          int64      producer batch (entry) number
    batch_index       int32      position inside the batch
    payload           binary     lognormal size, median ~180 bytes

`--out` ending in `.jsonl` or `.json` writes JSON Lines (payload as text, time as ISO
8601), anything else Parquet.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from . import needs

#: What building and writing the archive imports: the `arrow` extra.
NEEDS = (
    needs.Need("numpy", "draws the random columns"),
    needs.Need("pyarrow", "builds and writes the archive"),
)
#: The topics and their shares of the traffic.
TOPICS = (
    ("persistent://shop/orders/created", 0.34),
    ("persistent://shop/orders/paid", 0.22),
    ("persistent://shop/orders/shipped", 0.14),
    ("persistent://shop/payments/events", 0.11),
    ("persistent://shop/inventory/changes", 0.08),
    ("persistent://shop/refunds/events", 0.05),
    ("persistent://shop/audit/log", 0.04),
    ("persistent://shop/notifications/email", 0.02),
)
TAGS = (
    ("order-created", 0.30), ("order-paid", 0.22), ("order-shipped", 0.16),
    ("payment", 0.12), ("inventory", 0.09), ("refund", 0.05), ("audit", 0.04),
    ("order-cancelled", 0.02),
)
REGIONS = (
    ("eu-west", 0.45, "EUR"), ("us-east", 0.30, "USD"), ("ap-south", 0.15, "INR"),
    ("sa-east", 0.07, "BRL"), ("af-south", 0.03, "ZAR"),
)
TIERS = (("bronze", 0.60), ("silver", 0.30), ("gold", 0.10))
SOURCES = (("web", 0.50), ("mobile", 0.35), ("api", 0.12), ("batch", 0.03))
PULSAR_TAGS = (("urgent", 0.30), ("gift", 0.25), ("fragile", 0.20), ("b2b", 0.15),
               ("eu-only", 0.10))
PRIORITIES = (0.04, 0.05, 0.06, 0.08, 0.45, 0.10, 0.08, 0.07, 0.04, 0.03)
#: Property key -> share of messages that carry it.
PRESENCE = {
    "region": 0.97, "tier": 0.80, "source": 0.95, "amount": 0.85, "currency": 0.85,
    "tag1": 0.40, "tag2": 0.10, "trace_id": 0.70, "schema": 0.99,
}
_START_MS = 1_714_521_600_000  # 2024-05-01T00:00:00Z
_TEXT = (
    b'{"order":{"id":"o-1042","lines":[{"sku":"SKU-7781","qty":2,"price":"19.90"},'
    b'{"sku":"SKU-1203","qty":1,"price":"5.00"}],"customer":"cust-311","note":"leave at the '
    b'door"},"shipping":{"carrier":"dhl","service":"express","eta":"2024-05-03"},"v":2}\n'
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `msgfilter demo-data` options."""
    parser.add_argument("--rows", type=int, default=200_000, help="messages to write")
    parser.add_argument(
        "--out", required=True,
        help="file to write: Parquet, or JSON Lines when it ends in .jsonl or .json",
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed (same seed, same data)")


def main(args: argparse.Namespace) -> int:
    """Write the archive; 0 on success, 2 for bad options or missing packages."""
    if args.rows < 0:
        print("msgfilter demo-data: --rows must be at least 0", file=sys.stderr)
        return 2
    try:
        needs.check("arrow", NEEDS)
    except needs.NotInstalled as error:
        print(f"msgfilter demo-data: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    started = time.perf_counter()
    table = demo_table(args.rows, args.seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    write(table, out)
    elapsed = time.perf_counter() - started
    size = out.stat().st_size
    print(
        f"msgfilter demo-data: {table.num_rows:,} messages, {size / 1e6:.1f} MB -> {out} "
        f"({elapsed:.1f} s)"
    )
    return 0


def _choice(rng: Any, table: tuple[tuple[Any, ...], ...], size: int) -> Any:
    """Indexes into `table` drawn with the shares in each entry's second field."""
    import numpy as np

    shares = np.array([entry[1] for entry in table], dtype=float)
    return rng.choice(len(table), size=size, p=shares / shares.sum())


def _strings(values: tuple[str, ...], index: Any) -> Any:
    import pyarrow as pa

    return pa.array(values, pa.string()).take(pa.array(index))


def demo_table(rows: int, seed: int = 1, *, payload: bool = True) -> Any:
    """The synthetic archive as a pyarrow Table of `rows` messages (without the payload
    column when `payload` is false: benchmarks that never read it save the memory)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    n = rows

    # Producer batches: geometric sizes (mean ~3.4, at most 32); the last one is cut.
    sizes = rng.geometric(0.3, size=max(1, n // 2 + 16)).clip(1, 32)
    while sizes.sum() < n:
        sizes = np.concatenate([sizes, rng.geometric(0.3, size=n // 2 + 16).clip(1, 32)])
    ends = np.cumsum(sizes)
    batches = int(np.searchsorted(ends, n) + 1) if n else 0
    sizes = sizes[:batches]
    if batches:
        sizes[-1] -= int(ends[batches - 1] - n)
    batch_of_row = np.repeat(np.arange(batches), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if batches else np.zeros(0, int)
    batch_index = (np.arange(n) - starts[batch_of_row]).astype(np.int32)

    topic_of_batch = _choice(rng, TOPICS, batches)
    partition_of_batch = rng.integers(0, 4, size=batches)
    gaps = rng.exponential(35.0, size=batches).astype(np.int64) + 1
    time_of_batch = _START_MS + np.cumsum(gaps)
    batch_id = (1_000 + np.arange(batches, dtype=np.int64))
    ledger = 7_000 + topic_of_batch

    topic = _strings(tuple(t for t, _ in TOPICS), topic_of_batch[batch_of_row])
    message_id = pc.binary_join_element_wise(
        pc.cast(pa.array(ledger[batch_of_row]), pa.string()),
        pc.cast(pa.array(batch_id[batch_of_row]), pa.string()),
        pc.cast(pa.array(partition_of_batch[batch_of_row]), pa.string()),
        pc.cast(pa.array(batch_index), pa.string()),
        ":",
    )
    publish_time = pa.array(time_of_batch[batch_of_row], pa.timestamp("ms", tz="UTC"))

    customers = np.minimum(rng.zipf(1.3, size=n), 50_000)
    key = pc.binary_join_element_wise(
        "cust-", pc.cast(pa.array(customers), pa.string()), ""
    )
    key = pc.if_else(pa.array(rng.random(n) < 0.08), pa.scalar(None, pa.string()), key)
    tags = _strings(tuple(t for t, _ in TAGS), _choice(rng, TAGS, n))
    tags = pc.if_else(pa.array(rng.random(n) < 0.05), pa.scalar(None, pa.string()), tags)

    priority = pa.array(
        rng.choice(10, size=n, p=PRIORITIES).astype(np.int32), mask=rng.random(n) < 0.05
    )
    redelivery = pa.array(np.minimum(rng.poisson(0.06, size=n), 9).astype(np.int32))

    columns = {
        "message_id": message_id, "topic": topic, "publish_time": publish_time,
        "key": key, "tags": tags, "properties": _properties(rng, n), "priority": priority,
        "redelivery_count": redelivery, "batch_id": pa.array(batch_id[batch_of_row]),
        "batch_index": pa.array(batch_index),
    }
    if payload:
        columns["payload"] = _payloads(rng, n)
    return pa.table(columns)


def _properties(rng: Any, n: int) -> Any:
    """The properties map, built column-wise then interleaved row by row."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    region = _choice(rng, REGIONS, n)
    cents = np.round(rng.lognormal(3.6, 1.1, size=n) * 100).astype(np.int64) + 1
    amount = pc.binary_join_element_wise(
        pc.cast(pa.array(cents // 100), pa.string()),
        pc.utf8_lpad(pc.cast(pa.array(cents % 100), pa.string()), 2, "0"),
        ".",
    )
    trace = pc.cast(pa.array(rng.integers(0, 2**62, size=n, dtype=np.int64)), pa.string())
    values = {
        "region": _strings(tuple(r for r, _, _ in REGIONS), region),
        "tier": _strings(tuple(t for t, _ in TIERS), _choice(rng, TIERS, n)),
        "source": _strings(tuple(s for s, _ in SOURCES), _choice(rng, SOURCES, n)),
        "amount": amount,
        "currency": _strings(tuple(c for _, _, c in REGIONS), region),
        "tag1": _strings(tuple(t for t, _ in PULSAR_TAGS), _choice(rng, PULSAR_TAGS, n)),
        "tag2": _strings(tuple(t for t, _ in PULSAR_TAGS), _choice(rng, PULSAR_TAGS, n)),
        "trace_id": trace,
        "schema": _strings(("v1", "v2"), (rng.random(n) < 0.3).astype(np.int64)),
    }
    names = tuple(values)
    present = np.stack([rng.random(n) < PRESENCE[k] for k in names], axis=1)
    # A message with an amount has its currency, and only then.
    present[:, names.index("currency")] = present[:, names.index("amount")]
    rows_at, kinds_at = np.nonzero(present)  # row-major: each row's keys in a fixed order
    offsets = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int32)
    keys = pa.array(names, pa.string()).take(pa.array(kinds_at))
    items = pa.concat_arrays([values[k] for k in names])
    items = items.take(pa.array(kinds_at.astype(np.int64) * n + rows_at))
    return pa.MapArray.from_arrays(pa.array(offsets), keys, items)


def _payloads(rng: Any, n: int) -> Any:
    """Payloads of lognormal size cut from a stream of JSON-like text."""
    import numpy as np
    import pyarrow as pa

    sizes = np.clip(rng.lognormal(np.log(180), 0.8, size=n), 16, 64 * 1024).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    stream = np.resize(np.frombuffer(_TEXT, dtype=np.uint8), int(offsets[-1]))
    return pa.Array.from_buffers(
        pa.large_binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(stream.tobytes())]
    ).cast(pa.binary())


def write(table: Any, out: Path) -> None:
    """`table` as Parquet, or as JSON Lines when `out` ends in .jsonl or .json."""
    if out.suffix.lower() in (".jsonl", ".json"):
        _write_jsonl(table, out)
        return
    import pyarrow.parquet as pq

    pq.write_table(table, out, compression="snappy", row_group_size=128 * 1024)


def _write_jsonl(table: Any, out: Path) -> None:
    with open(out, "w", encoding="utf-8") as handle:
        for batch in table.to_batches(max_chunksize=50_000):
            for row in batch.to_pylist():
                row["properties"] = dict(row["properties"] or ())
                row["publish_time"] = row["publish_time"].isoformat()
                row["payload"] = row["payload"].decode("latin-1")
                handle.write(json.dumps(row, ensure_ascii=False))
                handle.write("\n")
