"""Keras-style layers and models.

    class MLP(rt.Model):
        def __init__(self):
            super().__init__()
            self.hidden = rt.layers.Dense(128, activation="relu")
            self.out = rt.layers.Dense(10)

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

Weights are created on the first call (eagerly, even inside a compiled function);
`model.trainable_variables` lists them for a `GradientTape` and an optimizer.
"""

from ..arguments import add_keyword_hints_to_classes as _add_keyword_hints_to_classes
from . import activations, callbacks, initializers, losses, metrics
from .adaptive_pooling import (
    AdaptiveAveragePooling1D,
    AdaptiveAveragePooling2D,
    AdaptiveAveragePooling3D,
    AdaptiveMaxPooling1D,
    AdaptiveMaxPooling2D,
    AdaptiveMaxPooling3D,
)
from .attention import (
    AdditiveAttention,
    Attention,
    EinsumDense,
    GroupedQueryAttention,
    MultiHeadAttention,
)
from .base import Layer
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .conv_transpose import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
from .convolutional import (
    Conv1D,
    Conv2D,
    Conv3D,
    Cropping1D,
    Cropping2D,
    Cropping3D,
    UpSampling1D,
    UpSampling2D,
    UpSampling3D,
    ZeroPadding1D,
    ZeroPadding2D,
    ZeroPadding3D,
)
from .core import (
    ELU,
    Activation,
    Dense,
    Dropout,
    Flatten,
    Identity,
    LeakyReLU,
    PReLU,
    ReLU,
    Rescaling,
    Softmax,
)
from .functional import Input, InputLayer
from .legacy_activations import ThresholdedReLU
from .merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from .model import Model, Sequential
from .normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    Normalization,
    RMSNormalization,
    UnitNormalization,
)
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
)
from .preprocessing import (
    AutoContrast,
    CategoryEncoding,
    CenterCrop,
    Discretization,
    Hashing,
    IntegerLookup,
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
    StringLookup,
    TextVectorization,
)
from .recurrent import (
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    GRUCell,
    LSTMCell,
    Orthogonal,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
)
from .regularization import (
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
    SpatialDropout3D,
)
from .reshaping import (
    Embedding,
    Lambda,
    Masking,
    Permute,
    RepeatVector,
    Reshape,
    ReversibleEmbedding,
)
from .separable_conv import DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D, SeparableConv2D
from .wrappers import Pipeline, TimeDistributed, Wrapper

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "Input", "InputLayer", "Layer", "Model",
           "Sequential", "activations", "callbacks", "initializers", "losses", "metrics"]

__all__ += ["Add", "Average", "AveragePooling1D", "AveragePooling2D", "BatchNormalization",
            "Bidirectional", "Concatenate", "Conv1D", "Conv2D", "Dot", "Embedding", "GRU",
            "GRUCell", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
            "GlobalMaxPooling2D", "LSTM", "LSTMCell", "Lambda", "LayerNormalization", "Maximum",
            "MaxPooling1D", "MaxPooling2D", "Minimum", "Multiply", "Orthogonal", "Permute", "RNN",
            "RepeatVector", "Reshape", "SimpleRNN", "SimpleRNNCell", "Subtract", "ZeroPadding2D"]
__all__ += ["ELU", "LeakyReLU", "Masking", "PReLU", "ReLU", "Softmax"]
__all__ += ["AdditiveAttention", "Attention", "EinsumDense", "GroupQueryAttention",
            "MultiHeadAttention"]
GroupQueryAttention = GroupedQueryAttention  # Keras's public name (its class's name is longer)
__all__ += ["Conv1DTranspose", "Conv2DTranspose", "Cropping1D", "Cropping2D", "DepthwiseConv1D",
            "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "TimeDistributed",
            "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "Wrapper"]
__all__ += ["ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
            "GroupNormalization", "Identity", "SpatialDropout1D", "SpatialDropout2D",
            "SpatialDropout3D", "UnitNormalization", "add", "average", "concatenate", "dot",
            "maximum", "minimum", "multiply", "subtract"]
__all__ += ["Normalization", "RMSNormalization", "Rescaling"]
__all__ += ["CategoryEncoding", "CenterCrop", "Discretization", "Hashing", "IntegerLookup",
            "AutoContrast", "RandomGrayscale", "RandomHeight", "RandomInvert", "RandomWidth",
            "ThresholdedReLU",
            "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation",
            "RandomTranslation", "RandomZoom", "Resizing", "StringLookup", "TextVectorization"]

__all__ += ["AveragePooling3D", "Conv3D", "Cropping3D", "GlobalAveragePooling3D",
            "GlobalMaxPooling3D", "MaxPooling3D", "UpSampling3D", "ZeroPadding3D"]

# Keras's other names for the same classes
AvgPool1D, AvgPool2D = AveragePooling1D, AveragePooling2D
MaxPool1D, MaxPool2D = MaxPooling1D, MaxPooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
Convolution1D, Convolution2D = Conv1D, Conv2D
Convolution1DTranspose, Convolution2DTranspose = Conv1DTranspose, Conv2DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
__all__ += ["AvgPool1D", "AvgPool2D", "Convolution1D", "Convolution1DTranspose",
            "Convolution2D", "Convolution2DTranspose", "GlobalAvgPool1D", "GlobalAvgPool2D",
            "GlobalMaxPool1D", "GlobalMaxPool2D", "MaxPool1D", "MaxPool2D",
            "SeparableConvolution1D", "SeparableConvolution2D"]
AvgPool3D, MaxPool3D, Convolution3D = AveragePooling3D, MaxPooling3D, Conv3D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
__all__ += ["AvgPool3D", "Convolution3D", "GlobalAvgPool3D", "GlobalMaxPool3D", "MaxPool3D"]
Convolution3DTranspose = Conv3DTranspose
__all__ += ["Conv3DTranspose", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D",
            "Convolution3DTranspose"]
__all__ += ["AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
            "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D", "Pipeline",
            "ReversibleEmbedding", "StackedRNNCells"]

from .audio import MelSpectrogram, STFTSpectrogram  # noqa: E402
from .augmentation_color import (  # noqa: E402 - Keras 3's colour augmentation layers
    ContrastLimitedAdaptiveHistogramEqualization,
    Equalization,
    RandomColorDegeneration,
    RandomColorJitter,
    RandomGaussianBlur,
    RandomHue,
    RandomPosterization,
    RandomSaturation,
    RandomSharpness,
    Solarization,
)
from .augmentation_geometry import (  # noqa: E402
    RandomElasticTransform,
    RandomPerspective,
    RandomShear,
)
from .augmentation_mix import (  # noqa: E402
    AugMix,
    CutMix,
    MaxNumBoundingBoxes,
    MixUp,
    RandAugment,
    RandomErasing,
)
from .input_spec import InputSpec  # noqa: E402
from .preprocessing.hashed_crossing import HashedCrossing  # noqa: E402
from .spectral_normalization import SpectralNormalization  # noqa: E402

__all__ += ["HashedCrossing", "InputSpec", "MelSpectrogram", "STFTSpectrogram",
            "SpectralNormalization"]
__all__ += ["AugMix", "ContrastLimitedAdaptiveHistogramEqualization", "CutMix",
            "MaxNumBoundingBoxes", "MixUp", "RandAugment", "RandomElasticTransform",
            "RandomErasing", "RandomPerspective", "RandomShear"]
__all__ += ["Equalization", "RandomColorDegeneration", "RandomColorJitter",
            "RandomGaussianBlur", "RandomHue", "RandomPosterization", "RandomSaturation",
            "RandomSharpness", "Solarization"]

_add_keyword_hints_to_classes(globals(), "runtime")  # a misspelt keyword: "did you mean"
