"""Per-message selector speed: compiled filters vs hand-written Python vs rule-engine.

    .venv/bin/python benchmarks/bench_selectors.py [--messages 100000] [--repeat 5]

For each selector shape it times `f.matches` over the same messages as a hand-written
function with the same missing-key handling (and the type tests the semantics need), and
rule-engine's `Rule.matches` on the equivalent rule. Figures are the best of --repeat runs;
ratios are taken within one run. Also: cold and cached compile times, and LIKE's linearity.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import rule_engine

import msgfilter
from msgfilter import dialects
from msgfilter.engine import compile_unshaped
from msgfilter.limits import DEFAULT_LIMITS

Message = dict[str, Any]


def _num(v: object) -> bool:
    return type(v) is int or type(v) is float


def _like_ord(v: object) -> bool:
    return type(v) is str and v.startswith("ord_")


# (selector, hand-written equivalent, rule-engine rule)
CASES: list[tuple[str, Callable[[Message], bool], str]] = [
    ("color = 'red'", lambda m: m.get("color") == "red", "color == 'red'"),
    (
        "weight > 2.5",
        lambda m: _num(w := m.get("weight")) and w > 2.5,
        "weight != null and weight > 2.5",
    ),
    (
        "color = 'red' AND weight > 2.5",
        lambda m: m.get("color") == "red" and _num(w := m.get("weight")) and w > 2.5,
        "color == 'red' and weight != null and weight > 2.5",
    ),
    (
        "JMSPriority BETWEEN 4 AND 9",
        lambda m: type(p := m.get("JMSPriority")) is int and 4 <= p <= 9,
        "JMSPriority >= 4 and JMSPriority <= 9",
    ),
    (
        "region IN ('eu', 'us', 'apac')",
        lambda m: m.get("region") in ("eu", "us", "apac"),
        "region in ['eu', 'us', 'apac']",
    ),
    (
        "name LIKE 'ord\\_%' ESCAPE '\\'",
        lambda m: _like_ord(m.get("name")),
        "name != null and name =~ 'ord_.*'",
    ),
    (
        "name LIKE '%10%'",
        lambda m: type(n := m.get("name")) is str and "10" in n,
        "name != null and name =~ '.*10.*'",
    ),
    (
        "discount IS NULL OR discount < 0.25",
        lambda m: (d := m.get("discount")) is None or (_num(d) and d < 0.25),
        "discount == null or discount < 0.25",
    ),
    (
        "NOT (color = 'blue')",
        lambda m: (c := m.get("color")) is not None and c != "blue",
        "color != null and color != 'blue'",
    ),
    (
        "qty * price >= 100",
        lambda m: _num(q := m.get("qty")) and _num(p := m.get("price")) and q * p >= 100,
        "qty != null and price != null and qty * price >= 100",
    ),
    (
        "color = 'red' AND weight > 2.5 AND region IN ('eu', 'us') AND JMSPriority >= 4",
        lambda m: m.get("color") == "red"
        and _num(w := m.get("weight"))
        and w > 2.5
        and m.get("region") in ("eu", "us")
        and type(p := m.get("JMSPriority")) is int
        and p >= 4,
        "color == 'red' and weight != null and weight > 2.5 and region in ['eu', 'us']"
        " and JMSPriority >= 4",
    ),
    ("urgent", lambda m: m.get("urgent") is True, "urgent == true"),
    (
        "qty = 1 OR qty = 2 OR region = 'us' OR JMSPriority = 9",
        lambda m: m.get("qty") in (1, 2) or m.get("region") == "us" or m.get("JMSPriority") == 9,
        "qty == 1 or qty == 2 or region == 'us' or JMSPriority == 9",
    ),
]


# amqp-sql (RabbitMQ 4.2's rules): the hand-written functions follow them too (strings
# compare as strings, ordering only number to number or string to string, `/` a float).
AMQP_CASES: list[tuple[str, Callable[[Message], bool]]] = [
    ("color = 'red'", lambda m: m.get("color") == "red"),
    ("weight > 2.5", lambda m: _num(w := m.get("weight")) and w > 2.5),
    (
        "color = 'red' AND weight > 2.5",
        lambda m: m.get("color") == "red" and _num(w := m.get("weight")) and w > 2.5,
    ),
    ("region IN ('eu', 'us', 'apac')", lambda m: m.get("region") in ("eu", "us", "apac")),
    ("name LIKE 'ord%'", lambda m: type(n := m.get("name")) is str and n.startswith("ord")),
    ("region > 'e'", lambda m: type(r := m.get("region")) is str and r > "e"),
    (
        "qty / 4 > 2.5 OR urgent",
        lambda m: (_num(q := m.get("qty")) and q / 4 > 2.5) or m.get("urgent") is True,
    ),
    # RabbitMQ's regex path (`_` and two `%`): msgfilter's matcher never backtracks.
    (
        "name LIKE 'o_d%1%'",
        lambda m: type(n := m.get("name")) is str and len(n) > 2 and n[0] == "o"
        and n[2] == "d" and "1" in n[3:] and "\n" not in n,
    ),
]


def make_messages(n: int, seed: int = 7) -> list[Message]:
    rng = random.Random(seed)
    colors = ["red", "blue", "green", "RED", None]
    regions = ["eu", "us", "apac", "latam", None]
    out: list[Message] = []
    for i in range(n):
        m: Message = {"JMSPriority": rng.randint(0, 9)}
        for key, value in (
            ("color", rng.choice(colors)),
            ("region", rng.choice(regions)),
            ("weight", rng.choice([rng.uniform(0, 5), rng.randint(0, 5), None])),
            ("name", rng.choice([f"ord_{i}", f"inv_{i}", None])),
            ("discount", rng.choice([rng.random() / 2, None, None])),
            ("qty", rng.choice([rng.randint(1, 20), None])),
            ("price", rng.choice([rng.uniform(1, 20), None])),
            ("urgent", rng.choice([True, False, None])),
        ):
            if value is not None:
                m[key] = value
        out.append(m)
    return out


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def interleaved(
    repeat: int, first: Callable[[], object], second: Callable[[], object]
) -> tuple[float, float]:
    """Best times of two functions run in turn, so that load on the machine hits both."""
    a, b = [], []
    for _ in range(repeat):
        for fn, times in ((first, a), (second, b)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return min(a), min(b)


def count(pred: Callable[[Message], bool], messages: list[Message]) -> int:
    return sum(1 for m in messages if pred(m))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--rule-engine-messages", type=int, default=10_000)
    args = parser.parse_args()
    messages = make_messages(args.messages)
    re_messages = messages[: args.rule_engine_messages]
    context = rule_engine.Context(default_value=None)

    print(f"{args.messages} messages, best of {args.repeat}\n")
    print(f"{'selector':58} {'ns/msg':>7} {'hand':>7} {'vs hand':>8} {'vs rule-engine':>15}")
    ratios_hand, ratios_re = [], []
    for text, hand, rule_text in CASES:
        f = msgfilter.compile(text)
        assert count(f.matches, messages) == count(hand, messages), text
        rule = rule_engine.Rule(rule_text, context=context)
        t_f, t_h = interleaved(
            args.repeat,
            lambda: count(f.matches, messages),  # noqa: B023
            lambda: count(hand, messages),  # noqa: B023
        )
        t_r = best_of(1, lambda: count(rule.matches, re_messages)) * (  # noqa: B023
            len(messages) / len(re_messages)
        )
        ratios_hand.append(t_h / t_f)
        ratios_re.append(t_r / t_f)
        print(
            f"{text[:58]:58} {t_f / len(messages) * 1e9:7.0f} {t_h / len(messages) * 1e9:7.0f}"
            f" {t_h / t_f:7.2f}x {t_r / t_f:14.0f}x"
        )
    print(
        f"\nspeed vs hand-written: min {min(ratios_hand):.2f}x, "
        f"median {statistics.median(ratios_hand):.2f}x (goal >= 0.75x)"
    )
    print(
        f"speed vs rule-engine:  min {min(ratios_re):.0f}x, "
        f"median {statistics.median(ratios_re):.0f}x (goal >= 30x)"
    )

    print(f"\namqp-sql (RabbitMQ 4.2)\n{'selector':58} {'ns/msg':>7} {'hand':>7} {'vs hand':>8}")
    for text, hand in AMQP_CASES:
        f = msgfilter.compile(text, "amqp-sql")
        assert count(f.matches, messages) == count(hand, messages), text
        t_f, t_h = interleaved(
            args.repeat,
            lambda: count(f.matches, messages),  # noqa: B023
            lambda: count(hand, messages),  # noqa: B023
        )
        print(
            f"{text[:58]:58} {t_f / len(messages) * 1e9:7.0f} {t_h / len(messages) * 1e9:7.0f}"
            f" {t_h / t_f:7.2f}x"
        )

    text = (
        CASES[-3][0] + " AND name LIKE 'ord\\_%' ESCAPE '\\'"
        " AND (discount IS NULL OR qty * price >= 100.0)"
    )
    build = dialects.get("jms").build  # the compiler itself, bypassing the compile cache
    # The whole pipeline: neither cache (a shape's first text pays this).
    cold = best_of(50, lambda: compile_unshaped(text))
    # A text of the same shape (its template cached): benchmarks/bench_compile.py has more.
    known = best_of(50, lambda: build(text, DEFAULT_LIMITS))
    msgfilter.compile(text)
    n = 100_000
    cached = best_of(5, lambda: [msgfilter.compile(text) for _ in range(n)]) / n
    print(f"\ncold compile of a {len(text)}-character selector: {cold * 1e6:.0f} us (goal < 1 ms)")
    print(f"compile of a text of a known shape: {known * 1e6:.1f} us")
    print(f"cached compile: {cached * 1e6:.2f} us")

    like = msgfilter.compile("s LIKE '%a%a%a%a%a%a%a%b'")
    subject = {"s": "a" * 100_000}
    t_like = best_of(5, lambda: like.matches(subject))
    print(f"LIKE '%a%a%a%a%a%a%a%b' on 100 000 'a's: {t_like * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
