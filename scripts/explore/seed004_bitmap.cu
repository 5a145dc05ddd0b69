/*
 * seed004_bitmap.cu - seed 004's bitmap kernel (main2.cu in
 * ../shared/seeds/004_*.txt) exactly as the seed writes it, in a program
 * that launches it the way the seed's main does (a 1024 x 1024 image,
 * blocks of 16 x 16), minus the OpenCV display. It exists so that Nsight
 * Compute can count the unmodified kernel (scripts/gpu-check.sh, step
 * seedbitmap) beside memprobe's bitmap probe, whose seed layout must be
 * the same kernel: probes/bitmap/test_as_written.c compares their PTX.
 *
 *   nvcc -O3 -arch=sm_90 -o seed004_bitmap scripts/explore/seed004_bitmap.cu
 */
#include <cstdio>
#include <cuda_runtime.h>

typedef unsigned char uchar;

#define PI 3.1415926
#define DIM 1024

/* The seed's kernel, its body unchanged. */
__global__ void kernel(uchar * _ptr )
{
	int x = threadIdx.x + blockIdx.x * blockDim.x;
	int y = threadIdx.y + blockIdx.y * blockDim.y;
	int idx = x + y *gridDim.x *blockDim.x;

	__shared__ float shared [16][16] ;
	const float period = 128.0f;
	shared[threadIdx.x][threadIdx.y] = 255 * (sinf(x*2.0f*PI / period) + 1.0f)*(sinf(y*2.0f*PI / period) + 1.0f) / 4.0f;

	__syncthreads();

	_ptr[idx] = shared[15 - threadIdx.x][15 - threadIdx.y];

}

static int check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "seed004_bitmap: %s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

int main()
{
    static uchar img[DIM * DIM];
    uchar *ptr_dev;
    if (check(cudaMalloc((void **)&ptr_dev, DIM * DIM * sizeof(uchar)), "cudaMalloc"))
        return 1;
    dim3 blocks(DIM / 16, DIM / 16);
    dim3 threads(16, 16);
    kernel<<<blocks, threads>>>(ptr_dev);
    if (check(cudaGetLastError(), "launch")
        || check(cudaMemcpy(img, ptr_dev, sizeof img, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return 1;
    /* Pixel (0, 0) holds thread (15, 15)'s value, as the seed's image does. */
    printf("pixel(0,0) = %u\n", img[0]);
    return check(cudaFree(ptr_dev), "cudaFree");
}
