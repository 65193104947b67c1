"""Splitting a large kernel into parts, so that its compile time and memory stay bounded.

Numba's type inference and LLVM's passes over one function grow faster than its length: an
unrolled recurrent network's train step (thousands of lines) did not compile in minutes and
took gigabytes. A kernel whose body is larger than `SPLIT_MIN` AST nodes is cut between its
top-level statements into parts; each part is an `@njit` function of the names it reads that
earlier statements set, returning the names later statements read, and the kernel calls the
parts in order. Each part is written with canonical names (parameters `p0, p1, ...`, locals
`l0, l1, ...`, the index of a NumPy kernel `_OPS[i]` a parameter too), so parts that repeat
(the steps of an unrolled RNN, forward and backward) are one function, compiled once. Cuts are
placed where the statements start to repeat: the shortest run of at least `PART_MIN` nodes
that the next statements repeat is one part.
"""

from __future__ import annotations

import ast
import re

SPLIT_MIN = 6000  # AST nodes of a kernel body from which it is split
PART_MIN = 400  # nodes of a part, at least (unless the body ends first)
PART_MAX = 3000  # nodes of a part without repeats, at most
_OBJMODE = "with numba.objmode("


def split(source: str) -> str | None:
    """The kernel `source` as parts and a kernel that calls them; None when it is small.

    Each part and the kernel get the kernel's `@numba.njit` options, with `nogil` and
    `parallel` as their own code needs."""
    kernel = _kernel(source)
    *body, ret = kernel.body
    info = [_names(stmt) for stmt in body]  # (size, loads, stores) of each statement
    if sum(size for size, _, _ in info) < SPLIT_MIN:
        return None
    params = [a.arg for a in kernel.args.args]
    local = set(params).union(*(stores for _, _, stores in info))
    lines = source.splitlines()
    shapes = [_shape(lines[stmt.lineno - 1:stmt.end_lineno]) for stmt in body]
    chunks = _chunks(shapes, [size for size, _, _ in info])
    later_reads = _later_reads(info, ret, chunks)
    defined = set(params)
    parts: dict[str, str] = {}  # canonical source -> part name
    calls, any_objmode = [], False
    for (start, stop), later in zip(chunks, later_reads):
        reads = [n for n in _ordered(n for _, loads, _ in info[start:stop] for n in loads)
                 if n in defined]
        stored = _ordered(n for _, _, stores in info[start:stop] for n in sorted(stores))
        outputs = [n for n in stored if n in later]
        text, op_indexes = _canonical(body[start:stop], reads, outputs, local)
        objmode = _OBJMODE in text
        any_objmode |= objmode
        name = parts.get(text)
        if name is None:
            name = parts[text] = f"part{len(parts)}"
        # np.int64(3), not 3: a literal argument would compile the part once per value
        args = ", ".join(reads + [f"np.int64({i})" for i in op_indexes])
        call = f"{name}({args})"
        calls.append(f"    {''.join(o + ', ' for o in outputs)}= {call}" if outputs
                     else f"    {call}")
        defined.update(outputs)
    header, rest = source.split("@numba.njit(", 1)
    options = rest.split(")\ndef kernel(", 1)[0]
    options = options.replace(", nogil=True", "").replace(", parallel=True", "")
    lines = [header]
    for text, name in parts.items():
        flags = options + (", parallel=True" if "numba.prange" in text else "")
        flags += "" if _OBJMODE in text else ", nogil=True"
        lines.append(f"@numba.njit({flags})\ndef {name}{text}\n\n")
    flags = options + ("" if any_objmode else ", nogil=True")
    lines.append(f"@numba.njit({flags})\ndef kernel({', '.join(params)}):\n")
    lines += [c + "\n" for c in calls]
    lines.append(f"    {ast.unparse(ret)}\n")
    return "".join(lines)


def _kernel(source: str) -> ast.FunctionDef:
    return next(node for node in ast.parse(source).body
                if isinstance(node, ast.FunctionDef) and node.name == "kernel")


def _names(stmt) -> tuple[int, list[str], set[str]]:
    """A statement's size in AST nodes, the names it loads (in a fixed order) and stores."""
    size, loads, stores = 0, [], set()
    for node in ast.walk(stmt):
        size += 1
        if isinstance(node, ast.Name):
            (loads.append(node.id) if isinstance(node.ctx, ast.Load) else stores.add(node.id))
    return size, loads, stores


def _ordered(names) -> list[str]:
    return list(dict.fromkeys(names))


def _chunks(shapes: list[str], sizes: list[int]) -> list[tuple[int, int]]:
    """[start, stop) runs of statements: a repeating run when one starts here, else up to
    PART_MAX nodes."""
    chunks, start, n = [], 0, len(shapes)
    while start < n:
        stop, total, found = start, 0, None
        while stop < n and total < PART_MAX:
            total += sizes[stop]
            stop += 1
            length = stop - start
            if (total >= PART_MIN and stop + length <= n
                    and shapes[start:stop] == shapes[stop:stop + length]):
                found = stop
                break
        stop = found if found is not None else stop
        if n - stop and sum(sizes[stop:]) < PART_MIN:  # a short tail joins the last part
            stop = n
        chunks.append((start, stop))
        start = stop
    return chunks


def _later_reads(info, ret, chunks) -> list[set[str]]:
    """For each chunk, the names that a later chunk or the return statement reads."""
    later = {n.id for n in ast.walk(ret) if isinstance(n, ast.Name)}
    found = []
    for start, stop in reversed(chunks):
        found.append(set(later))
        for _, loads, _ in info[start:stop]:
            later.update(loads)
    return found[::-1]


class _Rename(ast.NodeTransformer):
    """Renames the kernel's local names canonically, and makes the index of `_OPS[i]` and the
    integer indexes of array subscripts `x[3, :]` parameters (`o0, o1, ...`, their values in
    `values`). With `blank`, every such name and value is `_`: the statement's shape."""

    def __init__(self, names: dict[str, str], local: set[str], blank: bool = False):
        self.names, self.local, self.blank, self.values = names, local, blank, []
        self._count = 0

    def _of(self, name: str) -> str:
        if self.blank:
            return "_"
        if name not in self.names:
            self.names[name] = f"l{self._count}_"
            self._count += 1
        return self.names[name]

    def _value(self, value: int):
        self.values.append(value)
        return ast.Name("_" if self.blank else f"o{len(self.values) - 1}_", ast.Load())

    def visit_Name(self, node):
        if node.id in self.local:
            node.id = self._of(node.id)
        return node

    def visit_keyword(self, node):
        self.generic_visit(node)
        if node.arg in self.local:  # numba.objmode(t3='float32[::1]') names its result
            node.arg = self._of(node.arg)
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        index = node.slice
        if isinstance(node.value, ast.Name) and node.value.id == "_OPS":
            if isinstance(index, ast.Constant):
                node.slice = self._value(index.value)
        elif isinstance(index, ast.Tuple):  # an array's subscript (a tuple's is a plain int)
            index.elts = [self._value(e.value) if _is_int(e) else e for e in index.elts]
        return node


def _is_int(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


_LOCAL = re.compile(r"(?<![\w.'])[a-z]+\d+_?\b|(?<![\w.])\d+\b|#.*$", re.MULTILINE)


def _shape(lines: list[str]) -> str:
    """A statement's source with its local names (`t12`, `f3`: letters and digits), its
    integers and comments blanked: equal for the statements of repeated steps (and, rarely,
    for others too; that only moves a cut)."""
    return _LOCAL.sub("_", "\n".join(lines))


def _canonical(stmts, reads, outputs, local) -> tuple[str, list[int]]:
    """The part's parameter list, body and return, with canonical names; the `_OPS` indexes
    its caller passes."""
    names = {r: f"p{i}_" for i, r in enumerate(reads)}
    renamer = _Rename(names, local)
    body = [renamer.visit(stmt) for stmt in stmts]
    indexes = renamer.values
    params = list(names[r] for r in reads) + [f"o{i}_" for i in range(len(indexes))]
    lines = ast.unparse(ast.Module(body=body, type_ignores=[])).splitlines()
    lines = ["    " + line for line in lines]
    first = next((line for line in lines if line.lstrip().startswith(_OBJMODE)), None)
    if first is not None and not first.startswith("    " + _OBJMODE):
        # Numba sets up its Python API at the first objmode block it lowers (lowering.py)
        lines[:0] = ["    with numba.objmode():", "        pass"]
    returns = "".join(names[o] + ", " for o in outputs)
    return (f"({', '.join(params)}):\n" + "\n".join(lines) + f"\n    return ({returns})",
            indexes)
