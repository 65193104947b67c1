"""The layers whose configs data/keras3_more_layer_configs.json holds, as calls on a
`keras.layers` module: run on Keras 3.15.1 (TensorFlow 2.21) to record the file, and here
to compare (tests/models/test_conv_lstm_and_more_configs.py)."""


def layer_cases(L) -> dict:
    return {
        "spatial_dropout1d": lambda: L.SpatialDropout1D(0.3, name="sd1"),
        "spatial_dropout2d": lambda: L.SpatialDropout2D(0.3, name="sd2"),
        "spatial_dropout3d": lambda: L.SpatialDropout3D(0.2, seed=4, name="sd3"),
        "discretization": lambda: L.Discretization(bin_boundaries=[0., 1.], name="disc"),
        "normalization": lambda: L.Normalization(name="norm"),
        "normalization_axes": lambda: L.Normalization(axis=[1, 2], name="norm2"),
        "normalization_values": lambda: L.Normalization(mean=[1., 2.], variance=[1., 4.],
                                                        name="norm3"),
        "string_lookup": lambda: L.StringLookup(vocabulary=["a", "b"], name="sl"),
        "string_lookup_empty": lambda: L.StringLookup(name="sl0"),
        "integer_lookup": lambda: L.IntegerLookup(vocabulary=[3, 4], name="il"),
        "hashing": lambda: L.Hashing(5, name="hash"),
        "hashing_one_hot": lambda: L.Hashing(5, output_mode="one_hot", name="hash1"),
        "random_rotation": lambda: L.RandomRotation(0.2, name="rot"),
        "random_rotation_pair": lambda: L.RandomRotation((-0.1, 0.3), name="rot2"),
        "average_pooling1d": lambda: L.AveragePooling1D(2, name="ap1"),
        "average_pooling3d": lambda: L.AveragePooling3D(2, name="ap3"),
        "conv3d_transpose": lambda: L.Conv3DTranspose(2, 3, strides=2, padding="same",
                                                      output_padding=1, name="c3t"),
        "conv_lstm1d": lambda: L.ConvLSTM1D(2, 3, name="cl1"),
        "conv_lstm2d": lambda: L.ConvLSTM2D(2, (3, 2), padding="same", return_sequences=True,
                                            name="cl2"),
        "conv_lstm3d": lambda: L.ConvLSTM3D(2, 3, strides=2, return_state=True, name="cl3"),
        "adaptive_average_pooling2d": lambda: L.AdaptiveAveragePooling2D((3, 2), name="aap"),
        "adaptive_max_pooling3d": lambda: L.AdaptiveMaxPooling3D(
            2, data_format="channels_first", name="amp"),
        "pipeline": lambda: L.Pipeline([L.Rescaling(2.0, name="r"), L.RandomFlip(name="f")],
                                       name="pipe"),
        "reversible_embedding": lambda: L.ReversibleEmbedding(5, 3, tie_weights=False,
                                                              logit_soft_cap=2.0, name="re"),
        "stacked_rnn_cells": lambda: L.StackedRNNCells([L.LSTMCell(2, name="a"),
                                                        L.SimpleRNNCell(3, name="b")],
                                                       name="stack"),
    }


if __name__ == "__main__":  # the recording program, run under Keras 3
    import json
    import sys

    import keras
    configs = {key: {"class_name": type(make()).__name__, "config": make().get_config()}
               for key, make in layer_cases(keras.layers).items()}
    json.dump(configs, sys.stdout, indent=1, sort_keys=True)
