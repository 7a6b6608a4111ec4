"""Pulsar's stored entry bytes: read and write batched entries exactly as Pulsar does.

    >>> from msgfilter.pulsar import BatchMessage, BatchMetadata, decode_batch, encode_batch
    >>> meta = BatchMetadata("producer-1", sequence_id=7, publish_time=1700000000000)
    >>> entry = encode_batch(meta, [BatchMessage(b"hi", (("color", "red"),))], "LZ4")
    >>> decode_batch(entry)[1][0].properties
    (('color', 'red'),)

Modules: `codec` (decode_batch, decode_metadata, encode_batch), `model` (BatchMetadata,
BatchMessage), `compression` (the codecs and their framing), `errors`, `rebatch`
(filtering an entry's messages and writing what is kept), `pulsar_entry_pb2` (generated
by protoc 3.21.12 from pulsar_entry.proto). Needs the ``pulsar`` extra
(``pip install msgfilter[pulsar]``). The guide is docs/pulsar-entries.md.
"""

from .codec import decode_batch, decode_metadata, encode_batch, encode_payload
from .compression import CODECS, DEFAULT_MAX_UNCOMPRESSED
from .errors import EncryptedEntryError, EntryFormatError
from .model import BatchMessage, BatchMetadata

__all__ = [
    "CODECS",
    "DEFAULT_MAX_UNCOMPRESSED",
    "BatchMessage",
    "BatchMetadata",
    "EncryptedEntryError",
    "EntryFormatError",
    "decode_batch",
    "decode_metadata",
    "encode_batch",
    "encode_payload",
]
