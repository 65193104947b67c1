"""fit / evaluate / predict and the callbacks against Keras 3: every expected number below was
printed by TensorFlow 2.21 + Keras 3 running the same program (same data, same initial
weights through set_weights, SGD, shuffle=False), so the histories must agree to ~1e-5."""

import csv
import warnings

import numpy as np
import pytest

import runtime as rt

keras = rt.keras

_RNG = np.random.default_rng(0)
X = _RNG.normal(size=(20, 3)).astype("float32")
YR = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
YC = (X[:, 0] > 0).astype("int32") + (X[:, 1] > 0).astype("int32")
W0 = [_RNG.normal(size=(3, 4)).astype("float32") * 0.5, np.zeros(4, "float32") + 0.1,
      _RNG.normal(size=(4, 3)).astype("float32") * 0.5, np.zeros(3, "float32")]
SW = np.linspace(0.1, 2, 20).astype("float32")

KERAS_HISTORIES = {'split': {'accuracy': [0.2, 0.333333, 0.333333],
           'loss': [8.769266, 5.833364, 5.590596],
           'val_accuracy': [0.4, 0.4, 0.2],
           'val_loss': [4.015561, 3.94193, 6.515904],
           'epochs': [0, 1, 2]},
 'freq': {'acc': [0.25, 0.35, 0.3, 0.4],
          'loss': [7.58084, 5.354352, 5.675201, 1.646533],
          'val_acc': [0.333333, 0.5],
          'val_loss': [3.330169, 1.098612],
          'epochs': [0, 1, 2, 3]},
 'freql': {'acc': [0.25, 0.35, 0.3, 0.4],
           'loss': [7.58084, 5.354352, 5.675201, 1.646533],
           'val_acc': [0.333333, 0.5],
           'val_loss': [3.408376, 1.098612],
           'epochs': [0, 1, 2, 3]},
 'class_weight': {'accuracy': [0.25, 0.35],
                  'loss': [6.016181, 3.025328],
                  'epochs': [0, 1]},
 'sample_weight': {'loss': [3.426037, 1.835462],
                   'mae': [1.212587, 0.881619],
                   'epochs': [0, 1]},
 'sample_weight_ds': {'loss': [3.426037, 1.835462],
                      'mae': [1.212587, 0.881619],
                      'epochs': [0, 1]},
 'steps_repeat': {'loss': [1.316498, 4.457035, 0.859709], 'epochs': [0, 1, 2]},
 'steps_finite': {'loss': [1.865523, 2.969785, 2.818829], 'epochs': [0, 1, 2]},
 'steps_arrays': {'loss': [1.328097, 4.252577], 'epochs': [0, 1]},
 'initial_epoch': {'loss': [2.636356, 2.071896], 'epochs': [1, 2]},
 'generator': {'loss': [2.630868], 'epochs': [0]},
 'generator_inf': {'loss': [3.387109, 4.290752, 2.965307], 'epochs': [0, 1, 2]}}

KERAS_ON_BATCH = [[11.82466, 0.125],
 {'accuracy': 0.33333, 'loss': 5.96713},
 [6.00731, 0.3],
 [[0.20058999955654144, 0.31404998898506165, -0.3967300057411194],
  [0.0413299985229969, -0.022140000015497208, -0.31264999508857727]],
 [6.53471, 0.25]]

KERAS_REDUCE_LR = {"{'patience': 1}": [0.05,
                     0.05,
                     0.05,
                     0.005,
                     0.0005,
                     5e-05,
                     5e-06,
                     5e-06,
                     5e-07,
                     5e-08,
                     5e-09,
                     5e-10],
 "{'patience': 1, 'cooldown': 2}": [0.05,
                                    0.05,
                                    0.05,
                                    0.005,
                                    0.005,
                                    0.0005,
                                    0.0005,
                                    0.0005,
                                    5e-05,
                                    5e-05,
                                    5e-06,
                                    5e-06],
 "{'patience': 2, 'factor': 0.5, 'min_lr': 0.02}": [0.05,
                                                    0.05,
                                                    0.05,
                                                    0.05,
                                                    0.025,
                                                    0.025,
                                                    0.02,
                                                    0.02,
                                                    0.02,
                                                    0.02,
                                                    0.02,
                                                    0.02],
 "{'patience': 1, 'min_delta': 0.06}": [0.05,
                                        0.05,
                                        0.05,
                                        0.005,
                                        0.0005,
                                        5e-05,
                                        5e-06,
                                        5e-06,
                                        5e-07,
                                        5e-08,
                                        5e-09,
                                        5e-10],
 "{'patience': 1, 'mode': 'max'}": [0.05,
                                    0.05,
                                    0.005,
                                    0.0005,
                                    5e-05,
                                    5e-06,
                                    5e-07,
                                    5e-08,
                                    5e-09,
                                    5e-10,
                                    5e-11,
                                    5e-12]}

KERAS_EARLY_STOPPING = [  # sequence, settings, epochs run, stopped_epoch, best_epoch, kernel
    ('a', {'patience': 0}, 3, 2, 1, 0.804366),
    ('a', {'patience': 1}, 3, 2, 1, 0.804366),
    ('a', {'patience': 2}, 4, 3, 1, 0.857794),
    ('a', {'patience': 2, 'min_delta': 0.02}, 4, 3, 1, 0.857794),
    ('a', {'patience': 1, 'baseline': 0.85}, 3, 2, 1, 0.804366),
    ('a', {'patience': 2, 'start_from_epoch': 3}, 7, 6, 4, 0.975286),
    ('a', {'patience': 1, 'restore_best_weights': True}, 3, 2, 1, 0.735486),
    ('a', {'patience': 3, 'baseline': 0.5}, 3, 2, 1, 0.804366),
    ('b', {'patience': 0}, 6, 5, 4, 0.940452),
    ('b', {'patience': 1}, 6, 5, 4, 0.940452),
    ('b', {'patience': 2}, 7, 6, 4, 0.975286),
    ('b', {'patience': 2, 'min_delta': 0.02}, 4, 3, 1, 0.857794),
    ('b', {'patience': 1, 'baseline': 0.85}, 6, 5, 4, 0.940452),
    ('b', {'patience': 2, 'start_from_epoch': 3}, 7, 6, 4, 0.975286),
    ('b', {'patience': 1, 'restore_best_weights': True}, 6, 5, 4, 0.901971),
    ('b', {'patience': 3, 'baseline': 0.5}, 6, 5, 4, 0.940452),
]


def _model(out=3, activation=None):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(out, activation=activation)])
    model.set_weights(W0 if out == 3 else [W0[0], W0[1], W0[2][:, :out], W0[3][:out]])
    return model


def _classifier(metric="accuracy"):
    model = _model()
    model.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy",
                  metrics=[metric])
    return model


def _regressor(metrics=()):
    model = _model(1)
    model.compile(keras.optimizers.SGD(0.05), "mse", metrics=list(metrics))
    return model


def _batches():
    for i in range(0, 20, 5):
        yield X[i:i + 5], YR[i:i + 5]


def _weighted_batches_forever():
    while True:
        for i in range(0, 20, 5):
            yield X[i:i + 5], YR[i:i + 5], np.ones(5, "float32") * (1 + i / 10)


FITS = {
    "split": lambda: _classifier().fit(X, YC, epochs=3, batch_size=5, validation_split=0.25,
                                       shuffle=False, verbose=0),
    "freq": lambda: _classifier("acc").fit(X, YC, epochs=4, batch_size=5,
                                           validation_data=(X[:6], YC[:6]),
                                           validation_freq=2, shuffle=False, verbose=0),
    "freql": lambda: _classifier("acc").fit(X, YC, epochs=4, batch_size=5,
                                            validation_data=(X[:6], YC[:6]),
                                            validation_freq=[1, 4], shuffle=False, verbose=0),
    "class_weight": lambda: _classifier().fit(X, YC, epochs=2, batch_size=5, shuffle=False,
                                              class_weight={0: 1.0, 1: 2.0, 2: 0.5},
                                              verbose=0),
    "sample_weight": lambda: _regressor(["mae"]).fit(X, YR, epochs=2, batch_size=6,
                                                     sample_weight=SW, shuffle=False,
                                                     verbose=0),
    "sample_weight_ds": lambda: _regressor(["mae"]).fit(
        rt.data.Dataset.from_tensor_slices((X, YR, SW)).batch(6), epochs=2, verbose=0),
    "steps_repeat": lambda: _regressor().fit(
        rt.data.Dataset.from_tensor_slices((X, YR)).batch(6).repeat(), epochs=3,
        steps_per_epoch=2, verbose=0),
    "steps_finite": lambda: _regressor().fit(
        rt.data.Dataset.from_tensor_slices((X, YR)).batch(4), epochs=3, steps_per_epoch=2,
        verbose=0),
    "steps_arrays": lambda: _regressor().fit(X, YR, epochs=2, batch_size=4, steps_per_epoch=3,
                                             shuffle=False, verbose=0),
    "initial_epoch": lambda: _regressor().fit(X, YR, epochs=3, initial_epoch=1, batch_size=8,
                                              shuffle=False, verbose=0),
    "generator": lambda: _regressor().fit(_batches(), epochs=1, verbose=0),
    "generator_inf": lambda: _regressor().fit(_weighted_batches_forever(), epochs=3,
                                              steps_per_epoch=3, verbose=0),
}


@pytest.mark.parametrize("case", sorted(FITS))
def test_fit_history_matches_keras(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # steps_finite and steps_arrays run out, as in Keras
        history = FITS[case]()
    expected = dict(KERAS_HISTORIES[case])
    assert history.epoch == expected.pop("epochs")
    assert sorted(history.history) == sorted(expected)
    for name, values in expected.items():
        np.testing.assert_allclose(history.history[name], values, atol=2e-5, err_msg=name)


def test_steps_per_epoch_over_a_finite_input_warns_when_it_runs_out():
    with pytest.warns(UserWarning, match="ran out of data"):
        FITS["steps_finite"]()


def test_an_infinite_dataset_needs_steps_per_epoch():
    data = rt.data.Dataset.from_tensor_slices((X, YR)).batch(6).repeat()
    with pytest.raises(ValueError, match="steps_per_epoch"):
        _regressor().fit(data, epochs=1, verbose=0)


def test_validation_freq_is_checked():
    with pytest.raises(ValueError, match="validation_freq"):
        _regressor().fit(X, YR, validation_data=(X, YR), validation_freq=0, verbose=0)


def test_train_test_and_predict_on_batch_match_keras():
    model = _classifier()
    first = model.train_on_batch(X[:8], YC[:8])
    second = model.train_on_batch(X[8:], YC[8:], return_dict=True)
    tested = model.test_on_batch(X, YC)
    predicted = model.predict_on_batch(X[:2])
    weighted = model.train_on_batch(X[:8], YC[:8], class_weight={0: 2.0})
    want = KERAS_ON_BATCH
    np.testing.assert_allclose(first, want[0], atol=2e-5)
    assert second.keys() == want[1].keys()
    np.testing.assert_allclose([second[k] for k in want[1]], list(want[1].values()), atol=2e-5)
    np.testing.assert_allclose(tested, want[2], atol=2e-5)
    np.testing.assert_allclose(predicted, want[3], atol=2e-5)
    np.testing.assert_allclose(weighted, want[4], atol=2e-5)


def test_sparse_crossentropy_of_rows_not_summing_to_one_is_keras():
    p = np.array([[0.2, 0.3, -0.4], [0.5, -1.2, 0.1], [0.2, 0.3, 0.5]], "float32")
    # Keras 3 on TensorFlow clips to [1e-7, 1 - 1e-7], then takes -log(p_y / sum(p))
    clipped = np.clip(p, 1e-7, 1 - 1e-7)
    want = -np.log(clipped[[0, 1, 2], [0, 1, 2]] / clipped.sum(-1))
    got = keras.losses.sparse_categorical_crossentropy(np.array([0, 1, 2]), p)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    np.testing.assert_allclose(want, [0.916291, 15.607269, 0.693147], rtol=1e-5)  # Keras's


def test_predict_callbacks_get_keras_hooks_in_order():
    seen = []

    class Hooks(keras.callbacks.Callback):
        def on_predict_begin(self, logs=None):
            seen.append("begin")

        def on_predict_batch_begin(self, batch, logs=None):
            seen.append(f"bb{batch}")

        def on_predict_batch_end(self, batch, logs=None):
            seen.append(f"be{batch}:{sorted(logs)}")

        def on_predict_end(self, logs=None):
            seen.append("end")

    _model(1).predict(X, batch_size=8, callbacks=[Hooks()], verbose=0)
    assert seen == ["begin", "bb0", "be0:['outputs']", "bb1", "be1:['outputs']", "bb2",
                    "be2:['outputs']", "end"]


def test_terminate_on_nan_stops_at_the_bad_batch(capsys):
    y = YR.copy()
    y[9] = np.nan  # in the third batch of 4
    seen = []
    history = _regressor().fit(
        X, y, epochs=3, batch_size=4, shuffle=False, verbose=0,
        callbacks=[keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: seen.append(b)),
                   keras.callbacks.TerminateOnNaN()])
    assert seen == [0, 1, 2] and history.epoch == [0]  # Keras 3's
    assert "Batch 2: Invalid loss, terminating training" in capsys.readouterr().out


def test_terminate_on_nan_can_raise():
    y = YR.copy()
    y[0] = np.nan
    with pytest.raises(RuntimeError, match="batch 0"):
        _regressor().fit(X, y, batch_size=4, shuffle=False, verbose=0,
                         callbacks=[keras.callbacks.TerminateOnNaN(raise_error=True)])


@pytest.mark.parametrize("row", KERAS_EARLY_STOPPING, ids=lambda r: f"{r[0]}-{r[1]}")
def test_early_stopping_stops_at_keras_epoch(row):
    sequences = {"a": [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 1.0, 1.1],
                 "b": [1.0, 0.8, 0.79, 0.78, 0.7, 0.75, 0.76, 0.77, 0.9, 0.9]}
    name, settings, epochs_run, stopped, best, kernel = row
    sequence = sequences[name]
    x = np.arange(8, dtype="float32").reshape(8, 1) / 8
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.set_weights([np.array([[0.5]], "float32"), np.array([0.1], "float32")])
    model.compile(keras.optimizers.SGD(0.1), "mse")

    def inject(epoch, logs):
        logs["val_loss"] = sequence[epoch]
    stopping = keras.callbacks.EarlyStopping(**settings)
    history = model.fit(x, 2 * x, epochs=len(sequence), batch_size=4, verbose=0,
                        shuffle=False,
                        callbacks=[keras.callbacks.LambdaCallback(on_epoch_end=inject), stopping])
    assert (len(history.epoch), stopping.stopped_epoch, stopping.best_epoch) == \
        (epochs_run, stopped, best)
    np.testing.assert_allclose(model.get_weights()[0][0, 0], kernel, atol=1e-5)


@pytest.mark.parametrize("settings", sorted(KERAS_REDUCE_LR))
def test_reduce_lr_on_plateau_matches_keras(settings):
    sequence = [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.8, 0.85, 0.86, 0.87, 0.88, 0.89]

    def inject(epoch, logs):
        logs["val_loss"] = sequence[epoch]
    model = _regressor()
    history = model.fit(X, YR, epochs=len(sequence), batch_size=10, shuffle=False, verbose=0,
                        callbacks=[keras.callbacks.LambdaCallback(on_epoch_end=inject),
                                   keras.callbacks.ReduceLROnPlateau(**eval(settings))])
    np.testing.assert_allclose(history.history["learning_rate"], KERAS_REDUCE_LR[settings],
                               rtol=1e-5, atol=1e-12)


def test_csv_logger_writes_keras_rows(tmp_path):
    path = tmp_path / "log.csv"
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(6, 2)
    y = x[:, :1] * 2
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.set_weights([np.array([[0.5], [0.1]], "float32"), np.zeros(1, "float32")])
    model.compile(keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0,
              validation_data=(x[:2], y[:2]),
              callbacks=[keras.callbacks.CSVLogger(path, separator=";")])
    model.fit(x, y, epochs=1, batch_size=3, shuffle=False, verbose=0,
              callbacks=[keras.callbacks.CSVLogger(path, separator=";", append=True)])
    rows = list(csv.reader(path.open(), delimiter=";"))
    keras_rows = [["epoch", "loss", "mae", "val_loss", "val_mae"],   # Keras 3's file
                  ["0", "0.7811762690544128", "0.7884898781776428", "0.6691074967384338",
                   "0.7989139556884766"],
                  ["1", "0.3711327016353607", "0.5438545346260071", "0.31590771675109863",
                   "0.5488379597663879"],
                  ["0", "0.1763959378004074", "0.37515607476234436", "NA", "NA"]]
    assert rows[0] == keras_rows[0] and [r[0] for r in rows] == [r[0] for r in keras_rows]
    for row, want in zip(rows[1:], keras_rows[1:]):
        assert [v == "NA" for v in row] == [v == "NA" for v in want]
        np.testing.assert_allclose([float(v) for v in row if v != "NA"],
                                   [float(v) for v in want if v != "NA"], rtol=1e-6)


class _Interrupt(keras.callbacks.Callback):
    def __init__(self, epoch):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.epoch:
            raise KeyboardInterrupt


def _adam_model():
    model = _model(1)
    model.compile(keras.optimizers.Adam(0.05), "mse")
    return model


def test_backup_and_restore_resumes_an_interrupted_fit(tmp_path):
    backup = tmp_path / "backup"
    reference = _adam_model()
    want = reference.fit(X, YR, epochs=5, batch_size=8, shuffle=False, verbose=0)
    model = _adam_model()
    with pytest.raises(KeyboardInterrupt):
        model.fit(X, YR, epochs=5, batch_size=8, shuffle=False, verbose=0,
                  callbacks=[keras.callbacks.BackupAndRestore(backup), _Interrupt(3)])
    assert backup.is_dir()
    resumed = _adam_model()   # a new process would rebuild the model: new weights, new Adam
    history = resumed.fit(X, YR, epochs=5, batch_size=8, shuffle=False, verbose=0,
                          callbacks=[keras.callbacks.BackupAndRestore(backup)])
    assert history.epoch == [3, 4]   # the three epochs done are not run again
    np.testing.assert_allclose(history.history["loss"], want.history["loss"][3:], rtol=1e-5)
    for got, expected in zip(resumed.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert not backup.exists()   # delete_checkpoint=True


def test_backup_and_restore_keeps_the_backup_when_asked(tmp_path):
    backup = tmp_path / "backup"
    _adam_model().fit(X, YR, epochs=2, verbose=0, callbacks=[
        keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    again = _adam_model().fit(X, YR, epochs=3, verbose=0, callbacks=[
        keras.callbacks.BackupAndRestore(backup, delete_checkpoint=False)])
    assert again.epoch == [2]
    with pytest.raises(ValueError, match="save_freq"):
        keras.callbacks.BackupAndRestore(backup, save_freq="batch")


def test_progbar_logger_draws_fit_progress_once(capsys):
    _regressor().fit(X, YR, epochs=2, batch_size=10, verbose=2,
                     callbacks=[keras.callbacks.ProgbarLogger()])
    out = capsys.readouterr().out
    assert out.count("Epoch 1/2") == 1 and out.count("Epoch 2/2") == 1
    _regressor().fit(X, YR, epochs=2, batch_size=10, verbose=0)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", ["adamax", "nadam", "ftrl", "lion", "muon", "Muon"])
def test_every_keras_optimizer_name_compiles(name):
    model = _model(1)
    model.compile(name, "mse")
    assert type(model.optimizer).__name__.lower() == name.lower()


def test_evaluate_and_predict_print_keras_progress_by_default(capsys):
    model = _regressor(["mae"])
    model.evaluate(X, YR, batch_size=8)            # verbose="auto", as Keras 3
    model.predict(X, batch_size=8)
    lines = capsys.readouterr().out.splitlines()   # not a terminal: the last line only
    assert lines[0].startswith("3/3 ━━━━━━━━━━━━━━━━━━━━ ") and " - loss: " in lines[0]
    assert " - mae: " in lines[0]
    assert lines[1].startswith("3/3 ━━━━━━━━━━━━━━━━━━━━ ") and "loss" not in lines[1]
    model.evaluate(X, YR, verbose=0)
    model.predict(X, verbose=0)
    assert capsys.readouterr().out == ""


_WX = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
_WY = (_WX.sum(1, keepdims=True) > 0).astype("float32")
_WW = np.linspace(0.5, 2, 8).astype("float32")
KERAS_WEIGHTED = [  # compile keywords, then Keras 3's history and weighted evaluate loss
    (dict(metrics=["mae"], weighted_metrics=["mae", "accuracy"]),
     {"accuracy": [0.70714, 0.88571], "loss": [0.83135, 0.56711], "mae": [0.48233, 0.37079],
      "val_accuracy": [0.65217, 0.65217], "val_loss": [0.46958, 0.42534],
      "val_mae": [0.40786, 0.36181], "val_weighted_mae": [0.43057, 0.39451],
      "weighted_mae": [0.48495, 0.35747]}, 0.43873),
    (dict(weighted_metrics=[keras.metrics.AUC]),   # a class: a new AUC() named "auc"
     {"auc": [0.78793, 1.0], "loss": [0.83135, 0.56711], "val_auc": [0.0, 0.0],
      "val_loss": [0.46958, 0.42534]}, 0.43873),
    (dict(loss_weights=0.5, metrics=["mae"]),
     {"loss": [0.40947, 0.33644], "mae": [0.47815, 0.42004], "val_loss": [0.24771, 0.23402],
      "val_mae": [0.43733, 0.40922]}, 0.28393),
    (dict(loss_weights=[2.0]),
     {"loss": [1.71499, 0.84728], "val_loss": [0.87122, 0.7321]}, 0.62625),
]


@pytest.mark.parametrize("keywords, history, evaluated", KERAS_WEIGHTED,
                         ids=["weighted_metrics", "weighted_auc", "loss_weight", "loss_weights"])
def test_weighted_metrics_and_loss_weights_match_keras(keywords, history, evaluated):
    keras.backend.clear_session()  # metric names count from zero (Keras's auto_name)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.set_weights([np.array([[0.3], [-0.2], [0.1]], "float32"), np.zeros(1, "float32")])
    model.compile(keras.optimizers.SGD(0.5), "binary_crossentropy", jit_compile="auto",
                  auto_scale_loss=True, **keywords)
    got = model.fit(_WX, _WY, epochs=2, batch_size=4, shuffle=False, verbose=0,
                    sample_weight=_WW, validation_data=(_WX[:4], _WY[:4], _WW[:4]))
    assert sorted(got.history) == sorted(history)
    for name, values in history.items():
        np.testing.assert_allclose(got.history[name], values, atol=2e-5, err_msg=name)
    result = model.evaluate(_WX, _WY, sample_weight=_WW, verbose=0, return_dict=True)
    np.testing.assert_allclose(result["loss"], evaluated, atol=2e-5)


def test_loss_weights_of_several_outputs_are_refused_by_name():
    with pytest.raises(ValueError, match="loss_weights"):
        _model(1).compile("sgd", "mse", loss_weights=[1.0, 2.0])


def test_class_weight_weighs_a_dataset_as_keras():
    x = np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3)
    y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1], "int32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3, activation="softmax")])
    model.set_weights([np.linspace(-1, 1, 9).reshape(3, 3).astype("float32"),
                       np.zeros(3, "float32")])
    model.compile(keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(rt.data.Dataset.from_tensor_slices((x, y)).batch(4), epochs=2,
                        verbose=0, class_weight={0: 0.5, 1: 2.0, 2: 1.0})
    np.testing.assert_allclose(history.history["loss"], [1.44752, 1.19724], atol=2e-5)  # Keras 3
    np.testing.assert_allclose(history.history["accuracy"], [0.2, 0.5], atol=2e-5)


def test_model_checkpoint_saves_by_batch_and_best_as_keras(tmp_path, capsys):
    x = np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    sequence = [1.0, 0.8, 0.9, 0.7]
    model.fit(x, x[:, :1] * 2, epochs=3, batch_size=4, verbose=0, shuffle=False, callbacks=[
        keras.callbacks.ModelCheckpoint(str(tmp_path / "m-{epoch}-{batch}.weights.npz"),
                                        save_freq=2, save_weights_only=True)])
    # Keras 3 writes m-1-2, m-2-1, m-2-3, m-3-2 (every 2 batches of 3, counted across epochs)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m-1-2.weights.npz", "m-2-1.weights.npz", "m-2-3.weights.npz", "m-3-2.weights.npz"]
    capsys.readouterr()
    model.fit(x, x[:, :1] * 2, epochs=4, batch_size=4, verbose=0, shuffle=False, callbacks=[
        keras.callbacks.LambdaCallback(
            on_epoch_end=lambda e, logs: logs.__setitem__("val_loss", sequence[e])),
        keras.callbacks.ModelCheckpoint(str(tmp_path / "best.keras"), save_best_only=True,
                                        verbose=1)])
    path = str(tmp_path / "best.keras")
    assert [line for line in capsys.readouterr().out.splitlines() if line] == [  # Keras 3's
        f"Epoch 1: val_loss improved from None to 1.00000, saving model to {path}",
        f"Epoch 1: finished saving model to {path}",
        f"Epoch 2: val_loss improved from 1.00000 to 0.80000, saving model to {path}",
        f"Epoch 2: finished saving model to {path}",
        "Epoch 3: val_loss did not improve from 0.80000",
        f"Epoch 4: val_loss improved from 0.80000 to 0.70000, saving model to {path}",
        f"Epoch 4: finished saving model to {path}"]


def test_compiling_many_models_does_not_warn_about_recompiling():
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # Keras prints nothing for six models trained in a row
        for _ in range(6):
            _regressor().fit(X, YR, epochs=1, verbose=0)


def test_predicting_with_many_uncompiled_models_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(6):
            model = _model(1)
            model.predict(X, verbose=0)
            model.predict_on_batch(X)


def _two_output_model():
    first = rt.keras.Input((3,), name="i1")
    second = rt.keras.Input((2,), name="i2")
    hidden = rt.keras.layers.Concatenate()([first, second])
    hidden = rt.keras.layers.Dense(4, activation="relu", kernel_initializer="ones")(hidden)
    reg = rt.keras.layers.Dense(1, kernel_initializer="ones", name="reg")(hidden)
    cls = rt.keras.layers.Dense(1, activation="sigmoid", name="cls",
                                kernel_initializer=rt.keras.initializers.Constant(0.1))(hidden)
    model = rt.keras.Model({"i1": first, "i2": second}, {"reg": reg, "cls": cls})
    model.compile("sgd", loss={"reg": "mse", "cls": "binary_crossentropy"},
                  loss_weights={"reg": 0.5, "cls": 2.0},
                  metrics={"cls": ["accuracy"], "reg": ["mae"]})
    return model


def test_evaluate_of_several_outputs_lists_and_averages_as_keras_3():
    rng = np.random.default_rng(0)
    x = {"i1": rng.normal(size=(40, 3)).astype(np.float32),
         "i2": rng.normal(size=(40, 2)).astype(np.float32)}
    y = {"reg": rng.normal(size=(40, 1)).astype(np.float32),
         "cls": rng.integers(0, 2, (40, 1)).astype(np.float32)}
    model = _two_output_model()
    pred = model.predict(x, verbose=0)
    squared = (pred["reg"] - y["reg"]) ** 2
    logs = model.evaluate(x, y, batch_size=32, verbose=0, return_dict=True)
    # Keras 3: the total loss weighs each batch by its samples, an output's loss tracker
    # takes each batch's mean with weight 1 (the mean of the two batch means here)
    np.testing.assert_allclose(logs["reg_loss"], (squared[:32].mean() + squared[32:].mean()) / 2,
                               rtol=1e-5)
    one_batch = model.evaluate(x, y, batch_size=40, verbose=0, return_dict=True)
    np.testing.assert_allclose(one_batch["reg_loss"], squared.mean(), rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], one_batch["loss"], rtol=1e-5)
    # the list: loss, each output's loss, then the prefixed metrics by name
    values = model.evaluate(x, y, batch_size=40, verbose=0)
    assert values == [one_batch[key] for key in
                      ("loss", "reg_loss", "cls_loss", "cls_accuracy", "reg_mae")]


def test_evaluate_lists_compiled_metrics_in_their_order():
    x = np.random.default_rng(1).normal(size=(20, 4)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[np.arange(20) % 3]
    model = rt.keras.Sequential([rt.keras.Input((4,)),
                                 rt.keras.layers.Dense(3, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy", metrics=["mse", "accuracy"])
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert model.evaluate(x, y, verbose=0) == [logs["loss"], logs["mse"], logs["accuracy"]]
