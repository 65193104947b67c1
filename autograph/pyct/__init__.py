"""Python code tools: parsing, templates, naming, control-flow graphs and static analysis.

Nothing in this package knows about tensors; it works on gast syntax trees.
"""
