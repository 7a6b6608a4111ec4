"""`msgfilter fuzz-broker`: a campaign against a live broker, or one case replayed.

Exit status: 0 when every case agrees (or is a departure the dialect documents), 1 when
a disagreement was found, 2 when the campaign could not run (bad arguments, no broker,
a driver's package missing).
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
import time
from typing import Any, TextIO

from .. import __version__, dialects
from .campaign import (
    decode_message,
    encode_message,
    expected_outcome,
    generate_cases,
    observe,
    replay_command,
    run_campaign,
)
from .drivers import SET_AT_SEND, BrokerDriver, BrokerUnavailable

__all__ = ["add_arguments", "main"]

DEFAULT_IDENTIFIERS = "a,b,s,JMSType,JMSPriority"
DEFAULT_TYPES = "long,double,string,boolean"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--stomp", metavar="HOST:PORT", help="a STOMP broker (stomp.py)")
    where.add_argument("--amqp", metavar="HOST:PORT",
                       help="an AMQP 1.0 broker (python-qpid-proton)")
    parser.add_argument("-d", "--dialect", default="activemq", choices=sorted(dialects.names()),
                        help="the msgfilter dialect to compare with (default: activemq)")
    parser.add_argument("--broker-dialect", default="activemq", choices=sorted(dialects.names()),
                        help="the dialect that is the broker's own selector code; where it "
                        "agrees with the broker a difference is a documented departure "
                        "(default: activemq)")
    parser.add_argument("--selectors", type=int, default=1000,
                        help="how many selectors to generate (default: 1000)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the generation seed (default: a random one, printed)")
    parser.add_argument("--batch", type=int, default=100,
                        help="subscriptions open at once (default: 100)")
    parser.add_argument("--identifiers", default=DEFAULT_IDENTIFIERS,
                        help=f"property names, comma-separated (default: {DEFAULT_IDENTIFIERS})")
    parser.add_argument("--types", default=DEFAULT_TYPES,
                        help=f"kinds of value, comma-separated (default: {DEFAULT_TYPES})")
    parser.add_argument("--report", metavar="FILE", help="write the JSON report here")
    parser.add_argument("--max-shrunk", type=int, default=50,
                        help="disagreements to shrink at most (default: 50)")
    parser.add_argument("--shrink-budget", type=int, default=200,
                        help="broker probes per shrunk disagreement at most (default: 200)")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds to wait for the broker's answers (default: 10)")
    parser.add_argument(
        "--selector-prefix", default=None, metavar="TEXT",
        help="what the STOMP broker puts before every selector (default: ActiveMQ's "
        "'convert_string_expressions:'; '' for Artemis and others)",
    )
    parser.add_argument("--selector", help="replay one case: this selector ...")
    parser.add_argument("--message", help="... and this message (JSON, as in the report)")


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"{text!r} is not HOST:PORT")
    return host, int(port)


def _driver(args: argparse.Namespace) -> BrokerDriver:
    if args.stomp:
        from .stomp_driver import StompDriver

        if args.selector_prefix is None:
            return StompDriver(*_address(args.stomp), timeout=args.timeout,
                               native_dialect=args.broker_dialect)
        return StompDriver(*_address(args.stomp), timeout=args.timeout,
                           native_dialect=args.broker_dialect,
                           selector_prefix=args.selector_prefix)
    from .amqp_driver import AmqpDriver

    return AmqpDriver(*_address(args.amqp), timeout=args.timeout,
                      native_dialect=args.broker_dialect)


def _replay(args: argparse.Namespace, driver: BrokerDriver, out: TextIO) -> int:
    message = decode_message(json.loads(args.message or "{}"))
    with driver:
        theirs = observe(driver, args.selector, message)
        broker_text = driver.broker_selector(args.selector)
        view = driver.carried(message)
    mine = expected_outcome(args.dialect, broker_text, view)
    out.write(f"selector: {args.selector}\nthe broker evaluates: {broker_text}\n"
              f"message as carried: {json.dumps(encode_message(view), ensure_ascii=False)}\n"
              f"msgfilter ({args.dialect}): {mine}\nbroker: {theirs}\n"
              + ("agree\n" if mine == theirs else "DISAGREE\n"))
    return 0 if mine == theirs else 1


def _campaign(args: argparse.Namespace, driver: BrokerDriver, out: TextIO) -> int:
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    names = [n.strip() for n in args.identifiers.split(",") if n.strip()]
    unknowable = sorted(set(names) & SET_AT_SEND)
    if unknowable:
        raise ValueError(f"{', '.join(unknowable)}: set on each message as it is sent, so no "
                         "campaign can know them; leave them out of --identifiers")
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    address = args.stomp or args.amqp
    protocol = "stomp" if args.stomp else "amqp"
    out.write(f"fuzz-broker: {args.selectors} selectors, seed {seed}, dialect {args.dialect}, "
              f"{protocol} {address}\n")
    def progress(line: str) -> None:
        out.write(f"fuzz-broker: {line}\n")
        out.flush()

    # Connected first: a missing broker is known before the cases are generated.
    with driver:
        started = time.monotonic()
        cases = generate_cases(args.selectors, seed, identifiers=names, types=types,
                               progress=progress)
        generated = time.monotonic() - started
        progress(f"generated {len(cases)} selectors in {generated:.1f} s")
        result = run_campaign(driver, args.dialect, cases, batch_size=args.batch,
                              shrink_budget=args.shrink_budget, max_shrunk=args.max_shrunk,
                              progress=progress)
    out.write(result.summary() + "\n")
    for case in result.shrunk:
        out.write(f"  {case.kind}: {case.selector!r} on "
                  f"{json.dumps(encode_message(case.message), ensure_ascii=False)}\n")
    if args.report:
        import hypothesis  # the campaign generated with it: installed

        extra = [] if args.selector_prefix is None else ["--selector-prefix",
                                                          args.selector_prefix]
        if args.broker_dialect != "activemq":
            extra += ["--broker-dialect", args.broker_dialect]
        command = ["msgfilter", "fuzz-broker", f"--{protocol}", address, "--dialect",
                   args.dialect, "--selectors", str(args.selectors), "--seed", str(seed),
                   "--identifiers", ",".join(names), "--types", ",".join(types), *extra]
        report: dict[str, Any] = {
            "command": shlex.join(command), "protocol": protocol, "broker": address,
            "dialect": args.dialect, "seed": seed, "selectors": result.selectors,
            # The same seed gives the same cases with the same versions of these two.
            "versions": {"msgfilter": __version__, "hypothesis": hypothesis.__version__},
            "cases": result.cases, "seconds": round(result.seconds, 3),
            "generation_seconds": round(generated, 3),
            "agreements": result.agreements, "uncarried": result.uncarried,
            "outcomes": dict(result.outcomes), "departures": dict(result.departures),
            "disagreements": dict(result.disagreements),
            "shrunk": [case.as_json(replay_command(address, args.dialect, case.selector,
                                                   case.message, protocol, extra))
                       for case in result.shrunk],
        }
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        out.write(f"fuzz-broker: report written to {args.report}\n")
    return 1 if result.disagreements else 0


def main(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        if args.selectors < 1 or args.batch < 1:
            raise ValueError("--selectors and --batch must be at least 1")
        if args.message is not None and args.selector is None:
            raise ValueError("--message replays a case with --selector")
        if args.amqp and args.selector_prefix is not None:
            raise ValueError("--selector-prefix is a STOMP convention")
        driver = _driver(args)
        if args.selector is not None:
            return _replay(args, driver, out)
        return _campaign(args, driver, out)
    except ImportError as error:
        print(f"msgfilter fuzz-broker: {error}; install the driver with "
              "`pip install 'msgfilter[broker]'`", file=sys.stderr)
    except (ValueError, BrokerUnavailable, OSError) as error:
        print(f"msgfilter fuzz-broker: {error}", file=sys.stderr)
    return 2
