// seed:       004_625ee54f2972fe01.txt ("GEMM")
// section:    "Kernel 02: Block tiling"
// kernel:     block_tiling_gemm<BLOCK_DIM>
// launch:     threads (BLOCK_DIM, BLOCK_DIM, 1); blocks (CEIL_DIV(N, BLOCK_DIM), CEIL_DIV(M, BLOCK_DIM)); BLOCK_DIM = 32
//             [the text gives host code only for kernel 01; kernel 02 computes the same BLOCK_DIM x BLOCK_DIM tile of C per
//             block, so kernel 01's launch is used]
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     no bounds checks: M % BLOCK_DIM == 0, N % BLOCK_DIM == 0 (the text: "we make sure that M and N are both divisible
//             by the block size, so we don't do any boundary check"), and K % BLOCK_DIM == 0 (not stated; the last tile would
//             read past the end of A's rows and B's last row); blockDim must be (BLOCK_DIM, BLOCK_DIM)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      none
template <size_t const BLOCK_DIM>
__global__ void block_tiling_gemm(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C) {
    __shared__ float As[BLOCK_DIM * BLOCK_DIM];
    __shared__ float Bs[BLOCK_DIM * BLOCK_DIM];

    size_t const block_row_offset{blockIdx.y * BLOCK_DIM};
    size_t const block_col_offset{blockIdx.x * BLOCK_DIM};

    float sum{0.0f};

    for (size_t k_offset{0}; k_offset < K; k_offset += BLOCK_DIM) {
        As[threadIdx.y * BLOCK_DIM + threadIdx.x] = A[(block_row_offset + threadIdx.y) * K + (threadIdx.x + k_offset)];
        Bs[threadIdx.y * BLOCK_DIM + threadIdx.x] = B[(k_offset + threadIdx.y) * N + (block_col_offset + threadIdx.x)];
        __syncthreads();

        // Execute the dot product; recall that BLOCK_DIM and BLOCK_DIM are the same here.
        for (size_t dot_idx{0}; dot_idx < BLOCK_DIM; ++dot_idx) {
            sum += As[threadIdx.y * BLOCK_DIM + dot_idx] * Bs[dot_idx * BLOCK_DIM + threadIdx.x];
        }
        __syncthreads();
    }

    size_t const global_idx{(block_row_offset + threadIdx.y) * N + (block_col_offset + threadIdx.x)};
    C[global_idx] = alpha * sum + beta * C[global_idx];
}
