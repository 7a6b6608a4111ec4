"""Benchmark of case generation: how fast msgfilter.testing's strategies draw.

Run: .venv/bin/python benchmarks/bench_generation.py [--examples 600] [--selectors 300]

Prints, for each strategy, the examples drawn per second of CPU (the Hypothesis engine
included, as a test or a campaign pays it), and for `generate_cases` (what
`msgfilter fuzz-broker` runs) the distinct selectors per second of CPU and the messages
per selector. The strategies make each strategy they draw from once, at import; the
workloads include the paths that still draw per example: names drawn from a strategy
(`identifiers()`), a typed column schema, strings with lone surrogates, near misses.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from msgfilter.testing import (
    expressions,
    identifiers,
    invalid_selectors,
    messages,
    selector_cases,
    selectors,
)
from msgfilter.testing.campaign import generate_cases
from msgfilter.testing.fuzz_cli import DEFAULT_IDENTIFIERS, DEFAULT_TYPES

# What `msgfilter fuzz-broker` draws by default.
NAMES, TYPES = DEFAULT_IDENTIFIERS.split(","), DEFAULT_TYPES.split(",")


def _per_second(strategy: Any, examples: int) -> float:
    """Examples of `strategy` drawn per CPU second, in one Hypothesis run."""
    drawn = 0

    @seed(1)
    @settings(max_examples=examples, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @given(strategy)
    def run(_: object) -> None:
        nonlocal drawn
        drawn += 1

    started = time.process_time()
    run()
    return drawn / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=600)
    parser.add_argument("--selectors", type=int, default=300)
    args = parser.parse_args()
    workloads = {
        "selectors()": selectors(),
        "selectors(identifiers=identifiers())": selectors(identifiers=identifiers()),
        "expressions(kind='number')": expressions(kind="number"),
        "invalid_selectors()": invalid_selectors(),
        "messages()": messages(),
        "messages(typed columns)": messages(types={"a": "long", "s": "string", "d": "double"},
                                            identifiers=["a", "s", "d"]),
        "messages(strings, surrogates)": messages(types=["string"], surrogates=True),
        "selector_cases(campaign names)": selector_cases(identifiers=NAMES, types=TYPES,
                                                         max_depth=2),
        "selector_cases(identifiers())": selector_cases(identifiers=identifiers()),
    }
    print(f"{'strategy':42} {'examples/s CPU':>15}")
    for name, strategy in workloads.items():
        print(f"{name:42} {_per_second(strategy, args.examples):15.0f}")
    started = time.process_time()
    cases = generate_cases(args.selectors, 1, identifiers=NAMES, types=TYPES)
    spent = time.process_time() - started
    per_selector = sum(len(m) for _, m in cases) / len(cases)
    print(f"\ngenerate_cases({args.selectors}): {spent:.1f} s CPU, "
          f"{len(cases) / spent:.0f} distinct selectors/s, {per_selector:.2f} messages each")


if __name__ == "__main__":
    main()
