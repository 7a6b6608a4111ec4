"""`SubscriptionIndex.explain()`: per shape of plan, how many subscriptions are keyed on
what, how many the index decides alone, what still needs verifying and why."""

from __future__ import annotations

from collections import Counter

from .bounds import ident_of
from .clauses import Clause, ClausePlan
from .entries import Entry


def _shape(clause: Clause) -> str:
    parts = [f"{a.kind} {a.ident}" if a.kind != "eq" or len(a.keys) == 1
             else f"IN {a.ident}" for a in clause.atoms]
    parts.extend(f"range {ident_of(b.ident)}" for b in clause.bounds)
    return " + ".join(parts)


def describe(plan: ClausePlan) -> str:
    """How a plan keys its filter, in a few words (one line of explain())."""
    if plan.tags:
        kind = type(plan.tags[0]).__name__
        return "rocketmq tag set" if kind == "Tag" else "pulsar tags"
    shapes = sorted({_shape(c) for c in plan.clauses})
    return " | ".join(shapes) if len(shapes) <= 3 else " | ".join(shapes[:3]) + " | ..."


def explain(entries: list[Entry], dialect: str) -> str:
    """The text of `SubscriptionIndex.explain()` for its entries."""
    subs = sum(len(e.keys) for e in entries)
    indexed: Counter[tuple[str, str]] = Counter()
    filters: Counter[tuple[str, str]] = Counter()
    decided: Counter[tuple[str, str]] = Counter()
    guarded: Counter[tuple[str, str]] = Counter()
    why: dict[tuple[str, str], Counter[str]] = {}
    checked: Counter[str] = Counter()
    everything: Counter[str] = Counter()
    never: Counter[str] = Counter()
    for e in entries:
        p = e.clauses
        n = len(e.keys)
        if p.never:
            never[p.reason] += n
            continue
        if p.everything:
            (everything if p.exact else checked)[p.reason] += n
            continue
        label = (e.filter.model.value, describe(p))
        indexed[label] += n
        filters[label] += 1
        exact = p.tags_exact if p.tags else all(c.exact for c in p.clauses)
        if exact:
            decided[label] += n
            if p.guards:
                guarded[label] += n
        else:
            why.setdefault(label, Counter())[p.reason or "a condition the keys only narrow"] += n
    total_decided = sum(decided.values())
    lines = [
        f"SubscriptionIndex: {subs} subscriptions, {len(entries)} distinct filters "
        f"(default dialect {dialect})",
        f"indexed: {sum(indexed.values())} subscriptions ({total_decided} decided by the "
        f"index alone, {sum(indexed.values()) - total_decided} verified by the evaluator "
        f"when their keys hit)",
    ]
    for label, n in sorted(indexed.items(), key=lambda kv: (-kv[1], kv[0])):
        model, shape = label
        line = f"  {n:>8}  {model}: {shape} ({filters[label]} filters"
        if decided[label]:
            line += f", {decided[label]} decided by the index"
            if guarded[label]:
                line += (f" ({guarded[label]} unless a value an earlier OR branch reads"
                         f" as a number is not one)")
        reasons = why.get(label)
        if reasons:
            verified = ", ".join(f"{r}: {k}" for r, k in reasons.most_common())
            line += f"; verified: {verified}"
        lines.append(line + ")")
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
