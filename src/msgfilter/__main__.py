"""`python -m msgfilter`: the `msgfilter` command ([project.scripts] in pyproject.toml)."""

import sys

from .cli import main

sys.exit(main())
