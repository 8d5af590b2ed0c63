// seed:       001_813066c013350e08.txt ("CUDA GEMM you hua", i.e. "CUDA GEMM optimization"; the title is Chinese, transliterated to keep this file ASCII)
// section:    "version 1 implementation: naive" (Chinese heading, translated)
// kernel:     MyMatMulKernel
// launch:     threads (16, 16); blocks ((n + 16 - 1) / 16, (m + 16 - 1) / 16)   [as in the text's MyMatMul, kBlockDim = 16]
// computes:   C = A*B (fp32, row-major: A m x k, B k x n, C m x n); C is only written
// limits:     bounds-checked on _m < m and _n < n: any m, n, k
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      typedef float Value_t; added (the text uses Value_t without defining it; the text computes in float)
//             the text's host function MyMatMul is not transcribed (the harness launches; its geometry is under launch:)
typedef float Value_t;

#define A(i, j) d_A[(i) * k + (j)]
#define B(i, j) d_B[(i) * n + (j)]
#define C(i, j) d_C[(i) * n + (j)]

// Naive version
__global__ void MyMatMulKernel(float* d_A, float* d_B, float* d_C, int m, int n, int k) {
  int _m = blockIdx.y * blockDim.y + threadIdx.y;
  int _n = blockIdx.x * blockDim.x + threadIdx.x;

  if (_m < m && _n < n) {
    Value_t c_value = 0;
    for (int _k = 0; _k < k; ++_k) c_value += A(_m, _k) * B(_k, _n);
    C(_m, _n) = c_value;
  }
}
