// seed:       001_813066c013350e08.txt ("CUDA GEMM you hua", i.e. "CUDA GEMM optimization"; the title is Chinese, transliterated to keep this file ASCII)
// section:    "version 3 implementation: thread coarsening" (Chinese heading, translated)
// kernel:     MyMatMulKernel<kTileWidthX, kTileWidthY, kStrideY>
// launch:     threads (kTileWidthX, kTileWidthY); blocks ((n + kTileWidthX - 1) / kTileWidthX, (m + (kTileWidthY * kStrideY) - 1) / (kTileWidthY * kStrideY))   [as in the text's MyMatMul]
//             the text's MyMatMul instantiates <16, 8, 2>; its stride sweep is kStrideY = 1, 2, 4, 8, 16 with kTileWidthY * kStrideY = 16,
//             i.e. <16, 16, 1>, <16, 8, 2>, <16, 4, 4>, <16, 2, 8>, <16, 1, 16> (the harness instantiates <16, 16/s, s>)
// computes:   C = A*B (fp32, row-major: A m x k, B k x n, C m x n); C is only written
// limits:     kTileWidthY * kStrideY == kTileWidthX (the text: "we must manually ensure kTileWidthY * kStrideY = 16"; the shared
//             tiles are declared [kTileWidthX][kTileWidthY * kStrideY] but indexed [row][k]);
//             bounds-checked in m and n only; no check in the K dimension: k % kTileWidthX == 0, otherwise the last phase reads A
//             past the end of its rows and B past its last row; blockDim must be (kTileWidthX, kTileWidthY)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      typedef float Value_t; added (the text uses Value_t without defining it; the text computes in float)
//             std::ceil((Value_t)k / kTileWidthX) -> (k + kTileWidthX - 1) / kTileWidthX (NVRTC has no <cmath>)
//             the text's host function MyMatMul is not transcribed (the harness launches; its geometry is under launch:)
typedef float Value_t;

#define A(s, i, j) d_A[((i) + s * kTileWidthY) * k + (j)]
#define B(s, i, j) d_B[((i) + s * kTileWidthY) * n + (j)]
#define C(s, i, j) d_C[((i) + s * kTileWidthY) * n + (j)]

// Tiled version with thread coarsening
template <int kTileWidthX, int kTileWidthY, int kStrideY>
__global__ void MyMatMulKernel(float* d_A, float* d_B, float* d_C, int m, int n, int k) {
  __shared__ Value_t Ads[kTileWidthX][kTileWidthY * kStrideY];
  __shared__ Value_t Bds[kTileWidthX][kTileWidthY * kStrideY];

  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int bx = blockIdx.x;
  int by = blockIdx.y;

  int _m = by * (kTileWidthY * kStrideY) + ty;
  int _n = bx * kTileWidthX + tx;

  Value_t c_value[kStrideY] = {0};
  /* k operations of multiply-add are divided into phases, each phase correspond to an
   * iteration of for-loop */
  for (int ph = 0; ph < (k + kTileWidthX - 1) / kTileWidthX; ++ph) {
    for (int s = 0; s < kStrideY; ++s) {
      /* Collectively load data into shared memory */
      if (s * kTileWidthY + _m < m)
        Ads[ty + s * kTileWidthY][tx] = A(s, _m, ph * kTileWidthX + tx);
      else
        Ads[ty + s * kTileWidthY][tx] = 0;

      if (_n < n)
        Bds[ty + s * kTileWidthY][tx] = B(s, ph * kTileWidthX + ty, _n);
      else
        Bds[ty + s * kTileWidthY][tx] = 0;
    }

    // Make sure all threads in block finished loading data
    __syncthreads();

    // if (by == 1 && bx == 0 && tx == 0 && ty == 0) printf("%f %f\n", _m, _n);

    for (int s = 0; s < kStrideY; ++s)
      for (int k = 0; k < kTileWidthX; ++k) /* Do multiple-add */
        c_value[s] += Ads[ty + s * kTileWidthY][k] * Bds[k][tx];

    // Make sure all threads in block finished using shared memory, so that we can go
    // into next iteration
    __syncthreads();
  }

  for (int s = 0; s < kStrideY; ++s)
    if (s * kTileWidthY + _m < m && _n < n) C(s, _m, _n) = c_value[s];
}
