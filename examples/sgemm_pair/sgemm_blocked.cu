// A worked example of a pair of one's own (examples/sgemm_pair/pair.toml declares it; README "Your own pair").
// Not a kernel of the catalog: a 32 x 64 block tile of C, its A and B tiles staged in shared memory one 16-wide K
// step at a time, and each of the 128 threads computing a 4 x 4 block of outputs from registers.
// Any M, N, K: every load is bounds-checked (zero past the edge) and every store too; row offsets are formed in 64
// bits, so only each dimension must fit an int. C = alpha*A*B + beta*C, and C is not read when beta == 0.

template <int BM, int BN, int BK, int TM, int TN>
__global__ void sgemm_blocked(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K, float alpha, float beta) {
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BK][BM];        // A's tile stored K-major: a thread's TM rows of one k are contiguous
    __shared__ float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int ty = tid / (BN / TN);     // which TM rows of the tile this thread computes
    const int tx = tid % (BN / TN);     // which TN columns
    const int row0 = blockIdx.y * BM;
    const int col0 = blockIdx.x * BN;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += THREADS) {
            const int r = i / BK, k = i % BK;
            const int gr = row0 + r, gk = k0 + k;
            As[k][r] = (gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f;
        }
        for (int i = tid; i < BK * BN; i += THREADS) {
            const int k = i / BN, c = i % BN;
            const int gk = k0 + k, gc = col0 + c;
            Bs[k][c] = (gk < K && gc < N) ? B[(size_t)gk * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[k][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + ty * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int c = col0 + tx * TN + j;
            if (r < M && c < N) {
                float* out = C + (size_t)r * N + c;
                *out = beta == 0.0f ? alpha * acc[i][j] : alpha * acc[i][j] + beta * *out;
            }
        }
    }
}
