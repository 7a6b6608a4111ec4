"""Pulsar's stored entry bytes: read and write batched entries exactly as Pulsar does.

    >>> from msgfilter.pulsar import BatchMessage, BatchMetadata, decode_batch, encode_batch
    >>> meta = BatchMetadata("producer-1", sequence_id=7, publish_time=1700000000000)
    >>> entry = encode_batch(meta, [BatchMessage(b"hi", (("color", "red"),))], "LZ4")
    >>> decode_batch(entry)[1][0].properties
    (('color', 'red'),)

Modules: `codec` (decode_batch, decode_metadata, encode_batch), `model` (BatchMetadata,
BatchMessage), `compression` (the codecs and their framing), `errors`, `entries` (stored
entries for the broker API's entry filters), `rebatch` (writing back what a filter kept,
and the acknowledgements), `pulsar_entry_pb2` (generated
by protoc 3.21.12 from pulsar_entry.proto). Needs the ``pulsar`` extra
(``pip install msgfilter[pulsar]``). The guide is docs/pulsar-entries.md.
"""

from .codec import decode_batch, decode_metadata, decode_payload
from .compression import CODECS, DEFAULT_MAX_UNCOMPRESSED
from .entries import StoredEntry, decide_entry, read_entry
from .errors import EncryptedEntryError, EntryFormatError
from .model import BatchMessage, BatchMetadata
from .rebatch import COMPACTED_OUT, RebatchedEntry, ack_set, rebatch_entry
from .writer import encode_batch, encode_payload

__all__ = [
    "CODECS",
    "COMPACTED_OUT",
    "DEFAULT_MAX_UNCOMPRESSED",
    "BatchMessage",
    "BatchMetadata",
    "EncryptedEntryError",
    "EntryFormatError",
    "RebatchedEntry",
    "StoredEntry",
    "ack_set",
    "decide_entry",
    "decode_batch",
    "decode_metadata",
    "decode_payload",
    "encode_batch",
    "encode_payload",
    "read_entry",
    "rebatch_entry",
]
