"""The built-in entry filters by name: one module per broker convention
(`pulsar_jms`: pulsar-jms selectors, `pulsar_tags`: Pulsar tags, `rocketmq`: RocketMQ tags
and SQL92), and the registry `msgfilter.broker.load_filters` reads."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .filters import EntryFilter
from .pulsar_jms import JmsSelectorFilter
from .pulsar_tags import PulsarTagEntryFilter
from .rocketmq import RocketMQEntryFilter

#: The built-in entry filters by name, for `msgfilter.broker.load_filters`.
BUILTIN_FILTERS: Mapping[str, type[EntryFilter]] = MappingProxyType(
    {
        "jms": JmsSelectorFilter,
        "pulsar-tag": PulsarTagEntryFilter,
        "rocketmq": RocketMQEntryFilter,
    }
)
