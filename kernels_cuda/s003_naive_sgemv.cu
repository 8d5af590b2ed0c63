// seed:       003_f6db134670b28b13.txt ("Optimizing SGEMV in CUDA" worklog)
// section:    "Kernel 1 - Naive SGEMV"
// kernel:     naive_sgemv_kernel
// launch:     one thread per row: threads 1024 per block (the text's number for the block size was lost in extraction; 1024 is
//             our declared choice); blocks cdiv(M, 1024)
// computes:   resd = matd * vecd (y = A x; alpha = 1, beta = 0), matd row-major M x N; resd is only written
// limits:     bounds-checked on row < M: any M, N
//             32-bit index arithmetic: every element index (M*K, K*N, M*N) must fit in int32
// edits:      the signature is not in the text (it shows only the body): written from the names the text uses (matd, vecd,
//             resd, M, N); kernel name naive_sgemv_kernel chosen
//             the body lost its line breaks in extraction: laid out one statement per line, 4 spaces per level; tokens unchanged
__global__ void naive_sgemv_kernel(float* matd, float* vecd, float* resd, int M, int N) {
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row < M) {
        float sum = 0.0f;
        for (int col = 0; col < N; col++) {
            sum += matd[row * N + col] * vecd[col];
        }
        resd[row] = sum;
    }
}
