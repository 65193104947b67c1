"""Fast conversion between gast trees and the standard library's `ast` for this Python.

gast's own converters are generic visitors; these do the same mapping (gast names the
arguments of functions with `Name` nodes in a `Param` context and except-clause names with
`Name` nodes; Python's `ast` uses `arg` nodes and strings) with one table lookup per node,
which matters because every conversion parses and compiles a function.
"""

from __future__ import annotations

import ast
from typing import Any, Callable

import gast

from .ast_util import children_of

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _table(source_module, target_module) -> dict[type, tuple[type, tuple, tuple]]:
    table = {}
    for name in dir(source_module):
        src = getattr(source_module, name)
        dst = getattr(target_module, name, None)
        if isinstance(src, type) and issubclass(src, source_module.AST) and isinstance(dst, type):
            fields = tuple(f for f in src._fields if f in dst._fields)
            table[src] = (dst, fields, tuple(src._attributes))
    return table


_TO_GAST = _table(ast, gast)
_TO_AST = _table(gast, ast)
_GAST_CTX = {ast.Load: gast.Load(), ast.Store: gast.Store(), ast.Del: gast.Del()}
_AST_CTX = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}


def _converter(table: dict, special: dict) -> Callable[[Any], Any]:
    # per source type: (target type, shared fields, attributes, target fields it lacks)
    entries = {src: (cls, fields, attrs, tuple(f for f in cls._fields if f not in fields))
               for src, (cls, fields, attrs) in table.items()}
    nodes = (ast.AST, gast.AST)

    def convert(node: Any) -> Any:
        tp = type(node)
        fn = special.get(tp)
        if fn is not None:
            return fn(node)
        entry = entries.get(tp)
        if entry is None:
            return node
        cls, fields, attrs, missing = entry
        new = cls.__new__(cls)
        d = new.__dict__
        nd = node.__dict__
        for f in fields:
            value = nd.get(f)
            if value.__class__ is list:
                value = [convert(v) if isinstance(v, nodes) else v for v in value] if value else []
            elif isinstance(value, nodes):
                value = convert(value)
            d[f] = value
        for a in attrs:
            if a in nd:
                d[a] = nd[a]
        for f in missing:
            d[f] = [] if f == "type_params" else None
        return new
    return convert


def _copy_positions(src, dst) -> None:
    sd, dd = src.__dict__, dst.__dict__
    for a in _POSITIONS:
        if a in sd:
            dd[a] = sd[a]


# -- ast -> gast -------------------------------------------------------------------------------

def _arg_to_gast(node: ast.arg) -> gast.Name:
    new = gast.Name(id=node.arg, ctx=gast.Param(), annotation=to_gast(node.annotation)
                    if node.annotation is not None else None, type_comment=node.type_comment)
    _copy_positions(node, new)
    return new


def _name_to_gast(node: ast.Name) -> gast.Name:
    new = gast.Name.__new__(gast.Name)
    d = new.__dict__
    d["id"], d["ctx"], d["annotation"], d["type_comment"] = node.id, _GAST_CTX[type(node.ctx)], None, None
    _copy_positions(node, new)
    return new


def _handler_to_gast(node: ast.ExceptHandler) -> gast.ExceptHandler:
    name = None
    if node.name is not None:
        name = gast.Name(id=node.name, ctx=gast.Store(), annotation=None, type_comment=None)
        _copy_positions(node, name)
    new = gast.ExceptHandler(type=to_gast(node.type) if node.type is not None else None, name=name,
                             body=[to_gast(s) for s in node.body])
    _copy_positions(node, new)
    return new


to_gast: Callable[[ast.AST], gast.AST] = _converter(_TO_GAST, {
    ast.arg: _arg_to_gast, ast.Name: _name_to_gast, ast.ExceptHandler: _handler_to_gast,
    ast.Load: lambda n: _GAST_CTX[ast.Load], ast.Store: lambda n: _GAST_CTX[ast.Store],
    ast.Del: lambda n: _GAST_CTX[ast.Del],
})


# -- gast -> ast -------------------------------------------------------------------------------

def _name_to_ast(node: gast.Name) -> ast.AST:
    if type(node.ctx) is gast.Param:
        new = ast.arg.__new__(ast.arg)
        d = new.__dict__
        d["arg"] = node.id
        d["annotation"] = to_ast(node.annotation) if node.annotation is not None else None
        d["type_comment"] = node.type_comment
    else:
        new = ast.Name.__new__(ast.Name)
        d = new.__dict__
        d["id"], d["ctx"] = node.id, _AST_CTX[type(node.ctx)]
    _copy_positions(node, new)
    return new


def _handler_to_ast(node: gast.ExceptHandler) -> ast.ExceptHandler:
    new = ast.ExceptHandler(type=to_ast(node.type) if node.type is not None else None,
                            name=node.name.id if node.name is not None else None,
                            body=[to_ast(s) for s in node.body])
    _copy_positions(node, new)
    return new


def to_compilable_ast(node: gast.AST) -> ast.AST:
    """`to_ast`, also giving nodes without a position their nearest ancestor's (as
    `ast.fix_missing_locations` would), ready for `compile`."""
    return _located(node, (1, 0, 1, 0))


_LOCATED = {cls for cls in vars(ast).values()
            if isinstance(cls, type) and issubclass(cls, ast.AST) and "lineno" in cls._attributes}


def _located_table() -> dict:
    """For each gast type: (ast type, shared fields, attributes, whether it has a position,
    the ast fields it lacks, with their defaults)."""
    table = {}
    for src, (cls, fields, attrs) in _TO_AST.items():
        if src in _AST_CTX or src is gast.Name or src is gast.ExceptHandler:
            continue
        missing = tuple((f, [] if f == "type_params" else None)
                        for f in cls._fields if f not in fields)
        table[src] = (cls, fields, attrs, cls in _LOCATED, missing)
    return table


_LOCATED_TABLE = _located_table()
_AST_NAME = ast.Name
_GAST_AST = gast.AST


def _located(node: Any, pos: tuple) -> Any:
    tp = type(node)
    entry = _LOCATED_TABLE.get(tp)
    if entry is None:
        if tp is gast.Name:
            nd = node.__dict__
            ctx_type = type(nd["ctx"])
            if ctx_type is not gast.Param:
                new = _AST_NAME.__new__(_AST_NAME)
                d = new.__dict__
                d["id"], d["ctx"] = nd["id"], _AST_CTX[ctx_type]
                if nd.get("lineno") is None:
                    d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = pos
                else:
                    for a in _POSITIONS:
                        if a in nd:
                            d[a] = nd[a]
                return new
            new = _name_to_ast(node)
            _fill(new, pos)
            return new
        if tp is gast.ExceptHandler:
            new = _handler_to_ast(node)
            _fill(new, pos)
            return new
        ctx = _AST_CTX.get(tp)
        return node if ctx is None else ctx
    cls, fields, attrs, located, missing = entry
    nd = node.__dict__
    new = cls.__new__(cls)
    d = new.__dict__
    if located:
        lineno = nd.get("lineno")
        if lineno is None:
            nd["lineno"], nd["col_offset"], nd["end_lineno"], nd["end_col_offset"] = pos
        else:
            pos = (lineno, nd.get("col_offset") or 0, nd.get("end_lineno") or lineno,
                   nd.get("end_col_offset") or 0)
        d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = pos
    elif attrs:
        for a in attrs:
            if a in nd:
                d[a] = nd[a]
    gast_ast = _GAST_AST
    for f in fields:
        value = nd.get(f)
        if value.__class__ is list:
            if value:
                value = [_located(v, pos) if isinstance(v, gast_ast) else v for v in value]
            else:
                value = []
        elif isinstance(value, gast_ast):
            value = _located(value, pos)
        d[f] = value
    if missing:
        for f, default in missing:
            d[f] = [] if default is not None else None
    return new


def _fill(node: ast.AST, pos: tuple) -> None:
    d = node.__dict__
    if type(node) in _LOCATED:
        if d.get("lineno") is None:
            d["lineno"], d["col_offset"], d["end_lineno"], d["end_col_offset"] = pos
        else:
            pos = (d["lineno"], d.get("col_offset", 0), d.get("end_lineno") or d["lineno"],
                   d.get("end_col_offset") or 0)
    for child in children_of(node):
        _fill(child, pos)


to_ast: Callable[[gast.AST], ast.AST] = _converter(_TO_AST, {
    gast.Name: _name_to_ast, gast.ExceptHandler: _handler_to_ast,
    gast.Load: lambda n: _AST_CTX[gast.Load], gast.Store: lambda n: _AST_CTX[gast.Store],
    gast.Del: lambda n: _AST_CTX[gast.Del],
})
