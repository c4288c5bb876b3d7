"""NumPy kernels of the neural-network ops (``fgraph/ops/nn.py``).

Every op's ``numpy_kernel`` allocates its result and calls the op's
``numpy_out_kernel`` on it, so the two are bit-identical by construction.

Convolutions are im2col and one BLAS product per chunk.  The patches of a
chunk (a block of small images, or a block of output rows of one large
image) are copied into a scratch buffer laid out (C, kh, kw, images, rows,
W') straight from the unpadded input: the padding is the zeros left in the
buffer, so nothing pads or copies the input.  Per group the buffer is the
matrix (C/G*kh*kw, images*rows*W'), and ``np.matmul(W (G, O/G, K), cols)``
writes the chunk's output (in place for one image; through one transposed
copy for a block of images).  The scratch is bounded by ``SCRATCH_BYTES``
(or one output row's patches): the whole im2col buffer of a 3x3 layer is 9x
its input and would be the peak of a network.  Measured shortcuts (``python
-m fgraph.bench conv``):

* 1x1, stride 1, no padding: no im2col, the input is the patch matrix;
* small images (late layers, digits) are batched: one product instead of
  one tiny product per image;
* depthwise convolutions (groups == C) take the same path: one small
  product per channel after im2col measured 2-3x faster than a direct sum
  over the kh*kw window shifts (each a multiply and an add of short rows);
* the transposed convolution (the input gradient) is ``cols = W^T x``, one
  product, then kh*kw strided adds (col2im); the weight gradient is ``g @
  cols^T`` on the forward's patches.

Pools read strided window slices of the unpadded input and accumulate into
their output: no padding copy either.
"""
from __future__ import annotations

import math

import numpy as np

from ...ops.nn import valid_range, windows
from ...types import set_attr

#: bytes of im2col patches per chunk (at least one output row's worth).
#: Measured on ResNet50 layers, batch 1 and 8 (0.5 .. 64 MiB): 4 MiB is the
#: fastest (the patches are still in cache when the product reads them);
#: 2 MiB costs ~10%, 0.5 MiB ~40%, and unbounded whole batches ~50% at batch 8
SCRATCH_BYTES = 4 << 20

#: images with fewer output positions than this are batched into one
#: product (see ``_blocks``)
BATCH_BELOW = 1024


def _view(a, shape):
    """``a`` reshaped without a copy (raises rather than silently copying)."""
    return np.reshape(a, shape, copy=False)


def _blocks(n: int, rows: int, row_len: int, per_row: int, itemsize: int, views: bool = False,
            batch_row: int = 0):
    """Capacity ``(images, rows)`` of a chunk, and the chunks ``(n0, n1, r0,
    r1)``.  ``per_row``: scratch elements per output row of one image.

    Images of at least ``BATCH_BELOW`` output positions go one at a time (in
    blocks of rows when their patches exceed the budget): their product is
    large enough for BLAS and writes straight into the output.  Smaller
    images are batched, as many as the budget holds, into one product whose
    result is then copied into place (one GEMM instead of many tiny ones).
    ``views``: one image needs no scratch (a 1x1 convolution's patches are
    its input), so its rows are never split.  ``batch_row``: elements per
    row of the extra buffer a batch needs (the result before its copy)."""
    per_image = rows * per_row * itemsize
    batched = rows * (per_row + batch_row) * itemsize
    if rows * row_len >= BATCH_BELOW or n <= 1 or batched > SCRATCH_BYTES:
        nb = 1
        rb = rows if views or per_image <= SCRATCH_BYTES else \
            max(1, min(rows, SCRATCH_BYTES // max(per_row * itemsize, 1)))
    else:
        nb, rb = min(n, SCRATCH_BYTES // max(batched, 1)), rows
    chunks = [(n0, min(n, n0 + nb), r0, min(rows, r0 + rb)) for n0 in range(0, n, nb) for r0 in range(0, rows, rb)]
    return (nb, rb), chunks


def _im2col(x, cols, r0, kernel, stride, padding, dilation):
    """Patches of images ``x`` (n, C, H, W) for output rows ``r0 ..
    r0 + cols.shape[4]`` into ``cols`` (n, C, kh, kw, rows, W'); positions
    in the padding get zeros."""
    _, _, h, w = x.shape
    rb, wo = cols.shape[4], cols.shape[5]
    (kh, kw), (sh, sw), ((pt, _), (pl, _)), (dh, dw) = kernel, stride, padding, dilation
    for a in range(kh):
        i0, i1 = valid_range(r0 + rb, h, sh, a * dh - pt)
        i0, i1 = max(i0, r0) - r0, max(i1, r0) - r0
        for b in range(kw):
            dst = cols[:, :, a, b]
            j0, j1 = valid_range(wo, w, sw, b * dw - pl)
            if i0 >= i1 or j0 >= j1:
                dst.fill(0)
                continue
            if i0:
                dst[:, :, :i0].fill(0)
            if i1 < rb:
                dst[:, :, i1:].fill(0)
            if j0:
                dst[:, :, i0:i1, :j0].fill(0)
            if j1 < wo:
                dst[:, :, i0:i1, j1:].fill(0)
            ra = (i0 + r0) * sh + a * dh - pt
            cb = j0 * sw + b * dw - pl
            dst[:, :, i0:i1, j0:j1] = x[:, :, ra:ra + (i1 - i0 - 1) * sh + 1:sh, cb:cb + (j1 - j0 - 1) * sw + 1:sw]


def _col2im(cols, out, r0, kernel, stride, padding, dilation):
    """The transpose of ``_im2col``: add patches ``cols`` (n, O, kh, kw,
    rows, W) of input rows ``r0 ..`` into ``out`` (n, O, H', W')."""
    _, _, ho, wo = out.shape
    rb, w = cols.shape[4], cols.shape[5]
    (kh, kw), (sh, sw), ((pt, _), (pl, _)), (dh, dw) = kernel, stride, padding, dilation
    for a in range(kh):
        # input rows i (of the chunk) land on output row i*sh + a*dh - pt
        i0, i1 = valid_range(rb, ho, sh, r0 * sh + a * dh - pt)
        if i0 >= i1:
            continue
        ra = (i0 + r0) * sh + a * dh - pt
        for b in range(kw):
            j0, j1 = valid_range(w, wo, sw, b * dw - pl)
            if j0 >= j1:
                continue
            cb = j0 * sw + b * dw - pl
            dst = out[:, :, ra:ra + (i1 - i0 - 1) * sh + 1:sh, cb:cb + (j1 - j0 - 1) * sw + 1:sw]
            np.add(dst, cols[:, :, a, b, i0:i1, j0:j1], out=dst)


def _pointwise(kernel, stride, padding) -> bool:
    return kernel == (1, 1) and stride == (1, 1) and padding == ((0, 0), (0, 0))


def _as(a, dtype):
    """``a`` C-contiguous in ``dtype`` (a copy only when needed): with
    canonical strides every call takes the same BLAS paths, so results do
    not depend on how a feed was laid out."""
    return np.ascontiguousarray(a, dtype=dtype)


# ---------------------------------------------------------------- convolutions
#
# A chunk of n images and r rows has its patches in ``cols`` laid out
# (C, kh, kw, n, r, W'): as a matrix per group (C/G*kh*kw, n*r*W'), so one
# product covers the chunk.  With one image per chunk the product's other
# operand and its result are plain views of the input and output.

def _buffer(shape_or_size, dtype):
    return np.empty(shape_or_size if isinstance(shape_or_size, int) else math.prod(shape_or_size), dtype)


def _part(buf, shape):
    """A C-contiguous view of the start of flat buffer ``buf``."""
    return _view(buf[:math.prod(shape)], shape)


def _patches(x, cols_buf, n0, n1, r0, r1, wo, kernel, stride, padding, dilation):
    """im2col of images n0..n1, output rows r0..r1, into the start of
    ``cols_buf`` laid out (C, kh, kw, n, r, W')."""
    c = x.shape[1]
    cols = _part(cols_buf, (c, kernel[0], kernel[1], n1 - n0, r1 - r0, wo))
    _im2col(x[n0:n1], cols.transpose(3, 0, 1, 2, 4, 5), r0, kernel, stride, padding, dilation)
    return cols


def _channels_first(a, buf, n0, n1, r0, r1):
    """Rows r0..r1 of images n0..n1 of ``a`` (N, C, H, W) as (C, n*r*W):
    a view for one image, else a transposed copy into ``buf``."""
    if n1 - n0 == 1:
        return a[n0, :, r0:r1]
    part = _part(buf, (a.shape[1], n1 - n0, r1 - r0, a.shape[3]))
    np.copyto(part, a[n0:n1, :, r0:r1].transpose(1, 0, 2, 3))
    return part


def conv2d_out(x, w, *, out, stride, padding, dilation, groups):
    """im2col per chunk, then ``W (G, O/G, K) @ cols (G, K, n*r*W')``; a 1x1
    stride-1 convolution skips im2col (its patches are the input itself)."""
    x, w = _as(x, out.dtype), _as(w, out.dtype)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho, wo = out.shape[2:]
    if out.size == 0:
        return out
    if cg == 0:
        out.fill(0)
        return out
    g, og, k = groups, o // groups, cg * kh * kw
    kernel = (kh, kw)
    wm = _view(w, (g, og, k))
    pointwise = _pointwise(kernel, stride, padding)
    (nb, rb), chunks = _blocks(n, ho, wo, c * kh * kw * wo, out.itemsize, views=pointwise, batch_row=o * wo)
    cols_buf = _buffer(c * kh * kw * nb * rb * wo, out.dtype) if nb > 1 or not pointwise else None
    res_buf = _buffer(o * nb * ho * wo, out.dtype) if nb > 1 else None
    for n0, n1, r0, r1 in chunks:
        length = (n1 - n0) * (r1 - r0) * wo
        if pointwise:
            cols = _channels_first(x, cols_buf, n0, n1, r0, r1)
        else:
            cols = _patches(x, cols_buf, n0, n1, r0, r1, wo, kernel, stride, padding, dilation)
        cm = np.reshape(cols, (g, k, length))
        if n1 - n0 == 1:
            np.matmul(wm, cm, out=_view(out[n0, :, r0:r1], (g, og, length)))
        else:
            res = _part(res_buf, (g, og, length))
            np.matmul(wm, cm, out=res)
            np.copyto(out[n0:n1], _view(res, (o, n1 - n0, ho, wo)).transpose(1, 0, 2, 3))
    return out


def conv_transpose2d_out(x, w, *, out, stride, padding, output_padding, dilation, groups):
    """col2im: per chunk of input rows, ``cols = W^T x`` (one product), then
    each window offset's patch is added at its strided output positions."""
    x, w = _as(x, out.dtype), _as(w, out.dtype)
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    o = out.shape[1]
    g, cg = groups, c // groups
    ho, wo = out.shape[2:]
    kernel = (kh, kw)
    if out.size == 0:
        return out
    if c == 0 or h == 0 or wd == 0:
        out.fill(0)
        return out
    wt = np.reshape(w, (g, cg, og * kh * kw)).transpose(0, 2, 1)  # (G, O/G*kh*kw, C/G): BLAS reads it transposed
    if _pointwise(kernel, stride, padding) and (ho, wo) == (h, wd) and h * wd >= BATCH_BELOW:
        np.matmul(wt, np.reshape(x, (n, g, cg, h * wd)), out=_view(out, (n, g, og, ho * wo)))
        return out
    out.fill(0)
    (nb, rb), chunks = _blocks(n, h, wd, o * kh * kw * wd, out.itemsize, batch_row=c * wd)
    cols_buf = _buffer(o * kh * kw * nb * rb * wd, out.dtype)
    x_buf = _buffer(c * nb * h * wd, out.dtype) if nb > 1 else None
    for n0, n1, r0, r1 in chunks:
        length = (n1 - n0) * (r1 - r0) * wd
        xs = np.reshape(_channels_first(x, x_buf, n0, n1, r0, r1), (g, cg, length))
        cols = _part(cols_buf, (o, kh, kw, n1 - n0, r1 - r0, wd))
        product = np.multiply if cg == 1 else np.matmul  # depthwise: outer products, one broadcast multiply
        product(wt, xs, out=_view(cols, (g, og * kh * kw, length)))
        _col2im(cols.transpose(3, 0, 1, 2, 4, 5), out[n0:n1], r0, kernel, stride, padding, dilation)
    return out


def conv2d_backward_weight_out(x, g, *, out, stride, padding, dilation, groups, kernel):
    """dW[o, c, a, b] = sum over images and output positions of g * patch:
    per chunk one product ``g (G, O/G, n*r*W') @ cols^T``, summed into ``out``."""
    x, g = _as(x, out.dtype), _as(g, out.dtype)
    n, c, h, wd = x.shape
    o, cg, kh, kw = out.shape
    ho, wo = g.shape[2:]
    G, og, k = groups, o // groups, cg * kh * kw
    out3 = _view(out, (G, og, k))
    if out.size == 0:
        return out
    out.fill(0)
    if n == 0 or ho * wo == 0:
        return out
    pointwise = _pointwise(kernel, stride, padding)
    (nb, rb), chunks = _blocks(n, ho, wo, c * kh * kw * wo, out.itemsize, views=pointwise, batch_row=o * wo)
    cols_buf = _buffer(c * kh * kw * nb * rb * wo, out.dtype) if nb > 1 or not pointwise else None
    g_buf = _buffer(o * nb * ho * wo, out.dtype) if nb > 1 else None
    part_out = np.empty_like(out3) if len(chunks) > 1 else None
    for step, (n0, n1, r0, r1) in enumerate(chunks):
        length = (n1 - n0) * (r1 - r0) * wo
        if pointwise:
            cols = _channels_first(x, cols_buf, n0, n1, r0, r1)
        else:
            cols = _patches(x, cols_buf, n0, n1, r0, r1, wo, kernel, stride, padding, dilation)
        cm = np.reshape(cols, (G, k, length)).transpose(0, 2, 1)
        gm = np.reshape(_channels_first(g, g_buf, n0, n1, r0, r1), (G, og, length))
        if step == 0:
            np.matmul(gm, cm, out=out3)
        else:
            np.matmul(gm, cm, out=part_out)
            np.add(out3, part_out, out=out3)
    return out


# ---------------------------------------------------------------- pooling

def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def max_pool2d_out(x, *, out, kernel, stride, padding, dilation, ceil_mode):
    """Running maximum over the window offsets, into ``out`` (NaN propagates)."""
    out.fill(_lowest(out.dtype))
    if out.size == 0:
        return out
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(out.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        dilation):
        dst = out[:, :, i0:i1, j0:j1]
        np.maximum(dst, x[:, :, rows, cols], out=dst)
    return out


def _first_max_hits(x, y, kernel, stride, padding, dilation):
    """For each window offset in row-major order: the output block, the
    input slices, and a mask of the windows whose first maximum is there
    (ties go to the first; windows whose maximum is NaN get none)."""
    taken = np.zeros(y.shape, bool)
    hit = np.empty(y.shape, bool)
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(y.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        dilation):
        t = taken[:, :, i0:i1, j0:j1]
        h = hit[:, :, i0:i1, j0:j1]
        np.equal(x[:, :, rows, cols], y[:, :, i0:i1, j0:j1], out=h)
        np.greater(h, t, out=h)  # hit and not yet taken
        np.logical_or(t, h, out=t)
        yield (i0, i1, j0, j1), (rows, cols), h


def max_pool2d_backward_out(x, y, g, *, out, kernel, stride, padding, dilation, ceil_mode):
    """Each window's g added at its first maximum: per window offset,
    ``out[positions] += g * hit`` (an add with ``where=`` is ~10x slower in
    NumPy).  So a NaN or inf in g also reaches the window's other positions
    (as NaN), where a masked add would leave them alone."""
    out.fill(0)
    if out.size == 0 or y.size == 0:
        return out
    g = np.asarray(g)
    tmp = np.empty(y.shape, out.dtype)
    for (i0, i1, j0, j1), (rows, cols), h in _first_max_hits(x, y, kernel, stride, padding, dilation):
        t = tmp[:, :, i0:i1, j0:j1]
        np.multiply(g[:, :, i0:i1, j0:j1], h, out=t)
        dst = out[:, :, rows, cols]
        np.add(dst, t, out=dst)
    return out


def max_pool2d_select_out(x, y, c, *, out, kernel, stride, padding, dilation, ceil_mode):
    """c read at each window's first maximum: ``out += c[positions] * hit``."""
    out.fill(0)
    if out.size == 0:
        return out
    c = np.asarray(c)
    tmp = np.empty(y.shape, out.dtype)
    for (i0, i1, j0, j1), (rows, cols), h in _first_max_hits(x, y, kernel, stride, padding, dilation):
        t = tmp[:, :, i0:i1, j0:j1]
        np.multiply(c[:, :, rows, cols], h, out=t)
        dst = out[:, :, i0:i1, j0:j1]
        np.add(dst, t, out=dst)
    return out


def _avg_divisor(out_hw, in_hw, kernel, stride, padding, count_include_pad, dtype):
    """The divisor of each output position (PyTorch's rule, with the end
    padding apart): the window clipped to the padded image, or to the image
    itself when ``count_include_pad`` is False."""
    sizes = []
    for no, ni, k, s, (p0, p1) in zip(out_hw, in_hw, kernel, stride, padding):
        start = np.arange(no) * s - p0
        end = np.minimum(start + k, ni + p1)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(np.minimum(end, ni) - np.maximum(start, 0))
    return np.multiply.outer(sizes[0], sizes[1]).astype(dtype)


def avg_pool2d_out(x, *, out, kernel, stride, padding, ceil_mode, count_include_pad):
    out.fill(0)
    if out.size == 0:
        return out
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(out.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        (1, 1)):
        dst = out[:, :, i0:i1, j0:j1]
        np.add(dst, x[:, :, rows, cols], out=dst)
    with np.errstate(divide="ignore", invalid="ignore"):  # a window wholly in the padding: 0/0, as PyTorch
        np.divide(out, _avg_divisor(out.shape[2:], x.shape[2:], kernel, stride, padding, count_include_pad,
                                    out.dtype), out=out)
    return out


def avg_pool2d_backward_out(g, *, out, kernel, stride, padding, ceil_mode, count_include_pad, input_hw):
    out.fill(0)
    if out.size == 0 or g.size == 0:
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        gd = np.divide(g, _avg_divisor(g.shape[2:], input_hw, kernel, stride, padding, count_include_pad,
                                       out.dtype), dtype=out.dtype)
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(g.shape[2:], input_hw, kernel, stride, padding, (1, 1)):
        dst = out[:, :, rows, cols]
        np.add(dst, gd[:, :, i0:i1, j0:j1], out=dst)
    return out


# ---------------------------------------------------------------- random numbers

def _generator(key):
    # Philox takes the key directly (counter-based: each key is its own stream);
    # a negative key wraps around, as in two's complement
    return np.random.Generator(np.random.Philox(key=int(key) & 0xFFFFFFFFFFFFFFFF))


def random_uniform_out(key, *, out, shape, dtype):
    _generator(key).random(out=out, dtype=out.dtype)
    return out


# ---------------------------------------------------------------- erf

# W. J. Cody, "Rational Chebyshev approximations for the error function",
# Math. Comp. 23 (1969): the coefficients of his CALERF (netlib specfun).
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
      1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_SQRPI = 5.6418958354775628695e-1  # 1/sqrt(pi)
_THRESH = 0.46875

#: elements per erf chunk (its float64 temporaries stay in cache)
ERF_CHUNK = 1 << 14


def _exp_minus_square(y):
    """exp(-y*y) to full precision: y*y split so its rounding error is not
    amplified (Cody's trick)."""
    ysq = np.trunc(y * 16.0) / 16.0
    return np.exp(-ysq * ysq) * np.exp(-(y - ysq) * (y + ysq))


def _erf64(x):
    """erf of a float64 array (a new array)."""
    y = np.abs(x)
    out = np.empty_like(y)
    small = y <= _THRESH
    mid = ~small & (y <= 4.0)
    big = y > 4.0
    if small.any():
        v = x[small]
        z = v * v
        num, den = _A[4] * z, z
        for i in range(3):
            num = (num + _A[i]) * z
            den = (den + _B[i]) * z
        out[small] = v * (num + _A[3]) / (den + _B[3])
    if mid.any():
        v = y[mid]
        num, den = _C[8] * v, v
        for i in range(7):
            num = (num + _C[i]) * v
            den = (den + _D[i]) * v
        erfc = (num + _C[7]) / (den + _D[7]) * _exp_minus_square(v)
        out[mid] = np.copysign((0.5 - erfc) + 0.5, x[mid])
    if big.any():
        v = y[big]
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            z = 1.0 / (v * v)
            num, den = _P[5] * z, z
            for i in range(4):
                num = (num + _P[i]) * z
                den = (den + _Q[i]) * z
            r = z * (num + _P[4]) / (den + _Q[4])
            erfc = np.where(v < 27.0, (_SQRPI - r) / v * _exp_minus_square(np.minimum(v, 27.0)), 0.0)
        out[big] = np.copysign((0.5 - erfc) + 0.5, x[big])
    nan = np.isnan(x)
    if nan.any():
        out[nan] = np.nan
    return out


def erf_out(x, *, out):
    """Chunked: float64 temporaries for ERF_CHUNK elements at a time.  Works
    in place (each chunk is read before it is written); a non-contiguous
    input is flattened once (a copy)."""
    if out.ndim == 0:
        out[...] = _erf64(np.asarray(x, dtype=np.float64).reshape(1))[0]
        return out
    flat_x, flat_out = np.ravel(x), _view(out, (-1,))
    for s in range(0, out.size, ERF_CHUNK):
        e = min(out.size, s + ERF_CHUNK)
        flat_out[s:e] = _erf64(flat_x[s:e].astype(np.float64))
    return out


# ---------------------------------------------------------------- registration

def _register(op, out_kernel, result):
    """``result(*args, **params) -> (shape, dtype)`` sizes the plain kernel's
    output; the plain kernel then runs the out-kernel into it."""
    def kernel(*args, **params):
        shape, dtype = result(*args, **params)
        return out_kernel(*args, out=np.empty(shape, dtype), **params)
    kernel.__name__ = op
    set_attr(op, "numpy_kernel", kernel)
    set_attr(op, "numpy_out_kernel", out_kernel)


def _res(*arrays):
    return np.result_type(*(np.asarray(a).dtype for a in arrays))


def _conv2d_result(x, w, stride, padding, dilation, groups):
    from ...ops.nn import conv_out_size

    hw = tuple(conv_out_size(m, k, s, p[0], p[1], d)
               for m, k, s, p, d in zip(x.shape[2:], w.shape[2:], stride, padding, dilation))
    return (x.shape[0], w.shape[0]) + hw, _res(x, w)


def _conv_transpose2d_result(x, w, stride, padding, output_padding, dilation, groups):
    from ...ops.nn import conv_transpose_out_size

    hw = tuple(conv_transpose_out_size(m, k, s, p[0], p[1], d, q)
               for m, k, s, p, d, q in zip(x.shape[2:], w.shape[2:], stride, padding, dilation, output_padding))
    return (x.shape[0], w.shape[1] * groups) + hw, _res(x, w)


def _pool_result(x, kernel, stride, padding, dilation=(1, 1), ceil_mode=False, **_):
    from ...ops.nn import pool_out_size

    hw = tuple(pool_out_size(m, k, s, p[0], p[1], d, ceil_mode)
               for m, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    return x.shape[:2] + hw, np.asarray(x).dtype


_register("conv2d", conv2d_out, _conv2d_result)
_register("conv_transpose2d", conv_transpose2d_out, _conv_transpose2d_result)
_register("conv2d_backward_weight", conv2d_backward_weight_out,
          lambda x, g, groups, kernel, **p: ((g.shape[1], x.shape[1] // groups) + tuple(kernel), _res(x, g)))
_register("max_pool2d", max_pool2d_out, _pool_result)
_register("max_pool2d_backward", max_pool2d_backward_out, lambda x, y, g, **p: (x.shape, np.asarray(g).dtype))
_register("max_pool2d_select", max_pool2d_select_out, lambda x, y, c, **p: (y.shape, np.asarray(c).dtype))
_register("avg_pool2d", avg_pool2d_out, _pool_result)
_register("avg_pool2d_backward", avg_pool2d_backward_out,
          lambda g, input_hw, **p: (g.shape[:2] + tuple(input_hw), np.asarray(g).dtype))
_register("random_uniform", random_uniform_out, lambda key, shape, dtype: (shape, dtype))
_register("erf", erf_out, lambda x: (np.shape(x), np.sin(np.zeros(1, np.asarray(x).dtype)).dtype))
