"""A user's program type-checks with `mypy --strict`: tests/typing_examples/clean_program.py has
no error, and each mistake in tests/typing_examples/misuses.py is reported on its line.

mypy runs from a temporary directory (as on a user's machine, outside this repository) and
finds the package on MYPYPATH; runtime/ and autograph/ are followed silently, as mypy treats
an installed package. The typed surface of `rt` (runtime/_api) must match what
docs/make_typing_surface.py writes."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import types

import pytest

import runtime
from runtime.exports import NAMESPACES

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "tests" / "typing_examples"

needs_mypy = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (pip install -e .[test])")
LINE = re.compile(r"^(?P<file>[\w.]+):(?P<line>\d+): (?P<kind>error|note): (?P<text>.*?)"
                  r"(?:  \[(?P<code>[\w-]+)\])?$")


@pytest.fixture(scope="module")
def mypy_output() -> dict[str, list[tuple[int, str, str, str]]]:
    """{example file: [(line, kind, code, text)]} of one `mypy --strict` run on the examples."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="user-typing-"))
    try:
        for name in ("clean_program.py", "misuses.py"):
            shutil.copy(EXAMPLES / name, work / name)
        (work / "mypy.ini").write_text("[mypy]\n\n[mypy-runtime.*,autograph.*]\n"
                                       "follow_imports = silent\n")
        cache = pathlib.Path(tempfile.gettempdir()) / "autograph-rt-user-mypy-cache"
        env = dict(os.environ, MYPYPATH=str(ROOT))
        result = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--config-file", "mypy.ini", "--cache-dir",
             str(cache), "--no-error-summary", "--hide-error-context", "clean_program.py",
             "misuses.py"],
            capture_output=True, text=True, cwd=work, env=env, timeout=300)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    found: dict[str, list[tuple[int, str, str, str]]] = {}
    for raw in result.stdout.splitlines():
        match = LINE.match(raw)
        assert match, f"unexpected mypy output line: {raw!r}\n{result.stdout}"
        found.setdefault(match["file"], []).append(
            (int(match["line"]), match["kind"], match["code"] or "", match["text"]))
    return found


def test_the_typed_surface_is_current() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_typing_surface
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert make_typing_surface.stale() == [], (
        "runtime/_api is stale: run `python docs/make_typing_surface.py`")


def test_every_public_name_of_rt_is_declared() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_typing_surface
    finally:
        sys.path.remove(str(ROOT / "docs"))
    from runtime.exports import NAMESPACES
    surface = (ROOT / "runtime" / "_api" / "__init__.pyi").read_text()
    names = set(NAMESPACES[""]) | set(make_typing_surface.lazy_names()) | {
        "math", "nn", "linalg", "random", "function", "float32", "Tensor", "Variable"}
    undeclared = [name for name in sorted(names) if not re.search(
        rf"^(?:def {name}\(|{name} = |from \S+ import \S+ as {name}$)", surface, re.M)]
    assert undeclared == []


@needs_mypy
def test_a_typed_user_program_is_clean_under_strict(mypy_output) -> None:
    assert [e for e in mypy_output.get("clean_program.py", []) if e[1] == "error"] == []


@needs_mypy
def test_misuses_are_reported_on_their_lines(mypy_output) -> None:
    expected = set()
    for number, text in enumerate((EXAMPLES / "misuses.py").read_text().splitlines(), 1):
        marker = re.search(r"# error: ([\w-]+)$", text)
        if marker:
            expected.add((number, marker[1]))
    reported = mypy_output.get("misuses.py", [])
    assert {(line, code) for line, kind, code, _ in reported if kind == "error"} == expected
    # f("a", "b") on f(x: Tensor, y: Tensor): both arguments, named by the checker
    line = min(n for n, code in expected if code == "arg-type")
    texts = [text for n, kind, _, text in reported if n == line and kind == "error"]
    assert len(texts) == 2 and all('"str"; expected "Tensor"' in t for t in texts)


@needs_mypy
def test_reveal_type_keeps_the_parameters(mypy_output) -> None:
    notes = [text for _, kind, _, text in mypy_output["misuses.py"] if kind == "note"]
    assert any("Function[[x: runtime.tensor.Tensor, y: runtime.tensor.Tensor], "
               "runtime.tensor.Tensor]" in note for note in notes), notes


def test_the_clean_program_runs() -> None:
    result = subprocess.run([sys.executable, str(EXAMPLES / "clean_program.py")],
                            capture_output=True, text=True, cwd=ROOT, timeout=300,
                            env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr


def _surface_tool():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_typing_surface
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return make_typing_surface


# results that are honestly Any: what the user's branches, loop body or mapped function return
HONEST_ANY = {"case", "cond", "switch_case", "while_loop", "map_fn", "scan", "foldl", "foldr",
              "vectorized_map", "py_function", "numpy_function", "custom_gradient"}


def test_the_honest_any_results_are_the_generators_list() -> None:
    assert _surface_tool().ANY_RESULT == HONEST_ANY


def test_no_declaration_in_the_stubs_returns_any() -> None:
    found = []
    for path in sorted((ROOT / "runtime" / "_api").glob("*.pyi")):
        for match in re.finditer(r"^def (\w+)\(.*\) -> (.+):$", path.read_text(), re.M):
            if re.search(r"\bAny\b", match[2]) and match[1] not in HONEST_ANY:
                found.append(f"{path.name}: {match[1]} -> {match[2]}")
    assert found == [], "declared `-> Any` (annotate the function's definition): " + str(found)


def test_every_public_function_states_its_result_type() -> None:
    """Declared in the stubs or annotated where it is defined; `Any` and a bare `list` or
    `tuple` only for HONEST_ANY."""
    tool = _surface_tool()
    declared = {}
    for path in (ROOT / "runtime" / "_api").glob("*.pyi"):
        for match in re.finditer(r"^def (\w+)\(.*\) -> (.+):$", path.read_text(), re.M):
            declared[(path.stem, match[1])] = match[2]
    spaces = dict(NAMESPACES)
    top = dict(spaces.get("", {}))
    top.update(tool._init_static_names())
    top.update({name: getattr(runtime, name) for name in tool.lazy_names()})
    spaces[""] = top
    vague = []
    for space, names in sorted(spaces.items()):
        for attr, obj in sorted(names.items()):
            if not isinstance(obj, types.FunctionType):
                continue
            result = declared.get((space.replace(".", "_") or "__init__", attr))
            if result is None:
                result = obj.__annotations__.get("return", "<none>")
            result = result if isinstance(result, str) else getattr(result, "__name__", "?")
            imprecise = result in ("<none>", "list", "tuple") or re.search(r"\bAny\b", result)
            if imprecise and attr not in HONEST_ANY:
                vague.append(f"rt.{space + '.' if space else ''}{attr} -> {result}")
    assert vague == []


@needs_mypy
def test_a_list_result_returned_as_a_tensor_is_reported(mypy_output) -> None:
    texts = [text for _, kind, code, text in mypy_output["misuses.py"] if code == "return-value"]
    assert texts == ['Incompatible return value type (got "list[Tensor]", expected "Tensor")']
