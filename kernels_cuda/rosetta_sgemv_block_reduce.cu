// seed:       none (tile-rosetta's own: the worklog's next step after kernel 2 of 003_f6db134670b28b13.txt)
// section:    none
// kernel:     sgemv_block_reduce<BLOCK_THREADS>
// launch:     threads BLOCK_THREADS; blocks M (one block per row)
// computes:   y = A x, A row-major M x N (alpha = 1, beta = 0); y is only written
// limits:     BLOCK_THREADS a multiple of 32, 32..1024, and blockDim.x == BLOCK_THREADS; any M, any N
//             64-bit row offsets: any element count, as long as M and N each fit in an int
// design:     kernel 2 of the worklog gives each row one 32-thread block, so a row is read by one warp: too little in flight
//             per SM for long rows; here a row gets BLOCK_THREADS threads, still with consecutive threads on consecutive
//             columns (coalesced) and a strided loop, so any N works
//             the reduction is two-level: a shuffle tree inside each warp (no shared memory, no barriers), then one float per
//             warp through shared memory and a final shuffle tree in warp 0; one __syncthreads per row
//             the early return is on blockIdx only, so it is uniform over the block and cannot strand the barrier
//             the row offset is computed in 64 bits so M * N > 2^31 elements does not overflow
template <int BLOCK_THREADS>
__global__ void sgemv_block_reduce(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                   int M, int N) {
    static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                  "BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
    constexpr int kWarps = BLOCK_THREADS / 32;
    __shared__ float warp_sums[kWarps];

    const int row = blockIdx.x;
    if (row >= M) return;

    const float* a = A + (long long)row * N;
    float sum = 0.0f;
    for (int col = threadIdx.x; col < N; col += BLOCK_THREADS) {
        sum += a[col] * x[col];
    }

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, offset);
    }
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        // lanes past the warp count contribute 0 so the full-mask shuffle stays valid for any BLOCK_THREADS
        sum = (lane < kWarps) ? warp_sums[lane] : 0.0f;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        }
        if (lane == 0) y[row] = sum;
    }
}
