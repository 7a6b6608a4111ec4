from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
LZ4: CompressionType
NONE: CompressionType
SNAPPY: CompressionType
ZLIB: CompressionType
ZSTD: CompressionType

class BrokerEntryMetadata(_message.Message):
    __slots__ = ["broker_timestamp", "index"]
    BROKER_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    broker_timestamp: int
    index: int
    def __init__(self, broker_timestamp: _Optional[int] = ..., index: _Optional[int] = ...) -> None: ...

class EncryptionKeys(_message.Message):
    __slots__ = ["key", "metadata", "value"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    metadata: _containers.RepeatedCompositeFieldContainer[KeyValue]
    value: bytes
    def __init__(self, key: _Optional[str] = ..., value: _Optional[bytes] = ..., metadata: _Optional[_Iterable[_Union[KeyValue, _Mapping]]] = ...) -> None: ...

class KeyValue(_message.Message):
    __slots__ = ["key", "value"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class MessageMetadata(_message.Message):
    __slots__ = ["chunk_id", "compacted_batch_indexes", "compression", "deliver_at_time", "encryption_algo", "encryption_keys", "encryption_param", "event_time", "highest_sequence_id", "marker_type", "null_partition_key", "null_value", "num_chunks_from_msg", "num_messages_in_batch", "ordering_key", "partition_key", "partition_key_b64_encoded", "producer_name", "properties", "publish_time", "replicate_to", "replicated_from", "schema_id", "schema_version", "sequence_id", "total_chunk_msg_size", "txnid_least_bits", "txnid_most_bits", "uncompressed_size", "uuid"]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    COMPACTED_BATCH_INDEXES_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_FIELD_NUMBER: _ClassVar[int]
    DELIVER_AT_TIME_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_ALGO_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_KEYS_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTION_PARAM_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    HIGHEST_SEQUENCE_ID_FIELD_NUMBER: _ClassVar[int]
    MARKER_TYPE_FIELD_NUMBER: _ClassVar[int]
    NULL_PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    NULL_VALUE_FIELD_NUMBER: _ClassVar[int]
    NUM_CHUNKS_FROM_MSG_FIELD_NUMBER: _ClassVar[int]
    NUM_MESSAGES_IN_BATCH_FIELD_NUMBER: _ClassVar[int]
    ORDERING_KEY_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_B64_ENCODED_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    PRODUCER_NAME_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    PUBLISH_TIME_FIELD_NUMBER: _ClassVar[int]
    REPLICATED_FROM_FIELD_NUMBER: _ClassVar[int]
    REPLICATE_TO_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_ID_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CHUNK_MSG_SIZE_FIELD_NUMBER: _ClassVar[int]
    TXNID_LEAST_BITS_FIELD_NUMBER: _ClassVar[int]
    TXNID_MOST_BITS_FIELD_NUMBER: _ClassVar[int]
    UNCOMPRESSED_SIZE_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    chunk_id: int
    compacted_batch_indexes: _containers.RepeatedScalarFieldContainer[int]
    compression: int
    deliver_at_time: int
    encryption_algo: str
    encryption_keys: _containers.RepeatedCompositeFieldContainer[EncryptionKeys]
    encryption_param: bytes
    event_time: int
    highest_sequence_id: int
    marker_type: int
    null_partition_key: bool
    null_value: bool
    num_chunks_from_msg: int
    num_messages_in_batch: int
    ordering_key: bytes
    partition_key: str
    partition_key_b64_encoded: bool
    producer_name: str
    properties: _containers.RepeatedCompositeFieldContainer[KeyValue]
    publish_time: int
    replicate_to: _containers.RepeatedScalarFieldContainer[str]
    replicated_from: str
    schema_id: bytes
    schema_version: bytes
    sequence_id: int
    total_chunk_msg_size: int
    txnid_least_bits: int
    txnid_most_bits: int
    uncompressed_size: int
    uuid: str
    def __init__(self, producer_name: _Optional[str] = ..., sequence_id: _Optional[int] = ..., publish_time: _Optional[int] = ..., properties: _Optional[_Iterable[_Union[KeyValue, _Mapping]]] = ..., replicated_from: _Optional[str] = ..., partition_key: _Optional[str] = ..., replicate_to: _Optional[_Iterable[str]] = ..., compression: _Optional[int] = ..., uncompressed_size: _Optional[int] = ..., num_messages_in_batch: _Optional[int] = ..., event_time: _Optional[int] = ..., encryption_keys: _Optional[_Iterable[_Union[EncryptionKeys, _Mapping]]] = ..., encryption_algo: _Optional[str] = ..., encryption_param: _Optional[bytes] = ..., schema_version: _Optional[bytes] = ..., partition_key_b64_encoded: bool = ..., ordering_key: _Optional[bytes] = ..., deliver_at_time: _Optional[int] = ..., marker_type: _Optional[int] = ..., txnid_least_bits: _Optional[int] = ..., txnid_most_bits: _Optional[int] = ..., highest_sequence_id: _Optional[int] = ..., null_value: bool = ..., uuid: _Optional[str] = ..., num_chunks_from_msg: _Optional[int] = ..., total_chunk_msg_size: _Optional[int] = ..., chunk_id: _Optional[int] = ..., null_partition_key: bool = ..., compacted_batch_indexes: _Optional[_Iterable[int]] = ..., schema_id: _Optional[bytes] = ...) -> None: ...

class SingleMessageMetadata(_message.Message):
    __slots__ = ["compacted_out", "event_time", "null_partition_key", "null_value", "ordering_key", "partition_key", "partition_key_b64_encoded", "payload_size", "properties", "sequence_id"]
    COMPACTED_OUT_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    NULL_PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    NULL_VALUE_FIELD_NUMBER: _ClassVar[int]
    ORDERING_KEY_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_B64_ENCODED_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SIZE_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_ID_FIELD_NUMBER: _ClassVar[int]
    compacted_out: bool
    event_time: int
    null_partition_key: bool
    null_value: bool
    ordering_key: bytes
    partition_key: str
    partition_key_b64_encoded: bool
    payload_size: int
    properties: _containers.RepeatedCompositeFieldContainer[KeyValue]
    sequence_id: int
    def __init__(self, properties: _Optional[_Iterable[_Union[KeyValue, _Mapping]]] = ..., partition_key: _Optional[str] = ..., payload_size: _Optional[int] = ..., compacted_out: bool = ..., event_time: _Optional[int] = ..., partition_key_b64_encoded: bool = ..., ordering_key: _Optional[bytes] = ..., sequence_id: _Optional[int] = ..., null_value: bool = ..., null_partition_key: bool = ...) -> None: ...

class SingleMessageMetadataView(_message.Message):
    __slots__ = ["compacted_out", "event_time", "null_partition_key", "null_value", "ordering_key", "partition_key", "partition_key_b64_encoded", "payload_size", "properties", "sequence_id"]
    class PropertiesEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    COMPACTED_OUT_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    NULL_PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    NULL_VALUE_FIELD_NUMBER: _ClassVar[int]
    ORDERING_KEY_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_B64_ENCODED_FIELD_NUMBER: _ClassVar[int]
    PARTITION_KEY_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SIZE_FIELD_NUMBER: _ClassVar[int]
    PROPERTIES_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_ID_FIELD_NUMBER: _ClassVar[int]
    compacted_out: bool
    event_time: int
    null_partition_key: bool
    null_value: bool
    ordering_key: bytes
    partition_key: str
    partition_key_b64_encoded: bool
    payload_size: int
    properties: _containers.ScalarMap[str, str]
    sequence_id: int
    def __init__(self, properties: _Optional[_Mapping[str, str]] = ..., partition_key: _Optional[str] = ..., payload_size: _Optional[int] = ..., compacted_out: bool = ..., event_time: _Optional[int] = ..., partition_key_b64_encoded: bool = ..., ordering_key: _Optional[bytes] = ..., sequence_id: _Optional[int] = ..., null_value: bool = ..., null_partition_key: bool = ...) -> None: ...

class CompressionType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
