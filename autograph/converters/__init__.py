"""Source transformations, one per module, applied in the order given by `impl.conversion`.

Each module has a `transform(node, ctx)` function taking and returning a gast tree.
"""
