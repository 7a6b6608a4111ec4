"""Jobs behind the command line: `msgfilter route` (route.py; --follow: follow.py) and
`msgfilter demo-data` (demo.py). Each command module offers `add_arguments(parser)` and
`main(args) -> int` for cli.py."""
