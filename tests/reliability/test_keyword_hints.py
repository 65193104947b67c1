"""A misspelt keyword in a call of any public callable is a TypeError that names it and
suggests the close accepted name, on every Python version (3.13 suggests by itself; 3.10 to
3.12 do not). The oracle is each callable's own signature."""

import inspect
import re
import types

import pytest

import runtime as rt
from runtime import ops as _ops
from runtime.exports import NAMESPACES
from runtime.ops.dispatch import undispatched

_ops.load_all()  # the op families that load on first use: the sweep covers their names too

SUGGESTION = re.compile(r"unexpected keyword argument '(\w+)'.*did you mean '(\w+)'")


def _keywords(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None  # checked by the callable itself; covered by the explicit cases below
    return [p.name for p in params
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "cls")]


def _misspelt(name, names):
    typo = name[:-1] if len(name) > 3 else name + "x"
    return None if typo in names else typo


def _cases():
    """(label, callable, leading args) for the ops and classes of every rt namespace, and the
    public methods of those classes (called unbound: the binding fails before the body)."""
    seen = set()
    for space, names in sorted(NAMESPACES.items()):
        for attr, obj in sorted(names.items()):
            label = f"rt.{space + '.' if space else ''}{attr}"
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, type):
                if issubclass(obj, BaseException) or type(obj) is not type:
                    continue
                yield label, obj, ()
                for name, member in vars(obj).items():
                    if not name.startswith("_") and inspect.isfunction(member):
                        yield f"{label}.{name}", member, (None,)
            elif isinstance(obj, types.FunctionType):
                yield label, obj, ()


CASES = [case for case in _cases() if _keywords(case[1])]


def test_the_sweep_covers_the_public_ops():
    # a module that dispatches on an API (rt.experimental.dispatch_for_api) publishes a wrapper
    # in its place after the cases were collected: the wrapper stands for the same API
    covered = {id(undispatched(fn)) for _, fn, _ in CASES}
    assert len(CASES) > 400
    # rt.Variable is made through __new__ (a strategy's scope makes its variables), whose
    # signature is (*args, **kwargs): it is among the explicit cases below
    for fn in (rt.reduce_sum, rt.random.uniform, rt.Variable.assign,
               rt.random.Generator.normal, rt.nn.softmax, rt.gather):
        assert id(undispatched(fn)) in covered, fn


@pytest.mark.parametrize("label, fn, args", CASES, ids=[c[0] for c in CASES])
def test_every_public_op_and_class_suggests_the_keyword(label, fn, args):
    names = _keywords(fn)
    name = names[-1]
    typo = _misspelt(name, names)
    if typo is None:
        pytest.skip(f"{name!r} has no misspelling outside the signature")
    with pytest.raises(TypeError) as info:
        fn(*args, **{typo: 1})
    found = SUGGESTION.search(str(info.value))
    assert found, f"{label}: {info.value}"
    assert found.group(1) == typo and found.group(2) in names


def _explicit():
    def dense():
        return rt.keras.layers.Dense(3, kernel_regularizr="l2")

    def dataset_shuffle():
        return rt.data.Dataset.range(3).shuffle(3, sed=1)

    def dataset_batch():
        return rt.data.Dataset.range(3).batch(2, drop_remaindr=True)

    def generator_normal():
        return rt.random.Generator.from_seed(1).normal((2,), meen=0.0)

    def early_stopping():
        return rt.keras.callbacks.EarlyStopping(patiense=2)

    def model_checkpoint():
        return rt.keras.callbacks.ModelCheckpoint("m.keras", save_best_onl=True)

    def adam():
        return rt.keras.optimizers.Adam(learning_rte=0.1)

    def checkpoint_manager():
        ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))
        return rt.train.CheckpointManager(ckpt, "ckpts", max_to_kep=2)

    def variable():
        return rt.Variable(1.0, trainabel=False)

    def fit():
        model = rt.keras.Sequential([rt.keras.layers.Dense(1)])
        model.compile("sgd", "mse")
        return model.fit([[1.0]], [[1.0]], epoch=1, verbose=0)

    return [("Dense", dense, "kernel_regularizer"), ("Dataset.shuffle", dataset_shuffle, "seed"),
            ("Dataset.batch", dataset_batch, "drop_remainder"),
            ("Generator.normal", generator_normal, "mean"),
            ("EarlyStopping", early_stopping, "patience"),
            ("ModelCheckpoint", model_checkpoint, "save_best_only"),
            ("Adam", adam, "learning_rate"), ("CheckpointManager", checkpoint_manager, "max_to_keep"),
            ("Variable", variable, "trainable"), ("Model.fit", fit, "epochs")]


@pytest.mark.parametrize("label, call, expected", _explicit(), ids=[c[0] for c in _explicit()])
def test_the_most_used_calls_suggest_the_keyword(tmp_path, monkeypatch, label, call, expected):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match=rf"did you mean '{expected}'"):
        call()
