"""`SubscriptionIndex.explain()`: how many subscriptions are indexed on what, and how many
are always checked, and why."""

from __future__ import annotations

from collections import Counter

from .entries import Entry
from .keys import AnyTag, Compound, Eq, Prefix, Present, Range, Tag


def _where(probe: object) -> str:
    if isinstance(probe, Compound):
        return "(" + ", ".join(probe.idents) + ")"
    if isinstance(probe, Eq | Prefix | Range | Present):
        return probe.ident
    if isinstance(probe, Tag):
        return "TAGS"
    if isinstance(probe, AnyTag):
        return "tag* properties"
    return "?"


def explain(entries: list[Entry], dialect: str) -> str:
    """The text of `SubscriptionIndex.explain()` for its entries."""
    subs = sum(len(e.keys) for e in entries)
    indexed: Counter[tuple[str, str, str]] = Counter()
    indexed_filters: Counter[tuple[str, str, str]] = Counter()
    checked: Counter[str] = Counter()
    everything: Counter[str] = Counter()
    never: Counter[str] = Counter()
    exact = verified = 0
    for e in entries:
        p = e.plan
        n = len(e.keys)
        if p.never:
            never[p.reason] += n
        elif p.everything:
            (everything if p.exact else checked)[p.reason] += n
        else:
            where = ", ".join(sorted({_where(probe) for probe in p.probes}))
            label = (e.filter.model.value, p.structure, where)
            indexed[label] += n
            indexed_filters[label] += 1
            if p.exact:
                exact += n
            else:
                verified += n
    lines = [
        f"SubscriptionIndex: {subs} subscriptions, {len(entries)} distinct filters "
        f"(default dialect {dialect})",
        f"indexed: {sum(indexed.values())} subscriptions "
        f"({exact} decided by the index alone, {verified} verified by the evaluator)",
    ]
    for (model, structure, where), n in sorted(indexed.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(
            f"  {n:>8}  {model}: {structure} on {where} "
            f"({indexed_filters[(model, structure, where)]} filters)"
        )
    lines.append(f"always checked: {sum(checked.values())} subscriptions")
    for reason, n in sorted(checked.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  {n:>8}  {reason}")
    if everything:
        lines.append(f"match every message: {sum(everything.values())} subscriptions")
        for reason, n in sorted(everything.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {n:>8}  {reason}")
    if never:
        lines.append(f"match no message: {sum(never.values())} subscriptions")
        for reason, n in sorted(never.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {n:>8}  {reason}")
    return "\n".join(lines)
