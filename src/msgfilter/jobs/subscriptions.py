"""`msgfilter demo-subscriptions`: N selective subscriptions over the demo archive.

    msgfilter demo-subscriptions --count 10000 --out subs.yaml

The subscriptions are jms selectors over the properties `msgfilter demo-data` writes, in
families that each split the messages into disjoint cells, so that a message matches at
most one subscription of each family however many subscriptions there are:

- per customer: `key = 'cust-7'`, alone or narrowed (`AND priority >= 5`, a region, `NOT`
  a tier, `amount IS NOT NULL`), or two customers in an `IN` list; every customer is
  used by one subscription only;
- tenant x region x type: `topic = ... AND region = ... AND TAGS = ...` (320 cells);
- region x tier x source (60 cells);
- namespace x region x tier: `topic LIKE 'persistent://shop/orders/%' AND ...` (90 cells).

A message therefore goes to at most four subscriptions whatever `--count` is (one
customer subscription and one per combination family); once a family's cells are used
up, the remaining subscriptions are per-customer. The same `--count` gives the same file,
and a smaller count is a prefix of a larger one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import dialects
from . import demo

#: Customers `demo-data` draws keys from ("cust-1" .. "cust-50000").
CUSTOMERS = 50_000
#: The kinds of subscription in each run of ten, so that every prefix holds a mix.
_PATTERN = ("c", "c", "c", "trt", "c", "c", "rts", "c", "nrt", "c")
_NARROWED = (
    "{key}",
    "{key} AND priority >= 5",
    "{key} AND region IN ('eu-west', 'us-east')",
    "{key} AND NOT (tier = 'bronze')",
    "{key} AND amount IS NOT NULL",
)


@dataclass(frozen=True, slots=True)
class DemoSubscription:
    """One generated subscription."""

    name: str
    expression: str
    dialect: str = dialects.DEFAULT


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `msgfilter demo-subscriptions` options."""
    parser.add_argument("--count", type=int, required=True, help="subscriptions to write")
    parser.add_argument(
        "--out", required=True, help="file to write: YAML, or JSON when it ends in .json"
    )


def main(args: argparse.Namespace) -> int:
    """Write the subscriptions file; 0 on success, 2 for a bad count."""
    try:
        subscriptions = demo_subscriptions(args.count)
    except ValueError as error:
        print(f"msgfilter demo-subscriptions: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write(subscriptions, out)
    print(f"msgfilter demo-subscriptions: {len(subscriptions):,} subscriptions -> {out}")
    return 0


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _combinations() -> dict[str, Iterator[tuple[str, str]]]:
    """Each combination family's (name, expression) cells, in a fixed order."""
    topics = [t for t, _ in demo.TOPICS]
    regions = [r for r, _, _ in demo.REGIONS]
    tiers = [t for t, _ in demo.TIERS]
    sources = [s for s, _ in demo.SOURCES]
    tags = [t for t, _ in demo.TAGS]
    namespaces = list(dict.fromkeys(t.rsplit("/", 2)[-2] for t in topics))
    trt = (
        (
            f"{topic.rsplit('/', 2)[-2]}-{topic.rsplit('/', 1)[-1]}-{region}-{tag}",
            f"topic = {_quoted(topic)} AND region = {_quoted(region)} AND TAGS = {_quoted(tag)}",
        )
        for region, tag, topic in itertools.product(regions, tags, topics)
    )
    rts = (
        (
            f"{region}-{tier}-{source}",
            f"region = {_quoted(region)} AND tier = {_quoted(tier)} "
            f"AND source = {_quoted(source)}",
        )
        for region, tier, source in itertools.product(regions, tiers, sources)
    )
    nrt = (
        (
            f"{namespace}-{region}-{tier}",
            f"topic LIKE {_quoted(f'persistent://shop/{namespace}/%')} "
            f"AND region = {_quoted(region)} AND tier = {_quoted(tier)}",
        )
        for region, tier, namespace in itertools.product(regions, tiers, namespaces)
    )
    return {"trt": trt, "rts": rts, "nrt": nrt}


def demo_subscriptions(count: int) -> list[DemoSubscription]:
    """`count` selective jms subscriptions over the demo archive (see the module doc)."""
    if count < 1:
        raise ValueError("--count must be at least 1")
    families = _combinations()
    customers = iter(range(1, CUSTOMERS + 1))
    found: list[DemoSubscription] = []
    customer_subs = 0
    for number in range(count):
        kind = _PATTERN[number % len(_PATTERN)]
        cell = next(families[kind], None) if kind in families else None
        if cell is not None:
            name, expression = cell
            found.append(DemoSubscription(f"s{number:05d}-{name}", expression))
            continue
        variant = customer_subs % (len(_NARROWED) + 1)
        customer_subs += 1
        try:
            first = next(customers)
            if variant == len(_NARROWED):  # a pair of customers in one IN list
                second = next(customers)
                name = f"cust-{first}+{second}"
                expression = f"key IN ('cust-{first}', 'cust-{second}')"
            else:
                name = f"cust-{first}"
                expression = _NARROWED[variant].format(key=f"key = 'cust-{first}'")
        except StopIteration:
            raise ValueError(
                f"--count {count} is more than the demo archive's customers allow "
                f"(at most about {CUSTOMERS:,} selective subscriptions)"
            ) from None
        found.append(DemoSubscription(f"s{number:05d}-{name}", expression))
    return found


def write(subscriptions: list[DemoSubscription], out: Path) -> None:
    """`subscriptions` as a `msgfilter route` subscriptions file (YAML, or JSON)."""
    entries = [
        {"name": s.name, "dialect": s.dialect, "expression": s.expression}
        for s in subscriptions
    ]
    if out.suffix.lower() == ".json":
        out.write_text(json.dumps({"subscriptions": entries}, indent=1) + "\n", "utf-8")
        return
    # One flow mapping a line: JSON strings are valid YAML scalars, and 10 000 lines
    # stay readable.
    lines = [
        "# msgfilter demo-subscriptions: selective jms subscriptions over the demo archive",
        "subscriptions:",
    ]
    lines += [
        "  - {" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in entry.items()) + "}"
        for entry in entries
    ]
    out.write_text("\n".join(lines) + "\n", "utf-8")
