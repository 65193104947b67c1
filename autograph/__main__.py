"""`python -m autograph PATH [FUNCTION ...] [--diff]`: see `autograph.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
