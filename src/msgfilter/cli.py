"""The `msgfilter` command: check | eval | explain | route | demo-data | demo-subscriptions |
fuzz-broker."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from . import __version__, dialects
from .engine import compile
from .errors import FilterError
from .filter import Filter


def _add_expression(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expression", help="the filter expression")
    known = "; ".join(f"{d.name}: {d.summary}" for d in dialects.all_dialects())
    parser.add_argument(
        "-d", "--dialect", default=dialects.DEFAULT, choices=sorted(dialects.names()),
        help=f"{known} (default: {dialects.DEFAULT})",
    )


def _check(args: argparse.Namespace, out: TextIO) -> int:
    filter_ = compile(args.expression, args.dialect)
    out.write(f"ok: {filter_.unparse() or '(empty: matches every message)'}\n")
    return 0


def _explain(args: argparse.Namespace, out: TextIO) -> int:
    out.write(compile(args.expression, args.dialect).explain() + "\n")
    return 0


def _messages(path: str) -> Iterator[tuple[int, Any]]:
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    with handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, json.loads(line)


def _eval(args: argparse.Namespace, out: TextIO) -> int:
    filter_: Filter = compile(args.expression, args.dialect)
    counts = {True: 0, False: 0, None: 0}
    for number, message in _messages(args.messages):
        properties = message.get("properties", message) if isinstance(message, dict) else {}
        value = filter_.evaluate(properties)
        counts[value] += 1
        if not args.quiet:
            shown = {True: "TRUE", False: "FALSE", None: "UNKNOWN"}[value]
            ident = message.get("message_id", f"line {number}") if isinstance(message, dict) \
                else f"line {number}"
            out.write(f"{shown:8} {ident}\n")
    total = sum(counts.values())
    out.write(
        f"{counts[True]} of {total} messages match "
        f"({counts[False]} FALSE, {counts[None]} UNKNOWN)\n"
    )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="msgfilter", description=__doc__)
    parser.add_argument("--version", action="version", version=f"msgfilter {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="compile an expression and print it canonically")
    _add_expression(check)
    check.set_defaults(run=_check)

    explain = commands.add_parser("explain", help="show how an expression was understood")
    _add_expression(explain)
    explain.set_defaults(run=_explain)

    evaluate = commands.add_parser("eval", help="evaluate an expression over JSON Lines messages")
    _add_expression(evaluate)
    evaluate.add_argument(
        "-m", "--messages", default="-",
        help="JSON Lines file, one message a line: {'properties': {...}} or a flat mapping "
        "(default: standard input)",
    )
    evaluate.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    evaluate.set_defaults(run=_eval)

    _add_jobs(commands)
    return parser


def _add_jobs(commands: Any) -> None:
    # The job modules import pyspark and pyarrow only inside main(): the parser stays light.
    from .jobs import demo, route, subscriptions
    route_cmd = commands.add_parser("route", help="route a message archive to subscriptions")
    route.add_arguments(route_cmd)
    route_cmd.set_defaults(run=lambda args, out: route.main(args))
    demo_cmd = commands.add_parser("demo-data", help="write a synthetic message archive")
    demo.add_arguments(demo_cmd)
    demo_cmd.set_defaults(run=lambda args, out: demo.main(args))
    subs_cmd = commands.add_parser(
        "demo-subscriptions", help="write N selective subscriptions over the demo archive"
    )
    subscriptions.add_arguments(subs_cmd)
    subs_cmd.set_defaults(run=lambda args, out: subscriptions.main(args))
    # The drivers import stomp.py or proton only when a campaign runs.
    from .testing import fuzz_cli
    fuzz_cmd = commands.add_parser(
        "fuzz-broker", help="compare a live broker's selectors with msgfilter's (generated cases)"
    )
    fuzz_cli.add_arguments(fuzz_cmd)
    fuzz_cmd.set_defaults(run=fuzz_cli.main)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args, out or sys.stdout)
    except FilterError as error:
        print(f"msgfilter: {error}", file=sys.stderr)
        return 2
    except (OSError, json.JSONDecodeError) as error:
        print(f"msgfilter: {error}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
