"""Templates, naming, positions, source maps, AST conversion, loading, namespaces."""

from __future__ import annotations

import ast
import glob
import os
import types

import gast
import numpy as np

from autograph.pyct import ast_conversion, loader, naming, origin, parser, templates
from autograph.pyct.namespaces import LiveNamespace, StaticNamespace


def test_templates_replace_names_and_statement_lists():
    body = parser.parse("a = 1\nb = 2").body
    stmts = templates.replace("def name(): body\nresult = ag__.f(x)", name="helper_1",
                              body=body, x=parser.parse_expression("y + 1"), result="r")
    text = parser.unparse(stmts)
    assert text == "def helper_1():\n    a = 1\n    b = 2\nr = ag__.f(y + 1)"
    expr = templates.replace_as_expression("ag__.and_(a, lambda: b)", a="p", b="q")
    assert parser.unparse(expr) == "ag__.and_(p, lambda: q)"


def test_template_placeholders_used_twice_are_copied():
    value = parser.parse_expression("x")
    stmts = templates.replace("l = f(l, v, v)", l="xs", v=value)
    call = stmts[0].value
    assert call.args[1] is not call.args[2]
    assert isinstance(stmts[0].targets[0].ctx, gast.Store)


def test_namer():
    namer = naming.Namer(["if_body_1", "itr"])
    n = namer.next_number()
    assert namer.numbered("if_body", n) == "if_body_1_2"
    assert namer.unique("itr") == "itr_2" and namer.unique("itr") == "itr_3"


def test_copy_location_gives_generated_nodes_one_line():
    fn = parser.parse("while i < n:\n    i += 1\n").body[0]
    new = templates.replace("ag__.while_stmt(lambda: t, body)", t=fn.test, body="loop_body_1")
    origin.copy_location(new, fn)
    call = new[0].value
    assert (call.lineno, call.end_lineno) == (1, 1)
    assert call.args[0].body is fn.test           # user nodes keep their own positions


def test_ast_conversion_matches_gast_on_real_code():
    files = sorted(glob.glob(os.path.join(os.path.dirname(ast.__file__), "*.py")))[:25]
    for path in files:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        assert gast.dump(ast_conversion.to_gast(tree)) == gast.dump(gast.ast_to_gast(tree)), path
        g = gast.ast_to_gast(tree)
        assert ast.dump(ast_conversion.to_ast(g), include_attributes=True) == ast.dump(
            gast.gast_to_ast(g), include_attributes=True), path


def test_loader_shares_closure_cells_and_globals():
    def make():
        count = 10

        def bump(k):
            nonlocal count
            count += k
            return count
        return bump

    original = make()
    node, info = parser.parse_entity(original)
    code = loader.compile_function(node, info.filename, ("ag__",) + original.__code__.co_freevars)
    assert loader.is_generated(code)
    fn = loader.make_function(code, original, original.__globals__, {"ag__": None})
    assert fn(1) == 11 and original(1) == 12 and fn(0) == 12
    assert fn.__name__ == "bump" and isinstance(fn, types.FunctionType)


def test_source_map_pairs_statements():
    fn = parser.parse("def f(x):\n    y = x\n    return y\n").body[0]
    source = "def f(x):\n    y = x\n    return y"
    smap = origin.SourceMap.build(fn, source, "f.py")
    assert smap[2] == origin.Location("f.py", 2) and str(smap[3]) == "f.py:3"


def test_live_namespace():
    ns = LiveNamespace({"np": np, "helper": test_live_namespace})
    assert ns.resolve(["np", "linalg", "inv"]).module.startswith("numpy")
    assert ns.resolve(["len"]).value is len
    assert ns.resolve(["helper"]).value is test_live_namespace
    assert ns.resolve(["missing"]) is None


def test_static_namespace():
    module = parser.parse("import numpy as np\nfrom runtime import cast\nimport os.path\n"
                          "def mine(): pass\nlen = 3\n")
    ns = StaticNamespace(module)
    assert ns.resolve(["np", "sum"]).module == "numpy"
    assert ns.resolve(["cast"]).module == "runtime.cast"
    assert ns.resolve(["os", "path", "join"]).module == "os.path"
    assert ns.resolve(["mine"]).user_function
    assert ns.resolve(["len"]) is None        # shadowed by the module
    assert ns.resolve(["print"]).value is print


def test_annotation_keys_are_named_constants():
    """Every annotation key autograph uses is an `anno.Key` constant, never a bare string."""
    from autograph.pyct import anno
    root = os.path.join(os.path.dirname(anno.__file__), os.pardir)
    keys = {v for k, v in vars(anno.Key).items() if k.isupper()}
    assert len(keys) == len([k for k in vars(anno.Key) if k.isupper()])   # no two share a value
    for path in glob.glob(os.path.join(root, "**", "*.py"), recursive=True):
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("getanno", "setanno", "hasanno") and len(node.args) > 1):
                key = node.args[1]
                assert (isinstance(key, ast.Attribute) and isinstance(key.value, ast.Attribute)
                        and key.value.attr == "Key" and key.attr in vars(anno.Key)), \
                    f"{path}:{node.lineno}: annotation key not an anno.Key constant"
