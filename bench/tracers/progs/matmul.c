/* matmul.c - dense double-precision kernels: a blocked matrix multiply and a Jacobi stencil. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 160, bs = 32;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    double *c = calloc((size_t)n * n, sizeof(double));
    if (!a || !b || !c) return 1;
    for (int i = 0; i < n * n; i++) { a[i] = (i % 17) * 0.25 - 1.0; b[i] = (i % 13) * 0.5 + 0.125; }
    for (int ii = 0; ii < n; ii += bs)
        for (int kk = 0; kk < n; kk += bs)
            for (int jj = 0; jj < n; jj += bs)
                for (int i = ii; i < ii + bs && i < n; i++)
                    for (int k = kk; k < kk + bs && k < n; k++) {
                        double aik = a[i * n + k];
                        for (int j = jj; j < jj + bs && j < n; j++) c[i * n + j] += aik * b[k * n + j];
                    }
    for (int it = 0; it < 20; it++)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                a[i * n + j] = 0.25 * (c[(i - 1) * n + j] + c[(i + 1) * n + j] + c[i * n + j - 1] + c[i * n + j + 1]);
    double s = 0;
    for (int i = 0; i < n * n; i++) s += a[i];
    printf("%.6f\n", s);
    return 0;
}
