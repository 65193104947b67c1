"""Turning a converted syntax tree back into a live function.

The converted function is compiled with the user's file name and original line numbers,
inside a factory function whose parameters stand for the original function's free
variables plus the operator namespace `ag__`. The result is then rebuilt around the
original closure cells and globals, so converted code shares state with the original:
a `nonlocal` write in either is seen by both.
"""

from __future__ import annotations

import ast
import re
import types
import weakref
from typing import Any, Optional, Union

import gast

from .ast_conversion import to_compilable_ast

# id(code) -> (weak reference to the code, the user's function it belongs to); looked up on
# every staged statement and traceback, so by id, without making a weak reference per lookup
_generated_codes: dict[int, tuple[weakref.ref, str]] = {}

FACTORY = "__ag_factory"


def is_generated(code: types.CodeType) -> bool:
    """Whether a code object belongs to converted code (including its nested functions)."""
    entry = _generated_codes.get(id(code))
    return entry is not None and entry[0]() is code


def user_function_name(code: types.CodeType) -> str:
    """The name of the user's function a piece of converted code belongs to."""
    entry = _generated_codes.get(id(code))
    return entry[1] if entry is not None and entry[0]() is code else code.co_name


def _forget(key: int, ref: weakref.ref) -> None:
    entry = _generated_codes.get(key)
    if entry is not None and entry[0] is ref:   # not a newer code object under the same id
        del _generated_codes[key]


# compiled on first use (re's cache), not at import
_HELPER = r"^(if_body|else_body|loop_body|loop_test|after_break)_\d+(_\d+)?$|^<lambda>$"


_CO_OPTIMIZED = 0x1     # set for function code, not for class bodies


def _register(code: types.CodeType, owner: str) -> None:
    key = id(code)
    _generated_codes[key] = (weakref.ref(code, lambda ref, key=key: _forget(key, ref)), owner)
    for const in code.co_consts:
        # a class body is left as written: its methods are converted when they are called
        if isinstance(const, types.CodeType) and const.co_flags & _CO_OPTIMIZED:
            _register(const, owner if re.match(_HELPER, const.co_name) else const.co_name)


def _none(node: gast.AST) -> gast.Constant:
    c = gast.Constant(value=None, kind=None)
    ast.copy_location(c, node)
    return c


def _strip_runtime_evaluated(node: Union[gast.FunctionDef, gast.Lambda]) -> Union[gast.FunctionDef, gast.Lambda]:
    """A shallow copy of `node` whose defaults and annotations are placeholders: the real
    ones were evaluated when the original was defined and are reused from it."""
    args = node.args
    new_args = gast.arguments(
        args=[_bare(a) for a in args.args],
        posonlyargs=[_bare(a) for a in args.posonlyargs],
        vararg=_bare(args.vararg) if args.vararg else None,
        kwonlyargs=[_bare(a) for a in args.kwonlyargs],
        kw_defaults=[None if d is None else _none(d) for d in args.kw_defaults],
        kwarg=_bare(args.kwarg) if args.kwarg else None,
        defaults=[_none(d) for d in args.defaults])
    if isinstance(node, gast.Lambda):
        new = gast.Lambda(args=new_args, body=node.body)
    else:
        new = gast.FunctionDef(name=node.name, args=new_args, body=node.body, decorator_list=[],
                               returns=None, type_comment=None, type_params=[])
    ast.copy_location(new, node)
    return new


def _bare(arg: gast.Name) -> gast.Name:
    new = gast.Name(id=arg.id, ctx=gast.Param(), annotation=None, type_comment=None)
    ast.copy_location(new, arg)
    return new


def compile_function(node: Union[gast.FunctionDef, gast.Lambda], filename: str,
                     freevars: tuple[str, ...]) -> types.CodeType:
    """Compiles `node` and returns the code object of the function it defines.

    `freevars` are the names the function may take from an enclosing scope (the original
    free variables and `ag__`)."""
    node = _strip_runtime_evaluated(node)
    lineno = getattr(node, "lineno", 1)

    def at_start(n):
        n.lineno, n.col_offset, n.end_lineno, n.end_col_offset = lineno, 0, lineno, 0
        return n

    if isinstance(node, gast.Lambda):
        inner = [at_start(gast.Return(value=node))]
    else:
        # the function's own name must keep meaning what it means in the module (recursion),
        # not the factory's local
        name = at_start(gast.Name(id=node.name, ctx=gast.Load(), annotation=None, type_comment=None))
        inner = [node, at_start(gast.Return(value=name))]
        if node.name not in freevars:
            inner.insert(0, at_start(gast.Global(names=[node.name])))
    params = [at_start(gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None))
              for n in freevars]
    factory = at_start(gast.FunctionDef(
        name=FACTORY,
        args=gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                            kwarg=None, defaults=[]),
        body=inner, decorator_list=[], returns=None, type_comment=None, type_params=[]))
    tree = to_compilable_ast(gast.Module(body=[factory], type_ignores=[]))
    module_code = compile(tree, filename, "exec", dont_inherit=True)
    factory_code = next(c for c in module_code.co_consts if isinstance(c, types.CodeType))
    inner_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
    _register(inner_code, inner_code.co_name)
    return inner_code


def make_function(code: types.CodeType, original: Optional[types.FunctionType], globals_: dict,
                  extra_cells: dict[str, Any]) -> types.FunctionType:
    """A function running `code`, with the original's globals, defaults and closure cells;
    `extra_cells` supplies values for other free variables (such as `ag__`)."""
    cells = []
    original_cells = {}
    if original is not None and original.__closure__:
        original_cells = dict(zip(original.__code__.co_freevars, original.__closure__))
    for name in code.co_freevars:
        if name in original_cells:
            cells.append(original_cells[name])
        elif name in extra_cells:
            cells.append(types.CellType(extra_cells[name]))
        else:
            cells.append(types.CellType())
    fn = types.FunctionType(code, globals_, code.co_name,
                            original.__defaults__ if original is not None else None,
                            tuple(cells) if cells else None)
    if original is not None:
        fn.__kwdefaults__ = original.__kwdefaults__
        fn.__dict__.update(original.__dict__)
        fn.__doc__ = original.__doc__
        fn.__qualname__ = original.__qualname__
        fn.__module__ = original.__module__
        fn.__annotations__ = dict(getattr(original, "__annotations__", {}) or {})
    return fn
