"""Nested structures: see `autograph.nest` (the one implementation runtime and autograph share)."""
from autograph.nest import *  # noqa: F401,F403
