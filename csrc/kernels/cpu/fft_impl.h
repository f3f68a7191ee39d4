/* fft_impl.h - the body of fft_kernels.c for one real type, included once with FT = float,
 * SUF = f4 and once with FT = double, SUF = f8 (plain macros: the two types share every line).
 *
 * Complex numbers are interleaved (re, im) pairs of FT; element e of a line is at FT offset 2e.
 *
 * Note [Stockham passes]
 * A pass of radix r over a length nc = r * m with stride s (the product of the radices before it)
 * reads x[q + s (p + t m)] for t < r, computes their r-point DFT b_u and writes
 * y[q + s (r p + u)] = b_u * w^{p u}, w = e^{sign 2 pi i / nc}, for p < m, q < s: the
 * self-sorting (Stockham) decimation-in-frequency form, so no bit-reversal pass is needed and
 * the result comes out in order after the last pass, in x or y by the parity of the pass count.
 * The innermost loop runs over q with unit stride, which the compiler vectorizes with the flags
 * of the capability at hand (the later passes, where s is large, are most of the work). */

#define PT_FFT_CAT2(a, b) a##_##b
#define PT_FFT_CAT(a, b) PT_FFT_CAT2(a, b)
#define FN(name) PT_FFT_CAT(name, SUF)

/* y = b * w for the complex b = (br, bi) and w = tw[0], tw[1]. */
#define PT_FFT_TWIDDLE(Y, BR, BI, W)                                                               \
    do {                                                                                           \
        const FT wr_ = (W)[0], wi_ = (W)[1];                                                       \
        (Y)[0] = (BR) * wr_ - (BI) * wi_;                                                          \
        (Y)[1] = (BR) * wi_ + (BI) * wr_;                                                          \
    } while (0)

static void FN(pass2)(int64_t m, int64_t s, const FT *tw, const FT *x, FT *restrict y)
{
    if (s == 1) {
        for (int64_t p = 0; p < m; p++) {
            const FT ar = x[2 * p], ai = x[2 * p + 1], br = x[2 * (p + m)],
                     bi = x[2 * (p + m) + 1];
            y[4 * p] = ar + br;
            y[4 * p + 1] = ai + bi;
            PT_FFT_TWIDDLE(y + 4 * p + 2, ar - br, ai - bi, tw + 2 * p);
        }
        return;
    }
    for (int64_t p = 0; p < m; p++) {
        const FT *a0 = x + 2 * s * p, *a1 = x + 2 * s * (p + m);
        FT *restrict b0 = y + 2 * s * (2 * p), *restrict b1 = b0 + 2 * s;
        const FT w[2] = {tw[2 * p], tw[2 * p + 1]};
        for (int64_t q = 0; q < s; q++) {
            const FT ar = a0[2 * q], ai = a0[2 * q + 1], br = a1[2 * q], bi = a1[2 * q + 1];
            b0[2 * q] = ar + br;
            b0[2 * q + 1] = ai + bi;
            PT_FFT_TWIDDLE(b1 + 2 * q, ar - br, ai - bi, w);
        }
    }
}

static void FN(pass3)(int64_t m, int64_t s, int sign, const FT *tw, const FT *x, FT *restrict y)
{
    const FT h = (FT)(sign * 0.86602540378443864676); /* sign * sin(2 pi / 3) */
    for (int64_t p = 0; p < m; p++) {
        const FT *a0 = x + 2 * s * p, *a1 = x + 2 * s * (p + m), *a2 = x + 2 * s * (p + 2 * m);
        FT *restrict b0 = y + 2 * s * (3 * p), *restrict b1 = b0 + 2 * s, *restrict b2 = b1 + 2 * s;
        const FT *w = tw + 4 * p;
        for (int64_t q = 0; q < s; q++) {
            const FT sr = a1[2 * q] + a2[2 * q], si = a1[2 * q + 1] + a2[2 * q + 1];
            const FT dr = a1[2 * q] - a2[2 * q], di = a1[2 * q + 1] - a2[2 * q + 1];
            const FT ar = a0[2 * q], ai = a0[2 * q + 1];
            b0[2 * q] = ar + sr;
            b0[2 * q + 1] = ai + si;
            const FT mr = ar - (FT)0.5 * sr, mi = ai - (FT)0.5 * si;
            /* b1 = m + i h d, b2 = m - i h d */
            PT_FFT_TWIDDLE(b1 + 2 * q, mr - h * di, mi + h * dr, w);
            PT_FFT_TWIDDLE(b2 + 2 * q, mr + h * di, mi - h * dr, w + 2);
        }
    }
}

static void FN(pass4)(int64_t m, int64_t s, int sign, const FT *tw, const FT *x, FT *restrict y)
{
    const FT g = (FT)sign; /* the 4th root of unity is sign * i */
    if (s == 1) {
        /* the first pass: one butterfly per p, so the loop over p is the one to vectorize */
        for (int64_t p = 0; p < m; p++) {
            const FT *a0 = x + 2 * p, *a1 = x + 2 * (p + m), *a2 = x + 2 * (p + 2 * m),
                     *a3 = x + 2 * (p + 3 * m);
            FT *restrict b = y + 8 * p;
            const FT *w = tw + 6 * p;
            const FT t0r = a0[0] + a2[0], t0i = a0[1] + a2[1];
            const FT t1r = a0[0] - a2[0], t1i = a0[1] - a2[1];
            const FT t2r = a1[0] + a3[0], t2i = a1[1] + a3[1];
            const FT t3r = -g * (a1[1] - a3[1]), t3i = g * (a1[0] - a3[0]);
            b[0] = t0r + t2r;
            b[1] = t0i + t2i;
            PT_FFT_TWIDDLE(b + 2, t1r + t3r, t1i + t3i, w);
            PT_FFT_TWIDDLE(b + 4, t0r - t2r, t0i - t2i, w + 2);
            PT_FFT_TWIDDLE(b + 6, t1r - t3r, t1i - t3i, w + 4);
        }
        return;
    }
    for (int64_t p = 0; p < m; p++) {
        const FT *a0 = x + 2 * s * p, *a1 = x + 2 * s * (p + m), *a2 = x + 2 * s * (p + 2 * m),
                 *a3 = x + 2 * s * (p + 3 * m);
        FT *restrict b0 = y + 2 * s * (4 * p), *restrict b1 = b0 + 2 * s,
                     *restrict b2 = b1 + 2 * s, *restrict b3 = b2 + 2 * s;
        const FT *w = tw + 6 * p;
        for (int64_t q = 0; q < s; q++) {
            const FT t0r = a0[2 * q] + a2[2 * q], t0i = a0[2 * q + 1] + a2[2 * q + 1];
            const FT t1r = a0[2 * q] - a2[2 * q], t1i = a0[2 * q + 1] - a2[2 * q + 1];
            const FT t2r = a1[2 * q] + a3[2 * q], t2i = a1[2 * q + 1] + a3[2 * q + 1];
            /* (sign i) (a1 - a3) */
            const FT t3r = -g * (a1[2 * q + 1] - a3[2 * q + 1]), t3i = g * (a1[2 * q] - a3[2 * q]);
            b0[2 * q] = t0r + t2r;
            b0[2 * q + 1] = t0i + t2i;
            PT_FFT_TWIDDLE(b1 + 2 * q, t1r + t3r, t1i + t3i, w);
            PT_FFT_TWIDDLE(b2 + 2 * q, t0r - t2r, t0i - t2i, w + 2);
            PT_FFT_TWIDDLE(b3 + 2 * q, t1r - t3r, t1i - t3i, w + 4);
        }
    }
}

static void FN(pass5)(int64_t m, int64_t s, int sign, const FT *tw, const FT *x, FT *restrict y)
{
    const FT c1 = (FT)0.30901699437494742410, c2 = (FT)-0.80901699437494742410;
    const FT s1 = (FT)(sign * 0.95105651629515357212), s2 = (FT)(sign * 0.58778525229247312917);
    for (int64_t p = 0; p < m; p++) {
        const FT *a0 = x + 2 * s * p, *a1 = a0 + 2 * s * m, *a2 = a1 + 2 * s * m,
                 *a3 = a2 + 2 * s * m, *a4 = a3 + 2 * s * m;
        FT *restrict b0 = y + 2 * s * (5 * p), *restrict b1 = b0 + 2 * s,
                     *restrict b2 = b1 + 2 * s, *restrict b3 = b2 + 2 * s,
                     *restrict b4 = b3 + 2 * s;
        const FT *w = tw + 8 * p;
        for (int64_t q = 0; q < s; q++) {
            const FT ar = a0[2 * q], ai = a0[2 * q + 1];
            const FT s14r = a1[2 * q] + a4[2 * q], s14i = a1[2 * q + 1] + a4[2 * q + 1];
            const FT d14r = a1[2 * q] - a4[2 * q], d14i = a1[2 * q + 1] - a4[2 * q + 1];
            const FT s23r = a2[2 * q] + a3[2 * q], s23i = a2[2 * q + 1] + a3[2 * q + 1];
            const FT d23r = a2[2 * q] - a3[2 * q], d23i = a2[2 * q + 1] - a3[2 * q + 1];
            b0[2 * q] = ar + s14r + s23r;
            b0[2 * q + 1] = ai + s14i + s23i;
            const FT r1r = ar + c1 * s14r + c2 * s23r, r1i = ai + c1 * s14i + c2 * s23i;
            const FT r2r = ar + c2 * s14r + c1 * s23r, r2i = ai + c2 * s14i + c1 * s23i;
            /* j1 = s1 d14 + s2 d23, j2 = s2 d14 - s1 d23; b1,4 = r1 +- i j1, b2,3 = r2 +- i j2 */
            const FT j1r = s1 * d14r + s2 * d23r, j1i = s1 * d14i + s2 * d23i;
            const FT j2r = s2 * d14r - s1 * d23r, j2i = s2 * d14i - s1 * d23i;
            PT_FFT_TWIDDLE(b1 + 2 * q, r1r - j1i, r1i + j1r, w);
            PT_FFT_TWIDDLE(b4 + 2 * q, r1r + j1i, r1i - j1r, w + 6);
            PT_FFT_TWIDDLE(b2 + 2 * q, r2r - j2i, r2i + j2r, w + 2);
            PT_FFT_TWIDDLE(b3 + 2 * q, r2r + j2i, r2i - j2r, w + 4);
        }
    }
}

/* Note [generic odd radix]
 * An odd prime radix r without a butterfly of its own pairs the inputs t and r - t: with
 * S_t = a_t + a_{r-t}, D_t = a_t - a_{r-t} and w^k = c_k + i s_k (s_k signed by the direction),
 * b_u = a_0 + sum_t S_t c_{tu} + i sum_t D_t s_{tu} and b_{r-u} the same with - i, t, u in
 * 1..(r-1)/2: real coefficients times complex vectors, a quarter of the direct DFT's flops. The
 * vectors run over a block of PT_FFT_QBLOCK values of q (interleaved, unit stride), so the
 * multiply-adds vectorize whatever r is (PT_FFT_QBLOCK: fft_kernels.c). */

static void FN(pass_generic)(int r, int64_t m, int64_t s, const FT *roots, const FT *tw,
                             const FT *x, FT *restrict y)
{
    const int hr = (r - 1) / 2;
    FT sum[(PT_FFT_MAX_RADIX - 1) / 2][2 * PT_FFT_QBLOCK];
    FT dif[(PT_FFT_MAX_RADIX - 1) / 2][2 * PT_FFT_QBLOCK];
    FT re[2 * PT_FFT_QBLOCK], im[2 * PT_FFT_QBLOCK];
    for (int64_t p = 0; p < m; p++) {
        const FT *w = tw + 2 * (r - 1) * p;
        for (int64_t q0 = 0; q0 < s; q0 += PT_FFT_QBLOCK) {
            const int64_t len = 2 * (s - q0 < PT_FFT_QBLOCK ? s - q0 : PT_FFT_QBLOCK);
            const FT *a0 = x + 2 * (q0 + s * p);
            FT *b0 = y + 2 * (q0 + s * (r * p));
            for (int64_t j = 0; j < len; j++) b0[j] = a0[j];
            for (int t = 1; t <= hr; t++) {
                const FT *at = x + 2 * (q0 + s * (p + t * m));
                const FT *ar = x + 2 * (q0 + s * (p + (r - t) * m));
                for (int64_t j = 0; j < len; j++) {
                    sum[t - 1][j] = at[j] + ar[j];
                    dif[t - 1][j] = at[j] - ar[j];
                    b0[j] += sum[t - 1][j];
                }
            }
            for (int u = 1; u <= hr; u++) {
                for (int64_t j = 0; j < len; j++) {
                    re[j] = a0[j];
                    im[j] = 0;
                }
                int k = 0; /* t * u mod r */
                for (int t = 1; t <= hr; t++) {
                    k += u;
                    if (k >= r) k -= r;
                    const FT c = roots[2 * k], sn = roots[2 * k + 1];
                    for (int64_t j = 0; j < len; j++) {
                        re[j] += sum[t - 1][j] * c;
                        im[j] += dif[t - 1][j] * sn;
                    }
                }
                FT *bu = y + 2 * (q0 + s * (r * p + u)), *bv = y + 2 * (q0 + s * (r * p + r - u));
                const FT *wu = w + 2 * (u - 1), *wv = w + 2 * (r - u - 1);
                for (int64_t j = 0; j < len; j += 2) {
                    /* b_u = re + i im, b_{r-u} = re - i im */
                    PT_FFT_TWIDDLE(bu + j, re[j] - im[j + 1], re[j + 1] + im[j], wu);
                    PT_FFT_TWIDDLE(bv + j, re[j] + im[j + 1], re[j + 1] - im[j], wv);
                }
            }
        }
    }
}

/* The Stockham passes of a mixed-radix plan over data, with work as the other buffer; returns
 * the buffer that holds the result (Note [Stockham passes]). */
static FT *FN(stockham)(const pt_fft_plan *pl, FT *data, FT *work)
{
    FT *x = data, *y = work;
    int64_t s = 1, nc = pl->n;
    for (int i = 0; i < pl->npasses; i++) {
        const int r = pl->radix[i];
        const int64_t m = nc / r;
        const FT *tw = (const FT *)pl->twiddle[i];
        switch (r) {
        case 2: FN(pass2)(m, s, tw, x, y); break;
        case 3: FN(pass3)(m, s, pl->sign, tw, x, y); break;
        case 4: FN(pass4)(m, s, pl->sign, tw, x, y); break;
        case 5: FN(pass5)(m, s, pl->sign, tw, x, y); break;
        default: FN(pass_generic)(r, m, s, (const FT *)pl->roots[i], tw, x, y); break;
        }
        FT *t = x;
        x = y;
        y = t;
        s *= r;
        nc = m;
    }
    return x;
}

static void FN(c2c)(const pt_fft_plan *pl, FT *data, FT *work, FT scale);

/* Note [Bluestein]
 * With c_k = e^{sign pi i k^2 / n}, jk = (j^2 + k^2 - (k - j)^2) / 2 turns the transform into
 * X_k = c_k sum_j (x_j c_j) conj(c_{k-j}): a convolution with the conjugate chirp, done
 * circularly over m >= 2n - 1 points by the inner forward plan. The inverse transform of the
 * product is conj(FFT(conj(.))) / m, with 1/m folded into the stored kernel. */
static void FN(bluestein)(const pt_fft_plan *pl, FT *data, FT *work, FT scale)
{
    const int64_t n = pl->n, m = pl->conv_n;
    const FT *c = (const FT *)pl->chirp, *kf = (const FT *)pl->kernel_fft;
    FT *buf = work, *inner_work = work + 2 * m;
    for (int64_t j = 0; j < n; j++) {
        const FT xr = data[2 * j], xi = data[2 * j + 1], cr = c[2 * j], ci = c[2 * j + 1];
        buf[2 * j] = xr * cr - xi * ci;
        buf[2 * j + 1] = xr * ci + xi * cr;
    }
    for (int64_t j = 2 * n; j < 2 * m; j++) buf[j] = 0;
    FT *a = FN(stockham)(pl->inner, buf, inner_work);
    for (int64_t j = 0; j < m; j++) {
        const FT ar = a[2 * j], ai = a[2 * j + 1], kr = kf[2 * j], ki = kf[2 * j + 1];
        a[2 * j] = ar * kr - ai * ki;
        a[2 * j + 1] = -(ar * ki + ai * kr);
    }
    FT *b = FN(stockham)(pl->inner, a, a == buf ? inner_work : buf);
    for (int64_t k = 0; k < n; k++) {
        const FT br = b[2 * k], bi = -b[2 * k + 1], cr = c[2 * k], ci = c[2 * k + 1];
        data[2 * k] = scale * (br * cr - bi * ci);
        data[2 * k + 1] = scale * (br * ci + bi * cr);
    }
}

static void FN(c2c)(const pt_fft_plan *pl, FT *data, FT *work, FT scale)
{
    if (pl->conv_n) {
        FN(bluestein)(pl, data, work, scale);
        return;
    }
    FT *r = FN(stockham)(pl, data, work);
    const int64_t len = 2 * pl->n;
    if (r != data) {
        for (int64_t j = 0; j < len; j++) data[j] = scale * r[j];
    } else if (scale != 1) {
        for (int64_t j = 0; j < len; j++) data[j] *= scale;
    }
}

/* The transform of data by a complex plan, left in data or work: the buffer holding it. */
static FT *FN(c2c_any)(const pt_fft_plan *pl, FT *data, FT *work)
{
    if (pl->conv_n) {
        FN(bluestein)(pl, data, work, 1);
        return data;
    }
    return FN(stockham)(pl, data, work);
}

/* Note [real transforms by half-length complex transforms]
 * For even n = 2h the samples paired as z_j = x_{2j} + i x_{2j+1} have the transform Z of h
 * points; with E_k, O_k the transforms of the even and odd samples, Z_k = E_k + i O_k and
 * conj(Z_{h-k}) = E_k - i O_k, so X_k = E_k + W^k O_k (W = e^{-2 pi i / n}) for k <= h
 * (Z_h = Z_0). c2r runs this backwards: E_k + i O_k rebuilt from X_k and conj(X_{h-k}),
 * then h backward points. Odd n takes the full complex transform. */
static void FN(r2c)(const pt_fft_plan *pl, const FT *in, FT *out, FT *work, FT scale)
{
    const int64_t n = pl->n;
    if (n % 2) {
        for (int64_t j = 0; j < n; j++) {
            work[2 * j] = in[j];
            work[2 * j + 1] = 0;
        }
        const FT *z = FN(c2c_any)(pl->inner, work, work + 2 * n);
        for (int64_t k = 0; k <= 2 * (n / 2) + 1; k++) out[k] = scale * z[k];
        return;
    }
    const int64_t h = n / 2;
    const FT *rt = (const FT *)pl->real_twiddle;
    memcpy(work, in, sizeof(FT) * (size_t)n);
    const FT *z = FN(c2c_any)(pl->inner, work, work + 2 * h);
    out[0] = scale * (z[0] + z[1]);
    out[1] = 0;
    out[2 * h] = scale * (z[0] - z[1]);
    out[2 * h + 1] = 0;
    const FT half = (FT)0.5 * scale;
    for (int64_t k = 1; k < h; k++) {
        const FT zr = z[2 * k], zi = z[2 * k + 1], cr = z[2 * (h - k)], ci = -z[2 * (h - k) + 1];
        const FT er = zr + cr, ei = zi + ci;   /* 2 E_k */
        const FT or_ = zi - ci, oi = cr - zr;  /* 2 O_k = -i (Z_k - conj Z_{h-k}) */
        const FT wr = rt[2 * k], wi = rt[2 * k + 1];
        out[2 * k] = half * (er + or_ * wr - oi * wi);
        out[2 * k + 1] = half * (ei + or_ * wi + oi * wr);
    }
}

static void FN(c2r)(const pt_fft_plan *pl, const FT *in, FT *out, FT *work, FT scale)
{
    const int64_t n = pl->n;
    if (n % 2) {
        work[0] = in[0];
        work[1] = 0;
        for (int64_t k = 1; k <= n / 2; k++) {
            work[2 * k] = in[2 * k];
            work[2 * k + 1] = in[2 * k + 1];
            work[2 * (n - k)] = in[2 * k];
            work[2 * (n - k) + 1] = -in[2 * k + 1];
        }
        const FT *z = FN(c2c_any)(pl->inner, work, work + 2 * n);
        for (int64_t j = 0; j < n; j++) out[j] = scale * z[2 * j];
        return;
    }
    const int64_t h = n / 2;
    const FT *rt = (const FT *)pl->real_twiddle;
    /* k = 0 pairs bins 0 and h, whose imaginary parts are ignored */
    work[0] = in[0] + in[2 * h];
    work[1] = in[0] - in[2 * h];
    for (int64_t k = 1; k < h; k++) {
        const FT xr = in[2 * k], xi = in[2 * k + 1];
        const FT cr = in[2 * (h - k)], ci = -in[2 * (h - k) + 1];
        const FT sr = xr + cr, si = xi + ci;
        const FT dr0 = xr - cr, di0 = xi - ci;
        const FT wr = rt[2 * k], wi = -rt[2 * k + 1]; /* e^{+2 pi i k / n} */
        const FT dr = dr0 * wr - di0 * wi, di = dr0 * wi + di0 * wr;
        work[2 * k] = sr - di;
        work[2 * k + 1] = si + dr;
    }
    const FT *z = FN(c2c_any)(pl->inner, work, work + 2 * h);
    for (int64_t j = 0; j < n; j++) out[j] = scale * z[j];
}

#undef FN
#undef PT_FFT_CAT
#undef PT_FFT_CAT2
#undef PT_FFT_TWIDDLE
