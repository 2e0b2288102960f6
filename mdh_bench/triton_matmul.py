"""A hand-written Triton matrix product (the Triton tutorial's form), autotuned over
`CONFIGS`: C[b] = A[b] @ B[b] in float32 for any strides (transposed operands are
views), masked loads at the edges, program ids in groups of `GROUP_M` row blocks so
that neighbouring programs share their B columns in L2. `tl.dot` takes the float32
operands as they are (`input_precision="ieee"`: FMA, no tensor cores) or rounds them
to TF32 (`"tf32"`: tensor cores).

Importing this module needs triton (and torch, for launching); `mdh_bench.triton_peer`
imports it only where both are installed.
"""

from __future__ import annotations

from collections.abc import Callable

import triton
import triton.language as tl

PRECISIONS = ("ieee", "tf32")

CONFIGS = [
    triton.Config(dict(BLOCK_M=m, BLOCK_N=n, BLOCK_K=k, GROUP_M=8), num_stages=stages, num_warps=warps)
    for m, n, k, stages, warps in [
        (128, 256, 32, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
        (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
    ]
]  # fmt: skip
"""The 8 configurations autotuned over: the tutorial's, with BLOCK_K 32 in the first
(its 64 needs more shared memory in float32 than an H100 has at 3 stages)."""


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
    PRECISION: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):  # fmt: skip
    pid = tl.program_id(0)
    batch = tl.program_id(1)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * blocks_n
    first_m = (pid // in_group) * GROUP_M
    group_m = min(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_m
    pid_n = (pid % in_group) // group_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


AUTOTUNED = {
    precision: triton.autotune(
        CONFIGS, key=["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn"]
    )(matmul_kernel)
    for precision in PRECISIONS
}
"""One autotuner per precision (each keeps its own picks), keyed by the sizes and the
operands' strides (a transposed operand is another problem)."""


def launcher(a, b, c, precision: str) -> Callable[[], None]:
    """A call that writes A @ B into `c` (2-D operands, or 3-D batched), autotuning on
    its first call for these sizes and strides."""
    a3, b3, c3 = (a, b, c) if a.dim() == 3 else (a[None], b[None], c[None])
    batches, m, k = a3.shape
    n = b3.shape[2]

    def grid(meta):
        return triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), batches

    kernel = AUTOTUNED[precision][grid]
    strides = (*a3.stride(), *b3.stride(), *c3.stride())
    return lambda: kernel(a3, b3, c3, m, n, k, *strides, PRECISION=precision)


def best_config(precision: str) -> str:
    """The configuration the last autotuning of `precision` picked, as text."""
    return str(AUTOTUNED[precision].best_config)
