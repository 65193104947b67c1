"""`keras.utils.audio_dataset_from_directory` as Keras 3 builds it on TensorFlow: the .wav files
under a directory (one subdirectory per class), listed, labelled and split as Keras lists them
(`dataset_sources.index_directory`), each decoded in `Dataset.map` by `rt.audio.decode_wav`
(float32 [samples, channels]), cut or zero-padded to `output_sequence_length`, and batched
(padded to the longest file of the batch when no length is given).
"""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from ..arguments import strict_keywords
from ..data import AUTOTUNE, Dataset
from ..ops.io import read_file
from ..ops.io_audio import decode_wav
from .dataset_sources import check_labels, check_validation_split, index_directory, label_array, split_for

ALLOWED_FORMATS = (".wav",)


def _check(labels, label_mode, class_names, output_sequence_length, ragged, sampling_rate):
    check_labels(labels, label_mode, class_names, "audio")
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise NotImplementedError("audio_dataset_from_directory(ragged=True) is not offered "
                                  "here; give `output_sequence_length`, or leave both unset "
                                  "(batches padded to their longest file).")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError("`sampling_rate` should have an integer value. Received: "
                             f"sampling_rate={sampling_rate}")
        if sampling_rate <= 0:
            raise ValueError("`sampling_rate` should be higher than 0. Received: "
                             f"sampling_rate={sampling_rate}")
        raise NotImplementedError("audio_dataset_from_directory(sampling_rate=...) resamples "
                                  "with tensorflow-io in Keras; it is not offered here. Leave "
                                  "sampling_rate=None (the files' own rate is kept).")


def _dataset(paths, labels, label_mode, num_classes, length, shuffle, buffer_size, seed):
    path_ds = Dataset.from_tensor_slices(np.array(paths, dtype=object))

    def load(path):
        return decode_wav(read_file(path), desired_samples=-1 if length is None else length)[0]

    if label_mode:
        label_ds = Dataset.from_tensor_slices(label_array(labels, label_mode, num_classes))
        ds = Dataset.zip((path_ds, label_ds))
    else:
        ds = path_ds
    if shuffle:
        ds = ds.shuffle(buffer_size=buffer_size, seed=seed)
    if label_mode:
        return ds.map(lambda x, y: (load(x), y), num_parallel_calls=AUTOTUNE)
    return ds.map(load, num_parallel_calls=AUTOTUNE)


@strict_keywords("audio_dataset_from_directory")
def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None,
                                 batch_size: Optional[int] = 32, sampling_rate=None,
                                 output_sequence_length: Optional[int] = None,
                                 ragged: bool = False, shuffle: bool = True,
                                 seed: Optional[int] = None,
                                 validation_split: Optional[float] = None,
                                 subset: Optional[str] = None, follow_links: bool = False,
                                 verbose: bool = True):
    """A `Dataset` of (audio, label) batches from the 16-bit PCM .wav files under `directory`:
    audio float32 [batch, samples, channels] (`output_sequence_length` samples, or padded to
    the longest of the batch), labels as `image_dataset_from_directory`'s. `.class_names` is
    set; `subset="both"` returns (training, validation)."""
    _check(labels, label_mode, class_names, output_sequence_length, ragged, sampling_rate)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        os.fspath(directory), labels, ALLOWED_FORMATS, class_names, shuffle=shuffle, seed=seed,
        follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")
    buffer_size = batch_size * 8 if batch_size is not None else 1024
    num_classes = len(class_names) if class_names else 0

    def build(part, shuffled: bool):
        part_paths, part_labels = split_for(paths, labels, validation_split, part)
        if not part_paths:
            what = {"training": "training audio", "validation": "validation audio"}.get(
                part, "audio")
            raise ValueError(f"No {what} files found in directory {directory}. Allowed "
                             f"format(s): {ALLOWED_FORMATS}")
        ds = _dataset(part_paths, part_labels, label_mode, num_classes, output_sequence_length,
                      shuffled, buffer_size, seed).prefetch(AUTOTUNE)
        if batch_size is not None:
            ds = ds.batch(batch_size) if output_sequence_length is not None else \
                ds.padded_batch(batch_size)
        ds.class_names = class_names
        return ds

    if subset == "both":
        return build("training", shuffle), build("validation", False)
    return build(subset, shuffle)


__all__ = ["audio_dataset_from_directory"]
