"""Properties of amqp-sql over drawn texts and AMQP messages (`msgfilter.testing`'s
`amqp_selectors` and `amqp_messages`): the canonical text means the same, `matches` is
`evaluate` is TRUE, the index agrees with the evaluator, evaluation never raises."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import FilterError, Message, SubscriptionIndex
from msgfilter.testing import amqp_messages, amqp_selectors, property_settings


@property_settings()
@given(amqp_selectors(), st.lists(amqp_messages(), min_size=1, max_size=4))
def test_every_way_of_asking_agrees(text: str, messages: list[Message]) -> None:
    try:
        f = msgfilter.compile(text, "amqp-sql")
    except FilterError:
        return
    again = msgfilter.compile(f.unparse(), "amqp-sql")
    assert again == f
    index = SubscriptionIndex()
    index.add_filter("f", f)
    for m in messages:
        answer = f.evaluate(m)
        assert answer in (True, False, None)
        assert again.evaluate(m) is answer
        assert f.matches(m) is (answer is True)
        assert (set(index.match(m)) == {"f"}) is (answer is True)
        # A plain mapping is the message's application properties.
        plain = msgfilter.compile(text.replace("p.", "a.").replace("h.", "a."), "amqp-sql")
        assert plain.evaluate(dict(m.properties)) is plain.evaluate(Message(m.properties))
