/* The priority min-queue of SBN §3.3 in C (balancer.LevelRun._sort): a processor's queued vertices in
 * increasing (Comm + Remap) / Wgt, deeper vertices first among equals, then by number, with the exclusive
 * prefix sums of their load (Wgt + Comm + Remap) in that order. The arithmetic is numpy's, in numpy's
 * order, so the queue and its sums are the same bit for bit as the lexsort and cumsum they replace.
 *
 * Between two sorts only a few vertices are re-priced or added (stale): the others keep their order, so
 * they are merged with the sorted stale ones (and checked: if they are not in order, everything is
 * sorted). The key is a total order (vertex numbers are distinct), so the result is the one a full sort
 * gives. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;

typedef struct {
    double ratio, tot;
    i64 depth, id;
} item;

static int before(const void *x, const void *y) {
    const item *a = x, *b = y;
    if (a->ratio < b->ratio) return -1;
    if (a->ratio > b->ratio) return 1;
    int na = isnan(a->ratio), nb = isnan(b->ratio);  /* NaN last, as numpy sorts it */
    if (na != nb) return na - nb;
    if (a->depth != b->depth) return a->depth > b->depth ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

static int get(PyObject *o, Py_buffer *b, char kind, const char *name) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (b->itemsize != 8 || f[1] != '\0' || (kind == 'f' ? *f != 'd' : (*f != 'q' && *f != 'l'))) {
        PyErr_Format(PyExc_TypeError, "queue: %s must be a contiguous %s array", name, kind == 'f' ? "float64" : "int64");
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

/* order(Q, stale, cw, cc, cr, depth): Q in priority order, given that the vertices of Q not marked stale
 * (uint8, by vertex; cleared here) are in order already, then the exclusive prefix sums (one bytearray of
 * 2 x k 8-byte items), and the queue's total load; cw, cc, cr, depth are indexed by vertex */
static PyObject *order(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[6];
    Py_buffer b[6];
    int held = 0;
    PyObject *ret = NULL, *buf = NULL;
    item *it = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5])) return NULL;
    if (!get(o[0], &b[0], 'i', "Q")) goto done;
    held = 1;
    if (PyObject_GetBuffer(o[1], &b[1], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) goto done;
    held = 2;
    for (; held < 6; ++held)
        if (!get(o[held], &b[held], held == 5 ? 'i' : 'f', held == 5 ? "depth" : "costs")) goto done;
    const i64 *Q = b[0].buf, *depth = b[5].buf;
    uint8_t *stale = b[1].buf;
    const double *cw = b[2].buf, *cc = b[3].buf, *cr = b[4].buf;
    i64 k = b[0].len / 8, n = b[2].len / 8;
    if (b[1].len != n || b[3].len / 8 != n || b[4].len / 8 != n || b[5].len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "queue: stale, cw, cc, cr and depth differ in length");
        goto done;
    }
    it = malloc((size_t)(2 * k + 1) * sizeof(item));
    if (!it) {
        PyErr_NoMemory();
        goto done;
    }
    /* the kept vertices in their order at the front of it, the stale ones behind them */
    item *kept = it, *moved = it + k;
    i64 nk = 0, nm = 0;
    for (i64 i = 0; i < k; ++i) {
        i64 v = Q[i];
        if (v < 0 || v >= n) {
            PyErr_SetString(PyExc_ValueError, "queue: a queued vertex is out of range");
            goto done;
        }
        double w = cw[v];
        item x = {(cc[v] + cr[v]) / (w > 1e-12 || isnan(w) ? w : 1e-12), (w + cc[v]) + cr[v], depth[v], v};
        if (stale[v]) moved[nm++] = x;
        else kept[nk++] = x;
    }
    for (i64 i = 0; i < k; ++i) stale[Q[i]] = 0;
    int in_order = 1;
    for (i64 i = 1; i < nk && in_order; ++i) in_order = before(&kept[i - 1], &kept[i]) < 0;
    if (!in_order) {  /* a kept vertex's price changed after all: sort everything */
        memcpy(kept + nk, moved, (size_t)nm * sizeof(item));
        nk += nm, nm = 0;
        qsort(kept, (size_t)nk, sizeof(item), before);
    }
    qsort(moved, (size_t)nm, sizeof(item), before);
    buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(2 * k * 8));
    if (!buf) goto done;
    i64 *q = (i64 *)PyByteArray_AS_STRING(buf);
    double *bef = (double *)(q + k), cum = 0.0;
    for (i64 i = 0, a = 0, c = 0; i < k; ++i) {
        const item *x = (c == nm || (a < nk && before(&kept[a], &moved[c]) < 0)) ? &kept[a++] : &moved[c++];
        cum += x->tot;
        q[i] = x->id;
        bef[i] = cum - x->tot;
    }
    ret = Py_BuildValue("Od", buf, cum);
done:
    Py_XDECREF(buf);
    free(it);
    for (int i = 0; i < held; ++i) PyBuffer_Release(&b[i]);
    return ret;
}

/* chunks(Qs, befs, credit, qs, window): the chunk every processor chooses (balancer.LevelRun._select_all):
 * the vertices of its queue Q whose preceding load bef is below credit + bef[0], looked for in a window at
 * the head of Q that grows 4x while all of it is taken. Returns (k, rest, chosen, seg) as one bytearray:
 * k (how many taken) and rest (the queue's load after them) per processor, then the taken vertices and
 * the processor (index into Qs) of each. */
static PyObject *chunks(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *Qs, *befs, *oc, *oq;
    Py_ssize_t window;
    Py_buffer bc, bq, bQ, bb;
    int have_c = 0, have_q = 0;
    PyObject *ret = NULL;
    i64 *out = NULL, cap = 0, got = 0;
    if (!PyArg_ParseTuple(args, "O!O!OOn", &PyList_Type, &Qs, &PyList_Type, &befs, &oc, &oq, &window)) return NULL;
    Py_ssize_t A = PyList_GET_SIZE(Qs);
    if (!(have_c = get(oc, &bc, 'f', "credit")) || !(have_q = get(oq, &bq, 'f', "qs"))) goto done;
    if (PyList_GET_SIZE(befs) != A || bc.len / 8 != A || bq.len / 8 != A || window < 1) {
        PyErr_SetString(PyExc_ValueError, "queue: chunks got lists of different lengths");
        goto done;
    }
    const double *credit = bc.buf, *qs = bq.buf;
    i64 *k = malloc((size_t)(A + 1) * 8);
    double *rest = malloc((size_t)(A + 1) * 8);
    if (!k || !rest) {
        free(k), free(rest);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < A; ++j) {
        if (!get(PyList_GET_ITEM(Qs, j), &bQ, 'i', "Q")) goto fail;
        if (!get(PyList_GET_ITEM(befs, j), &bb, 'f', "bef")) {
            PyBuffer_Release(&bQ);
            goto fail;
        }
        const i64 *Q = bQ.buf;
        const double *bef = bb.buf;
        i64 full = bQ.len / 8;
        if (bb.len / 8 != full || full == 0) {
            PyErr_SetString(PyExc_ValueError, "queue: a queue and its sums differ in length, or it is empty");
            PyBuffer_Release(&bQ), PyBuffer_Release(&bb);
            goto fail;
        }
        double thr = credit[j] + bef[0];
        i64 W = full < window ? full : window, c = 0, seen = 0;
        for (;;) {
            for (; seen < W; ++seen) c += bef[seen] < thr;
            if (c < W || W == full) break;
            W = 4 * W < full ? 4 * W : full;
        }
        if (got + c > cap) {
            cap = 2 * (got + c) + 64;
            i64 *grown = realloc(out, (size_t)(2 * cap) * 8);
            if (!grown) {
                PyErr_NoMemory();
                PyBuffer_Release(&bQ), PyBuffer_Release(&bb);
                goto fail;
            }
            out = grown;
        }
        for (i64 i = 0; i < W; ++i)
            if (bef[i] < thr) out[2 * got] = Q[i], out[2 * got + 1] = j, ++got;
        double after = c < W ? bef[c] : 0.0;
        k[j] = c;
        rest[j] = c < full ? qs[j] - (after - bef[0]) : 0.0;
        PyBuffer_Release(&bQ), PyBuffer_Release(&bb);
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((2 * A + 2 * got) * 8));
    if (ret) {
        i64 *r = (i64 *)PyByteArray_AS_STRING(ret);
        memcpy(r, k, (size_t)A * 8);
        memcpy(r + A, rest, (size_t)A * 8);
        for (i64 i = 0; i < got; ++i) r[2 * A + i] = out[2 * i], r[2 * A + got + i] = out[2 * i + 1];
    }
fail:
    free(k), free(rest);
done:
    free(out);
    if (have_c) PyBuffer_Release(&bc);
    if (have_q) PyBuffer_Release(&bq);
    return ret;
}

static PyMethodDef methods[] = {
    {"chunks", chunks, METH_VARARGS, "the chunk each processor takes from the head of its queue"},
    {"order", order, METH_VARARGS, "a queue in SBN priority order, its exclusive load prefix sums and its total"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_queue", "SBN's priority queue order (§3.3).", -1, methods};

PyMODINIT_FUNC PyInit__queue(void) { return PyModule_Create(&module); }
