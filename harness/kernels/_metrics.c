/* One pass over a level's graph for every core figure of a cell (harness.measure.figures.cell_metrics): the
 * Comm of each vertex before and after the level, the per-processor sums of QWgt, Wgt, Comm, Remap, MaxSR's
 * sent and received cost and the work, the boundary and the parts each vertex borders (SBN §3.1, §5.2; MinEX
 * §2.3; the tree paper's Eqs. 2-3).
 *
 * Every sum runs in the order numpy's bincount would add the same terms (vertex order; a vertex's Comm in its
 * CSR order), each term computed as the numpy expression in harness.measure.metrics does, so every figure is
 * the same bit for bit. Every index is checked against the array it indexes (ValueError, never a read out of
 * bounds). Results are bytearrays (numpy.frombuffer makes them arrays without a copy).
 *
 * records() turns the engine's per-superstep counter records (Python tuples, one a superstep) into columns, so
 * a cell's totals and step statistics are numpy sums over them (harness.engine.counters). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

typedef int64_t i64;

#define KERNEL "metrics"
#include "_args.h"

#define LEN(a) ((i64)((a).b.len / 8))
#define I64(a) ((const i64 *)(a).b.buf)
#define F64(a) ((const double *)(a).b.buf)

enum { SETTLED, WGT, COMM, REMAP, SENT, RECV, LOAD, SUMS };

static PyObject *bytes_of(i64 n) { return PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 8)); }

/* scan(xadj, adjncy, cwgt, pwgt, rwgt, proc_of, cluster, conn, before_owner, before_home, owner, home):
 * (Comm before n, Comm after n, SUMS x P float64 [QWgt of the state after, Wgt, Comm, Remap from the homes
 * before, MaxSR's sent by old home and received by new home, pwgt] by owner after, keys owner * P + q of each
 * distinct (vertex, neighbour's owner q != its own), boundary vertices, cwgt over cut entries (both ways),
 * moved rwgt, moved vertices) */
static PyObject *scan(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { N = 12 };
    static const char *names[] = {"xadj", "adjncy", "cwgt", "pwgt", "rwgt", "proc_of", "cluster", "conn",
                                  "before_owner", "before_home", "owner", "home"};
    static const char kinds[] = "iiiiififiiii";
    arg a[N] = {{{0}}};
    PyObject *cb = NULL, *ca = NULL, *sums = NULL, *keys = NULL, *ret = NULL;
    i64 *stamp = NULL;
    if (PyTuple_GET_SIZE(args) != N) {
        PyErr_Format(PyExc_TypeError, "metrics: scan expects %d arguments", N);
        return NULL;
    }
    for (int i = 0; i < N; ++i)
        if (!get(PyTuple_GET_ITEM(args, i), &a[i], kinds[i], names[i])) goto done;
    const i64 *xadj = I64(a[0]), *adj = I64(a[1]), *cwgt = I64(a[2]), *pwgt = I64(a[3]), *rwgt = I64(a[4]);
    const i64 *cl = I64(a[6]), *bo = I64(a[8]), *bh = I64(a[9]), *ao = I64(a[10]), *ah = I64(a[11]);
    const double *proc = F64(a[5]), *conn = F64(a[7]);
    i64 n = LEN(a[0]) - 1, P = LEN(a[6]), C = 1;
    while (C * C < LEN(a[7])) ++C;
    int ok = n >= 0 && C * C == LEN(a[7]) && LEN(a[5]) == P && P > 0 && LEN(a[3]) == n && LEN(a[4]) == n;
    for (int i = 8; i < N; ++i) ok = ok && LEN(a[i]) == n;
    ok = ok && xadj[0] == 0 && LEN(a[1]) == xadj[n] && LEN(a[2]) == xadj[n];
    for (i64 v = 0; ok && v < n; ++v) ok = xadj[v] <= xadj[v + 1];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "metrics: scan got arrays of inconsistent sizes");
        goto done;
    }
    for (i64 p = 0; p < P; ++p)
        if (cl[p] < 0 || cl[p] >= C) goto wrong;
    for (i64 v = 0; v < n; ++v)
        if (bo[v] < 0 || bo[v] >= P || bh[v] < 0 || bh[v] >= P || ao[v] < 0 || ao[v] >= P || ah[v] < 0 ||
            ah[v] >= P)
            goto wrong;
    i64 cap = n / 4 + 16, nk = 0, boundary = 0;
    uint64_t cut = 0, moved_w = 0, moved = 0;
    if (!(cb = bytes_of(n)) || !(ca = bytes_of(n)) || !(sums = bytes_of(SUMS * P)) || !(keys = bytes_of(cap)))
        goto done;
    if (!(stamp = malloc((size_t)P * sizeof *stamp))) {
        PyErr_NoMemory();
        goto done;
    }
    for (i64 p = 0; p < P; ++p) stamp[p] = -1;
    double *comm_b = (double *)PyByteArray_AS_STRING(cb), *comm_a = (double *)PyByteArray_AS_STRING(ca);
    double *s = (double *)PyByteArray_AS_STRING(sums);
    for (i64 i = 0; i < SUMS * P; ++i) s[i] = 0.0;
    for (i64 v = 0; v < n; ++v) {
        i64 o = ao[v], h = ah[v], ob = bo[v], hb = bh[v];
        const double *row_a = conn + cl[o] * C, *row_b = conn + cl[ob] * C;
        double acc_a = 0.0, acc_b = 0.0;
        int border = 0;
        for (i64 e = xadj[v]; e < xadj[v + 1]; ++e) {
            i64 w = adj[e];
            if (w < 0 || w >= n) {
                PyErr_SetString(PyExc_ValueError, "metrics: vertex out of range");
                goto done;
            }
            if (ah[w] != o) acc_a += (double)cwgt[e] * row_a[cl[ah[w]]];
            if (bh[w] != ob) acc_b += (double)cwgt[e] * row_b[cl[bh[w]]];
            i64 q = ao[w];
            if (q != o) {
                border = 1;
                cut += (uint64_t)cwgt[e];
                if (stamp[q] != v) {
                    stamp[q] = v;
                    if (nk == cap) {
                        cap *= 2;
                        if (PyByteArray_Resize(keys, (Py_ssize_t)(cap * 8)) < 0) goto done;
                    }
                    ((i64 *)PyByteArray_AS_STRING(keys))[nk++] = o * P + q;
                }
            }
        }
        comm_a[v] = acc_a;
        comm_b[v] = acc_b;
        boundary += border;
        double wgt = (double)pwgt[v] * proc[o];
        double remap = h != o ? (double)rwgt[v] * conn[cl[h] * C + cl[o]] : 0.0;
        double moving = hb != h ? (double)rwgt[v] * conn[cl[hb] * C + cl[h]] : 0.0;
        s[SETTLED * P + o] += wgt + acc_a + remap;
        s[WGT * P + o] += wgt;
        s[COMM * P + o] += acc_a;
        s[REMAP * P + o] += moving;
        s[LOAD * P + o] += (double)pwgt[v];
        if (hb != h) {
            s[SENT * P + hb] += moving;
            s[RECV * P + h] += moving;
            moved_w += (uint64_t)rwgt[v];
            ++moved;
        }
    }
    if (PyByteArray_Resize(keys, (Py_ssize_t)(nk * 8)) < 0) goto done;
    ret = Py_BuildValue("OOOOLLLL", cb, ca, sums, keys, (long long)boundary, (long long)cut, (long long)moved_w,
                        (long long)moved);
    goto done;
wrong:
    PyErr_SetString(PyExc_ValueError, "metrics: processor out of range");
done:
    free(stamp);
    Py_XDECREF(cb);
    Py_XDECREF(ca);
    Py_XDECREF(sums);
    Py_XDECREF(keys);
    release(a, N);
    return ret;
}

/* the int64 value of a record's field (TypeError unless a Python int) */
static int int_of(PyObject *x, i64 *out) {
    if (!PyLong_Check(x)) {
        PyErr_SetString(PyExc_TypeError, "metrics: a counter record holds ints");
        return 0;
    }
    *out = (i64)PyLong_AsLongLong(x);
    return !(*out == -1 && PyErr_Occurred());
}

/* (superstep, per-kind K-tuple) of record i of a list; NULL with TypeError when it is not one */
static PyObject *record_of(PyObject *list, Py_ssize_t i, Py_ssize_t K, i64 *step) {
    PyObject *r = PyList_GET_ITEM(list, i);
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2 || !PyTuple_Check(PyTuple_GET_ITEM(r, 1)) ||
        PyTuple_GET_SIZE(PyTuple_GET_ITEM(r, 1)) != K) {
        PyErr_SetString(PyExc_TypeError, "metrics: a counter record is (superstep, one entry per kind)");
        return NULL;
    }
    return int_of(PyTuple_GET_ITEM(r, 0), step) ? PyTuple_GET_ITEM(r, 1) : NULL;
}

/* records(sent, recv, K): the engine's per-superstep counter records (harness.engine.counters.Counters) as
 * columns. sent: [(superstep, stats)], stats per kind None or (messages, bytes, most one vproc sent, longest
 * modelled seconds or None) (_engine.counted); recv: [(superstep, most)], most per kind an int (_engine.most).
 * Returns bytearrays: sent's supersteps (n int64), its counts (n x K x 4 int64: messages, bytes, most, 1 when a
 * longest time is given; 0 for None), its longest times (n x K float64; 0.0 where none), recv's supersteps (m
 * int64) and most (m x K int64). Values are copied, never summed. */
static PyObject *records(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *sent, *recv, *ss = NULL, *cnt = NULL, *lon = NULL, *rs = NULL, *rm = NULL, *ret = NULL;
    Py_ssize_t K;
    if (!PyArg_ParseTuple(args, "O!O!n", &PyList_Type, &sent, &PyList_Type, &recv, &K)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(sent), m = PyList_GET_SIZE(recv);
    if (K < 1 || !(ss = bytes_of(n)) || !(cnt = bytes_of(n * K * 4)) || !(lon = bytes_of(n * K)) ||
        !(rs = bytes_of(m)) || !(rm = bytes_of(m * K))) {
        if (K < 1) PyErr_SetString(PyExc_ValueError, "metrics: records needs K >= 1");
        goto done;
    }
    i64 *steps = (i64 *)PyByteArray_AS_STRING(ss), *c = (i64 *)PyByteArray_AS_STRING(cnt);
    double *t = (double *)PyByteArray_AS_STRING(lon);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject *stats = record_of(sent, i, K, &steps[i]);
        if (!stats) goto done;
        for (Py_ssize_t q = 0; q < K; ++q, c += 4, ++t) {
            PyObject *e = PyTuple_GET_ITEM(stats, q);
            c[0] = c[1] = c[2] = c[3] = 0, *t = 0.0;
            if (e == Py_None) continue;
            if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 4) {
                PyErr_SetString(PyExc_TypeError, "metrics: a kind's sent record is (messages, bytes, most, longest)");
                goto done;
            }
            for (int j = 0; j < 3; ++j)
                if (!int_of(PyTuple_GET_ITEM(e, j), &c[j])) goto done;
            PyObject *x = PyTuple_GET_ITEM(e, 3);
            if (x != Py_None) {
                if (!PyFloat_Check(x)) {
                    PyErr_SetString(PyExc_TypeError, "metrics: a longest time is a float or None");
                    goto done;
                }
                c[3] = 1, *t = PyFloat_AS_DOUBLE(x);
            }
        }
    }
    i64 *rsteps = (i64 *)PyByteArray_AS_STRING(rs), *most = (i64 *)PyByteArray_AS_STRING(rm);
    for (Py_ssize_t i = 0; i < m; ++i) {
        PyObject *mo = record_of(recv, i, K, &rsteps[i]);
        if (!mo) goto done;
        for (Py_ssize_t q = 0; q < K; ++q)
            if (!int_of(PyTuple_GET_ITEM(mo, q), &most[i * K + q])) goto done;
    }
    ret = PyTuple_Pack(5, ss, cnt, lon, rs, rm);
done:
    Py_XDECREF(ss);
    Py_XDECREF(cnt);
    Py_XDECREF(lon);
    Py_XDECREF(rs);
    Py_XDECREF(rm);
    return ret;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS, "every core figure's per-vertex and per-processor sums of a cell, in one pass"},
    {"records", records, METH_VARARGS, "the engine's per-superstep counter records as columns"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_metrics", "A cell's figures in one pass.", -1, methods};

PyMODINIT_FUNC PyInit__metrics(void) { return PyModule_Create(&module); }
