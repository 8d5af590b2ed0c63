// seed:       000_680cc5a5f868a384.txt ("CUDA 007 - GEMM")
// section:    "unroll" (second form: `#pragma unroll` on `for (int i = tid; ...; i += BLOCK_SIZE)`, the form the text says the compiler cannot unroll), applied to the kernel of "2D block tiling GEMM (general)"
// kernel:     gemm_block_tiling_v3<Bm, Bn, Bk, BLOCK_DIM_Y, BLOCK_DIM_X>
// launch:     threads (BLOCK_DIM_X, BLOCK_DIM_Y); blocks (cdiv(N, Bn), cdiv(M, Bm)); the text launches <Bm = 64, Bn = 64, Bk = 16, 16, 16> with threads (16, 16)   [as in the text's launch code]
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     no bounds checks: M % Bm == 0, N % Bn == 0, K % Bk == 0; (Bm * Bk) % (BLOCK_DIM_Y * BLOCK_DIM_X) == 0 and (Bk * Bn) % (BLOCK_DIM_Y * BLOCK_DIM_X) == 0; Bm % BLOCK_DIM_Y == 0, Bn % BLOCK_DIM_X == 0; blockDim must be (BLOCK_DIM_X, BLOCK_DIM_Y)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      A load loop replaced by the text's second form (`#pragma unroll`, `for (int i = tid; ...)`, `int y = i / Bk; int x = i % Bk;`)
//             the text shows only the A load loop in this form; the B load loop is written the same way (`#pragma unroll`, `for (int i = tid; i < Bk * Bn; ...)`, `int y = i / Bn; int x = i % Bn;`)
//             the compute loops are left as in the v3 listing (no pragma)
//             indentation restored (lost in extraction): 4 spaces per level
template<int Bm, int Bn, int Bk, int BLOCK_DIM_Y, int BLOCK_DIM_X>
__global__ void gemm_block_tiling_v3(const int M, const int N, const int K,
    const float alpha, const float* A,
    const float* B, const float beta, float* C) {
    __shared__ float As[Bm][Bk];
    __shared__ float Bs[Bk][Bn];
    // thread id in thread block
    int tid = blockDim.x * threadIdx.y + threadIdx.x;
    // the left upper corner of tile C in matrix C
    const unsigned int cx = blockIdx.x * Bn;
    const unsigned int cy = blockIdx.y * Bm;
    constexpr int BLOCK_SIZE = BLOCK_DIM_Y * BLOCK_DIM_X;
    constexpr int BATCH_X = Bn / BLOCK_DIM_X;
    constexpr int BATCH_Y = Bm / BLOCK_DIM_Y;
    float accum[BATCH_Y][BATCH_X] = {0.0};
    for (int k = 0; k < K; k += Bk) {
        #pragma unroll
        for (int i = tid; i < Bm * Bk; i += BLOCK_SIZE) {
            int y = i / Bk; // index in As
            int x = i % Bk;
            As[y][x] = A[(cy + y) * K + k + x];
        }
        #pragma unroll
        for (int i = tid; i < Bk * Bn; i += BLOCK_SIZE) {
            int y = i / Bn; // index in Bs
            int x = i % Bn;
            Bs[y][x] = B[(k + y) * N + cx + x];
        }
        __syncthreads();
        for (int i = 0; i < BATCH_Y; i++) {
            for (int j = 0; j < BATCH_X; j++) {
                int y = threadIdx.y + i * BLOCK_DIM_Y;
                int x = threadIdx.x + j * BLOCK_DIM_X;
                for (int ki = 0; ki < Bk; ki++) {
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
