// seed:       001_813066c013350e08.txt ("CUDA GEMM you hua", i.e. "CUDA GEMM optimization"; the title is Chinese, transliterated to keep this file ASCII)
// section:    "version 4 implementation: 2D thread coarsening" (Chinese heading, translated)
// kernel:     MyMatMulKernel<kBlockWorkDimX, kBlockWorkDimY, kThreadWorkDimX, kThreadWorkDimY, kTileDimK>
// launch:     threads ((kBlockWorkDimX * kBlockWorkDimY) / (kThreadWorkDimX * kThreadWorkDimY)) (1-D, 64 for the text's values);
//             blocks ((n + kBlockWorkDimX - 1) / kBlockWorkDimX, (m + kBlockWorkDimY - 1) / kBlockWorkDimY);
//             the text instantiates <64, 64, 8, 8, 8>   [as in the text's MyMatMul]
// computes:   C = A*B (fp32, row-major: A m x k, B k x n, C m x n); C is only written
// limits:     no bounds checks: m % kBlockWorkDimY == 0, n % kBlockWorkDimX == 0, k % kTileDimK == 0;
//             kBlockWorkDimX % kThreadWorkDimX == 0 and kBlockWorkDimY % kThreadWorkDimY == 0 (the text says so);
//             the thread count must be a multiple of kTileDimK and of kBlockWorkDimX (strideA, strideB >= 1);
//             blockDim must be (thread count, 1, 1)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      typedef float Value_t; added (the text uses Value_t without defining it; the text computes in float)
//             std::ceil((Value_t)k / kTileDimK) -> (k + kTileDimK - 1) / kTileDimK (NVRTC has no <cmath>)
//             the text's host function MyMatMul is not transcribed (the harness launches; its geometry is under launch:)
typedef float Value_t;

#define A(i, j) d_A[(i) * k + (j)]
#define B(i, j) d_B[(i) * n + (j)]
#define C(i, j) d_C[(i) * n + (j)]

// Tiled version with 2D thread coarsening
template <int kBlockWorkDimX, int kBlockWorkDimY, int kThreadWorkDimX,
          int kThreadWorkDimY, int kTileDimK>
__global__ void MyMatMulKernel(float* d_A, float* d_B, float* d_C, int m, int n, int k) {
  // Introduce kTileDimK, so the tile is not square, otherwise it would be too large
  __shared__ Value_t Ads[kBlockWorkDimY][kTileDimK];
  __shared__ Value_t Bds[kTileDimK][kBlockWorkDimX];

  const int by = blockIdx.y;
  const int bx = blockIdx.x;

  // (thread_outer_x, thread_outer_y) is the thread's outer position w.r.t. block.
  const int thread_outer_x = threadIdx.x % (kBlockWorkDimX / kThreadWorkDimX);
  const int thread_outer_y = threadIdx.x / (kBlockWorkDimX / kThreadWorkDimX);

  // Move tile to beginning of d_A's row and d_B's column
  d_A += by * kBlockWorkDimY * k;
  d_B += bx * kBlockWorkDimX;
  d_C += by * kBlockWorkDimY * n + bx * kBlockWorkDimX;

  // Calculate the indices that this thread will load into SMEM
  const int Ads_row = threadIdx.x / kTileDimK;
  const int Ads_col = threadIdx.x % kTileDimK;
  const int Bds_row = threadIdx.x / kBlockWorkDimX;
  const int Bds_col = threadIdx.x % kBlockWorkDimX;

  // The stride is for GMEM coalescing
  constexpr int thread_num_in_block =
      (kBlockWorkDimX * kBlockWorkDimY) / (kThreadWorkDimX * kThreadWorkDimY);

  const int strideA = thread_num_in_block / kTileDimK;
  const int strideB = thread_num_in_block / kBlockWorkDimX;

  // Register caches for Ads and Bds
  Value_t A_reg[kThreadWorkDimY] = {0.0};
  Value_t B_reg[kThreadWorkDimX] = {0.0};

  Value_t c_value[kThreadWorkDimY][kThreadWorkDimX] = {0};
  /* k operations of multiply-add are divided into phases, each phase correspond to an
   * iteration of for-loop */
  for (int ph = 0; ph < (k + kTileDimK - 1) / kTileDimK; ++ph) {
    /* Collectively load data into shared memory */
    for (int loadOffset = 0; loadOffset < kBlockWorkDimY; loadOffset += strideA)
      Ads[Ads_row + loadOffset][Ads_col] = A(Ads_row + loadOffset, Ads_col);
    for (int loadOffset = 0; loadOffset < kTileDimK; loadOffset += strideB)
      Bds[Bds_row + loadOffset][Bds_col] = B(Bds_row + loadOffset, Bds_col);
    
    // Make sure all threads in block finished loading data
    __syncthreads();

    // Advance tile
    d_A += kTileDimK;      // move kTileDimK columns to right
    d_B += kTileDimK * n;  // move kTileDimK rows down

    // Calculate per-thread results
    for (int k = 0; k < kTileDimK; ++k) {
      // SMEM to registers
      for (int i = 0; i < kThreadWorkDimY; ++i)
        A_reg[i] = Ads[thread_outer_y * kThreadWorkDimY + i][k];
      for (int i = 0; i < kThreadWorkDimX; ++i)
        B_reg[i] = Bds[k][thread_outer_x * kThreadWorkDimX + i];

      for (int cy = 0; cy < kThreadWorkDimY; ++cy)
        for (int cx = 0; cx < kThreadWorkDimX; ++cx)
          c_value[cy][cx] += A_reg[cy] * B_reg[cx];
    }

    // Make sure all threads in block finished using shared memory, so that we can go
    // into next iteration
    __syncthreads();
  }

  // Write results to GMEM
  for (int cy = 0; cy < kThreadWorkDimY; ++cy)
    for (int cx = 0; cx < kThreadWorkDimX; ++cx)
      C(thread_outer_y * kThreadWorkDimY + cy, thread_outer_x * kThreadWorkDimX + cx) =
          c_value[cy][cx];
}
