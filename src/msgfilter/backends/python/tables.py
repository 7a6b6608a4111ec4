"""One lowering table per SQL value model: which handlers generate each node class.

Which node classes reach a table is the grammars' fact (`Grammar.node_kinds`, gathered per
model by `msgfilter.dialects.node_kinds`), not restated here: a table handles at least
those (tests/backends/test_python_backend.py checks it) and may hold more, inherited from
its parent table, that no tree of its model holds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ...semantics.model import ValueModel
from ...syntax import nodes as n
from . import activemq, amqp, artemis, jms, qpid, rocketmq
from .generator import Handlers


@dataclass(frozen=True, slots=True)
class ModelTable:
    """How this backend lowers one value model: a handler per node class and mode."""

    #: Node class -> {mode: handler}, for every node class the model's grammars build.
    handlers: Mapping[type[n.Node], Handlers]
    #: Test equality before the value's class (see `Generator.optimistic`): only where the
    #: value rules make a failed shortcut fall back to the same answer.
    optimistic: bool = False
    #: Handlers for the node at the top of the tree, where its answer allows a shortcut
    #: that would be wrong deeper down.
    top: Mapping[type[n.Node], Handlers] = field(default_factory=lambda: MappingProxyType({}))


def _table(
    handlers: Mapping[type[n.Node], Handlers], optimistic: bool = False,
    top: Mapping[type[n.Node], Handlers] | None = None,
) -> ModelTable:
    return ModelTable(
        MappingProxyType(dict(handlers)), optimistic, MappingProxyType(dict(top or {}))
    )


#: The lowering table of each SQL value model (the tag dialects do not use this backend).
TABLES: Mapping[ValueModel, ModelTable] = MappingProxyType({
    ValueModel.JMS: _table(jms.HANDLERS, optimistic=True),
    ValueModel.ROCKETMQ: _table(rocketmq.HANDLERS, top=rocketmq.TOP),
    ValueModel.ACTIVEMQ: _table(activemq.HANDLERS),
    ValueModel.QPID: _table(qpid.HANDLERS),
    ValueModel.ARTEMIS: _table(artemis.HANDLERS),
    ValueModel.AMQP: _table(amqp.HANDLERS),
})
