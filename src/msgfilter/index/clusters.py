"""Clusters of clauses alike, and the look-up of one message in them.

Clauses with the same identifiers filed the same way (their `signature`) share one
`Cluster`: a hash table from the tuple of their hashed keys (an IN expands to one tuple
per value) to a `Bucket` of the clauses filed there. A bucket's clauses with numeric
bounds are tested against the message's numbers: in a Python loop while the bucket is
small, by a `RangeTable` of its own once it is not.

`ClusterLookup` visits only the clusters a message can hit. A cluster needs a value for
each of its identifiers, so clusters are grouped by one of them (their home) and a
message visits the groups of the identifiers it carries: the look-up follows the
message's identifiers, not the number of signatures. A cluster's home is its first identifier
while that group holds fewer than `SPREAD_FROM` clusters, else the identifier among its
own (keys and bounds alike) whose group is smallest when the cluster is made: one
identifier that thousands of signatures share (every message's `region`, each
subscription adding a name of its own) would otherwise make one group of them all,
walked by every message carrying it, while spreading small groups would only cost
more group calls per message (and keys computed in each). Each group runs as a
generated function (straight-line code, one dict look-up per cluster, keys computed
once per group), since
the generic loop over clusters costs a few microseconds each in CPython. A group is
generated once it has served `GENERATE_AFTER` messages unchanged, so a set of
subscriptions that keeps gaining signatures while messages flow pays the generic loop,
not a compile per message. The generated source holds only numbers and fixed words:
identifiers, keys and tables are constants bound afterwards (`runtime.build`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import product
from typing import Any, Protocol

from ..backends.python.runtime import build
from .bounds import ident_of
from .clauses import EQ, PREFIX, Atom, Clause
from .range_table import VECTOR_FROM, RangeMember, RangeTable

#: A clause in a bucket: its entry number, whether it is exact, its bounds flattened
#: (low, high per dimension of its cluster).
Member = tuple[int, bool, tuple[float, ...]]
#: One atom's place in a signature: (identifier, kind).
Component = tuple[str, str]
#: A message's numbers by bound name (`clause_store.Numbers`).
Numbers = Mapping[str, float | None]
#: What a look-up fills: entries proven TRUE, entries the evaluator decides.
Found = set[int]

#: A group runs the generic loop for this many messages after it changed, then is
#: generated (compiling costs about what 20 generic look-ups of it do).
GENERATE_AFTER = 16
#: Groups of more clusters than this stay generic (the source would grow without bound).
GENERATED_CLUSTERS_MAX = 256
#: A cluster joins its first identifier's group while the group holds fewer clusters
#: than this; past it, the smallest group among its identifiers.
SPREAD_FROM = 16


def atom_keys(atom: Atom) -> tuple[object, ...]:
    """What an atom is filed under: its keys, its prefix, or True for presence (and for
    `<>`, whose keys are excluded after the look-up)."""
    if atom.kind == EQ or atom.kind == PREFIX:
        return atom.keys
    return (True,)


class Bucket:
    """The clauses filed under one key of a cluster. Most buckets hold one or two
    clauses (the keys grow with the subscriptions), so each table is made when first
    needed: an empty dict costs as much as the clause it would hold. A bucket that
    grows past `VECTOR_FROM` bounded clauses tests them with a `RangeTable` of its own,
    kept in step with every change after it is made."""

    __slots__ = ("exact", "inexact", "members", "table")

    def __init__(self) -> None:
        #: Clauses without bounds, by entry number (a count: an entry may file two).
        self.exact: dict[int, int] | None = None
        self.inexact: dict[int, int] | None = None
        #: Clauses with bounds, by member number.
        self.members: dict[int, Member] | None = None
        self.table: RangeTable | None = None

    def add(self, member_id: int, member: Member, dims: tuple[str, ...]) -> None:
        if not member[2]:
            if member[1]:
                table = self.exact = self.exact or {}
            else:
                table = self.inexact = self.inexact or {}
            table[member[0]] = table.get(member[0], 0) + 1
            return
        if self.members is None:
            self.members = {}
        self.members[member_id] = member
        if self.table is not None:
            self.table.add(member_id, _named(member, dims))

    def remove(self, member_id: int, member: Member, dims: tuple[str, ...]) -> None:
        if not member[2]:
            table = self.exact if member[1] else self.inexact
            assert table is not None
            table[member[0]] -= 1
            if not table[member[0]]:
                del table[member[0]]
            return
        assert self.members is not None
        del self.members[member_id]
        if self.table is not None:
            self.table.remove(member_id, _named(member, dims))

    def __bool__(self) -> bool:
        return bool(self.members or self.exact or self.inexact)

    def hits(self, xs: tuple[float, ...], numbers: Numbers, dims: tuple[str, ...],
             decided: Found, verify: Found) -> None:
        if self.exact:
            decided.update(self.exact)
        if self.inexact:
            verify.update(self.inexact)
        members = self.members
        if not members:
            return
        if len(members) <= VECTOR_FROM:
            _loop(members.values(), xs, decided, verify)
            return
        if self.table is None:
            self.table = RangeTable()
            for member_id, member in members.items():
                self.table.add(member_id, _named(member, dims))
        self.table.hits(numbers, decided, verify)


def _named(member: Member, dims: tuple[str, ...]) -> RangeMember:
    """A bucket's member with its bounds by name, as a `RangeTable` holds them."""
    entry, exact, flat = member
    return entry, exact, {name: (flat[2 * i], flat[2 * i + 1]) for i, name in enumerate(dims)}


def _loop(members: Iterable[Member], xs: tuple[float, ...], decided: Found,
          verify: Found) -> None:
    if len(xs) == 1:
        x = xs[0]
        for entry, exact, b in members:
            if b[0] <= x <= b[1]:
                (decided if exact else verify).add(entry)
    elif len(xs) == 2:
        x, y = xs
        for entry, exact, b in members:
            if b[0] <= x <= b[1] and b[2] <= y <= b[3]:
                (decided if exact else verify).add(entry)
    else:
        pairs = list(enumerate(xs))
        for entry, exact, b in members:
            if all(b[2 * i] <= x <= b[2 * i + 1] for i, x in pairs):
                (decided if exact else verify).add(entry)


class Cluster:
    """Clauses of one signature: filed under the tuple of their atoms' keys."""

    __slots__ = ("buckets", "components", "dims", "home", "size")

    def __init__(self, components: tuple[Component, ...], dims: tuple[str, ...]) -> None:
        self.components = components
        self.dims = dims
        self.buckets: dict[object, Bucket] = {}
        self.size = 0
        #: The identifier whose group holds the cluster (`ClusterLookup.add`).
        self.home = components[0][0]

    def identifiers(self) -> list[str]:
        """The identifiers a message must carry for the cluster to hit: its keys' and
        its bounds' (every bound reads None for an absent value)."""
        names = [ident for ident, _ in self.components]
        names.extend(ident_of(dim) for dim in self.dims)
        return list(dict.fromkeys(names))

    def keys_of(self, clause: Clause) -> list[object]:
        """The bucket keys a clause is filed under (an IN: one per value)."""
        lists = [atom_keys(a) for a in clause.atoms]
        if len(lists) == 1:
            return list(dict.fromkeys(lists[0]))
        return list(dict.fromkeys(product(*lists)))


class KeySource(Protocol):
    """How a store turns a message's value into the keys of one component."""

    def keys(self, component: Component, values: Mapping[str, object]) -> list[object]:
        """The keys of the message's value (empty: the component cannot hit)."""

    def single_key(self, component: Component) -> Callable[[Any], object] | None:
        """For a component whose value has at most one key: value -> key, None for no
        key. None when a value may have several keys (then `keys` says them)."""


class ClusterLookup:
    """A store's clusters grouped by their home identifier (see the module)."""

    def __init__(self, source: KeySource) -> None:
        self._source = source
        self.groups: dict[str, list[Cluster]] = {}
        self._code: dict[str, Callable[[Mapping[str, object], Numbers, Found, Found], None]] = {}
        self._uses: dict[str, int] = {}

    @property
    def generated(self) -> frozenset[str]:
        """The groups (by identifier) that run as generated functions now."""
        return frozenset(self._code)

    def add(self, cluster: Cluster) -> None:
        groups = self.groups
        name = cluster.home
        if len(groups.get(name, ())) >= SPREAD_FROM:
            name = cluster.home = min(
                cluster.identifiers(), key=lambda ident: len(groups.get(ident, ())))
        groups.setdefault(name, []).append(cluster)
        self._changed(name)

    def remove(self, cluster: Cluster) -> None:
        name = cluster.home
        group = self.groups[name]
        group.remove(cluster)
        if not group:
            del self.groups[name]
        self._changed(name)

    def _changed(self, name: str) -> None:
        self._code.pop(name, None)
        self._uses.pop(name, None)

    def hits(self, values: Mapping[str, object], numbers: Numbers, decided: Found,
             verify: Found) -> None:
        """Fill `decided` and `verify` from every cluster `values` hits (`values`: the
        message's non-null values of the store's identifiers)."""
        code, groups = self._code, self.groups
        for name in values:
            run = code.get(name)
            if run is not None:
                run(values, numbers, decided, verify)
                continue
            group = groups.get(name)
            if group is None:
                continue
            uses = self._uses[name] = self._uses.get(name, 0) + 1
            if uses >= GENERATE_AFTER and len(group) <= GENERATED_CLUSTERS_MAX:
                run = code[name] = _generate(name, group, self._source)
                run(values, numbers, decided, verify)
            else:
                self._generic(group, values, numbers, decided, verify)

    def _generic(self, group: list[Cluster], values: Mapping[str, object],
                 numbers: Numbers, decided: Found, verify: Found) -> None:
        keys = self._source.keys
        memo: dict[Component, list[object]] = {}
        for cluster in group:
            lists: list[list[object]] = []
            for component in cluster.components:
                found = memo.get(component)
                if found is None:
                    found = memo[component] = keys(component, values)
                if not found:
                    break
                lists.append(found)
            else:
                xs = _numbers_of(cluster.dims, numbers)
                if xs is None:
                    continue
                buckets = cluster.buckets
                for key in lists[0] if len(lists) == 1 else product(*lists):
                    bucket = buckets.get(key)
                    if bucket is not None:
                        bucket.hits(xs, numbers, cluster.dims, decided, verify)


def _numbers_of(dims: tuple[str, ...], numbers: Numbers) -> tuple[float, ...] | None:
    """The message's number on each dimension, None when one is missing."""
    xs = []
    for name in dims:
        x = numbers[name]
        if x is None:
            return None
        xs.append(x)
    return tuple(xs)


class _Source:
    """Generated source and its constants, built side by side: every value the code
    uses is a constant `c<i>`, so the text holds numbers and fixed words only."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: list[object] = []

    def const(self, value: object) -> str:
        self.consts.append(value)
        return f"c{len(self.consts) - 1}"

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def _generate(first: str, group: list[Cluster], source: KeySource) -> Any:
    """The look-up of the group of identifier `first` as a function (see the module):
    a message that runs it carries `first`."""
    out = _Source()
    body = 2
    out.line(body, "get = values.get")
    # Each component's keys, once: `k<i>` is a key or None (one key at most) or a list
    # (several; empty for none).
    names: dict[Component, tuple[str, bool]] = {}
    for cluster in group:
        for component in cluster.components:
            if component in names:
                continue
            var = f"k{len(names)}"
            read = source.single_key(component)
            if read is None:
                out.line(body, f"{var} = {out.const(source.keys)}("
                               f"{out.const(component)}, values)")
            else:
                value = "values[" if component[0] == first else "get("
                close = "]" if component[0] == first else ")"
                out.line(body, f"v = {value}{out.const(component[0])}{close}")
                out.line(body, f"{var} = None if v is None else {out.const(read)}(v)")
            names[component] = (var, read is not None)
    for cluster in group:
        depth = body
        tests = [f"{var} is not None" if single else var
                 for var, single in (names[c] for c in cluster.components)]
        out.line(depth, f"if {' and '.join(tests)}:")
        depth += 1
        parts = []
        for number, component in enumerate(cluster.components):
            var, single = names[component]
            if single:
                parts.append(var)
            else:
                out.line(depth, f"for m{number} in {var}:")
                depth += 1
                parts.append(f"m{number}")
        key = parts[0] if len(parts) == 1 else f"({', '.join(parts)},)"
        out.line(depth, f"b = {out.const(cluster.buckets.get)}({key})")
        out.line(depth, "if b is not None:")
        depth += 1
        if not cluster.dims:
            # No bounds, so no members: the bucket's sets, without a call.
            out.line(depth, "if b.exact:")
            out.line(depth + 1, "decided.update(b.exact)")
            out.line(depth, "if b.inexact:")
            out.line(depth + 1, "verify.update(b.inexact)")
            continue
        xs = []
        for number, dim in enumerate(cluster.dims):
            out.line(depth, f"x{number} = numbers[{out.const(dim)}]")
            out.line(depth, f"if x{number} is not None:")
            depth += 1
            xs.append(f"x{number}")
        xs_text = f"({', '.join(xs)},)" if xs else "()"
        out.line(depth, f"b.hits({xs_text}, numbers, {out.const(cluster.dims)}, "
                        "decided, verify)")
    consts = ", ".join(f"c{i}" for i in range(len(out.consts)))
    text = "\n".join([
        f"def _bind({consts}):",
        "    def group(values, numbers, decided, verify):",
        *out.lines,
        "    return group",
        "",
    ])
    return build(text, tuple(out.consts))


__all__ = ["GENERATE_AFTER", "SPREAD_FROM", "Bucket", "Cluster", "ClusterLookup", "Component",
           "KeySource", "Member", "atom_keys"]
