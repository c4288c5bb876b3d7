"""NumPy kernels of the neural-network ops (``fgraph/ops/nn.py``, whose OpDefs
carry them), and the window geometry both share.

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

Measured and not taken: patches as whole contiguous strips of a padded (for
strides, polyphase) copy of the input, each row of the patch matrix one
long copy and the product over ``W' + kw - 1`` columns, cut afterwards
(bit-identical; at 4 MiB chunks 0.78-1.09x the time of the per-offset
copies on ResNet-50 and Inception layers: the extra columns cost what the
longer copies save); Winograd F(2x2, 3x3) with ufunc transforms (the
transforms cost more than the cheaper products save).

Pools read strided window slices of the unpadded input and accumulate into
their output: no padding copy either.

The kernels are written against ``xp()``, the current device's array module
(NumPy on the host, CuPy on a GPU: the CuPy engine reuses them, see
``cupy_kernels/nn.py``): every allocation, product and copy goes through it,
so no host array is made on a device.  Only ``random_uniform`` draws on the
host (Philox, NumPy's stream) and uploads.
"""
from __future__ import annotations

import math

import numpy as np

from .scratch import ALIGN, aligned, carve  # noqa: F401  (workspace carving, shared with the fused runtime)


# ---------------------------------------------------------------- geometry

def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def conv_out_size(n: int, k: int, s: int, p0: int, p1: int, d: int) -> int:
    """Output length of a convolution along one axis (may be <= 0: caller checks)."""
    return (n + p0 + p1 - d * (k - 1) - 1) // s + 1


def conv_transpose_out_size(n: int, k: int, s: int, p0: int, p1: int, d: int, op: int) -> int:
    return (n - 1) * s - p0 - p1 + d * (k - 1) + op + 1


def pool_out_size(n: int, k: int, s: int, p0: int, p1: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output length, with the start and end padding apart
    (ONNX pads asymmetrically).  With ``ceil_mode`` a last window that would
    start in the end padding is dropped."""
    span = n + p0 + p1 - d * (k - 1) - 1
    out = (ceil_div(span, s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= n + p0:
        out -= 1
    return out


def valid_range(n_out: int, n_in: int, s: int, offset: int) -> tuple[int, int]:
    """Output positions ``i`` in ``[0, n_out)`` whose input ``i*s + offset``
    lies in ``[0, n_in)``: the half-open range ``(i0, i1)`` (maybe empty)."""
    i0 = max(0, ceil_div(-offset, s))
    i1 = min(n_out, ceil_div(n_in - offset, s))
    return i0, max(i0, i1)


def windows(out_hw, in_hw, kernel, stride, padding, dilation):
    """For each window offset ``(a, b)``: the output block ``(i0, i1, j0, j1)``
    whose inputs are inside the image, and the input slices it reads
    (strided).  Offsets whose block is empty are skipped.  Kernels use this
    instead of padding their input, so padding costs no copy."""
    (ho, wo), (h, w) = out_hw, in_hw
    (kh, kw), (sh, sw), ((pt, _), (pl, _)), (dh, dw) = kernel, stride, padding, dilation
    for a in range(kh):
        i0, i1 = valid_range(ho, h, sh, a * dh - pt)
        if i0 == i1:
            continue
        r0 = i0 * sh + a * dh - pt
        rows = slice(r0, r0 + (i1 - i0 - 1) * sh + 1, sh)
        for b in range(kw):
            j0, j1 = valid_range(wo, w, sw, b * dw - pl)
            if j0 == j1:
                continue
            c0 = j0 * sw + b * dw - pl
            yield a, b, (i0, i1, j0, j1), (rows, slice(c0, c0 + (j1 - j0 - 1) * sw + 1, sw))



#: bytes of im2col patches per chunk (at least one output row's worth).
#: Measured on ResNet50 layers, batch 1 and 8 (0.5 .. 64 MiB): 4 MiB is the
#: fastest (the patches are still in cache when the product reads them);
#: 2 MiB costs ~10%, 0.5 MiB ~40%, and unbounded whole batches ~50% at batch 8
SCRATCH_BYTES = 4 << 20

#: images with fewer output positions than this are batched into one
#: product (see ``_blocks``)
BATCH_BELOW = 1024


def xp():
    """The array module of the device the kernels run on (NumPy on the host)."""
    from ..devices import current  # (here: ``import fgraph.numpy`` leaves fgraph.devices for first use)

    return current().xp


def _dtype(a) -> np.dtype:
    """The dtype of an array of any array module (or of a Python scalar)."""
    return a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype


def _view(a, shape):
    """``a`` reshaped without a copy (raises rather than silently copying;
    CuPy's reshape has no ``copy=False``: a reshape that copied is the one
    whose result lies outside ``a``'s memory)."""
    m = xp()
    if m is np:
        return np.reshape(a, shape, copy=False)
    v = a.reshape(shape)
    if v.size and not m.may_share_memory(v, a):
        raise ValueError(f"a reshape of {a.shape} to {shape} would copy")
    return v


def _blocks(n: int, rows: int, row_len: int, per_row: int, itemsize: int, views: bool = False,
            batch_row: int = 0, budget: int | None = None):
    """Capacity ``(images, rows)`` of a chunk, and the chunks ``(n0, n1, r0,
    r1)``.  ``per_row``: scratch elements per output row of one image.

    Images of at least ``BATCH_BELOW`` output positions go one at a time (in
    blocks of rows when their patches exceed the budget): their product is
    large enough for BLAS and writes straight into the output.  Smaller
    images are batched, as many as the budget holds, into one product whose
    result is then copied into place (one GEMM instead of many tiny ones).
    ``views``: one image needs no scratch (a 1x1 convolution's patches are
    its input), so its rows are never split.  ``batch_row``: elements per
    row of the extra buffer a batch needs (the result before its copy).
    ``budget``: scratch bytes (default ``SCRATCH_BYTES``)."""
    budget = SCRATCH_BYTES if budget is None else budget
    per_image = rows * per_row * itemsize
    batched = rows * (per_row + batch_row) * itemsize
    if rows * row_len >= BATCH_BELOW or n <= 1 or batched > budget:
        nb = 1
        rb = rows if views or per_image <= budget else \
            max(1, min(rows, budget // max(per_row * itemsize, 1)))
    else:
        nb, rb = min(n, budget // max(batched, 1)), rows
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
    m = xp()
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
            m.add(dst, cols[:, :, a, b, i0:i1, j0:j1], out=dst)


def _pointwise(kernel, stride, padding) -> bool:
    return kernel == (1, 1) and stride == (1, 1) and padding == ((0, 0), (0, 0))


def _as(a, dtype):
    """``a`` C-contiguous in ``dtype`` (a copy only when needed): with
    canonical strides every call takes the same BLAS paths, so results do
    not depend on how a feed was laid out."""
    return xp().ascontiguousarray(a, dtype=dtype)


# ---------------------------------------------------------------- convolutions
#
# A chunk of n images and r rows has its patches in ``cols`` laid out
# (C, kh, kw, n, r, W'): as a matrix per group (C/G*kh*kw, n*r*W'), so one
# product covers the chunk.  With one image per chunk the product's other
# operand and its result are plain views of the input and output.

def _buffer(shape_or_size, dtype):
    return xp().empty(shape_or_size if isinstance(shape_or_size, int) else math.prod(shape_or_size), dtype)


def _scratch_nbytes(counts, itemsize: int) -> int:
    """Workspace bytes for flat buffers of ``counts`` elements, each aligned."""
    return sum(aligned(n * itemsize) for n in counts)


#: the least scratch a planned convolution accepts when its arena has no
#: room for ``SCRATCH_BYTES`` at its step (smaller chunks cost time on the
#: layers cut: 2 MiB measured ~10% slower on ResNet-50's 3x3 layers, 1 MiB
#: ~20%, 0.5 MiB ~40%).  1 MiB rather than 2: Inception v2's arena at batch
#: 1 fell from 5.0 to 4.3 MB for 2% more time (ResNet-50's peak is values)
SCRATCH_LEAST = 1 << 20


def _fit(sizes, workspace, itemsize):
    """Chunks and scratch counts of a kernel: ``sizes(budget)`` at the
    default budget, or, when the planner gave a smaller ``workspace``, at
    the budget it holds (its chunks are then shorter)."""
    chunks, counts = sizes(None)
    if workspace is not None and workspace.nbytes < _scratch_nbytes(counts, itemsize):
        chunks, counts = sizes(max(1, workspace.nbytes - len(counts) * ALIGN))
    return chunks, counts


def _workspace_sizes(sizes, itemsize):
    """A sizer's answer: (preferred bytes, least bytes) of the workspace."""
    want = _scratch_nbytes(sizes(None)[1], itemsize)
    return want, min(want, _scratch_nbytes(sizes(SCRATCH_LEAST)[1], itemsize))


def _scratch(workspace, counts, dtype):
    """Flat buffers of ``counts`` elements (``None`` for 0), carved from
    ``workspace`` (the memory planner's block, live only while this kernel
    runs) when it is given and large enough; else allocated, as without a
    plan."""
    dtype = np.dtype(dtype)
    if workspace is None or workspace.nbytes < _scratch_nbytes(counts, dtype.itemsize):
        return [_buffer(n, dtype) if n else None for n in counts]
    return [b if n else None for n, b in zip(counts, carve(workspace, [(n, dtype) for n in counts]))]


def _conv2d_scratch(n, c, o, kh, kw, ho, wo, itemsize, pointwise, budget=None):
    """Chunks of a convolution (or its weight gradient) and its scratch in
    elements: (patches, one batched block of the output or the gradient)."""
    (nb, rb), chunks = _blocks(n, ho, wo, c * kh * kw * wo, itemsize, views=pointwise, batch_row=o * wo,
                               budget=budget)
    cols = c * kh * kw * nb * rb * wo if nb > 1 or not pointwise else 0
    return chunks, (cols, o * nb * ho * wo if nb > 1 else 0)


def _conv_transpose2d_scratch(n, c, o, kh, kw, h, wd, itemsize, budget=None):
    """Chunks of a transposed convolution and its scratch in elements:
    (patches, one batched block of the input)."""
    (nb, rb), chunks = _blocks(n, h, wd, o * kh * kw * wd, itemsize, batch_row=c * wd, budget=budget)
    return chunks, (o * kh * kw * nb * rb * wd, c * nb * h * wd if nb > 1 else 0)


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
    xp().copyto(part, a[n0:n1, :, r0:r1].transpose(1, 0, 2, 3))
    return part


def conv2d_out(x, w, *, out, stride, padding, dilation, groups, workspace=None):
    """im2col per chunk, then ``W (G, O/G, K) @ cols (G, K, n*r*W')``; a 1x1
    stride-1 convolution skips im2col (its patches are the input itself).
    ``workspace``: planned scratch (see ``conv2d_workspace``)."""
    m = xp()
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
    chunks, counts = _fit(lambda b: _conv2d_scratch(n, c, o, kh, kw, ho, wo, out.itemsize, pointwise, b),
                          workspace, out.itemsize)
    cols_buf, res_buf = _scratch(workspace, counts, out.dtype)
    for n0, n1, r0, r1 in chunks:
        length = (n1 - n0) * (r1 - r0) * wo
        if pointwise:
            cols = _channels_first(x, cols_buf, n0, n1, r0, r1)
        else:
            cols = _patches(x, cols_buf, n0, n1, r0, r1, wo, kernel, stride, padding, dilation)
        cm = m.reshape(cols, (g, k, length))
        if n1 - n0 == 1:
            m.matmul(wm, cm, out=_view(out[n0, :, r0:r1], (g, og, length)))
        else:
            res = _part(res_buf, (g, og, length))
            m.matmul(wm, cm, out=res)
            m.copyto(out[n0:n1], _view(res, (o, n1 - n0, ho, wo)).transpose(1, 0, 2, 3))
    return out


def conv_transpose2d_out(x, w, *, out, stride, padding, output_padding, dilation, groups, workspace=None):
    """col2im: per chunk of input rows, ``cols = W^T x`` (one product), then
    each window offset's patch is added at its strided output positions."""
    m = xp()
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
    wt = m.reshape(w, (g, cg, og * kh * kw)).transpose(0, 2, 1)  # (G, O/G*kh*kw, C/G): BLAS reads it transposed
    if _pointwise(kernel, stride, padding) and (ho, wo) == (h, wd) and h * wd >= BATCH_BELOW:
        m.matmul(wt, m.reshape(x, (n, g, cg, h * wd)), out=_view(out, (n, g, og, ho * wo)))
        return out
    out.fill(0)
    chunks, counts = _fit(lambda b: _conv_transpose2d_scratch(n, c, o, kh, kw, h, wd, out.itemsize, b),
                          workspace, out.itemsize)
    cols_buf, x_buf = _scratch(workspace, counts, out.dtype)
    for n0, n1, r0, r1 in chunks:
        length = (n1 - n0) * (r1 - r0) * wd
        xs = m.reshape(_channels_first(x, x_buf, n0, n1, r0, r1), (g, cg, length))
        cols = _part(cols_buf, (o, kh, kw, n1 - n0, r1 - r0, wd))
        product = m.multiply if cg == 1 else m.matmul  # depthwise: outer products, one broadcast multiply
        product(wt, xs, out=_view(cols, (g, og * kh * kw, length)))
        _col2im(cols.transpose(3, 0, 1, 2, 4, 5), out[n0:n1], r0, kernel, stride, padding, dilation)
    return out


def conv2d_backward_weight_out(x, g, *, out, stride, padding, dilation, groups, kernel, workspace=None):
    """dW[o, c, a, b] = sum over images and output positions of g * patch:
    per chunk one product ``g (G, O/G, n*r*W') @ cols^T``, summed into ``out``."""
    m = xp()
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
    chunks, counts = _fit(lambda b: _weight_grad_scratch(n, c, o, kh, kw, ho, wo, out.itemsize, pointwise,
                                                         out.size, b), workspace, out.itemsize)
    cols_buf, g_buf, part_buf = _scratch(workspace, counts, out.dtype)
    part_out = _part(part_buf, out3.shape) if part_buf is not None else None
    for step, (n0, n1, r0, r1) in enumerate(chunks):
        length = (n1 - n0) * (r1 - r0) * wo
        if pointwise:
            cols = _channels_first(x, cols_buf, n0, n1, r0, r1)
        else:
            cols = _patches(x, cols_buf, n0, n1, r0, r1, wo, kernel, stride, padding, dilation)
        cm = m.reshape(cols, (G, k, length)).transpose(0, 2, 1)
        gm = m.reshape(_channels_first(g, g_buf, n0, n1, r0, r1), (G, og, length))
        if step == 0:
            m.matmul(gm, cm, out=out3)
        else:
            m.matmul(gm, cm, out=part_out)
            m.add(out3, part_out, out=out3)
    return out


# ---------------------------------------------------------------- pooling

def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


#: scratch bytes of the flat pools per chunk of channels (all buffers),
#: mostly in cache between the passes (measured on Inception v2's pools:
#: 256 KiB .. 1 MiB alike, 192 KiB ~15% slower).  Images whose one channel
#: needs more take the sliced path (long rows: its per-row cost is small)
POOL_CHUNK_BYTES = 512 << 10


def _pool_geometry(x, out_hw, kernel, stride, padding, dilation):
    """The padded box a pool reads, ``(Hp, Wp)`` (``Wp`` a multiple of the
    column stride) and the input rows/columns inside it ``(r0, r1, c0, c1)``."""
    (h, w), (ho, wo) = x.shape[2:], out_hw
    (kh, kw), (sh, sw), ((pt, _), (pl, _)), (dh, dw) = kernel, stride, padding, dilation
    hp = (ho - 1) * sh + (kh - 1) * dh + 1
    wp = -(-((wo - 1) * sw + (kw - 1) * dw + 1) // sw) * sw
    return hp, wp, (max(0, -pt), min(h, hp - pt), max(0, -pl), min(w, wp - pl))


def _channel_chunks(x, out, per_channel: int):
    """Chunks ``(x3, out3, c0, c1)`` of channels whose scratch
    (``per_channel`` elements each) fits ``POOL_CHUNK_BYTES``; None when one
    channel does not.  ``x3``, ``out3``: the N*C channels as (N*C, H, W)
    views when both arrays allow it (chunks then span images: small images
    in large batches take few chunks), else each image's (C, H, W) (the
    output may be a channel slice of a concatenation)."""
    try:
        images = [(_view(x, (-1,) + x.shape[2:]), _view(out, (-1,) + out.shape[2:]))]
    except ValueError:
        images = [(x[i], out[i]) for i in range(x.shape[0])]
    c = images[0][0].shape[0]
    step = min(c, POOL_CHUNK_BYTES // max(1, per_channel * out.itemsize))
    return [(x3, o3, c0, min(c, c0 + step)) for x3, o3 in images for c0 in range(0, c, step)] if step else None


def _max_pool2d_sliced(x, out, kernel, stride, padding, dilation):
    """Running maximum over the window offsets' strided slices, into ``out``."""
    m = xp()
    out.fill(_lowest(out.dtype))
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(out.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        dilation):
        dst = out[:, :, i0:i1, j0:j1]
        m.maximum(dst, x[:, :, rows, cols], out=dst)
    return out


def _padded_chunk(pbuf, x3, c0, c1, hp, wp, top, left, box):
    """Channels c0..c1 of ``x3`` (C, H, W) copied into the padded box at
    the start of ``pbuf`` (whose border already holds the padding value)."""
    r0, r1, q0, q1 = box
    p3 = _view(pbuf[:(c1 - c0) * hp * wp], (c1 - c0, hp, wp))
    if r0 < r1 and q0 < q1:
        p3[:, top + r0:top + r1, left + q0:left + q1] = x3[c0:c1, r0:r1, q0:q1]
    return pbuf[:(c1 - c0) * hp * wp]


def max_pool2d_out(x, *, out, kernel, stride, padding, dilation, ceil_mode, workspace=None):
    """Separable running maximum (NaN propagates).  Per chunk of channels,
    the input is copied into a box padded with the lowest value, flat per
    chunk; a column pass ``R[k] = max_b P[sw*k + b*dw]`` (kw flat strided
    maxima over the whole chunk: the padded width is a multiple of sw, so R
    is the box at every sw-th column) then a row pass over R's rows (flat
    too at row stride 1): kh + kw operations instead of kh*kw short-row
    ones.  Each window's maximum is taken over its columns first, then its
    rows, i.e. still in row-major order, so ties (+0.0 / -0.0) and NaNs
    resolve as in a running maximum over the window in row-major order;
    the padding's lowest value never wins over an element.  Images too
    large for ``POOL_CHUNK_BYTES`` take ``_max_pool2d_sliced``."""
    m = xp()
    if out.size == 0:
        return out
    ho, wo = out.shape[2:]
    (kh, kw), (sh, sw), ((pt, _), (pl, _)), (dh, dw) = kernel, stride, padding, dilation
    hp, wp, box = _pool_geometry(x, (ho, wo), kernel, stride, padding, dilation)
    wq, rows_flat = wp // sw, sh == 1 and kh > 1
    chunks = _channel_chunks(x, out, hp * (wp + wq * (1 + rows_flat)))
    if chunks is None:
        return _max_pool2d_sliced(x, out, kernel, stride, padding, dilation)
    cap = chunks[0][3] - chunks[0][2]
    pbuf, rbuf, mbuf = _scratch(workspace, (cap * hp * wp, cap * hp * wq, cap * hp * wq * rows_flat), out.dtype)
    pbuf.fill(_lowest(out.dtype))
    for x3, o3, c0, c1 in chunks:
        pf = _padded_chunk(pbuf, x3, c0, c1, hp, wp, pt, pl, box)
        n = (pf.size - 1 - (kw - 1) * dw) // sw + 1  # R positions whose reads stay in the chunk
        span = sw * (n - 1) + 1
        rf = rbuf[:n]
        m.copyto(rf, pf[:span:sw])
        for b in range(1, kw):
            m.maximum(rf, pf[b * dw:b * dw + span:sw], out=rf)
        dst = o3[c0:c1]
        if mbuf is not None:  # row stride 1: M[k] = max_a R[k + a*dh*wq], flat
            n = (c1 - c0) * hp * wq - (kh - 1) * dh * wq
            mf = mbuf[:n]
            m.copyto(mf, rbuf[:n])
            for a in range(1, kh):
                m.maximum(mf, rbuf[a * dh * wq:a * dh * wq + n], out=mf)
            m.copyto(dst, _view(mbuf[:(c1 - c0) * hp * wq], (c1 - c0, hp, wq))[:, :ho, :wo])
        else:
            r3 = _view(rbuf[:(c1 - c0) * hp * wq], (c1 - c0, hp, wq))
            m.copyto(dst, r3[:, :sh * (ho - 1) + 1:sh, :wo])
            for a in range(1, kh):
                m.maximum(dst, r3[:, a * dh:a * dh + sh * (ho - 1) + 1:sh, :wo], out=dst)
    return out


def _first_max_hits(x, y, kernel, stride, padding, dilation):
    """For each window offset in row-major order: the output block, the
    input slices, and a mask of the windows whose first maximum is there
    (ties go to the first; windows whose maximum is NaN get none)."""
    m = xp()
    taken = m.zeros(y.shape, bool)
    hit = m.empty(y.shape, bool)
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(y.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        dilation):
        t = taken[:, :, i0:i1, j0:j1]
        h = hit[:, :, i0:i1, j0:j1]
        m.equal(x[:, :, rows, cols], y[:, :, i0:i1, j0:j1], out=h)
        m.greater(h, t, out=h)  # hit and not yet taken
        m.logical_or(t, h, out=t)
        yield (i0, i1, j0, j1), (rows, cols), h


def max_pool2d_backward_out(x, y, g, *, out, kernel, stride, padding, dilation, ceil_mode):
    """Each window's g added at its first maximum: per window offset,
    ``out[positions] += g * hit`` (an add with ``where=`` is ~10x slower in
    NumPy).  So a NaN or inf in g also reaches the window's other positions
    (as NaN), where a masked add would leave them alone."""
    out.fill(0)
    if out.size == 0 or y.size == 0:
        return out
    m = xp()
    g = m.asarray(g)
    tmp = m.empty(y.shape, out.dtype)
    for (i0, i1, j0, j1), (rows, cols), h in _first_max_hits(x, y, kernel, stride, padding, dilation):
        t = tmp[:, :, i0:i1, j0:j1]
        m.multiply(g[:, :, i0:i1, j0:j1], h, out=t)
        dst = out[:, :, rows, cols]
        m.add(dst, t, out=dst)
    return out


def max_pool2d_select_out(x, y, c, *, out, kernel, stride, padding, dilation, ceil_mode):
    """c read at each window's first maximum: ``out += c[positions] * hit``."""
    out.fill(0)
    if out.size == 0:
        return out
    m = xp()
    c = m.asarray(c)
    tmp = m.empty(y.shape, out.dtype)
    for (i0, i1, j0, j1), (rows, cols), h in _first_max_hits(x, y, kernel, stride, padding, dilation):
        t = tmp[:, :, i0:i1, j0:j1]
        m.multiply(c[:, :, rows, cols], h, out=t)
        dst = out[:, :, i0:i1, j0:j1]
        m.add(dst, t, out=dst)
    return out


def _avg_divisor(out_hw, in_hw, kernel, stride, padding, count_include_pad, dtype):
    """The divisor of each output position (PyTorch's rule, with the end
    padding apart): the window clipped to the padded image, or to the image
    itself when ``count_include_pad`` is False.  Integer arithmetic on the
    device (exact, so the same values everywhere)."""
    m = xp()
    sizes = []
    for no, ni, k, s, (p0, p1) in zip(out_hw, in_hw, kernel, stride, padding):
        start = m.arange(no) * s - p0
        end = m.minimum(start + k, ni + p1)
        if count_include_pad:
            sizes.append(end - start)
        else:
            sizes.append(m.minimum(end, ni) - m.maximum(start, 0))
    return (sizes[0][:, None] * sizes[1][None, :]).astype(dtype)


def avg_pool2d_out(x, *, out, kernel, stride, padding, ceil_mode, count_include_pad, workspace=None):
    """Window sums, from 0 in row-major order of the window, divided by the
    window's count (``_avg_divisor``).  Stride 1: the flat padded path
    (``_avg_pool2d_flat``); else, or when the output has few positions
    (a global pool: the window shifts are then short slices), each window
    offset's strided slice is added into the output."""
    m = xp()
    if out.size == 0:
        return out
    if _avg_flat(out.shape[2:], kernel, stride) and \
            _avg_pool2d_flat(x, out, kernel, padding, count_include_pad, workspace):
        return out
    out.fill(0)
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(out.shape[2:], x.shape[2:], kernel, stride, padding,
                                                        (1, 1)):
        dst = out[:, :, i0:i1, j0:j1]
        m.add(dst, x[:, :, rows, cols], out=dst)
    with np.errstate(divide="ignore", invalid="ignore"):  # a window wholly in the padding: 0/0, as PyTorch
        m.divide(out, _avg_divisor(out.shape[2:], x.shape[2:], kernel, stride, padding, count_include_pad,
                                    out.dtype), out=out)
    return out


def _avg_flat(out_hw, kernel, stride) -> bool:
    """Whether an average pool takes the flat path: stride 1, and a padded
    box not much larger than the output (a global pool's window shifts are
    short slices: the sliced sums win there)."""
    (ho, wo), (kh, kw) = out_hw, kernel
    return stride == (1, 1) and (ho + kh - 1) * (wo + kw - 1) <= ho * (wo + 16)


def _avg_pool2d_flat(x, out, kernel, padding, count_include_pad, workspace=None):
    """Stride-1 average pool on the padded box, flat per chunk of channels:
    ``S[k] = sum_(a, b) P[k + a*Wp + b]`` in row-major window order over
    long contiguous runs, then ``S`` (on the padded width) divided into the
    output.  Bit-identical to the sliced sum: the sum starts as ``0.0 +
    P[k]`` (so a -0.0 becomes +0.0, as from 0) and a sum that starts at +0.0
    is never -0.0, so adding the padding's +0.0 leaves it unchanged.
    Returns False (nothing done) when one channel exceeds the budget."""
    m = xp()
    (ho, wo), (h, w), (kh, kw) = out.shape[2:], x.shape[2:], kernel
    (pt, _), (pl, _) = padding
    hp, wp, box = _pool_geometry(x, (ho, wo), kernel, (1, 1), padding, (1, 1))
    chunks = _channel_chunks(x, out, 2 * hp * wp)
    if chunks is None:
        return False
    cap = chunks[0][3] - chunks[0][2]
    pbuf, sbuf = _scratch(workspace, (cap * hp * wp, cap * hp * wp), out.dtype)
    pbuf.fill(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        div = _avg_divisor((ho, wo), (h, w), kernel, (1, 1), padding, count_include_pad, out.dtype)
        for x3, o3, c0, c1 in chunks:
            pf = _padded_chunk(pbuf, x3, c0, c1, hp, wp, pt, pl, box)
            n = pf.size - (kh - 1) * wp - (kw - 1)  # positions whose window stays in the chunk
            sf = sbuf[:n]
            m.add(pf[:n], 0.0, out=sf)
            for a in range(kh):
                for b in range(kw):
                    if a or b:
                        m.add(sf, pf[a * wp + b:a * wp + b + n], out=sf)
            s3 = _view(sbuf[:pf.size], (c1 - c0, hp, wp))
            m.divide(s3[:, :ho, :wo], div, out=o3[c0:c1])  # a window wholly in the padding: 0/0, as PyTorch
    return True


def avg_pool2d_backward_out(g, *, out, kernel, stride, padding, ceil_mode, count_include_pad, input_hw):
    m = xp()
    out.fill(0)
    if out.size == 0 or g.size == 0:
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        gd = m.divide(g, _avg_divisor(g.shape[2:], input_hw, kernel, stride, padding, count_include_pad,
                                       out.dtype), dtype=out.dtype)
    for a, b, (i0, i1, j0, j1), (rows, cols) in windows(g.shape[2:], input_hw, kernel, stride, padding, (1, 1)):
        dst = out[:, :, rows, cols]
        m.add(dst, gd[:, :, i0:i1, j0:j1], out=dst)
    return out


# ---------------------------------------------------------------- random numbers

def _generator(key):
    # Philox takes the key directly (counter-based: each key is its own stream);
    # a negative key wraps around, as in two's complement
    return np.random.Generator(np.random.Philox(key=int(key) & 0xFFFFFFFFFFFFFFFF))


def random_uniform_out(key, *, out, shape, dtype):
    """Philox on the host (NumPy's stream, so every device draws the same
    values); on another device, drawn into a host buffer and uploaded."""
    m = xp()
    if m is np:
        _generator(key).random(out=out, dtype=out.dtype)
        return out
    host = np.empty(out.shape, out.dtype)
    _generator(key).random(out=host, dtype=host.dtype)  # int(key): a device scalar comes to the host
    m.copyto(out, m.asarray(host))
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


def _exp_minus_square(m, y):
    """exp(-y*y) to full precision: y*y split so its rounding error is not
    amplified (Cody's trick)."""
    ysq = m.trunc(y * 16.0) / 16.0
    return m.exp(-ysq * ysq) * m.exp(-(y - ysq) * (y + ysq))


def _erf64(x):
    """erf of a float64 array (a new array)."""
    m = xp()
    y = m.abs(x)
    out = m.empty_like(y)
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
        erfc = (num + _C[7]) / (den + _D[7]) * _exp_minus_square(m, v)
        out[mid] = m.copysign((0.5 - erfc) + 0.5, x[mid])
    if big.any():
        v = y[big]
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            z = 1.0 / (v * v)
            num, den = _P[5] * z, z
            for i in range(4):
                num = (num + _P[i]) * z
                den = (den + _Q[i]) * z
            r = z * (num + _P[4]) / (den + _Q[4])
            erfc = m.where(v < 27.0, (_SQRPI - r) / v * _exp_minus_square(m, m.minimum(v, 27.0)), 0.0)
        out[big] = m.copysign((0.5 - erfc) + 0.5, x[big])
    nan = m.isnan(x)
    if nan.any():
        out[nan] = np.nan
    return out


def erf_out(x, *, out):
    """Chunked: float64 temporaries for ERF_CHUNK elements at a time.  Works
    in place (each chunk is read before it is written); a non-contiguous
    input is flattened once (a copy)."""
    m = xp()
    if out.ndim == 0:
        out[...] = _erf64(m.asarray(x, dtype=np.float64).reshape(1))[0]
        return out
    flat_x, flat_out = m.ravel(x), _view(out, (-1,))
    for s in range(0, out.size, ERF_CHUNK):
        e = min(out.size, s + ERF_CHUNK)
        flat_out[s:e] = _erf64(flat_x[s:e].astype(np.float64))
    return out


# ---------------------------------------------------------------- registration

def _plain(op, out_kernel, result):
    """The plain kernel of ``op``: ``result(*args, **params) -> (shape, dtype)``
    sizes its output, then the out-kernel runs into it (so the two are
    bit-identical by construction)."""
    def kernel(*args, **params):
        shape, dtype = result(*args, **params)
        return out_kernel(*args, out=xp().empty(shape, dtype), **params)
    kernel.__name__ = op
    return kernel


def _res(*arrays):
    return np.result_type(*(_dtype(a) for a in arrays))


def _conv2d_result(x, w, stride, padding, dilation, groups):
    hw = tuple(conv_out_size(m, k, s, p[0], p[1], d)
               for m, k, s, p, d in zip(x.shape[2:], w.shape[2:], stride, padding, dilation))
    return (x.shape[0], w.shape[0]) + hw, _res(x, w)


def _conv_transpose2d_result(x, w, stride, padding, output_padding, dilation, groups):
    hw = tuple(conv_transpose_out_size(m, k, s, p[0], p[1], d, q)
               for m, k, s, p, d, q in zip(x.shape[2:], w.shape[2:], stride, padding, dilation, output_padding))
    return (x.shape[0], w.shape[1] * groups) + hw, _res(x, w)


def _pool_result(x, kernel, stride, padding, dilation=(1, 1), ceil_mode=False, **_):
    hw = tuple(pool_out_size(m, k, s, p[0], p[1], d, ceil_mode)
               for m, k, s, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    return x.shape[:2] + hw, _dtype(x)


def _weight_grad_scratch(n, c, o, kh, kw, ho, wo, itemsize, pointwise, part, budget=None):
    """The convolution's chunks and scratch, and one partial weight
    gradient (``part`` elements) when there are several chunks."""
    chunks, counts = _conv2d_scratch(n, c, o, kh, kw, ho, wo, itemsize, pointwise, budget)
    return chunks, counts + (part if len(chunks) > 1 else 0,)


# The sizers: ``node -> (preferred bytes, least bytes)`` of the workspace an
# out-kernel takes (0: none).  Given less than preferred, the kernel cuts
# its chunks to what it got.

def conv2d_workspace(node):
    """Workspace of ``conv2d_out`` for ``node``."""
    (n, c, _, _), (o, cg, kh, kw) = node.inputs[0].shape, node.inputs[1].shape
    if math.prod(node.shape) == 0 or cg == 0:
        return 0
    pointwise = _pointwise((kh, kw), node.param("stride"), node.param("padding"))
    ho, wo, size = node.shape[2], node.shape[3], node.dtype.itemsize
    return _workspace_sizes(lambda b: _conv2d_scratch(n, c, o, kh, kw, ho, wo, size, pointwise, b), size)


def conv_transpose2d_workspace(node):
    """Workspace of ``conv_transpose2d_out`` for ``node``."""
    (n, c, h, wd), (_, _, kh, kw) = node.inputs[0].shape, node.inputs[1].shape
    o, ho, wo = node.shape[1:]
    if math.prod(node.shape) == 0 or c == 0 or h == 0 or wd == 0:
        return 0
    if _pointwise((kh, kw), node.param("stride"), node.param("padding")) and (ho, wo) == (h, wd) \
            and h * wd >= BATCH_BELOW:
        return 0
    size = node.dtype.itemsize
    return _workspace_sizes(lambda b: _conv_transpose2d_scratch(n, c, o, kh, kw, h, wd, size, b), size)


def conv2d_backward_weight_workspace(node):
    """Workspace of ``conv2d_backward_weight_out`` for ``node``."""
    (n, c, _, _), (_, o, ho, wo) = node.inputs[0].shape, node.inputs[1].shape
    _, _, kh, kw = node.shape
    if math.prod(node.shape) == 0 or n == 0 or ho * wo == 0:
        return 0
    pointwise = _pointwise((kh, kw), node.param("stride"), node.param("padding"))
    size, part = node.dtype.itemsize, math.prod(node.shape)
    return _workspace_sizes(lambda b: _weight_grad_scratch(n, c, o, kh, kw, ho, wo, size, pointwise, part, b),
                            size)


def _pool_cap(node, per_channel: int) -> int:
    """The most channels ``_channel_chunks`` puts in one chunk for ``node``."""
    n, c = node.inputs[0].shape[:2]
    return min(n * c, POOL_CHUNK_BYTES // max(1, per_channel * node.dtype.itemsize))


def max_pool2d_workspace(node):
    """Workspace of ``max_pool2d_out`` for ``node`` (its separable path's buffers)."""
    if math.prod(node.shape) == 0:
        return 0
    kernel, stride = node.param("kernel"), node.param("stride")
    hp, wp, _ = _pool_geometry(node.inputs[0], node.shape[2:], kernel, stride, node.param("padding"),
                               node.param("dilation"))
    wq, rows_flat = wp // stride[1], stride[0] == 1 and kernel[0] > 1
    cap = _pool_cap(node, hp * (wp + wq * (1 + rows_flat)))
    return _scratch_nbytes((cap * hp * wp, cap * hp * wq, cap * hp * wq * rows_flat), node.dtype.itemsize)


def avg_pool2d_workspace(node):
    """Workspace of ``avg_pool2d_out`` for ``node`` (its stride-1 flat path's buffers)."""
    if math.prod(node.shape) == 0 or not _avg_flat(node.shape[2:], node.param("kernel"), node.param("stride")):
        return 0
    hp, wp, _ = _pool_geometry(node.inputs[0], node.shape[2:], node.param("kernel"), (1, 1),
                               node.param("padding"), (1, 1))
    cap = _pool_cap(node, 2 * hp * wp)
    return _scratch_nbytes((cap * hp * wp, cap * hp * wp), node.dtype.itemsize)


# the plain kernels (the OpDefs in fgraph/ops/nn.py take these, the out-kernels and the workspace sizers)
conv2d_kernel = _plain("conv2d", conv2d_out, _conv2d_result)
conv_transpose2d_kernel = _plain("conv_transpose2d", conv_transpose2d_out, _conv_transpose2d_result)
conv2d_backward_weight_kernel = _plain(
    "conv2d_backward_weight", conv2d_backward_weight_out,
    lambda x, g, groups, kernel, **p: ((g.shape[1], x.shape[1] // groups) + tuple(kernel), _res(x, g)))
max_pool2d_kernel = _plain("max_pool2d", max_pool2d_out, _pool_result)
max_pool2d_backward_kernel = _plain("max_pool2d_backward", max_pool2d_backward_out,
                                    lambda x, y, g, **p: (x.shape, _dtype(g)))
max_pool2d_select_kernel = _plain("max_pool2d_select", max_pool2d_select_out,
                                  lambda x, y, c, **p: (y.shape, _dtype(c)))
avg_pool2d_kernel = _plain("avg_pool2d", avg_pool2d_out, _pool_result)
avg_pool2d_backward_kernel = _plain("avg_pool2d_backward", avg_pool2d_backward_out,
                                    lambda g, input_hw, **p: (g.shape[:2] + tuple(input_hw), _dtype(g)))
random_uniform_kernel = _plain("random_uniform", random_uniform_out, lambda key, shape, dtype: (shape, dtype))
erf_kernel = _plain("erf", erf_out, lambda x: (getattr(x, "shape", ()), np.sin(np.zeros(1, _dtype(x))).dtype))
