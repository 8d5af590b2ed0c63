// seed:       000_680cc5a5f868a384.txt ("CUDA 007 - GEMM")
// section:    "naive GEMM" (the heading spells it with a diaeresis on the i; ASCII here)
// kernel:     gemm_naive
// launch:     not in the text; chosen: threads (16, 16); blocks (cdiv(N, 16), cdiv(M, 16))
// computes:   C = alpha*A*B + beta*C, row-major; reads C even when beta == 0
// limits:     bounds-checked on row and col (row < M && col < N): any M, N, K
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      none (indentation restored: it was lost in extraction; 4 spaces per level, nothing else changed)
__global__ void gemm_naive(const int M, const int N, const int K, const float alpha,
    const float* A, const float* B, const float beta, float* C) {
    const unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    const unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float t = 0.0;
        for (int i = 0; i < K; i++) {
            t += A[row * K + i] * B[i * N + col];
        }
        C[row * N + col] = alpha * t + beta * C[row * N + col];
    }
}
