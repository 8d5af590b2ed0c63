// seed:       002_719fc7197d4badad.txt ("Introduction to GEMM With Tiling")
// section:    "Matrix Multiplication with Tiling" (the index formulas under "Visual Represenation of Tile Loading" and the
//             worked 4x4 / TILE_SIZE = 2 example "Tile Calculation - Thread Block (0,0)")
// kernel:     tiled_matmul<TILE_SIZE>
// launch:     threads (TILE_SIZE, TILE_SIZE); blocks (N / TILE_SIZE, N / TILE_SIZE)   [the text: one thread block per tile of C,
//             one thread per element of the tile; blockDim.x = blockDim.y = TILE_SIZE; its example is N = 4, TILE_SIZE = 2]
// computes:   C = A*B, square N x N, row-major; C is only written
// limits:     no bounds checks: N % TILE_SIZE == 0; blockDim must be (TILE_SIZE, TILE_SIZE)
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
//             square only: A, B and C are N x N
// edits:      the document gives index formulas, not code: this kernel is written from them; no bounds checks, as in the formulas (N % TILE_SIZE == 0)
//             the formula for TILE_A is printed with "TIL_SIZE" (a typo for TILE_SIZE, which the formula for TILE_B and the
//             worked example use); TILE_SIZE is used here
//             the shared tiles are named tile_A / tile_B and the loop index k; the document names neither
//
// The document's formulas:
//    row = blockIdx.y*blockDim.y+threadIdx.y
//    col = blockIdx.x*blockDim.x+threadIdx.x
//    TILE_A = row*N +(t*TILE_SIZE+threadIdx.x)
//    TILE_B = (t*TILE_SIZE+threadIdx.y)*N + col
//    t = [0,1] => Represents Phases => Equivalent to Number of Tiles from A & B required to calculate Tile C
// Worked example (N = 4, TILE_SIZE = 2, block (0,0)): t = 0 loads A (0,1,4,5), B (0,1,4,5); t = 1 loads A (2,3,6,7), B (8,9,12,13).
template <int TILE_SIZE>
__global__ void tiled_matmul(const float* A, const float* B, float* C, int N) {
    __shared__ float tile_A[TILE_SIZE][TILE_SIZE];
    __shared__ float tile_B[TILE_SIZE][TILE_SIZE];

    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    float sum = 0.0f;
    // t: the phases, one per pair of tiles (one tile of A, one tile of B) needed for the tile of C
    for (int t = 0; t < N / TILE_SIZE; t++) {
        int TILE_A = row * N + (t * TILE_SIZE + threadIdx.x);
        int TILE_B = (t * TILE_SIZE + threadIdx.y) * N + col;
        tile_A[threadIdx.y][threadIdx.x] = A[TILE_A];
        tile_B[threadIdx.y][threadIdx.x] = B[TILE_B];
        __syncthreads();

        for (int k = 0; k < TILE_SIZE; k++) {
            sum += tile_A[threadIdx.y][k] * tile_B[k][threadIdx.x];
        }
        __syncthreads();
    }
    C[row * N + col] = sum;
}
