// seed:       none (tile-rosetta's own: the worklog's next step after kernel 2 of 003_f6db134670b28b13.txt)
// section:    none
// kernel:     sgemv_float4<BLOCK_THREADS, ROWS_PER_BLOCK>
// launch:     threads BLOCK_THREADS; blocks cdiv(M, ROWS_PER_BLOCK)
// computes:   y = A x, A row-major M x N (alpha = 1, beta = 0); y is only written
// limits:     BLOCK_THREADS / ROWS_PER_BLOCK a multiple of 32 (each row gets whole warps), BLOCK_THREADS <= 1024,
//             blockDim.x == BLOCK_THREADS; any M, any N, any alignment of A and x (the 16-byte path is taken only when it is safe)
//             64-bit row offsets: any element count, as long as M and N each fit in an int
// design:     sgemv is bound by reading A once (4*M*N bytes); on an H100 that needs many bytes in flight per SM, so A and x
//             are read with 16-byte float4 loads (a quarter of the load instructions of scalar code) and the main loop is
//             unrolled 4 times so each thread has several independent 16-byte loads outstanding before it needs the first
//             each row is given BLOCK_THREADS / ROWS_PER_BLOCK threads (whole warps) working side by side, not one after
//             another: a block still has BLOCK_THREADS threads of loads in flight when N is short, and ROWS_PER_BLOCK = 1
//             degenerates to one block per row for long rows
//             the float4 path needs every row start and x to be 16-byte aligned: N % 4 == 0 makes row * N a multiple of
//             4 floats, and the base pointers are tested at run time (a CuPy view can start at any float); the test is the
//             same for every thread of the grid, so there is no divergence; otherwise the whole row is read with scalar
//             loads, which is correct for any N and keeps the fast path free of tail handling
//             __restrict__ and __ldg mark A and x read-only for the whole kernel, so the loads may go through the
//             read-only/non-coherent path and be reordered freely
//             reduction: a shuffle tree inside each warp; when a row has more than one warp, one float per warp goes through
//             shared memory and one thread per row adds its row's warp sums; every thread reaches the shuffles and the
//             barrier (rows past M only skip the loads and the store), so the full-mask shuffles and __syncthreads are valid
//             the row offset is computed in 64 bits so M * N > 2^31 elements does not overflow
template <int BLOCK_THREADS, int ROWS_PER_BLOCK>
__global__ void sgemv_float4(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             int M, int N) {
    constexpr int THREADS_PER_ROW = BLOCK_THREADS / ROWS_PER_BLOCK;
    constexpr int WARPS_PER_ROW = THREADS_PER_ROW / 32;
    static_assert(BLOCK_THREADS <= 1024 && ROWS_PER_BLOCK >= 1 && BLOCK_THREADS % ROWS_PER_BLOCK == 0,
                  "BLOCK_THREADS must split evenly into ROWS_PER_BLOCK rows");
    static_assert(THREADS_PER_ROW % 32 == 0 && THREADS_PER_ROW >= 32,
                  "each row must get whole warps (the reductions are per warp)");

    const int local_row = threadIdx.x / THREADS_PER_ROW;
    const int t = threadIdx.x % THREADS_PER_ROW;
    const int row = blockIdx.x * ROWS_PER_BLOCK + local_row;

    float sum = 0.0f;
    if (row < M) {
        const float* a = A + (long long)row * N;
        const bool vec = (N % 4 == 0) &&
                         (((reinterpret_cast<unsigned long long>(A) | reinterpret_cast<unsigned long long>(x)) & 15ull) == 0);
        if (vec) {
            const float4* a4 = reinterpret_cast<const float4*>(a);
            const float4* x4 = reinterpret_cast<const float4*>(x);
            const int n4 = N / 4;
#pragma unroll 4
            for (int i = t; i < n4; i += THREADS_PER_ROW) {
                const float4 av = __ldg(a4 + i);
                const float4 xv = __ldg(x4 + i);
                sum += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
            }
        } else {
            for (int col = t; col < N; col += THREADS_PER_ROW) {
                sum += __ldg(a + col) * __ldg(x + col);
            }
        }
    }

#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, offset);
    }
    const int lane = threadIdx.x & 31;

    if (WARPS_PER_ROW == 1) {
        // a row is one warp: lane 0 holds the whole dot product, no shared memory or barrier needed
        if (lane == 0 && row < M) y[row] = sum;
    } else {
        __shared__ float warp_sums[BLOCK_THREADS / 32];
        if (lane == 0) warp_sums[threadIdx.x / 32] = sum;
        __syncthreads();
        // a row's warps are consecutive, so its sums are warp_sums[r * WARPS_PER_ROW ...]; WARPS_PER_ROW <= 32, a short
        // serial add by one thread per row is cheaper than another shuffle tree
        if (threadIdx.x < ROWS_PER_BLOCK) {
            const int r = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x;
            if (r < M) {
                float s = 0.0f;
#pragma unroll
                for (int w = 0; w < WARPS_PER_ROW; ++w) s += warp_sums[threadIdx.x * WARPS_PER_ROW + w];
                y[r] = s;
            }
        }
    }
}
