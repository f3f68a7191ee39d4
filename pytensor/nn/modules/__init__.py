"""The layers of ``pytensor.nn``, one torch file name each; ``pytensor.nn`` re-exports them.

Each layer file adds one block of ``from .X import ...`` lines at the end of this file;
``__all__`` is computed from what the blocks imported (every class), so blocks merge without
touching each other.
"""


def __getattr__(name: str):
    if name == "__all__":
        return sorted(n for n, v in globals().items()
                      if not n.startswith("_") and isinstance(v, type))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


from .module import Module  # noqa: E402,F401
from .container import (Container, ModuleDict, ModuleList, ParameterDict,  # noqa: E402,F401
                        ParameterList, Sequential)
from .lazy import LazyModuleMixin  # noqa: E402,F401
from .linear import Bilinear, Identity, LazyLinear, Linear  # noqa: E402,F401
from .sparse import Embedding, EmbeddingBag  # noqa: E402,F401
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,  # noqa: E402,F401
                      FeatureAlphaDropout)
from .flatten import Flatten, Unflatten  # noqa: E402,F401
from .activation import (CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid,  # noqa: E402,F401
                         Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish, PReLU,
                         ReLU, ReLU6, RReLU, SELU, Sigmoid, SiLU, Softmax, Softmax2d, Softmin,
                         Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from .batchnorm import (BatchNorm1d, BatchNorm2d, BatchNorm3d, LazyBatchNorm1d,  # noqa: E402,F401
                        LazyBatchNorm2d, LazyBatchNorm3d)
from .channelshuffle import ChannelShuffle  # noqa: E402,F401
from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,  # noqa: E402,F401
                   ConvTranspose3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
                   LazyConvTranspose2d, LazyConvTranspose3d)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402,F401
from .fold import Fold, Unfold  # noqa: E402,F401
from .instancenorm import (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,  # noqa: E402,F401
                           LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d)
from .loss import (BCELoss, BCEWithLogitsLoss, CosineEmbeddingLoss,  # noqa: E402,F401
                   CrossEntropyLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss, HuberLoss,
                   KLDivLoss, L1Loss, MarginRankingLoss, MSELoss, MultiLabelMarginLoss,
                   MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d,
                   PoissonNLLLoss, SmoothL1Loss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .normalization import (CrossMapLRN2d, GroupNorm, LayerNorm,  # noqa: E402,F401
                            LocalResponseNorm, RMSNorm)
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d,  # noqa: E402,F401
                      ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,
                      ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402,F401
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d,  # noqa: E402,F401
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d,
                      AvgPool2d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d,
                      LPPool2d, LPPool3d, MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d,
                      MaxUnpool2d, MaxUnpool3d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402,F401
from .rnn import (GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell,  # noqa: E402,F401
                  RNNCellBase)
from .mha import MultiheadAttention  # noqa: E402,F401
from .transformer import (Transformer, TransformerDecoder,  # noqa: E402,F401
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
