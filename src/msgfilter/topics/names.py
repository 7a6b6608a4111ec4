"""Pulsar topic names: parsing, the `-partition-N` suffix, domains and system topics.

The rules follow Pulsar's `TopicName`, `NamespaceName` and `SystemTopicNames` (spec/brokers.md
B.3): a complete name is `domain://tenant/namespace/local` (or the legacy
`domain://tenant/cluster/namespace/local`); short names `local` and `tenant/ns/local` are
completed to `persistent://public/default/local` and `persistent://tenant/ns/local`.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from functools import lru_cache

from msgfilter.java import JavaNumberFormatError, parse_int
from msgfilter.topics.errors import TopicNameError

SCHEME_SEPARATOR = "://"
PARTITIONED_TOPIC_SUFFIX = "-partition-"

# NamedEntity.checkName: tenants, clusters and namespaces are `[-=:.\w]` with ASCII \w.
_NAMED_ENTITY = re.compile(r"[-=:.A-Za-z0-9_]+")

#: Local names (partition suffix removed) of Pulsar's event system topics
#: (`SystemTopicNames.EVENTS_TOPIC_NAMES`).
EVENTS_TOPIC_NAMES = frozenset(
    {
        "__change_events",
        "__transaction_buffer_snapshot",
        "__transaction_buffer_snapshot_segments",
        "__transaction_buffer_snapshot_indexes",
    }
)
#: Suffix of transaction pending-ack store topics (`PENDING_ACK_STORE_SUFFIX`).
PENDING_ACK_STORE_SUFFIX = "__transaction_pending_ack"
#: Pulsar's own namespace (`NamespaceName.SYSTEM_NAMESPACE`); every topic in it is a system topic.
SYSTEM_NAMESPACE = "pulsar/system"


class TopicDomain(enum.StrEnum):
    """The scheme of a topic name."""

    PERSISTENT = "persistent"
    NON_PERSISTENT = "non-persistent"


class Mode(enum.IntEnum):
    """Which domains a listing covers: `CommandGetTopicsOfNamespace.Mode` of the proto."""

    PERSISTENT = 0
    NON_PERSISTENT = 1
    ALL = 2

    @classmethod
    def coerce(cls, value: Mode | str | int) -> Mode:
        """Accept a `Mode`, its proto number, or its name in any case (`"all"`)."""
        if isinstance(value, Mode):
            return value
        if isinstance(value, str):
            try:
                return cls[value.strip().upper().replace("-", "_")]
            except KeyError:
                raise ValueError(f"unknown topic listing mode {value!r}") from None
        return cls(value)

    def includes(self, domain: TopicDomain) -> bool:
        """Whether a listing in this mode contains topics of `domain`."""
        if self is Mode.ALL:
            return True
        return (domain is TopicDomain.PERSISTENT) == (self is Mode.PERSISTENT)


@dataclass(frozen=True, slots=True)
class TopicName:
    """A parsed, complete topic name. `name` is the canonical string (Pulsar's `toString()`)."""

    name: str
    domain: TopicDomain
    tenant: str
    cluster: str | None
    namespace_portion: str
    local_name: str
    #: The partition number of a `-partition-N` name, else None.
    partition: int | None

    @property
    def namespace(self) -> str:
        """`tenant/namespace`, or `tenant/cluster/namespace` for a legacy name."""
        if self.cluster is None:
            return f"{self.tenant}/{self.namespace_portion}"
        return f"{self.tenant}/{self.cluster}/{self.namespace_portion}"

    @property
    def is_persistent(self) -> bool:
        return self.domain is TopicDomain.PERSISTENT

    @property
    def partitioned_topic_name(self) -> str:
        """The complete name without the `-partition-N` suffix (Pulsar's
        `getPartitionedTopicName()`)."""
        if self.partition is None:
            return self.name
        return self.name[: self.name.rfind(PARTITIONED_TOPIC_SUFFIX)]

    @property
    def base_local_name(self) -> str:
        """The local name without the `-partition-N` suffix."""
        if self.partition is None:
            return self.local_name
        return self.local_name[: self.local_name.rfind(PARTITIONED_TOPIC_SUFFIX)]

    @property
    def pattern_subject(self) -> str:
        """What a topics pattern is matched against: the partitioned name without its scheme,
        e.g. `tenant/ns/orders` for `persistent://tenant/ns/orders-partition-3`."""
        base = self.partitioned_topic_name
        return base[base.index(SCHEME_SEPARATOR) + len(SCHEME_SEPARATOR) :]

    def __str__(self) -> str:
        return self.name


def partition_index(name: str) -> int | None:
    """The partition number encoded in `name`, or None, exactly as Pulsar decides it.

    The text after the last `-partition-` must be a decimal int (no sign, no leading zero,
    at most 2^31-1), so `t-partition-01` and `t-partition--1` are not partitions.
    """
    at = name.rfind(PARTITIONED_TOPIC_SUFFIX)
    if at < 0:
        return None
    digits = name[at + len(PARTITIONED_TOPIC_SUFFIX) :]
    try:
        value = parse_int(digits)
    except JavaNumberFormatError:
        return None
    # Pulsar's own guard against leading zeros and signs: the text must be the number's own
    # (Integer.parseInt read every character as one UTF-16 unit, so lengths compare alike).
    if value < 0 or len(str(value)) != len(digits):
        return None
    return value


@lru_cache(maxsize=65536)
def parse_topic_name(name: str) -> TopicName:
    """Parse a topic name, completing short forms; raise `TopicNameError` if it is invalid."""
    if not isinstance(name, str):
        raise TopicNameError(f"a topic name must be a str, not {type(name).__name__}")
    complete = name
    if SCHEME_SEPARATOR not in complete:
        parts = complete.split("/")
        if len(parts) == 3:
            complete = f"{TopicDomain.PERSISTENT}{SCHEME_SEPARATOR}{complete}"
        elif len(parts) == 1:
            complete = f"{TopicDomain.PERSISTENT}{SCHEME_SEPARATOR}public/default/{complete}"
        else:
            raise TopicNameError(
                f"Invalid short topic name {name!r}: use local, tenant/namespace/local "
                "or a complete domain://tenant/namespace/local name"
            )
    scheme, rest = complete.split(SCHEME_SEPARATOR, 1)
    try:
        domain = TopicDomain(scheme)
    except ValueError:
        raise TopicNameError(f"Invalid topic domain {scheme!r} in {name!r}") from None
    parts = rest.split("/", 3)
    cluster: str | None
    entities: tuple[str, ...]
    if len(parts) == 3:
        tenant, namespace_portion, local = parts
        cluster = None
        entities = (tenant, namespace_portion)
    elif len(parts) == 4:
        tenant, cluster, namespace_portion, local = parts
        entities = (tenant, cluster, namespace_portion)
    else:
        raise TopicNameError(f"Invalid topic name: {name!r}")
    for entity in entities:
        if not _NAMED_ENTITY.fullmatch(entity):
            raise TopicNameError(f"Invalid tenant, cluster or namespace {entity!r} in {name!r}")
    if not local.strip():
        raise TopicNameError(f"Invalid topic name: {name!r}. Topic local name must not be blank.")
    return TopicName(
        name=f"{domain}{SCHEME_SEPARATOR}{rest}",
        domain=domain,
        tenant=tenant,
        cluster=cluster,
        namespace_portion=namespace_portion,
        local_name=local,
        partition=partition_index(complete),
    )


def validate_namespace(namespace: str) -> str:
    """Check a `tenant/namespace` (or legacy `tenant/cluster/namespace`) name and return it."""
    if not isinstance(namespace, str):
        raise TopicNameError(f"a namespace must be a str, not {type(namespace).__name__}")
    parts = namespace.split("/")
    if len(parts) not in (2, 3) or not all(_NAMED_ENTITY.fullmatch(p) for p in parts):
        raise TopicNameError(f"Invalid namespace name: {namespace!r}")
    return namespace


def is_system_topic(topic: str | TopicName) -> bool:
    """Whether Pulsar hides this topic from topic listings (`TopicList.filterSystemTopic`).

    True for, with any `-partition-N` suffix removed first:
    - a local name in `EVENTS_TOPIC_NAMES` (`__change_events`, `__transaction_buffer_snapshot`,
      and its `_segments` / `_indexes` variants), in any namespace;
    - a local name ending with `__transaction_pending_ack` (transaction pending-ack stores);
    - any topic of the `pulsar/system` namespace (transaction coordinator topics and the like).

    Other names starting with `__` are user topics, as in Pulsar: hiding them would change the
    list hash a real broker reports for the same namespace.
    """
    parsed = topic if isinstance(topic, TopicName) else parse_topic_name(topic)
    if parsed.namespace == SYSTEM_NAMESPACE:
        return True
    local = parsed.base_local_name
    return local in EVENTS_TOPIC_NAMES or local.endswith(PENDING_ACK_STORE_SUFFIX)
