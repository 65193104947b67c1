"""Source transformations, one per module, applied in the order given by `impl.conversion`.

Each module defines a `Handler` (a `pyct.transformer.Handler`) and a `transform(node, ctx)`
function that runs it, taking and returning a gast tree; see "Writing a converter" in
docs/architecture.md.
"""
