"""The value models: how a dialect types, converts and compares values at run time.

A dialect names one model in the registry (`msgfilter.dialects`); each backend keeps one
lowering table per model, so adding a dialect that shares a model costs no backend code.
"""

from __future__ import annotations

from enum import Enum


class ValueModel(Enum):
    #: JMS 2.0 selectors to the letter of the spec (J1-J41): Python values as Java longs
    #: and doubles, symmetric numeric promotion, unlike types FALSE.
    JMS = "jms"
    #: RocketMQ's SQL92: string properties converted to the literal's Java type, asymmetric
    #: NULL equality, evaluation aborted where the broker throws.
    ROCKETMQ = "rocketmq"
    #: ActiveMQ Classic 5.17: exact Java types (`msgfilter.java.types`), its conversion ladder
    #: and evaluation failures as outcomes.
    ACTIVEMQ = "activemq"
    #: ActiveMQ Artemis: ActiveMQ's Java types with Artemis's conversions (Float meets
    #: Double, a string converts to a Boolean), header identifiers AMQPriority ... read
    #: from the JMS header fields, evaluation failures as outcomes (FALSE for `matches`).
    ARTEMIS = "artemis"
    #: Qpid Broker-J: ActiveMQ's Java types without its string conversion, equality with
    #: NULL FALSE, AND/OR that answer their first deciding operand, headers as Qpid reads them.
    QPID = "qpid"
    #: RabbitMQ 4.2's AMQP SQL filter expressions (`semantics.amqp`): strings and
    #: binaries as bytes, ordering only number to number or binary to binary (else FALSE),
    #: `/` always a float, header and properties fields beside application properties.
    AMQP = "amqp"
    #: AMQP property filter expressions (`msgfilter.amqp.property_filter`): RabbitMQ's
    #: prefix, suffix and `==` matches of properties and application properties.
    AMQP_PROPERTY = "amqp-property"
    #: RocketMQ tag expressions: a set of tags, matched by String.hashCode then exactly.
    ROCKETMQ_TAG = "rocketmq-tag"
    #: Pulsar anytag/alltag consumer metadata against `tag*` message properties.
    PULSAR_TAG = "pulsar-tag"


#: The models whose values are Java-typed (`msgfilter.java.types`): column backends hand them
#: each column's Java type.
JAVA_TYPED: frozenset[ValueModel] = frozenset(
    {ValueModel.ACTIVEMQ, ValueModel.ARTEMIS, ValueModel.QPID}
)
