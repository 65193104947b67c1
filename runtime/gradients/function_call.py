"""Calls of concrete functions while a gradient tape records."""

from __future__ import annotations


def call_recorded(concrete, args, kwargs, values):
    """Runs `concrete` on `values` (recorded on the active tapes once gradients exist)."""
    return concrete._run(values)
