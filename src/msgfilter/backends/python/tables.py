"""One lowering table per SQL value model: which handlers generate each node class, and
which node classes are deliberately absent because the model's grammars never build them."""

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

    #: Node class -> {mode: handler} for every node class the model's grammars build.
    handlers: Mapping[type[n.Node], Handlers]
    #: Node classes deliberately without handlers: no grammar of this model builds them
    #: (its switches leave out the syntax), so the checked tree never holds one.
    absent: frozenset[type[n.Node]]
    #: Test equality before the value's class (see `Generator.optimistic`): only where the
    #: value rules make a failed shortcut fall back to the same answer.
    optimistic: bool = False
    #: Handlers for the node at the top of the tree, where its answer allows a shortcut
    #: that would be wrong deeper down.
    top: Mapping[type[n.Node], Handlers] = field(default_factory=lambda: MappingProxyType({}))


def _table(
    handlers: Mapping[type[n.Node], Handlers], absent: set[type[n.Node]], optimistic: bool = False,
    top: Mapping[type[n.Node], Handlers] | None = None,
) -> ModelTable:
    kept = MappingProxyType({k: h for k, h in handlers.items() if k not in absent})
    return ModelTable(kept, frozenset(absent), optimistic, MappingProxyType(dict(top or {})))


#: The lowering table of each SQL value model (the tag dialects do not use this backend).
TABLES: Mapping[ValueModel, ModelTable] = MappingProxyType({
    ValueModel.JMS: _table(
        jms.HANDLERS, {n.StringTest, n.Call, n.XQuery, *n.AMQP_ONLY}, optimistic=True
    ),
    ValueModel.ROCKETMQ: _table(
        rocketmq.HANDLERS, {n.Arith, n.Like, n.Call, n.XQuery, *n.AMQP_ONLY}, top=rocketmq.TOP
    ),
    ValueModel.ACTIVEMQ: _table(activemq.HANDLERS, {n.StringTest, *n.AMQP_ONLY}),
    ValueModel.QPID: _table(qpid.HANDLERS, {n.StringTest, n.Call, n.XQuery, *n.AMQP_ONLY}),
    ValueModel.ARTEMIS: _table(artemis.HANDLERS, {n.StringTest, n.Call, *n.AMQP_ONLY}),
    ValueModel.AMQP: _table(amqp.HANDLERS, {
        n.NullLit, n.Between, n.In, n.StringTest, n.XQuery,
    }),
})
