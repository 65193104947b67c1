"""Calls: `f(x)` becomes `ag__.converted_call(f, x)`, which converts `f` (once, cached)
before calling it, so that control flow in the functions the user calls is converted too.

Calls the converter can resolve to a library (NumPy, the standard library, the runtime,
autograph itself) stay plain calls, and builtins with a staged meaning (`len`, `range`,
`print`, ...) become their operators (`ag__.len_(x)`).
"""

from __future__ import annotations

import gast

from ..core.options import Feature
from ..operators.py_builtins import OVERRIDE_NAMES
from ..pyct import templates, transformer
from ..pyct.transformer import Context


def _dotted(node: gast.expr):
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


class Handler(transformer.Handler):
    """Routes calls through `ag__.converted_call` (after their arguments are converted)."""

    def _converts_print(self) -> bool:
        """Whether `print` becomes `ag__.print_` (see `ConversionOptions.print_mode`)."""
        return self.ctx.options is not None and bool(self.ctx.options.print_mode())

    def leave_Call(self, node: gast.Call):
        func = node.func
        parts = _dotted(func)
        if parts is not None:
            if parts[0] == "ag__" or (parts == ["super"]):
                return node
            if parts[-1] == "set_loop_options":
                return node
            resolved = self.ctx.resolve(parts)
            if resolved is not None:
                if (len(parts) == 1 and resolved.module == "builtins"
                        and parts[0] in OVERRIDE_NAMES and self.ctx.uses(Feature.BUILTIN_FUNCTIONS)
                        and (parts[0] != "print" or self._converts_print())):
                    node.func = templates.operator(OVERRIDE_NAMES[parts[0]])
                    return self.located(node, func)
                if self.ctx.is_library is not None and self.ctx.is_library(resolved):
                    return node
        if self.ctx.options is not None and not self.ctx.options.recursive:
            return node
        new = gast.Call(func=templates.operator("converted_call"),
                        args=[func] + node.args, keywords=node.keywords)
        return self.located(new, node)


def transform(node, ctx: Context):
    return transformer.run_handlers(node, ctx, Handler)
