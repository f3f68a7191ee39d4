"""pytensor.nn.functional: multi_head_attention_forward.

torch writes multi-head attention in Python over its operators, and so does this module, with the
same calls in the same order, so that values, gradients, autograd's nodes and the checks' messages
match torch's:

- in-projection: one linear of the packed weight for self-attention (split into q, k, v by a
  view), linear of the query and of the packed key/value weight for encoder-decoder attention,
  three linears for distinct key and value or separate projection weights;
- masks: a bool key_padding_mask or attn_mask becomes a float mask of -inf where True (torch's
  _canonical_mask), a 2-d attn_mask is broadcast over batch and heads, bias_k/bias_v and
  add_zero_attn append a key (and a zero column to the masks), the key padding mask is added to
  the attention mask;
- need_weights=False: scaled_dot_product_attention (the fused CPU kernel where torch would use
  it, else its math composition), is_causal passed through when there is no mask;
- need_weights=True: baddbmm(mask, q * scale, k^T) (bmm without a mask), softmax, dropout, bmm
  with v, the weights averaged over heads when average_attn_weights;
- the out-projection linear; unbatched (L, E) inputs gain and lose a batch dim of 1.

>>> import pytensor
>>> import pytensor.nn.functional as F
>>> E, H = 4, 2
>>> x = pytensor.ones(3, 1, E)
>>> out, w = F.multi_head_attention_forward(x, x, x, E, H, pytensor.ones(3 * E, E), None, None,
...                                         None, False, 0.0, pytensor.eye(E), None)
>>> tuple(out.shape), tuple(w.shape)
((3, 1, 4), (1, 3, 3))
"""

from __future__ import annotations

import math
import warnings
from typing import List, Optional, Tuple

import pytensor

from ._f_activation import dropout, softmax
from ._f_attention import scaled_dot_product_attention
from ._f_norm import linear
from ._f_sample import pad

__all__ = ["multi_head_attention_forward"]

Tensor = pytensor.Tensor


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Optional[Tensor] = None) -> List[Tensor]:
    E = q.size(-1)
    if k is v:
        if q is k:
            # self-attention: one product, rows ordered (3, E) so that each part is contiguous
            proj = linear(q, w, b)
            proj = (proj.view(*proj.shape[:-1], 3, E).unsqueeze(0).transpose(0, -2).squeeze(-2)
                    .contiguous())
            return [proj[0], proj[1], proj[2]]
        w_q, w_kv = w.split([E, E * 2])
        if b is None:
            b_q = b_kv = None
        else:
            b_q, b_kv = b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = (kv_proj.view(*kv_proj.shape[:-1], 2, E).unsqueeze(0).transpose(0, -2)
                   .squeeze(-2).contiguous())
        return [q_proj, kv_proj[0], kv_proj[1]]
    w_q, w_k, w_v = w.chunk(3)
    if b is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = b.chunk(3)
    return [linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)]


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor,
                   b_q: Optional[Tensor] = None, b_k: Optional[Tensor] = None,
                   b_v: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    if w_q.shape != (Eq, Eq):
        raise AssertionError(f"expecting query weights shape of {(Eq, Eq)}, but got {w_q.shape}")
    if w_k.shape != (Eq, Ek):
        raise AssertionError(f"expecting key weights shape of {(Eq, Ek)}, but got {w_k.shape}")
    if w_v.shape != (Eq, Ev):
        raise AssertionError(f"expecting value weights shape of {(Eq, Ev)}, but got {w_v.shape}")
    if b_q is not None and b_q.shape != (Eq,):
        raise AssertionError(f"expecting query bias shape of {(Eq,)}, but got {b_q.shape}")
    if b_k is not None and b_k.shape != (Eq,):
        raise AssertionError(f"expecting key bias shape of {(Eq,)}, but got {b_k.shape}")
    if b_v is not None and b_v.shape != (Eq,):
        raise AssertionError(f"expecting value bias shape of {(Eq,)}, but got {b_v.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Optional[Tensor], attn_mask: Optional[Tensor],
                     num_heads: int) -> bool:
    """Whether the inputs are batched (3-d query) or not (2-d); torch's messages otherwise."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 2-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, "
                                 f"2-D or 3-D but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be "
                                 f"2-D but found {key.dim()}-D and {value.dim()}-D tensors "
                                 "respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be "
                                 f"`None` or 1-D but found {key_padding_mask.dim()}-D tensor "
                                 "instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be "
                                     f"`None`, 2-D or 3-D but found {attn_mask.dim()}-D tensor "
                                     "instead")
            if attn_mask.dim() == 3:
                expected_shape = (num_heads, query.shape[0], key.shape[0])
                if attn_mask.shape != expected_shape:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected_shape} but "
                                         f"got {attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _canonical_mask(mask: Optional[Tensor], mask_name: str, other_type, other_name: str,
                    target_type, check_other: bool = True) -> Optional[Tensor]:
    """A bool mask as a float mask of target_type: -inf where True, 0 elsewhere."""
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype != pytensor.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if not is_float:
        mask = pytensor.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(input: Optional[Tensor]):
    if input is None:
        return None
    if isinstance(input, pytensor.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or pytensor.Tensor")


def _check_key_padding_mask(key_padding_mask: Tensor, src_len: int, bsz: int) -> None:
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                             f"{key_padding_mask.shape[0]}")
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                             f"{key_padding_mask.shape[1]}")


def _check_static(name: str, t: Tensor, rows: int, head_dim: int) -> None:
    if t.size(0) != rows:
        raise AssertionError(f"expecting {name}.size(0) of {rows}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.size(2)}")


def _project(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
             q_proj_weight, k_proj_weight, v_proj_weight):
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is "
                                 "None")
    if in_proj_bias is None:
        b_q = b_k = b_v = None
    else:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q,
                          b_k, b_v)


def _attn_mask_3d(attn_mask: Tensor, tgt_len: int, src_len: int, rows: int) -> Tensor:
    if attn_mask.dim() == 2:
        correct_2d_size = (tgt_len, src_len)
        if attn_mask.shape != correct_2d_size:
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct_2d_size}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        correct_3d_size = (rows, tgt_len, src_len)
        if attn_mask.shape != correct_3d_size:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {correct_3d_size}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(
    query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
    in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor], bias_k: Optional[Tensor],
    bias_v: Optional[Tensor], add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor], training: bool = True,
    key_padding_mask: Optional[Tensor] = None, need_weights: bool = True,
    attn_mask: Optional[Tensor] = None, use_separate_proj_weight: bool = False,
    q_proj_weight: Optional[Tensor] = None, k_proj_weight: Optional[Tensor] = None,
    v_proj_weight: Optional[Tensor] = None, static_k: Optional[Tensor] = None,
    static_v: Optional[Tensor] = None, average_attn_weights: bool = True,
    is_causal: bool = False,
) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention of query (L, N, E) over key/value (S, N, E), or unbatched (L, E) and
    (S, E): (output (L, N, E), weights (N, L, S) averaged over heads, (N, H, L, S) otherwise,
    None unless need_weights). Arguments as torch.nn.functional.multi_head_attention_forward."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # sdpa takes the hint alone: the mask is known to be causal
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                       q_proj_weight, k_proj_weight, v_proj_weight)
    rows = bsz * num_heads
    if attn_mask is not None:
        attn_mask = _attn_mask_3d(attn_mask, tgt_len, src_len, rows)

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = pytensor.cat([k, bias_k.repeat(1, bsz, 1)])
        v = pytensor.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # batch-and-heads first: (N * H, L, head_dim)
    q = q.view(tgt_len, rows, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.view(k.shape[0], rows, head_dim).transpose(0, 1)
    else:
        _check_static("static_k", static_k, rows, head_dim)
        k = static_k
    if static_v is None:
        v = v.view(v.shape[0], rows, head_dim).transpose(0, 1)
    else:
        _check_static("static_v", static_v, rows, head_dim)
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (rows, 1, head_dim)
        k = pytensor.cat([k, pytensor.zeros(zero_attn_shape, dtype=k.dtype, device=k.device)],
                         dim=1)
        v = pytensor.cat([v, pytensor.zeros(zero_attn_shape, dtype=v.dtype, device=v.device)],
                         dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.size(1)
    if key_padding_mask is not None:
        _check_key_padding_mask(key_padding_mask, src_len, bsz)
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1).reshape(rows, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        _, _, E = q.shape
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = pytensor.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = pytensor.bmm(q_scaled, k.transpose(-2, -1))
        del q_scaled, k
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = pytensor.bmm(weights, v)
        del v
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    del q, k, v
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None
