"""The sample entries in samples/pulsar-entries/: how they are made, and what they hold.

`SAMPLES` describes each entry; `build(name)` makes its bytes with msgfilter.pulsar;
`python tests/pulsar_samples.py` (re)writes the files and manifest.json. The tests
(test_pulsar_samples.py) check the committed files against these descriptions and with
the independent readers.
"""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

from msgfilter.jsmtype import encode_properties
from msgfilter.pulsar import BatchMessage, BatchMetadata, encode_batch, encode_payload

ROOT = Path(__file__).resolve().parents[1] / "samples" / "pulsar-entries"

ORDERS = [
    {"region": "eu", "priority": 7, "kind": "order", "amount": 120.5},
    {"region": "us", "priority": 2, "kind": "refund", "amount": 15.0},
    {"region": "eu", "priority": 9, "kind": "audit", "amount": 0.0},
    {"region": "apac", "priority": 5, "kind": "order", "amount": 42.25},
]


def _messages() -> list[BatchMessage]:
    out = []
    for i, values in enumerate(ORDERS):
        props = {**encode_properties(values), "tag-eu": "1"} if values["region"] == "eu" else (
            encode_properties(values)
        )
        out.append(
            BatchMessage(
                json.dumps(values).encode(),
                tuple(props.items()),
                partition_key=f"customer-{i % 2}",
                event_time=1_700_000_000_000 + i,
                sequence_id=500 + i,
            )
        )
    return out


def _meta(codec: str, *, batched: bool = True) -> BatchMetadata:
    return BatchMetadata(
        "orders-producer", 500, 1_700_000_000_500, (("app", "shop"),),
        compression=codec, batched=batched, partition_key="customer-0" if batched else None,
    )


def _java_zlib() -> bytes:
    """A ZLIB batch as the Java client writes it: sync-flushed, no final block."""
    from msgfilter.pulsar import pulsar_entry_pb2 as pb

    messages = _messages()
    plain = encode_payload(messages)
    deflater = zlib.compressobj(6)
    body = deflater.compress(plain) + deflater.flush(zlib.Z_SYNC_FLUSH)
    m = pb.MessageMetadata(
        producer_name="java-producer", sequence_id=500, publish_time=1_700_000_000_500,
        compression=2, uncompressed_size=len(plain), num_messages_in_batch=len(messages),
        highest_sequence_id=503,
    )
    import struct

    import crc32c

    raw = m.SerializeToString()
    rest = struct.pack(">I", len(raw)) + raw + body
    return b"\x0e\x01" + struct.pack(">I", crc32c.crc32c(rest)) + rest


def build(name: str) -> bytes:
    messages = _messages()
    if name == "java-zlib-batch.bin":
        return _java_zlib()
    if name == "single-none.bin":
        one = messages[0]
        meta = BatchMetadata(
            "orders-producer", 500, 1_700_000_000_500, one.properties, batched=False,
            partition_key=one.partition_key, event_time=one.event_time,
        )
        return encode_batch(meta, [BatchMessage(one.payload)])
    if name == "compacted-lz4-batch.bin":
        slots = [m if i % 2 == 0 else BatchMessage(compacted_out=True)
                 for i, m in enumerate(messages)]
        return encode_batch(_meta("LZ4"), slots)
    codec = name.split("-")[0].upper()
    return encode_batch(_meta(codec), messages)


NAMES = (
    "none-batch.bin", "lz4-batch.bin", "zlib-batch.bin", "zstd-batch.bin", "snappy-batch.bin",
    "java-zlib-batch.bin", "compacted-lz4-batch.bin", "single-none.bin",
)


def describe(name: str) -> dict[str, object]:
    """What `name` holds, as manifest.json records it."""
    from msgfilter.pulsar import decode_batch

    meta, messages = decode_batch(build(name))
    return {
        "file": name,
        "compression": meta.compression,
        "batched": meta.batched,
        "producer_name": meta.producer_name,
        "sequence_id": meta.sequence_id,
        "publish_time": meta.publish_time,
        "properties": dict(meta.properties),
        "messages": [
            {
                "payload": m.payload.decode(),
                "properties": dict(m.properties),
                "partition_key": m.partition_key,
                "event_time": m.event_time,
                "sequence_id": m.sequence_id,
                "compacted_out": m.compacted_out,
            }
            for m in messages
        ],
    }


def write() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        (ROOT / name).write_bytes(build(name))
    manifest = [describe(name) for name in NAMES]
    (ROOT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {len(NAMES)} entries to {ROOT}", file=sys.stderr)
