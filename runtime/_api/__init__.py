"""Declarations of the public names of `runtime` for type checkers (the `.pyi` files here,
written by docs/make_typing_surface.py); nothing imports this package at run time."""
