"""Definitions the converters, operators and pipeline share (below `impl/`)."""
