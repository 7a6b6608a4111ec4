"""Hypothesis strategies for stored Pulsar entries (metadata, messages, codecs)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from msgfilter.pulsar import BatchMessage, BatchMetadata

CODECS = ("NONE", "LZ4", "ZLIB", "ZSTD", "SNAPPY")
#: The settings of the Hypothesis tests over whole entries (each example encodes one).
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# protobuf strings are UTF-8: no lone surrogates.
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
u64 = st.integers(0, 2**64 - 1)
properties = st.lists(st.tuples(text, text), max_size=4).map(tuple)


def messages() -> st.SearchStrategy[BatchMessage]:
    return st.builds(
        BatchMessage,
        payload=st.binary(max_size=64),
        properties=properties,
        partition_key=st.none() | text,
        partition_key_b64_encoded=st.booleans(),
        ordering_key=st.none() | st.binary(max_size=8),
        event_time=st.none() | u64,
        sequence_id=st.none() | u64,
        null_value=st.booleans(),
        null_partition_key=st.booleans(),
        compacted_out=st.booleans(),
    )


def metadata(compression: str = "NONE", batched: bool = True) -> st.SearchStrategy[BatchMetadata]:
    return st.builds(
        BatchMetadata,
        producer_name=text,
        sequence_id=u64,
        publish_time=u64,
        properties=properties,
        compression=st.just(compression),
        batched=st.just(batched),
        partition_key=st.none() | text,
        partition_key_b64_encoded=st.booleans(),
        ordering_key=st.none() | st.binary(max_size=8),
        event_time=st.none() | u64,
        replicated_from=st.none() | text,
        replicate_to=st.lists(text, max_size=2).map(tuple),
        schema_version=st.none() | st.binary(max_size=8),
        deliver_at_time=st.none() | st.integers(-(2**63), 2**63 - 1),
        marker_type=st.none() | st.integers(-(2**31), 2**31 - 1),
        highest_sequence_id=st.none() | u64,
        encrypted=st.just(False),
        extra=st.just(b""),
    )


@st.composite
def batches(draw: st.DrawFn) -> tuple[BatchMetadata, tuple[BatchMessage, ...]]:
    """A batched entry's metadata, with any codec, and up to six messages."""
    meta = draw(metadata(draw(st.sampled_from(CODECS))))
    return meta, tuple(draw(st.lists(messages(), max_size=6)))
