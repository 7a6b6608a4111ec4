"""Random RocketMQ SQL92 cases, weighted to the literal, sign, comment and conversion edges
where a re-implementation can drift from the broker. Standard library only; the same seed
gives the same cases. Writes JSON Lines: {"id", "selector", "properties"} (string values).

    python tests/data/rocketmq/gen_cases.py --seed 1 -n 4000 > cases.jsonl

The answers beside the cases (`answer`: "parse-error", "true", "false", "null" or
"throw:<class>") come from RocketMQ's own filter module; see README.md here.
"""

from __future__ import annotations

import argparse
import json
import random

NAMES = ["a", "b", "c", "TAGS", "x1", "A", "missing", "$d", "_e"]
VALUES = [
    "3", "-3", "+3", "03", "3.0", "3.5", "-0", "0", "-0.0", "0.0", "1e3", "1E3", "NaN",
    "-NaN", "Infinity", "-Infinity", "+Infinity", "infinity", " 3", "3 ", "\t3", "3\n", "abc",
    "", "true", "TRUE", "True", "false", "2147483647", "2147483648", "-2147483648",
    "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "0x10", "1f", "1d", "1L", "3.0f", "\u0663", "\U0001d7d7", "\uff13",
    "1_000", "0x1p3", "0x1.8P1", "1.", ".5", "5e", "red", "TagA", "TagB", "1e400", "1e-400",
    "4.9e-324", "5", "10", "-5", "2.5", "-2.5", "100", "007", " ", "\u00a03", "3\u2007",
    "+", "-", ".", "e5", "1e", "0x", "Infinityf", "NaNd", "0.5d", "-.5e-1", "1e+2",
]
INTS = ["0", "1", "3", "5", "10", "100", "007", "2147483647", "2147483648", "2147483649",
        "9223372036854775807", "9223372036854775808", "99999999999999999999", "3L", "3l",
        "0L", "2147483648L", "9223372036854775807L", "42"]
FLOATS = ["1.5", "0.0", ".0", "0.", "0E0", ".5", "5.", "1e3", "1E-3", "1e400", "1e-400",
          "4.9e-324", "2.5", "3.0", "1.7976931348623157E308", "1.8e308", "5E+1", "0.00",
          "1.0e-323", "2.2250738585072014E-308"]
STRINGS = ["'x'", "'3'", "''", "'it''s'", "'red'", "'TagA'", "'abc'", "'3.0'", "'true'"]
KEYWORDS = ["TRUE", "FALSE", "NULL"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", " /* c */ ", "/**/", " -- note\n", "\r\n"]


def case(word: str, rng: random.Random) -> str:
    r = rng.random()
    return word.lower() if r < 0.3 else word.capitalize() if r < 0.4 else word


class Gen:
    def __init__(self, rng: random.Random, departures: bool) -> None:
        self.rng = rng
        # Off: no case meets one of the dialect's two documented departures (trailing text
        # is an error; zero float literals are accepted), so every answer must agree.
        self.departures = departures

    def sp(self) -> str:
        return self.rng.choice(SPACES) if self.rng.random() < 0.15 else " "

    def literal(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            ints = INTS if self.departures else [i for i in INTS if i in ("0", "0L") or
                                                   not i.startswith("0")]
            return self.rng.choice([i for i in ints if self.departures or i != "0L"])
        if r < 0.65:
            floats = FLOATS if self.departures else [f for f in FLOATS if float(f) != 0]
            return self.rng.choice(floats)
        if r < 0.85:
            return self.rng.choice(STRINGS)
        return case(self.rng.choice(KEYWORDS), self.rng)

    def operand(self, depth: int = 0) -> str:
        r = self.rng.random()
        if r < 0.45:
            return self.rng.choice(NAMES)
        if r < 0.8:
            return self.literal()
        if r < 0.95 and depth < 3:
            sign = self.rng.choice(["-", "+", "- ", "-", "--" if self.rng.random() < 0.2 else "-"])
            return sign + self.operand(depth + 1)
        if depth < 2:
            return "(" + self.operand(depth + 1) + ")"
        return self.rng.choice(NAMES)

    def predicate(self, depth: int) -> str:
        rng, sp = self.rng, self.sp
        r = rng.random()
        left = self.operand() if rng.random() < 0.25 else rng.choice(NAMES)
        if r < 0.35:
            op = rng.choice(["=", "<>", "<", "<=", ">", ">=", "=", "="])
            right = self.operand()
            if rng.random() < 0.3:
                left, right = right, left
            return f"{left}{sp()}{op}{sp()}{right}"
        if r < 0.5:
            neg = case("NOT ", rng) if rng.random() < 0.3 else ""
            return (f"{left} {neg}{case('BETWEEN', rng)} {self.operand()} "
                    f"{case('AND', rng)} {self.operand()}")
        if r < 0.6:
            neg = case("NOT ", rng) if rng.random() < 0.3 else ""
            items = ", ".join(rng.choice(STRINGS + INTS[:3]) for _ in range(rng.randint(1, 3)))
            return f"{left} {neg}{case('IN', rng)} ({items})"
        if r < 0.72:
            neg = case("NOT ", rng) if rng.random() < 0.3 else ""
            op = case(rng.choice(["CONTAINS", "STARTSWITH", "ENDSWITH"]), rng)
            return f"{left} {neg}{op} {rng.choice([*STRINGS, '1'])}"
        if r < 0.82:
            neg = case("NOT ", rng) if rng.random() < 0.4 else ""
            return f"{left} {case('IS', rng)} {neg}{case('NULL', rng)}"
        if r < 0.87:
            return left
        if r < 0.93 and depth < 3:
            return f"{case('NOT', rng)} {self.predicate(depth + 1)}"
        if depth < 3:
            return f"({self.expr(depth + 1)})"
        return f"{left} = {self.operand()}"

    def expr(self, depth: int = 0) -> str:
        rng = self.rng
        parts = [self.predicate(depth)]
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            parts.append(case(rng.choice(["AND", "OR"]), rng))
            parts.append(self.predicate(depth + 1))
        text = " ".join(parts)
        if depth == 0:
            r = rng.random() if self.departures else 0.06 + rng.random() * 0.94
            if r < 0.04:
                text += rng.choice([" -- trailing", " --", "--x", " -- c\n"])
            elif r < 0.06:
                text += rng.choice([" foo", " 007", " junk = 1", " )"])
            elif r < 0.08:
                text = rng.choice(["/* lead */ ", "-- lead\n", "--lead"]) + text
        return text

    def properties(self) -> dict[str, str]:
        rng = self.rng
        props: dict[str, str] = {}
        for name in NAMES:
            if name != "missing" and rng.random() < 0.6:
                props[name] = rng.choice(VALUES)
        return props


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-n", type=int, default=4000)
    parser.add_argument("--departures", action="store_true",
                        help="also cases where the dialect departs from RocketMQ on purpose")
    args = parser.parse_args()
    gen = Gen(random.Random(args.seed), args.departures)
    for i in range(args.n):
        selector = gen.expr()
        for _ in range(3):
            print(json.dumps({"id": i, "selector": selector, "properties": gen.properties()},
                             ensure_ascii=False))


if __name__ == "__main__":
    main()
