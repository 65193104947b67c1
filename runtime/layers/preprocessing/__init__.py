"""Keras's preprocessing layers: lookups and text (`lookup`), images and augmentation
(`image`)."""

from .hashing import Hashing
from .image import (
    AutoContrast,
    CenterCrop,
    RandomBrightness,
    RandomContrast,
    RandomCrop,
    RandomFlip,
    RandomGrayscale,
    RandomHeight,
    RandomInvert,
    RandomRotation,
    RandomTranslation,
    RandomWidth,
    RandomZoom,
    Resizing,
)
from .lookup import (
    CategoryEncoding,
    Discretization,
    IntegerLookup,
    StringLookup,
    TextVectorization,
)

__all__ = ["AutoContrast", "RandomGrayscale", "RandomHeight", "RandomInvert", "RandomWidth",
           "CategoryEncoding", "CenterCrop", "Discretization", "Hashing", "IntegerLookup",
           "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation",
           "RandomTranslation", "RandomZoom", "Resizing", "StringLookup", "TextVectorization"]
