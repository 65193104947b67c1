"""Mutation fuzzing of saved files: a hostile or damaged file gives a clear ValueError, never
another exception, and nothing in it is ever executed.

RT_FUZZ_MUTATIONS sets the number of mutated files (default 600; the CI run stays under 10 s).
"""

import collections
import copy
import io
import json
import os
import random
import sys
import traceback
import zipfile

import numpy as np
import pytest

import runtime as rt

N_MUTATIONS = int(os.environ.get("RT_FUZZ_MUTATIONS", "600"))
SENTINEL = "rt_fuzz_sentinel_executed"
CODE = f"__import__('os').system('touch {SENTINEL}')"
_EVENTS = frozenset({"os.system", "subprocess.Popen", "pickle.find_class", "os.exec", "os.spawn",
                     "os.posix_spawn"})
_audit = {"on": False, "seen": []}


def _hook(event, args):
    if _audit["on"] and event in _EVENTS:
        _audit["seen"].append(event)


sys.addaudithook(_hook)


@rt.function(input_signature=[rt.TensorSpec([None, 3]), rt.TensorSpec([], rt.int32)])
def program(x, n):
    y = rt.reduce_sum(x * 2.0, axis=1)
    if rt.reduce_sum(y) > 0:
        y = y + 1.0
    i = rt.constant(0)
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    while i < n:
        y = y * 1.5 + rt.reduce_mean(x[:, 1:])
        ta = ta.write(i, rt.reduce_sum(y))
        i += 1
    rt.debugging.assert_positive(rt.cast(n, rt.float32) + 1.0)
    return y, ta.stack(), rt.transpose(rt.matmul(x, x, transpose_b=True))


def _model():
    model = rt.Model()
    model.dense = rt.layers.Dense(4, activation="relu")
    model.out = rt.layers.Dense(2)
    call = rt.function(lambda x: model.out(model.dense(x)), input_signature=[rt.TensorSpec([None, 3])])
    call(np.zeros((1, 3), np.float32))
    return rt.saved_model.dumps(model, signatures=call)


BASES = [rt.saved_model.dumps(program), _model()]


def _parts(data):
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return json.loads(z.read("saved_model.json")), z.read("variables.npz")


def _pack(doc_bytes, npz_bytes, extra=()):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("saved_model.json", doc_bytes)
        z.writestr("variables.npz", npz_bytes)
        for name, data in extra:
            z.writestr(name, data)
    return buffer.getvalue()


def _npz(arrays, raw=()):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for key, value in arrays.items():
            member = io.BytesIO()
            np.save(member, value, allow_pickle=True)
            z.writestr(f"{key}.npy", member.getvalue())
        for name, data in raw:
            z.writestr(name, data)
    return buffer.getvalue()


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


def _get(node, path):
    for p in path:
        node = node[p]
    return node


def _ops(doc):
    found = []

    def walk(graph):
        for op in graph["ops"]:
            found.append(op)
            for sub in op["subgraphs"]:
                walk(sub)
    for f in doc["functions"]:
        walk(f["graph"])
    return found


HOSTILE_VALUES = [
    None, True, -1, 0, 7, 2 ** 40, -2 ** 63, 1.5, "", CODE, "../../etc/passwd", "/etc/passwd",
    "v0", "c0", [], {}, [2 ** 31, 2 ** 31], {"array": "../../etc/passwd"}, {"array": "v999"},
    {"variable": 99}, {"variable": -1}, {"slot": 9}, {"float": "nan"}, {"float": CODE},
    {"dtype": "object"}, {"np_dtype": "O"}, {"shape": [2 ** 31, 2 ** 31]}, {"tuple": [CODE]},
    {"__reduce__": CODE}, {"eval": CODE}, {"spec": [{"shape": [3]}, "float32", CODE]},
    {"output": 10 ** 6}, {"tuple": [{"tuple": [{"tuple": [[[[[]]]]]}]}]},
    {"a": 1, "b": 2}, [[[[[[[[[[1]]]]]]]]]],
]


def _mutate(rng, doc, npz):
    """One mutated file (bytes) and the name of the mutation."""
    kind = rng.choice(["truncate", "bitflip", "value", "delete", "op_type", "attr", "cycle",
                       "shape", "npz", "names", "nesting"])
    raw = json.dumps(doc).encode()
    if kind == "truncate":
        which = rng.random() < 0.5
        data = raw if which else npz
        cut = data[:rng.randrange(len(data))]
        return _pack(cut, npz) if which else _pack(raw, cut), kind
    if kind == "bitflip":
        which = rng.random() < 0.5
        data = bytearray(raw if which else npz)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        return (_pack(bytes(data), npz) if which else _pack(raw, bytes(data))), kind
    doc = copy.deepcopy(doc)
    ops = _ops(doc)
    if kind == "value":
        path = rng.choice([p for p in _paths(doc) if p])
        _get(doc, path[:-1])[path[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    elif kind == "delete":
        path = rng.choice([p for p in _paths(doc) if p and isinstance(_get(doc, p[:-1]), dict)])
        del _get(doc, path[:-1])[path[-1]]
    elif kind == "op_type":
        rng.choice(ops)["type"] = rng.choice(["Exec", "Eval", "PyFunc", "../Const", "Placeholder",
                                              "CustomGradient", "PartitionedCall",
                                              rng.choice(sorted(rt.opdef.builtin_ops()))])
    elif kind == "attr":
        op = rng.choice([o for o in ops if o["attrs"]] or ops)
        name = rng.choice(sorted(op["attrs"]) + ["extra"])
        op["attrs"][name] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    elif kind == "cycle":
        op = rng.choice([o for o in ops if o["inputs"]])
        op["inputs"][rng.randrange(len(op["inputs"]))] = rng.choice([10 ** 6, -1, 10 ** 4, 40, 41])
    elif kind == "shape":
        target = rng.choice(ops + doc["variables"] + doc["functions"][0]["graph"]["inputs"])
        if "shape" in target:
            target["shape"] = rng.choice([[2 ** 31] * 2, [-5], [2 ** 62], None, "x"])
        else:
            target["outputs"] = [[[2 ** 40], "float32"]]
    elif kind == "npz":
        arrays = dict(np.load(io.BytesIO(npz), allow_pickle=False))
        key = rng.choice(sorted(arrays))
        choice = rng.randrange(5)
        if choice == 0:
            arrays[key] = np.array([{"code": CODE}], dtype=object)
        elif choice == 1:
            del arrays[key]
        elif choice == 2:
            arrays[key] = np.zeros(3, np.float64)
        elif choice == 3:
            header = (b"\x93NUMPY\x01\x00v\x00" + b"{'descr': '<f4', 'fortran_order': False, "
                      b"'shape': (4294967296, 4294967296), }".ljust(116) + b"\n")
            return _pack(raw, _npz({k: v for k, v in arrays.items() if k != key},
                                   [(f"{key}.npy", header)])), kind
        else:
            return _pack(raw, _npz(arrays, [("../../evil.npy", b"x")])), kind
        return _pack(raw, _npz(arrays)), kind
    elif kind == "names":
        target = rng.choice(ops + doc["variables"])
        field = "key" if "key" in target else "name"
        target[field] = rng.choice(["../../etc/passwd", "/abs", "a/../../b", "", "x" * 300, CODE,
                                    "v0", "c99", 5])
    else:
        f = doc["functions"][0]
        f["outputs"] = {"tuple": [f["outputs"]] * 3}
        for _ in range(40):
            f["outputs"] = {"tuple": [f["outputs"]]}
    return _pack(json.dumps(doc).encode(), npz), kind


def test_mutated_files_give_clear_errors_and_run_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(1234)
    outcomes = collections.Counter()
    others = []
    _audit["on"] = True
    try:
        for i in range(N_MUTATIONS):
            data = BASES[i % len(BASES)]
            doc, npz = _parts(data)
            mutated, kind = _mutate(rng, doc, npz)
            try:
                loaded = rt.saved_model.loads(mutated)
            except ValueError as exc:
                assert str(exc), kind
                outcomes["clear ValueError"] += 1
                continue
            except Exception as exc:  # noqa: BLE001 - counted and reported below
                others.append((kind, f"{type(exc).__name__}: {exc}", traceback.format_exc()[-800:]))
                continue
            # a file that passes is a valid program (its constants may differ, and a valid
            # program may loop forever), so it is not run here
            assert loaded.signatures["serving_default"].graph.operations
            outcomes["loaded (a valid file)"] += 1
    finally:
        _audit["on"] = False
    print(f"\nfuzz: {N_MUTATIONS} files, {dict(outcomes)}, other errors: {len(others)}")
    assert not others, others[:5]
    assert not _audit["seen"], _audit["seen"]
    assert not os.path.exists(SENTINEL)
    assert outcomes["clear ValueError"] > N_MUTATIONS // 2


@pytest.mark.parametrize("data", [b"", b"PK\x03\x04junk", b"\x80\x04pickle"])
def test_garbage_bytes_are_refused(data):
    with pytest.raises(ValueError):
        rt.saved_model.loads(data)


def test_a_missing_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="saved_model.json is missing"):
        rt.saved_model.load(str(tmp_path))
