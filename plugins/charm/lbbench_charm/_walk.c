/* One source rank's turn of LBAF's RecursiveTransferStrategy.execute (lbaf.transfer) in C, for the LoadOnly
 * work model, the tempered criterion and deterministic transfers: objects popped from the end of the
 * rank's ordered list; an object with w > 0 and w > L_src - min L_target is rejected (its tempered value is
 * negative for every target); otherwise the first target with the largest max(L_src, L_t) - max(L_src - w,
 * L_t + w) takes it when that value is >= 0. A negative best value needs the extended search, whose random
 * draws stay in Python (lbaf.transfer): the walk stops before that object. The arithmetic is the Python
 * path's (lbaf.criterion, lbaf.select, work.LoadOnly.move), in its order, so every decision and every load
 * is the same bit for bit. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

typedef int64_t i64;

static int get(PyObject *o, Py_buffer *b, char kind, int writable, const char *name) {
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return 0;
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (b->itemsize != 8 || f[1] != '\0' || (kind == 'f' ? *f != 'd' : (*f != 'q' && *f != 'l'))) {
        PyErr_Format(PyExc_TypeError, "walk: %s must be a contiguous %s array", name, kind == 'f' ? "float64" : "int64");
        PyBuffer_Release(b);
        return 0;
    }
    return 1;
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
    int held = 0;
    static const char kinds[5] = {'i', 'f', 'f', 'i', 'i'};
    static const int writable[5] = {0, 0, 1, 1, 0};
    static const char *names[5] = {"rest", "load", "loads", "owner", "targets"};
    if (!PyArg_ParseTuple(args, "OnOOOOL", &o[0], &n, &o[1], &o[2], &o[3], &o[4], &src)) return NULL;
    for (; held < 5; ++held)
        if (!get(o[held], &b[held], kinds[held], writable[held], names[held])) goto fail;
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
    for (int i = 0; i < held; ++i) PyBuffer_Release(&b[i]);
    return Py_BuildValue("nLL", n, (long long)transfers, (long long)rejects);
fail:
    for (int i = 0; i < held; ++i) PyBuffer_Release(&b[i]);
    return NULL;
}

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "walk(rest, n, load, loads, owner, targets, src) -> (n, transfers, rejects)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_walk", "lbaf-iat's transfer walk (lbaf.transfer)", -1, methods};

PyMODINIT_FUNC PyInit__walk(void) { return PyModule_Create(&module); }
