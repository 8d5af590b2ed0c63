// seed:       003_f6db134670b28b13.txt ("Optimizing SGEMV in CUDA" worklog)
// section:    "Kernel 2 - Coalesced access with reductions"
// kernel:     coalesced_warp_sgemv_kernel
// launch:     threads 32; blocks M   [the text: "each block will operate on one row of the matrix", "each block contains of only
//             [32] threads i.e. [1] warp"]
// computes:   resd = matd * vecd (y = A x; alpha = 1, beta = 0), matd row-major M x N; resd is only written
// limits:     blockDim.x must be exactly 32 (one full warp: the reduction is a single warp's shuffle with a full mask);
//             any M (blocks past M return), any N
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      the signature is not in the text (it shows only the body): written from the names the text uses (matd, vecd,
//             resd, M, N); kernel name coalesced_warp_sgemv_kernel chosen
//             the body lost its line breaks in extraction: laid out one statement per line, 4 spaces per level; tokens unchanged
//             the document is cut off before the reduction: the warp-shuffle sum (offsets 16, 8, 4, 2, 1) and the write by
//             thread 0 are ours, marked below
__global__ void coalesced_warp_sgemv_kernel(float* matd, float* vecd, float* resd, int M, int N) {
    int bid = blockIdx.x;
    if (bid >= M) return;

    int tid = threadIdx.x;
    // each thread calculates its own partial output
    float partial_sum = 0.f;
    for (int col = tid; col < N; col += blockDim.x) {
        partial_sum += matd[bid * N + col] * vecd[col];
    }

    // ---- completion (the document is cut off here) ----
    // the text: the partial sums of the warp's threads are combined "using shared memory or warp shuffle intrinsics";
    // the block is one warp, so a shuffle tree over it gives the row's dot product in lane 0
    for (int offset = 16; offset > 0; offset /= 2) {
        partial_sum += __shfl_down_sync(0xffffffff, partial_sum, offset);
    }
    if (tid == 0) resd[bid] = partial_sum;
}
