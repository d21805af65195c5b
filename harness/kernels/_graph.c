/* CSR graph kernels behind harness.model.Graph.neighbours_of, harness.metrics.costs_if_on and
 * harness.view.LocationView: the small-array operations a balancer calls tens of thousands of times a
 * level, where numpy's per-call overhead was most of the time.
 *
 * Every argument is a C-contiguous buffer of int64 ('q'/'l') or float64 ('d'), checked here; every index
 * is checked against the array it indexes (a bad one is a ValueError, never a read out of bounds).
 * Results are returned as bytearrays (numpy.frombuffer makes them writable arrays without a copy).
 * Sums run in the order numpy's bincount would add them, so the figures are the same bit for bit. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;

#define KERNEL "graph"
#include "_args.h"
#include "view_api.h"

/* the arguments: n arrays of the given kinds (named for the errors), then `extra` integers into ints */
static int arrays(PyObject *args, arg *a, int n, const char *kinds, const char *const *names, int extra,
                  Py_ssize_t *ints) {
    memset(a, 0, (size_t)n * sizeof *a);
    if (PyTuple_GET_SIZE(args) != n + extra) {
        PyErr_Format(PyExc_TypeError, "graph: expected %d arguments", n + extra);
        return 0;
    }
    for (int i = 0; i < n; ++i)
        if (!get(PyTuple_GET_ITEM(args, i), &a[i], kinds[i], names[i])) return 0;
    for (int i = 0; i < extra; ++i)
        if ((ints[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(args, n + i))) == -1 && PyErr_Occurred()) return 0;
    return 1;
}

#define LEN(a) ((i64)((a).b.len / 8))
#define I64(a) ((const i64 *)(a).b.buf)
#define F64(a) ((const double *)(a).b.buf)

static PyObject *bad(const char *what) {
    PyErr_Format(PyExc_ValueError, "graph: %s out of range", what);
    return NULL;
}

/* the summed degree of verts; -1 if one of them is not a vertex */
static i64 total_degree(const i64 *xadj, i64 n, const i64 *v, i64 k) {
    i64 t = 0;
    for (i64 i = 0; i < k; ++i) {
        if (v[i] < 0 || v[i] >= n) return -1;
        t += xadj[v[i] + 1] - xadj[v[i]];
    }
    return t;
}

static int by_value(const void *x, const void *y) {
    i64 a = *(const i64 *)x, b = *(const i64 *)y;
    return (a > b) - (a < b);
}

/* rows(xadj, adjncy, verts, mode): the neighbours of every vertex of verts, concatenated in CSR order
 * (mode 0); sorted and each once (1); the same with verts themselves among them (2: the closed
 * neighbourhood) */
static PyObject *rows(PyObject *Py_UNUSED(self), PyObject *args) {
    static const char *names[] = {"xadj", "adjncy", "verts"};
    arg a[3];
    Py_ssize_t mode;
    PyObject *ret = NULL;
    if (!arrays(args, a, 3, "iii", names, 1, &mode)) goto done;
    const i64 *xadj = I64(a[0]), *adj = I64(a[1]), *v = I64(a[2]);
    i64 n = LEN(a[0]) - 1, k = LEN(a[2]);
    i64 t = total_degree(xadj, n, v, k);
    if (t < 0) {
        bad("vertex");
        goto done;
    }
    if (mode == 2) t += k;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(t * 8));
    if (!ret) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), *at = out;
    if (mode == 2) {
        memcpy(at, v, (size_t)k * 8);
        at += k;
    }
    for (i64 i = 0; i < k; ++i) {
        i64 s = xadj[v[i]], e = xadj[v[i] + 1];
        memcpy(at, adj + s, (size_t)(e - s) * 8);
        at += e - s;
    }
    if (mode > 0 && t > 1) {
        i64 m = 1;
        char *mark = t > n / 32 ? calloc((size_t)n, 1) : NULL;  /* many: mark them and read the marks back */
        if (mark) {
            for (i64 i = 0; i < t; ++i) mark[out[i]] = 1;
            m = 0;
            for (i64 x = 0; x < n; ++x)
                if (mark[x]) out[m++] = x;
            free(mark);
        } else {
            qsort(out, (size_t)t, sizeof(i64), by_value);
            for (i64 i = 1; i < t; ++i)
                if (out[i] != out[m - 1]) out[m++] = out[i];
        }
        if (PyByteArray_Resize(ret, (Py_ssize_t)(m * 8)) < 0) Py_CLEAR(ret);
    }
done:
    release(a, 3);
    return ret;
}

/* the value of x in the view: home[x], or kv's where x is one of the sorted keys kk */
static inline i64 seen_at(const i64 *home, const i64 *kk, const i64 *kv, i64 m, i64 x) {
    i64 lo = 0, hi = m;
    while (lo < hi) {
        i64 mid = lo + (hi - lo) / 2;
        if (kk[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return (lo < m && kk[lo] == x) ? kv[lo] : home[x];
}

static int costs_core(const priced_graph *g, const i64 *v, i64 k, const i64 *q, i64 nq, const i64 *home, i64 nh,
                      const i64 *kk, const i64 *kv, i64 m, double *wgt, double *comm, double *remap) {
    const i64 *xadj = g->xadj, *adj = g->adj, *cwgt = g->cwgt, *pwgt = g->pwgt, *rwgt = g->rwgt, *cl = g->cl;
    const double *proc = g->proc, *conn = g->conn;
    i64 n = g->nxadj - 1, P = g->ncl, C = 1;
    while (C * C < g->nconn) ++C;
    if (n < 0 || C * C != g->nconn || g->nproc != P || g->npwgt != n || g->nrwgt != n || nh != n ||
        g->nadj != xadj[n] || g->ncwgt != xadj[n]) {
        PyErr_SetString(PyExc_ValueError, "graph: costs got arrays of inconsistent sizes");
        return -1;
    }
    if (nq != 1 && nq != k) {
        PyErr_SetString(PyExc_ValueError, "graph: q must be one processor or one per vertex");
        return -1;
    }
    if (total_degree(xadj, n, v, k) < 0) {
        bad("vertex");
        return -1;
    }
#define CLUSTER(p, into)                                                \
    do {                                                                \
        if ((p) < 0 || (p) >= P || cl[p] < 0 || cl[p] >= C) goto wrong; \
        into = cl[p];                                                   \
    } while (0)
    for (i64 i = 0; i < k; ++i) {
        i64 qi = q[nq == 1 ? 0 : i], cq, ch;
        CLUSTER(qi, cq);
        const double *row = conn + cq * C;
        double acc = 0.0;
        for (i64 e = xadj[v[i]]; e < xadj[v[i] + 1]; ++e) {
            if (adj[e] < 0 || adj[e] >= n) goto wrong;
            i64 hw = seen_at(home, kk, kv, m, adj[e]);
            CLUSTER(hw, ch);
            acc += (hw != qi) ? (double)cwgt[e] * row[ch] : 0.0;
        }
        comm[i] = acc;
        i64 hv = seen_at(home, kk, kv, m, v[i]);
        CLUSTER(hv, ch);
        remap[i] = (hv != qi) ? (double)rwgt[v[i]] * conn[ch * C + cq] : 0.0;
        wgt[i] = (double)pwgt[v[i]] * proc[qi];
    }
#undef CLUSTER
    return 0;
wrong:
    bad("processor");
    return -1;
}

/* costs(xadj, adjncy, cwgt, pwgt, rwgt, proc_of, cluster, conn, verts, q, home, kk, kv): Wgt, Comm and
 * Remap of every vertex of verts if computed on q (one processor per vertex, or one for all), as 3 x k
 * float64 (SBN §3.1); a vertex's data is where the view (home, kk, kv) says (kk empty: home). */
static PyObject *costs(PyObject *Py_UNUSED(self), PyObject *args) {
    enum { N = 13 };
    static const char *names[] = {"xadj", "adjncy", "cwgt", "pwgt", "rwgt", "proc_of", "cluster", "conn", "verts",
                                  "q", "home", "kk", "kv"};
    arg a[N];
    PyObject *ret = NULL;
    if (!arrays(args, a, N, "iiiiififiiiii", names, 0, NULL)) goto done;
    if (LEN(a[12]) != LEN(a[11])) {
        PyErr_SetString(PyExc_ValueError, "graph: costs got arrays of inconsistent sizes");
        goto done;
    }
    priced_graph g = {I64(a[0]), I64(a[1]), I64(a[2]), I64(a[3]), I64(a[4]), I64(a[6]), F64(a[5]), F64(a[7]),
                      LEN(a[0]), LEN(a[1]), LEN(a[2]), LEN(a[3]), LEN(a[4]), LEN(a[6]), LEN(a[5]), LEN(a[7])};
    i64 k = LEN(a[8]);
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(3 * k * 8));
    if (!ret) goto done;
    double *wgt = (double *)PyByteArray_AS_STRING(ret);
    if (costs_core(&g, I64(a[8]), k, I64(a[9]), LEN(a[9]), I64(a[10]), LEN(a[10]), I64(a[11]), I64(a[12]),
                   LEN(a[11]), wgt, wgt + k, wgt + 2 * k) < 0)
        Py_CLEAR(ret);
done:
    release(a, N);
    return ret;
}

/* lookup(home, kk, kv, verts, P): home[verts], except where verts is in the sorted keys kk (then kv's
 * value); with P > 0 the distinct values instead, sorted (they must lie in [0, P)) */
static PyObject *lookup(PyObject *Py_UNUSED(self), PyObject *args) {
    static const char *names[] = {"home", "kk", "kv", "verts"};
    arg a[4];
    Py_ssize_t P;
    PyObject *ret = NULL;
    char *seen = NULL;
    if (!arrays(args, a, 4, "iiii", names, 1, &P)) goto done;
    const i64 *home = I64(a[0]), *kk = I64(a[1]), *kv = I64(a[2]), *v = I64(a[3]);
    i64 n = LEN(a[0]), m = LEN(a[1]), k = LEN(a[3]);
    if (LEN(a[2]) != m) {
        PyErr_SetString(PyExc_ValueError, "graph: kk and kv differ in length");
        goto done;
    }
    for (i64 i = 0; i < k; ++i)
        if (v[i] < 0 || v[i] >= n) {
            bad("vertex");
            goto done;
        }
    if (P <= 0) {
        ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(k * 8));
        if (!ret) goto done;
        i64 *out = (i64 *)PyByteArray_AS_STRING(ret);
        for (i64 i = 0; i < k; ++i) out[i] = seen_at(home, kk, kv, m, v[i]);
        goto done;
    }
    seen = calloc((size_t)P, 1);
    if (!seen) {
        PyErr_NoMemory();
        goto done;
    }
    i64 count = 0;
    for (i64 i = 0; i < k; ++i) {
        i64 x = seen_at(home, kk, kv, m, v[i]);
        if (x < 0 || x >= P) {
            bad("processor");
            goto done;
        }
        count += !seen[x];
        seen[x] = 1;
    }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(count * 8));
    if (!ret) goto done;
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret);
    for (Py_ssize_t x = 0; x < P; ++x)
        if (seen[x]) *out++ = x;
done:
    free(seen);
    release(a, 4);
    return ret;
}

static int by_key(const void *x, const void *y) {  /* (id, position): equal ids in their order */
    const i64 *a = x, *b = y;
    if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[2] > b[2]) - (a[2] < b[2]);
}

/* the sorted map (kk, kv: m entries) with ids -> vals set (nv: 1 value for all, or one per id; of a repeated id
 * the last entry wins), as 2 x m' int64 (keys, then values) in a new bytearray */
static PyObject *merged(const i64 *kk, const i64 *kv, i64 m, const i64 *ids, i64 k, const i64 *vals, i64 nv) {
    PyObject *ret = NULL;
    if (nv != 1 && nv != k) {
        PyErr_SetString(PyExc_ValueError, "graph: merge got arrays of inconsistent sizes");
        return NULL;
    }
    i64 *pairs = malloc((size_t)(3 * k + 1) * 8);
    if (!pairs) return PyErr_NoMemory();
    for (i64 i = 0; i < k; ++i) {
        pairs[3 * i] = ids[i];
        pairs[3 * i + 1] = vals[nv == 1 ? 0 : i];
        pairs[3 * i + 2] = i;
    }
    qsort(pairs, (size_t)k, 3 * sizeof(i64), by_key);
    i64 u = 0;  /* the last entry of each id, packed as (id, value) pairs */
    for (i64 i = 0; i < k; ++i) {
        if (i + 1 < k && pairs[3 * i + 3] == pairs[3 * i]) continue;
        pairs[2 * u] = pairs[3 * i], pairs[2 * u + 1] = pairs[3 * i + 1], ++u;
    }
    k = u;
    /* where each new id goes among the old keys (a lower bound, by binary search: the ids are few, the map
     * large), reusing the pairs' third words; the old keys between two of them are copied as runs */
    i64 common = 0;
    for (i64 j = 0, lo = 0; j < k; ++j) {
        i64 hi = m, x = pairs[2 * j];
        while (lo < hi) {
            i64 mid = lo + (hi - lo) / 2;
            if (kk[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        pairs[2 * k + j] = lo;
        common += lo < m && kk[lo] == x;
    }
    i64 size = m + k - common;
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(2 * size * 8));
    if (!ret) goto done;
    i64 *ok = (i64 *)PyByteArray_AS_STRING(ret), *ov = ok + size;
    i64 i = 0, t = 0;
    for (i64 j = 0; j < k; ++j) {
        i64 at = pairs[2 * k + j];
        memcpy(ok + t, kk + i, (size_t)(at - i) * 8);
        memcpy(ov + t, kv + i, (size_t)(at - i) * 8);
        t += at - i, i = at;
        if (i < m && kk[i] == pairs[2 * j]) ++i;  /* the new value wins */
        ok[t] = pairs[2 * j], ov[t++] = pairs[2 * j + 1];
    }
    memcpy(ok + t, kk + i, (size_t)(m - i) * 8);
    memcpy(ov + t, kv + i, (size_t)(m - i) * 8);
done:
    free(pairs);
    return ret;
}

static PyObject *KEYS, *VALUES, *FROMBUFFER, *INT64;  /* "keys", "values", numpy.frombuffer, numpy.int64 */

/* LocationView.learn's merge on the view object: its keys and values replaced by those of the merged map (two
 * int64 arrays over one bytearray); nothing when k is 0 */
static int learn_core(PyObject *view, const i64 *ids, i64 k, const i64 *vals, i64 nv) {
    if (!k) return 0;
    if (!FROMBUFFER) {
        PyObject *np = PyImport_ImportModule("numpy");
        if (!np) return -1;
        FROMBUFFER = PyObject_GetAttrString(np, "frombuffer");
        INT64 = PyObject_GetAttrString(np, "int64");
        Py_DECREF(np);
        if (!FROMBUFFER || !INT64) {
            Py_CLEAR(FROMBUFFER);
            return -1;
        }
    }
    static const char *names[] = {"keys", "values"};
    arg a[2];
    PyObject *o[2] = {PyObject_GetAttr(view, KEYS), PyObject_GetAttr(view, VALUES)}, *kv = NULL, *x[2] = {NULL};
    int ok = -1;
    memset(a, 0, sizeof a);
    if (!o[0] || !o[1] || !get(o[0], &a[0], 'i', names[0]) || !get(o[1], &a[1], 'i', names[1])) goto done;
    i64 m = LEN(a[0]);
    if (LEN(a[1]) != m) {
        PyErr_SetString(PyExc_ValueError, "graph: kk and kv differ in length");
        goto done;
    }
    if (!(kv = merged(I64(a[0]), I64(a[1]), m, ids, k, vals, nv))) goto done;
    Py_ssize_t size = PyByteArray_GET_SIZE(kv) / 16;
    PyObject *count = PyLong_FromSsize_t(size), *off = PyLong_FromSsize_t(8 * size), *zero = PyLong_FromLong(0);
    if (count && off && zero) {
        x[0] = PyObject_CallFunctionObjArgs(FROMBUFFER, kv, INT64, count, zero, NULL);
        x[1] = x[0] ? PyObject_CallFunctionObjArgs(FROMBUFFER, kv, INT64, count, off, NULL) : NULL;
    }
    Py_XDECREF(count), Py_XDECREF(off), Py_XDECREF(zero);
    release(a, 2);  /* (before the old arrays may go) */
    a[0].held = a[1].held = 0;
    if (x[1] && PyObject_SetAttr(view, KEYS, x[0]) == 0 && PyObject_SetAttr(view, VALUES, x[1]) == 0) ok = 0;
done:
    release(a, 2);
    Py_XDECREF(o[0]), Py_XDECREF(o[1]), Py_XDECREF(kv), Py_XDECREF(x[0]), Py_XDECREF(x[1]);
    return ok;
}

/* learn(view, ids, vals): LocationView.learn's merge (learn_core) */
static PyObject *learn(PyObject *Py_UNUSED(self), PyObject *args) {
    static const char *names[] = {"ids", "vals"};
    arg a[2];
    PyObject *view, *rest = NULL, *ret = NULL;
    memset(a, 0, sizeof a);
    if (PyTuple_GET_SIZE(args) != 3) {
        PyErr_SetString(PyExc_TypeError, "graph: expected 3 arguments");
        return NULL;
    }
    view = PyTuple_GET_ITEM(args, 0);
    if (!(rest = PyTuple_GetSlice(args, 1, 3))) return NULL;
    if (arrays(rest, a, 2, "ii", names, 0, NULL) && learn_core(view, I64(a[0]), LEN(a[0]), I64(a[1]), LEN(a[1])) == 0)
        ret = Py_NewRef(Py_None);
    release(a, 2);
    Py_DECREF(rest);
    return ret;
}

/* bfs(xadj, adjncy, roots): the breadth-first order of a graph whose rows list each vertex's neighbours in the
 * order they are to be visited, searched from each root in turn that no earlier search reached (every vertex
 * once, in the order reached; a vertex no root reaches is left out): the deque loop it replaces, in C. */
static PyObject *bfs(PyObject *Py_UNUSED(self), PyObject *args) {
    static const char *names[] = {"xadj", "adjncy", "roots"};
    arg a[3];
    PyObject *ret = NULL;
    uint8_t *seen = NULL;
    if (!arrays(args, a, 3, "iii", names, 0, NULL)) goto done;
    const i64 *xadj = I64(a[0]), *adj = I64(a[1]), *roots = I64(a[2]);
    i64 n = LEN(a[0]) - 1, m = LEN(a[1]), k = LEN(a[2]);
    if (n < 0 || xadj[0] != 0 || xadj[n] != m) {
        PyErr_SetString(PyExc_ValueError, "graph: xadj does not match adjncy");
        goto done;
    }
    for (i64 v = 0; v < n; ++v)
        if (xadj[v + 1] < xadj[v]) {
            PyErr_SetString(PyExc_ValueError, "graph: xadj does not match adjncy");
            goto done;
        }
    for (i64 e = 0; e < m; ++e)
        if (adj[e] < 0 || adj[e] >= n) {
            bad("neighbour");
            goto done;
        }
    for (i64 i = 0; i < k; ++i)
        if (roots[i] < 0 || roots[i] >= n) {
            bad("root");
            goto done;
        }
    ret = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
    seen = calloc((size_t)n + 1, 1);
    if (!ret || !seen) {
        Py_CLEAR(ret);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    i64 *out = (i64 *)PyByteArray_AS_STRING(ret), head = 0, tail = 0;  /* out is the queue */
    for (i64 i = 0; i < k; ++i) {
        if (seen[roots[i]]) continue;
        seen[roots[i]] = 1, out[tail++] = roots[i];
        while (head < tail) {
            i64 v = out[head++];
            for (i64 e = xadj[v]; e < xadj[v + 1]; ++e)
                if (!seen[adj[e]]) seen[adj[e]] = 1, out[tail++] = adj[e];
        }
    }
    if (PyByteArray_Resize(ret, (Py_ssize_t)(tail * 8)) < 0) Py_CLEAR(ret);
done:
    free(seen);
    release(a, 3);
    return ret;
}

static PyMethodDef methods[] = {
    {"bfs", bfs, METH_VARARGS, "the breadth-first order of a graph from roots in turn"},
    {"rows", rows, METH_VARARGS, "the neighbours of verts, concatenated in CSR order (or sorted, each once)"},
    {"costs", costs, METH_VARARGS, "Wgt, Comm and Remap of verts if computed on q, from a view (3 x k float64)"},
    {"lookup", lookup, METH_VARARGS, "home[verts] overridden by a sorted map (kk, kv), or its distinct values"},
    {"learn", learn, METH_VARARGS, "LocationView.learn: the view's sorted map with new entries set"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_graph", "CSR graph kernels.", -1, methods};

static view_api API = {VIEW_API_VERSION, costs_core, learn_core};  /* LocationView.C_API */

PyMODINIT_FUNC PyInit__graph(void) {
    PyObject *mod = PyModule_Create(&module), *cap = NULL;
    if (!mod) return NULL;
    if (!(KEYS = PyUnicode_InternFromString("keys")) || !(VALUES = PyUnicode_InternFromString("values")) ||
        !(cap = PyCapsule_New(&API, VIEW_API_NAME, NULL)) ||
        PyModule_AddObject(mod, "view_api", cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
