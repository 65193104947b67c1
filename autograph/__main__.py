"""`python -m autograph PATH [FUNCTION ...] [--diff]`: see `autograph.cli`."""

from .cli import main

raise SystemExit(main())
