// seed:       004_625ee54f2972fe01.txt ("GEMM")
// section:    "Kernel 01: Naive implementation"
// kernel:     naive_gemm<BLOCK_DIM>
// launch:     threads (BLOCK_DIM, BLOCK_DIM, 1); blocks (CEIL_DIV(N, BLOCK_DIM), CEIL_DIV(M, BLOCK_DIM)); BLOCK_DIM = 32   [as in the text's host code]
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     N % BLOCK_DIM == 0 and M % BLOCK_DIM == 0, because the text's host code asserts them (the kernel itself is
//             bounds-checked: global_x_idx < N and global_y_idx < M); blockDim must be (BLOCK_DIM, BLOCK_DIM)
//             64-bit indices (size_t): any element count, as long as M, N and K each fit in an int
// edits:      none
template <size_t const BLOCK_DIM>
__global__ void naive_gemm(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C) {
    size_t const global_x_idx{blockIdx.x * BLOCK_DIM + threadIdx.x};
    size_t const global_y_idx{blockIdx.y * BLOCK_DIM + threadIdx.y};

    // Perform boundary check.
    if (global_x_idx < N && global_y_idx < M) {
        float sum{0.0f};
    
        for (size_t k{0}; k < K; ++k) {
            sum += A[global_y_idx * K + k] * B[k * N + global_x_idx];
        }
    
        size_t const global_idx{global_y_idx * N + global_x_idx};
        C[global_idx] = alpha * sum + beta * C[global_idx];
    }
}
