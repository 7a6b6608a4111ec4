"""Selector and message generators for the SubscriptionIndex tests and benchmark: the
shapes the index keys (equalities, IN, ranges, prefixes, tags) mixed with the ones it
must not key (NOT, <>, OR with an unkeyable branch), over values at each value model's
type edges."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from msgfilter.jtypes import Byte, Double, Float, Int, Long, Short

NAMES = ("a", "b", "c", "TAGS")

#: Literals at the type edges: long/double widening, -0.0, strings that parse as numbers.
NUMBERS = ("5", "5.0", "0", "-0.0", "0.0", "9007199254740992", "9007199254740993",
           "9007199254740992.0", "2147483648", "-5", "1e400", "1", "10", "3.5")
STRINGS = ("'eu'", "'5'", "''", "'ab'", "'abc'", "'\u0665'", "'true'", "'x%'", "'TagA'")
BOOLS = ("TRUE", "FALSE")

#: Message values meeting those literals (and values of no selector type).
VALUES: tuple[Any, ...] = (
    None, 5, 5.0, "5", "+5", "05", "\u0665", "5.0", "5d", "0x1.4p2", 2**53, 2**53 + 1,
    float(2**53), -0.0, 0.0, 0, float("nan"), float("inf"), True, False, 1, "eu", "EU", "",
    "abc", "ab", "a", "abcd", "x%", "true", "TRUE", "TagA", "TagB", b"eu", [1], 2**70,
    2147483648, -5, "-5", " 5", 3.5, 10, "10", 9.5, "NaN",
)
ACTIVEMQ_VALUES: tuple[Any, ...] = (
    Int(5), Long(5), Short(5), Byte(5), Double(5.0), Float(5.0), Int(10), Long(2**53 + 1),
)


def _atom(draw: st.DrawFn, dialect: str) -> str:
    name = draw(st.sampled_from(NAMES[:3]))
    kind = draw(st.sampled_from(
        ("eq", "eq", "eq", "in", "range", "between", "prefix", "null", "ne", "ident")
    ))
    literal = draw(st.sampled_from(NUMBERS + STRINGS + BOOLS))
    if kind == "eq":
        if draw(st.booleans()) and dialect != "activemq":
            return f"{literal} = {name}"
        return f"{name} = {literal}"
    if kind == "in":
        items = draw(st.lists(st.sampled_from(STRINGS), min_size=1, max_size=3))
        return f"{name} IN ({', '.join(items)})"
    if kind == "range":
        op = draw(st.sampled_from(("<", "<=", ">", ">=")))
        number = draw(st.sampled_from(NUMBERS))
        return f"{name} {op} {number}"
    if kind == "between":
        bounds = NUMBERS + NAMES[:3]
        low, high = draw(st.sampled_from(bounds)), draw(st.sampled_from(bounds))
        word = "NOT BETWEEN" if draw(st.booleans()) else "BETWEEN"
        return f"{name} {word} {low} AND {high}"
    if kind == "prefix":
        prefix = draw(st.sampled_from(("a", "ab", "e", "T", "\u0665", "x")))
        if dialect == "rocketmq":
            return f"{name} STARTSWITH '{prefix}'"
        return f"{name} LIKE '{prefix}%'" if draw(st.booleans()) else f"{name} LIKE '{prefix}_%'"
    if kind == "null":
        return f"{name} IS NOT NULL" if draw(st.booleans()) else f"{name} IS NULL"
    if kind == "ne":
        other = draw(st.sampled_from((literal, *NAMES[:3], f"{NAMES[0]} + 1")))
        return f"{name} <> {other}"
    return name


@st.composite
def sql_selectors(draw: st.DrawFn, dialect: str) -> str:
    """A selector text of `dialect` (jms, rocketmq or activemq); may be ill-typed (the
    caller skips those that do not compile)."""
    def expr(depth: int) -> str:
        choice = draw(st.integers(0, 5 if depth else 0))
        if choice <= 1:
            return _atom(draw, dialect)
        parts = [expr(depth - 1) for _ in range(draw(st.integers(2, 3)))]
        if choice <= 3:
            return "(" + " AND ".join(parts) + ")"
        if choice == 4:
            return "(" + " OR ".join(parts) + ")"
        return f"NOT ({parts[0]})"
    return expr(2)


@st.composite
def sql_messages(draw: st.DrawFn, dialect: str) -> dict[str, Any]:
    pool = VALUES + (ACTIVEMQ_VALUES if dialect == "activemq" else ())
    message: dict[str, Any] = {}
    for name in NAMES:
        if draw(st.booleans()):
            message[name] = draw(st.sampled_from(pool))
    return message


def realistic_selectors(count: int, seed: int = 1) -> list[str]:
    """A broker's jms subscriptions: tenant/region/type equalities, IN lists, ranges,
    prefixes, some ORs and NOTs, some unkeyable selectors, duplicates."""
    rnd = random.Random(seed)
    tenants = max(10, count // 10)
    out: list[str] = []
    unscoped: dict[str, int] = {}

    def scoped(text: str, tenant: int) -> str:
        # Selectors that no tenant narrows match many messages each: a broker has a
        # few dozen of each kind, not a share of every tenant's subscriptions.
        kind = text.split(" ", 1)[0]
        if unscoped.get(kind, 0) < 30:
            unscoped[kind] = unscoped.get(kind, 0) + 1
            return text
        return f"tenant = 't{tenant}' AND {text}"

    # A few selectors no conjunct keys: checked for every message (they rarely match).
    for r in range(min(count // 500, 20)):
        out.append(f"NOT (region = 'r{r % 8}' OR score > -{99 + r})")
    for _ in range(count - len(out)):
        t, r, ty = rnd.randrange(tenants), rnd.randrange(8), rnd.randrange(20)
        shape = rnd.random()
        if shape < 0.30:
            text = f"tenant = 't{t}' AND region = 'r{r}'"
        elif shape < 0.45:
            text = f"tenant = 't{t}' AND type = 'k{ty}' AND priority >= {rnd.randrange(10)}"
        elif shape < 0.55:
            items = ", ".join(f"'t{rnd.randrange(tenants)}'" for _ in range(rnd.randrange(2, 6)))
            text = f"tenant IN ({items}) AND type = 'k{ty}'"
        elif shape < 0.63:
            low = rnd.randrange(0, 10_000)
            customer = rnd.randrange(tenants * 10)
            text = f"customer = {customer} AND amount BETWEEN {low} AND {low + 500}"
        elif shape < 0.68:
            text = f"tenant = 't{t}' AND amount > {rnd.randrange(5_000, 10_000)}.5"
        elif shape < 0.69:
            text = scoped(f"amount > {rnd.randrange(9_000, 10_000)}.5 AND region = 'r{r}'", t)
        elif shape < 0.76:
            text = f"sku LIKE 'p{rnd.randrange(tenants)}-%' AND region <> 'r{r}'"
        elif shape < 0.82:
            text = f"(tenant = 't{t}' OR owner = 't{t}') AND NOT (type = 'k{ty}')"
        elif shape < 0.88:
            text = f"customer = {rnd.randrange(tenants * 10)}.0"
        elif shape < 0.89:
            text = scoped(
                f"NOT (region = 'r{r}') AND priority > 8 AND type = 'k{ty}' AND score < 0", t)
        elif shape < 0.895:
            text = scoped(f"amount * 2 > {rnd.randrange(20_000)} AND flag", t)
        elif shape < 0.90:
            text = scoped("region <> 'r1' AND type <> 'k2' AND priority > 9 AND score < -99", t)
        else:
            text = out[rnd.randrange(len(out))] if out else "tenant = 't0'"
        out.append(text)
    return out


def realistic_messages(count: int, subscriptions: int, seed: int = 2) -> list[dict[str, Any]]:
    """Messages over the same names, with missing and mixed-type properties."""
    rnd = random.Random(seed)
    tenants = max(10, subscriptions // 10)
    out: list[dict[str, Any]] = []
    for _ in range(count):
        m: dict[str, Any] = {
            "tenant": f"t{rnd.randrange(tenants)}",
            "region": f"r{rnd.randrange(8)}",
            "type": f"k{rnd.randrange(20)}",
        }
        if rnd.random() < 0.9:
            m["priority"] = rnd.randrange(10) if rnd.random() < 0.9 else str(rnd.randrange(10))
        if rnd.random() < 0.8:
            m["amount"] = rnd.random() * 10_000 if rnd.random() < 0.5 else rnd.randrange(10_000)
        if rnd.random() < 0.7:
            m["customer"] = rnd.randrange(tenants * 10)
        if rnd.random() < 0.5:
            m["sku"] = f"p{rnd.randrange(tenants)}-{rnd.randrange(1000)}"
        if rnd.random() < 0.3:
            m["owner"] = f"t{rnd.randrange(tenants)}"
        if rnd.random() < 0.2:
            m["score"] = rnd.choice((-100, -1.5, 0, None, "x"))
        if rnd.random() < 0.2:
            m["flag"] = rnd.choice((True, False, 1, "true"))
        out.append(m)
    return out
