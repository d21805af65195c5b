/* Per-cell passes over box pieces (harness/pieces.py, harness/amrmetrics.py): the cells of many boxes
 * walked in C order, each cell looked up in a raster (a numbering of the cells of a set of boxes, box by
 * box) and counted, with no per-cell arrays.
 *
 * A raster is (base, stride): cell x of box b is base[b] + sum_a x[a] * stride[b, a] (stride[b, d-1] = 1).
 * pid (int32): the piece holding each raster cell (-1: none yet); owner (int64): each piece's owner.
 * Every region lo..hi must lie inside its boxes: a cell number outside the raster is an error, never a
 * write. Called from Python only through harness/pieces.py, which checks dtypes and shapes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
typedef int32_t i32;
#define MAXD 8

typedef struct {
    const i64 *base, *stride;
    i64 nbox, N;
} raster;

/* the next row of a region: x[0..d-2] advanced (the last axis starts at lo[d-1]); returns 1 + the axis
 * that advanced (d - 1: only the row's own axis d - 2, the others kept), 0 when the region is done */
static int next_row(i64 *x, const i64 *lo, const i64 *hi, int d) {
    for (int a = d - 2; a >= 0; --a) {
        if (++x[a] <= hi[a]) return a + 1;
        x[a] = lo[a];
    }
    return 0;
}

static inline i64 floordiv(i64 c, i64 r) { return (c >= 0) ? c / r : -((-c + r - 1) / r); }

/* cell number of x (row start) in box b of R, with the coordinates divided by r (floor) and axis
 * shift_axis one further; -1 if the box is outside R */
static i64 cell_of(const raster *R, i64 b, const i64 *x, int d, i64 r, i64 shift_axis) {
    if (b < 0 || b >= R->nbox) return -1;
    i64 s = R->base[b];
    for (int a = 0; a < d; ++a) {
        i64 c = x[a] + (a == shift_axis);
        s += (r != 1 ? floordiv(c, r) : c) * R->stride[b * d + a];
    }
    return s;
}

/* the cell number of a region's row start in one raster, followed row by row: a step along axis d - 2
 * (the common case: rows of one plane) is one addition, anything else is computed again */
typedef struct {
    const raster *R;
    i64 b, r, shift, at;
} cursor;

static void follow(cursor *c, int adv, const i64 *x, int d) {
    i64 a = d - 2;
    if (adv == d - 1 && c->at >= 0) {
        i64 v = x[a] + (a == c->shift);
        if (c->r == 1 || floordiv(v, c->r) != floordiv(v - 1, c->r)) c->at += c->R->stride[c->b * d + a];
    } else {
        c->at = cell_of(c->R, c->b, x, d, c->r, c->shift);
    }
}

static int region(const i64 *lo, const i64 *hi, int d, i64 *x) {
    for (int a = 0; a < d; ++a) {
        if (hi[a] < lo[a]) return 0;
        x[a] = lo[a];
    }
    return 1;
}

static PyObject *outside(void) {
    PyErr_SetString(PyExc_ValueError, "cells: a region lies outside its raster");
    return NULL;
}

/* Buffers of the right size in bytes; a raster's base (nbox) and stride (nbox x d). */
static int sized(Py_buffer *b, Py_ssize_t n, Py_ssize_t item, const char *name) {
    if (b->len != n * item) {
        PyErr_Format(PyExc_ValueError, "cells: %s has %zd bytes, expected %zd", name, b->len, n * item);
        return 0;
    }
    return 1;
}

static void release(Py_buffer **bs, int n) {
    for (int i = 0; i < n; ++i) PyBuffer_Release(bs[i]);
}

/* the owner of the piece of cell c (pid[c] in [0, npieces)), or -1 */
static inline i64 owner_of(const i32 *pid, const i64 *owner, i64 npieces, i64 c) {
    i64 p = pid[c];
    return (p >= 0 && p < npieces) ? owner[p] : -1;
}

/* paint(lo, hi, box, d, base, stride, pid): pid[cell] = i for every cell of region i (box[i] in the
 * raster); returns the number of cells painted that already held a piece. */
static PyObject *paint(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer blo, bhi, bbox, bbase, bst, bpid;
    int d;
    if (!PyArg_ParseTuple(args, "y*y*y*iy*y*w*", &blo, &bhi, &bbox, &d, &bbase, &bst, &bpid)) return NULL;
    Py_buffer *all[] = {&blo, &bhi, &bbox, &bbase, &bst, &bpid};
    PyObject *ret = NULL;
    i64 m = bbox.len / 8, nb = bbase.len / 8, N = bpid.len / 4, twice = 0;
    if (d < 1 || d > MAXD) { PyErr_SetString(PyExc_ValueError, "cells: 1 <= d <= 8"); goto done; }
    if (!sized(&blo, m * d, 8, "lo") || !sized(&bhi, m * d, 8, "hi") || !sized(&bst, nb * d, 8, "stride")) goto done;
    if (m >= INT32_MAX) { PyErr_SetString(PyExc_ValueError, "cells: 2^31 pieces or more"); goto done; }
    raster R = {bbase.buf, bst.buf, nb, N};
    const i64 *lo = blo.buf, *hi = bhi.buf, *box = bbox.buf;
    i32 *pid = bpid.buf;
    i64 x[MAXD];
    for (i64 k = 0; k < m; ++k) {
        const i64 *l = lo + k * d, *h = hi + k * d;
        if (!region(l, h, d, x)) continue;
        i64 n = h[d - 1] - l[d - 1] + 1;
        cursor cu = {&R, box[k], 1, -1, -1};
        int adv = 0;
        do {
            follow(&cu, adv, x, d);
            i64 c = cu.at;
            if (c < 0 || c + n > N) { outside(); goto done; }
            for (i64 t = 0; t < n; ++t) {
                twice += pid[c + t] >= 0;
                pid[c + t] = (i32)k;
            }
        } while ((adv = next_row(x, l, h, d)));
    }
    ret = PyLong_FromLongLong(twice);
done:
    release(all, 6);
    return ret;
}

/* moved(lo, hi, ba, bb, d, baseA, strideA, pidA, ownerA, baseB, strideB, pidB, ownerB, Q, out, emit): for
 * every cell x of region k, its owner s before (raster A, box ba[k]) and e after (raster B, box bb[k]):
 * out[s * Q + e] += 1 (emit 0: out has Q * Q entries), or, emit 1, the key s * Q + e of every cell with
 * s != e appended to out (as many entries as the regions' cells); returns the number of keys written. */
static PyObject *moved(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer blo, bhi, bba, bbb, bbA, bsA, bpA, boA, bbB, bsB, bpB, boB, bt;
    int d, emit;
    i64 Q;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iy*y*y*y*y*y*y*y*Lw*p", &blo, &bhi, &bba, &bbb, &d, &bbA, &bsA, &bpA,
                          &boA, &bbB, &bsB, &bpB, &boB, &Q, &bt, &emit)) return NULL;
    Py_buffer *all[] = {&blo, &bhi, &bba, &bbb, &bbA, &bsA, &bpA, &boA, &bbB, &bsB, &bpB, &boB, &bt};
    PyObject *ret = NULL;
    i64 m = bba.len / 8, cap = bt.len / 8, top = 0, nA = boA.len / 8, nB = boB.len / 8;
    if (d < 1 || d > MAXD) { PyErr_SetString(PyExc_ValueError, "cells: 1 <= d <= 8"); goto done; }
    if (!sized(&blo, m * d, 8, "lo") || !sized(&bhi, m * d, 8, "hi") || !sized(&bbb, m, 8, "bb") ||
        !sized(&bsA, bbA.len / 8 * d, 8, "strideA") || !sized(&bsB, bbB.len / 8 * d, 8, "strideB") ||
        (!emit && !sized(&bt, Q * Q, 8, "out"))) goto done;
    raster A = {bbA.buf, bsA.buf, bbA.len / 8, bpA.len / 4}, B = {bbB.buf, bsB.buf, bbB.len / 8, bpB.len / 4};
    const i64 *lo = blo.buf, *hi = bhi.buf, *ba = bba.buf, *bb = bbb.buf, *oa = boA.buf, *ob = boB.buf;
    const i32 *pa = bpA.buf, *pb = bpB.buf;
    i64 *out = bt.buf, x[MAXD];
    for (i64 k = 0; k < m; ++k) {
        const i64 *l = lo + k * d, *h = hi + k * d;
        if (!region(l, h, d, x)) continue;
        i64 n = h[d - 1] - l[d - 1] + 1;
        cursor ua = {&A, ba[k], 1, -1, -1}, ub = {&B, bb[k], 1, -1, -1};
        int adv = 0;
        do {
            follow(&ua, adv, x, d);
            follow(&ub, adv, x, d);
            i64 ca = ua.at, cb = ub.at;
            if (ca < 0 || cb < 0 || ca + n > A.N || cb + n > B.N) { outside(); goto done; }
            for (i64 t = 0; t < n; ++t) {
                i64 s = owner_of(pa, oa, nA, ca + t), e = owner_of(pb, ob, nB, cb + t);
                if (s < 0 || s >= Q || e < 0 || e >= Q) { outside(); goto done; }
                if (!emit) out[s * Q + e] += 1;
                else if (s != e) {
                    if (top >= cap) { outside(); goto done; }
                    out[top++] = s * Q + e;
                }
            }
        } while ((adv = next_row(x, l, h, d)));
    }
    ret = PyLong_FromLongLong(top);
done:
    release(all, 13);
    return ret;
}

/* faces(lo, hi, ba, bb, ax, lev, d, base, stride, pid, owner, L, out): for every cell x of region k (in box
 * ba[k]) and its neighbour x + e_ax[k] (in box bb[k]) held by another piece, out[lev[k]] += 1 if their
 * owners differ (communication), out[L + lev[k]] += 1 if not (memory copy). */
static PyObject *faces(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer blo, bhi, bba, bbb, bax, blev, bbase, bst, bpid, bown, bout;
    int d;
    i64 L;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*iy*y*y*y*Lw*", &blo, &bhi, &bba, &bbb, &bax, &blev, &d, &bbase,
                          &bst, &bpid, &bown, &L, &bout)) return NULL;
    Py_buffer *all[] = {&blo, &bhi, &bba, &bbb, &bax, &blev, &bbase, &bst, &bpid, &bown, &bout};
    PyObject *ret = NULL;
    i64 m = bba.len / 8, np_ = bown.len / 8;
    if (d < 1 || d > MAXD) { PyErr_SetString(PyExc_ValueError, "cells: 1 <= d <= 8"); goto done; }
    if (!sized(&blo, m * d, 8, "lo") || !sized(&bhi, m * d, 8, "hi") || !sized(&bbb, m, 8, "bb") ||
        !sized(&bax, m, 8, "ax") || !sized(&blev, m, 8, "lev") || !sized(&bst, bbase.len / 8 * d, 8, "stride") ||
        !sized(&bout, 2 * L, 8, "out")) goto done;
    raster R = {bbase.buf, bst.buf, bbase.len / 8, bpid.len / 4};
    const i64 *lo = blo.buf, *hi = bhi.buf, *ba = bba.buf, *bb = bbb.buf, *ax = bax.buf, *lev = blev.buf;
    const i64 *owner = bown.buf;
    const i32 *pid = bpid.buf;
    i64 *out = bout.buf, x[MAXD];
    for (i64 k = 0; k < m; ++k) {
        const i64 *l = lo + k * d, *h = hi + k * d;
        if (lev[k] < 0 || lev[k] >= L || ax[k] < 0 || ax[k] >= d) { outside(); goto done; }
        if (!region(l, h, d, x)) continue;
        i64 n = h[d - 1] - l[d - 1] + 1, comm = 0, copy = 0;
        cursor ui = {&R, ba[k], 1, -1, -1}, uj = {&R, bb[k], 1, ax[k], -1};
        int adv = 0;
        do {
            follow(&ui, adv, x, d);
            follow(&uj, adv, x, d);
            i64 ci = ui.at, cj = uj.at;
            if (ci < 0 || cj < 0 || ci + n > R.N || cj + n > R.N) { outside(); goto done; }
            for (i64 t = 0; t < n; ++t) {
                if (pid[ci + t] == pid[cj + t]) continue;
                i64 oi = owner_of(pid, owner, np_, ci + t), oj = owner_of(pid, owner, np_, cj + t);
                if (oi < 0 || oj < 0) { outside(); goto done; }
                if (oi == oj) ++copy; else ++comm;
            }
        } while ((adv = next_row(x, l, h, d)));
        out[lev[k]] += comm;
        out[L + lev[k]] += copy;
    }
    ret = Py_NewRef(Py_None);
done:
    release(all, 11);
    return ret;
}

/* inter(lo, hi, fb, cb, r, d, base, stride, pid, owner, plo, phi, P, cnt): for every fine cell x of region
 * k (box fb[k]) over its coarse cell x / r (box cb[k]), with f = its piece's boundary faces through x
 * (x[a] on the piece's low or high side, per axis):
 * cnt[(owner of the fine cell * P + owner of the coarse cell) * (2d + 1) + f] += 1. */
static PyObject *inter(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer blo, bhi, bfb, bcb, bbase, bst, bpid, bown, bplo, bphi, bcnt;
    int d;
    i64 r, P;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Liy*y*y*y*y*y*Lw*", &blo, &bhi, &bfb, &bcb, &r, &d, &bbase, &bst,
                          &bpid, &bown, &bplo, &bphi, &P, &bcnt)) return NULL;
    Py_buffer *all[] = {&blo, &bhi, &bfb, &bcb, &bbase, &bst, &bpid, &bown, &bplo, &bphi, &bcnt};
    PyObject *ret = NULL;
    i64 m = bfb.len / 8, F = 2 * (i64)d + 1, np_ = bown.len / 8;
    if (d < 1 || d > MAXD || r < 1) { PyErr_SetString(PyExc_ValueError, "cells: 1 <= d <= 8, r >= 1"); goto done; }
    if (!sized(&blo, m * d, 8, "lo") || !sized(&bhi, m * d, 8, "hi") || !sized(&bcb, m, 8, "cb") ||
        !sized(&bst, bbase.len / 8 * d, 8, "stride") || !sized(&bplo, np_ * d, 8, "plo") ||
        !sized(&bphi, np_ * d, 8, "phi") || !sized(&bcnt, P * P * F, 8, "cnt")) goto done;
    raster R = {bbase.buf, bst.buf, bbase.len / 8, bpid.len / 4};
    const i64 *lo = blo.buf, *hi = bhi.buf, *fb = bfb.buf, *cb = bcb.buf, *owner = bown.buf;
    const i64 *plo = bplo.buf, *phi = bphi.buf;
    const i32 *pid = bpid.buf;
    i64 *cnt = bcnt.buf, x[MAXD];
    for (i64 k = 0; k < m; ++k) {
        const i64 *l = lo + k * d, *h = hi + k * d;
        if (!region(l, h, d, x)) continue;
        i64 n = h[d - 1] - l[d - 1] + 1;
        cursor uf = {&R, fb[k], 1, -1, -1}, uc = {&R, cb[k], r, -1, -1};
        int adv = 0;
        do {
            follow(&uf, adv, x, d);
            follow(&uc, adv, x, d);
            i64 fc = uf.at, cc = uc.at;  /* cc: the coarse cell of the row's first fine cell */
            i64 cs = R.stride[cb[k] * d + d - 1], first = x[d - 1];
            i64 rem = first - floordiv(first, r) * r;  /* first mod r */
            if (fc < 0 || cc < 0 || fc + n > R.N) { outside(); goto done; }
            i64 last = -1, frow = 0, plast = 0, hlast = 0, so = 0;
            for (i64 t = 0; t < n; ++t) {
                i64 xt = first + t, p = pid[fc + t];
                if (p != last) {  /* the faces of the row's other axes change only with the piece */
                    if (p < 0 || p >= np_) { outside(); goto done; }
                    frow = 0;
                    for (int a = 0; a < d - 1; ++a) frow += (x[a] == plo[p * d + a]) + (x[a] == phi[p * d + a]);
                    plast = plo[p * d + d - 1];
                    hlast = phi[p * d + d - 1];
                    so = owner[p];
                    last = p;
                }
                if (cc >= R.N) { outside(); goto done; }
                i64 co = owner_of(pid, owner, np_, cc);
                if (so < 0 || so >= P || co < 0 || co >= P) { outside(); goto done; }
                cnt[(so * P + co) * F + frow + (xt == plast) + (xt == hlast)] += 1;
                if (++rem == r) {  /* the next fine cell lies over the next coarse cell */
                    rem = 0;
                    cc += cs;
                }
            }
        } while ((adv = next_row(x, l, h, d)));
    }
    ret = Py_NewRef(Py_None);
done:
    release(all, 11);
    return ret;
}

static int by_first(const void *p, const void *q) {
    i64 a = *(const i64 *)p, b = *(const i64 *)q;
    return (a > b) - (a < b);
}

/* overlaps(alo, ahi, blo, bhi, d, size, base, top, I, J, V): every pair (i, j) of boxes a[i], b[j]
 * (inclusive corners) that overlap, with the overlap's cells, in (i, j) order. The b boxes are sorted into
 * the buckets of a grid (bucket side size[a], prod(top) buckets from base) they touch; a's boxes look in
 * theirs, and a pair is kept only in the bucket holding its intersection's low corner (once). Returns the
 * number of pairs, or minus it when I, J, V (int64, as many entries each) are too short (nothing valid). */
static PyObject *overlaps(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer balo, bahi, bblo, bbhi, bsz, bbase, btop, bI, bJ, bV;
    int d;
    if (!PyArg_ParseTuple(args, "y*y*y*y*iy*y*y*w*w*w*", &balo, &bahi, &bblo, &bbhi, &d, &bsz, &bbase, &btop,
                          &bI, &bJ, &bV)) return NULL;
    Py_buffer *all[] = {&balo, &bahi, &bblo, &bbhi, &bsz, &bbase, &btop, &bI, &bJ, &bV};
    PyObject *ret = NULL;
    i64 *start = NULL, *ent = NULL, *mine = NULL;
    i64 n = balo.len / 8 / (d > 0 ? d : 1), m = bblo.len / 8 / (d > 0 ? d : 1), cap = bI.len / 8, top_ = 0;
    if (d < 1 || d > MAXD) { PyErr_SetString(PyExc_ValueError, "cells: 1 <= d <= 8"); goto done; }
    if (!sized(&bahi, n * d, 8, "ahi") || !sized(&bbhi, m * d, 8, "bhi") || !sized(&bsz, d, 8, "size") ||
        !sized(&bbase, d, 8, "base") || !sized(&btop, d, 8, "top") || !sized(&bJ, cap, 8, "J") ||
        !sized(&bV, cap, 8, "V")) goto done;
    const i64 *alo = balo.buf, *ahi = bahi.buf, *blo = bblo.buf, *bhi = bbhi.buf;
    const i64 *size = bsz.buf, *base = bbase.buf, *top = btop.buf;
    i64 *I = bI.buf, *J = bJ.buf, *V = bV.buf, nb = 1, b0[MAXD], b1[MAXD], x[MAXD];
    for (int a = 0; a < d; ++a) nb *= top[a];
    start = calloc((size_t)nb + 1, sizeof(i64));
    if (!start) { PyErr_NoMemory(); goto done; }
    /* counting sort of b's entries by bucket (b in increasing order within a bucket) */
    for (int pass = 0; pass < 2; ++pass) {
        for (i64 j = 0; j < m; ++j) {
            for (int a = 0; a < d; ++a) {
                b0[a] = (blo[j * d + a] - base[a]) / size[a];
                b1[a] = (bhi[j * d + a] - base[a]) / size[a];
                x[a] = b0[a];
            }
            do {
                i64 key = 0;
                for (int a = 0; a < d; ++a) key = key * top[a] + x[a];
                if (pass == 0) ++start[key + 1];
                else ent[start[key]++] = j;
            } while (next_row(x, b0, b1, d + 1));
        }
        if (pass == 0) {
            for (i64 k = 0; k < nb; ++k) start[k + 1] += start[k];
            ent = malloc((size_t)(start[nb] > 0 ? start[nb] : 1) * sizeof(i64));
            if (!ent) { PyErr_NoMemory(); goto done; }
        } else {
            for (i64 k = nb; k > 0; --k) start[k] = start[k - 1];  /* back to bucket starts */
            start[0] = 0;
        }
    }
    mine = malloc((size_t)(m > 0 ? m : 1) * 2 * sizeof(i64));
    if (!mine) { PyErr_NoMemory(); goto done; }
    for (i64 i = 0; i < n; ++i) {
        i64 got = 0;
        for (int a = 0; a < d; ++a) {
            b0[a] = (alo[i * d + a] - base[a]) / size[a];
            b1[a] = (ahi[i * d + a] - base[a]) / size[a];
            x[a] = b0[a];
        }
        do {
            i64 key = 0;
            for (int a = 0; a < d; ++a) key = key * top[a] + x[a];
            for (i64 e = start[key]; e < start[key + 1]; ++e) {
                i64 j = ent[e], vol = 1, own = 0;
                for (int a = 0; a < d && vol > 0; ++a) {
                    i64 l = alo[i * d + a] > blo[j * d + a] ? alo[i * d + a] : blo[j * d + a];
                    i64 h = ahi[i * d + a] < bhi[j * d + a] ? ahi[i * d + a] : bhi[j * d + a];
                    vol *= (h >= l) ? h - l + 1 : 0;
                    own = own * top[a] + (l - base[a]) / size[a];
                }
                if (vol > 0 && own == key) {
                    mine[2 * got] = j;
                    mine[2 * got + 1] = vol;
                    ++got;
                }
            }
        } while (next_row(x, b0, b1, d + 1));
        qsort(mine, (size_t)got, 2 * sizeof(i64), by_first);  /* the pairs of i in (i, j) order */
        for (i64 k = 0; k < got; ++k, ++top_) {
            if (top_ < cap) {
                I[top_] = i;
                J[top_] = mine[2 * k];
                V[top_] = mine[2 * k + 1];
            }
        }
    }
    ret = PyLong_FromLongLong(top_ <= cap ? top_ : -top_);
done:
    free(start);
    free(ent);
    free(mine);
    release(all, 10);
    return ret;
}

static PyMethodDef methods[] = {
    {"paint", paint, METH_VARARGS, "pid[cell] = i for every cell of region i; returns cells painted twice"},
    {"moved", moved, METH_VARARGS, "(owner before, owner after) per cell of the regions"},
    {"faces", faces, METH_VARARGS, "[communication, copy] cell faces per level across region cells"},
    {"inter", inter, METH_VARARGS, "(fine owner, coarse owner, piece boundary faces) per fine cell"},
    {"overlaps", overlaps, METH_VARARGS, "the overlapping pairs of two sets of boxes, with their volumes"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cells", "Per-cell passes over box pieces.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__cells(void) { return PyModule_Create(&module); }
