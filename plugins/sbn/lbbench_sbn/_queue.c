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
#include <time.h>

#include "view_api.h" /* harness/kernels: LocationView.C_API */
#include "_fastargs.h"

typedef int64_t i64;
typedef int32_t i32; /* a processor's number by vertex (data_at, holder, done_by): P < 2^31 */

typedef struct {
    double ratio, tot;
    i64 depth, id;
} item;


/* a contiguous array of kind 'i' (int64, or raw bytes), 'f' (float64) or 'n' (int32, i32) */
static int get(PyObject *o, Py_buffer *b, char kind, const char *name) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (kind == 'i' && b->itemsize == 1 && b->len % 8 == 0 && *f == 'B' && f[1] == '\0') return 1;  /* raw bytes */
    int bad = kind == 'n' ? b->itemsize != 4 || *f != 'i'
                          : b->itemsize != 8 || (kind == 'f' ? *f != 'd' : (*f != 'q' && *f != 'l'));
    if (bad || f[1] != '\0') {
        PyErr_Format(PyExc_TypeError, "queue: %s must be a contiguous %s array", name,
                     kind == 'f' ? "float64" : kind == 'n' ? "int32" : "int64");
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

/* whether a comes before b in the queue: ratio increasing (NaN last, as numpy sorts it), deeper first, then by
 * number (a total order: vertex numbers are distinct) */
static inline int precedes(const item *a, const item *b) {
    if (a->ratio < b->ratio) return 1;
    if (a->ratio > b->ratio) return 0;
    int na = isnan(a->ratio), nb = isnan(b->ratio);  /* NaN last */
    if (na != nb) return na < nb;
    if (a->depth != b->depth) return a->depth > b->depth;
    return a->id < b->id;
}

/* x[0..m) in that order: a few (the stale vertices of a queue, most often) by insertion, more by merge sort,
 * halves already in order not merged (a queue whose kept vertices fell out of order is mostly in order), tmp: room
 * for m / 2 items. The order is total, so every way gives the one order. */
static void sort_items(item *x, i64 m, item *tmp) {
    if (m <= 24) {
        for (i64 i = 1; i < m; ++i) {
            item t = x[i];
            i64 j = i;
            for (; j > 0 && precedes(&t, &x[j - 1]); --j) x[j] = x[j - 1];
            x[j] = t;
        }
        return;
    }
    i64 h = m / 2;
    sort_items(x, h, tmp);
    sort_items(x + h, m - h, tmp);
    if (precedes(&x[h - 1], &x[h])) return;
    memcpy(tmp, x, (size_t)h * sizeof(item));
    i64 a = 0, b = h, o = 0;
    while (a < h && b < m) x[o++] = precedes(&x[b], &tmp[a]) ? x[b++] : tmp[a++];
    memcpy(x + o, tmp + a, (size_t)(h - a) * sizeof(item));  /* (what is left of x[b..m) is in place) */
}

/* Q (k vertices of n) in priority order, given that the vertices of Q not marked stale (uint8, by vertex; cleared
 * here) are in order already, then the exclusive prefix sums, as one new bytearray of 2 x k 8-byte items; the
 * queue's total load in *total (NULL with an error); cw, cc, cr, depth are indexed by vertex */
static PyObject *order_core(const i64 *Q, i64 k, i64 n, uint8_t *stale, const double *cw, const double *cc,
                            const double *cr, const i64 *depth, double *total) {
    PyObject *buf = NULL;
    item *it = malloc((size_t)(2 * k + k / 2 + 1) * sizeof(item));
    if (!it) return PyErr_NoMemory();
    /* the kept vertices in their order at the front of it, the stale ones behind them, the sort's room last */
    item *kept = it, *moved = it + k, *tmp = it + 2 * k;
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
    for (i64 i = 1; i < nk && in_order; ++i) in_order = precedes(&kept[i - 1], &kept[i]);
    if (!in_order) {  /* a kept vertex's price changed after all: sort everything */
        memcpy(kept + nk, moved, (size_t)nm * sizeof(item));
        nk += nm, nm = 0;
        sort_items(kept, nk, tmp);
    }
    sort_items(moved, nm, tmp);
    buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(2 * k * 8));
    if (!buf) goto done;
    i64 *q = (i64 *)PyByteArray_AS_STRING(buf);
    double *bef = (double *)(q + k), cum = 0.0;
    for (i64 i = 0, a = 0, c = 0; i < k; ++i) {
        const item *x = (c == nm || (a < nk && precedes(&kept[a], &moved[c]))) ? &kept[a++] : &moved[c++];
        cum += x->tot;
        q[i] = x->id;
        bef[i] = cum - x->tot;
    }
    *total = cum;
done:
    free(it);
    return buf;
}

static PyObject *Q_, *QALL_, *BEF_; /* "Q", "Qall", "bef", interned */
static PyObject *KEYS_, *BASE_, *VIEW_, *VALUES_; /* a location view's "keys" and "base", "view", "values" */
static int all_in(const i64 *x, i64 n, i64 hi, const char *what);

/* the queue's tail from k on (obj[k:], a view) set as attribute name of v */
static int advance(PyObject *v, PyObject *name, PyObject *obj, i64 k) {
    PyObject *at = PyLong_FromLongLong(k), *sl = at ? PySlice_New(at, NULL, NULL) : NULL;
    PyObject *tail = sl ? PyObject_GetItem(obj, sl) : NULL;
    int r = tail ? PyObject_SetAttr(v, name, tail) : -1;
    Py_XDECREF(at), Py_XDECREF(sl), Py_XDECREF(tail);
    return r;
}

/* chunks()' choice at processor j: its queue Q (objQ) and sums bef (objb) from head on, with its credit and its
 * queue's load qs; the taken vertices appended to out (pairs: vertex, j; got of them, room for cap), *k how many,
 * *rest the queue's load after them. 0, or -1 with an error set. */
static int one_chunk(PyObject *objQ, PyObject *objb, i64 head, double credit, double qs, i64 window, i64 j, i64 **out,
                     i64 *cap, i64 *got, i64 *k, double *rest) {
    Py_buffer bQ, bb;
    int r = -1;
    if (!get(objQ, &bQ, 'i', "Q")) return -1;
    if (!get(objb, &bb, 'f', "bef")) {
        PyBuffer_Release(&bQ);
        return -1;
    }
    const i64 *Q = (const i64 *)bQ.buf + head;
    const double *bef = (const double *)bb.buf + head;
    i64 full = bQ.len / 8 - head;
    if (head < 0 || bb.len / 8 - head != full || full <= 0) {
        PyErr_SetString(PyExc_ValueError, "queue: a queue and its sums differ in length, or it is empty");
        goto done;
    }
    double thr = credit + bef[0];
    i64 W = full < window ? full : window, c = 0, seen = 0;
    for (;;) {
        for (; seen < W; ++seen) c += bef[seen] < thr;
        if (c < W || W == full) break;
        W = 4 * W < full ? 4 * W : full;
    }
    if (*got + c > *cap) {
        *cap = 2 * (*got + c) + 64;
        i64 *grown = realloc(*out, (size_t)(2 * *cap) * 8);
        if (!grown) {
            PyErr_NoMemory();
            goto done;
        }
        *out = grown;
    }
    for (i64 i = 0; i < W; ++i)
        if (bef[i] < thr) (*out)[2 * *got] = Q[i], (*out)[2 * *got + 1] = j, ++*got;
    double after = c < W ? bef[c] : 0.0;
    *k = c;
    *rest = c < full ? qs - (after - bef[0]) : 0.0;
    r = 0;
done:
    PyBuffer_Release(&bQ), PyBuffer_Release(&bb);
    return r;
}

/* chunks(Qs, befs, credit, qs, window[, act]): the chunk every processor chooses (balancer.LevelRun._select_all):
 * the vertices of its queue Q whose preceding load bef is below credit + bef[0], looked for in a window at
 * the head of Q that grows 4x while all of it is taken. Returns (k, rest, chosen, seg) as one bytearray:
 * k (how many taken) and rest (the queue's load after them) per processor, then the taken vertices and
 * the processor (index into Qs) of each. With act (the processors, objects with attributes Q and bef), Qs
 * and befs are None and read from act, and each processor's Q is set to its tail after the taken ones
 * (Q[k:]), and its bef too (bef[k:]); with heads and who (int64: heads[who[j]], how much of processor j's
 * queue its earlier chunks took since it was sorted), its queue is attribute Qall and its sums bef, both
 * read from heads[who[j]] on and left as they are, and heads[who[j]] += k (no view made). */
static PyObject *chunks(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *Qs, *befs, *oc, *oq, *act = NULL, *objQ = NULL, *objb = NULL, *oh = NULL, *ow = NULL;
    Py_ssize_t window;
    Py_buffer bc, bq, bh, bw;
    int have_c = 0, have_q = 0, have_h = 0, have_w = 0;
    PyObject *ret = NULL;
    i64 *out = NULL, cap = 0, got = 0;
    if (!PyArg_ParseTuple(args, "OOOOn|O!OO", &Qs, &befs, &oc, &oq, &window, &PyList_Type, &act, &oh, &ow))
        return NULL;
    if (act ? Qs != Py_None || befs != Py_None : !PyList_Check(Qs) || !PyList_Check(befs)) {
        PyErr_SetString(PyExc_TypeError, "queue: chunks takes lists Qs and befs, or None and act");
        return NULL;
    }
    Py_ssize_t A = PyList_GET_SIZE(act ? act : Qs);
    if (!(have_c = get(oc, &bc, 'f', "credit")) || !(have_q = get(oq, &bq, 'f', "qs"))) goto done;
    if (oh && (!(have_h = get(oh, &bh, 'i', "heads")) || !(have_w = get(ow, &bw, 'i', "who")))) goto done;
    if (oh && bh.readonly) {
        PyErr_SetString(PyExc_ValueError, "queue: heads must be writable");
        goto done;
    }
    if ((!act && PyList_GET_SIZE(befs) != A) || bc.len / 8 != A || bq.len / 8 != A || window < 1 ||
        (oh && bw.len / 8 != A)) {
        PyErr_SetString(PyExc_ValueError, "queue: chunks got lists of different lengths");
        goto done;
    }
    i64 *heads = oh ? bh.buf : NULL;
    const i64 *who = oh ? bw.buf : NULL;
    if (oh && !all_in(who, A, bh.len / 8, "a processor is")) goto done;
    const double *credit = bc.buf, *qs = bq.buf;
    i64 *k = malloc((size_t)(A + 1) * 8);
    double *rest = malloc((size_t)(A + 1) * 8);
    if (!k || !rest) {
        free(k), free(rest);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < A; ++j) {
        Py_CLEAR(objQ);
        Py_CLEAR(objb);
        if (act) {
            if (!(objQ = PyObject_GetAttr(PyList_GET_ITEM(act, j), heads ? QALL_ : Q_))) goto fail;
            if (!(objb = PyObject_GetAttr(PyList_GET_ITEM(act, j), BEF_))) goto fail;
        } else
            objQ = Py_NewRef(PyList_GET_ITEM(Qs, j)), objb = Py_NewRef(PyList_GET_ITEM(befs, j));
        if (one_chunk(objQ, objb, heads ? heads[who[j]] : 0, credit[j], qs[j], window, j, &out, &cap, &got, k + j,
                      rest + j) < 0)
            goto fail;
        i64 c = k[j];
        PyObject *v = act ? PyList_GET_ITEM(act, j) : NULL;
        if (heads)
            heads[who[j]] += c;
        else if (v && (advance(v, Q_, objQ, c) < 0 || advance(v, BEF_, objb, c) < 0))
            goto fail;
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
    Py_XDECREF(objQ), Py_XDECREF(objb);
    if (have_c) PyBuffer_Release(&bc);
    if (have_q) PyBuffer_Release(&bq);
    if (have_h) PyBuffer_Release(&bh);
    if (have_w) PyBuffer_Release(&bw);
    return ret;
}

/* 1 if every x[i] is in [0, hi), else 0 with a ValueError naming what. */
static int all_in(const i64 *x, i64 n, i64 hi, const char *what) {
    for (i64 i = 0; i < n; ++i)
        if (x[i] < 0 || x[i] >= hi) {
            PyErr_Format(PyExc_ValueError, "queue: %s out of range", what);
            return 0;
        }
    return 1;
}

static int by_id(const void *x, const void *y) {
    i64 a = *(const i64 *)x, b = *(const i64 *)y;
    return (a > b) - (a < b);
}

/* The buffers of take(), requests(), done() and acting(): int64 ('i'), int32 ('n'), float64 ('f') or bool ('b',
 * writable; 'r': read only). */
static int get_all(PyObject **o, Py_buffer *b, int *have, const char *kind, const char *const *name, int nb) {
    for (int j = 0; j < nb; ++j) {
        if (kind[j] == 'b' || kind[j] == 'r') {
            int w = kind[j] == 'b';
            if (PyObject_GetBuffer(o[j], &b[j], PyBUF_C_CONTIGUOUS | (w ? PyBUF_WRITABLE : 0)) < 0) return 0;
            have[j] = 1;
            if (b[j].itemsize != 1) {
                PyErr_Format(PyExc_TypeError, "queue: %s must be a contiguous bool array", name[j]);
                return 0;
            }
        } else {
            if (!get(o[j], &b[j], kind[j], name[j])) return 0;
            have[j] = 1;
        }
    }
    return 1;
}

static void release_all(Py_buffer *b, const int *have, int nb) {
    for (int j = 0; j < nb; ++j)
        if (have[j]) PyBuffer_Release(&b[j]);
}

/* Bound: a level's arrays held once (bind(kinds, *objects)), so that a call made per processor and superstep reads
 * them without acquiring a buffer each (inbox and its tail): each object's buffer of kind kinds[j] (get_all's kinds),
 * or the object itself for 'o'. The buffers are released with the object, which the cyclic GC sees through (a bound
 * list of processors refers back to the level that holds it). */
#define MAX_BOUND 32
typedef struct {
    PyObject_HEAD
    int n;
    char kinds[MAX_BOUND + 1];
    Py_buffer b[MAX_BOUND];
    int have[MAX_BOUND];
    PyObject *obj[MAX_BOUND];
} bound_t;

static int bound_traverse(bound_t *self, visitproc visit, void *arg) {
    for (int j = 0; j < self->n; ++j) {
        Py_VISIT(self->obj[j]);
        if (self->have[j]) Py_VISIT(self->b[j].obj);
    }
    return 0;
}

static int bound_clear(bound_t *self) {
    release_all(self->b, self->have, self->n);
    memset(self->have, 0, sizeof self->have);
    for (int j = 0; j < self->n; ++j) Py_CLEAR(self->obj[j]);
    return 0;
}

static void bound_dealloc(bound_t *self) {
    PyObject_GC_UnTrack(self);
    bound_clear(self);
    PyObject_GC_Del(self);
}

static PyTypeObject BoundType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lbbench_sbn._queue.Bound",
    .tp_basicsize = sizeof(bound_t),
    .tp_dealloc = (destructor)bound_dealloc,
    .tp_traverse = (traverseproc)bound_traverse,
    .tp_clear = (inquiry)bound_clear,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "a level's arrays held for _queue's calls (bind)",
};

static PyObject *bind(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_ssize_t n = PyTuple_GET_SIZE(args) - 1;
    const char *kinds = n >= 0 ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, 0)) : NULL;
    if (!kinds || (Py_ssize_t)strlen(kinds) != n || n > MAX_BOUND) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "queue: bind(kinds, *objects), one kind each");
        return NULL;
    }
    bound_t *t = PyObject_GC_New(bound_t, &BoundType);
    if (!t) return NULL;
    t->n = (int)n;
    memset(t->have, 0, sizeof t->have);
    memset(t->obj, 0, sizeof t->obj);
    strcpy(t->kinds, kinds);
    PyObject_GC_Track(t);
    for (int j = 0; j < t->n; ++j) {
        PyObject *o = PyTuple_GET_ITEM(args, j + 1);
        static const char *const name[1] = {"a bound array"};
        if (kinds[j] == 'o') t->obj[j] = Py_NewRef(o);
        else if (!get_all(&o, &t->b[j], &t->have[j], kinds + j, name, 1)) {
            Py_DECREF(t);
            return NULL;
        }
    }
    return (PyObject *)t;
}

/* the bound object o if it holds objects of the given kinds, else NULL with a TypeError naming what */
static bound_t *bound_of(PyObject *o, const char *kinds, const char *what) {
    if (!PyObject_TypeCheck(o, &BoundType) || strcmp(((bound_t *)o)->kinds, kinds) != 0) {
        PyErr_Format(PyExc_TypeError, "queue: %s must be bind(\"%s\", ...)", what, kinds);
        return NULL;
    }
    return (bound_t *)o;
}

/* sort(v, i, level), level: bind(SORTED, stale, cw, cc, cr, depth, head, qs, qlen, unsorted, numpy.frombuffer,
 * numpy.int64, numpy.float64): balancer.LevelRun._sort at processor v (slot i) in one call: its queue (v.Qall past
 * head[i]) in order (order_core), v.Qall and v.bef the int64 and float64 arrays of the result (frombuffer's, as
 * numpy.frombuffer(buf, numpy.int64, k) and (buf, numpy.float64, k, 8 k) give them), head[i] = 0, qlen[i] = k,
 * unsorted[i] = False and qs[i] the queue's load. */
#define SORTED "bfffiifibooo"
static PyObject *sort_core(PyObject *v, i64 i, const bound_t *t) {
    enum { STALE, CW, CC, CR, DEPTH, HEAD, QS, QLEN, UNSORTED, FROMBUFFER, INT64, FLOAT64 };
    PyObject *qall = NULL, *buf = NULL, *arr[2] = {NULL, NULL}, *ret = NULL;
    Py_buffer b;
    int held = 0;
    i64 n = t->b[CW].len / 8, L = t->b[HEAD].len / 8;
    if (t->b[STALE].len != n || t->b[CC].len / 8 != n || t->b[CR].len / 8 != n || t->b[DEPTH].len / 8 != n ||
        t->b[QS].len / 8 != L || t->b[QLEN].len / 8 != L || t->b[UNSORTED].len != L || i < 0 || i >= L) {
        PyErr_SetString(PyExc_ValueError, "queue: sort got arrays of inconsistent lengths");
        return NULL;
    }
    if (!(qall = PyObject_GetAttr(v, QALL_)) || !get(qall, &b, 'i', "Qall")) goto done;
    held = 1;
    i64 *head = t->b[HEAD].buf, h = head[i], k = b.len / 8 - h;
    if (h < 0 || k < 0) {
        PyErr_SetString(PyExc_ValueError, "queue: sort got a head past the queue");
        goto done;
    }
    double cum = 0.0;
    if (!(buf = order_core((const i64 *)b.buf + h, k, n, t->b[STALE].buf, t->b[CW].buf, t->b[CC].buf, t->b[CR].buf,
                           t->b[DEPTH].buf, &cum)))
        goto done;
    PyObject *count = PyLong_FromLongLong(k), *zero = PyLong_FromLong(0), *off = PyLong_FromLongLong(8 * k);
    if (count && zero && off &&
        (arr[0] = PyObject_CallFunctionObjArgs(t->obj[FROMBUFFER], buf, t->obj[INT64], count, zero, NULL)))
        arr[1] = PyObject_CallFunctionObjArgs(t->obj[FROMBUFFER], buf, t->obj[FLOAT64], count, off, NULL);
    Py_XDECREF(count), Py_XDECREF(zero), Py_XDECREF(off);
    PyBuffer_Release(&b);  /* (before Qall may go) */
    held = 0;
    if (!arr[1] || PyObject_SetAttr(v, QALL_, arr[0]) < 0 || PyObject_SetAttr(v, BEF_, arr[1]) < 0) goto done;
    head[i] = 0;  /* (VProc.Q's setter) */
    ((i64 *)t->b[QLEN].buf)[i] = k;
    ((uint8_t *)t->b[UNSORTED].buf)[i] = 0;
    ((double *)t->b[QS].buf)[i] = cum;
    ret = Py_NewRef(Py_None);
done:
    if (held) PyBuffer_Release(&b);
    Py_XDECREF(qall), Py_XDECREF(buf), Py_XDECREF(arr[0]), Py_XDECREF(arr[1]);
    return ret;
}

static PyObject *sort(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *v, *level;
    long long i;
    bound_t *t;
    if (!fast_args("sort", args, nargs, "OLO", &v, &i, &level) || !(t = bound_of(level, SORTED, "sort's level arrays")))
        return NULL;
    return sort_core(v, i, t);
}

/* take()'s steps on its arrays (A processors who, got chosen vertices; L processors of the rank, n vertices;
 * sel NULL: no count): procs and cost written. 0, or -1 with an error set. */
static int take_core(i64 A, i64 got, i64 L, i64 n, const i64 *who, const i64 *k, const double *rest, const i64 *chosen,
                     const i64 *seg, const i64 *mine, double *qs, i64 *qlen, double *credit, double *stg,
                     i64 *nstaged, uint8_t *queued, uint8_t *pinned, double *sel, const double *log2,
                     const i64 *deg, i64 *procs, double *cost) {
    if (!all_in(who, A, L, "a processor index is") || !all_in(chosen, got, n, "a chosen vertex is") ||
        !all_in(seg, got, A, "a chosen vertex's processor is"))
        return -1;
    if (sel) {
        double *acc = PyMem_Calloc((size_t)(A ? A : 1), 2 * sizeof(double));
        if (!acc) {
            PyErr_NoMemory();
            return -1;
        }
        double *lg = acc + A;
        for (i64 j = 0; j < A; ++j) {
            if (qlen[who[j]] < 0 || qlen[who[j]] > n) {
                PyMem_Free(acc);
                PyErr_SetString(PyExc_ValueError, "queue: a queue length is out of range");
                return -1;
            }
            lg[j] = log2[qlen[who[j]]];
        }
        for (i64 i = 0; i < got; ++i) acc[seg[i]] += lg[seg[i]] + (double)deg[chosen[i]];
        for (i64 j = 0; j < A; ++j) sel[who[j]] += acc[j];
        PyMem_Free(acc);
    }
    for (i64 j = 0; j < A; ++j) {
        i64 w = who[j];
        double c = qs[w] - rest[j];
        cost[j] = c;
        qs[w] = rest[j];
        qlen[w] -= k[j];
        credit[w] -= c;
        stg[w] += c;
        nstaged[w] += 1;
    }
    for (i64 i = 0; i < got; ++i) {
        procs[i] = mine[who[seg[i]]];
        queued[chosen[i]] = 0;
        pinned[chosen[i]] = 1;
    }
    return 0;
}

/* take(who, k, rest, chosen, seg, mine, qs, qlen, credit, stg, nstaged, queued, pinned): the bookkeeping of the
 * chunks chosen by chunks() (balancer.LevelRun._select_all), numpy's steps in numpy's order (who's entries
 * are distinct): cost = qs[who] - rest; qs[who] = rest; qlen[who] -= k; credit[who] -= cost;
 * stg[who] += cost; nstaged[who] += 1; procs = mine[who][seg]; queued[chosen] = False;
 * pinned[chosen] = True. Returns procs (int64 x len(chosen)) and cost (float64 x len(who)) in one bytearray.
 * With (sel, log2, deg) it also counts §5.4's delete-mins: sel[w] += the sum over w's chosen vertices v, in
 * their order, of log2[qlen[w] before] + deg[v] (numpy's bincount, then +=; log2: _log2 of every length). */
static PyObject *take(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { WHO, K, REST, CHOSEN, SEG, MINE, QS, QLEN, CREDIT, STG, NSTAGED, QUEUED, PINNED, SEL, LOG2, DEG, NB };
    static const char *const name[NB] = {"who", "k", "rest", "chosen", "seg", "mine", "qs", "qlen", "credit", "stg",
                                         "nstaged", "queued", "pinned", "sel", "log2", "deg"};
    PyObject *o[NB] = {NULL};
    Py_buffer b[NB];
    int have[NB] = {0};
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOO|OOO", &o[WHO], &o[K], &o[REST], &o[CHOSEN], &o[SEG], &o[MINE], &o[QS],
                          &o[QLEN], &o[CREDIT], &o[STG], &o[NSTAGED], &o[QUEUED], &o[PINNED], &o[SEL], &o[LOG2],
                          &o[DEG]))
        return NULL;
    int count = o[SEL] != NULL;
    if (count && (!o[LOG2] || !o[DEG])) {
        PyErr_SetString(PyExc_TypeError, "queue: take counts with sel, log2 and deg together");
        return NULL;
    }
    if (!get_all(o, b, have, "iifiiififfibbffi", name, count ? NB : SEL)) goto done;
    i64 A = b[WHO].len / 8, got = b[CHOSEN].len / 8, L = b[QS].len / 8, n = b[QUEUED].len;
    if (b[K].len / 8 != A || b[REST].len / 8 != A || b[SEG].len / 8 != got || b[MINE].len / 8 != L || b[QLEN].len / 8 != L ||
        b[CREDIT].len / 8 != L || b[STG].len / 8 != L || b[NSTAGED].len / 8 != L || b[PINNED].len != n ||
        (count && (b[SEL].len / 8 != L || b[LOG2].len / 8 != n + 1 || b[DEG].len / 8 != n))) {
        PyErr_SetString(PyExc_ValueError, "queue: take got arrays of inconsistent lengths");
        goto done;
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((got + A) * 8));
    if (!ret) goto done;
    i64 *procs = (i64 *)PyByteArray_AS_STRING(ret);
    if (take_core(A, got, L, n, b[WHO].buf, b[K].buf, b[REST].buf, b[CHOSEN].buf, b[SEG].buf, b[MINE].buf, b[QS].buf,
                  b[QLEN].buf, b[CREDIT].buf, b[STG].buf, b[NSTAGED].buf, b[QUEUED].buf, b[PINNED].buf,
                  count ? b[SEL].buf : NULL, count ? b[LOG2].buf : NULL, count ? b[DEG].buf : NULL, procs,
                  (double *)(procs + got)) < 0)
        Py_CLEAR(ret);
done:
    release_all(b, have, NB);
    return ret;
}

/* ready()'s steps: credit updated, the processors who choose written to out; returns how many */
static i64 ready_core(double *credit, double B, const i64 *qlen, i64 L, i64 *out) {
    i64 a = 0;
    for (i64 i = 0; i < L; ++i) {
        double c = credit[i];
        credit[i] = (isnan(c) || c < 0.0 ? c : 0.0) + B;
        if (qlen[i] > 0 && credit[i] > 0) out[a++] = i;
    }
    return a;
}

/* choose()'s result (a bytearray's buffer b) read: A, got, who, cost, chosen and procs; 1, or 0 with an error */
typedef struct {
    i64 A, got;
    const i64 *who, *chosen, *procs;
    const double *cost;
} chosen_t;

static int chosen_of(const Py_buffer *b, chosen_t *c) {
    const i64 *w = b->buf;
    i64 words = b->len / 8;
    if (words < 2 || w[0] < 0 || w[1] < 0 || words != 2 + 3 * w[0] + 2 * w[1]) {
        PyErr_SetString(PyExc_ValueError, "queue: not a choose() result");
        return 0;
    }
    c->A = w[0], c->got = w[1], c->who = w + 2, c->cost = (const double *)(w + 2 + 2 * c->A);
    c->chosen = w + 2 + 3 * c->A, c->procs = c->chosen + c->got;
    return 1;
}

/* choose(level, B, window), level: bind(CHOSEN, credit, qlen, qs, heads, mine, stg, nstaged, queued, pinned, sel,
 * log2, deg, vlist): a superstep's chunks in one call (balancer.LevelRun._select_all), the steps of ready(), chunks()
 * and take() in turn: ready() on credit and qlen; chunks() at the processors who choose, who[j]'s queue
 * vlist[who[j]].Qall and sums .bef from heads[who[j]] on, its credit[who[j]] and qs[who[j]] (heads advanced); take()
 * with §5.4's count (sel, log2, deg). Returns None when none chooses, else int64 [A, got, who (A), k (A), cost (A,
 * float64), chosen (got), procs (got)] in a bytearray. */
#define CHOSEN "fifiifibbffio"
static PyObject *choose_core(const bound_t *t, double B, Py_ssize_t window) {
    enum { CREDIT, QLEN, QS, HEADS, MINE, STG, NSTAGED, QUEUED, PINNED, SEL, LOG2, DEG, NB };
    PyObject *vlist, *ret = NULL, *objQ = NULL, *objb = NULL;
    Py_buffer b[NB];
    i64 *who = NULL, *pairs = NULL, cap = 0, got = 0;
    double *rest = NULL;
    memcpy(b, t->b, sizeof b);  /* (bound: not released here) */
    vlist = t->obj[NB];
    i64 L = b[CREDIT].len / 8, n = b[QUEUED].len;
    if (b[CREDIT].readonly || b[QLEN].len / 8 != L || b[QS].len / 8 != L || b[HEADS].len / 8 != L ||
        b[MINE].len / 8 != L || b[STG].len / 8 != L || b[NSTAGED].len / 8 != L || b[PINNED].len != n ||
        !PyList_Check(vlist) || PyList_GET_SIZE(vlist) != L || window < 1 || b[SEL].len / 8 != L ||
        b[LOG2].len / 8 != n + 1 ||
        b[DEG].len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "queue: choose got arrays of inconsistent lengths");
        goto done;
    }
    double *credit = b[CREDIT].buf, *qs = b[QS].buf;
    i64 *heads = b[HEADS].buf;
    if (!(who = malloc((size_t)(2 * L + 1) * 8)) || !(rest = malloc((size_t)(L + 1) * 8))) {
        PyErr_NoMemory();
        goto done;
    }
    i64 A = ready_core(credit, B, b[QLEN].buf, L, who), *k = who + A;
    if (!A) {
        ret = Py_NewRef(Py_None);
        goto done;
    }
    for (i64 j = 0; j < A; ++j) {
        PyObject *v = PyList_GET_ITEM(vlist, who[j]);
        Py_CLEAR(objQ);
        Py_CLEAR(objb);
        if (!(objQ = PyObject_GetAttr(v, QALL_)) || !(objb = PyObject_GetAttr(v, BEF_)) ||
            one_chunk(objQ, objb, heads[who[j]], credit[who[j]], qs[who[j]], window, j, &pairs, &cap, &got, k + j,
                      rest + j) < 0)
            goto done;
        heads[who[j]] += k[j];
    }
    if (!(ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((2 + 3 * A + 2 * got) * 8)))) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), *chosen = out + 2 + 3 * A, *seg = chosen + got;
    out[0] = A, out[1] = got;
    memcpy(out + 2, who, (size_t)(2 * A) * 8);  /* who, then k */
    for (i64 i = 0; i < got; ++i) chosen[i] = pairs[2 * i], seg[i] = pairs[2 * i + 1];
    /* take() writes procs over seg once read: procs[i] needs seg[i] only */
    i64 *procs = malloc((size_t)(got + 1) * 8);
    if (!procs) {
        Py_CLEAR(ret);
        PyErr_NoMemory();
        goto done;
    }
    if (take_core(A, got, L, n, who, k, rest, chosen, seg, b[MINE].buf, qs, b[QLEN].buf, credit, b[STG].buf,
                  b[NSTAGED].buf, b[QUEUED].buf, b[PINNED].buf, b[SEL].buf, b[LOG2].buf, b[DEG].buf, procs,
                  (double *)(out + 2 + 2 * A)) < 0)
        Py_CLEAR(ret);
    else
        memcpy(seg, procs, (size_t)got * 8);
    free(procs);
done:
    Py_XDECREF(objQ), Py_XDECREF(objb);
    free(who), free(rest), free(pairs);
    return ret;
}

static PyObject *choose_(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *level;
    double B;
    Py_ssize_t window;
    bound_t *t;
    if (!fast_args("choose", args, nargs, "Odn", &level, &B, &window) ||
        !(t = bound_of(level, CHOSEN, "choose's level arrays")))
        return NULL;
    return choose_core(t, B, window);
}

/* requests(chosen, procs, queued, pinned, data_at, requested, holder, xadj, adjncy, fetch) (data_at, holder: int32):
 * the data requests
 * of §3.5 after take(): the chosen vertices whose data is elsewhere (data_at != procs) and not requested, then
 * (fetch) the neighbours of the chosen vertices queued at the same processor with their data elsewhere and
 * not requested, sorted, each once (pinned[...] = True), each with the processor asking for it (holder).
 * Returns r (how many of them are chosen vertices), m, the m vertices and the m processors (int64). */
enum { R_CHOSEN, R_PROCS, R_QUEUED, R_PINNED, R_DATA_AT, R_REQUESTED, R_HOLDER, R_XADJ, R_ADJNCY, NREQ };
static const char *const req_name[NREQ] = {"chosen", "procs", "queued", "pinned", "data_at", "requested", "holder",
                                           "xadj", "adjncy"};

static PyObject *request_list(const Py_buffer *b, int fetch);

static PyObject *requests(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[NREQ], *ret = NULL;
    Py_buffer b[NREQ];
    int have[NREQ] = {0}, fetch;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOp", &o[R_CHOSEN], &o[R_PROCS], &o[R_QUEUED], &o[R_PINNED], &o[R_DATA_AT],
                          &o[R_REQUESTED], &o[R_HOLDER], &o[R_XADJ], &o[R_ADJNCY], &fetch))
        return NULL;
    if (get_all(o, b, have, "iibbnrnii", req_name, NREQ)) ret = request_list(b, fetch);
    release_all(b, have, NREQ);
    return ret;
}

/* requests()' list from its buffers (b, by the enum above) */
static PyObject *request_list(const Py_buffer *b, int fetch) {
    PyObject *ret = NULL;
    i64 *cand = NULL;
    i64 got = b[R_CHOSEN].len / 8, n = b[R_DATA_AT].len / 4, nadj = b[R_ADJNCY].len / 8;
    if (b[R_PROCS].len / 8 != got || b[R_QUEUED].len != n || b[R_PINNED].len != n || b[R_REQUESTED].len != n ||
        b[R_HOLDER].len / 4 != n || b[R_XADJ].len / 8 != n + 1) {
        PyErr_SetString(PyExc_ValueError, "queue: requests got arrays of inconsistent lengths");
        goto done;
    }
    const i64 *chosen = b[R_CHOSEN].buf, *procs = b[R_PROCS].buf, *xadj = b[R_XADJ].buf, *adj = b[R_ADJNCY].buf;
    const i32 *data_at = b[R_DATA_AT].buf, *holder = b[R_HOLDER].buf;
    const uint8_t *queued = b[R_QUEUED].buf, *requested = b[R_REQUESTED].buf;
    uint8_t *pinned = b[R_PINNED].buf;
    i64 r = 0, ncand = 0;
    if (!all_in(chosen, got, n, "a chosen vertex is")) goto done;
    for (i64 i = 0; i < got; ++i) r += data_at[chosen[i]] != procs[i] && !requested[chosen[i]];
    if (fetch) {
        i64 deg = 0;
        for (i64 i = 0; i < got; ++i) deg += xadj[chosen[i] + 1] - xadj[chosen[i]];
        cand = malloc((size_t)(deg + 1) * 8);
        if (!cand) {
            PyErr_NoMemory();
            goto done;
        }
        for (i64 i = 0; i < got; ++i) {
            i64 v = chosen[i], pr = procs[i];
            if (xadj[v] < 0 || xadj[v + 1] < xadj[v] || xadj[v + 1] > nadj) {
                PyErr_SetString(PyExc_ValueError, "queue: xadj does not match adjncy");
                goto done;
            }
            if (!all_in(adj + xadj[v], xadj[v + 1] - xadj[v], n, "a neighbour is")) goto done;
            for (i64 e = xadj[v]; e < xadj[v + 1]; ++e) {
                i64 u = adj[e];
                if (holder[u] == pr && queued[u] && data_at[u] != pr && !requested[u]) cand[ncand++] = u;
            }
        }
        qsort(cand, (size_t)ncand, 8, by_id);
        i64 u = 0;
        for (i64 i = 0; i < ncand; ++i)
            if (i == 0 || cand[i] != cand[i - 1]) cand[u++] = cand[i];
        ncand = u;
    }
    i64 m = r + ncand;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((2 + 2 * m) * 8));
    if (!ret) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), *ids = out + 2, *rq = out + 2 + m;
    out[0] = r, out[1] = m;
    for (i64 i = 0, t = 0; i < got; ++i)
        if (data_at[chosen[i]] != procs[i] && !requested[chosen[i]]) ids[t] = chosen[i], rq[t] = procs[i], ++t;
    for (i64 i = 0; i < ncand; ++i) {
        ids[r + i] = cand[i];
        rq[r + i] = holder[cand[i]];
        pinned[cand[i]] = 1;
    }
done:
    free(cand);
    return ret;
}

/* affected()'s vertices of ch (k) into a new cand (sorted, each once; its count in *u), or NULL with an error */
static i64 *affected_core(const i64 *xadj, const i64 *adj, i64 n, i64 nadj, const i64 *ch, i64 k,
                          const uint8_t *queued, const i32 *holder, i64 p, i64 *u) {
    if (!all_in(ch, k, n, "a moved vertex is")) return NULL;
    i64 tot = k;
    for (i64 i = 0; i < k; ++i) {
        i64 v = ch[i];
        if (xadj[v] < 0 || xadj[v + 1] < xadj[v] || xadj[v + 1] > nadj) {
            PyErr_SetString(PyExc_ValueError, "queue: xadj does not match adjncy");
            return NULL;
        }
        tot += xadj[v + 1] - xadj[v];
    }
    i64 *cand = malloc((size_t)(tot + 1) * 8);
    if (!cand) return (i64 *)PyErr_NoMemory();
    i64 m = 0;
    for (i64 i = 0; i < k; ++i) {
        i64 v = ch[i];
        if (queued[v] && holder[v] == p) cand[m++] = v;
        if (!all_in(adj + xadj[v], xadj[v + 1] - xadj[v], n, "a neighbour is")) {
            free(cand);
            return NULL;
        }
        for (i64 e = xadj[v]; e < xadj[v + 1]; ++e)
            if (queued[adj[e]] && holder[adj[e]] == p) cand[m++] = adj[e];
    }
    qsort(cand, (size_t)m, 8, by_id);
    *u = 0;
    for (i64 i = 0; i < m; ++i)
        if (i == 0 || cand[i] != cand[i - 1]) cand[(*u)++] = cand[i];
    return cand;
}

/* affected(xadj, adjncy, ch, queued, holder (int32), p): the vertices to re-price at p after the data of ch moved in
 * p's view (balancer.LevelRun._receive): the closed neighbourhood of ch (Graph.neighbourhood) restricted to
 * the vertices queued at p (queued[u] and holder[u] == p), sorted, each once (int64). */
static PyObject *affected(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    enum { XADJ, ADJNCY, CH, QUEUED, HOLDER, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "ch", "queued", "holder"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long p;
    PyObject *ret = NULL;
    i64 *cand = NULL, u = 0;
    if (!fast_args("affected", args, nargs, "OOOOOL", &o[XADJ], &o[ADJNCY], &o[CH], &o[QUEUED], &o[HOLDER], &p))
        return NULL;
    if (!get_all(o, b, have, "iiirn", name, NB)) goto done;
    i64 n = b[HOLDER].len / 4;
    if (b[QUEUED].len != n || b[XADJ].len / 8 != n + 1) {
        PyErr_SetString(PyExc_ValueError, "queue: affected got arrays of inconsistent lengths");
        goto done;
    }
    if ((cand = affected_core(b[XADJ].buf, b[ADJNCY].buf, n, b[ADJNCY].len / 8, b[CH].buf, b[CH].len / 8,
                              b[QUEUED].buf, b[HOLDER].buf, p, &u)))
        ret = PyByteArray_FromStringAndSize((const char *)cand, (Py_ssize_t)(u * 8));
done:
    free(cand);
    release_all(b, have, NB);
    return ret;
}

/* arrive(ids, p, data_at (int32), requested, pinned, queued, rwgt): the data of ids arrived at p (a DATA message,
 * balancer.LevelRun._receive): data_at[ids] = p; requested[ids] = False; pinned[ids[queued[ids]]] = False.
 * Returns the sum of rwgt[ids] (the words copied in). */
static PyObject *arrive(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { IDS, DATA_AT, REQUESTED, PINNED, QUEUED, RWGT, NB };
    static const char *const name[NB] = {"ids", "data_at", "requested", "pinned", "queued", "rwgt"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long p;
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "OLOOOOO", &o[IDS], &p, &o[DATA_AT], &o[REQUESTED], &o[PINNED], &o[QUEUED],
                          &o[RWGT]))
        return NULL;
    if (!get_all(o, b, have, "inbbri", name, NB)) goto done;
    i64 k = b[IDS].len / 8, n = b[DATA_AT].len / 4;
    if (b[REQUESTED].len != n || b[PINNED].len != n || b[QUEUED].len != n || b[RWGT].len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "queue: arrive got arrays of inconsistent lengths");
        goto done;
    }
    const i64 *ids = b[IDS].buf, *rwgt = b[RWGT].buf;
    i32 *data_at = b[DATA_AT].buf;
    i64 sum = 0;
    uint8_t *requested = b[REQUESTED].buf, *pinned = b[PINNED].buf;
    const uint8_t *queued = b[QUEUED].buf;
    if (!all_in(ids, k, n, "an arrived vertex is")) goto done;
    for (i64 j = 0; j < k; ++j) {
        i64 v = ids[j];
        sum += rwgt[v];
        data_at[v] = (i32)p;
        requested[v] = 0;
        if (queued[v]) pinned[v] = 0;
    }
    ret = PyLong_FromLongLong(sum);
done:
    release_all(b, have, NB);
    return ret;
}

/* serve(ids, p, data_at (int32), rwgt): a data request at p (balancer.LevelRun._serve): the requested vertices whose
 * data is at p (data_at[ids] == p, read before any is marked) are marked in flight (data_at = -2). Returns
 * int64 [k, the sum of their rwgt, the k of them in order, the others in order]. */
static PyObject *serve(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { IDS, DATA_AT, RWGT, NB };
    static const char *const name[NB] = {"ids", "data_at", "rwgt"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long p;
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "OLOO", &o[IDS], &p, &o[DATA_AT], &o[RWGT])) return NULL;
    if (!get_all(o, b, have, "ini", name, NB)) goto done;
    i64 k = b[IDS].len / 8, n = b[DATA_AT].len / 4;
    if (b[RWGT].len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "queue: serve got arrays of inconsistent lengths");
        goto done;
    }
    const i64 *ids = b[IDS].buf, *rwgt = b[RWGT].buf;
    i32 *data_at = b[DATA_AT].buf;
    if (!all_in(ids, k, n, "a requested vertex is")) goto done;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((2 + k) * 8));
    if (!ret) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), h = 0, sum = 0;
    for (i64 j = 0; j < k; ++j) h += data_at[ids[j]] == p;
    for (i64 j = 0, a = 0, c = h; j < k; ++j)
        if (data_at[ids[j]] == p) out[2 + a++] = ids[j];
        else out[2 + c++] = ids[j];
    for (i64 j = 0; j < h; ++j) sum += rwgt[out[2 + j]], data_at[out[2 + j]] = -2;
    out[0] = h, out[1] = sum;
done:
    release_all(b, have, NB);
    return ret;
}

/* inbox's level arrays: data_at (int32), requested, pinned, queued, rwgt, mig, loc_n, loc_b, its constants (int64 P, DATA,
 * FETCH, word, per_unit) and the view's C_API capsule */
#define INBOXED "nbbrifffio"
#define TAILED "iinifiififfffbiffibioo" /* tail_core's (its doc) */
static int tail_core(const bound_t *tail, PyObject *Qall, PyObject *view, const view_api *api, i64 p, i64 i, i64 P,
                     i64 word, const i64 *arr, i64 na, const i64 *ch, i64 nl, PyObject *servers,
                     const uint8_t *queued, const i64 *rwgt, i64 n);

/* inbox(lvalues, loffsets, lfrom, lto, values, offsets, src, m, end, p, i, level, msgs, fwd, servers, view, Qall,
 * tail), level: bind(INBOXED, data_at, requested, pinned, queued, rwgt, mig, loc_n, loc_b, [P, data, fetch, word,
 * per_unit], api): at processor p (slot i) the locate messages lfrom .. lto - 1 of the superstep's (lvalues, loffsets: the
 * locate batch's columns; int64 [processor, vertex, ...] each, by sender), then the run of DATA and FETCH
 * messages from message m (values, offsets, src: the batch's columns, as _Received reads them) up to end
 * (balancer.LevelRun._receive's steps for them, in its order, the reference path's arithmetic):
 * - locates: mig[i] += their entries + their number; learned, each entry whose data is not at p;
 * - every message: mig[i] += its words, the code included;
 * - DATA (vertices): loc_n[i] += P - 1; loc_b[i] += (P - 1) * word * (1 + k); arrive's marks, and
 *   mig[i] += the sum of their rwgt; learned at p; arrived; its source added to servers;
 * - FETCH (requester, vertices), when p holds the data of every one of them (else the run stops before it:
 *   the forwarding is the caller's): marked in flight, (p, requester, data, [vertices], words * per_unit)
 *   appended to msgs when there are any, fwd[vertex] = requester, learned at requester.
 * What p learned, in order, is merged into its view (LocationView ``view``, through ``api``, its C_API: one
 * merge, the later entry winning, is the merges one by one). Returns int64 [the message the run stopped at, nl,
 * na, the number of DATA messages, the nl vertices learned, the na arrived] in a bytearray; or, with ``tail``
 * (bind(TAILED, ...), see tail_core) when the run reached end, None after tail_core's steps (Qall: p's queue). */
enum { LVALUES, LOFFSETS, VALUES, OFFSETS, SRC, DATA_AT, REQUESTED, PINNED, QUEUED, RWGT, MIG, LOC_N, LOC_B, NB_INBOX };

/* inbox's level (lv, bound INBOXED; its view API in *api) and tail (tail: None or bound TAILED, in *tl) checked:
 * 1, or 0 with an error */
static int inbox_of(PyObject *level, PyObject *tail, bound_t **lv, const view_api **api, bound_t **tl) {
    *tl = NULL;
    if (!(*lv = bound_of(level, INBOXED, "inbox's level arrays")) ||
        !(*api = view_api_of((*lv)->obj[NB_INBOX - DATA_AT + 1])) ||
        (tail != Py_None && !(*tl = bound_of(tail, TAILED, "inbox's tail"))))
        return 0;
    if ((*lv)->b[NB_INBOX - DATA_AT].len != 5 * 8) {
        PyErr_SetString(PyExc_ValueError, "queue: inbox's constants are P, DATA, FETCH, word, per_unit");
        return 0;
    }
    return 1;
}

/* inbox's msgs, fwd and servers: 1 if a list, a dict and a set, else 0 with a TypeError */
static int inbox_objects(PyObject *msgs, PyObject *fwd, PyObject *servers) {
    if (PyList_Check(msgs) && PyDict_Check(fwd) && PySet_Check(servers)) return 1;
    PyErr_SetString(PyExc_TypeError, "queue: inbox's msgs, fwd and servers are a list, a dict and a set");
    return 0;
}

/* inbox()'s steps, the batches' buffers given (bb: lvalues, loffsets, values, offsets, src; msgs, fwd and servers
 * checked by inbox_objects) */
static PyObject *inbox_core(const Py_buffer *bb, i64 lfrom, i64 lto, i64 m, i64 end, i64 p, i64 i, const bound_t *lv,
                            const view_api *api, PyObject *msgs, PyObject *fwd, PyObject *servers, PyObject *view,
                            PyObject *Qall, const bound_t *tl) {
    enum { NB = NB_INBOX };
    Py_buffer b[NB];
    PyObject *ret = NULL, *req = NULL;
    i64 *buf = NULL;
    const i64 *cst = lv->b[NB - DATA_AT].buf, P = cst[0], DATA = cst[1], FETCH = cst[2], word = cst[3],
              per_unit = cst[4];
    memcpy(b, bb, DATA_AT * sizeof *b);  /* (the caller's: not released here) */
    for (int j = DATA_AT; j < NB; ++j) b[j] = lv->b[j - DATA_AT];  /* (bound: not released here) */
    i64 n = b[DATA_AT].len / 4, nv = b[VALUES].len / 8, nm = b[SRC].len / 8, L = b[MIG].len / 8;
    i64 nlv = b[LVALUES].len / 8, nlm = b[LOFFSETS].len / 8 - 1;
    const i64 *val = b[VALUES].buf, *off = b[OFFSETS].buf, *src = b[SRC].buf, *rwgt = b[RWGT].buf;
    const i64 *lval = b[LVALUES].buf, *loff = b[LOFFSETS].buf;
    i32 *data_at = b[DATA_AT].buf;
    uint8_t *requested = b[REQUESTED].buf, *pinned = b[PINNED].buf;
    const uint8_t *queued = b[QUEUED].buf;
    double *mig = b[MIG].buf, *loc_n = b[LOC_N].buf, *loc_b = b[LOC_B].buf;
    if (b[REQUESTED].len != n || b[PINNED].len != n || b[QUEUED].len != n || b[RWGT].len / 8 != n ||
        b[OFFSETS].len / 8 != nm + 1 || b[LOC_N].len / 8 != L || b[LOC_B].len / 8 != L || i < 0 || i >= L ||
        m < 0 || m > end || end > nm || (nm && (off[0] < 0 || off[nm] > nv)) || lfrom < 0 || lfrom > lto ||
        lto > nlm || (lto > lfrom && (loff[lfrom] < 0 || loff[lto] > nlv))) {
        PyErr_SetString(PyExc_ValueError, "queue: inbox got arrays of inconsistent lengths");
        goto done;
    }
    for (i64 k = m; k < end; ++k)
        if (off[k] >= off[k + 1]) {
            PyErr_SetString(PyExc_ValueError, "queue: inbox got an empty message");
            goto done;
        }
    i64 cap = end > m ? off[end] - off[m] : 0, total = 0, nlocs = lto - lfrom;
    for (i64 s = lfrom; s < lto; ++s) {
        if (loff[s] >= loff[s + 1]) {
            PyErr_SetString(PyExc_ValueError, "queue: inbox got an empty locate message");
            goto done;
        }
        cap += loff[s + 1] - loff[s] - 1;
    }
    /* learned ids, their processors, arrived: at most cap each */
    if (!(buf = malloc((size_t)(3 * cap + 1) * 8))) {
        PyErr_NoMemory();
        goto done;
    }
    i64 *lid = buf, *lat = buf + cap, *arr = buf + 2 * cap, nl = 0, na = 0, nd = 0;
    for (i64 s = lfrom; s < lto; ++s) {
        const i64 *w = lval + loff[s];
        i64 k = loff[s + 1] - loff[s];
        if (!all_in(w + 1, k - 1, n, "a located vertex is")) goto done;
        for (i64 j = 1; j < k; ++j)
            if (data_at[w[j]] != p) lid[nl] = w[j], lat[nl++] = w[0];
        total += k - 1;
    }
    if (nlocs) mig[i] += (double)(total + nlocs);
    for (; m < end; ++m) {
        const i64 *w = val + off[m];
        i64 code = w[0], k = off[m + 1] - off[m] - 1;
        if (code == DATA) {
            if (!all_in(w + 1, k, n, "an arrived vertex is")) goto done;
            mig[i] += (double)(k + 1);
            loc_n[i] += (double)(P - 1);
            loc_b[i] += (double)((P - 1) * word * (1 + k));
            i64 sum = 0;
            for (i64 j = 1; j <= k; ++j) {
                i64 v = w[j];
                sum += rwgt[v];
                data_at[v] = (i32)p;
                requested[v] = 0;
                if (queued[v]) pinned[v] = 0;
                lid[nl] = v, lat[nl++] = p, arr[na++] = v;
            }
            mig[i] += (double)sum;
            ++nd;
            PyObject *s = PyLong_FromLongLong(src[m]);
            int bad = !s || PySet_Add(servers, s) < 0;
            Py_XDECREF(s);
            if (bad) goto done;
        } else if (code == FETCH && k >= 1) {
            i64 requester = w[0 + 1], kk = k - 1;
            const i64 *ids = w + 2;
            if (!all_in(ids, kk, n, "a requested vertex is")) goto done;
            i64 j = 0;
            while (j < kk && data_at[ids[j]] == p) ++j;
            if (j < kk) break;  /* some left already: forwarded by the caller */
            mig[i] += (double)(k + 1);
            if (!kk) continue;
            i64 sum = 0;
            PyObject *sent = PyList_New((Py_ssize_t)kk), *t = NULL;
            if (!sent || !(req = PyLong_FromLongLong(requester))) {
                Py_XDECREF(sent);
                goto done;
            }
            for (j = 0; j < kk; ++j) {
                i64 v = ids[j];
                sum += rwgt[v];
                data_at[v] = -2;
                lid[nl] = v, lat[nl++] = requester;
                PyObject *x = PyLong_FromLongLong(v);
                if (!x) {
                    Py_DECREF(sent);
                    goto done;
                }
                PyList_SET_ITEM(sent, (Py_ssize_t)j, x);
                if (PyDict_SetItem(fwd, x, req) < 0) {
                    Py_DECREF(sent);
                    goto done;
                }
            }
            t = Py_BuildValue("(LOLNL)", p, req, (long long)DATA, sent, (long long)(sum * per_unit));
            Py_CLEAR(req);
            if (!t || PyList_Append(msgs, t) < 0) {
                Py_XDECREF(t);
                goto done;
            }
            Py_DECREF(t);
        } else
            break;
    }
    if (nl && api->learn(view, lid, nl, lat, nl) < 0) goto done;
    if (tl && m == end) {
        if (tail_core(tl, Qall, view, api, p, i, P, word, arr, na, lid, nl, servers, queued, rwgt, n) == 0)
            ret = Py_NewRef(Py_None);
        goto done;
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((4 + nl + na) * 8));
    if (!ret) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret);
    out[0] = m, out[1] = nl, out[2] = na, out[3] = nd;
    memcpy(out + 4, lid, (size_t)nl * 8);
    memcpy(out + 4 + nl, arr, (size_t)na * 8);
done:
    Py_XDECREF(req);
    free(buf);
    return ret;
}

static PyObject *inbox(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    static const char *const name[DATA_AT] = {"lvalues", "loffsets", "values", "offsets", "src"};
    PyObject *msgs, *fwd, *servers, *o[DATA_AT], *view, *Qall, *tail, *level, *ret = NULL;
    Py_buffer b[DATA_AT];
    int have[DATA_AT] = {0};
    long long lfrom, lto, m, end, p, i;
    const view_api *api;
    bound_t *lv, *tl;
    if (!fast_args("inbox", args, nargs, "OOLLOOOLLLLOOOOOOO", &o[LVALUES], &o[LOFFSETS], &lfrom, &lto, &o[VALUES],
                   &o[OFFSETS], &o[SRC], &m, &end, &p, &i, &level, &msgs, &fwd, &servers, &view, &Qall, &tail) ||
        !inbox_objects(msgs, fwd, servers) || !inbox_of(level, tail, &lv, &api, &tl))
        return NULL;
    if (get_all(o, b, have, "iiiii", name, DATA_AT))
        ret = inbox_core(b, lfrom, lto, m, end, p, i, lv, api, msgs, fwd, servers, view, Qall, tl);
    release_all(b, have, DATA_AT);
    return ret;
}

/* receivers()' processors from hold (nh) and home0[ids] (k) into a new cand (its count in *u), or NULL */
static i64 *receivers_core(const i64 *hold, i64 nh, const i64 *home0, i64 n, const i64 *ids, i64 k, i64 p,
                           i64 server, i64 *u) {
    if (!all_in(ids, k, n, "a located vertex is")) return NULL;
    i64 *cand = malloc((size_t)(nh + k + 1) * 8);
    if (!cand) return (i64 *)PyErr_NoMemory();
    memcpy(cand, hold, (size_t)nh * 8);
    for (i64 j = 0; j < k; ++j) cand[nh + j] = home0[ids[j]];
    qsort(cand, (size_t)(nh + k), 8, by_id);
    *u = 0;
    for (i64 j = 0; j < nh + k; ++j)
        if ((j == 0 || cand[j] != cand[j - 1]) && cand[j] != p && cand[j] != server) cand[(*u)++] = cand[j];
    return cand;
}

/* receivers(holders, home0, ids, p, server): the processors a locate message about ids goes to
 * (balancer.LevelRun._locate): those in holders and the home processors home0[ids], sorted, each once,
 * without p and without server (-1: none). */
static PyObject *receivers(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    enum { HOLDERS, HOME0, IDS, NB };
    static const char *const name[NB] = {"holders", "home0", "ids"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long p, server;
    PyObject *ret = NULL;
    i64 *cand = NULL, u = 0;
    if (!fast_args("receivers", args, nargs, "OOOLL", &o[HOLDERS], &o[HOME0], &o[IDS], &p, &server)) return NULL;
    if (!get_all(o, b, have, "iii", name, NB)) goto done;
    if ((cand = receivers_core(b[HOLDERS].buf, b[HOLDERS].len / 8, b[HOME0].buf, b[HOME0].len / 8, b[IDS].buf,
                               b[IDS].len / 8, p, server, &u)))
        ret = PyByteArray_FromStringAndSize((const char *)cand, (Py_ssize_t)(u * 8));
done:
    free(cand);
    release_all(b, have, NB);
    return ret;
}

static PyObject *ints_list(const i64 *x, i64 n, i64 step) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (i64 j = 0; l && j < n; ++j) {
        PyObject *v = PyLong_FromLongLong(x[j * step]);
        if (!v) Py_CLEAR(l);
        else PyList_SET_ITEM(l, (Py_ssize_t)j, v);
    }
    return l;
}

/* runs(dst): {d: slice(first, last + 1)} of each destination's run of messages in a delivered batch (sorted by
 * destination), as received()'s at (balancer.LevelRun.run: the locate messages of each processor) */
static PyObject *runs(PyObject *Py_UNUSED(self), PyObject *o) {
    PyObject *at = NULL;
    Py_buffer b;
    if (!get(o, &b, 'i', "dst")) return NULL;
    const i64 *dst = b.buf;
    i64 n = b.len / 8;
    if (!(at = PyDict_New())) goto done;
    for (i64 a = 0, c; a < n; a = c) {
        for (c = a + 1; c < n && dst[c] == dst[a]; ++c)
            ;
        PyObject *k = PyLong_FromLongLong(dst[a]), *ka = PyLong_FromLongLong(a), *kc = PyLong_FromLongLong(c);
        PyObject *r = k && ka && kc ? PySlice_New(ka, kc, NULL) : NULL;
        int bad = !r || PyDict_SetItem(at, k, r) < 0;
        Py_XDECREF(k), Py_XDECREF(ka), Py_XDECREF(kc), Py_XDECREF(r);
        if (bad) {
            Py_CLEAR(at);
            goto done;
        }
    }
done:
    PyBuffer_Release(&b);
    return at;
}

/* received(values, offsets, src, dst, below, lists): a superstep's batch of sbn messages read for balancer._Received
 * (its steps in numpy, the reference path, give the same): each message's start and end in values and its
 * size (offsets), its code (values[start]) and its source, as lists; {dst: slice(first, last + 1)} of each
 * destination's run of messages (its start and stop read as a range's), in delivery order; and the
 * frozenset of the destinations all of whose codes are below ``below`` (the balance kind's messages). Without
 * lists, only the last two. */
enum { R_VALUES, R_OFFSETS, R_SRC, R_DST, R_NB };

/* received()'s result for its four columns o[] (values, offsets, src, dst) */
static PyObject *received_core(PyObject *const *o, long long below, int lists) {
    enum { VALUES = R_VALUES, OFFSETS = R_OFFSETS, SRC = R_SRC, DST = R_DST, NB = R_NB };
    static const char *const name[NB] = {"values", "offsets", "src", "dst"};
    Py_buffer b[NB];
    int have[NB] = {0};
    PyObject *ret = NULL, *l[5] = {NULL}, *at = NULL, *only = NULL, *set = NULL;
    i64 *tmp = NULL;
    if (!get_all((PyObject **)o, b, have, "iiii", name, NB)) goto done;
    i64 n = b[SRC].len / 8, nv = b[VALUES].len / 8;
    const i64 *val = b[VALUES].buf, *off = b[OFFSETS].buf, *src = b[SRC].buf, *dst = b[DST].buf;
    if (b[OFFSETS].len / 8 != n + 1 || b[DST].len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "queue: received got columns of inconsistent lengths");
        goto done;
    }
    for (i64 m = 0; m < n; ++m)
        if (off[m] < 0 || off[m] >= off[m + 1] || off[m + 1] > nv) {
            PyErr_SetString(PyExc_ValueError, "queue: received got offsets out of range");
            goto done;
        }
    if (!(tmp = malloc((size_t)(2 * n + 1) * 8))) {
        PyErr_NoMemory();
        goto done;
    }
    for (i64 m = 0; m < n; ++m) tmp[m] = off[m + 1] - off[m], tmp[n + m] = val[off[m]];
    if (lists && (!(l[0] = ints_list(off, n, 1)) || !(l[1] = ints_list(off + 1, n, 1)) ||
                  !(l[2] = ints_list(tmp, n, 1)) || !(l[3] = ints_list(tmp + n, n, 1)) ||
                  !(l[4] = ints_list(src, n, 1))))
        goto done;
    if (!(at = PyDict_New()) || !(set = PySet_New(NULL))) goto done;
    for (i64 a = 0, c; a < n; a = c) {
        i64 top = val[off[a]];
        for (c = a + 1; c < n && dst[c] == dst[a]; ++c)
            if (val[off[c]] > top) top = val[off[c]];
        PyObject *k = PyLong_FromLongLong(dst[a]), *ka = PyLong_FromLongLong(a), *kc = PyLong_FromLongLong(c);
        PyObject *r = k && ka && kc ? PySlice_New(ka, kc, NULL) : NULL;
        int bad = !r || PyDict_SetItem(at, k, r) < 0 || (top < below && PySet_Add(set, k) < 0);
        Py_XDECREF(k), Py_XDECREF(ka), Py_XDECREF(kc), Py_XDECREF(r);
        if (bad) goto done;
    }
    if (!(only = PyFrozenSet_New(set))) goto done;
    ret = lists ? Py_BuildValue("(OOOOOOO)", l[0], l[1], l[2], l[3], l[4], at, only) : Py_BuildValue("(OO)", at, only);
done:
    for (int j = 0; j < 5; ++j) Py_XDECREF(l[j]);
    Py_XDECREF(at), Py_XDECREF(set), Py_XDECREF(only);
    free(tmp);
    release_all(b, have, NB);
    return ret;
}

static PyObject *received(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *o[R_NB];
    long long below;
    int lists;
    if (!fast_args("received", args, nargs, "OOOOLp", &o[R_VALUES], &o[R_OFFSETS], &o[R_SRC], &o[R_DST], &below,
                   &lists))
        return NULL;
    return received_core(o, below, lists);
}

static PyObject *OFFSETS_, *SRC_, *DST_, *AT_, *OPS_ONLY_, *COLUMNS_, *OPS_, *FLAG_; /* their names */

/* received_in(cls, b, below): balancer._Received's native reading of batch b (its messages the balance kind's below
 * FETCH, below) in one call: an instance of cls made without __init__ (the class's __new__), its fields values, at
 * and ops_only (received()'s of b's columns), columns (values, offsets, src), ops and flag (empty) and dst set */
static PyObject *received_in(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *cls, *b, *o[R_NB] = {NULL}, *got = NULL, *cols = NULL, *obj = NULL, *d = NULL, *ret = NULL;
    PyObject *empty = NULL;
    long long below;
    if (!fast_args("received_in", args, nargs, "OOL", &cls, &b, &below)) return NULL;
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "queue: received_in's cls is a class");
        return NULL;
    }
    static PyObject *const *names[R_NB] = {&VALUES_, &OFFSETS_, &SRC_, &DST_};
    for (int j = 0; j < R_NB; ++j)
        if (!(o[j] = PyObject_GetAttr(b, *names[j]))) goto done;
    if (!(got = received_core(o, below, 0)) || !(cols = PyTuple_Pack(3, o[R_VALUES], o[R_OFFSETS], o[R_SRC])) ||
        !(empty = PyTuple_New(0)) || !(obj = ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty, NULL)) ||
        !(d = PyObject_GenericGetDict(obj, NULL)))
        goto done;
    if (PyDict_SetItem(d, VALUES_, o[R_VALUES]) < 0 || PyDict_SetItem(d, AT_, PyTuple_GET_ITEM(got, 0)) < 0 ||
        PyDict_SetItem(d, OPS_ONLY_, PyTuple_GET_ITEM(got, 1)) < 0 || PyDict_SetItem(d, COLUMNS_, cols) < 0 ||
        PyDict_SetItem(d, OPS_, empty) < 0 || PyDict_SetItem(d, FLAG_, empty) < 0 ||
        PyDict_SetItem(d, DST_, o[R_DST]) < 0)
        goto done;
    ret = Py_NewRef(obj);
done:
    for (int j = 0; j < R_NB; ++j) Py_XDECREF(o[j]);
    Py_XDECREF(got), Py_XDECREF(cols), Py_XDECREF(empty), Py_XDECREF(obj), Py_XDECREF(d);
    return ret;
}

/* priced()'s steps on its arrays (k vertices verts, n by vertex): 1, or 0 with an error */
static int priced_core(const i64 *verts, i64 k, i64 n, const double *wgt, const double *comm, const double *remap,
                       double *cw, double *cc, double *cr, uint8_t *stale, const i64 *deg, double *sel, i64 i,
                       double log2q) {
    if (!all_in(verts, k, n, "a priced vertex is")) return 0;
    i64 d = 0;
    for (i64 j = 0; j < k; ++j) d += deg[verts[j]];
    sel[i] += (double)k * log2q + (double)d;
    for (i64 j = 0; j < k; ++j) {
        i64 v = verts[j];
        cw[v] = wgt[j], cc[v] = comm[j], cr[v] = remap[j], stale[v] = 1;
    }
    return 1;
}

/* priced(verts, wgt, comm, remap, cw, cc, cr, stale, deg, sel, i, log2q): verts (re-)priced at processor i
 * (balancer.LevelRun._price): §5.4's heap steps counted first, sel[i] += len(verts) * log2q + the sum of
 * deg[verts] (numpy's order: the product, then the sum added), then cw[verts] = wgt, cc[verts] = comm,
 * cr[verts] = remap and stale[verts] = True. */
static PyObject *priced(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    enum { VERTS, WGT, COMM, REMAP, CW, CC, CR, STALE, DEG, SEL, NB };
    static const char *const name[NB] = {"verts", "wgt", "comm", "remap", "cw", "cc", "cr", "stale", "deg", "sel"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long i;
    double log2q;
    PyObject *ret = NULL;
    if (!fast_args("priced", args, nargs, "OOOOOOOOOOLd", &o[VERTS], &o[WGT], &o[COMM], &o[REMAP], &o[CW], &o[CC],
                   &o[CR], &o[STALE], &o[DEG], &o[SEL], &i, &log2q))
        return NULL;
    if (!get_all(o, b, have, "iffffffbif", name, NB)) goto done;
    i64 k = b[VERTS].len / 8, n = b[CW].len / 8;
    if (b[WGT].len / 8 != k || b[COMM].len / 8 != k || b[REMAP].len / 8 != k || b[CC].len / 8 != n ||
        b[CR].len / 8 != n || b[STALE].len != n || b[DEG].len / 8 != n || i < 0 || i >= b[SEL].len / 8) {
        PyErr_SetString(PyExc_ValueError, "queue: priced got arrays of inconsistent lengths");
        goto done;
    }
    if (priced_core(b[VERTS].buf, k, n, b[WGT].buf, b[COMM].buf, b[REMAP].buf, b[CW].buf, b[CC].buf, b[CR].buf,
                    b[STALE].buf, b[DEG].buf, b[SEL].buf, i, log2q))
        ret = Py_NewRef(Py_None);
done:
    release_all(b, have, NB);
    return ret;
}

/* done()'s steps on its arrays (nv vertices, A processors; the level's bound arrays lv: DONE's; data_at NULL: no
 * check): 1 done, 0 not (a vertex's data elsewhere, nothing changed), -1 with an error */
static int done_core(const i64 *verts, const i64 *procs, i64 nv, const i64 *who, const double *cost, i64 A,
                     i64 step, const Py_buffer *lv, const i32 *data_at, i64 ndata) {
    enum { HOLDER, PINNED, DONE_BY, STG, NSTAGED, PROC_COST, BUSY_STEPS, LAST_BUSY };
    i64 n = lv[HOLDER].len / 4, L = lv[STG].len / 8;
    if (lv[PINNED].len != n || lv[DONE_BY].len / 4 != n || lv[NSTAGED].len / 8 != L || lv[PROC_COST].len / 8 != L ||
        lv[BUSY_STEPS].len / 8 != L || lv[LAST_BUSY].len / 8 != L || (data_at && ndata != n)) {
        PyErr_SetString(PyExc_ValueError, "queue: done got arrays of inconsistent lengths");
        return -1;
    }
    i32 *holder = lv[HOLDER].buf, *done_by = lv[DONE_BY].buf;
    i64 *nstaged = lv[NSTAGED].buf;
    i64 *busy_steps = lv[BUSY_STEPS].buf, *last_busy = lv[LAST_BUSY].buf;
    double *stg = lv[STG].buf, *proc_cost = lv[PROC_COST].buf;
    uint8_t *pinned = lv[PINNED].buf;
    if (!all_in(verts, nv, n, "a processed vertex is") || !all_in(who, A, L, "a processor index is")) return -1;
    if (data_at)
        for (i64 i = 0; i < nv; ++i)
            if (data_at[verts[i]] != procs[i]) return 0;
    for (i64 i = 0; i < nv; ++i) {
        holder[verts[i]] = -1;
        pinned[verts[i]] = 0;
        done_by[verts[i]] = (i32)procs[i];
    }
    for (i64 j = 0; j < A; ++j) {
        i64 w = who[j];
        stg[w] -= cost[j];
        if (--nstaged[w] == 0) stg[w] = 0.0;  /* exactly: nothing chosen is left */
        proc_cost[w] += cost[j];
        busy_steps[w] += 1;
        last_busy[w] = step;
    }
    return 1;
}

/* done(verts, procs, who, cost, step, level[, data_at]), level: bind(DONE, holder, pinned, done_by, stg, nstaged,
 * proc_cost, busy_steps, last_busy): the processed chunks (balancer.LevelRun._done), numpy's steps in numpy's
 * order (who's entries are distinct): holder[verts] = -1; pinned[verts] = False; done_by[verts] = procs;
 * stg[who] -= cost; nstaged[who] -= 1; stg[who[nstaged[who] == 0]] = 0.0; proc_cost[who] += cost;
 * busy_steps[who] += 1; last_busy[who] = step (holder, done_by: int32). Returns True; with data_at (int32, by vertex), only when every
 * vertex's data is at its processor (data_at[verts] == procs), else False with nothing changed. */
#define DONE "nbnfifii"
static PyObject *done(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { VERTS, PROCS, WHO, COST, DATA_AT, NB };
    static const char *const name[NB] = {"verts", "procs", "who", "cost", "data_at"};
    PyObject *o[NB] = {NULL}, *level;
    Py_buffer b[NB];
    int have[NB] = {0};
    long long step;
    PyObject *ret = NULL;
    bound_t *t;
    if (!PyArg_ParseTuple(args, "OOOOLO|O", &o[VERTS], &o[PROCS], &o[WHO], &o[COST], &step, &level, &o[DATA_AT]) ||
        !(t = bound_of(level, DONE, "done's level arrays")))
        return NULL;
    int check = o[DATA_AT] != NULL;
    if (!get_all(o, b, have, "iiifn", name, check ? NB : DATA_AT)) goto done;
    i64 nv = b[VERTS].len / 8, A = b[WHO].len / 8;
    if (b[PROCS].len / 8 != nv || b[COST].len / 8 != A) {
        PyErr_SetString(PyExc_ValueError, "queue: done got arrays of inconsistent lengths");
        goto done;
    }
    int r = done_core(b[VERTS].buf, b[PROCS].buf, nv, b[WHO].buf, b[COST].buf, A, step, t->b,
                      check ? b[DATA_AT].buf : NULL, check ? b[DATA_AT].len / 4 : 0);
    if (r >= 0) ret = Py_NewRef(r ? Py_True : Py_False);
done:
    release_all(b, have, NB);
    return ret;
}

/* done_chosen(chosen, step, level, data_at): done() of choose()'s result (chosen, as fetch_chunks reads it) when
 * every vertex's data is there: the number of vertices done (0: none chosen, nothing changed), or None (a
 * vertex's data elsewhere: nothing changed) */
static PyObject *done_chosen_core(PyObject *chosen, i64 step, const bound_t *t, PyObject *data_at) {
    PyObject *o[2] = {chosen, data_at}, *ret = NULL;
    Py_buffer b[2];
    int have[2] = {0};
    chosen_t c;
    static const char *const name[2] = {"chosen", "data_at"};
    if (!get_all(o, b, have, "in", name, 2) || !chosen_of(&b[0], &c)) goto done;
    int r = c.got ? done_core(c.chosen, c.procs, c.got, c.who, c.cost, c.A, step, t->b, b[1].buf, b[1].len / 4) : 1;
    if (r >= 0) ret = r ? PyLong_FromLongLong(c.got) : Py_NewRef(Py_None);
done:
    release_all(b, have, 2);
    return ret;
}

static PyObject *done_chosen(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *chosen, *level, *data_at;
    long long step;
    bound_t *t;
    if (!fast_args("done_chosen", args, nargs, "OLOO", &chosen, &step, &level, &data_at) ||
        !(t = bound_of(level, DONE, "done's level arrays")))
        return NULL;
    return done_chosen_core(chosen, step, t, data_at);
}

/* ready(credit, B, qlen): credit = np.minimum(credit, 0.0) + B in place, then the processors that choose a
 * chunk this superstep, np.flatnonzero((qlen > 0) & (credit > 0)), as int64 in a bytearray. */
static PyObject *ready(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *oc, *oq, *ret = NULL;
    double B;
    Py_buffer bc, bq;
    int have_c = 0, have_q = 0;
    if (!PyArg_ParseTuple(args, "OdO", &oc, &B, &oq)) return NULL;
    if (!(have_c = get(oc, &bc, 'f', "credit")) || !(have_q = get(oq, &bq, 'i', "qlen"))) goto done;
    if (bc.readonly || bq.len != bc.len) {
        PyErr_SetString(PyExc_ValueError, "queue: ready needs a writable credit and a qlen as long");
        goto done;
    }
    i64 L = bc.len / 8, a;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(L * 8));
    if (!ret) goto done;
    a = ready_core(bc.buf, B, bq.buf, L, (i64 *)PyByteArray_AS_STRING(ret));
    if (PyByteArray_Resize(ret, (Py_ssize_t)(a * 8)) < 0) Py_CLEAR(ret);
done:
    if (have_c) PyBuffer_Release(&bc);
    if (have_q) PyBuffer_Release(&bq);
    return ret;
}

/* acting(step, level), level: bind(ACTING, qs, stg, busy, hold, prom, cooldown, want, minth, maxth): the processors
 * whose main line (Fig. 4) acts this superstep: with L = qs + stg, free = (busy == 0) & (step > hold) & ~prom,
 * over = (L > maxth) & (step > cooldown), np.flatnonzero(free & (want | over | (L < minth))), int64. */
#define ACTING "ffiirirff"
static PyObject *acting_core(i64 step, const bound_t *t) {
    enum { QS, STG, BUSY, HOLD, PROM, COOLDOWN, WANT, MINTH, MAXTH, NB };
    Py_buffer b[NB];
    PyObject *ret = NULL;
    memcpy(b, t->b, sizeof b);  /* (bound: not released here) */
    i64 L = b[QS].len / 8, a = 0;
    if (b[STG].len / 8 != L || b[BUSY].len / 8 != L || b[HOLD].len / 8 != L || b[PROM].len != L ||
        b[COOLDOWN].len / 8 != L || b[WANT].len != L || b[MINTH].len / 8 != L || b[MAXTH].len / 8 != L) {
        PyErr_SetString(PyExc_ValueError, "queue: acting got arrays of inconsistent lengths");
        return NULL;
    }
    const double *qs = b[QS].buf, *stg = b[STG].buf, *minth = b[MINTH].buf, *maxth = b[MAXTH].buf;
    const i64 *busy = b[BUSY].buf, *hold = b[HOLD].buf, *cooldown = b[COOLDOWN].buf;
    const uint8_t *prom = b[PROM].buf, *want = b[WANT].buf;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(L * 8));
    if (!ret) return NULL;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret);
    for (i64 i = 0; i < L; ++i) {
        double l = qs[i] + stg[i];
        int free_ = busy[i] == 0 && step > hold[i] && !prom[i];
        int over = l > maxth[i] && step > cooldown[i];
        if (free_ && (want[i] || over || l < minth[i])) out[a++] = i;
    }
    if (PyByteArray_Resize(ret, (Py_ssize_t)(a * 8)) < 0) Py_CLEAR(ret);
    return ret;
}

static PyObject *acting(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    long long step;
    PyObject *level;
    bound_t *t;
    if (!fast_args("acting", args, nargs, "LO", &step, &level) ||
        !(t = bound_of(level, ACTING, "acting's level arrays")))
        return NULL;
    return acting_core(step, t);
}

/* depth(xadj, adjncy, owner): the queue's tie-break (balancer.boundary_depth): every vertex's graph distance
 * to the nearest vertex with a neighbour on another processor, by breadth-first search from all of those at
 * once; vertices no search reaches get the largest distance + 1; all 0 when no edge is cut. int64 in a
 * bytearray. */
static PyObject *depth(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ox, *oa, *oo, *ret = NULL;
    Py_buffer bx, ba, bo;
    int hx = 0, ha = 0, ho = 0;
    if (!PyArg_ParseTuple(args, "OOO", &ox, &oa, &oo)) return NULL;
    if (!(hx = get(ox, &bx, 'i', "xadj")) || !(ha = get(oa, &ba, 'i', "adjncy")) || !(ho = get(oo, &bo, 'i', "owner")))
        goto done;
    i64 n = bo.len / 8, m = ba.len / 8;
    const i64 *xadj = bx.buf, *adj = ba.buf, *owner = bo.buf;
    if (bx.len / 8 != n + 1 || (n && (xadj[0] != 0 || xadj[n] != m))) {
        PyErr_SetString(PyExc_ValueError, "queue: depth got a graph and an owner array that do not match");
        goto done;
    }
    if (!all_in(adj, m, n, "a neighbour is")) goto done;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
    if (!ret) goto done;
    i64 *d = (i64 *)PyByteArray_AS_STRING(ret), *fifo = malloc((size_t)(n + 1) * 8);
    if (!fifo) {
        Py_CLEAR(ret);
        PyErr_NoMemory();
        goto done;
    }
    i64 head = 0, tail = 0, top = -1;
    for (i64 v = 0; v < n; ++v) {
        d[v] = -1;
        for (i64 e = xadj[v]; e < xadj[v + 1]; ++e)
            if (owner[adj[e]] != owner[v]) {
                d[v] = 0, fifo[tail++] = v;
                break;
            }
    }
    if (tail == 0) {
        memset(d, 0, (size_t)n * 8);
    } else {
        while (head < tail) {
            i64 v = fifo[head++];
            top = d[v];
            for (i64 e = xadj[v]; e < xadj[v + 1]; ++e)
                if (d[adj[e]] < 0) d[adj[e]] = d[v] + 1, fifo[tail++] = adj[e];
        }
        for (i64 v = 0; v < n; ++v)
            if (d[v] < 0) d[v] = top + 1;
    }
    free(fifo);
done:
    if (hx) PyBuffer_Release(&bx);
    if (ha) PyBuffer_Release(&ba);
    if (ho) PyBuffer_Release(&bo);
    return ret;
}

/* numpy's float64 sum (np.add.reduce of a contiguous array: 0.0 + its pairwise sum, PW_BLOCKSIZE 128), so that
 * a carve (grow()) adds as the numpy expression it replaces does, to the bit. */
static double pairwise(const double *a, i64 n) {
    if (n < 8) {
        double res = 0.;
        for (i64 i = 0; i < n; ++i) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8], res;
        i64 i;
        for (int j = 0; j < 8; ++j) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j) r[j] += a[i + j];
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += a[i];
        return res;
    }
    i64 n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

/* numpy's less for float64 (NaN last) and searchsorted(before, key, side="left") on k entries. */
static int less(double a, double b) { return a < b || (b != b && a == a); }

static i64 search_left(const double *x, i64 k, double key) {
    i64 lo = 0, hi = k;
    while (lo < hi) {
        i64 mid = lo + ((hi - lo) >> 1);
        if (less(x[mid], key)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* 1 if vertex v's row of the graph lies in adjncy (nadj entries) and its neighbours in [0, n), else 0 with a
 * ValueError */
static int row_in(const i64 *xadj, const i64 *adj, i64 v, i64 n, i64 nadj) {
    if (xadj[v] < 0 || xadj[v + 1] < xadj[v] || xadj[v + 1] > nadj) {
        PyErr_SetString(PyExc_ValueError, "queue: xadj does not match adjncy");
        return 0;
    }
    return all_in(adj + xadj[v], xadj[v + 1] - xadj[v], n, "a neighbour is");
}

/* The next layer of a breadth-first search inside a set (grow(), search()): the neighbours of the nl
 * vertices of layer that are in the set (slot > 0: position + 1) and, with avail, still marked there, sorted,
 * each once, written to next; returns how many, or -1 with an exception set (the caller then clears slot
 * for the whole set). slot is as it was after. */
static i64 next_layer(const i64 *xadj, const i64 *adj, i64 n, i64 nadj, const i64 *layer, i64 nl, i32 *slot,
                      const uint8_t *avail, i64 *next) {
    i64 nn = 0;
    for (i64 i = 0; i < nl; ++i) {
        i64 v = layer[i];
        if (!row_in(xadj, adj, v, n, nadj)) return -1;
        for (i64 e = xadj[v]; e < xadj[v + 1]; ++e) {
            i64 u = adj[e];
            if (avail && avail[u] && !slot[u]) {
                PyErr_SetString(PyExc_ValueError, "queue: search reached an available vertex not in the queue");
                return -1;
            }
            if ((!avail || avail[u]) && slot[u] > 0) next[nn++] = u, slot[u] = -slot[u];  /* marked: listed once */
        }
    }
    for (i64 i = 0; i < nn; ++i) slot[next[i]] = -slot[next[i]];
    qsort(next, (size_t)nn, 8, by_id);
    return nn;
}

/* A carve: the split of a distribution message's jobs (SBN §3) into a connected-as-possible piece of about
 * amount load and the rest. Breadth-first region growing inside ids (m distinct jobs, with their costs) from
 * its first vertex still free, layer by layer, a layer being the free neighbours of the previous one, sorted,
 * each once; of a layer the prefix whose preceding load is below amount is taken,
 * ``before = got + np.cumsum(c) - c``, ``k = np.searchsorted(before, amount)``, ``got += c[:k].sum()``; a
 * partly taken layer ends the region and the next one starts while got < amount. Writes to taken the
 * positions in ids of the vertices taken (in the order taken), then those of the rest (in ids order), and
 * returns how many were taken, or -1 with an exception set. slot (int32, one per vertex, all 0) is scratch and left
 * all 0; layer, next and c have room for m + 1 entries. */
static i64 grow(const i64 *xadj, const i64 *adj, i64 n, i64 nadj, const i64 *ids, const double *cost, i64 m,
                double amount, i32 *slot, i64 *taken, i64 *layer, i64 *next, double *c) {
    i64 k = 0;
    if (!all_in(ids, m, n, "a job is")) return -1;
    for (i64 i = 0; i < m; ++i) {
        if (slot[ids[i]]) {
            for (i64 j = 0; j < i; ++j) slot[ids[j]] = 0;
            PyErr_SetString(PyExc_ValueError, "queue: spread got a job twice");
            return -1;
        }
        slot[ids[i]] = (i32)(i + 1);  /* position + 1 of a free vertex of ids, 0 otherwise */
    }
    double got = 0.0;
    for (i64 first = 0; amount > 0 && got < amount;) {  /* a region from the first free vertex */
        while (first < m && !slot[ids[first]]) ++first;
        if (first == m) break;
        i64 nl = 1;
        layer[0] = ids[first];
        while (nl && got < amount) {
            for (i64 i = 0; i < nl; ++i) c[i] = cost[slot[layer[i]] - 1];
            /* before[i] = (got + cumsum[i]) - c[i], searched by bisection as numpy does */
            double *bef = (double *)next, cs = 0.0;
            for (i64 i = 0; i < nl; ++i) cs += c[i], bef[i] = (got + cs) - c[i];
            i64 t = search_left(bef, nl, amount);
            for (i64 i = 0; i < t; ++i) taken[k++] = slot[layer[i]] - 1, slot[layer[i]] = 0;
            got += pairwise(c, t);
            if (t < nl) break;
            i64 nn = next_layer(xadj, adj, n, nadj, layer, nl, slot, NULL, next);  /* the free neighbours */
            if (nn < 0) goto fail;
            i64 *sw = layer;
            layer = next, next = sw, nl = nn;
        }
    }
    i64 taken_k = k;
    for (i64 i = 0; i < m; ++i)
        if (slot[ids[i]]) taken[k++] = i, slot[ids[i]] = 0;
    return taken_k;
fail:
    for (i64 i = 0; i < m; ++i) slot[ids[i]] = 0;
    return -1;
}

/* The graph and broadcast tree of a split: the node's successors are kid[kstart[node ^ xr] ..] ^ xr, with their
 * subtree sizes (size, by the same index); P nodes, nkid kid entries. */
typedef struct {
    const i64 *xadj, *adj, *kstart, *kid, *size;
    i64 n, nadj, P, nkid, xr;
} split_in;

/* The split of spread() (below) of m jobs ids (distinct, with their loads tot) at node: writes spread()'s
 * int64 result (2 + 2s + m entries; out has room for 130 + m) and returns 0, or -1 with an exception set. */
static int split(const split_in *g, const i64 *ids, const double *tot, i64 m, double deficit, i64 node, i32 *slot,
                 i64 *out) {
    int ok = -1;
    i64 t = node ^ g->xr, *work = NULL;
    const i64 *kstart = g->kstart, *kid = g->kid, *size = g->size;
    if (t < 0 || t >= g->P || kstart[t] < 0 || kstart[t] > kstart[t + 1] || kstart[t + 1] > g->nkid ||
        !all_in(kid + kstart[t], kstart[t + 1] - kstart[t], g->P, "a successor is")) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: spread got a node outside the tree");
        return -1;
    }
    i64 s = kstart[t + 1] - kstart[t];
    if (s > 64) {  /* a node has at most log2 P successors */
        PyErr_SetString(PyExc_ValueError, "queue: spread got a node with more than 64 successors");
        return -1;
    }
    /* the successors' sizes (s), the rest's positions and a carve's (2m), the rest's ids, layer and next
     * (3m + 3), the rest's costs and a carve's scratch (2m + 2) */
    work = malloc((size_t)(s + 7 * m + 5) * 8);
    if (!work) {
        PyErr_NoMemory();
        return -1;
    }
    i64 *kids = out + 1, *cnt = kids + s, *pos = cnt + s + 1;
    i64 *ksz = work, *rest = ksz + s, *got = rest + m, *sub = got + m, *layer = sub + m + 1, *next = layer + m + 1;
    double *subc = (double *)(next + m + 1), *c = subc + m + 1, sizes[64] = {0};
    out[0] = s;
    for (i64 j = 0; j < s; ++j) {  /* the successors in processor order (insertion sort: a few) */
        i64 q = kid[kstart[t] + j] ^ g->xr, z = size[kid[kstart[t] + j]], i = j;
        for (; i > 0 && kids[i - 1] > q; --i) kids[i] = kids[i - 1], ksz[i] = ksz[i - 1];
        kids[i] = q, ksz[i] = z;
    }
    if (!s) {
        cnt[0] = m;
        for (i64 i = 0; i < m; ++i) pos[i] = i;
        ok = 0;
        goto done;
    }
    i64 k = grow(g->xadj, g->adj, g->n, g->nadj, ids, tot, m, deficit, slot, got, layer, next, c);
    if (k < 0) goto done;
    cnt[0] = k;
    memcpy(pos, got, (size_t)k * 8);
    i64 at = k, r = m - k;
    memcpy(rest, got + k, (size_t)r * 8);
    for (i64 i = 0; i < r; ++i) subc[i] = tot[rest[i]];
    double total = pairwise(subc, r);  /* tot[rest].sum() */
    for (i64 j = 0; j < s; ++j) sizes[j] = (double)ksz[j];
    double zsum = pairwise(sizes, s);  /* sizes.sum() */
    for (i64 j = 0; j < s; ++j) {
        i64 mine = r;
        if (j == s - 1 || r == 0) {
            memcpy(pos + at, rest, (size_t)r * 8);
        } else {
            for (i64 i = 0; i < r; ++i) sub[i] = ids[rest[i]], subc[i] = tot[rest[i]];
            mine = grow(g->xadj, g->adj, g->n, g->nadj, sub, subc, r, (sizes[j] / zsum) * total, slot, got, layer,
                        next, c);
            if (mine < 0) goto done;
            for (i64 i = 0; i < mine; ++i) pos[at + i] = rest[got[i]];
            for (i64 i = mine; i < r; ++i) rest[i - mine] = rest[got[i]];
        }
        cnt[j + 1] = mine;
        at += mine;
        r -= mine;
    }
    ok = 0;
done:
    free(work);
    return ok;
}

/* The split's buffers after xadj, adjncy: kstart, kid, size (int64); 1, or 0 with an exception set. */
static int split_of(split_in *g, const Py_buffer *b, i64 n_slot) {
    g->xadj = b[0].buf, g->adj = b[1].buf, g->kstart = b[2].buf, g->kid = b[3].buf, g->size = b[4].buf;
    g->n = n_slot, g->nadj = b[1].len / 8, g->P = b[2].len / 8 - 1, g->nkid = b[3].len / 8;
    if (b[0].len / 8 != g->n + 1 || g->P < 1 || b[4].len / 8 != g->P) {
        PyErr_SetString(PyExc_ValueError, "queue: spread got arrays of inconsistent lengths");
        return 0;
    }
    return 1;
}

/* spread(xadj, adjncy, ids, tot, deficit, kstart, kid, size, xor, node, slot): GetDistribute's split of a
 * distribution message's jobs at node (SBN §3; balancer.LevelRun._get_distribute), carves (grow()) in
 * sequence. The node's successors in the broadcast tree are kid[kstart[node ^ xor] ..] ^ xor, in processor
 * order, with their subtree sizes (size, by the same index). A node without successors keeps every job;
 * otherwise it keeps carve(ids, tot, deficit), and of the rest, r with total load ``tot[r].sum()`` (numpy's
 * pairwise sum), successor j but the last takes carve(rest, share_j) in turn, share_j = size_j /
 * sizes.sum() * that total, and the last successor the rest. Returns int64 in a bytearray: the number of
 * successors s, the successors, then s + 1 counts (kept, then each successor's), then the positions in ids
 * of each part in that order (a carved part in the order taken, the last part in ids order). */
static PyObject *spread(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { XADJ, ADJNCY, KSTART, KID, SIZE, IDS, TOT, SLOT, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "kstart", "kid", "size", "ids", "tot", "slot"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    double deficit;
    i64 node, *out = NULL;
    split_in g;
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "OOOOdOOOLLO", &o[XADJ], &o[ADJNCY], &o[IDS], &o[TOT], &deficit, &o[KSTART], &o[KID],
                          &o[SIZE], &g.xr, &node, &o[SLOT]))
        return NULL;
    if (!get_all(o, b, have, "iiiiiifn", name, NB) || !split_of(&g, b, b[SLOT].len / 4)) goto done;
    i64 m = b[IDS].len / 8;
    if (b[TOT].len / 8 != m) {
        PyErr_SetString(PyExc_ValueError, "queue: spread got arrays of inconsistent lengths");
        goto done;
    }
    out = malloc((size_t)(130 + m) * 8);
    if (!out) {
        PyErr_NoMemory();
        goto done;
    }
    if (split(&g, b[IDS].buf, b[TOT].buf, m, deficit, node, b[SLOT].buf, out) < 0) goto done;
    ret = PyByteArray_FromStringAndSize((const char *)out, (Py_ssize_t)((2 + 2 * out[0] + m) * 8));
done:
    free(out);
    release_all(b, have, NB);
    return ret;
}

/* The tree of a DJOB's origin for split(): csr(origin) (Trees.csr: kstart, kid, size, xor); the buffers are
 * kept while csr gives the same arrays (every origin, for P a power of two). 1, or 0 with an exception set. */
typedef struct {
    PyObject *arrays[3];
    Py_buffer b[3];
    int held;
} tree_cache;

static void tree_release(tree_cache *t) {
    for (int j = 0; j < t->held; ++j) PyBuffer_Release(&t->b[j]);
    t->held = 0;
}

static int tree_for(tree_cache *t, PyObject *csr, i64 origin, split_in *g, const Py_buffer *graph, i64 n_slot) {
    PyObject *r = PyObject_CallFunction(csr, "L", origin);
    if (!r) return 0;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 4) {
        PyErr_SetString(PyExc_TypeError, "queue: csr(origin) must give (kstart, kid, size, xor)");
        Py_DECREF(r);
        return 0;
    }
    int same = t->held == 3;
    for (int j = 0; j < 3 && same; ++j) same = t->arrays[j] == PyTuple_GET_ITEM(r, j);
    if (!same) {
        tree_release(t);
        Py_buffer b[5] = {graph[0], graph[1]};
        for (; t->held < 3; ++t->held) {
            t->arrays[t->held] = PyTuple_GET_ITEM(r, t->held); /* identity only: the buffer keeps it */
            if (!get(t->arrays[t->held], &t->b[t->held], 'i', "tree")) break;
        }
        if (t->held < 3) {
            Py_DECREF(r);
            return 0;
        }
        b[2] = t->b[0], b[3] = t->b[1], b[4] = t->b[2];
        if (!split_of(g, b, n_slot)) {
            Py_DECREF(r);
            return 0;
        }
    }
    g->xr = PyLong_AsLongLong(PyTuple_GET_ITEM(r, 3));
    Py_DECREF(r);
    return !(g->xr == -1 && PyErr_Occurred());
}

/* distribute(xadj, adjncy, csr, node, origins, offs, words, j, ids, wgt, comm, remap, W, qw, maxth, want, slot, Q,
 * holder (int32), queued, pinned, cw, cc, cr, stale, deg, log2, ops, i): GetDistribute at node (SBN §3;
 * balancer.LevelRun._get_distribute) for a run of DJOB messages from the j-th on, message x's jobs
 * ids[offs[x]:offs[x + 1]] from origins[x] (words[x] words), priced on node (wgt, comm, remap, by job); W is
 * node's WSysLL (0 without one), qw its QWgt (queue sorted). Per message, in order: ops[BAL, i] += words[x],
 * then += its m jobs + their degrees (the split by carves, a search over the jobs), the split of spread() at
 * deficit W - qw in the tree csr(origin) (Trees.csr; loads (wgt + comm) + remap), and the jobs node keeps
 * queued at it as _accept_jobs() queues them (holder, queued, pinned, their prices in cw, cc, cr, stale;
 * ops[SEL, i] += kept * log2[len(Q) + kept] + deg[kept].sum()), numpy's steps in numpy's order; a node without
 * successors whose QWgt is above maxth balances instead (want = True, the thrashing guard). It stops after the
 * first message whose jobs node keeps (its queue must be sorted again). ops is the (3, L) table of §5.4's
 * counts, log2 the table of _log2. Returns (the next message, [(successor, [origin, its jobs...]), ...] for
 * the non-empty parts, the new queue Q + kept (a bytearray of int64) or None when none is kept, how many
 * kept, how many handed on, how many guards, the last message's number of successors). */
static PyObject *distribute(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { XADJ, ADJNCY, ORIG, OFFS, WORDS, IDS, WGT, COMM, REMAP, WANT, SLOT, QQ, HOLDER, QUEUED, PINNED, CW, CC, CR,
           STALE, DEG, LOG2, OPS, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "origins", "offs", "words", "ids", "wgt", "comm",
                                         "remap", "want", "slot", "Q", "holder", "queued", "pinned", "cw", "cc",
                                         "cr", "stale", "deg", "log2", "ops"};
    PyObject *o[NB], *csr;
    Py_buffer b[NB];
    int have[NB] = {0};
    double W, qw, maxth;
    i64 node, j, i, *out = NULL;
    double *tot = NULL;
    split_in g;
    tree_cache tc = {{NULL}, {{0}}, 0};
    PyObject *ret = NULL, *sends = NULL, *q = NULL;
    if (!PyArg_ParseTuple(args, "OOOLOOOLOOOOdddOOOOOOOOOOOOOL", &o[XADJ], &o[ADJNCY], &csr, &node, &o[ORIG],
                          &o[OFFS], &o[WORDS], &j, &o[IDS], &o[WGT], &o[COMM], &o[REMAP], &W, &qw, &maxth, &o[WANT],
                          &o[SLOT], &o[QQ], &o[HOLDER], &o[QUEUED], &o[PINNED], &o[CW], &o[CC], &o[CR], &o[STALE],
                          &o[DEG], &o[LOG2], &o[OPS], &i))
        return NULL;
    if (!get_all(o, b, have, "iiiiiifffbninbbfffbiff", name, NB)) goto done;
    i64 nm = b[ORIG].len / 8, m = b[IDS].len / 8, n = b[XADJ].len / 8 - 1, k = b[QQ].len / 8, L = b[OPS].len / 24;
    if (b[OFFS].len / 8 != nm + 1 || b[WORDS].len / 8 != nm || b[WGT].len / 8 != m || b[COMM].len / 8 != m ||
        b[REMAP].len / 8 != m || b[HOLDER].len / 4 != n || b[QUEUED].len != n || b[PINNED].len != n ||
        b[CW].len / 8 != n || b[CC].len / 8 != n || b[CR].len / 8 != n || b[STALE].len != n ||
        b[DEG].len / 8 != n || b[SLOT].len / 4 != n || b[LOG2].len / 8 < k + m + 1 || b[OPS].len != 24 * L ||
        i < 0 || i >= L || b[WANT].len != L || j < 0 || j >= nm) {
        PyErr_SetString(PyExc_ValueError, "queue: distribute got arrays of inconsistent lengths");
        goto done;
    }
    const i64 *all = b[IDS].buf, *deg = b[DEG].buf, *origins = b[ORIG].buf, *offs = b[OFFS].buf,
              *words = b[WORDS].buf;
    const double *wgt_all = b[WGT].buf, *comm_all = b[COMM].buf, *remap_all = b[REMAP].buf, *lg = b[LOG2].buf,
                 *mx = &maxth;
    double *ops = b[OPS].buf;
    if (!all_in(all, m, n, "a job is") || offs[0] != 0 || offs[nm] != m) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: distribute's offsets do not cover the jobs");
        goto done;
    }
    out = malloc((size_t)(130 + m) * 8);
    tot = malloc((size_t)(m + 1) * 8);
    sends = PyList_New(0);
    if (!out || !tot || !sends) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    i64 kept = 0, sent = 0, guards = 0, s = 0;
    for (; j < nm && !kept; ++j) {
        i64 a = offs[j], mj = offs[j + 1] - a, origin = origins[j];
        const i64 *ids = all + a;
        const double *wgt = wgt_all + a, *comm = comm_all + a, *remap = remap_all + a;
        if (mj < 0 || !tree_for(&tc, csr, origin, &g, b, n)) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: distribute's offsets decrease");
            goto done;
        }
        ops[L + i] += (double)words[j]; /* BAL: the message's words */
        i64 d = 0;
        for (i64 x = 0; x < mj; ++x) tot[x] = (wgt[x] + comm[x]) + remap[x], d += deg[ids[x]];
        ops[L + i] += (double)(mj + d); /* BAL: the split by carves, a search over the jobs */
        if (split(&g, ids, tot, mj, W - qw, node, b[SLOT].buf, out) < 0) goto done;
        s = out[0];
        i64 *cnt = out + 1 + s, *pos = cnt + s + 1, at = cnt[0];
        kept = cnt[0];
        for (i64 y = 0; y < s; ++y) {
            i64 c = cnt[y + 1];
            if (c) {
                PyObject *f = PyList_New(c + 1), *e = NULL;
                if (f) {
                    PyList_SET_ITEM(f, 0, PyLong_FromLongLong(origin));
                    for (i64 x = 0; x < c; ++x) PyList_SET_ITEM(f, x + 1, PyLong_FromLongLong(ids[pos[at + x]]));
                    e = Py_BuildValue("(LN)", out[1 + y], f);
                }
                if (!e || PyList_Append(sends, e) < 0) {
                    Py_XDECREF(e);
                    goto done;
                }
                Py_DECREF(e);
                if (PyErr_Occurred()) goto done;
            }
            at += c;
            sent += c;
        }
        if (kept) {  /* _accept_jobs */
            q = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((k + kept) * 8));
            if (!q) goto done;
            i64 *nq = (i64 *)PyByteArray_AS_STRING(q);
            i32 *holder = b[HOLDER].buf;
            uint8_t *queued = b[QUEUED].buf, *pinned = b[PINNED].buf, *stale = b[STALE].buf;
            double *cw = b[CW].buf, *cc = b[CC].buf, *cr = b[CR].buf;
            memcpy(nq, b[QQ].buf, (size_t)k * 8);
            i64 dk = 0;
            for (i64 x = 0; x < kept; ++x) {
                i64 v = ids[pos[x]];
                nq[k + x] = v;
                holder[v] = (i32)node, queued[v] = 1, pinned[v] = 0;
                cw[v] = wgt[pos[x]], cc[v] = comm[pos[x]], cr[v] = remap[pos[x]], stale[v] = 1;
                dk += deg[v];
            }
            ops[i] += (double)kept * lg[k + kept] + (double)dk;  /* SEL: the heap insertions */
        } else if (!s && qw > *mx) {  /* the thrashing guard: balance instead of distributing further */
            ((uint8_t *)b[WANT].buf)[i] = 1;
            ++guards;
        }
    }
    if (!q) {
        q = Py_None;
        Py_INCREF(q);
    }
    ret = Py_BuildValue("LNNLLLL", j, sends, q, kept, sent, guards, s);
    sends = q = NULL;
done:
    Py_XDECREF(sends);
    Py_XDECREF(q);
    free(out);
    free(tot);
    tree_release(&tc);
    release_all(b, have, NB);
    return ret;
}

/* The queue's prices on q made when the search first reads them (select(): only R and the layers it reaches are
 * priced): costs_if_on's kernel (the view's C_API) on one vertex at a time, each vertex's prices its own. */
typedef struct {
    const view_api *api;
    priced_graph g;
    const i64 *queue, *base, *kk, *kv;
    i64 q, n, nk;
    double *cq, *qc, *qr;
    uint8_t *have;
} lazy_q;

/* position j of the queue priced on q (once); 0, or -1 with an error */
static int ensure(lazy_q *z, i64 j) {
    if (!z || z->have[j]) return 0;
    double w, c, r;
    if (z->api->costs(&z->g, z->queue + j, 1, &z->q, 1, z->base, z->n, z->kk, z->kv, z->nk, &w, &c, &r) < 0)
        return -1;
    z->cq[j] = (w + c) + r, z->qc[j] = c, z->qr[j] = r, z->have[j] = 1;
    return 0;
}

/* One round of the §3.4 selection (selection.select) from the random subset R (positions in queue). MinV is
 * the vertex of R with the smallest differential edge cut, ``delta_cut`` (harness.measure.metrics) of its
 * costs on p (cw, cc, cr, by vertex) against those on q (qc, qr, by position), np.argmin's choice (the first
 * smallest; the first NaN if any). Then the breadth-first search from MinV over the vertices of queue
 * (distinct) still marked in avail (bool, by vertex; only queued vertices are). A layer's vertices move in
 * order while q has received less than amount before each, p has shed less than cap_p before it, and q would
 * not end heavier than p (running sums in layer order, double arithmetic); the moved ones leave avail; a
 * partly moved layer ends the search (*stopped = 1), a wholly moved one is followed by its vertices'
 * neighbours still in avail, sorted, each once. Costs on p: cw + cc + cr; on q: cq (by position). slot
 * (int32, one per vertex, all 0) is scratch and left all 0; layer and next: m + 1 int64 each. The vertices
 * moved are written to moved, in order; returns how many, or -1 with an exception set. With z, the prices on q
 * (cq, qc, qr: z's) are made as they are read (ensure). */
static i64 search_round(const i64 *xadj, const i64 *adj, i64 n, i64 nadj, const i64 *queue, i64 m, const double *cq,
                        const double *qc, const double *qr, const i64 *R, i64 nr, uint8_t *avail, const double *cw,
                        const double *cc, const double *cr, i32 *slot, double *sp, double *sq, double amount,
                        double cap_p, double load_p, double base_q, i64 *layer, i64 *next, i64 *moved, i64 *stopped,
                        lazy_q *z) {
    i64 first = R[0];  /* MinV: delta_cut(on p, on q), normalized by Wgt where positive; np.argmin */
    double best = 0.0, sent_p = *sp, sent_q = *sq;
    for (i64 i = 0; i < nr; ++i) {
        if (ensure(z, R[i]) < 0) return -1;
        i64 v = queue[R[i]];
        double d = (qr[R[i]] - cr[v]) + (qc[R[i]] - cc[v]), w = cw[v];
        if (d > 0) d = d / (w != w ? w : (w > 1e-300 ? w : 1e-300));  /* np.maximum(wgt, 1e-300) */
        if (d != d) {
            first = R[i];
            break;
        }
        if (i == 0 || d < best) best = d, first = R[i];
    }
    i64 k = 0;
    *stopped = 0;
    for (i64 i = 0; i < m; ++i) slot[queue[i]] = (i32)(i + 1);  /* position + 1 in queue */
    i64 nl = 1;
    layer[0] = queue[first];
    while (nl) {
        double run_p = 0.0, run_q = 0.0, now_p = sent_p, now_q = sent_q;
        i64 t = 0;
        int err = 0;
        for (; t < nl; ++t) {  /* how much of the layer fits */
            i64 v = layer[t];
            if ((err = ensure(z, slot[v] - 1) < 0)) break;
            double a = (cw[v] + cc[v]) + cr[v], c = cq[slot[v] - 1];
            double before_p = sent_p + run_p;
            run_p += a;
            run_q += c;
            double after_p = sent_p + run_p, after_q = sent_q + run_q;
            if (!(after_q - c < amount && before_p < cap_p && base_q + after_q <= load_p - after_p)) break;
            now_p = after_p, now_q = after_q;
        }
        if (err) {
            k = -1;
            break;
        }
        sent_p = now_p, sent_q = now_q;
        for (i64 i = 0; i < t; ++i) avail[layer[i]] = 0, moved[k++] = layer[i];
        if (t < nl) {
            *stopped = 1;
            break;
        }
        i64 nn = next_layer(xadj, adj, n, nadj, layer, nl, slot, avail, next);  /* still available */
        if (nn < 0) {
            k = -1;
            break;
        }
        i64 *sw = layer;
        layer = next, next = sw, nl = nn;
    }
    for (i64 i = 0; i < m; ++i) slot[queue[i]] = 0;
    *sp = sent_p, *sq = sent_q;
    return k;
}

/* search(xadj, adjncy, queue, cq, qc, qr, R, avail, cw, cc, cr, slot, sent_p, sent_q, amount, cap_p, load_p,
 * base_q): one round of the §3.4 selection (search_round above; the reference path's, selection.select with
 * native False). Returns, in a bytearray, whether the search stopped (a layer not wholly moved), the number
 * moved, sent_p and sent_q after them (float64), then the vertices moved in order (int64). */
static PyObject *search(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { XADJ, ADJNCY, QUEUE, CQ, QC, QR, RS, AVAIL, CW, CC, CR, SLOT, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "queue", "cq", "qc", "qr", "R", "avail", "cw", "cc",
                                         "cr", "slot"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    double sent_p, sent_q, amount, cap_p, load_p, base_q;
    PyObject *ret = NULL;
    i64 *layer = NULL, *next = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOdddddd", &o[XADJ], &o[ADJNCY], &o[QUEUE], &o[CQ], &o[QC], &o[QR],
                          &o[RS], &o[AVAIL], &o[CW], &o[CC], &o[CR], &o[SLOT], &sent_p, &sent_q, &amount, &cap_p,
                          &load_p, &base_q))
        return NULL;
    if (!get_all(o, b, have, "iiifffibfffn", name, NB)) goto done;
    i64 m = b[QUEUE].len / 8, n = b[SLOT].len / 4, nadj = b[ADJNCY].len / 8, nr = b[RS].len / 8;
    if (b[CQ].len / 8 != m || b[QC].len / 8 != m || b[QR].len / 8 != m || b[XADJ].len / 8 != n + 1 ||
        b[AVAIL].len != n || b[CW].len / 8 != n || b[CC].len / 8 != n || b[CR].len / 8 != n || nr < 1) {
        PyErr_SetString(PyExc_ValueError, "queue: search got arrays of inconsistent lengths");
        goto done;
    }
    if (!all_in(b[QUEUE].buf, m, n, "a queued vertex is") || !all_in(b[RS].buf, nr, m, "a position of R is"))
        goto done;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((4 + m) * 8));
    layer = malloc((size_t)(m + 1) * 8), next = malloc((size_t)(m + 1) * 8);
    if (!ret || !layer || !next) {
        Py_CLEAR(ret);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), stopped;
    i64 k = search_round(b[XADJ].buf, b[ADJNCY].buf, n, nadj, b[QUEUE].buf, m, b[CQ].buf, b[QC].buf, b[QR].buf,
                         b[RS].buf, nr, b[AVAIL].buf, b[CW].buf, b[CC].buf, b[CR].buf, b[SLOT].buf, &sent_p, &sent_q,
                         amount, cap_p, load_p, base_q, layer, next, out + 4, &stopped, NULL);
    if (k < 0) {
        Py_CLEAR(ret);
        goto done;
    }
    out[0] = stopped, out[1] = k;
    memcpy(out + 2, &sent_p, 8);
    memcpy(out + 3, &sent_q, 8);
done:
    free(layer);
    free(next);
    release_all(b, have, NB);
    return ret;
}

/* djobs(values, offsets, m, k): a run of DJOB messages m .. k - 1 of a delivered batch (int64 words, a message
 * [code, origin, jobs...] from offsets[x] to offsets[x + 1]) read for distribute(): one bytearray of int64, the
 * r = k - m origins, the r sizes (words, the code included), the r + 1 offsets of each message's jobs in the
 * jobs, then the jobs concatenated */
static PyObject *djobs(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *vo, *oo;
    Py_ssize_t m, k;
    if (!PyArg_ParseTuple(args, "OOnn", &vo, &oo, &m, &k)) return NULL;
    Py_buffer b[2];
    if (!get(vo, &b[0], 'i', "values")) return NULL;
    if (!get(oo, &b[1], 'i', "offsets")) {
        PyBuffer_Release(&b[0]);
        return NULL;
    }
    const i64 *val = b[0].buf, *off = b[1].buf;
    PyObject *ret = NULL;
    if (m < 0 || k <= m || k >= b[1].len / 8 || off[k] > b[0].len / 8) {
        PyErr_SetString(PyExc_ValueError, "djobs: messages out of range");
        goto done;
    }
    i64 r = k - m, total = 0;
    for (i64 x = m; x < k; ++x) total += off[x + 1] - off[x] - 2;
    if (!(ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(i64) * (3 * r + 1 + total)))) goto done;
    i64 *origin = (i64 *)PyByteArray_AS_STRING(ret), *size = origin + r, *offs = size + r, *jobs = offs + r + 1;
    offs[0] = 0;
    for (i64 x = m, j = 0; x < k; ++x, ++j) {
        i64 n = off[x + 1] - off[x] - 2;
        origin[j] = val[off[x] + 1];
        size[j] = n + 2;
        memcpy(jobs + offs[j], val + off[x] + 2, n * sizeof(i64));
        offs[j + 1] = offs[j] + n;
    }
done:
    PyBuffer_Release(&b[0]);
    PyBuffer_Release(&b[1]);
    return ret;
}

/* numpy's bitgen_t (numpy/random/bitgen.h), from a BitGenerator's capsule */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/* numpy's random_bounded_uint64(bitgen, 0, rng, 0, false) for rng < 2^32: Lemire's rejection on 32 bits */
static i64 bounded(bitgen_t *g, uint32_t rng) {
    if (rng == 0) return 0;
    if (rng == UINT32_MAX) return g->next_uint32(g->state);
    const uint32_t excl = rng + 1;
    uint64_t m = (uint64_t)g->next_uint32(g->state) * excl;
    uint32_t left = (uint32_t)m;
    if (left < excl) {
        const uint32_t threshold = (UINT32_MAX - rng) % excl;
        while (left < threshold) {
            m = (uint64_t)g->next_uint32(g->state) * excl;
            left = (uint32_t)m;
        }
    }
    return (i64)(m >> 32);
}

/* numpy's Generator._shuffle_int: swap data[i] with a draw below it, i = n - 1 down to first */
static void shuffle_int(bitgen_t *g, i64 n, i64 first, i64 *data) {
    for (i64 i = n - 1; i >= first; --i) {
        i64 j = bounded(g, (uint32_t)i), t = data[j];
        data[j] = data[i];
        data[i] = t;
    }
}

/* choice(capsule, pool, size): rng.choice(pool, size=size, replace=False) of numpy's Generator (2.x; the
 * §3.4 random subset R), the same draws from the same stream: Floyd's algorithm with a hash set, then a
 * shuffle; a tail shuffle of 0..n - 1 when n > 10,000 and size > n // 50. 0 < size <= n < 2^32.
 * tests/test_sbn_queue.py compares it with rng.choice. */
static int choose(bitgen_t *g, const i64 *pool, i64 n, i64 size, i64 *out) {
    i64 *idx = NULL;
    uint64_t *set = NULL;
    int ok = 0;
    if (size <= 0 || size > n || n >= (i64)UINT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "choice: 0 < size <= len(pool) < 2**32");
        return 0;
    }
    if (n > 10000 && size > n / 50) {
        if (!(idx = malloc(n * sizeof(i64)))) goto nomem;
        for (i64 i = 0; i < n; ++i) idx[i] = i;
        shuffle_int(g, n, n - size > 1 ? n - size : 1, idx);
        memmove(idx, idx + (n - size), size * sizeof(i64));
    } else {
        uint64_t mask = (uint64_t)(1.2 * size);
        for (int k = 1; k <= 32; k <<= 1) mask |= mask >> k;  /* numpy's _gen_mask */
        if (!(idx = malloc(size * sizeof(i64))) || !(set = malloc((mask + 1) * sizeof(uint64_t)))) goto nomem;
        memset(set, 0xff, (mask + 1) * sizeof(uint64_t));
        for (i64 j = n - size; j < n; ++j) {
            uint64_t val = (uint64_t)bounded(g, (uint32_t)j), loc = val & mask;
            while (set[loc] != UINT64_MAX && set[loc] != val) loc = (loc + 1) & mask;
            if (set[loc] == UINT64_MAX) {
                set[loc] = val;
            } else {  /* drawn before: j instead */
                val = (uint64_t)j;
                for (loc = val & mask; set[loc] != UINT64_MAX;) loc = (loc + 1) & mask;
                set[loc] = val;
            }
            idx[j - n + size] = (i64)val;
        }
        shuffle_int(g, size, 1, idx);
    }
    for (i64 k = 0; k < size; ++k) out[k] = pool[idx[k]];
    ok = 1;
    goto done;
nomem:
    PyErr_NoMemory();
done:
    free(idx);
    free(set);
    return ok;
}

static PyObject *choice(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *cap, *po;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "OOn", &cap, &po, &size)) return NULL;
    bitgen_t *g = PyCapsule_GetPointer(cap, "BitGenerator");
    if (!g) return NULL;
    Py_buffer b;
    if (!get(po, &b, 'i', "pool")) return NULL;
    PyObject *ret = PyByteArray_FromStringAndSize(NULL, (size > 0 ? size : 0) * (Py_ssize_t)sizeof(i64));
    if (ret && !choose(g, b.buf, b.len / 8, size, (i64 *)PyByteArray_AS_STRING(ret))) Py_CLEAR(ret);
    PyBuffer_Release(&b);
    return ret;
}

/* the value of x in a processor's view (harness LocationView: base, its sorted learned keys kk, each once, and
 * their values kv): kv's where x is a key, else base[x] (the view's lookup) */
static i64 seen_at(const i64 *base, const i64 *kk, const i64 *kv, i64 m, i64 x) {
    const i64 *hit = m ? bsearch(&x, kk, (size_t)m, sizeof *kk, by_id) : NULL;
    return hit ? kv[hit - kk] : base[x];
}

/* holders()' processors, marked in seen (P, zeroed): their count, or -1 with an error */
static i64 holders_core(const i64 *xadj, const i64 *adj, i64 n, i64 nadj, const i64 *verts, i64 k, const i64 *base,
                        const i64 *kk, const i64 *kv, i64 nk, i64 P, i64 p, uint8_t *seen) {
    i64 count = 0;
    if (!all_in(verts, k, n, "a vertex is")) return -1;
    for (i64 i = 0; i < k; ++i) {
        i64 v = verts[i];
        if (!row_in(xadj, adj, v, n, nadj)) return -1;
        for (i64 e = xadj[v]; e < xadj[v + 1]; ++e) {
            i64 x = seen_at(base, kk, kv, nk, adj[e]);
            if (x < 0 || x >= P) {
                PyErr_SetString(PyExc_ValueError, "queue: a processor is out of range");
                return -1;
            }
            count += !seen[x];
            seen[x] = 1;
        }
    }
    if (p >= 0 && p < P) count -= seen[p], seen[p] = 0;
    return count;
}

/* holders(xadj, adjncy, verts, base, kk, kv, P, p): the processors other than p that hold, in a processor's view
 * (base, kk, kv: seen_at), the data of a neighbour of verts, sorted, each once (int64; balancer._holders_at:
 * view.holders(neighbours_of(verts)) without p) */
static PyObject *holders(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    enum { XADJ, ADJNCY, VERTS, BASE, KK, KV, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "verts", "base", "kk", "kv"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long P, p;
    PyObject *ret = NULL;
    uint8_t *seen = NULL;
    if (!fast_args("holders", args, nargs, "OOOOOOLL", &o[XADJ], &o[ADJNCY], &o[VERTS], &o[BASE], &o[KK], &o[KV], &P,
                   &p))
        return NULL;
    if (!get_all(o, b, have, "iiiiii", name, NB)) goto done;
    i64 n = b[BASE].len / 8, nadj = b[ADJNCY].len / 8, k = b[VERTS].len / 8, nk = b[KK].len / 8;
    const i64 *xadj = b[XADJ].buf, *adj = b[ADJNCY].buf, *verts = b[VERTS].buf, *base = b[BASE].buf,
              *kk = b[KK].buf, *kv = b[KV].buf;
    if (b[XADJ].len / 8 != n + 1 || b[KV].len / 8 != nk || P < 1) {
        PyErr_SetString(PyExc_ValueError, "queue: holders got arrays of inconsistent lengths");
        goto done;
    }
    if (!(seen = calloc((size_t)P, 1))) {
        PyErr_NoMemory();
        goto done;
    }
    i64 count = holders_core(xadj, adj, n, nadj, verts, k, base, kk, kv, nk, P, p, seen);
    if (count < 0 || !(ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(count * 8)))) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret);
    for (i64 x = 0; x < P; ++x)
        if (seen[x]) *out++ = x;
done:
    free(seen);
    release_all(b, have, NB);
    return ret;
}

/* The rest of balancer.LevelRun._receive at p (slot i) when inbox's run took every message (its native steps, in
 * their order, on p's view after the merge): the na arrived vertices arr (a locate message, _locate: to the
 * holders of their neighbours and their homes, without p and the only server, if one; servers cleared), then
 * the queued vertices at p next to the nl vertices ch whose location p learned re-priced (affected, the view's
 * costs on p, priced) and p's queue marked unsorted and dirty. tail: bind(TAILED, xadj, adjncy, holder (int32), home0,
 * located, cwgt, pwgt, proc_of, cluster, conn, cw, cc, cr, stale, deg, sel, log2, head, unsorted, the view's base,
 * the outbox's locate list, dirty); rwgt, queued: inbox's. 0, or -1 with an error. */
static int tail_core(const bound_t *tail, PyObject *Qall, PyObject *view, const view_api *api, i64 p, i64 i, i64 P,
                     i64 word, const i64 *arr, i64 na, const i64 *ch, i64 nl, PyObject *servers,
                     const uint8_t *queued, const i64 *rwgt, i64 n) {
    enum { XADJ, ADJNCY, HOLDER, HOME0, LOCATED, CWGT, PWGT, PROC, CLUSTER, CONN, CW, CC, CR, STALE, DEG, SEL, LOG2,
           HEAD, UNSORTED, BASE, KK, KV, QALL, NB };  /* the tail's items up to BASE, then its locs and dirty */
    static const char *const name[NB] = {"xadj", "adjncy", "holder", "home0", "located", "cwgt", "pwgt", "proc_of",
                                         "cluster", "conn", "cw", "cc", "cr", "stale", "deg", "sel", "log2", "head",
                                         "unsorted", "base", "keys", "values", "Qall"};
    PyObject *o[NB], *kk = PyObject_GetAttr(view, KEYS_), *kv = PyObject_GetAttr(view, VALUES_);
    Py_buffer b[NB];
    int have[NB] = {0}, ok = -1;
    uint8_t *seen = NULL;
    i64 *near = NULL, *to = NULL, *aff = NULL;
    double *c = NULL;
    PyObject *locs = tail->obj[KK], *dirty = tail->obj[KK + 1];
    o[KK] = kk, o[KV] = kv, o[QALL] = Qall;
    if (!kk || !kv || !PyList_Check(locs) || !PyAnySet_Check(dirty)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "queue: inbox's tail is not as tail_core reads it");
        goto done;
    }
    if (!get_all(o + KK, b + KK, have + KK, "iii", name + KK, NB - KK)) goto done;
    for (int j = 0; j < KK; ++j) b[j] = tail->b[j];  /* (bound: not released here) */
    i64 L = b[SEL].len / 8, nadj = b[ADJNCY].len / 8, nk = b[KK].len / 8;
    const i64 *xadj = b[XADJ].buf, *adj = b[ADJNCY].buf, *base = b[BASE].buf, *keys = b[KK].buf, *vals = b[KV].buf;
    if (b[XADJ].len / 8 != n + 1 || b[HOLDER].len / 4 != n || b[HOME0].len / 8 != n || b[BASE].len / 8 != n ||
        b[KV].len / 8 != nk || b[CW].len / 8 != n || b[CC].len / 8 != n || b[CR].len / 8 != n ||
        b[STALE].len != n || b[DEG].len / 8 != n || b[LOCATED].len / 8 != L || b[HEAD].len / 8 != L ||
        b[UNSORTED].len != L || i < 0 || i >= L || P < 1) {
        PyErr_SetString(PyExc_ValueError, "queue: inbox's tail got arrays of inconsistent lengths");
        goto done;
    }
    if (na) {  /* _locate */
        i64 server = -1, nt = 0;
        if (PySet_GET_SIZE(servers) == 1) {
            PyObject *it = PyObject_GetIter(servers), *x = it ? PyIter_Next(it) : NULL;
            Py_XDECREF(it);
            if (!x) goto done;
            server = PyLong_AsLongLong(x);
            Py_DECREF(x);
            if (server == -1 && PyErr_Occurred()) goto done;
        }
        if (PySet_Clear(servers) < 0 || !(seen = calloc((size_t)P, 1))) goto nomem;
        i64 cnt = holders_core(xadj, adj, n, nadj, arr, na, base, keys, vals, nk, P, p, seen);
        if (cnt < 0) goto done;
        if (!(near = malloc((size_t)(cnt + 1) * 8))) goto nomem;
        for (i64 x = 0, at = 0; x < P; ++x)
            if (seen[x]) near[at++] = x;
        if (!(to = receivers_core(near, cnt, b[HOME0].buf, n, arr, na, p, server, &nt))) goto done;
        ((double *)b[LOCATED].buf)[i] += (double)(nt * word * (1 + na));
        if (nt) {
            PyObject *words = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((1 + na) * 8)), *dest = NULL, *m = NULL;
            if (words) {
                i64 *w = (i64 *)PyByteArray_AS_STRING(words);
                w[0] = p;
                memcpy(w + 1, arr, (size_t)na * 8);
                if ((dest = PyByteArray_FromStringAndSize((const char *)to, (Py_ssize_t)(nt * 8))))
                    m = Py_BuildValue("(LOO)", (long long)p, dest, words);
            }
            int bad = !m || PyList_Append(locs, m) < 0;
            Py_XDECREF(words), Py_XDECREF(dest), Py_XDECREF(m);
            if (bad) goto done;
        }
    }
    if (nl) {  /* the queued vertices around what p learned, re-priced (_price) */
        i64 u = 0;
        if (!(aff = affected_core(xadj, adj, n, nadj, ch, nl, queued, b[HOLDER].buf, p, &u))) goto done;
        if (u) {
            priced_graph g = {xadj, adj, b[CWGT].buf, b[PWGT].buf, rwgt, b[CLUSTER].buf, b[PROC].buf, b[CONN].buf,
                              n + 1, nadj, b[CWGT].len / 8, b[PWGT].len / 8, n, b[CLUSTER].len / 8, b[PROC].len / 8,
                              b[CONN].len / 8};
            i64 q = b[QALL].len / 8 - ((const i64 *)b[HEAD].buf)[i];
            if (q < 0 || q >= b[LOG2].len / 8) {
                PyErr_SetString(PyExc_ValueError, "queue: inbox's tail got a queue longer than log2's table");
                goto done;
            }
            if (!(c = malloc((size_t)(3 * u) * sizeof *c))) goto nomem;
            if (api->costs(&g, aff, u, &p, 1, base, n, keys, vals, nk, c, c + u, c + 2 * u) < 0 ||
                !priced_core(aff, u, n, c, c + u, c + 2 * u, b[CW].buf, b[CC].buf, b[CR].buf, b[STALE].buf,
                             b[DEG].buf, b[SEL].buf, i, ((const double *)b[LOG2].buf)[q]))
                goto done;
            ((uint8_t *)b[UNSORTED].buf)[i] = 1;  /* _touch */
            PyObject *x = PyLong_FromLongLong(i);
            int bad = !x || PySet_Add(dirty, x) < 0;
            Py_XDECREF(x);
            if (bad) goto done;
        }
    }
    ok = 0;
    goto done;
nomem:
    if (!PyErr_Occurred()) PyErr_NoMemory();
done:
    free(seen), free(near), free(to), free(aff), free(c);
    Py_XDECREF(kk), Py_XDECREF(kv);
    release_all(b, have, NB);
    return ok;
}

typedef struct {
    i64 to, at;
} dest_at;

static int by_dest(const void *x, const void *y) {
    const dest_at *a = x, *b = y;
    if (a->to != b->to) return (a->to > b->to) - (a->to < b->to);
    return (a->at > b->at) - (a->at < b->at);
}

/* d[0..k) (each entry's key and position) by key, each key's entries in their order (np.argsort, stable) */
static void by_key(dest_at *d, i64 k) {
    int sorted = 1;
    for (i64 i = 1; i < k && sorted; ++i) sorted = d[i].to >= d[i - 1].to;
    if (!sorted) qsort(d, (size_t)k, sizeof *d, by_dest);
}

/* groups(key, ids): balancer._groups: ids grouped by key (int64, equal lengths), keys increasing, each group's
 * ids in their order. Returns int64 [g, the g keys, the g + 1 cuts, the ids in group order]. */
static PyObject *groups(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { KEY, IDS, NB };
    static const char *const name[NB] = {"key", "ids"};
    PyObject *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    PyObject *ret = NULL;
    dest_at *d = NULL;
    if (!PyArg_ParseTuple(args, "OO", &o[KEY], &o[IDS])) return NULL;
    if (!get_all(o, b, have, "ii", name, NB)) goto done;
    i64 k = b[KEY].len / 8, g = 0;
    const i64 *key = b[KEY].buf, *ids = b[IDS].buf;
    if (b[IDS].len / 8 != k) {
        PyErr_SetString(PyExc_ValueError, "queue: groups got arrays of different lengths");
        goto done;
    }
    if (!(d = malloc((size_t)(k ? k : 1) * sizeof *d))) {
        PyErr_NoMemory();
        goto done;
    }
    for (i64 i = 0; i < k; ++i) d[i].to = key[i], d[i].at = i;
    by_key(d, k);
    for (i64 i = 0; i < k; ++i) g += i == 0 || d[i].to != d[i - 1].to;
    if (!(ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((2 + 2 * g + k) * 8)))) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), *keys = out + 1, *cuts = keys + g, *grouped = cuts + g + 1;
    out[0] = g;
    for (i64 i = 0, j = 0; i < k; ++i) {
        if (i == 0 || d[i].to != d[i - 1].to) keys[j] = d[i].to, cuts[j++] = i;
        grouped[i] = ids[d[i].at];
    }
    cuts[g] = k;
done:
    free(d);
    release_all(b, have, NB);
    return ret;
}

/* fetches(msgs, code, p, requester, ids, dest, base, kk, kv): the data requests (§3.5) p sends for requester
 * (balancer.LevelRun._fetch): one message (p, h, code, [requester, h's ids in their order], 0) appended to msgs
 * (messages.Outbox.msgs) per destination h, in increasing h. dest: each id's destination; None: the processor
 * holding its data in p's view (base, kk, kv: seen_at), never p (a RuntimeError: the view is out of date).
 * Returns the number of messages. */
/* fetches()' messages from p for requester about ids (k): to dest[i] (NULL: where p's view base, kk, kv has the
 * data), one per destination in processor order, appended to msgs. Returns how many (-1: an error set). */
static i64 send_fetches(PyObject *msgs, i64 code, i64 p, i64 requester, const i64 *ids, i64 k, const i64 *dest,
                        const i64 *base, const i64 *kk, const i64 *kv, i64 nk) {
    i64 groups = -1;
    dest_at *d = malloc((size_t)(k ? k : 1) * sizeof *d);
    if (!d) {
        PyErr_NoMemory();
        return -1;
    }
    for (i64 i = 0; i < k; ++i) {
        d[i].to = dest ? dest[i] : seen_at(base, kk, kv, nk, ids[i]), d[i].at = i;
        if (!dest && d[i].to == p) {
            PyErr_SetString(PyExc_RuntimeError, "sbn: location view out of date");
            goto done;
        }
    }
    by_key(d, k);  /* by destination, each one's ids in their order */
    i64 made = 0;
    for (i64 a = 0, e; a < k; a = e) {
        for (e = a + 1; e < k && d[e].to == d[a].to; ++e) {}
        PyObject *fields = PyList_New((Py_ssize_t)(1 + e - a)), *t = NULL;
        if (!fields) goto done;
        PyObject *x = PyLong_FromLongLong(requester);
        if (!x) {
            Py_DECREF(fields);
            goto done;
        }
        PyList_SET_ITEM(fields, 0, x);
        for (i64 j = a; j < e; ++j) {
            if (!(x = PyLong_FromLongLong(ids[d[j].at]))) {
                Py_DECREF(fields);
                goto done;
            }
            PyList_SET_ITEM(fields, 1 + j - a, x);
        }
        t = Py_BuildValue("(LLLNi)", (long long)p, (long long)d[a].to, (long long)code, fields, 0);
        if (!t || PyList_Append(msgs, t) < 0) {
            Py_XDECREF(t);
            goto done;
        }
        Py_DECREF(t);
        ++made;
    }
    groups = made;
done:
    free(d);
    return groups;
}

static PyObject *fetches(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { IDS, BASE, KK, KV, DEST, NB };
    static const char *const name[NB] = {"ids", "base", "kk", "kv", "dest"};
    PyObject *msgs, *o[NB];
    Py_buffer b[NB];
    int have[NB] = {0};
    long long code, p, requester;
    PyObject *ret = NULL;
    if (!PyArg_ParseTuple(args, "O!LLLOOOOO", &PyList_Type, &msgs, &code, &p, &requester, &o[IDS], &o[DEST],
                          &o[BASE], &o[KK], &o[KV]))
        return NULL;
    int look = o[DEST] == Py_None;
    if (!get_all(o, b, have, "iiiii", name, look ? DEST : NB)) goto done;
    i64 k = b[IDS].len / 8, n = b[BASE].len / 8, nk = b[KK].len / 8;
    const i64 *ids = b[IDS].buf;
    if (b[KV].len / 8 != nk || (!look && b[DEST].len / 8 != k)) {
        PyErr_SetString(PyExc_ValueError, "queue: fetches got arrays of inconsistent lengths");
        goto done;
    }
    if (!all_in(ids, k, n, "a requested vertex is")) goto done;
    i64 groups = send_fetches(msgs, code, p, requester, ids, k, look ? NULL : b[DEST].buf, b[BASE].buf, b[KK].buf,
                              b[KV].buf, nk);
    if (groups >= 0) ret = PyLong_FromLongLong(groups);
done:
    release_all(b, have, NB);
    return ret;
}

/* fetch_chunks(chosen, level, fetch, msgs, code, P, word), chosen: choose()'s result (its chosen vertices and their
 * processors), level: bind(FETCHING, queued, pinned, data_at, requested, holder (int32 both), xadj, adjncy, lix, fetched, req_n,
 * req_b, vlist): §3.5's data requests of the chosen chunks in one call (balancer.LevelRun._select_all): requests()'
 * list; requested[ids] = True; then per requesting processor p, in increasing order, its ids in their order: fetches()
 * from p's view (vlist[lix[p]].view's base, keys and values) for p itself, then fetched[i] += word * (2 * its messages
 * + k), req_n[i] += P - 1 and req_b[i] += (P - 1) * word * (2 + k) (i = lix[p], k its ids). Returns requests()'
 * bytearray. */
#define FETCHING "bbnbniiifffo"
static PyObject *fetch_core(PyObject *chosen, const bound_t *t, int fetch, PyObject *msgs, i64 code, i64 P, i64 word) {
    enum { LIX = NREQ, FETCHED, REQ_N, REQ_B, NB };
    static const char *const name[NB] = {"chosen", "procs", "queued", "pinned", "data_at", "requested", "holder",
                                         "xadj", "adjncy", "lix", "fetched", "req_n", "req_b"};
    PyObject *o[NB], *vlist, *ret = NULL, *view = NULL, *vo[3] = {NULL};
    Py_buffer b[NB], vb[3];
    int have[NB] = {0}, vh[3] = {0};
    dest_at *d = NULL;
    static const char *const vname[3] = {"base", "keys", "values"};
    PyObject **const vattr[3] = {&BASE_, &KEYS_, &VALUES_};  /* (their names interned) */
    chosen_t c;
    o[R_CHOSEN] = chosen;
    if (!get_all(o, b, have, "i", name, R_PROCS) || !chosen_of(&b[R_CHOSEN], &c)) goto done;
    b[R_PROCS] = b[R_CHOSEN];  /* (views into choose()'s buffer: only the first is released) */
    b[R_CHOSEN].buf = (void *)c.chosen, b[R_CHOSEN].len = c.got * 8;
    b[R_PROCS].buf = (void *)c.procs, b[R_PROCS].len = c.got * 8;
    memcpy(b + R_QUEUED, t->b, (NB - R_QUEUED) * sizeof *b);  /* (bound: not released here) */
    vlist = t->obj[NB - R_QUEUED];
    if (!(ret = request_list(b, fetch))) goto done;
    i64 L = b[FETCHED].len / 8, np_ = b[LIX].len / 8;
    if (b[REQ_N].len / 8 != L || b[REQ_B].len / 8 != L || !PyList_Check(vlist) || PyList_GET_SIZE(vlist) != L) {
        PyErr_SetString(PyExc_ValueError, "queue: fetch_chunks got arrays of inconsistent lengths");
        goto fail;
    }
    const i64 *out = (const i64 *)PyByteArray_AS_STRING(ret), *lix = b[LIX].buf;
    i64 m = out[1];
    const i64 *ids = out + 2, *rq = out + 2 + m;
    uint8_t *requested = b[R_REQUESTED].buf;
    double *fetched = b[FETCHED].buf, *req_n = b[REQ_N].buf, *req_b = b[REQ_B].buf;
    for (i64 j = 0; j < m; ++j) requested[ids[j]] = 1;
    if (!(d = malloc((size_t)(m ? 2 * m : 1) * sizeof *d))) {
        PyErr_NoMemory();
        goto fail;
    }
    for (i64 j = 0; j < m; ++j) d[j].to = rq[j], d[j].at = j;
    by_key(d, m);  /* by requester, each one's ids in their order (balancer._groups) */
    i64 *part = (i64 *)(d + m);
    for (i64 a = 0, e; a < m; a = e) {
        i64 p = d[a].to;
        for (e = a + 1; e < m && d[e].to == p; ++e) {}
        for (i64 j = a; j < e; ++j) part[j - a] = ids[d[j].at];
        i64 i = p >= 0 && p < np_ ? lix[p] : -1, k = e - a;
        if (i < 0 || i >= L) {
            PyErr_SetString(PyExc_ValueError, "queue: a requesting processor is not the rank's");
            goto fail;
        }
        if (!(view = PyObject_GetAttr(PyList_GET_ITEM(vlist, i), VIEW_))) goto fail;
        for (int t = 0; t < 3; ++t) {
            if (!(vo[t] = PyObject_GetAttr(view, *vattr[t])) || !get(vo[t], &vb[t], 'i', vname[t])) goto fail;
            vh[t] = 1;
        }
        i64 nk = vb[1].len / 8;
        if (vb[2].len / 8 != nk) {
            PyErr_SetString(PyExc_ValueError, "queue: a view's keys and values differ in length");
            goto fail;
        }
        i64 groups = send_fetches(msgs, code, p, p, part, k, NULL, vb[0].buf, vb[1].buf, vb[2].buf, nk);
        if (groups < 0) goto fail;
        fetched[i] += (double)(word * (2 * groups + k));
        req_n[i] += (double)(P - 1);
        req_b[i] += (double)((P - 1) * word * (2 + k));
        for (int t = 0; t < 3; ++t) {
            if (vh[t]) PyBuffer_Release(&vb[t]), vh[t] = 0;
            Py_CLEAR(vo[t]);
        }
        Py_CLEAR(view);
    }
    goto done;
fail:
    Py_CLEAR(ret);
done:
    for (int t = 0; t < 3; ++t) {
        if (vh[t]) PyBuffer_Release(&vb[t]);
        Py_XDECREF(vo[t]);
    }
    Py_XDECREF(view);
    free(d);
    release_all(b, have, NB);
    return ret;
}

static PyObject *fetch_chunks(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *chosen, *msgs, *level;
    int fetch;
    long long code, P, word;
    bound_t *t;
    if (!fast_args("fetch_chunks", args, nargs, "OOpOLLL", &chosen, &level, &fetch, &msgs, &code, &P, &word))
        return NULL;
    if (!PyList_Check(msgs)) {
        PyErr_SetString(PyExc_TypeError, "queue: fetch_chunks' msgs is a list");
        return NULL;
    }
    if (!(t = bound_of(level, FETCHING, "fetch_chunks' level arrays"))) return NULL;
    return fetch_core(chosen, t, fetch, msgs, code, P, word);
}

/* select(xadj, adjncy, queue, priced, avail, cw, cc, cr, slot, base, kk, kv, capsule, q, near_q, subset,
 * max_rounds, amount, cap_p, load_p, base_q), priced: (cwgt, pwgt, rwgt, proc_of, cluster, conn, the view's C_API):
 * selection.select's rounds (§3.4) in one call, numpy's steps in numpy's order: the queue priced on q
 * (costs_if_on's kernel on p's view base, kk, kv, each position as the search first reads it: cq = qw + qc + qr),
 * each vertex's degree and,
 * with near_q, whether a neighbour's data is at q in p's view (base, kk, kv); per round, while q has received
 * less than amount and p has shed less than cap_p: the pool (the available positions; the near ones when any
 * is), R (the pool, or rng.choice(pool, subset, replace=False) from the capsule's stream), Σ deg over R, and
 * search_round from it, until a search stops or the pool is empty. Returns, in a bytearray of int64, the
 * number moved, Σ over rounds of Σ deg[R] (§5.4's δ_r), Σ deg over the vertices moved, sent_p and sent_q
 * (float64), then the vertices moved in order. With pinned and fixed (bool by vertex; None: avail as given), avail is first marked on the queued
 * vertices in neither (balancer.LevelRun._select's ~(pinned | fixed)) and cleared on them again after. */
static PyObject *select_(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { XADJ, ADJNCY, QUEUE, CWGT, PWGT, RWGT, PROC, CLUSTER, CONN, AVAIL, CW, CC, CR, SLOT, BASE, KK, KV, PINNED,
           FIXED, NB };
    static const char *const name[NB] = {"xadj", "adjncy", "queue", "cwgt", "pwgt", "rwgt", "proc_of", "cluster",
                                         "conn", "avail", "cw", "cc", "cr", "slot", "base", "kk", "kv", "pinned",
                                         "fixed"};
    PyObject *o[NB], *cap, *viewcap;
    Py_buffer b[NB];
    int have[NB] = {0}, near_q, marked = 0;
    long long q, subset, rounds;
    double amount, cap_p, load_p, base_q, sent_p = 0.0, sent_q = 0.0;
    PyObject *ret = NULL;
    i64 *work = NULL;
    double *cq = NULL;
    uint8_t *have_q = NULL;
    const view_api *api;
    o[PINNED] = o[FIXED] = Py_None;
    if (!PyArg_ParseTuple(args, "OOO(OOOOOOO)OOOOOOOOOLpLLdddd|OO", &o[XADJ], &o[ADJNCY], &o[QUEUE], &o[CWGT],
                          &o[PWGT], &o[RWGT], &o[PROC], &o[CLUSTER], &o[CONN], &viewcap, &o[AVAIL], &o[CW], &o[CC],
                          &o[CR], &o[SLOT], &o[BASE], &o[KK], &o[KV], &cap, &q, &near_q, &subset, &rounds, &amount,
                          &cap_p, &load_p, &base_q, &o[PINNED], &o[FIXED]))
        return NULL;
    bitgen_t *g = PyCapsule_GetPointer(cap, "BitGenerator");
    if (!g || !(api = view_api_of(viewcap))) return NULL;
    int lock = o[PINNED] != Py_None;
    if (lock != (o[FIXED] != Py_None)) {
        PyErr_SetString(PyExc_TypeError, "queue: select takes pinned and fixed together");
        return NULL;
    }
    if (!get_all(o, b, have, "iiiiiififbfffniiirr", name, lock ? NB : PINNED)) goto done;
    i64 m = b[QUEUE].len / 8, n = b[SLOT].len / 4, nadj = b[ADJNCY].len / 8, nk = b[KK].len / 8;
    const i64 *xadj = b[XADJ].buf, *adj = b[ADJNCY].buf, *queue = b[QUEUE].buf, *base = b[BASE].buf,
              *kk = b[KK].buf, *kv = b[KV].buf;
    uint8_t *avail = b[AVAIL].buf;
    if (b[XADJ].len / 8 != n + 1 ||
        b[AVAIL].len != n || b[CW].len / 8 != n || b[CC].len / 8 != n || b[CR].len / 8 != n ||
        b[BASE].len / 8 != n || b[KV].len / 8 != nk || subset < 1 ||
        (lock && (b[PINNED].len != n || b[FIXED].len != n))) {
        PyErr_SetString(PyExc_ValueError, "queue: select got arrays of inconsistent lengths");
        goto done;
    }
    if (!all_in(queue, m, n, "a queued vertex is")) goto done;
    if (lock) {
        const uint8_t *pinned = b[PINNED].buf, *fixed = b[FIXED].buf;
        for (i64 j = 0; j < m; ++j) avail[queue[j]] = !(pinned[queue[j]] | fixed[queue[j]]);
        marked = 1;
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((5 + m) * 8));
    /* work: deg (m), near (m), pool (m), R (m), layer (m + 1), next (m + 1); cq, qc, qr (m each) */
    work = malloc((size_t)(6 * m + 2) * 8), cq = malloc((size_t)(3 * m + 1) * 8), have_q = calloc((size_t)m + 1, 1);
    if (!ret || !work || !cq || !have_q) {
        Py_CLEAR(ret);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), *deg = work, *nr = work + m, *pool = work + 2 * m,
        *R = work + 3 * m, *layer = work + 4 * m, *next = work + 5 * m + 1, k = 0, evaluated = 0, nnear = 0;
    lazy_q z = {api,
                {xadj, adj, b[CWGT].buf, b[PWGT].buf, b[RWGT].buf, b[CLUSTER].buf, b[PROC].buf, b[CONN].buf, n + 1,
                 nadj, b[CWGT].len / 8, b[PWGT].len / 8, b[RWGT].len / 8, b[CLUSTER].len / 8, b[PROC].len / 8,
                 b[CONN].len / 8},
                queue, base, kk, kv, q, n, nk, cq, cq + m, cq + 2 * m, have_q};
    for (i64 j = 0; j < m; ++j) {
        i64 v = queue[j], hit = 0;
        if (xadj[v] < 0 || xadj[v + 1] < xadj[v] || xadj[v + 1] > nadj) {
            PyErr_SetString(PyExc_ValueError, "queue: xadj does not match adjncy");
            goto fail;
        }
        deg[j] = xadj[v + 1] - xadj[v];
        if (near_q)
            for (i64 e = xadj[v]; e < xadj[v + 1] && !hit; ++e) {
                if (adj[e] < 0 || adj[e] >= n) {
                    PyErr_SetString(PyExc_ValueError, "queue: a neighbour is out of range");
                    goto fail;
                }
                hit = seen_at(base, kk, kv, nk, adj[e]) == q;
            }
        nr[j] = hit, nnear += hit;
    }
    for (i64 r = 0; r < rounds && !(sent_q >= amount || sent_p >= cap_p); ++r) {
        i64 np_ = 0, t = 0;
        for (i64 j = 0; j < m; ++j)
            if (avail[queue[j]]) ++np_, t += nr[j];
        for (i64 j = 0, u = 0; j < m; ++j)  /* the near ones when any is */
            if (avail[queue[j]] && (!t || nr[j])) pool[u++] = j;
        if (t) np_ = t;
        if (!np_) break;
        i64 size = np_ <= subset ? np_ : subset, stopped;
        if (np_ <= subset) memcpy(R, pool, (size_t)np_ * 8);
        else if (!choose(g, pool, np_, size, R)) goto fail;
        for (i64 i = 0; i < size; ++i) evaluated += deg[R[i]];
        i64 got = search_round(xadj, adj, n, nadj, queue, m, cq, cq + m, cq + 2 * m, R, size, avail, b[CW].buf,
                               b[CC].buf, b[CR].buf, b[SLOT].buf, &sent_p, &sent_q, amount, cap_p, load_p, base_q,
                               layer, next, out + 5 + k, &stopped, &z);
        if (got < 0) goto fail;
        k += got;
        if (stopped) break;
    }
    i64 dv = 0;
    for (i64 i = 0; i < k; ++i) dv += xadj[out[5 + i] + 1] - xadj[out[5 + i]];
    out[0] = k, out[1] = evaluated, out[2] = dv;
    memcpy(out + 3, &sent_p, 8);
    memcpy(out + 4, &sent_q, 8);
    goto done;
fail:
    Py_CLEAR(ret);
done:
    if (marked) {  /* the queued vertices unmarked again */
        uint8_t *av = b[AVAIL].buf;
        const i64 *qv = b[QUEUE].buf;
        for (i64 j = 0, m = b[QUEUE].len / 8; j < m; ++j) av[qv[j]] = 0;
    }
    free(work);
    free(cq);
    free(have_q);
    release_all(b, have, NB);
    return ret;
}

/* locates(locs): a superstep's locate messages (messages.Outbox: tuples (src, to, words); to and words contiguous
 * int64 arrays) as the engine sends them, one message per receiver: one bytearray of int64, n, then the columns
 * src, dst and counts (n each), then every message's words, in order (np.repeat and np.concatenate's). */
static PyObject *locates(PyObject *Py_UNUSED(self), PyObject *locs) {
    PyObject *ret = NULL;
    if (!PyList_Check(locs)) {
        PyErr_SetString(PyExc_TypeError, "queue: locates' argument is a list");
        return NULL;
    }
    Py_ssize_t L = PyList_GET_SIZE(locs);
    Py_buffer *b = PyMem_Calloc((size_t)(2 * L + 1), sizeof *b);
    long long *src = PyMem_Calloc((size_t)(L + 1), sizeof *src);
    Py_ssize_t held = 0, n = 0, total = 0;
    if (!b || !src) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < L; ++k) {
        PyObject *t = PyList_GET_ITEM(locs, k);
        if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 3) {
            PyErr_SetString(PyExc_TypeError, "locates: a locate message is a tuple (src, to, words)");
            goto done;
        }
        if ((src[k] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 0))) == -1 && PyErr_Occurred()) goto done;
        if (!get(PyTuple_GET_ITEM(t, 1), &b[2 * k], 'i', "to")) goto done;
        ++held;
        if (!get(PyTuple_GET_ITEM(t, 2), &b[2 * k + 1], 'i', "words")) goto done;
        ++held;
        n += b[2 * k].len / 8, total += b[2 * k].len / 8 * (b[2 * k + 1].len / 8);
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(i64) * (1 + 3 * n + total));
    if (!ret) goto done;
    i64 *col = (i64 *)PyByteArray_AS_STRING(ret), *w = col + 1 + 3 * n, m = 0;
    col[0] = n;
    for (Py_ssize_t k = 0; k < L; ++k) {
        const i64 *to = b[2 * k].buf, *words = b[2 * k + 1].buf;
        i64 nt = b[2 * k].len / 8, nw = b[2 * k + 1].len / 8;
        for (i64 j = 0; j < nt; ++j, ++m) {
            col[1 + m] = src[k], col[1 + n + m] = to[j], col[1 + 2 * n + m] = nw;
            memcpy(w, words, (size_t)nw * 8);
            w += nw;
        }
    }
done:
    for (Py_ssize_t j = 0; j < held; ++j) PyBuffer_Release(&b[j]);
    PyMem_Free(b);
    PyMem_Free(src);
    return ret;
}

/* pack(msgs, word, split, lo, hi): a superstep's SBN messages (messages.Outbox: tuples (src, dst, code, fields,
 * data bytes); fields a list or tuple of ints, or a contiguous int64 array) as the engine sends them: one
 * bytearray of int64 columns src, dst, kind (lo for a code below split, else hi: the engine's message kind),
 * counts (words with the code) and declared bytes (word x counts + data), n each, then every message's words
 * (its code, then its fields), in order: np.fromiter's words. */
static PyObject *pack_core(PyObject *msgs, i64 word, i64 split, i64 lo, i64 hi) {
    if (!PyList_Check(msgs)) {
        PyErr_SetString(PyExc_TypeError, "queue: pack's msgs is a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(msgs), total = 0;
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject *t = PyList_GET_ITEM(msgs, k);
        if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != 5) {
            PyErr_SetString(PyExc_TypeError, "pack: a message is a tuple (src, dst, code, fields, data bytes)");
            return NULL;
        }
        Py_ssize_t len = PyObject_Length(PyTuple_GET_ITEM(t, 3));
        if (len < 0) return NULL;
        total += len + 1;
    }
    PyObject *ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)sizeof(i64) * (5 * n + total));
    if (!ret) return NULL;
    i64 *col = (i64 *)PyByteArray_AS_STRING(ret), *w = col + 5 * n;
    for (Py_ssize_t k = 0; k < n; ++k) {
        PyObject *t = PyList_GET_ITEM(msgs, k), *fields = PyTuple_GET_ITEM(t, 3);
        i64 *start = w;
        for (int c = 0; c < 3; ++c)
            if ((col[c * n + k] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, c))) == -1 && PyErr_Occurred()) goto fail;
        i64 data = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 4));
        if (data == -1 && PyErr_Occurred()) goto fail;
        *w++ = col[2 * n + k];
        col[2 * n + k] = col[2 * n + k] < split ? lo : hi;
        if (PyList_CheckExact(fields) || PyTuple_CheckExact(fields)) {
            Py_ssize_t len = PySequence_Fast_GET_SIZE(fields);
            PyObject **item = PySequence_Fast_ITEMS(fields);
            for (Py_ssize_t j = 0; j < len; ++j)
                if ((*w++ = PyLong_AsLongLong(item[j])) == -1 && PyErr_Occurred()) goto fail;
        } else {
            Py_buffer b;
            if (!get(fields, &b, 'i', "fields")) goto fail;
            if (b.ndim != 1) {
                PyBuffer_Release(&b);
                PyErr_SetString(PyExc_TypeError, "pack: array fields must be one-dimensional");
                goto fail;
            }
            memcpy(w, b.buf, (size_t)b.len);
            w += b.len / 8;
            PyBuffer_Release(&b);
        }
        col[3 * n + k] = w - start;
        col[4 * n + k] = word * (w - start) + data;
    }
    return ret;
fail:
    Py_DECREF(ret);
    return NULL;
}

static PyObject *pack(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *msgs;
    long long word, split, lo, hi;
    if (!fast_args("pack", args, nargs, "OLLLL", &msgs, &word, &split, &lo, &hi)) return NULL;
    return pack_core(msgs, word, split, lo, hi);
}

/* a monotonic clock in seconds (time.perf_counter's on Linux) */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* flush's level: bind(FLUSHING, locs, msgs (messages.Outbox's lists), engine (its send called when the sender does not
 * take a send), sender (engine.sender(): send's one-call path, its seven arguments positional), numpy.frombuffer,
 * numpy.int64, names (the streams' tags: sbn, locate; the locate kind), constants (int64: word, FETCH, balance kind,
 * migration kind)) */
#define FLUSHING "oooooooi"
enum { F_LOCS, F_MSGS, F_ENGINE, F_SENDER, F_FROMBUFFER, F_INT64, F_NAMES, F_CONSTS, F_N };
static PyObject *SEND_, *CAST_, *INT64_FORMAT_; /* "send", "cast", "q" */

/* engine.send(tag, src, dst, values, counts, nbytes, kind), its first five the words cnt[c] from word off[c] of buf
 * (a bytearray; -1: to its end; counts: none when k is 4): values (the third) numpy.frombuffer(buf, int64, count,
 * offset), the array the engine keeps, the others slices of one int64 memoryview of buf (each holding buf: no numpy
 * array nor slice made for a column the sender only reads); the last two nbytes (the sixth, or None) and kind (the
 * seventh, or the name last): through the sender, or send itself when the sender does not take them (its general
 * path and one-line errors); 0, or -1 */
static int send_words(const bound_t *fl, PyObject *tag, PyObject *buf, const i64 *off, const i64 *cnt, int k,
                      PyObject *last) {
    PyObject *v[8] = {fl->obj[F_ENGINE], tag}, *r = NULL, *mv = PyMemoryView_FromObject(buf);
    PyObject *words = mv ? PyObject_CallMethodOneArg(mv, CAST_, INT64_FORMAT_) : NULL;
    i64 n = PyByteArray_GET_SIZE(buf) / 8;
    int ok = words != NULL;
    for (int c = 0; c < k && ok; ++c) {
        i64 end = cnt[c] < 0 ? n : off[c] + cnt[c];
        if (c == 2) {  /* values */
            PyObject *fb[4] = {buf, fl->obj[F_INT64], PyLong_FromLongLong(end - off[c]),
                               PyLong_FromLongLong(8 * off[c])};
            v[4] = fb[2] && fb[3] ? PyObject_Vectorcall(fl->obj[F_FROMBUFFER], fb, 4, NULL) : NULL;
            Py_XDECREF(fb[2]), Py_XDECREF(fb[3]);
        } else
            v[2 + c] = PySequence_GetSlice(words, (Py_ssize_t)off[c], (Py_ssize_t)end);
        ok = v[2 + c] != NULL;
    }
    if (k == 4) v[6] = Py_None, v[7] = last;  /* (borrowed: nbytes none, the kind's name) */
    if (ok && (r = PyObject_Vectorcall(fl->obj[F_SENDER], v + 1, 7, NULL)) && r != Py_None) {  /* send's own path */
        Py_SETREF(r, PyObject_VectorcallMethod(SEND_, v, 8, NULL));
    }
    for (int c = 0; c < k; ++c) Py_XDECREF(v[2 + c]);
    Py_XDECREF(words), Py_XDECREF(mv);
    return r ? (Py_DECREF(r), 0) : -1;
}

/* messages.Outbox.flush: the locate messages (locates()' columns) sent on their stream, then the sbn messages
 * (pack()'s), each list cleared in place; 0, or -1 */
static int flush_core(const bound_t *fl) {
    PyObject *locs = fl->obj[F_LOCS], *msgs = fl->obj[F_MSGS], *names = fl->obj[F_NAMES], *buf;
    const i64 *cst = fl->b[F_CONSTS].buf;
    Py_ssize_t n = PyList_GET_SIZE(locs);
    if (n) {
        if (!(buf = locates(NULL, locs))) return -1;
        i64 m = ((const i64 *)PyByteArray_AS_STRING(buf))[0];
        const i64 off[4] = {1, 1 + m, 1 + 3 * m, 1 + 2 * m}, cnt[4] = {m, m, -1, m};  /* src, dst, values, counts */
        int r = PyList_SetSlice(locs, 0, n, NULL) < 0 ||
                send_words(fl, PyTuple_GET_ITEM(names, 1), buf, off, cnt, 4, PyTuple_GET_ITEM(names, 2)) < 0;
        Py_DECREF(buf);
        if (r) return -1;
    }
    if ((n = PyList_GET_SIZE(msgs))) {
        if (!(buf = pack_core(msgs, cst[0], cst[1], cst[2], cst[3]))) return -1;
        /* src, dst, values, counts, nbytes, kind */
        const i64 off[6] = {0, n, 5 * n, 3 * n, 4 * n, 2 * n}, cnt[6] = {n, n, -1, n, n, n};
        int r = PyList_SetSlice(msgs, 0, n, NULL) < 0 ||
                send_words(fl, PyTuple_GET_ITEM(names, 0), buf, off, cnt, 6, NULL) < 0;
        Py_DECREF(buf);
        if (r) return -1;
    }
    return 0;
}

/* step's level: bind(STEPPED, finished, sorted, chosen, fetching, acts (the bound levels of done, sort, choose,
 * fetch_chunks and acting), data_at, dirty (a set of slots), unsorted, mine, lix, vlist, each (Engine.each), due
 * (a dict), msgs (the outbox's list), mainline (LevelRun._mainline), times (float64: processing, selection,
 * migration, balance), B (float64, one), constants (int64: window, fetch, FETCH, P, word, process), flush (the
 * outbox's bind(FLUSHING, ...))) */
#define STEPPED "ooooooobiioooooffio"
enum { S_FINISHED, S_SORTED, S_CHOSEN, S_FETCHING, S_ACTS, S_DATA_AT, S_DIRTY, S_UNSORTED, S_MINE, S_LIX, S_VLIST,
       S_EACH, S_DUE, S_MSGS, S_MAINLINE, S_TIMES, S_B, S_CONSTS, S_FLUSH, S_N };

/* call(each(the processors at slots ix[0..k)), v) for each one's VProc v in vlist, in each's turns: 0, or -1 */
static int turns_of(const bound_t *st, const i64 *ix, i64 k, int (*call)(const bound_t *, PyObject *, i64)) {
    const i64 *mine = st->b[S_MINE].buf, *lix = st->b[S_LIX].buf;
    i64 P = st->b[S_LIX].len / 8, L = st->b[S_MINE].len / 8;
    PyObject *vlist = st->obj[S_VLIST], *ps = PyList_New((Py_ssize_t)k), *it = NULL, *x;
    if (!ps) return -1;
    for (i64 j = 0; j < k; ++j) {
        PyObject *p = PyLong_FromLongLong(mine[ix[j]]);
        if (!p) goto fail;
        PyList_SET_ITEM(ps, (Py_ssize_t)j, p);
    }
    if (!(it = PyObject_CallOneArg(st->obj[S_EACH], ps)) || !PyIter_Check(it)) {
        if (it) PyErr_SetString(PyExc_TypeError, "queue: step's each gave no iterator");
        goto fail;
    }
    while ((x = PyIter_Next(it))) {
        i64 p = PyLong_AsLongLong(x), i = p >= 0 && p < P ? lix[p] : -1;
        Py_DECREF(x);
        if (i < 0 || i >= L || PyList_GET_SIZE(vlist) != L) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: step's turn is not the rank's processor");
            goto fail;
        }
        if (call(st, PyList_GET_ITEM(vlist, i), i) < 0) goto fail;
    }
    if (PyErr_Occurred()) goto fail;
    Py_DECREF(it), Py_DECREF(ps);
    return 0;
fail:
    Py_XDECREF(it), Py_XDECREF(ps);
    return -1;
}

static int sort_turn(const bound_t *st, PyObject *v, i64 i) {
    PyObject *r = sort_core(v, i, (const bound_t *)st->obj[S_SORTED]);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static int mainline_turn(const bound_t *st, PyObject *v, i64 Py_UNUSED(i)) {
    PyObject *r = PyObject_CallOneArg(st->obj[S_MAINLINE], v);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* balancer.LevelRun._clean: the queues of the dirty slots (ascending) still unsorted sorted in each's turns, dirty
 * cleared; 0, or -1 */
static int clean_core(const bound_t *st) {
    PyObject *dirty = st->obj[S_DIRTY], *it, *x;
    Py_ssize_t nd = PySet_GET_SIZE(dirty);
    if (!nd) return 0;
    i64 L = st->b[S_UNSORTED].len, k = 0, *ix = malloc((size_t)nd * 8);
    const uint8_t *unsorted = st->b[S_UNSORTED].buf;
    if (!ix) {
        PyErr_NoMemory();
        return -1;
    }
    if (!(it = PyObject_GetIter(dirty))) goto fail;
    while ((x = PyIter_Next(it))) {
        i64 i = PyLong_AsLongLong(x);
        Py_DECREF(x);
        if (i < 0 || i >= L || k >= nd) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: a dirty slot out of range");
            Py_DECREF(it);
            goto fail;
        }
        ix[k++] = i;
    }
    Py_DECREF(it);
    if (PyErr_Occurred() || PySet_Clear(dirty) < 0) goto fail;
    qsort(ix, (size_t)k, 8, by_id);
    i64 m = 0;
    for (i64 j = 0; j < k; ++j)
        if (unsorted[ix[j]]) ix[m++] = ix[j];
    int r = m ? turns_of(st, ix, m, sort_turn) : 0;
    free(ix);
    return r;
fail:
    free(ix);
    return -1;
}

/* step(level, step, batch), level: bind(STEPPED, ...): a superstep's own steps after its messages (balancer.LevelRun
 * .run), each timed into times as the reference path times it: _process_all's common case (batch: the chunks due
 * now, choose()'s result, or None) by done_chosen, then (process) _select_all (clean, choose, due[step + 2] = its
 * result, fetch_chunks), then _mainline_all (clean, acting, mainline(v) in each's turns of the processors that
 * act), then the outbox flushed (messages.Outbox.flush: flush_core). Returns the number of vertices done, or None
 * (with nothing done) when a vertex of batch has its data elsewhere (the caller's _process_all). */
static PyObject *step_(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    PyObject *level, *batch, *r;
    long long step;
    bound_t *st, *fin, *srt, *cho, *fet, *act, *fl;
    if (!fast_args("step", args, nargs, "OLO", &level, &step, &batch) ||
        !(st = bound_of(level, STEPPED, "step's level")) ||
        !(fin = bound_of(st->obj[S_FINISHED], DONE, "step's done")) ||
        !(srt = bound_of(st->obj[S_SORTED], SORTED, "step's sort")) ||
        !(cho = bound_of(st->obj[S_CHOSEN], CHOSEN, "step's choose")) ||
        !(fet = bound_of(st->obj[S_FETCHING], FETCHING, "step's fetch_chunks")) ||
        !(act = bound_of(st->obj[S_ACTS], ACTING, "step's acting")) ||
        !(fl = bound_of(st->obj[S_FLUSH], FLUSHING, "step's flush")))
        return NULL;
    if (st->b[S_TIMES].len != 4 * 8 || st->b[S_B].len != 8 || st->b[S_CONSTS].len != 6 * 8 ||
        !PySet_Check(st->obj[S_DIRTY]) || !PyDict_Check(st->obj[S_DUE]) || !PyList_Check(st->obj[S_MSGS]) ||
        !PyList_Check(st->obj[S_VLIST]) || !PyList_Check(fl->obj[F_LOCS]) || !PyList_Check(fl->obj[F_MSGS]) ||
        !PyTuple_Check(fl->obj[F_NAMES]) || PyTuple_GET_SIZE(fl->obj[F_NAMES]) != 3 || fl->b[F_CONSTS].len != 4 * 8) {
        PyErr_SetString(PyExc_ValueError, "queue: step's level is bind(STEPPED, ...) as its doc says");
        return NULL;
    }
    enum { PROCESSING, SELECTION, MIGRATION, BALANCE };
    double *times = st->b[S_TIMES].buf, B = *(const double *)st->b[S_B].buf, t0 = now(), t1;
    const i64 *cst = st->b[S_CONSTS].buf;
    i64 done = 0;
    if (batch != Py_None) {
        if (!(r = done_chosen_core(batch, step, fin, st->obj[S_DATA_AT]))) return NULL;
        if (r == Py_None) return r;
        done = PyLong_AsLongLong(r);
        Py_DECREF(r);
        t1 = now(), times[PROCESSING] += t1 - t0, t0 = t1;
    }
    if (cst[5]) {
        if (clean_core(st) < 0 || !(r = choose_core(cho, B, (Py_ssize_t)cst[0]))) return NULL;
        t1 = now(), times[SELECTION] += t1 - t0, t0 = t1;
        if (r != Py_None) {
            PyObject *at = PyLong_FromLongLong(step + 2), *req = NULL;
            int bad = !at || PyDict_SetItem(st->obj[S_DUE], at, r) < 0 ||
                      !(req = fetch_core(r, fet, (int)cst[1], st->obj[S_MSGS], cst[2], cst[3], cst[4]));
            Py_XDECREF(at), Py_XDECREF(req);
            if (bad) {
                Py_DECREF(r);
                return NULL;
            }
            t1 = now(), times[MIGRATION] += t1 - t0, t0 = t1;
        }
        Py_DECREF(r);
    }
    if (clean_core(st) < 0 || !(r = acting_core(step, act))) return NULL;
    i64 k = PyByteArray_GET_SIZE(r) / 8;
    int bad = k && turns_of(st, (const i64 *)PyByteArray_AS_STRING(r), k, mainline_turn) < 0;
    Py_DECREF(r);
    if (bad) return NULL;
    times[BALANCE] += now() - t0;
    return flush_core(fl) < 0 ? NULL : PyLong_FromLongLong(done);
}

/* deliver's level: bind(DELIVERING, inboxed, tailed (inbox's level and tail), vlist, lix, each (Engine.each), handle
 * (Ops.handle, or None), out (the outbox), msgs (its list), rest (LevelRun._rest), times (step's)) */
#define DELIVERING "oooiooooof"
enum { D_INBOXED, D_TAILED, D_VLIST, D_LIX, D_EACH, D_HANDLE, D_OUT, D_MSGS, D_REST, D_TIMES, D_N };
static PyObject *FWD_, *SERVERS_; /* "fwd", "servers", interned */

/* a run's start and stop (r: a slice of runs() or received(), or NULL: none); 1, or 0 with an error */
static int run_of(PyObject *r, i64 *a, i64 *e) {
    Py_ssize_t start = 0, stop = 0, step;
    if (r && PySlice_Unpack(r, &start, &stop, &step) < 0) return 0;
    *a = start, *e = stop;
    return 1;
}

/* inbox's call at processor p (slot i, VProc v) with its VProc's fwd, servers, view and Qall */
static PyObject *inbox_at(const Py_buffer *bb, i64 lfrom, i64 lto, i64 m, i64 end, i64 p, i64 i, PyObject *v,
                          const bound_t *lv, const view_api *api, PyObject *msgs, const bound_t *tl) {
    PyObject *o[4] = {PyObject_GetAttr(v, FWD_), PyObject_GetAttr(v, SERVERS_), PyObject_GetAttr(v, VIEW_),
                      PyObject_GetAttr(v, QALL_)}, *ret = NULL;
    if (o[0] && o[1] && o[2] && o[3] && inbox_objects(msgs, o[0], o[1]))
        ret = inbox_core(bb, lfrom, lto, m, end, p, i, lv, api, msgs, o[0], o[1], o[2], o[3], tl);
    for (int j = 0; j < 4; ++j) Py_XDECREF(o[j]);
    return ret;
}

/* tail_core at processor p (slot i, VProc v) with its VProc's Qall, view and servers */
static int tail_at(const bound_t *lv, const view_api *api, const bound_t *tl, PyObject *v, i64 p, i64 i,
                   const i64 *arr, i64 na, const i64 *ch, i64 nl) {
    const i64 *cst = lv->b[NB_INBOX - DATA_AT].buf;
    PyObject *o[3] = {PyObject_GetAttr(v, QALL_), PyObject_GetAttr(v, VIEW_), PyObject_GetAttr(v, SERVERS_)};
    int r = -1;
    if (o[0] && o[1] && o[2])
        r = tail_core(tl, o[0], o[1], api, p, i, cst[0], cst[3], arr, na, ch, nl, o[2],
                      lv->b[QUEUED - DATA_AT].buf, lv->b[RWGT - DATA_AT].buf, lv->b[0].len / 4);
    for (int j = 0; j < 3; ++j) Py_XDECREF(o[j]);
    return r;
}

/* what inbox's runs at a processor returned, gathered: [m, nl, na, nd, the nl learned, the na arrived] as one
 * inbox result (its parts in order: their concatenation is what p learned and what arrived) */
typedef struct {
    i64 m, nl, na, nd, cap;
    i64 *lid, *arr;
} gathered;

static int gather_run(gathered *g, PyObject *res) {
    const i64 *w = (const i64 *)PyByteArray_AS_STRING(res);
    i64 nl = w[1], na = w[2];
    if (g->nl + nl > g->cap || g->na + na > g->cap) {
        i64 cap = 2 * (g->cap + nl + na) + 16;
        i64 *a = realloc(g->lid, (size_t)cap * 8), *b = a ? realloc(g->arr, (size_t)cap * 8) : NULL;
        if (a) g->lid = a;
        if (!b) {
            PyErr_NoMemory();
            return -1;
        }
        g->arr = b, g->cap = cap;
    }
    memcpy(g->lid + g->nl, w + 4, (size_t)nl * 8);
    memcpy(g->arr + g->na, w + 4 + nl, (size_t)na * 8);
    g->m = w[0], g->nl += nl, g->na += na, g->nd += w[3];
    return 0;
}

/* the rest of balancer.LevelRun._receive at p after its first inbox run stopped (res, its result) before end, in C
 * while it can: a run of the balance kind's messages (and JOB, DJOB) by handle(i, p, m, end, step, out), a run of
 * DATA and FETCH by inbox (no tail), until end, then tail_core on everything they learned and what arrived; 0
 * (*bal: the seconds in handle), or 1 when a FETCH must be forwarded (its rest is the caller's, *left: the runs'
 * result gathered), or -1 with an error */
static int rest_core(const bound_t *dl, const Py_buffer *bb, const bound_t *lv, const view_api *api,
                     const bound_t *tl, PyObject *v, PyObject *px, i64 p, i64 i, i64 end, long long step,
                     PyObject *res, double *bal, PyObject **left) {
    gathered g = {0};
    const i64 *val = bb[VALUES].buf, *off = bb[OFFSETS].buf, FETCH = ((const i64 *)lv->b[NB_INBOX - DATA_AT].buf)[2];
    int r = -1;
    if (gather_run(&g, res) < 0) goto done;
    while (g.m < end) {
        PyObject *x;
        if (val[off[g.m]] < FETCH) {
            PyObject *a[6] = {PyLong_FromLongLong(i), px, PyLong_FromLongLong(g.m), PyLong_FromLongLong(end),
                              PyLong_FromLongLong(step), dl->obj[D_OUT]};
            double t = now();
            x = a[0] && a[2] && a[3] && a[4] ? PyObject_Vectorcall(dl->obj[D_HANDLE], a, 6, NULL) : NULL;
            *bal += now() - t;
            Py_XDECREF(a[0]), Py_XDECREF(a[2]), Py_XDECREF(a[3]), Py_XDECREF(a[4]);
            if (!x) goto done;
            i64 m = PyLong_AsLongLong(x);
            Py_DECREF(x);
            if (m <= g.m || m > end) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: handle did not advance");
                goto done;
            }
            g.m = m;
            continue;
        }
        i64 m = g.m;
        if (!(x = inbox_at(bb, 0, 0, m, end, p, i, v, lv, api, dl->obj[D_MSGS], NULL))) goto done;
        int bad = gather_run(&g, x);
        Py_DECREF(x);
        if (bad) goto done;
        if (g.m == m) {  /* a FETCH to forward */
            if (!(*left = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((4 + g.nl + g.na) * 8)))) goto done;
            i64 *w = (i64 *)PyByteArray_AS_STRING(*left);
            w[0] = g.m, w[1] = g.nl, w[2] = g.na, w[3] = g.nd;
            memcpy(w + 4, g.lid, (size_t)g.nl * 8);
            memcpy(w + 4 + g.nl, g.arr, (size_t)g.na * 8);
            r = 1;
            goto done;
        }
    }
    r = tail_at(lv, api, tl, v, p, i, g.arr, g.na, g.lid, g.nl);
done:
    free(g.lid), free(g.arr);
    return r;
}

/* deliver(level, got, at, ops, locate, lvalues, loffsets, values, offsets, src, step), level: bind(DELIVERING, ...):
 * balancer.LevelRun.run's turns over the processors that received messages (at: {p: the run of its sbn messages},
 * locate: {p: the run of its locate messages}; each's turns over at, or over both in increasing order): a processor
 * with only messages of the balance kind (in ops) and no locate message is handle(i, p, start, stop, step, out); any
 * other is inbox (its locates and its run of DATA and FETCH, with its tail), and when the run left messages, the rest
 * of _receive (rest_core), in Python where a FETCH is to be forwarded: rest(v, got, the runs' result, when it is
 * called). The turns of handle are timed as balance, the others as migration (but handle's part in them, and rest's
 * own). The batch is bound to handle's state (Ops.bind). Returns None. */
static PyObject *deliver(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    static const char *const name[DATA_AT] = {"lvalues", "loffsets", "values", "offsets", "src"};
    PyObject *level, *got, *at, *ops, *locate, *o[DATA_AT], *ps = NULL, *it = NULL, *x = NULL, *ret = NULL;
    Py_buffer b[DATA_AT];
    int have[DATA_AT] = {0};
    long long step;
    bound_t *dl, *lv, *tl;
    const view_api *api;
    if (!fast_args("deliver", args, nargs, "OOOOOOOOOOL", &level, &got, &at, &ops, &locate, &o[LVALUES],
                   &o[LOFFSETS], &o[VALUES], &o[OFFSETS], &o[SRC], &step) ||
        !(dl = bound_of(level, DELIVERING, "deliver's level")))
        return NULL;
    if (!PyDict_Check(at) || !PyDict_Check(locate) || !PyAnySet_Check(ops) || !PyList_Check(dl->obj[D_VLIST]) ||
        dl->b[D_TIMES].len != 4 * 8 || dl->obj[D_TAILED] == Py_None) {
        PyErr_SetString(PyExc_TypeError, "queue: deliver's at and locate are dicts, ops a set, its level as its doc");
        return NULL;
    }
    if (!inbox_of(dl->obj[D_INBOXED], dl->obj[D_TAILED], &lv, &api, &tl) ||
        !get_all(o, b, have, "iiiii", name, DATA_AT))
        goto done;
    if (PyDict_GET_SIZE(locate)) {  /* the processors with either, in increasing order */
        if (!(ps = PyDict_Keys(at))) goto done;
        Py_ssize_t pos = 0;
        PyObject *k, *val;
        while (PyDict_Next(locate, &pos, &k, &val))
            if (!PyDict_Contains(at, k) && PyList_Append(ps, k) < 0) goto done;
        if (PyList_Sort(ps) < 0) goto done;
    } else
        ps = Py_NewRef(at);
    if (!(it = PyObject_CallOneArg(dl->obj[D_EACH], ps))) goto done;
    enum { PROCESSING, SELECTION, MIGRATION, BALANCE };
    double *times = dl->b[D_TIMES].buf, t0 = now(), other = 0.0, mig = 0.0;
    const i64 *lix = dl->b[D_LIX].buf;
    i64 P = dl->b[D_LIX].len / 8, L = PyList_GET_SIZE(dl->obj[D_VLIST]);
    int some = PySet_GET_SIZE(ops) > 0;
    while ((x = PyIter_Next(it))) {
        i64 p = PyLong_AsLongLong(x), i = p >= 0 && p < P ? lix[p] : -1, m, end, lfrom, lto;
        if (i < 0 || i >= L) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "queue: deliver's turn is not the rank's");
            goto done;
        }
        PyObject *r = PyDict_GetItemWithError(at, x);
        PyObject *ls = r || !PyErr_Occurred() ? PyDict_GetItemWithError(locate, x) : NULL;
        if (PyErr_Occurred() || !run_of(r, &m, &end) || !run_of(ls, &lfrom, &lto)) goto done;
        int only = some && !ls ? PySet_Contains(ops, x) : 0;
        if (only < 0) goto done;
        if (only) {  /* only messages of the balance kind: the C state's */
            PyObject *a[6] = {PyLong_FromLongLong(i), x, PyLong_FromLongLong(m), PyLong_FromLongLong(end),
                              PyLong_FromLongLong(step), dl->obj[D_OUT]}, *h = NULL;
            if (a[0] && a[2] && a[3] && a[4]) h = PyObject_Vectorcall(dl->obj[D_HANDLE], a, 6, NULL);
            Py_XDECREF(a[0]), Py_XDECREF(a[2]), Py_XDECREF(a[3]), Py_XDECREF(a[4]);
            if (!h) goto done;
            Py_DECREF(h);
        } else {
            double t1 = now();
            PyObject *v = PyList_GET_ITEM(dl->obj[D_VLIST], i),
                     *res = inbox_at(b, lfrom, lto, m, end, p, i, v, lv, api, dl->obj[D_MSGS], tl);
            if (!res) goto done;
            double bal = 0.0, t2;
            if (res != Py_None) {  /* messages left: the rest of _receive */
                PyObject *left = NULL;
                int r = rest_core(dl, b, lv, api, tl, v, x, p, i, end, step, res, &bal, &left);
                Py_DECREF(res);
                if (r < 0) goto done;
                if (r) {  /* a FETCH to forward: Python's from there */
                    t2 = now();
                    PyObject *start = PyFloat_FromDouble(t2), *a[4] = {v, got, left, start}, *h = NULL;
                    if (start) h = PyObject_Vectorcall(dl->obj[D_REST], a, 4, NULL);
                    Py_XDECREF(start), Py_DECREF(left);
                    if (!h) goto done;
                    Py_DECREF(h);
                    mig += t2 - t1 - bal;
                    times[BALANCE] += bal;
                    other += now() - t1;
                    Py_CLEAR(x);
                    continue;
                }
            } else
                Py_DECREF(res);
            t2 = now();
            other += t2 - t1;
            mig += t2 - t1 - bal;
            times[BALANCE] += bal;
        }
        Py_CLEAR(x);
    }
    if (PyErr_Occurred()) goto done;
    if (some) times[BALANCE] += now() - t0 - other;
    times[MIGRATION] += mig;
    ret = Py_NewRef(Py_None);
done:
    Py_XDECREF(x), Py_XDECREF(it), Py_XDECREF(ps);
    release_all(b, have, DATA_AT);
    return ret;
}

static PyMethodDef methods[] = {
    {"done_chosen", FAST(done_chosen), METH_FASTCALL, "done() of choose()'s result, when every vertex's data is there"},
    {"runs", runs, METH_O, "each destination's run of a delivered batch's messages (a dict of slices)"},
    {"sort", FAST(sort), METH_FASTCALL, "a processor's queue in priority order, its arrays and scalars set (LevelRun._sort)"},
    {"bind", bind, METH_VARARGS, "a level's arrays held for inbox's calls: bind(kinds, *objects)"},
    {"chunks", chunks, METH_VARARGS, "the chunk each processor takes from the head of its queue"},
    {"choose", FAST(choose_), METH_FASTCALL, "a superstep's chunks: ready, chunks and take in one call"},
    {"take", take, METH_VARARGS, "the bookkeeping of the chosen chunks"},
    {"ready", ready, METH_VARARGS, "the credit of a superstep and the processors that choose a chunk"},
    {"acting", FAST(acting), METH_FASTCALL, "the processors whose main line acts (Fig. 4)"},
    {"depth", depth, METH_VARARGS, "every vertex's graph distance to the partition boundary"},
    {"done", done, METH_VARARGS, "the bookkeeping of the processed chunks"},
    {"search", search, METH_VARARGS, "the breadth-first search of the §3.4 selection"},
    {"select", select_, METH_VARARGS, "the rounds of a §3.4 selection in one call"},
    {"holders", FAST(holders), METH_FASTCALL, "the processors holding data next to a processor's queue, in its view"},
    {"groups", groups, METH_VARARGS, "ids grouped by key, keys increasing, each group in its order"},
    {"fetch_chunks", FAST(fetch_chunks), METH_FASTCALL, "the data requests of the chosen chunks and their messages (§3.5)"},
    {"fetches", fetches, METH_VARARGS, "the data requests a processor sends, one message per destination (§3.5)"},
    {"spread", spread, METH_VARARGS, "GetDistribute's split of a distribution message's jobs at a node"},
    {"distribute", distribute, METH_VARARGS, "GetDistribute at a node: the split and the jobs it keeps queued"},
    {"affected", FAST(affected), METH_FASTCALL, "the vertices queued at p to re-price after data moved in its view"},
    {"arrive", arrive, METH_VARARGS, "a DATA message's vertices arrived at p: their data's location and marks"},
    {"serve", serve, METH_VARARGS, "a data request at p: the vertices whose data p holds, marked in flight"},
    {"inbox", FAST(inbox), METH_FASTCALL, "a processor's locate messages and run of DATA and FETCH (§3.5)"},
    {"receivers", FAST(receivers), METH_FASTCALL, "the processors a locate message goes to (§3.5)"},
    {"received", FAST(received), METH_FASTCALL, "a superstep's sbn messages read as lists (balancer._Received)"},
    {"received_in", FAST(received_in), METH_FASTCALL, "a superstep's sbn messages as a native balancer._Received"},
    {"priced", FAST(priced), METH_FASTCALL, "vertices (re-)priced at a processor: their prices, stale marks and count"},
    {"requests", requests, METH_VARARGS, "the data requests of the chosen chunks (§3.5)"},
    {"djobs", djobs, METH_VARARGS, "a run of DJOB messages read for distribute"},
    {"choice", choice, METH_VARARGS, "numpy Generator.choice without replacement, the same draws (§3.4's R)"},
    {"locates", locates, METH_O, "a superstep's locate messages as the engine's columns and words"},
    {"pack", FAST(pack), METH_FASTCALL, "a superstep's SBN messages as the engine's columns and words"},
    {"deliver", FAST(deliver), METH_FASTCALL, "a superstep's turns over the processors that received messages"},
    {"step", FAST(step_), METH_FASTCALL, "a superstep's own steps after its messages: process, select, main line"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_queue", "SBN's priority queue order (§3.3).", -1, methods};

PyMODINIT_FUNC PyInit__queue(void) {
    if (!(Q_ = PyUnicode_InternFromString("Q")) || !(QALL_ = PyUnicode_InternFromString("Qall")) ||
        !(BEF_ = PyUnicode_InternFromString("bef")) || !(FWD_ = PyUnicode_InternFromString("fwd")) ||
        !(SERVERS_ = PyUnicode_InternFromString("servers")) || !(VIEW_ = PyUnicode_InternFromString("view")) ||
        !(SEND_ = PyUnicode_InternFromString("send")) || !(VALUES_ = PyUnicode_InternFromString("values")) ||
        !(OFFSETS_ = PyUnicode_InternFromString("offsets")) || !(SRC_ = PyUnicode_InternFromString("src")) ||
        !(DST_ = PyUnicode_InternFromString("dst")) || !(AT_ = PyUnicode_InternFromString("at")) ||
        !(OPS_ONLY_ = PyUnicode_InternFromString("ops_only")) || !(COLUMNS_ = PyUnicode_InternFromString("columns")) ||
        !(OPS_ = PyUnicode_InternFromString("ops")) || !(FLAG_ = PyUnicode_InternFromString("flag")) ||
        !(KEYS_ = PyUnicode_InternFromString("keys")) || !(BASE_ = PyUnicode_InternFromString("base")) ||
        !(CAST_ = PyUnicode_InternFromString("cast")) || !(INT64_FORMAT_ = PyUnicode_InternFromString("q")) ||
        PyType_Ready(&BoundType) < 0)
        return NULL;
    return PyModule_Create(&module);
}
