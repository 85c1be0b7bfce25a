/*
 * amgx_bench: time NVIDIA AMGX (2.5, C API) on a matrix written by `blockamg gen`, so that
 * AMGX and `blockamg solve --gpu` are measured on the same operator in the same run.
 *
 *   amgx_bench --matrix A.petsc --config CFG.json [--rhs b.petsc] [--block-size 3]
 *              [--tol 1e-8] [--maxit 1000] [--steps K] [--no-pin] [--no-override]
 *
 * The PETSc binary AIJ matrix (big-endian, 32-bit indices) is grouped into block CSR with
 * block-size × block-size blocks, stored row-major (AMGX's default block_format), entries
 * missing from a stored block completed with explicit zeros (the count is printed as
 * padded=). The right-hand side is the PETSc Vec given, or all ones.
 *
 * Phases, each timed with CLOCK_MONOTONIC around the AMGX calls only (they return when the
 * device work is done: the uploads and downloads are synchronous cudaMemcpy, set-up and
 * solve end with host-side norms):
 *   upload    AMGX_matrix_upload_all (3×3 blocks, mode dDDI); the matrix is on the host
 *             before it, nothing of it on the device
 *   setup     AMGX_solver_setup, the first one
 *   solve     b upload + x = 0 + AMGX_solver_solve + x download (pcg_s: the solve alone)
 *   step k    new values on the same pattern, computed on the host before the clock (every
 *             value scaled by 1 + k/10, cumulatively, like `blockamg solve --steps` does for
 *             a matrix from a file; b stays), then AMGX_matrix_replace_coefficients
 *             (replace_s), AMGX_solver_resetup (resetup_s) and a solve as above
 * After every solve x is downloaded and the true residual ‖b − A·x‖/‖b‖ computed on the host
 * in double precision; it must be finite and at most 10 × the tolerance, or the program
 * exits with status 2 (after printing the phase's line with ok=0). At the end one device
 * product A·x (AMGX_matrix_vector_multiply) is compared with the host's, which checks the
 * block layout AMGX was given.
 *
 * The tolerance and the iteration limit are passed to AMGX as "main:tolerance" and
 * "main:max_iters" on top of the config file (its outer solver's scope must be "main");
 * --no-override leaves the file's values alone (the host check still uses --tol).
 * By default the host arrays are page-locked (AMGX_pin_memory, before any clock), as an
 * application that feeds a GPU solver every step would keep them; --no-pin leaves them
 * pageable.
 *
 * Output on stdout, one line per phase, key=value (AMGX's own messages go to stderr):
 *   amgx matrix file=… n=… block_size=… block_rows=… nnz=… nnzb=… padded=… bnorm=…
 *   amgx config=NAME pinned=0|1 tol=… maxit=…
 *   amgx upload_s=… setup_s=… solve_s=… pcg_s=… iterations=… status=… relres=… ok=1
 *   amgx step k=1 replace_s=… resetup_s=… solve_s=… pcg_s=… iterations=… status=… relres=… ok=1
 *   amgx check matvec_relerr=…
 *   amgx json {…}   (the same figures as one JSON object)
 *
 * Built with -DREADER_ONLY it needs no AMGX: it reads and converts the files and prints
 * the sizes, the padding, ‖b‖, the diagonal's range and a host residual check, which tests
 * the reader against `blockamg info`.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef READER_ONLY
#include "amgx_c.h"
#endif

#ifdef _OPENMP
#define OMP_SUM_FOR _Pragma("omp parallel for reduction(+ : sum) schedule(static)")
#define OMP_FOR _Pragma("omp parallel for schedule(static)")
#else
#define OMP_SUM_FOR
#define OMP_FOR
#endif

enum { MAT_CLASSID = 1211216, VEC_CLASSID = 1211214, MAX_BS = 16 };

/* ---------------------------------------------------------------- utilities */

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "amgx_bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Page-aligned (page-locked with AMGX_pin_memory). */
static void *xalloc(size_t bytes)
{
	void *p = NULL;
	if (bytes == 0)
		bytes = 1;
	if (posix_memalign(&p, 4096, bytes) != 0)
		die("out of memory (%zu bytes)", bytes);
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = xalloc(n * size);
	memset(p, 0, n * size);
	return p;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static double be64f(const unsigned char *p)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | p[i];
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* A big-endian reader over a FILE with one chunk buffer. */
typedef struct {
	FILE *f;
	const char *name;
	unsigned char *buf;
	size_t cap;
} reader;

static void rd_open(reader *r, const char *name)
{
	r->f = fopen(name, "rb");
	if (!r->f)
		die("cannot open %s: %s", name, strerror(errno));
	r->name = name;
	r->cap = 1 << 22;
	r->buf = xalloc(r->cap);
}

static void rd_close(reader *r)
{
	fclose(r->f);
	free(r->buf);
}

static void rd_bytes(reader *r, size_t n, const char *what)
{
	if (fread(r->buf, 1, n, r->f) != n)
		die("%s: file truncated (reading %s)", r->name, what);
}

static void rd_int32s(reader *r, int32_t *dst, int64_t n)
{
	const int64_t per = (int64_t)(r->cap / 4);
	for (int64_t done = 0; done < n;) {
		int64_t m = n - done < per ? n - done : per;
		rd_bytes(r, (size_t)m * 4, "int32 data");
		for (int64_t k = 0; k < m; k++)
			dst[done + k] = (int32_t)be32(r->buf + 4 * k);
		done += m;
	}
}

static void rd_float64s(reader *r, double *dst, int64_t n)
{
	const int64_t per = (int64_t)(r->cap / 8);
	for (int64_t done = 0; done < n;) {
		int64_t m = n - done < per ? n - done : per;
		rd_bytes(r, (size_t)m * 8, "float64 data");
		for (int64_t k = 0; k < m; k++)
			dst[done + k] = be64f(r->buf + 8 * k);
		done += m;
	}
}

/* ---------------------------------------------------------------- matrix */

/* Block CSR: nb block rows and columns of bs×bs blocks, each block row-major. */
typedef struct {
	int bs, nb;
	int64_t nnz;    /* scalar entries stored in the file */
	int64_t nnzb;   /* blocks */
	int64_t padded; /* explicit zeros added to complete blocks */
	int *rowptr;    /* nb+1 */
	int *col;       /* nnzb */
	double *val;    /* nnzb·bs·bs */
} bsr;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* read_petsc_mat reads a PETSc binary AIJ Mat and groups it into bs×bs blocks. */
static void read_petsc_mat(const char *name, int bs, bsr *A)
{
	reader r;
	rd_open(&r, name);
	int32_t h[4];
	rd_int32s(&r, h, 4);
	if (h[0] != MAT_CLASSID)
		die("%s: class id %d, expected 1211216 (a PETSc Mat with 32-bit indices)", name, (int)h[0]);
	int64_t rows = h[1], cols = h[2], nnz = h[3];
	if (rows <= 0 || cols != rows)
		die("%s: a square matrix expected, the header says %lld × %lld", name, (long long)rows, (long long)cols);
	if (nnz < 0)
		die("%s: nonzero count %lld in the header (dense or 64-bit PETSc format?)", name, (long long)nnz);
	if (rows % bs != 0)
		die("%s: %lld rows do not divide into blocks of %d", name, (long long)rows, bs);

	int32_t *len = xalloc((size_t)rows * sizeof *len);
	rd_int32s(&r, len, rows);
	int64_t *rp = xalloc((size_t)(rows + 1) * sizeof *rp);
	rp[0] = 0;
	for (int64_t i = 0; i < rows; i++) {
		if (len[i] < 0 || len[i] > cols)
			die("%s: row %lld has length %d, expected 0…%lld", name, (long long)i, (int)len[i], (long long)cols);
		rp[i + 1] = rp[i] + len[i];
	}
	free(len);
	if (rp[rows] != nnz)
		die("%s: the row lengths sum to %lld, the header says %lld nonzeros", name, (long long)rp[rows], (long long)nnz);
	int32_t *ci = xalloc((size_t)nnz * sizeof *ci);
	rd_int32s(&r, ci, nnz);
	double *cv = xalloc((size_t)nnz * sizeof *cv);
	rd_float64s(&r, cv, nnz);
	rd_close(&r);

	for (int64_t i = 0; i < rows; i++)
		for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
			if (ci[k] < 0 || ci[k] >= cols)
				die("%s: row %lld: column index %d out of range", name, (long long)i, (int)ci[k]);
			if (k > rp[i] && ci[k] <= ci[k - 1])
				die("%s: row %lld: column indices not strictly increasing", name, (long long)i);
			if (!isfinite(cv[k]))
				die("%s: row %lld: a value is not finite", name, (long long)i);
		}

	int nb = (int)(rows / bs);
	int *where = xalloc((size_t)nb * sizeof *where); /* block column → slot in this block row */
	for (int j = 0; j < nb; j++)
		where[j] = -1;
	int *list = xalloc((size_t)nb * sizeof *list); /* the block columns of one block row */

	/* Pass 1: the block columns of every block row. */
	int *rowptr = xalloc((size_t)(nb + 1) * sizeof *rowptr);
	rowptr[0] = 0;
	int64_t nnzb = 0;
	for (int I = 0; I < nb; I++) {
		size_t m = 0;
		for (int a = 0; a < bs; a++) {
			int64_t i = (int64_t)I * bs + a;
			for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
				int J = ci[k] / bs;
				if (where[J] < 0) {
					where[J] = 0;
					list[m++] = J;
				}
			}
		}
		for (size_t t = 0; t < m; t++)
			where[list[t]] = -1;
		nnzb += (int64_t)m;
		if (nnzb > INT32_MAX)
			die("%s: %lld blocks, more than AMGX's int indices hold", name, (long long)nnzb);
		rowptr[I + 1] = (int)nnzb;
	}

	/* Pass 2: columns sorted per block row, values placed, missing entries left zero. */
	int *col = xalloc((size_t)nnzb * sizeof *col);
	size_t bb = (size_t)bs * (size_t)bs;
	double *val = xcalloc((size_t)nnzb * bb, sizeof *val);
	for (int I = 0; I < nb; I++) {
		int m = 0;
		int base = rowptr[I];
		for (int a = 0; a < bs; a++) {
			int64_t i = (int64_t)I * bs + a;
			for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
				int J = ci[k] / bs;
				if (where[J] < 0) {
					where[J] = 0;
					col[base + m++] = J;
				}
			}
		}
		qsort(col + base, (size_t)m, sizeof *col, cmp_int);
		for (int t = 0; t < m; t++)
			where[col[base + t]] = base + t;
		for (int a = 0; a < bs; a++) {
			int64_t i = (int64_t)I * bs + a;
			for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
				int J = ci[k] / bs, b = ci[k] % bs;
				val[(size_t)where[J] * bb + (size_t)a * bs + b] = cv[k];
			}
		}
		for (int t = 0; t < m; t++)
			where[col[base + t]] = -1;
	}
	free(where);
	free(list);
	free(rp);
	free(ci);
	free(cv);

	A->bs = bs;
	A->nb = nb;
	A->nnz = nnz;
	A->nnzb = nnzb;
	A->padded = nnzb * (int64_t)bb - nnz;
	A->rowptr = rowptr;
	A->col = col;
	A->val = val;
}

/* read_petsc_vec reads a PETSc binary Vec of n entries. */
static double *read_petsc_vec(const char *name, int64_t n)
{
	reader r;
	rd_open(&r, name);
	int32_t h[2];
	rd_int32s(&r, h, 2);
	if (h[0] != VEC_CLASSID)
		die("%s: class id %d, expected 1211214 (a PETSc Vec)", name, (int)h[0]);
	if (h[1] != n)
		die("%s: %d entries, the matrix has %lld rows", name, (int)h[1], (long long)n);
	double *v = xalloc((size_t)n * sizeof *v);
	rd_float64s(&r, v, n);
	rd_close(&r);
	for (int64_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			die("%s: entry %lld is not finite", name, (long long)i);
	return v;
}

/* y = A·x on the host. */
static void bsr_mul(const bsr *A, const double *x, double *y)
{
	const int bs = A->bs;
	const size_t bb = (size_t)bs * bs;
	OMP_FOR
	for (int I = 0; I < A->nb; I++) {
		double s[MAX_BS] = {0};
		for (int k = A->rowptr[I]; k < A->rowptr[I + 1]; k++) {
			const double *blk = A->val + (size_t)k * bb;
			const double *xj = x + (size_t)A->col[k] * bs;
			for (int a = 0; a < bs; a++)
				for (int b = 0; b < bs; b++)
					s[a] += blk[a * bs + b] * xj[b];
		}
		for (int a = 0; a < bs; a++)
			y[(size_t)I * bs + a] = s[a];
	}
}

static double norm2(const double *v, int64_t n)
{
	double sum = 0;
	OMP_SUM_FOR
	for (int64_t i = 0; i < n; i++)
		sum += v[i] * v[i];
	return sqrt(sum);
}

/* ‖b − A·x‖/‖b‖ (‖r‖ when b = 0); w is n of scratch. */
static double relres(const bsr *A, const double *b, const double *x, double *w)
{
	int64_t n = (int64_t)A->nb * A->bs;
	bsr_mul(A, x, w);
	double sum = 0;
	OMP_SUM_FOR
	for (int64_t i = 0; i < n; i++)
		sum += (b[i] - w[i]) * (b[i] - w[i]);
	double bn = norm2(b, n);
	return sqrt(sum) / (bn > 0 ? bn : 1);
}

#ifndef READER_ONLY
static void bsr_scale(bsr *A, double f)
{
	int64_t m = A->nnzb * A->bs * A->bs;
	OMP_FOR
	for (int64_t k = 0; k < m; k++)
		A->val[k] *= f;
}
#endif

/* ---------------------------------------------------------------- options */

typedef struct {
	const char *matrix, *rhs, *config;
	int bs, maxit, steps, pin, override;
	double tol;
} options;

static void usage(void)
{
	fprintf(stderr,
		"usage: amgx_bench --matrix A.petsc --config CFG.json [--rhs b.petsc] [--block-size 3]\n"
		"                  [--tol 1e-8] [--maxit 1000] [--steps K] [--no-pin] [--no-override]\n");
	exit(1);
}

static void parse(int argc, char **argv, options *o)
{
	*o = (options){.bs = 3, .maxit = 1000, .steps = 0, .pin = 1, .override = 1, .tol = 1e-8};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--no-pin")) {
			o->pin = 0;
			continue;
		}
		if (!strcmp(a, "--no-override")) {
			o->override = 0;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage();
		if (!v) {
			fprintf(stderr, "amgx_bench: %s needs a value\n", a);
			usage();
		}
		i++;
		errno = 0;
		if (!strcmp(a, "--matrix"))
			o->matrix = v;
		else if (!strcmp(a, "--rhs"))
			o->rhs = v;
		else if (!strcmp(a, "--config"))
			o->config = v;
		else if (!strcmp(a, "--block-size"))
			o->bs = (int)strtol(v, &end, 10);
		else if (!strcmp(a, "--maxit"))
			o->maxit = (int)strtol(v, &end, 10);
		else if (!strcmp(a, "--steps"))
			o->steps = (int)strtol(v, &end, 10);
		else if (!strcmp(a, "--tol"))
			o->tol = strtod(v, &end);
		else {
			fprintf(stderr, "amgx_bench: unknown option %s\n", a);
			usage();
		}
		if (end && (*end || errno)) {
			fprintf(stderr, "amgx_bench: %s %s: not a number\n", a, v);
			usage();
		}
	}
	if (!o->matrix)
		usage();
#ifndef READER_ONLY
	if (!o->config)
		usage();
#endif
	if (o->bs < 1 || o->bs > MAX_BS || o->maxit < 1 || o->steps < 0 || !(o->tol > 0))
		usage();
}

#ifndef READER_ONLY
/* The config's name: its file name without folder and .json. */
static const char *config_name(const char *path, char *buf, size_t cap)
{
	const char *s = strrchr(path, '/');
	s = s ? s + 1 : path;
	snprintf(buf, cap, "%s", s);
	char *dot = strstr(buf, ".json");
	if (dot && dot[5] == 0)
		*dot = 0;
	for (char *p = buf; *p; p++)
		if (*p == '"' || *p == '\\' || *p == ' ' || (unsigned char)*p < 32)
			*p = '_';
	return buf;
}
#endif

#ifdef READER_ONLY
/* ---------------------------------------------------------------- reader self-test */

int main(int argc, char **argv)
{
	options o;
	parse(argc, argv, &o);
	bsr A;
	double t0 = now();
	read_petsc_mat(o.matrix, o.bs, &A);
	double read_s = now() - t0;
	int64_t n = (int64_t)A.nb * A.bs;
	double *b;
	if (o.rhs)
		b = read_petsc_vec(o.rhs, n);
	else {
		b = xalloc((size_t)n * sizeof *b);
		for (int64_t i = 0; i < n; i++)
			b[i] = 1;
	}
	double dmin = INFINITY, dmax = -INFINITY;
	for (int I = 0; I < A.nb; I++)
		for (int k = A.rowptr[I]; k < A.rowptr[I + 1]; k++)
			if (A.col[k] == I)
				for (int a = 0; a < A.bs; a++) {
					double d = A.val[(size_t)k * A.bs * A.bs + (size_t)a * A.bs + a];
					dmin = d < dmin ? d : dmin;
					dmax = d > dmax ? d : dmax;
				}
	double *x = xcalloc((size_t)n, sizeof *x), *w = xalloc((size_t)n * sizeof *w);
	double r0 = relres(&A, b, x, w); /* x = 0: exactly 1 */
	for (int64_t i = 0; i < n; i++)
		x[i] = 1;
	bsr_mul(&A, x, w);
	double a1 = norm2(w, n);
	printf("reader file=%s n=%lld block_size=%d block_rows=%d nnz=%lld nnzb=%lld padded=%lld "
	       "bnorm=%.17g diag_min=%.6g diag_max=%.6g relres_x0=%.17g norm_A_ones=%.17g read_s=%.3f\n",
		o.matrix, (long long)n, A.bs, A.nb, (long long)A.nnz, (long long)A.nnzb, (long long)A.padded,
		norm2(b, n), dmin, dmax, r0, a1, read_s);
	return 0;
}

#else
/* ---------------------------------------------------------------- AMGX */

static void amgx_print(const char *msg, int length)
{
	if (length > 0)
		fwrite(msg, 1, (size_t)length, stderr);
	else
		fputs(msg, stderr);
}

static void check(AMGX_RC rc, const char *call)
{
	if (rc == AMGX_RC_OK)
		return;
	char msg[4096];
	AMGX_get_error_string(rc, msg, sizeof msg);
	fprintf(stderr, "amgx_bench: %s: %s (AMGX_RC %d)\n", call, msg, (int)rc);
	printf("amgx error call=%s rc=%d\n", call, (int)rc);
	fflush(stdout);
	exit(3);
}
#define CHECK(call) check((call), #call)

static const char *status_name(AMGX_SOLVE_STATUS s)
{
	switch (s) {
	case AMGX_SOLVE_SUCCESS:
		return "success";
	case AMGX_SOLVE_FAILED:
		return "failed";
	case AMGX_SOLVE_DIVERGED:
		return "diverged";
	case AMGX_SOLVE_NOT_CONVERGED:
		return "not_converged";
	}
	return "unknown";
}

/* Page-locks [p, p+bytes) as one registration (AMGX_pin_memory takes an unsigned int, so at
 * most 4 GiB - 1; a copy whose source spans two registrations is refused by cudaMemcpy, so
 * larger arrays are not split but left pageable). Returns 0 when pinned. */
enum { MAX_PINS = 8 };
static void *pins[MAX_PINS];
static int npins;

static int pin(void *p, size_t bytes)
{
	if (bytes > 0xffffffffu || npins == MAX_PINS || AMGX_pin_memory(p, (unsigned int)bytes) != AMGX_RC_OK)
		return -1;
	pins[npins++] = p;
	return 0;
}

typedef struct {
	double replace, resetup, solve, pcg, relres;
	int iters, ok;
	const char *status;
} phase;

typedef struct {
	AMGX_solver_handle slv;
	AMGX_vector_handle b, x;
	const bsr *A;
	const double *bh;
	double *xh, *w;
	double tol;
} solve_ctx;

/* solve: b upload, x = 0, solve, x download; the host's residual check. */
static void solve(solve_ctx *c, phase *ph)
{
	int nb = c->A->nb, bs = c->A->bs;
	double t0 = now();
	CHECK(AMGX_vector_upload(c->b, nb, bs, c->bh));
	CHECK(AMGX_vector_set_zero(c->x, nb, bs));
	double t1 = now();
	CHECK(AMGX_solver_solve(c->slv, c->b, c->x));
	double t2 = now();
	CHECK(AMGX_vector_download(c->x, c->xh));
	double t3 = now();
	ph->solve = t3 - t0;
	ph->pcg = t2 - t1;
	AMGX_SOLVE_STATUS st;
	CHECK(AMGX_solver_get_iterations_number(c->slv, &ph->iters));
	CHECK(AMGX_solver_get_status(c->slv, &st));
	ph->status = status_name(st);
	ph->relres = relres(c->A, c->bh, c->xh, c->w);
	ph->ok = isfinite(ph->relres) && ph->relres <= 10 * c->tol;
}

int main(int argc, char **argv)
{
	options o;
	parse(argc, argv, &o);
	char cname[256];
	config_name(o.config, cname, sizeof cname);

	bsr A;
	read_petsc_mat(o.matrix, o.bs, &A);
	const int nb = A.nb, bs = A.bs;
	const int64_t n = (int64_t)nb * bs;
	double *b;
	if (o.rhs)
		b = read_petsc_vec(o.rhs, n);
	else {
		b = xalloc((size_t)n * sizeof *b);
		for (int64_t i = 0; i < n; i++)
			b[i] = 1;
	}
	double *xh = xcalloc((size_t)n, sizeof *xh), *w = xalloc((size_t)n * sizeof *w);
	printf("amgx matrix file=%s n=%lld block_size=%d block_rows=%d nnz=%lld nnzb=%lld padded=%lld bnorm=%.6e\n",
		o.matrix, (long long)n, bs, nb, (long long)A.nnz, (long long)A.nnzb, (long long)A.padded, norm2(b, n));
	if (A.padded > 0)
		fprintf(stderr, "amgx_bench: the scalar pattern is not block-structured: %lld explicit zeros complete its %dx%d blocks\n",
			(long long)A.padded, bs, bs);
	fflush(stdout);

	/* Library, config, resources, handles: before any clock. */
	double ti = now();
	CHECK(AMGX_initialize());
	CHECK(AMGX_register_print_callback(amgx_print));
	AMGX_config_handle cfg;
	if (o.override) {
		char extra[256];
		snprintf(extra, sizeof extra, "config_version=2, main:tolerance=%.17g, main:max_iters=%d", o.tol, o.maxit);
		CHECK(AMGX_config_create_from_file_and_string(&cfg, o.config, extra));
	} else
		CHECK(AMGX_config_create_from_file(&cfg, o.config));
	AMGX_resources_handle rsrc;
	CHECK(AMGX_resources_create_simple(&rsrc, cfg));
	AMGX_matrix_handle Ah;
	AMGX_vector_handle bh, xv, yv;
	AMGX_solver_handle slv;
	CHECK(AMGX_matrix_create(&Ah, rsrc, AMGX_mode_dDDI));
	CHECK(AMGX_vector_create(&bh, rsrc, AMGX_mode_dDDI));
	CHECK(AMGX_vector_create(&xv, rsrc, AMGX_mode_dDDI));
	CHECK(AMGX_vector_create(&yv, rsrc, AMGX_mode_dDDI));
	CHECK(AMGX_solver_create(&slv, rsrc, AMGX_mode_dDDI, cfg));
	double init_s = now() - ti;

	int pinned = 0;
	double pin_s = 0;
	if (o.pin) {
		double tp = now();
		size_t vbytes = (size_t)A.nnzb * bs * bs * sizeof(double);
		pinned = pin(A.val, vbytes) == 0 && pin(A.col, (size_t)A.nnzb * sizeof(int)) == 0 &&
			 pin(A.rowptr, (size_t)(nb + 1) * sizeof(int)) == 0 && pin(b, (size_t)n * sizeof(double)) == 0 &&
			 pin(xh, (size_t)n * sizeof(double)) == 0;
		if (!pinned) {
			fprintf(stderr, "amgx_bench: page-locking the host arrays failed (or one is over 4 GiB); they stay pageable\n");
			while (npins > 0)
				AMGX_unpin_memory(pins[--npins]);
		}
		pin_s = now() - tp;
	}
	printf("amgx config=%s pinned=%d tol=%g maxit=%d override=%d init_s=%.4f pin_s=%.4f\n", cname, pinned, o.tol,
		o.maxit, o.override, init_s, pin_s);
	fflush(stdout);

	double t0 = now();
	CHECK(AMGX_matrix_upload_all(Ah, nb, (int)A.nnzb, bs, bs, A.rowptr, A.col, A.val, NULL));
	double upload_s = now() - t0;
	t0 = now();
	CHECK(AMGX_solver_setup(slv, Ah));
	double setup_s = now() - t0;

	solve_ctx c = {.slv = slv, .b = bh, .x = xv, .A = &A, .bh = b, .xh = xh, .w = w, .tol = o.tol};
	phase first = {0};
	solve(&c, &first);
	printf("amgx upload_s=%.6f setup_s=%.6f solve_s=%.6f pcg_s=%.6f iterations=%d status=%s relres=%.3e ok=%d\n",
		upload_s, setup_s, first.solve, first.pcg, first.iters, first.status, first.relres, first.ok);
	fflush(stdout);

	phase *steps = calloc((size_t)o.steps + 1, sizeof *steps);
	int ok = first.ok, done = 0;
	for (int k = 1; ok && k <= o.steps; k++) {
		phase *s = &steps[k - 1];
		bsr_scale(&A, 1 + k / 10.0); /* the step's new values: the application's input */
		t0 = now();
		CHECK(AMGX_matrix_replace_coefficients(Ah, nb, (int)A.nnzb, A.val, NULL));
		double t1 = now();
		CHECK(AMGX_solver_resetup(slv, Ah));
		double t2 = now();
		s->replace = t1 - t0;
		s->resetup = t2 - t1;
		solve(&c, s);
		printf("amgx step k=%d replace_s=%.6f resetup_s=%.6f solve_s=%.6f pcg_s=%.6f step_s=%.6f iterations=%d status=%s relres=%.3e ok=%d\n",
			k, s->replace, s->resetup, s->solve, s->pcg, s->replace + s->resetup + s->solve, s->iters,
			s->status, s->relres, s->ok);
		fflush(stdout);
		ok = s->ok;
		done = k;
	}

	/* The block layout AMGX was given: its A·x against the host's, on the last values. */
	for (int64_t i = 0; i < n; i++)
		xh[i] = 1.0 + (double)(i % 7) / 7.0;
	CHECK(AMGX_vector_upload(xv, nb, bs, xh));
	CHECK(AMGX_vector_set_zero(yv, nb, bs));
	CHECK(AMGX_matrix_vector_multiply(Ah, xv, yv));
	double *yd = xalloc((size_t)n * sizeof *yd);
	CHECK(AMGX_vector_download(yv, yd));
	bsr_mul(&A, xh, w);
	for (int64_t i = 0; i < n; i++)
		yd[i] -= w[i];
	double mv = norm2(yd, n) / norm2(w, n);
	int mv_ok = isfinite(mv) && mv <= 1e-12;
	printf("amgx check matvec_relerr=%.3e ok=%d\n", mv, mv_ok);

	printf("amgx json {\"config\":\"%s\",\"n\":%lld,\"block_size\":%d,\"nnzb\":%lld,\"pinned\":%s,\"tol\":%g,"
	       "\"upload_s\":%.6f,\"setup_s\":%.6f,\"solve_s\":%.6f,\"pcg_s\":%.6f,\"iterations\":%d,\"status\":\"%s\","
	       "\"relres\":%.6e,\"steps\":[",
		cname, (long long)n, bs, (long long)A.nnzb, pinned ? "true" : "false", o.tol, upload_s, setup_s, first.solve,
		first.pcg, first.iters, first.status, isfinite(first.relres) ? first.relres : -1.0);
	for (int k = 1; k <= done; k++) {
		phase *s = &steps[k - 1];
		printf("%s{\"k\":%d,\"replace_s\":%.6f,\"resetup_s\":%.6f,\"solve_s\":%.6f,\"pcg_s\":%.6f,\"iterations\":%d,"
		       "\"status\":\"%s\",\"relres\":%.6e}",
			k > 1 ? "," : "", k, s->replace, s->resetup, s->solve, s->pcg, s->iters, s->status,
			isfinite(s->relres) ? s->relres : -1.0);
	}
	printf("],\"matvec_relerr\":%.3e,\"ok\":%s}\n", mv, ok && mv_ok ? "true" : "false");
	fflush(stdout);

	while (npins > 0)
		AMGX_unpin_memory(pins[--npins]);
	AMGX_solver_destroy(slv);
	AMGX_vector_destroy(yv);
	AMGX_vector_destroy(xv);
	AMGX_vector_destroy(bh);
	AMGX_matrix_destroy(Ah);
	AMGX_resources_destroy(rsrc);
	AMGX_config_destroy(cfg);
	AMGX_finalize();
	return ok && mv_ok ? 0 : 2;
}
#endif
