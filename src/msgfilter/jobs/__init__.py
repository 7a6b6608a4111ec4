"""Batch jobs behind the command line: `msgfilter route` (route.py) and
`msgfilter demo-data` (demo.py). Each module offers `add_arguments(parser)` and
`main(args) -> int` for cli.py."""
