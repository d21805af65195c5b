/* The charm plugin's per-object loops in C, each the Python loop it replaces step for step, so every decision
 * and every float is the same bit for bit (the Python loops stay as the references the tests compare with):
 *
 * walk: one source rank's turn of LBAF's RecursiveTransferStrategy.execute (lbaf.transfer) for the LoadOnly
 * work model, the tempered criterion and deterministic transfers: objects popped from the end of the rank's
 * ordered list; an object with w > 0 and w > L_src - min L_target is rejected (its tempered value is negative
 * for every target); otherwise the first target with the largest max(L_src, L_t) - max(L_src - w, L_t + w)
 * takes it when that value is >= 0. A negative best value needs the extended search, whose random draws stay
 * in Python: the walk stops before that object. The arithmetic is lbaf.criterion's, lbaf.select's and
 * work.LoadOnly.move's, in their order.
 *
 * place: GreedyLB's and TreeLB GreedyRefine's loops over the objects (strategies.greedy, greedy_refine): a
 * binary min-heap of (load, processor) ordered as Python's tuples (load, then processor id), so every pop is
 * the one heapq gives (the entries are distinct, or equal and interchangeable), the loads summed in the
 * Python loops' order (load + w x slow). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef int64_t i64;

static int get(PyObject *o, Py_buffer *b, char kind, int writable, const char *name) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return 0;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (b->itemsize != 8 || f[1] != '\0' || (kind == 'f' ? *f != 'd' : (*f != 'q' && *f != 'l'))) {
        PyErr_Format(PyExc_TypeError, "%s must be a contiguous %s array", name, kind == 'f' ? "float64" : "int64");
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

/* the buffers of ``n`` arguments (kinds 'i' int64, 'f' float64; writable or not); 0 with all released on error */
static int buffers(PyObject **o, Py_buffer *b, int n, const char *kinds, const int *writable, const char **names) {
    for (int i = 0; i < n; ++i)
        if (!get(o[i], &b[i], kinds[i], writable[i], names[i])) {
            while (i--) PyBuffer_Release(&b[i]);
            return 0;
        }
    return 1;
}

static void release(Py_buffer *b, int n) {
    for (int i = 0; i < n; ++i) PyBuffer_Release(&b[i]);
}

static double lowest(const double *loads, const i64 *t, Py_ssize_t nt) {
    double lo = INFINITY;
    for (Py_ssize_t i = 0; i < nt; ++i)
        if (loads[t[i]] < lo || i == 0) lo = loads[t[i]];
    return lo;
}

/* walk(rest, n, load, loads, owner, targets, src) -> (n, transfers, rejects): walks rest[n-1], rest[n-2], ...;
 * updates loads and owner for every transfer; returns the number of objects left (the last of them, when
 * n > 0, is the one that needs the extended search) */
static PyObject *walk(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[5];
    Py_ssize_t n;
    long long src;
    Py_buffer b[5];
    static const char kinds[5] = {'i', 'f', 'f', 'i', 'i'};
    static const int writable[5] = {0, 0, 1, 1, 0};
    static const char *names[5] = {"rest", "load", "loads", "owner", "targets"};
    if (!PyArg_ParseTuple(args, "OnOOOOL", &o[0], &n, &o[1], &o[2], &o[3], &o[4], &src)) return NULL;
    if (!buffers(o, b, 5, kinds, writable, names)) return NULL;
    const i64 *rest = b[0].buf, *t = b[4].buf;
    const double *load = b[1].buf;
    double *loads = b[2].buf;
    i64 *owner = b[3].buf;
    Py_ssize_t nt = b[4].len / 8, nrest = b[0].len / 8, nobj = b[1].len / 8, P = b[2].len / 8;
    if (n < 0 || n > nrest || nobj != b[3].len / 8 || src < 0 || src >= P) {
        PyErr_SetString(PyExc_ValueError, "walk: inconsistent sizes");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < nt; ++i)
        if (t[i] < 0 || t[i] >= P) { PyErr_SetString(PyExc_ValueError, "walk: target out of range"); goto fail; }
    for (Py_ssize_t i = 0; i < n; ++i)
        if (rest[i] < 0 || rest[i] >= nobj) { PyErr_SetString(PyExc_ValueError, "walk: object out of range"); goto fail; }
    i64 transfers = 0, rejects = 0;
    double lo = lowest(loads, t, nt);
    while (n > 0) {
        i64 v = rest[n - 1];
        double w = load[v], ls = loads[src];
        if (w > 0.0 && w > ls - lo) {  /* lbaf.transfer's shortcut */
            ++rejects;
            --n;
            continue;
        }
        double ws = ls - w, best = -INFINITY;
        Py_ssize_t k = -1;
        for (Py_ssize_t i = 0; i < nt; ++i) {  /* lbaf.best_target */
            double ld = loads[t[i]], wd = ld + w;
            double c = (ls >= ld ? ls : ld) - (ws >= wd ? ws : wd);
            if (c > best) { k = i; best = c; }
        }
        if (k < 0) {
            ++rejects;
            --n;
            continue;
        }
        if (best < 0) break;  /* the extended search: Python */
        --n;
        owner[v] = t[k];
        loads[src] -= w;
        loads[t[k]] += w;
        ++transfers;
        lo = lowest(loads, t, nt);
    }
    release(b, 5);
    return Py_BuildValue("nLL", n, (long long)transfers, (long long)rejects);
fail:
    release(b, 5);
    return NULL;
}

typedef struct {
    double load;
    i64 p;
} entry;

static int less(entry a, entry b) { return a.load < b.load || (a.load == b.load && a.p < b.p); }

static void down(entry *h, Py_ssize_t n, Py_ssize_t i) {
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && less(h[c + 1], h[c])) ++c;
        if (!less(h[c], h[i])) return;
        entry t = h[i]; h[i] = h[c]; h[c] = t;
        i = c;
    }
}

static void up(entry *h, Py_ssize_t i) {
    while (i > 0) {
        Py_ssize_t q = (i - 1) / 2;
        if (!less(h[i], h[q])) return;
        entry t = h[i]; h[i] = h[q]; h[q] = t;
        i = q;
    }
}

/* place(order, load, current, slow, loads, bound, refine, to): objects ``order`` (heaviest first) each onto
 * the least-loaded processor (loads: the background, updated); with ``refine``, an object stays on its
 * ``current`` processor while that stays within ``bound``, which rises to every load reached (GreedyRefine);
 * ``to`` receives each object's processor */
static PyObject *place(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[6];
    Py_buffer b[6];
    double bound;
    int refine;
    entry *h = NULL;
    static const char kinds[6] = {'i', 'f', 'i', 'f', 'f', 'i'};
    static const int writable[6] = {0, 0, 0, 0, 1, 1};
    static const char *names[6] = {"order", "load", "current", "slow", "loads", "to"};
    if (!PyArg_ParseTuple(args, "OOOOOdpO", &o[0], &o[1], &o[2], &o[3], &o[4], &bound, &refine, &o[5])) return NULL;
    if (!buffers(o, b, 6, kinds, writable, names)) return NULL;
    const i64 *order = b[0].buf, *cur = b[2].buf;
    const double *load = b[1].buf, *slow = b[3].buf;
    double *loads = b[4].buf;
    i64 *to = b[5].buf;
    Py_ssize_t k = b[0].len / 8, n = b[1].len / 8, P = b[4].len / 8;
    if (b[2].len / 8 != n || b[3].len / 8 != P || b[5].len / 8 != k || P < 1) {
        PyErr_SetString(PyExc_ValueError, "greedy: inconsistent sizes");
        goto fail;
    }
    for (Py_ssize_t i = 0; i < k; ++i)
        if (order[i] < 0 || order[i] >= n || (refine && (cur[order[i]] < 0 || cur[order[i]] >= P))) {
            PyErr_SetString(PyExc_ValueError, "greedy: object or processor out of range");
            goto fail;
        }
    Py_ssize_t cap = P + (refine ? k : 0), m = P;  /* GreedyRefine's lazy heap keeps stale entries */
    h = malloc((size_t)cap * sizeof(entry));
    if (!h) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t p = 0; p < P; ++p) h[p] = (entry){loads[p], p};
    for (Py_ssize_t i = P / 2 - 1; i >= 0; --i) down(h, m, i);
    for (Py_ssize_t i = 0; i < k; ++i) {
        i64 v = order[i], p;
        double w = load[v];
        if (!refine) {  /* heapreplace: the least loaded takes it */
            p = h[0].p;
            h[0].load = h[0].load + w * slow[p];
            down(h, m, 0);
            to[i] = p;
            continue;
        }
        if (loads[cur[v]] + w <= bound) {
            p = cur[v];
        } else {
            for (;;) {  /* pop until an entry is not stale */
                entry e = h[0];
                h[0] = h[--m];
                down(h, m, 0);
                if (e.load == loads[e.p]) { p = e.p; break; }
                if (m == 0) { PyErr_SetString(PyExc_RuntimeError, "greedy: heap ran empty"); goto fail; }
            }
        }
        to[i] = p;
        loads[p] += w * slow[p];
        if (loads[p] > bound) bound = loads[p];
        h[m] = (entry){loads[p], p};
        up(h, m++);
    }
    if (!refine)
        for (Py_ssize_t i = 0; i < m; ++i) loads[h[i].p] = h[i].load;
    free(h);
    release(b, 6);
    Py_RETURN_NONE;
fail:
    free(h);
    release(b, 6);
    return NULL;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "walk(rest, n, load, loads, owner, targets, src) -> (n, transfers, rejects)"},
    {"place", place, METH_VARARGS, "place(order, load, current, slow, loads, bound, refine, to)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_loops", "the charm plugin's per-object loops", -1, methods};

PyMODINIT_FUNC PyInit__loops(void) { return PyModule_Create(&module); }
