// seed:       000_680cc5a5f868a384.txt ("CUDA 007 - GEMM")
// section:    "2D block tiling GEMM"
// kernel:     gemm_block_tiling_v1<TILE_DIM = 16>
// launch:     threads (16, 16); blocks (cdiv(N, TILE_DIM), cdiv(M, TILE_DIM)); the text asserts TILE_DIM == threads.x == threads.y   [as in the text's launch code]
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     no bounds checks: M % TILE_DIM == 0, N % TILE_DIM == 0, K % TILE_DIM == 0; blockDim must be (TILE_DIM, TILE_DIM)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      none (indentation restored: it was lost in extraction; 4 spaces per level, nothing else changed)
template<int TILE_DIM = 16>
__global__ void gemm_block_tiling_v1(const int M, const int N, const int K,
    const float alpha, const float* A,
    const float* B, const float beta, float* C) {
    const unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ float As[TILE_DIM][TILE_DIM];
    __shared__ float Bs[TILE_DIM][TILE_DIM];
    __syncthreads();
    float t = 0.0;
    for (int i = 0; i < K; i += TILE_DIM) {
        As[threadIdx.y][threadIdx.x] = A[row * K + i + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(i + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE_DIM; k++) {
            t += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    C[row * N + col] = alpha * t + beta * C[row * N + col];
}
