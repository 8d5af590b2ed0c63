// seed:       000_680cc5a5f868a384.txt ("CUDA 007 - GEMM")
// section:    "2D block tiling GEMM (multi-element per thread)"
// kernel:     gemm_block_tiling_v2<TILE_DIM, BLOCK_DIM_Y, BLOCK_DIM_X>
// launch:     threads (16, 16); blocks (cdiv(N, TILE_DIM), cdiv(M, TILE_DIM)); instantiated <64, 16, 16> (TILE_DIM = BLOCK_DIM_X * 4)   [as in the text's launch code]
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     no bounds checks: M % TILE_DIM == 0, N % TILE_DIM == 0, K % TILE_DIM == 0; (TILE_DIM * TILE_DIM) % (BLOCK_DIM_Y * BLOCK_DIM_X) == 0; blockDim must be (BLOCK_DIM_X, BLOCK_DIM_Y)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      none (indentation restored: it was lost in extraction; 4 spaces per level, nothing else changed)
template<int TILE_DIM, int BLOCK_DIM_Y, int BLOCK_DIM_X>
__global__ void gemm_block_tiling_v2(const int M, const int N, const int K,
    const float alpha, const float* A,
    const float* B, const float beta, float* C) {
    __shared__ float As[TILE_DIM][TILE_DIM+1];
    __shared__ float Bs[TILE_DIM][TILE_DIM];
    // thread id in thread block
    int tid = blockDim.x * threadIdx.y + threadIdx.x;
    // the left upper corner of tile in matrix C
    int cx = blockIdx.x * TILE_DIM;
    int cy = blockIdx.y * TILE_DIM;
    constexpr int BLOCK_SIZE = BLOCK_DIM_Y * BLOCK_DIM_X;
    constexpr int BATCH_X = TILE_DIM / BLOCK_DIM_X;
    constexpr int BATCH_Y = TILE_DIM / BLOCK_DIM_Y;
    float accum[BATCH_Y][BATCH_X] = {0.0};
    for (int k = 0; k < K; k += TILE_DIM) {
        /* load global memory into shared memory, here I use a loop with
        * step size of BLOCK_SIZE to handle more elements in a thread. */
        for (int i = 0; i < TILE_DIM * TILE_DIM; i += BLOCK_SIZE) {
            int y = (i+tid) / TILE_DIM; // index in As and Bs
            int x = (i+tid) % TILE_DIM;
            As[y][x] = A[(cy + y) * K + k + x];
            Bs[y][x] = B[(k + y) * N + cx + x];
        }
        __syncthreads();
        for (int i = 0; i < BATCH_Y; i++) {
            for (int j = 0; j < BATCH_X; j++) {
                int y = threadIdx.y + i * BLOCK_DIM_Y;
                int x = threadIdx.x + j * BLOCK_DIM_X;
                for (int ki = 0; ki < TILE_DIM; ki++) {
                    accum[i][j] += As[y][ki] * Bs[ki][x];
                }
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < BATCH_Y; i++) {
        for (int j = 0; j < BATCH_X; j++) {
            int y = threadIdx.y + i * BLOCK_DIM_Y;
            int x = threadIdx.x + j * BLOCK_DIM_X;
            y = cy + y; // index in matrix C
            x = cx + x;
            C[y * N + x] = alpha * accum[i][j] + beta * C[y * N + x];
        }
    }
}
