"""Our graphs as TensorBoard's GraphDef protobuf (the one the graph dashboard reads).

Each operation becomes a NodeDef with its op type, inputs and attributes (dtypes as
`DataType`, shapes as `TensorShapeProto`, the rest as their text); the bodies of cond and
while ops are inlined under the op's name scope (`while/body/...`) so the dashboard shows
them as groups.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..graph_def import GraphDef
from ._state import importlib_module

_DTYPES = {"float16": 19, "bfloat16": 14, "float32": 1, "float64": 2, "int8": 6, "int16": 5,
           "int32": 3, "int64": 9, "uint8": 4, "uint16": 17, "uint32": 22, "uint64": 23,
           "bool": 10, "string": 7, "complex64": 8, "complex128": 18, "resource": 20,
           "variant": 21}


def _shape(pb, dims: Any) -> Any:
    shape = pb.TensorShapeProto()
    if dims is None:
        shape.unknown_rank = True
    else:
        for d in dims:
            shape.dim.add(size=-1 if d is None else int(d))
    return shape


def _attr(key: str, value: Any, modules: dict) -> Any:
    attr_pb, shape_pb = modules["attr"], modules["shape"]
    if key in ("dtype", "T") and isinstance(value, str) and value in _DTYPES:
        return attr_pb.AttrValue(type=_DTYPES[value])
    if key == "shape" and (value is None or isinstance(value, (list, tuple))):
        return attr_pb.AttrValue(shape=_shape(shape_pb, value))
    if key == "_output_shapes" and isinstance(value, (list, tuple)):
        shapes = attr_pb.AttrValue.ListValue(shape=[_shape(shape_pb, s) for s in value])
        return attr_pb.AttrValue(list=shapes)
    if isinstance(value, bool):
        return attr_pb.AttrValue(b=value)
    if isinstance(value, int):
        return attr_pb.AttrValue(i=value)
    if isinstance(value, float):
        return attr_pb.AttrValue(f=value)
    text = value if isinstance(value, str) else repr(value)
    if len(text) > 200:
        text = text[:197] + "..."
    return attr_pb.AttrValue(s=text.encode("utf-8", "replace"))


def _graph_def_of(data: Any) -> Any:
    """Our `GraphDef` (runtime/graph_def.py) of a ConcreteFunction, Graph or GraphDef."""
    if isinstance(data, GraphDef):
        return data
    graph = getattr(data, "graph", None)
    if graph is not None and hasattr(graph, "as_graph_def"):
        return graph.as_graph_def()
    if hasattr(data, "as_graph_def"):
        return data.as_graph_def()
    if hasattr(data, "get_concrete_function"):
        raise TypeError("rt.summary.graph needs one graph: pass f.get_concrete_function(...) "
                        "of the rt.function.")
    raise TypeError(f"rt.summary.graph: expected a ConcreteFunction, Graph or GraphDef, got "
                    f"{type(data).__name__}.")


def _add_nodes(out: Any, ours: Any, prefix: str, modules: dict) -> None:
    def scoped(name: str) -> str:
        return prefix + name

    for node in ours.node:
        proto = out.node.add(name=scoped(node.name), op=node.op, device=node.device or "")
        for source in node.input:
            if isinstance(source, str) and not source.startswith("<"):
                proto.input.append(scoped(source))
        for key, value in node.attr.items():
            proto.attr[key].CopyFrom(_attr(key, value, modules))
    for name, body in ours.library.items():
        _add_nodes(out, body, scoped(name) + "/", modules)


def to_graph_def(data: Any, scopes: Sequence[str] | None = None) -> Any:
    """The TensorBoard GraphDef protobuf of `data`: a ConcreteFunction, Graph, our GraphDef,
    a GraphDef protobuf (returned as is), or with `scopes` a list of them, each put under
    its scope name."""
    if hasattr(data, "SerializeToString"):
        return data
    modules = {"graph": importlib_module("tensorboardX.proto.graph_pb2"),
               "attr": importlib_module("tensorboardX.proto.attr_value_pb2"),
               "shape": importlib_module("tensorboardX.proto.tensor_shape_pb2"),
               "versions": importlib_module("tensorboardX.proto.versions_pb2")}
    out = modules["graph"].GraphDef(versions=modules["versions"].VersionDef(producer=22))
    if scopes is None:
        _add_nodes(out, _graph_def_of(data), "", modules)
    else:
        for scope, item in zip(scopes, data):
            _add_nodes(out, _graph_def_of(item), f"{scope}/", modules)
    return out
