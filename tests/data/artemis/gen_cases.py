"""Random selector cases weighted to where ActiveMQ Artemis differs from ActiveMQ Classic.

    python tests/data/artemis/gen_cases.py --seed 3 -n 3000 > cases.jsonl

Standard library only; the same seed gives the same bytes. Cases are in the ActiveMQ
oracle's format (`{"id", "selector", "properties", "headers"}`): the JMS header names a JMS
client sets, the broker's AMQ header names, double-quoted and hyphenated names, the
`convert_string_expressions:` / `hyphenated_props:` prefixes and their `no_` forms, text the
broker trims, the JMS client's rewrites ('PERSISTENT' literals, JMS names inside quotes),
Float against Double, strings against booleans and in arithmetic, NOT, and the expression
forms of ActiveMQ's grammar (functions, which Artemis does not have, included).
"""

from __future__ import annotations

import argparse
import json
import random

TYPES = ["string", "int", "long", "double", "float", "boolean", "short", "byte"]
PLAIN = ["a", "b", "s", "f", "d", "n", "x"]
QUOTED = ['"my-prop"', '"a b"', '"say ""hi"""', '"AND"', '"a"', '""', '"NOT"', '"x.y"']
QUOTED_NAMES = {'"my-prop"': "my-prop", '"a b"': "a b", '"say ""hi"""': 'say "hi"',
                '"AND"': "AND", '"a"': "a", '""': "", '"NOT"': "NOT", '"x.y"': "x.y"}
HYPHENATED = ["my-prop", "a-b", "x-1"]
HEADERS_JMS = ["JMSPriority", "JMSTimestamp", "JMSExpiration", "JMSDeliveryMode",
               "JMSMessageID", "JMSXGroupID", "JMSType", "JMSCorrelationID", "JMSRedelivered",
               "JMSXDeliveryCount"]
HEADERS_AMQ = ["AMQPriority", "AMQTimestamp", "AMQExpiration", "AMQDurable", "AMQUserID",
               "AMQGroupID", "AMQSize", "AMQAddress", "AMQFoo"]
STRINGS = ["'DURABLE'", "'NON_DURABLE'", "'PERSISTENT'", "'NON_PERSISTENT'", "'ID:m-1'",
           "'m-1'", "'g1'", "'true'", "'false'", "'TRUE'", "'1'", "'1.5'", "'x'", "''",
           "'queue.a'", "'JMSPriority'", "' 2'", "'0x1F'", "'1e3'"]
NUMBERS = ["0", "1", "4", "9", "-1", "1.5", "2.25", "1e3", "0x1F", "017", "2147483648",
           "9223372036854775807", "1.0", "0.1", "3L", "100"]
PREFIXES = ["convert_string_expressions:", "hyphenated_props:", "no_convert_string_expressions:",
            "no_hyphenated_props:"]


def value_of(rng: random.Random, kind: str) -> object:
    if kind == "string":
        return rng.choice(["1", "2", "1.5", "true", "false", "TRUE", "x", "", " 1", "DURABLE",
                           "PERSISTENT", "ID:m-1", "g1", "0x1F", "abc", "1e3", "-3"])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("float", "double"):
        return rng.choice([0.0, 1.0, 1.5, 2.25, -1.0, 0.1, 1000.0, 3.0, "NaN", 16777217.0])
    bound = {"byte": 127, "short": 300, "int": 2147483647, "long": 2**40}[kind]
    return rng.choice([0, 1, 2, 3, 4, 9, -1, bound, min(bound, 1000)])


def properties(rng: random.Random, names: list[str]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for name in names:
        if rng.random() < 0.85:
            kind = rng.choice(TYPES)
            out[name] = {"type": kind, "value": value_of(rng, kind)}
    return out


def headers(rng: random.Random) -> dict[str, object]:
    out: dict[str, object] = {}
    if rng.random() < 0.7:
        out["JMSPriority"] = rng.randint(0, 9)
    if rng.random() < 0.6:
        out["JMSDeliveryMode"] = rng.choice(["PERSISTENT", "NON_PERSISTENT"])
    if rng.random() < 0.4:
        out["JMSTimestamp"] = rng.choice([0, 1700000000000, 5])
    if rng.random() < 0.3:
        out["JMSExpiration"] = rng.choice([0, 1700000000000])
    if rng.random() < 0.4:
        out["JMSMessageID"] = rng.choice(["ID:m-1", "m-1", "ID:", "abc"])
    if rng.random() < 0.3:
        out["JMSXGroupID"] = rng.choice(["g1", "g2", ""])
    if rng.random() < 0.3:
        out["JMSType"] = rng.choice(["car", "PERSISTENT", ""])
    if rng.random() < 0.2:
        out["JMSCorrelationID"] = rng.choice(["c1", "ID:c1"])
    if rng.random() < 0.2:
        out["AMQSize"] = rng.choice([0, 100, 2048])
    if rng.random() < 0.2:
        out["AMQAddress"] = rng.choice(["queue.a", "topic.b"])
    return out


class Gen:
    def __init__(self, rng: random.Random, hyphenated: bool) -> None:
        self.rng, self.hyphenated, self.used = rng, hyphenated, set()

    def name(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            pick = self.rng.choice(PLAIN)
            self.used.add(pick)
            return pick
        if r < 0.6:
            return self.rng.choice(HEADERS_JMS)
        if r < 0.75:
            return self.rng.choice(HEADERS_AMQ)
        if self.hyphenated:
            pick = self.rng.choice(HYPHENATED)
            self.used.add(pick)
            return pick
        pick = self.rng.choice(QUOTED)
        self.used.add(QUOTED_NAMES[pick])
        return pick

    def operand(self, depth: int = 0) -> str:
        r = self.rng.random()
        if r < 0.45:
            return self.name()
        if r < 0.65:
            return self.rng.choice(STRINGS)
        if r < 0.85 or depth > 1:
            return self.rng.choice([*NUMBERS, "TRUE", "FALSE", "NULL"])
        op = self.rng.choice(["+", "-", "*", "/", "%"])
        return f"{self.operand(depth + 1)} {op} {self.operand(depth + 1)}"

    def condition(self, depth: int = 0) -> str:
        r = self.rng.random()
        if depth < 2 and r < 0.25:
            joiner = self.rng.choice([" AND ", " OR ", " and ", " Or "])
            return f"({self.condition(depth + 1)}){joiner}{self.condition(depth + 1)}"
        if depth < 3 and r < 0.35:
            return f"NOT {self.condition(depth + 1)}"
        r = self.rng.random()
        left = self.operand()
        if r < 0.45:
            op = self.rng.choice(["=", "<>", "<", "<=", ">", ">="])
            return f"{left} {op} {self.operand()}"
        if r < 0.55:
            return f"{left} IS {self.rng.choice(['', 'NOT '])}NULL"
        if r < 0.65:
            items = ", ".join(self.rng.sample(STRINGS, self.rng.randint(1, 3)))
            return f"{self.name()} {self.rng.choice(['', 'NOT '])}IN ({items})"
        if r < 0.75:
            pattern = self.rng.choice(["'%'", "'DUR%'", "'ID:%'", "'_'", "'%-%'", "'g_'"])
            return f"{left} {self.rng.choice(['', 'NOT '])}LIKE {pattern}"
        if r < 0.83:
            return (f"{left} {self.rng.choice(['', 'NOT '])}BETWEEN {self.operand(2)} "
                    f"AND {self.operand(2)}")
        if r < 0.88:
            return self.name()
        if r < 0.92:
            return self.rng.choice(["TRUE", "FALSE", "XQUERY '//a'", "REGEX('a', s)"])
        return f"{left} {self.rng.choice(['=', '<>', '>'])} {self.rng.choice(STRINGS)}"


def selector(rng: random.Random) -> tuple[str, set[str]]:
    prefixes = "".join(rng.sample(PREFIXES, rng.choice([0, 0, 0, 1, 1, 2])))
    hyphenated = False
    # The last hyphenated switch wins (the parser reads them left to right).
    order = [p for p in prefixes.split(":") if p]
    for word in order:
        if word == "hyphenated_props":
            hyphenated = True
        elif word == "no_hyphenated_props":
            hyphenated = False
    gen = Gen(rng, hyphenated)
    text = prefixes + gen.condition()
    r = rng.random()
    if r < 0.05:
        text = rng.choice(["", "   ", "\t", " \n "])
    elif r < 0.12:
        text = rng.choice([" ", "\n", "\x01", "\t"]) + text + rng.choice(["", " ", "\n", " -- c\n"])
    elif r < 0.15:
        cut = rng.randrange(len(text) + 1)
        text = text[:cut] + rng.choice(["(", ")", "'", '"', "-", "=", ""]) + text[cut:]
    return text, gen.used


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("-n", type=int, default=3000)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for i in range(args.n):
        text, used = selector(rng)
        case = {"id": i, "selector": text, "properties": properties(rng, sorted(used)),
                "headers": headers(rng)}
        print(json.dumps(case, ensure_ascii=False))


if __name__ == "__main__":
    main()
