/* GreedyLB's and TreeLB GreedyRefine's loops over the objects (strategies.greedy, strategies.greedy_refine) in
 * C: a binary min-heap of (load, processor) ordered as Python's tuples (load, then processor id), so every pop
 * is the one heapq gives (the entries are distinct, or equal and interchangeable), and the loads are summed
 * in the Python loops' order (load + w x slow), so every placement and load is the same bit for bit. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

typedef int64_t i64;

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

static int get(PyObject *o, Py_buffer *b, char kind, int writable, const char *name) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return 0;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (b->itemsize != 8 || f[1] != '\0' || (kind == 'f' ? *f != 'd' : (*f != 'q' && *f != 'l'))) {
        PyErr_Format(PyExc_TypeError, "greedy: %s must be a contiguous %s array", name, kind == 'f' ? "float64" : "int64");
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
}

/* place(order, load, current, slow, loads, bound, refine, to): objects ``order`` (heaviest first) each onto
 * the least-loaded processor (loads: the background, updated); with ``refine``, an object stays on its
 * ``current`` processor while that stays within ``bound``, which rises to every load reached (GreedyRefine);
 * ``to`` receives each object's processor */
static PyObject *place(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[6];
    Py_buffer b[6];
    double bound;
    int refine, held = 0;
    entry *h = NULL;
    static const char kinds[6] = {'i', 'f', 'i', 'f', 'f', 'i'};
    static const int writable[6] = {0, 0, 0, 0, 1, 1};
    static const char *names[6] = {"order", "load", "current", "slow", "loads", "to"};
    if (!PyArg_ParseTuple(args, "OOOOOdpO", &o[0], &o[1], &o[2], &o[3], &o[4], &bound, &refine, &o[5])) return NULL;
    for (; held < 6; ++held)
        if (!get(o[held], &b[held], kinds[held], writable[held], names[held])) goto fail;
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
    for (int i = 0; i < held; ++i) PyBuffer_Release(&b[i]);
    Py_RETURN_NONE;
fail:
    free(h);
    for (int i = 0; i < held; ++i) PyBuffer_Release(&b[i]);
    return NULL;
}

static PyMethodDef methods[] = {
    {"place", place, METH_VARARGS, "place(order, load, current, slow, loads, bound, refine, to)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_greedy", "GreedyLB's and GreedyRefine's loops", -1, methods};

PyMODINIT_FUNC PyInit__greedy(void) { return PyModule_Create(&module); }
