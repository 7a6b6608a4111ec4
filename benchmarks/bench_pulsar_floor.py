"""What reading a stored Pulsar entry costs at least through protobuf's Python API (issue 15).

For the 1 000-message LZ4 entry of bench_batch.py, against `JmsSelectorFilter.decide`
(EXACT) on it: the checksum and decompression, the walk over the batch (one protobuf parse
per message, since each message's payload size is inside its metadata) with the full
``SingleMessageMetadata``, with msgfilter's ``SingleMessageMetadataView`` (the same
fields, the properties as a ``map<string, string>``: KeyValue {key = 1; value = 2} is a map
entry's layout; a new object per message, or one parsing each in turn as the decoder
does) and with a view that declares ``payload_size`` only (built here with protobuf's
descriptor API), and reading the properties out, as the repeated ``KeyValue`` of Pulsar's
proto or out of the map, as ``read_entry`` does. Prints the minimum of repeated runs (CPU
time of this process).

    PYTHONPATH=src .venv/bin/python benchmarks/bench_pulsar_floor.py [--repeat 9]
"""

from __future__ import annotations

import argparse
import json
import struct
import time
import timeit
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from bench_batch import SELECTOR, messages
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from msgfilter.batch import BatchMode
from msgfilter.broker import FilterContext, JmsSelectorConfig, JmsSelectorFilter, Position
from msgfilter.jsmtype import encode_properties
from msgfilter.pulsar import (
    BatchMessage,
    BatchMetadata,
    decode_batch,
    decode_payload,
    encode_batch,
    read_entry,
)
from msgfilter.pulsar import pulsar_entry_pb2 as pb

_U32 = struct.Struct(">I")
_KV = attrgetter("key", "value")
_F = descriptor_pb2.FieldDescriptorProto


def _size_only() -> Any:
    """A message class of SingleMessageMetadata declaring only payload_size."""
    proto = descriptor_pb2.FileDescriptorProto(name="bench_views.proto", package="bench")
    size_only = proto.message_type.add(name="SizeOnly")
    size_only.field.add(name="payload_size", number=3, type=_F.TYPE_INT32,
                        label=_F.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("bench.SizeOnly"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()

    def best(fn: Callable[[], object], number: int) -> float:
        runs = timeit.repeat(fn, number=number, repeat=args.repeat, timer=time.process_time)
        return min(runs) / number * 1e6

    batch = messages(1000)
    msgs = [
        BatchMessage(json.dumps(m).encode(), tuple(encode_properties(m).items()),
                     partition_key=f"key-{i % 16}", sequence_id=i)
        for i, m in enumerate(batch)
    ]
    data = encode_batch(BatchMetadata("bench-producer", 0, 1_700_000_000_000,
                                      compression="LZ4"), msgs)
    ctx = FilterContext("bench", {"jms.filtering": "true", "jms.selector": SELECTOR})
    exact = JmsSelectorFilter(JmsSelectorConfig(batch_mode=BatchMode.EXACT))
    stored = read_entry(Position(7, 3), data)
    assert stored.entry is not None
    entry = stored.entry
    payload = decode_payload(data)
    size_only = _size_only()
    map_view = pb.SingleMessageMetadataView
    full_parse = pb.SingleMessageMetadata.FromString

    def walk(parse: Callable[[bytes], Any]) -> list[bytes]:
        raws, offset, unpack = [], 0, _U32.unpack_from
        for _ in range(len(batch)):
            start = offset + 4
            stop = start + unpack(payload, offset)[0]
            raw = payload[start:stop]
            offset = stop + parse(raw).payload_size
            raws.append(raw)
        return raws

    def reused() -> Callable[[bytes], Any]:
        # As the decoder parses: ParseFromString into one object (it clears it first).
        view = map_view()

        def parse(raw: bytes) -> Any:
            view.ParseFromString(raw)
            return view

        return parse

    raws = walk(full_parse)
    parsed = [full_parse(r) for r in raws]
    views = [map_view.FromString(r) for r in raws]
    maps = [v.properties for v in views]
    assert all(dict(v.properties) == dict(map(_KV, p.properties))
               for v, p in zip(views, parsed, strict=True))
    filter_t = best(lambda: exact.decide(entry, ctx), 20)
    rows = [
        ("filter (JmsSelectorFilter.decide, EXACT)", filter_t),
        ("checksum + LZ4 decompression", best(lambda: decode_payload(data), 20)),
        ("walk, full SingleMessageMetadata parse", best(lambda: walk(full_parse), 5)),
        ("walk, SingleMessageMetadataView parse", best(lambda: walk(map_view.FromString), 5)),
        ("walk, one view object parsing each in turn", best(lambda: walk(reused()), 5)),
        ("walk, payload_size-only view parse", best(lambda: walk(size_only.FromString), 5)),
        ("properties: repeated KeyValue -> pairs", best(
            lambda: [tuple(map(_KV, p.properties)) for p in parsed], 5)),
        ("properties: dict(map)", best(lambda: [dict(p) for p in maps], 5)),
        ("properties: {k: map[k]} (read_entry)", best(
            lambda: [{k: p[k] for k in p} for p in maps], 5)),
        ("decode_batch (pairs read when asked)", best(lambda: decode_batch(data), 3)),
        ("read_entry (all of decoding)", best(lambda: read_entry(Position(7, 3), data), 3)),
    ]
    print(f"1000-message LZ4 entry, {len(data)} bytes; minimum of {args.repeat} runs")
    for label, t in rows:
        print(f"  {label:42} {t:9.1f} us  {t / filter_t:6.2f}x the filter")


if __name__ == "__main__":
    main()
