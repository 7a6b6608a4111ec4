"""AMQP filter expressions as RabbitMQ 4.2 evaluates them: the SQL dialect `amqp-sql`
(`msgfilter.compile(text, "amqp-sql")`) and property filter expressions
(`property_filter`). docs/amqp.md has the rules, the message mapping and examples."""

from .properties import PropertyFilter, property_filter
from .sql import AmqpSqlFilter

__all__ = ["AmqpSqlFilter", "PropertyFilter", "property_filter"]
