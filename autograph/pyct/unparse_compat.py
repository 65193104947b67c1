"""`ast.unparse` with the output of Python 3.11+ on Python 3.10 too: `lambda: x` (not
`lambda : x`) and unparenthesised tuples as assignment and loop targets (`a, b = t`)."""

from __future__ import annotations

import ast
import sys

if sys.version_info >= (3, 11):
    unparse = ast.unparse
else:
    class _Unparser(ast._Unparser):  # type: ignore[name-defined]
        def visit_Assign(self, node):
            for target in node.targets:
                self.set_precedence(ast._Precedence.TUPLE, target)
            super().visit_Assign(node)

        def _for_helper(self, fill, node):
            self.set_precedence(ast._Precedence.TUPLE, node.target)
            super()._for_helper(fill, node)

        def visit_Tuple(self, node):
            parens = not node.elts or self.get_precedence(node) > ast._Precedence.TUPLE
            with self.delimit_if("(", ")", parens):
                self.items_view(self.traverse, node.elts)

        def visit_Lambda(self, node):
            with self.require_parens(ast._Precedence.TEST, node):
                self.write("lambda")
                args = node.args
                if args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg:
                    self.write(" ")
                    self.traverse(args)
                self.write(": ")
                self.set_precedence(ast._Precedence.TEST, node.body)
                self.traverse(node.body)

    def unparse(node: ast.AST) -> str:
        """Python source for `node`."""
        return _Unparser().visit(node)
