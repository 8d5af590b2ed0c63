// seed:       001_813066c013350e08.txt ("CUDA GEMM you hua", i.e. "CUDA GEMM optimization"; the title is Chinese, transliterated to keep this file ASCII)
// section:    "version 2 implementation: tiling" (Chinese heading, translated)
// kernel:     MyMatMulKernel<kTileWidth>
// launch:     threads (kTileWidth, kTileWidth); blocks ((n + kTileWidth - 1) / kTileWidth, (m + kTileWidth - 1) / kTileWidth); kTileWidth = 16   [as in the text's MyMatMul]
// computes:   C = A*B (fp32, row-major: A m x k, B k x n, C m x n); C is only written
// limits:     bounds-checked in m and n only (rows of A / C, columns of B / C); no check in the K dimension:
//             k % kTileWidth == 0, otherwise the last phase reads A past the end of its rows and B past its last row;
//             blockDim must be (kTileWidth, kTileWidth)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      typedef float Value_t; added (the text uses Value_t without defining it; the text computes in float)
//             std::ceil((Value_t)k / kTileWidth) -> (k + kTileWidth - 1) / kTileWidth (NVRTC has no <cmath>)
//             the text's host function MyMatMul is not transcribed (the harness launches; its geometry is under launch:)
typedef float Value_t;

#define A(i, j) d_A[(i) * k + (j)]
#define B(i, j) d_B[(i) * n + (j)]
#define C(i, j) d_C[(i) * n + (j)]

// Tiled version
template <int kTileWidth>
__global__ void MyMatMulKernel(float* d_A, float* d_B, float* d_C, int m, int n, int k) {
  __shared__ Value_t Ads[kTileWidth][kTileWidth];
  __shared__ Value_t Bds[kTileWidth][kTileWidth];

  int bx = blockIdx.x;
  int by = blockIdx.y;

  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int _m = by * kTileWidth + ty;
  int _n = bx * kTileWidth + tx;

  Value_t c_value = 0;
  /* k operations of multiply-add are divided into phases, each phase correspond to an
   * iteration of for-loop */
  for (int ph = 0; ph < (k + kTileWidth - 1) / kTileWidth; ++ph) {
    /* Collectively load data into shared memory */
    if (_m < m)
      Ads[ty][tx] = A(_m, ph * kTileWidth + tx);
    else
      Ads[ty][tx] = 0;

    if (_n < n)
      Bds[ty][tx] = B(ph * kTileWidth + ty, _n);
    else
      Bds[ty][tx] = 0;

    // Make sure all threads in block finished loading data
    __syncthreads();

    /* Do multiple-add */
    for (int k = 0; k < kTileWidth; ++k) c_value += Ads[ty][k] * Bds[k][tx];

    // Make sure all threads in block finished using shared memory, so that we can go into
    // next iteration
    __syncthreads();
  }

  if (_m < m && _n < n) C(_m, _n) = c_value;
}
