"""Random RocketMQ SQL92 cases of OR, AND and NOT over comparisons that convert property
strings (`a = 5`, `b > 2147483648`, `c BETWEEN 1.5 AND 9`, `5 = a`, `a > b`, ...), with
property strings that convert, that do not ('abc', '5.0' for an Integer), and absent
ones: where a throw in one branch decides whether another branch's TRUE is delivered.
Standard library only; the same seed gives the same cases. Writes JSON Lines:
{"id", "selector", "properties"} (string values).

    python tests/data/rocketmq/gen_logic_cases.py --seed 5 -n 1500 > logic.jsonl

The answers beside the cases (`answer`) come from RocketMQ's own filter module; see
README.md here.
"""

from __future__ import annotations

import argparse
import json
import random

NAMES = ["a", "b", "c", "missing"]
INTS = ["0", "5", "7", "2147483647", "2147483648", "9223372036854775807", "-5",
        "-2147483648", "-2147483647"]
FLOATS = ["5.0", "2.5", "-0.5", "1e3", "7.5"]
STRINGS = ["'x'", "'5'", "'abc'", "''"]
VALUES = ["5", "7", "-5", "abc", "x", "", "5.0", "7.5", "2.5", "2147483647", "2147483648",
          "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
          " 5", "0x10", "NaN", "Infinity", "1e3", "true", "TRUE", "05", "+5", "5L", "5d"]


class Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def number(self) -> str:
        return self.rng.choice(INTS if self.rng.random() < 0.65 else FLOATS)

    def literal(self) -> str:
        r = self.rng.random()
        if r < 0.7:
            return self.number()
        if r < 0.9:
            return self.rng.choice(STRINGS)
        return self.rng.choice(["TRUE", "FALSE", "NULL"])

    def predicate(self) -> str:
        rng = self.rng
        name = rng.choice(NAMES)
        r = rng.random()
        if r < 0.55:
            op = rng.choice(["=", "=", "=", "<>", "<", "<=", ">", ">="])
            # RocketMQ's parser takes only numbers beside an ordering.
            lit = self.literal() if op in ("=", "<>") else self.number()
            if rng.random() < 0.15:
                return f"{lit} {op} {name}"
            return f"{name} {op} {lit}"
        if r < 0.67:
            low, high = sorted((self.number(), self.number()), key=float)
            neg = "NOT " if rng.random() < 0.25 else ""
            return f"{name} {neg}BETWEEN {low} AND {high}"
        if r < 0.77:
            neg = "NOT " if rng.random() < 0.25 else ""
            items = ", ".join(rng.sample(STRINGS, 2))
            return f"{name} {neg}IN ({items})"
        if r < 0.84:
            return f"{name} IS {'NOT ' if rng.random() < 0.5 else ''}NULL"
        if r < 0.9:
            return f"{name} STARTSWITH 'x'"
        if r < 0.95:
            other = rng.choice([n for n in NAMES if n != name])
            return f"{name} {rng.choice(['=', '>', '<>', '<='])} {other}"
        return f"NOT ({name} {rng.choice(['=', '>'])} {self.number()})"

    def expr(self, depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if depth >= 2 or r < 0.3:
            return self.predicate()
        if r < 0.7:
            parts = [self.expr(depth + 1) for _ in range(rng.choice([2, 2, 3]))]
            return "(" + " OR ".join(parts) + ")" if depth else " OR ".join(parts)
        if r < 0.93:
            parts = [self.expr(depth + 1) for _ in range(2)]
            return "(" + " AND ".join(parts) + ")" if depth else " AND ".join(parts)
        return f"NOT ({self.expr(depth + 1)})"

    def properties(self) -> dict[str, str]:
        return {name: self.rng.choice(VALUES) for name in NAMES[:3]
                if self.rng.random() < 0.8}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("-n", type=int, default=1500, help="selectors (3 cases each)")
    args = parser.parse_args()
    gen = Gen(random.Random(args.seed))
    i = 0
    for _ in range(args.n):
        selector = gen.expr(0)
        for _ in range(3):
            print(json.dumps({"id": i, "selector": selector, "properties": gen.properties()},
                             ensure_ascii=False))
            i += 1


if __name__ == "__main__":
    main()
