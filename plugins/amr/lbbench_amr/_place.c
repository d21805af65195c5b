/* The sequential placement loops of IGD's greedy deal (schemes.igd) and WD (wd.wd), box after box as
 * their Python callers describe them, in the same order of floating-point operations (the same owners as
 * the loops they replace, bit for bit), and IGD's recursive bisection of a box into pieces (split.py's
 * bisect_pieces). Called only through schemes.py, wd.py and split.py, which check shapes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;

typedef struct {
    double load;
    i64 q;
} slot;

static int by_load(const void *p, const void *r) {
    const slot *a = p, *b = r;
    if (a->load != b->load) return a->load < b->load ? -1 : 1;
    return (a->q > b->q) - (a->q < b->q);
}

/* a total order's sort: insertion sort for few elements (of at most 32 bytes), qsort for many */
static void sort_few(void *base, i64 n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n > 64) {
        qsort(base, (size_t)n, size, cmp);
        return;
    }
    char *a = base, v[32];
    for (i64 i = 1; i < n; ++i) {
        memcpy(v, a + i * size, size);
        i64 j = i;
        while (j > 0 && cmp(a + (j - 1) * size, v) > 0) {
            memcpy(a + j * size, a + (j - 1) * size, size);
            --j;
        }
        memcpy(a + j * size, v, size);
    }
}

/* processors in (load, id) order */
static void order(slot *s, i64 n) { sort_few(s, n, sizeof(slot), by_load); }

static int sized(Py_buffer *b, Py_ssize_t n, const char *name) {
    if (b->len != n * 8) {
        PyErr_Format(PyExc_ValueError, "place: %s has %zd bytes, expected %zd", name, b->len, n * 8);
        return 0;
    }
    return 1;
}

/* deal(k, work, P, owner): box b's k[b] pieces (work[a..a+k[b]), largest first) go to the k[b] least
 * loaded processors (ties: lowest id), the first piece to the least loaded; loads start at 0. */
static PyObject *deal(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer bk, bw, bo;
    i64 P;
    if (!PyArg_ParseTuple(args, "y*y*Lw*", &bk, &bw, &P, &bo)) return NULL;
    PyObject *ret = NULL;
    slot *s = NULL;
    i64 nb = bk.len / 8, n = bw.len / 8, a = 0;
    const i64 *k = bk.buf;
    const double *work = bw.buf;
    i64 *owner = bo.buf;
    if (P < 1 || !sized(&bo, n, "owner")) {
        if (P < 1) PyErr_SetString(PyExc_ValueError, "place: P >= 1");
        goto done;
    }
    s = malloc((size_t)P * sizeof(slot));
    if (!s) { PyErr_NoMemory(); goto done; }
    for (i64 q = 0; q < P; ++q) s[q] = (slot){0.0, q};
    for (i64 b = 0; b < nb; ++b) {
        if (k[b] < 0 || k[b] > P || a + k[b] > n) {
            PyErr_SetString(PyExc_ValueError, "place: a box's pieces exceed P or the pieces given");
            goto done;
        }
        for (i64 t = 0; t < k[b]; ++t, ++a) {
            s[t].load += work[a];
            owner[a] = s[t].q;
        }
        order(s, P);
    }
    ret = Py_NewRef(Py_None);
done:
    free(s);
    PyBuffer_Release(&bk);
    PyBuffer_Release(&bw);
    PyBuffer_Release(&bo);
    return ret;
}

/* wd(order, par_start, par_q, par_v, mv_start, mv_q, mv_v, nb_start, nb_dst, nb_w, kmax, n_ax, plane, wpc,
 *    pstart, P, cap, w_inter, w_intra, w_move, vol, load, procs, nprocs, out_k, out_owner) -> pieces written.
 * The boxes of one level in placement order (wd.wd's loop): affinities A_q from the parents (par, per box
 * CSR of (q, v) in overlap order), the placed face neighbours' processors (nb CSR; box b's processors are
 * procs[pstart[b] .. pstart[b] + nprocs[b]), room for min(P, kmax[b])) and the previous step's owners (mv); the available processors
 * (load < cap, A_q > 0) of maximum affinity, else every one below cap, else the least loaded; sorted by
 * (load, id), the first min(tied, kmax[b]) take equal slabs. load is updated in place. */
static PyObject *wd(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer bord, bps, bpq, bpv, bms, bmq, bmv, bns, bnd, bnw, bkm, bnax, bpl, bwpc, bpst, bload, bprocs, bnp,
        bok, bow;
    i64 P;
    double cap, wi, wa, wm;
    int vol;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*y*y*y*y*Lddddpw*w*w*w*w*", &bord, &bps, &bpq, &bpv, &bms,
                          &bmq, &bmv, &bns, &bnd, &bnw, &bkm, &bnax, &bpl, &bwpc, &bpst, &P, &cap, &wi, &wa, &wm,
                          &vol, &bload, &bprocs, &bnp, &bok, &bow)) return NULL;
    Py_buffer *all[] = {&bord, &bps, &bpq, &bpv, &bms, &bmq, &bmv, &bns, &bnd, &bnw, &bkm, &bnax, &bpl, &bwpc,
                        &bpst, &bload, &bprocs, &bnp, &bok, &bow};
    PyObject *ret = NULL;
    double *aff = NULL, *seen = NULL, *pv = NULL, *mvv = NULL;
    char *has = NULL;
    i64 *touched = NULL;
    slot *tied = NULL;
    i64 m = bord.len / 8, nbox = bkm.len / 8, cap_out = bow.len / 8, top = 0;
    if (P < 1 || !sized(&bps, nbox + 1, "par_start") || !sized(&bms, nbox + 1, "mv_start") ||
        !sized(&bns, nbox + 1, "nb_start") || !sized(&bnax, nbox, "n_ax") || !sized(&bpl, nbox, "plane") ||
        !sized(&bwpc, nbox, "wpc") || !sized(&bpst, nbox + 1, "pstart") || !sized(&bload, P, "load") ||
        !sized(&bnp, nbox, "nprocs") || !sized(&bok, m, "out_k")) {
        if (P < 1) PyErr_SetString(PyExc_ValueError, "place: P >= 1");
        goto done;
    }
    const i64 *ord = bord.buf, *ps = bps.buf, *pq = bpq.buf, *ms = bms.buf, *mq = bmq.buf, *ns = bns.buf;
    const i64 *nd = bnd.buf, *kmax = bkm.buf, *nax = bnax.buf, *plane = bpl.buf, *pst = bpst.buf;
    const double *pvv = bpv.buf, *mv = bmv.buf, *nw = bnw.buf, *wpc = bwpc.buf;
    if (ps[nbox] * 8 > bpq.len || ps[nbox] * 8 > bpv.len || ms[nbox] * 8 > bmq.len || ms[nbox] * 8 > bmv.len ||
        ns[nbox] * 8 > bnd.len || ns[nbox] * 8 > bnw.len) {
        PyErr_SetString(PyExc_ValueError, "place: a CSR start runs past its arrays");
        goto done;
    }
    double *load = bload.buf;
    i64 *procs = bprocs.buf, *np_ = bnp.buf, *ok = bok.buf, *ow = bow.buf, nproc = bprocs.len / 8;
    aff = calloc((size_t)P, sizeof(double));
    seen = calloc((size_t)P, sizeof(double));
    pv = calloc((size_t)P, sizeof(double));
    mvv = calloc((size_t)P, sizeof(double));
    has = calloc((size_t)P, 1);  /* bit 1: a parent's, 2: a neighbour's, 4: the previous step's processor */
    touched = malloc((size_t)P * sizeof(i64));
    tied = malloc((size_t)P * sizeof(slot));
    if (!aff || !seen || !pv || !mvv || !has || !touched || !tied) { PyErr_NoMemory(); goto done; }
    for (i64 t = 0; t < m; ++t) {
        i64 b = ord[t], nt = 0, nq = 0;
        if (b < 0 || b >= nbox) { PyErr_SetString(PyExc_ValueError, "place: box out of range"); goto done; }
#define TOUCH(q, bit)                                                                   \
        do {                                                                            \
            if ((q) < 0 || (q) >= P) {                                                  \
                PyErr_SetString(PyExc_ValueError, "place: processor out of range");    \
                goto done;                                                              \
            }                                                                           \
            if (!has[q]) touched[nt++] = (q);                                           \
            has[q] |= (bit);                                                            \
        } while (0)
        for (i64 e = ps[b]; e < ps[b + 1]; ++e) {  /* the parents, summed per processor in overlap order */
            i64 q = pq[e];
            TOUCH(q, 1);
            pv[q] += pvv[e];
        }
        for (i64 e = ns[b]; e < ns[b + 1]; ++e) {  /* the placed neighbours' processors */
            i64 u = nd[e];
            if (u < 0 || u >= nbox) { PyErr_SetString(PyExc_ValueError, "place: box out of range"); goto done; }
            for (i64 j = 0; j < np_[u]; ++j) {
                i64 q = procs[pst[u] + j];
                TOUCH(q, 2);
                seen[q] = vol ? seen[q] + nw[e] : (seen[q] > nw[e] ? seen[q] : nw[e]);
            }
        }
        for (i64 e = ms[b]; e < ms[b + 1]; ++e) {  /* the previous step's owners over the box */
            i64 q = mq[e];
            TOUCH(q, 4);
            mvv[q] += mv[e];
        }
#undef TOUCH
        double best = 0.0;
        for (i64 j = 0; j < nt; ++j) {
            i64 q = touched[j];
            double a = 0.0;
            if (has[q] & 1) a = a + (vol ? wi * (pv[q] < 1.0 ? pv[q] : 1.0) : wi);
            if (has[q] & 2) a = a + wa * seen[q];
            if (has[q] & 4) a = a + wm * (vol ? (mvv[q] < 1.0 ? mvv[q] : 1.0) : 1.0);
            aff[q] = a;
            if (load[q] < cap && a > 0 && a > best) best = a;
        }
        for (i64 j = 0; j < nt; ++j) {
            i64 q = touched[j];
            if (best > 0 && load[q] < cap && aff[q] == best) tied[nq++] = (slot){load[q], q};
            has[q] = 0;
            aff[q] = seen[q] = pv[q] = mvv[q] = 0.0;
        }
        if (!nq)
            for (i64 q = 0; q < P; ++q)
                if (load[q] < cap) tied[nq++] = (slot){load[q], q};
        if (!nq) {
            i64 lo = 0;
            for (i64 q = 1; q < P; ++q)
                if (load[q] < load[lo]) lo = q;
            tied[nq++] = (slot){load[lo], lo};
        }
        order(tied, nq);
        i64 k = nq < kmax[b] ? nq : kmax[b], n = nax[b];
        if (k < 1 || top + k > cap_out || pst[b] + k > pst[b + 1] || pst[b + 1] > nproc) { PyErr_SetString(PyExc_ValueError, "place: no room for pieces"); goto done; }
        for (i64 jj = 0; jj < k; ++jj) {
            i64 q = tied[jj].q;
            load[q] += wpc[b] * (double)(plane[b] * ((n * (jj + 1)) / k - (n * jj) / k));
            ow[top++] = q;
            procs[pst[b] + jj] = q;
        }
        np_[b] = k;
        ok[t] = k;
    }
    ret = PyLong_FromLongLong(top);
done:
    free(aff);
    free(seen);
    free(pv);
    free(mvv);
    free(has);
    free(touched);
    free(tied);
    for (int i = 0; i < 20; ++i) PyBuffer_Release(all[i]);
    return ret;
}

#define MAXD 8

/* box lo..hi (d axes) into k pieces at output rows pos..pos+k-1: split the longest axis (ties: the lowest)
 * at c = round(n (k // 2) / k) planes (1 <= c <= n - 1), the left part taking k1 = round(k c / n) pieces
 * (at least 1 and k - (cells right), at most k - 1 and cells left); numpy's arithmetic (rint: ties to even) */
static void bisect_box(const i64 *lo, const i64 *hi, i64 k, int d, i64 pos, i64 *plo, i64 *phi) {
    if (k == 1) {
        memcpy(plo + pos * d, lo, (size_t)d * 8);
        memcpy(phi + pos * d, hi, (size_t)d * 8);
        return;
    }
    i64 ax = 0, vol = 1, l[MAXD], h[MAXD];
    for (int a = 0; a < d; ++a) {
        i64 e = hi[a] - lo[a] + 1;
        if (e > hi[ax] - lo[ax] + 1) ax = a;
        vol *= e;
    }
    i64 n = hi[ax] - lo[ax] + 1, plane = vol / n;
    double cr = fmin(fmax(rint((double)(n * (k / 2)) / (double)k), 1.0), (double)(n - 1));
    i64 c = (i64)cr, c1 = c * plane, c2 = (n - c) * plane;
    i64 k1 = (i64)rint((double)(k * c) / (double)n);
    i64 kmin = k - c2 > 1 ? k - c2 : 1, kmax = k - 1 < c1 ? k - 1 : c1;
    k1 = k1 < kmin ? kmin : k1;
    k1 = k1 > kmax ? kmax : k1;
    memcpy(l, lo, (size_t)d * 8);
    memcpy(h, hi, (size_t)d * 8);
    h[ax] = lo[ax] + c - 1;
    bisect_box(lo, h, k1, d, pos, plo, phi);
    l[ax] = lo[ax] + c;
    bisect_box(l, hi, k - k1, d, pos + k1, plo, phi);
}

/* bisect(lo, hi, k, d, plo, phi): box i (rows of lo, hi) into k[i] pieces, written box after box in
 * bisection order to the rows of plo, phi (sum k rows); 1 <= k[i] <= the box's cells */
static PyObject *bisect(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer blo, bhi, bk, bpl, bph;
    int d;
    if (!PyArg_ParseTuple(args, "y*y*y*iw*w*", &blo, &bhi, &bk, &d, &bpl, &bph)) return NULL;
    PyObject *ret = NULL;
    const i64 *lo = blo.buf, *hi = bhi.buf, *k = bk.buf;
    i64 nb = bk.len / 8, total = 0;
    if (d < 1 || d > MAXD || !sized(&blo, nb * d, "lo") || !sized(&bhi, nb * d, "hi")) {
        if (d < 1 || d > MAXD) PyErr_SetString(PyExc_ValueError, "place: 1 <= d <= 8");
        goto done;
    }
    for (i64 b = 0; b < nb; ++b) {
        i64 vol = 1;
        for (int a = 0; a < d; ++a) vol *= (hi[b * d + a] >= lo[b * d + a]) ? hi[b * d + a] - lo[b * d + a] + 1 : 0;
        if (k[b] < 1 || k[b] > vol) {
            PyErr_SetString(PyExc_ValueError, "place: a box needs 1 to its cells pieces");
            goto done;
        }
        total += k[b];
    }
    if (!sized(&bpl, total * d, "plo") || !sized(&bph, total * d, "phi")) goto done;
    for (i64 b = 0, pos = 0; b < nb; pos += k[b], ++b) bisect_box(lo + b * d, hi + b * d, k[b], d, pos, bpl.buf, bph.buf);
    ret = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&blo);
    PyBuffer_Release(&bhi);
    PyBuffer_Release(&bk);
    PyBuffer_Release(&bpl);
    PyBuffer_Release(&bph);
    return ret;
}

typedef struct {
    i64 cells, j;
} sized_piece;

static int larger(const void *p, const void *r) {
    const sized_piece *a = p, *b = r;
    if (a->cells != b->cells) return a->cells > b->cells ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

/* largest_first(k, d, plo, phi, cells): box b's k[b] pieces (consecutive rows of plo, phi, in bisection
 * order j) reordered in place by (cells descending, j), as lex_order(item, -cells, j) orders them for the
 * deal, and their cells written to cells in that order. */
static PyObject *largest_first(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer bk, bpl, bph, bc;
    int d;
    if (!PyArg_ParseTuple(args, "y*iw*w*w*", &bk, &d, &bpl, &bph, &bc)) return NULL;
    PyObject *ret = NULL;
    sized_piece *key = NULL;
    i64 *tmp = NULL;
    const i64 *k = bk.buf;
    i64 nb = bk.len / 8, total = 0, most = 0;
    for (i64 b = 0; b < nb; ++b) {
        if (k[b] < 0) {
            PyErr_SetString(PyExc_ValueError, "place: negative piece count");
            goto done;
        }
        total += k[b];
        most = k[b] > most ? k[b] : most;
    }
    if (d < 1 || d > MAXD || !sized(&bpl, total * d, "plo") || !sized(&bph, total * d, "phi") ||
        !sized(&bc, total, "cells")) {
        if (d < 1 || d > MAXD) PyErr_SetString(PyExc_ValueError, "place: 1 <= d <= 8");
        goto done;
    }
    key = malloc((size_t)(most + 1) * sizeof(sized_piece));
    tmp = malloc((size_t)(2 * most * d + 1) * 8);
    if (!key || !tmp) {
        PyErr_NoMemory();
        goto done;
    }
    i64 *plo = bpl.buf, *phi = bph.buf, *cells = bc.buf;
    for (i64 b = 0, pos = 0; b < nb; pos += k[b], ++b) {
        for (i64 j = 0; j < k[b]; ++j) {
            i64 c = 1;
            for (int a = 0; a < d; ++a) c *= phi[(pos + j) * d + a] - plo[(pos + j) * d + a] + 1;
            key[j].cells = c, key[j].j = j;
        }
        sort_few(key, k[b], sizeof(sized_piece), larger);
        memcpy(tmp, plo + pos * d, (size_t)(k[b] * d) * 8);
        memcpy(tmp + most * d, phi + pos * d, (size_t)(k[b] * d) * 8);
        for (i64 i = 0; i < k[b]; ++i) {
            memcpy(plo + (pos + i) * d, tmp + key[i].j * d, (size_t)d * 8);
            memcpy(phi + (pos + i) * d, tmp + most * d + key[i].j * d, (size_t)d * 8);
            cells[pos + i] = key[i].cells;
        }
    }
    ret = Py_NewRef(Py_None);
done:
    free(key);
    free(tmp);
    PyBuffer_Release(&bk);
    PyBuffer_Release(&bpl);
    PyBuffer_Release(&bph);
    PyBuffer_Release(&bc);
    return ret;
}

static PyMethodDef methods[] = {
    {"bisect", bisect, METH_VARARGS, "IGD's recursive bisection of boxes into pieces"},
    {"largest_first", largest_first, METH_VARARGS, "each box's pieces reordered largest first, with their cells"},
    {"deal", deal, METH_VARARGS, "IGD's greedy deal: each box's pieces to the least loaded processors"},
    {"wd", wd, METH_VARARGS, "WD's placement of one level's boxes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_place", "IGD's and WD's placement loops, IGD's bisection.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__place(void) { return PyModule_Create(&module); }
