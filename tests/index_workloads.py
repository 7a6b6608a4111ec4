"""Workloads that try to break `SubscriptionIndex`: deterministic, seeded generators of
subscriptions and messages for the benchmark (benchmarks/bench_index.py) and the tests
(tests/index/test_index_workloads.py).

`tests/index_generators.py` holds the workload the index was built against ("friendly":
most subscriptions are narrowed by one equality on a name with many values). The families
here are the ones a user reported as slow, of the same broker family but with the
selective predicates elsewhere:

- `broker_*`: tenant / region / type / score equalities, IN lists, ranges, prefixes, ORs,
  NOTs, a few unkeyable selectors, 10 % duplicate texts. Each of the four shapes reported
  bad at 100 000 subscriptions is at least 10 % of the subscriptions:
  `score = N AND type IN (S, S)`, `(tenant = S AND type = S) OR (region = S AND price > N)`,
  `price > N AND qty < N`, `tenant IN (S, S, S) AND price > N`.
- `device_*`: threshold alerts over device readings; ranges (`>`, `<`, BETWEEN, on ints
  and floats) on two or three readings are the selective predicates, a device or site
  equality narrows only some.
- `rocketmq_*`: the rocketmq dialect (string properties; `a = 5` compares numerically,
  BETWEEN, STARTSWITH, IN) in the same spirit; `mixed_*`: jms + rocketmq + rocketmq-tag +
  pulsar-tag subscriptions in one index; `amqp_*`: the broker shapes in amqp-sql.
- `hot_*`: one identifier (`region`) in every signature, beside an attribute of each
  subscription's own: the shape that grouping clauses by their first identifier handles
  worst.

Value spaces grow with the number of subscriptions (`_scale`), so that a message matches
a few dozen subscriptions at 10 000 and about twice that at 100 000, as in a broker where
more subscribers means more tenants, devices and sites, not more subscribers per value.

Every `*_selectors(count, seed)` returns `count` (text, dialect) pairs; every
`*_messages(count, subscriptions, seed)` returns `count` dict messages for an index of
`subscriptions` subscriptions of that family (the value spaces must agree). Messages have
missing properties and mixed types (ints, floats, numeric strings, absent).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

Selectors = list[tuple[str, str]]
Messages = list[dict[str, Any]]


def _scale(count: int) -> float:
    """Subscriptions relative to 10 000 (at least a small floor, for tiny test sizes)."""
    return max(count, 300) / 10_000


def _dup(rnd: random.Random, out: Selectors, share: float) -> bool:
    """Append a copy of an earlier selector with probability `share`."""
    if out and rnd.random() < share:
        out.append(out[rnd.randrange(len(out))])
        return True
    return False


def _num(rnd: random.Random, value: float, ints: float = 0.3, strings: float = 0.05) -> Any:
    """`value` as a float, an int (rounded) or a numeric string: mixed types."""
    r = rnd.random()
    if r < strings:
        return f"{value:.1f}"
    if r < strings + ints:
        return int(value)
    return round(value, 2)


# -- broker ---------------------------------------------------------------------------------


class _Broker:
    """The broker family's value spaces at a number of subscriptions."""

    def __init__(self, count: int) -> None:
        s = _scale(count)
        self.tenants = max(20, round(400 * s ** 0.71))
        self.regions = max(4, round(10 * s ** 0.355))
        self.types = 20
        self.scores = max(10, round(30 * s ** 0.71))
        self.customers = self.tenants * 10
        #: Mean share of messages above a single price or qty threshold.
        self.tail = min(0.4, 0.075 * s ** -0.355)


class _Draw:
    """The broker family's literals, drawn from one generator (regions quoted by
    `quote`: amqp-sql takes double-quoted strings too)."""

    def __init__(self, rnd: random.Random, v: _Broker, quote: str = "'") -> None:
        self.rnd, self.v, self.quote = rnd, v, quote

    def t(self) -> str:
        return f"'t{self.rnd.randrange(self.v.tenants)}'"

    def k(self) -> str:
        return f"'k{self.rnd.randrange(self.v.types)}'"

    def r(self) -> str:
        return f"{self.quote}r{self.rnd.randrange(self.v.regions)}{self.quote}"

    def price(self, tail: float) -> str:
        # A threshold whose share of messages above it averages `tail` (price in [0, 1000)).
        return f"{1000 - self.rnd.uniform(0, 2000 * tail):.1f}"


def broker_selectors(count: int, seed: int = 1) -> Selectors:
    """jms subscriptions of a broker's tenants (see the module docstring)."""
    rnd = random.Random(seed)
    v = _Broker(count)
    out: Selectors = []
    draw = _Draw(rnd, v)
    t, k, r, tail_price = draw.t, draw.k, draw.r, draw.price

    # A few selectors no conjunct keys (checked for every message; they rarely match).
    for i in range(min(count // 1000, 12)):
        text = (f"NOT (region = 'r{i % 4}' OR price > -{1 + i})" if i % 3 == 0 else
                f"price * qty > {990_000 + i}" if i % 3 == 1 else
                f"region <> 'r{i % 4}' AND type <> 'k{i % 7}' AND qty + price < -{i}")
        out.append((text, "jms"))
    while len(out) < count:
        if _dup(rnd, out, 0.10):
            continue
        shape = rnd.random()
        if shape < 0.13:
            text = f"score = {rnd.randrange(v.scores)} AND type IN ({k()}, {k()})"
        elif shape < 0.26:
            text = (f"(tenant = {t()} AND type = {k()}) OR "
                    f"(region = {r()} AND price > {tail_price(v.tail / 2)})")
        elif shape < 0.39:
            qty = rnd.uniform(0, 2000 * v.tail)
            text = f"price > {tail_price(v.tail)} AND qty < {round(qty)}"
        elif shape < 0.52:
            text = f"tenant IN ({t()}, {t()}, {t()}) AND price > {tail_price(0.2)}"
        elif shape < 0.67:
            text = f"tenant = {t()} AND region = {r()}"
        elif shape < 0.75:
            text = f"tenant = {t()} AND type = {k()} AND priority >= {rnd.randrange(10)}"
        elif shape < 0.81:
            c = rnd.randrange(v.customers)
            text = f"customer = {c}" if rnd.random() < 0.5 else f"customer = {c}.0"
        elif shape < 0.86:
            text = f"sku LIKE 'p{rnd.randrange(v.tenants)}-%' AND region <> {r()}"
        elif shape < 0.90:
            text = f"(tenant = {t()} OR owner = {t()}) AND NOT (type = {k()})"
        elif shape < 0.93:
            low = rnd.uniform(0, 990)
            text = (f"region = {r()} AND type = {k()} AND "
                    f"price BETWEEN {low:.1f} AND {low + rnd.uniform(1, 20):.1f}")
        elif shape < 0.96:
            text = f"tenant = {t()} AND score <> {rnd.randrange(v.scores)}"
        elif shape < 0.98:
            text = f"NOT (region = {r()}) AND tenant = {t()} AND qty > {rnd.randrange(900)}"
        else:
            text = f"tenant = {t()} AND (type = {k()} OR score BETWEEN 3 AND 5)"
        out.append((text, "jms"))
    return out


def broker_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """Messages for `broker_selectors(subscriptions)`."""
    rnd = random.Random(seed)
    v = _Broker(subscriptions)
    out: Messages = []
    for _ in range(count):
        m: dict[str, Any] = {}
        if rnd.random() < 0.97:
            m["tenant"] = f"t{rnd.randrange(v.tenants)}"
        if rnd.random() < 0.9:
            m["region"] = f"r{rnd.randrange(v.regions)}"
        if rnd.random() < 0.92:
            m["type"] = f"k{rnd.randrange(v.types)}"
        if rnd.random() < 0.85:
            score = rnd.randrange(v.scores)
            m["score"] = rnd.choice((score, score, score, float(score), str(score)))
        if rnd.random() < 0.85:
            m["price"] = _num(rnd, rnd.uniform(0, 1000))
        if rnd.random() < 0.8:
            m["qty"] = _num(rnd, rnd.uniform(0, 1000), ints=0.8)
        if rnd.random() < 0.85:
            m["priority"] = rnd.randrange(10) if rnd.random() < 0.9 else str(rnd.randrange(10))
        if rnd.random() < 0.6:
            m["customer"] = rnd.randrange(v.customers)
        if rnd.random() < 0.5:
            m["sku"] = f"p{rnd.randrange(v.tenants)}-{rnd.randrange(1000)}"
        if rnd.random() < 0.3:
            m["owner"] = f"t{rnd.randrange(v.tenants)}"
        out.append(m)
    return out


# -- devices --------------------------------------------------------------------------------

#: (name, low, high) of each reading.
READINGS = (("temperature", -20.0, 50.0), ("humidity", 0.0, 100.0),
            ("pressure", 950.0, 1050.0), ("battery", 0.0, 100.0))


class _Devices:
    def __init__(self, count: int) -> None:
        s = _scale(count)
        self.devices = max(20, round(300 * s ** 0.71))
        self.sites = max(4, round(20 * s ** 0.355))
        #: Mean tail share of one threshold when two readings are ranged, and when three.
        self.tail2 = min(0.5, 0.05 * s ** -0.355)
        self.tail3 = min(0.5, 0.14 * s ** -0.237)


def device_selectors(count: int, seed: int = 1) -> Selectors:
    """Threshold alerts over device readings (jms)."""
    rnd = random.Random(seed)
    v = _Devices(count)
    out: Selectors = []

    def above(reading: int, tail: float) -> str:
        name, low, high = READINGS[reading]
        x = high - rnd.uniform(0, 2 * tail) * (high - low)
        op = rnd.choice((">", ">="))
        return f"{name} {op} {x:.1f}" if name != "battery" else f"{name} {op} {round(x)}"

    def below(reading: int, tail: float) -> str:
        name, low, high = READINGS[reading]
        x = low + rnd.uniform(0, 2 * tail) * (high - low)
        op = rnd.choice(("<", "<="))
        return f"{name} {op} {x:.1f}" if name not in ("battery", "humidity") else \
            f"{name} {op} {round(x)}"

    def between(reading: int, tail: float) -> str:
        name, low, high = READINGS[reading]
        width = rnd.uniform(0, 2 * tail) * (high - low)
        start = rnd.uniform(low, high - width)
        return f"{name} BETWEEN {start:.1f} AND {start + width:.1f}"

    def one(reading: int, tail: float) -> str:
        return rnd.choice((above, below, between))(reading, tail)

    def dev() -> str:
        return f"'d{rnd.randrange(v.devices)}'"

    def site() -> str:
        return f"'s{rnd.randrange(v.sites)}'"

    for i in range(min(count // 1000, 10)):
        text = (f"temperature - humidity > {60 + i}.5" if i % 2 == 0 else
                f"NOT (status = 'ok' OR battery > {i})")
        out.append((text, "jms"))
    while len(out) < count:
        if _dup(rnd, out, 0.05):
            continue
        shape = rnd.random()
        a, b, c = rnd.sample(range(4), 3)
        if shape < 0.25:
            text = f"{one(a, v.tail2)} AND {one(b, v.tail2)}"
        elif shape < 0.45:
            text = f"{one(a, v.tail3)} AND {one(b, v.tail3)} AND {one(c, v.tail3)}"
        elif shape < 0.60:
            text = f"device = {dev()} AND {below(3, 0.3)} AND {one(a, 0.3)}"
        elif shape < 0.72:
            text = f"site = {site()} AND {one(a, 0.2)} AND {one(b, 0.2)}"
        elif shape < 0.82:
            text = f"({one(a, v.tail2 ** 2)} OR {one(b, v.tail2 ** 2)}) AND {one(c, 0.2)}"
        elif shape < 0.90:
            text = f"NOT (status = 'ok') AND {one(a, v.tail2)}"
        elif shape < 0.95:
            text = (f"site IN ({site()}, {site()}) AND model = 'm{rnd.randrange(8)}' "
                    f"AND {one(a, v.tail2)}")
        else:
            text = f"device = {dev()} AND status <> 'ok'"
        out.append((text, "jms"))
    return out


def device_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """Readings for `device_selectors(subscriptions)`: floats, ints, a few numeric strings,
    readings missing."""
    rnd = random.Random(seed)
    v = _Devices(subscriptions)
    out: Messages = []
    for _ in range(count):
        m: dict[str, Any] = {}
        if rnd.random() < 0.95:
            m["device"] = f"d{rnd.randrange(v.devices)}"
        if rnd.random() < 0.9:
            m["site"] = f"s{rnd.randrange(v.sites)}"
        m["model"] = f"m{rnd.randrange(8)}"
        if rnd.random() < 0.95:
            m["status"] = rnd.choice(("ok",) * 8 + ("warn", "fail"))
        for name, low, high in READINGS:
            if rnd.random() < 0.88:
                value = rnd.uniform(low, high)
                m[name] = _num(rnd, value, ints=0.8 if name in ("humidity", "battery") else 0.1,
                               strings=0.03)
        out.append(m)
    return out


# -- rocketmq ---------------------------------------------------------------------------------


def rocketmq_selectors(count: int, seed: int = 1) -> Selectors:
    """rocketmq subscriptions: string properties compared as numbers by `=`, `>`, BETWEEN;
    STARTSWITH, IN, TAGS."""
    rnd = random.Random(seed)
    v = _Broker(count)
    out: Selectors = []

    def t() -> str:
        return f"'t{rnd.randrange(v.tenants)}'"

    def threshold(tail: float) -> int:
        return round(1000 - rnd.uniform(0, 2000 * tail))

    for i in range(min(count // 1000, 10)):
        text = (f"NOT (region = 'r{i % 4}') AND NOT (price > {i})" if i % 2 else
                f"region <> 'r{i % 4}' AND qty IS NULL")
        out.append((text, "rocketmq"))
    while len(out) < count:
        if _dup(rnd, out, 0.10):
            continue
        shape = rnd.random()
        if shape < 0.14:
            text = f"score = {rnd.randrange(v.scores)} AND type IN ('k{rnd.randrange(20)}', " \
                   f"'k{rnd.randrange(20)}')"
        elif shape < 0.28:
            text = (f"(tenant = {t()} AND type = 'k{rnd.randrange(20)}') OR "
                    f"(region = 'r{rnd.randrange(v.regions)}' AND price > "
                    f"{threshold(v.tail / 2)})")
        elif shape < 0.42:
            text = f"price > {threshold(v.tail)} AND qty < {round(rnd.uniform(0, 2000 * v.tail))}"
        elif shape < 0.54:
            low = rnd.randrange(1000)
            text = (f"tenant IN ({t()}, {t()}) AND "
                    f"price BETWEEN {low} AND {low + rnd.randrange(1, 400)}")
        elif shape < 0.66:
            text = f"tenant = {t()} AND region = 'r{rnd.randrange(v.regions)}'"
        elif shape < 0.74:
            text = f"sku STARTSWITH 'p{rnd.randrange(v.tenants)}-' AND qty > {rnd.randrange(800)}"
        elif shape < 0.82:
            text = (f"TAGS IN ('Tag{rnd.randrange(v.tenants)}', 'Tag{rnd.randrange(v.tenants)}')"
                    f" AND price > {threshold(0.3)}")
        elif shape < 0.88:
            text = f"customer = {rnd.randrange(v.customers)}"
        elif shape < 0.93:
            text = f"tenant = {t()} AND type <> 'k{rnd.randrange(20)}'"
        elif shape < 0.97:
            text = f"score = {rnd.randrange(v.scores)} OR customer = {rnd.randrange(v.customers)}"
        else:
            text = f"tenant = {t()} AND score BETWEEN 2 AND {rnd.randrange(3, 9)}"
        out.append((text, "rocketmq"))
    return out


def _string_value(rnd: random.Random, value: int) -> str:
    """A number as a broker string property, in one of its spellings (or not a number)."""
    r = rnd.random()
    if r < 0.8:
        return str(value)
    if r < 0.88:
        return f"{value}.0"
    if r < 0.93:
        return f"0{value}"
    if r < 0.97:
        return f"+{value}"
    return "abc"


def rocketmq_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """String-valued messages for `rocketmq_selectors(subscriptions)`."""
    rnd = random.Random(seed)
    v = _Broker(subscriptions)
    out: Messages = []
    for _ in range(count):
        m: dict[str, Any] = {}
        if rnd.random() < 0.97:
            m["tenant"] = f"t{rnd.randrange(v.tenants)}"
        if rnd.random() < 0.9:
            m["region"] = f"r{rnd.randrange(v.regions)}"
        if rnd.random() < 0.92:
            m["type"] = f"k{rnd.randrange(20)}"
        for name, top, p in (("score", v.scores, 0.85), ("price", 1000, 0.85),
                             ("qty", 1000, 0.8), ("customer", v.customers, 0.6)):
            if rnd.random() < p:
                m[name] = _string_value(rnd, rnd.randrange(top))
        if rnd.random() < 0.5:
            m["sku"] = f"p{rnd.randrange(v.tenants)}-{rnd.randrange(1000)}"
        if rnd.random() < 0.9:
            m["TAGS"] = f"Tag{rnd.randrange(v.tenants)}"
        out.append(m)
    return out


# -- mixed dialects -------------------------------------------------------------------------


def mixed_selectors(count: int, seed: int = 1) -> Selectors:
    """One index of jms (broker shapes), rocketmq, rocketmq-tag and pulsar-tag subscriptions."""
    rnd = random.Random(seed)
    v = _Broker(count)
    jms = iter(broker_selectors(count, seed))
    rmq = iter(rocketmq_selectors(count, seed))
    out: Selectors = []

    def tag() -> str:
        return f"Tag{rnd.randrange(v.tenants)}"

    while len(out) < count:
        shape = rnd.random()
        if shape < 0.4:
            out.append(next(jms))
        elif shape < 0.7:
            out.append(next(rmq))
        elif shape < 0.85:
            text = " || ".join(tag() for _ in range(rnd.randrange(1, 4)))
            out.append((text if rnd.random() > 0.001 else "*", "rocketmq-tag"))
        else:
            if rnd.random() < 0.7:
                text = f"anytag: {tag()}, {tag()}"
            else:
                text = f"alltag: {tag()}, {tag()}"
            out.append((text, "pulsar-tag"))
    return out


def mixed_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """Broker messages with a RocketMQ tag (`TAGS`) and Pulsar tags (`tag1`, `tag2`)."""
    rnd = random.Random(seed + 1000)
    v = _Broker(subscriptions)
    out = broker_messages(count, subscriptions, seed)
    for m in out:
        if rnd.random() < 0.9:
            m["TAGS"] = f"Tag{rnd.randrange(v.tenants)}"
        for name in ("tag1", "tag2"):
            if rnd.random() < 0.7:
                m[name] = f"Tag{rnd.randrange(v.tenants)}"
    return out


# -- amqp-sql -------------------------------------------------------------------------------


def amqp_selectors(count: int, seed: int = 1) -> Selectors:
    """amqp-sql subscriptions of the broker family (RabbitMQ stream consumers): the
    broker shapes in RabbitMQ's grammar (no BETWEEN, `!=`, upper-case keywords), a
    `p.subject` prefix and `h.priority` beside application properties, binary and
    string literals of one value, and a few selectors no conjunct keys."""
    rnd = random.Random(seed)
    v = _Broker(count)
    out: Selectors = []
    draw = _Draw(rnd, v, quote='"')
    t, k, r = draw.t, draw.k, draw.r

    def price() -> str:
        return draw.price(v.tail)

    for i in range(min(count // 1000, 12)):
        out.append((f"price * qty > {990_000 + i}" if i % 2 else
                    f"NOT (region = 'r{i % 4}' OR price > -{1 + i})", "amqp-sql"))
    while len(out) < count:
        if _dup(rnd, out, 0.10):
            continue
        shape = rnd.random()
        if shape < 0.15:
            text = f"score = {rnd.randrange(v.scores)} AND type IN ({k()}, {k()})"
        elif shape < 0.28:
            text = f"(tenant = {t()} AND type = {k()}) OR (region = {r()} AND price > {price()})"
        elif shape < 0.36:
            text = f"price > {price()} AND qty < {round(rnd.uniform(0, 2000 * v.tail))}"
        elif shape < 0.50:
            text = f"tenant IN ({t()}, {t()}, {t()}) AND price > {price()}"
        elif shape < 0.65:
            text = f"tenant = {t()} AND region = {r()}"
        elif shape < 0.73:
            text = f"tenant = {t()} AND type = {k()} AND h.priority >= {rnd.randrange(10)}"
        elif shape < 0.80:
            c = rnd.randrange(v.customers)
            text = f"customer = {c}" if rnd.random() < 0.5 else f"customer = {c}.0"
        elif shape < 0.86:
            text = f"sku LIKE 'p{rnd.randrange(v.tenants)}-%' AND region != {r()}"
        elif shape < 0.92:
            tenant = f"t{rnd.randrange(v.tenants)}"
            text = f"tenant = 0x{tenant.encode().hex()} AND p.subject LIKE 'orders.%'"
        else:
            text = f"tenant = {t()} AND score <> {rnd.randrange(v.scores)}"
        out.append((text, "amqp-sql"))
    return out


def amqp_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """Broker messages as AMQP application properties (a plain mapping is one)."""
    return broker_messages(count, subscriptions, seed)


# -- hot: one identifier every signature shares ----------------------------------------------


def _hot_names(count: int) -> int:
    """How many attribute names: they grow with the subscriptions (about 20 each)."""
    return max(15, count // 20)


def hot_selectors(count: int, seed: int = 1) -> Selectors:
    """Every subscription narrows `region` (four values, carried by every message) and
    tests an attribute of its own (names grow with the subscriptions: each is a new
    signature sharing `region`), present, ranged, equal or prefixed. The shape of an
    index that files clauses by their first identifier worst: one group of them all."""
    rnd = random.Random(seed)
    names = _hot_names(count)
    out: Selectors = []
    while len(out) < count:
        if _dup(rnd, out, 0.05):
            continue
        region = f"region = 'r{rnd.randrange(4)}'"
        attr = f"a{rnd.randrange(names)}"
        kind = rnd.random()
        if kind < 0.3:
            text = f"{region} AND {attr} IS NOT NULL"
        elif kind < 0.6:
            text = f"{region} AND {attr} > {rnd.randrange(100)}"
        elif kind < 0.8:
            text = f"{region} AND {attr} = 'v{rnd.randrange(3)}'"
        elif kind < 0.95:
            text = f"{attr} LIKE 'v{rnd.randrange(3)}%' AND {region}"
        else:
            text = f"{region} AND (kind = 'k{rnd.randrange(5)}' OR {attr} < 10)"
        out.append((text, "jms"))
    return out


def hot_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    """Messages for `hot_selectors(subscriptions)`: a region, a kind and eight attributes
    of the many (numbers or the strings the equalities and prefixes name)."""
    rnd = random.Random(seed)
    names = _hot_names(subscriptions)
    out: Messages = []
    for _ in range(count):
        m: dict[str, Any] = {"region": f"r{rnd.randrange(4)}", "kind": f"k{rnd.randrange(5)}"}
        for attr in rnd.sample(range(names), min(8, names)):
            m[f"a{attr}"] = (rnd.randrange(100) if rnd.random() < 0.5
                             else f"v{rnd.randrange(3)}")
        out.append(m)
    return out


# -- the friendly workload (tests/index_generators.py), in the same form ------------------------


def friendly_selectors(count: int, seed: int = 1) -> Selectors:
    from index_generators import realistic_selectors

    return [(text, "jms") for text in realistic_selectors(count, seed)]


def friendly_messages(count: int, subscriptions: int, seed: int = 2) -> Messages:
    from index_generators import realistic_messages

    return realistic_messages(count, subscriptions, seed)


#: name -> (selectors(count, seed), messages(count, subscriptions, seed)).
WORKLOADS: dict[str, tuple[Callable[[int, int], Selectors],
                           Callable[[int, int, int], Messages]]] = {
    "friendly": (friendly_selectors, friendly_messages),
    "broker": (broker_selectors, broker_messages),
    "device": (device_selectors, device_messages),
    "rocketmq": (rocketmq_selectors, rocketmq_messages),
    "mixed": (mixed_selectors, mixed_messages),
    "amqp": (amqp_selectors, amqp_messages),
    "hot": (hot_selectors, hot_messages),
}


def to_table(messages: Sequence[dict[str, Any]]) -> Any:
    """The messages as a pyarrow Table by `msgfilter.layout.DEFAULT_LAYOUT`: a name whose
    values all have one type (ints, floats, strings, ints and floats) becomes a typed
    column; a name of mixed types goes, as strings, into the `properties` map (so a row is
    not always the same message as its dict: compare `match_table` with the messages of
    `msgfilter.arrow.messages(table)`); `TAGS` goes to the `tags` column."""
    import pyarrow as pa

    names = sorted({name for m in messages for name in m})
    columns: dict[str, Any] = {}
    mapped: list[str] = []
    for name in names:
        values = [m.get(name) for m in messages]
        kinds = {type(x) for x in values if x is not None}
        if name == "TAGS":
            columns["tags"] = pa.array([None if x is None else str(x) for x in values],
                                       pa.string())
        elif kinds <= {str}:
            columns[name] = pa.array(values, pa.string())
        elif kinds <= {int}:
            columns[name] = pa.array(values, pa.int64())
        elif kinds <= {int, float}:
            columns[name] = pa.array([None if x is None else float(x) for x in values],
                                     pa.float64())
        else:
            mapped.append(name)
    if mapped:
        columns["properties"] = pa.array(
            [[(name, str(m[name])) for name in mapped if m.get(name) is not None]
             for m in messages],
            pa.map_(pa.string(), pa.string()),
        )
    return pa.table(columns)
