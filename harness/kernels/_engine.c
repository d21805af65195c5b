/* The engine's per-superstep path (harness.engine: Engine.send, the counters, the cut by destination rank,
 * the wire form and the delivery order): a fixed number of calls per superstep whatever the rank count, so
 * that a superstep's cost per rank is its messages' and not numpy's per-call overhead times the ranks.
 *
 * Arrays are C-contiguous int64 ('q'/'l') or float64 ('d') buffers, checked here; results are bytearrays
 * (numpy.frombuffer makes them arrays without a copy). Sums run in the order numpy's bincount adds them,
 * so every count and modelled time is the same bit for bit as the numpy expressions they replace
 * (docs/architecture.md, "Engine"). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int64_t i64;
#define NKINDS 3
#define MAX_BYTES 9007199254740992LL /* 2^53 */

#define KERNEL "engine"
#include "_args.h"

#define LEN(a) ((i64)((a).b.len / 8))
#define I64(a) ((const i64 *)(a).b.buf)
#define F64(a) ((const double *)(a).b.buf)

static PyObject *bytes_of(i64 n, char **into) {
    PyObject *r = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (r) *into = PyByteArray_AS_STRING(r);
    return r;
}

/* an int64 column of n entries from a buffer of n or 1 (broadcast) */
static inline i64 at(const i64 *x, i64 len, i64 i) { return len == 1 ? x[0] : x[i]; }

/* the first `ncols` items of tuple t (of `size` items) as int64 columns of one length into a[]; that length,
 * or -1 with an exception */
static i64 columns_of(PyObject *t, Py_ssize_t size, int ncols, arg *a, const char *what) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != size) {
        PyErr_Format(PyExc_TypeError, "engine: a %s is a tuple of %zd", what, size);
        return -1;
    }
    for (int j = 0; j < ncols; ++j)
        if (!get(PyTuple_GET_ITEM(t, j), &a[j], 'i', "column")) return -1;
    for (int j = 1; j < ncols; ++j)
        if (LEN(a[j]) != LEN(a[0])) {
            PyErr_Format(PyExc_ValueError, "engine: a %s's columns differ in length", what);
            return -1;
        }
    return LEN(a[0]);
}

/* an int64 column: its entries and their count (1 or n: broadcast) */
typedef struct {
    const i64 *x;
    i64 len;
} col_t;

/* the five int64 columns of one send (src, dst, kind, nbytes, counts), each of one entry or n (broadcast);
 * kind, nbytes and counts may be absent (x NULL; kind: every message is kind 0; nbytes: counts * row; counts:
 * one row each, none without values, nrows < 0). loc[v] >= 0 marks the local vprocs (P of them). Returns the
 * columns as a tuple of five bytearrays (an empty tuple for no message), or on bad input a pair (code, value)
 * in Engine.send's order of checks: 1 a kind not an index, 2 a source not local, 3 a destination out of range,
 * 4 counts not summing to nrows (value: their sum), 5 declared bytes above 2^53 (value: the largest), 6
 * negative bytes, 7 columns of different lengths. */
static PyObject *columns_core(col_t src, col_t dst, col_t kind, col_t nb, col_t cnt, i64 nrows, i64 row,
                              const i64 *loc, i64 P, i64 nkinds) {
    PyObject *ret = NULL, *cols[5] = {NULL, NULL, NULL, NULL, NULL};
    i64 n, code = 0, value = 0;
    /* src and dst broadcast together to the n messages; kind, nbytes and counts are one entry or n */
    n = src.len == 1 ? dst.len : src.len;
    if (src.len != 1 && dst.len != 1 && src.len != dst.len) code = 7;
    if (code) goto fail;
    if (n == 0) return PyTuple_New(0);
    if ((kind.x && kind.len != 1 && kind.len != n) || (nb.x && nb.len != 1 && nb.len != n) ||
        (cnt.x && cnt.len != 1 && cnt.len != n))
        code = 7;
    if (code) goto fail;
    for (i64 i = 0; kind.x && i < kind.len; ++i)
        if (kind.x[i] < 0 || kind.x[i] >= nkinds) { code = 1; goto fail; }
    for (i64 i = 0; i < src.len; ++i)
        if (src.x[i] < 0 || src.x[i] >= P || loc[src.x[i]] < 0) { code = 2, value = src.x[i]; goto fail; }
    for (i64 i = 0; i < dst.len; ++i)
        if (dst.x[i] < 0 || dst.x[i] >= P) { code = 3, value = dst.x[i]; goto fail; }
    if (nrows >= 0) {
        i64 sum = 0, neg = 0;
        for (i64 i = 0; i < n; ++i) {
            i64 c = cnt.x ? at(cnt.x, cnt.len, i) : 1;
            neg |= c < 0;
            sum += c;
        }
        if (neg || sum != nrows) { code = 4, value = sum; goto fail; }
    }
    if (nb.x) {
        i64 most = 0, neg = 0;
        for (i64 i = 0; i < nb.len; ++i) {
            i64 x = nb.x[i] < 0 ? -nb.x[i] : nb.x[i];
            if (x > most) most = x;
            neg |= nb.x[i] < 0;
        }
        if (most > MAX_BYTES) { code = 5, value = most; goto fail; }
        if (neg) { code = 6; goto fail; }
    }
    i64 *c[5];
    for (int j = 0; j < 5; ++j)
        if (!(cols[j] = bytes_of(n * 8, (char **)&c[j]))) goto done;
    for (i64 i = 0; i < n; ++i) {
        i64 k = nrows < 0 ? 0 : (cnt.x ? at(cnt.x, cnt.len, i) : 1);
        c[0][i] = at(src.x, src.len, i);
        c[1][i] = at(dst.x, dst.len, i);
        c[2][i] = kind.x ? at(kind.x, kind.len, i) : 0;
        c[3][i] = nb.x ? at(nb.x, nb.len, i) : k * row;
        c[4][i] = k;
    }
    ret = PyTuple_Pack(5, cols[0], cols[1], cols[2], cols[3], cols[4]);
    goto done;
fail:
    ret = Py_BuildValue("(LL)", (long long)code, (long long)value);
done:
    for (int j = 0; j < 5; ++j) Py_XDECREF(cols[j]);
    return ret;
}

/* columns(src, dst, kind, nbytes, counts, nrows, row, loc, nkinds): columns_core() of int64 arguments (kind,
 * nbytes and counts may be None), Engine.send's general path (after its conversions). */
static PyObject *columns(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[5], *loco;
    Py_ssize_t nrows, row, nkinds;
    if (!PyArg_ParseTuple(args, "OOOOOnnOn", &o[0], &o[1], &o[2], &o[3], &o[4], &nrows, &row, &loco, &nkinds))
        return NULL;
    static const char *names[] = {"src", "dst", "kind", "nbytes", "counts"};
    arg a[6];
    memset(a, 0, sizeof a);
    PyObject *ret = NULL;
    col_t c[5];
    for (int j = 0; j < 5; ++j) {
        c[j] = (col_t){NULL, 0};
        if (o[j] == Py_None) continue;
        if (!get(o[j], &a[j], 'i', names[j])) goto done;
        c[j] = (col_t){I64(a[j]), LEN(a[j])};
    }
    if (get(loco, &a[5], 'i', "loc"))
        ret = columns_core(c[0], c[1], c[2], c[3], c[4], nrows, row, I64(a[5]), LEN(a[5]), nkinds);
done:
    release(a, 6);
    return ret;
}

/* Engine.send's fast path. The message kinds (KINDS: their names, bound at import) and numpy's ndarray type. */
static PyObject *kind_names = NULL, *ndarray_type = NULL;

/* an argument of send() as an int64 column: an exact int (one entry, held in *one) or a C-contiguous int64
 * buffer (held in *a); 0 when it is neither (the general path converts it), -1 with an exception */
static int int_column(PyObject *o, arg *a, i64 *one, col_t *c) {
    a->held = 0;
    if (PyLong_CheckExact(o)) {
        int over = 0;
        *one = PyLong_AsLongLongAndOverflow(o, &over);
        if (over || (*one == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        }
        *c = (col_t){one, 1};
        return 1;
    }
    if (!PyObject_CheckBuffer(o) || PyObject_GetBuffer(o, &a->b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    a->held = 1;
    const char *f = a->b.format ? a->b.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (a->b.itemsize != 8 || (*f != 'q' && *f != 'l') || f[1] != '\0') return 0;
    *c = (col_t){(const i64 *)a->b.buf, (i64)(a->b.len / 8)};
    return 1;
}

/* send(sends, loc, tag, src, dst, values, counts, nbytes, kind): Engine.send's fast path, one call: the send's
 * columns (columns_core()) appended to the list sends as (tag, columns, values, row bytes). For arguments as
 * they usually come (int64 arrays or ints; values a numeric ndarray or None; kind a name of KINDS or an int64
 * array): None when done (nothing appended for no message), (code, value, rows) for columns_core()'s refusals;
 * False when an argument needs the general path's conversions or checks. */
static PyObject *send(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "engine: send(sends, loc, tag, src, dst, values, counts, nbytes, kind)");
        return NULL;
    }
    PyObject *sends = args[0], *loco = args[1];
    args += 1;  /* tag, src, dst, values, counts, nbytes, kind: args[1 .. 7] */
    PyObject *values = args[4], *kindo = args[7], *ret = NULL;
    arg a[6];
    i64 one[5], kix = 0, nrows = -1, row = 0;
    col_t c[5] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};  /* src, dst, kind, nbytes, counts */
    int ok = 1;
    memset(a, 0, sizeof a);
    if (PyUnicode_CheckExact(kindo)) {
        Py_ssize_t K = kind_names ? PyTuple_GET_SIZE(kind_names) : 0;
        while (kix < K && PyUnicode_Compare(kindo, PyTuple_GET_ITEM(kind_names, kix))) ++kix;
        if (PyErr_Occurred()) return NULL;
        if (kix == K) ok = 0;  /* an unknown kind: the general path's error */
        one[2] = kix, c[2] = (col_t){&one[2], 1};
    } else
        ok = int_column(kindo, &a[2], &one[2], &c[2]);
    if (ok > 0) ok = int_column(args[2], &a[0], &one[0], &c[0]);
    if (ok > 0) ok = int_column(args[3], &a[1], &one[1], &c[1]);
    if (ok > 0 && args[6] != Py_None) ok = int_column(args[6], &a[3], &one[3], &c[3]);
    if (ok > 0 && values != Py_None) {  /* a numeric ndarray of at least one dimension; its row's bytes */
        Py_buffer vb;
        ok = ndarray_type && Py_TYPE(values) == (PyTypeObject *)ndarray_type &&
             PyObject_GetBuffer(values, &vb, PyBUF_RECORDS_RO) == 0;
        if (!ok)
            PyErr_Clear();
        else {
            const char *f = vb.format ? vb.format : "B";
            if (*f == '<' || *f == '=' || *f == '@' || *f == '>' || *f == '!') ++f;
            ok = vb.ndim >= 1 && f[0] && f[1] == '\0' && strchr("?bBhHiIlLqQefdg", f[0]);
            if (ok) {
                nrows = vb.shape[0], row = vb.itemsize;
                for (int d = 1; d < vb.ndim; ++d) row *= vb.shape[d];
            }
            PyBuffer_Release(&vb);
        }
        if (ok && args[5] != Py_None) ok = int_column(args[5], &a[4], &one[4], &c[4]);
    }
    if (ok < 0) goto done;
    if (!ok) {
        ret = Py_NewRef(Py_False);
        goto done;
    }
    if (!get(loco, &a[5], 'i', "loc")) goto done;
    PyObject *cols = columns_core(c[0], c[1], c[2], c[3], c[4], nrows, row, I64(a[5]), LEN(a[5]),
                                  kind_names ? PyTuple_GET_SIZE(kind_names) : 0);
    if (!cols) goto done;
    if (PyTuple_GET_SIZE(cols) == 2) {  /* refused: (code, value, rows) */
        ret = Py_BuildValue("(OOL)", PyTuple_GET_ITEM(cols, 0), PyTuple_GET_ITEM(cols, 1), (long long)nrows);
    } else if (PyTuple_GET_SIZE(cols) == 0) {
        ret = Py_NewRef(Py_None);
    } else {
        PyObject *rowo = PyLong_FromLongLong(row), *e = rowo ? PyTuple_Pack(4, args[1], cols, values, rowo) : NULL;
        if (e && PyList_Append(sends, e) == 0) ret = Py_NewRef(Py_None);
        Py_XDECREF(e);
        Py_XDECREF(rowo);
    }
    Py_DECREF(cols);
done:
    release(a, 6);
    return ret;
}

/* bind(kinds, ndarray, Delivered, frombuffer, dtype): the message kinds' names (a tuple) and numpy's ndarray
 * type, for send(); the class of the Batches the kernels make, numpy.frombuffer and numpy.dtype, for
 * batch_of() */
static PyObject *batch_type = NULL, *frombuffer = NULL, *dtype_fn = NULL, *i64_dtype = NULL, *dtypes = NULL,
                *batch_fields[5] = {NULL}, *dtype_strs = NULL, *s_dtype = NULL, *s_shape = NULL, *s_str = NULL;

static PyObject *bind(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *kinds, *nd, *bt, *fb, *dt;
    if (!PyArg_ParseTuple(args, "O!O!O!OO", &PyTuple_Type, &kinds, &PyType_Type, &nd, &PyType_Type, &bt, &fb, &dt))
        return NULL;
    static const char *names[5] = {"src", "dst", "offsets", "values", "_cols"};
    PyObject *i64 = PyObject_CallFunction(dt, "s", "int64"), *cache = PyDict_New();
    if (!i64 || !cache) {
        Py_XDECREF(i64);
        Py_XDECREF(cache);
        return NULL;
    }
    for (int j = 0; j < 5; ++j)
        if (!batch_fields[j] && !(batch_fields[j] = PyUnicode_InternFromString(names[j]))) {
            Py_DECREF(i64);
            Py_DECREF(cache);
            return NULL;
        }
    if ((!s_dtype && !(s_dtype = PyUnicode_InternFromString("dtype"))) ||
        (!s_shape && !(s_shape = PyUnicode_InternFromString("shape"))) ||
        (!s_str && !(s_str = PyUnicode_InternFromString("str"))) || (!dtype_strs && !(dtype_strs = PyDict_New()))) {
        Py_DECREF(i64);
        Py_DECREF(cache);
        return NULL;
    }
    Py_XSETREF(kind_names, Py_NewRef(kinds));
    Py_XSETREF(ndarray_type, Py_NewRef(nd));
    Py_XSETREF(batch_type, Py_NewRef(bt));
    Py_XSETREF(frombuffer, Py_NewRef(fb));
    Py_XSETREF(dtype_fn, Py_NewRef(dt));
    Py_XSETREF(i64_dtype, i64);
    Py_XSETREF(dtypes, cache);
    Py_RETURN_NONE;
}

/* numpy.frombuffer(buf, dtype) */
static PyObject *from_buffer(PyObject *buf, PyObject *dtype) {
    PyObject *args[2] = {buf, dtype};
    return PyObject_Vectorcall(frombuffer, args, 2, NULL);
}

/* The Batch of join()'s pair (columns: one bytearray of int64 src, dst, kind, nbytes, counts, n each, then
 * offsets, n + 1; values: a bytearray or None) with values of dtype and row shape (a tuple; dtype None
 * without values), of the bound class (batch.Delivered): src, dst and offsets views of the one buffer (the
 * offsets the cached property, known already), the buffer as an int64 array in _cols (kind, nbytes and counts
 * are views of it made when first read); no __init__ run (the fields set in its __dict__). NULL with an
 * exception. */
static PyObject *batch_of(PyObject *pair, PyObject *dtype, PyObject *shape) {
    if (!batch_type) {
        PyErr_SetString(PyExc_RuntimeError, "engine: bind() was not called");
        return NULL;
    }
    PyObject *colso = PyTuple_GET_ITEM(pair, 0), *valso = PyTuple_GET_ITEM(pair, 1);
    Py_ssize_t len = PyByteArray_GET_SIZE(colso) / 8, n = (len - 1) / 6;
    PyObject *f[5] = {NULL}, *b = NULL, *d = NULL, *ret = NULL;  /* src, dst, offsets, values, _cols */
    if (!(f[4] = from_buffer(colso, i64_dtype)) || !(f[0] = PySequence_GetSlice(f[4], 0, n)) ||
        !(f[1] = PySequence_GetSlice(f[4], n, 2 * n)) || !(f[2] = PySequence_GetSlice(f[4], 5 * n, len)))
        goto done;
    if (valso == Py_None) {
        f[3] = Py_NewRef(Py_None);
    } else {
        if (!(f[3] = from_buffer(valso, dtype))) goto done;
        if (PyTuple_GET_SIZE(shape)) {  /* rows of several items: (rows,) + shape */
            i64 rows = ((const i64 *)PyByteArray_AS_STRING(colso))[len - 1];
            PyObject *lead = Py_BuildValue("(L)", (long long)rows), *full = lead ? PySequence_Concat(lead, shape) : NULL,
                     *v = full ? PyObject_CallMethod(f[3], "reshape", "(O)", full) : NULL;
            Py_XDECREF(lead);
            Py_XDECREF(full);
            if (!v) goto done;
            Py_SETREF(f[3], v);
        }
    }
    PyObject *empty = PyTuple_New(0);
    b = empty ? ((PyTypeObject *)batch_type)->tp_new((PyTypeObject *)batch_type, empty, NULL) : NULL;
    Py_XDECREF(empty);
    if (!b || !(d = PyObject_GenericGetDict(b, NULL))) goto done;
    for (int j = 0; j < 5; ++j)
        if (PyDict_SetItem(d, batch_fields[j], f[j]) < 0) goto done;
    ret = Py_NewRef(b);
done:
    for (int j = 0; j < 5; ++j) Py_XDECREF(f[j]);
    Py_XDECREF(b);
    Py_XDECREF(d);
    return ret;
}

/* cache[key], made by make(key) and kept when missing */
static PyObject *kept(PyObject *cache, PyObject *key, PyObject *(*make)(PyObject *)) {
    PyObject *got = PyDict_GetItemWithError(cache, key);
    if (got) return Py_NewRef(got);
    if (PyErr_Occurred() || !(got = make(key))) return NULL;
    if (PyDict_SetItem(cache, key, got) < 0) Py_CLEAR(got);
    return got;
}

static PyObject *dtype_called(PyObject *name) { return PyObject_CallOneArg(dtype_fn, name); }

/* the dtype named by a descriptor's string (numpy.dtype's, kept by name) */
static PyObject *dtype_named(PyObject *name) { return kept(dtypes, name, dtype_called); }

static PyObject *str_read(PyObject *dt) { return PyObject_GetAttr(dt, s_str); }

/* dtype.str (its string is made anew at each read: kept here by dtype) */
static PyObject *dtype_str(PyObject *dt) { return kept(dtype_strs, dt, str_read); }

/* the int64 buffers of a list's items, held in as[] (at most cap) */
static int list_of(PyObject *list, arg *as, Py_ssize_t cap, const char *name) {
    Py_ssize_t m = PyList_GET_SIZE(list);
    if (m > cap) {
        PyErr_Format(PyExc_ValueError, "engine: too many %s parts", name);
        return 0;
    }
    for (Py_ssize_t i = 0; i < m; ++i)
        if (!get(PyList_GET_ITEM(list, i), &as[i], 'i', name)) return 0;
    return 1;
}

/* Per-vproc tallies of one call (NKINDS x L entries), zeroed: kept between calls (the GIL serialises them) and
 * handed back zeroed (a caller sets back to zero the entries its messages touched, or all of them on an error),
 * so a superstep's counting costs its messages, not its rank's L vprocs. slot 0: int64, slot 1: float64. */
static void *scratch(int slot, i64 n) {
    static void *buf[2] = {NULL, NULL};
    static i64 cap[2] = {0, 0};
    if (n > cap[slot]) {
        void *got = calloc((size_t)n + 1, 8);
        if (!got) {
            PyErr_NoMemory();
            return NULL;
        }
        free(buf[slot]);
        buf[slot] = got, cap[slot] = n;
    }
    return buf[slot];
}

/* the counting of counted() over m parts whose (kind, src, dst, nbytes) columns are held in a[4 s .. 4 s + 3]
 * (each part's four of one length), with loc, conn, cluster in a[4 m .. 4 m + 2]: counted()'s result, or NULL
 * with an exception */
static PyObject *count_parts(arg *a, Py_ssize_t m, Py_ssize_t L, double lat, double bw, double one) {
    i64 *msgs = scratch(0, NKINDS * L);
    double *secs = msgs ? scratch(1, NKINDS * L) : NULL;
    PyObject *ret = NULL, *keys = NULL, *kinds = NULL, *bytes = NULL, *stats = NULL;
    if (!msgs || !secs) return NULL;
    const i64 *loc = I64(a[4 * m]), *cl = I64(a[4 * m + 2]);
    const double *conn = F64(a[4 * m + 1]);
    i64 P = LEN(a[4 * m]), C = 1, n = 0;
    while (C * C < LEN(a[4 * m + 1])) ++C;
    for (Py_ssize_t s = 0; s < m; ++s) n += LEN(a[4 * s]);
    i64 *K, *Kd, *B;
    if (!(keys = bytes_of(n * 8, (char **)&K)) || !(kinds = bytes_of(n * 8, (char **)&Kd)) ||
        !(bytes = bytes_of(n * 8, (char **)&B)))
        goto done;
    i64 cnt[NKINDS] = {0}, sum[NKINDS] = {0}, off[NKINDS] = {0};
    double declared = 0.0;
    i64 w = 0;
    for (Py_ssize_t s = 0; s < m; ++s) {
        const i64 *kd = I64(a[4 * s]), *src = I64(a[4 * s + 1]), *dst = I64(a[4 * s + 2]), *nb = I64(a[4 * s + 3]);
        for (i64 i = 0, k = LEN(a[4 * s]); i < k; ++i, ++w) {
            i64 q = kd[i], p = src[i], d = dst[i];
            if (q < 0 || q >= NKINDS || p < 0 || p >= P || d < 0 || d >= P || loc[p] < 0 || loc[p] >= L) {
                PyErr_SetString(PyExc_ValueError, "engine: a counted message is out of range");
                goto done;
            }
            K[w] = p * P + d, Kd[w] = q, B[w] = nb[i];
            declared += (double)nb[i];
            cnt[q] += 1, sum[q] += nb[i];
            msgs[q * L + loc[p]] += 1;
            if (p != d) {
                double c = one;
                if (one < 0) {
                    if (cl[p] < 0 || cl[p] >= C || cl[d] < 0 || cl[d] >= C) {
                        PyErr_SetString(PyExc_ValueError, "engine: a vproc's cluster is out of range");
                        goto done;
                    }
                    c = conn[cl[p] * C + cl[d]];
                }
                secs[q * L + loc[p]] += (lat + (double)nb[i] / bw) * c;
                off[q] = 1;
            }
        }
    }
    /* per kind the busiest sender: its tallies read (and zeroed) at its messages */
    i64 most[NKINDS] = {0};
    double longest[NKINDS] = {0.0};
    for (i64 i = 0; i < n; ++i) {
        i64 at = Kd[i] * L + loc[K[i] / P];
        if (msgs[at] > most[Kd[i]]) most[Kd[i]] = msgs[at];
        if (secs[at] > longest[Kd[i]]) longest[Kd[i]] = secs[at];
        msgs[at] = 0, secs[at] = 0.0;
    }
    if (!(stats = PyTuple_New(NKINDS))) goto done;
    for (int q = 0; q < NKINDS; ++q) {
        PyObject *e;
        if (!cnt[q]) {
            Py_INCREF(Py_None);
            e = Py_None;
        } else {  /* (messages, bytes, most sent, longest or None) */
            PyObject *x[4] = {PyLong_FromLongLong(cnt[q]), PyLong_FromLongLong(sum[q]), PyLong_FromLongLong(most[q]),
                              off[q] ? PyFloat_FromDouble(longest[q]) : Py_NewRef(Py_None)};
            e = x[0] && x[1] && x[2] && x[3] ? PyTuple_New(4) : NULL;
            for (int j = 0; j < 4; ++j)
                if (e) PyTuple_SET_ITEM(e, j, x[j]);
                else Py_XDECREF(x[j]);
            if (!e) goto done;
        }
        PyTuple_SET_ITEM(stats, q, e);
    }
    PyObject *dec = PyFloat_FromDouble(declared);
    if (dec) ret = PyTuple_Pack(5, stats, keys, kinds, bytes, dec);
    Py_XDECREF(dec);
done:
    if (!ret) {  /* stopped part way: every tally back to zero */
        memset(msgs, 0, (size_t)(NKINDS * L) * 8);
        memset(secs, 0, (size_t)(NKINDS * L) * 8);
    }
    Py_XDECREF(stats);
    Py_XDECREF(keys);
    Py_XDECREF(kinds);
    Py_XDECREF(bytes);
    return ret;
}

/* loc, conn and cluster held in a[0 .. 2] */
static int machine_of(arg *a, PyObject *loco, PyObject *conno, PyObject *clo) {
    return get(loco, &a[0], 'i', "loc") && get(conno, &a[1], 'f', "conn") && get(clo, &a[2], 'i', "cluster");
}

/* counted(parts, loc, L, lat, bw, one, conn, cluster): one superstep's sends of a rank, counted in the order
 * they were made. parts: a list of (kind, src, dst, nbytes) int64 columns, one per send in order; loc[v]: the
 * local index of vproc v (L local vprocs); one >= 0: Conn of a one-cluster machine, else conn (C x C float64)
 * and cluster (per vproc). Returns (stats, keys, kinds, nbytes, declared): stats per kind, None when no
 * message had it, else (messages, bytes, most one local vproc sent, the longest local sender's modelled
 * seconds or None when every message stayed on its vproc); keys src * P + dst, kinds and nbytes of every
 * message in send order; declared, their bytes as a float. A sender's modelled time is (latency + bytes /
 * bandwidth) * Conn summed in send order (Counters.count_sent's bincount). */
static PyObject *counted(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *parts, *loco, *conno, *clo;
    Py_ssize_t L;
    double lat, bw, one;
    if (!PyArg_ParseTuple(args, "O!OndddOO", &PyList_Type, &parts, &loco, &L, &lat, &bw, &one, &conno, &clo))
        return NULL;
    Py_ssize_t m = PyList_GET_SIZE(parts);
    arg *a = calloc((size_t)(4 * m + 3), sizeof(arg));
    PyObject *ret = NULL;
    if (!a) return PyErr_NoMemory();
    if (!machine_of(&a[4 * m], loco, conno, clo)) goto done;
    for (Py_ssize_t s = 0; s < m; ++s)
        if (columns_of(PyList_GET_ITEM(parts, s), 4, 4, &a[4 * s], "part (kind, src, dst, nbytes)") < 0) goto done;
    ret = count_parts(a, m, L, lat, bw, one);
done:
    release(a, (int)(4 * m + 3));
    free(a);
    return ret;
}

/* Counters._book in C: books is (sent, log, state), state float64 [declared, held, limit]; one superstep's counted()
 * result kept: declared added to state[0]; past 2^53 bytes nothing more (2: the caller raises Counters' error), else
 * (step, stats) appended to sent, (keys, kinds, nbytes) to log, the messages to held (state[1]); 1 when held then
 * passes limit (the caller merges the log), else 0; -1 with an exception */
static int book_held(PyObject *books, double *state, long long step, PyObject *counted);

static int book_core(PyObject *books, long long step, PyObject *counted) {
    arg st;
    if (!PyTuple_Check(books) || PyTuple_GET_SIZE(books) != 3 || !PyList_Check(PyTuple_GET_ITEM(books, 0)) ||
        !PyList_Check(PyTuple_GET_ITEM(books, 1))) {
        PyErr_SetString(PyExc_TypeError, "engine: books is (sent, log, state), counted counted()'s result");
        return -1;
    }
    if (!get(PyTuple_GET_ITEM(books, 2), &st, 'f', "state")) return -1;
    int ret = -1;
    if (st.b.len != 3 * 8)
        PyErr_SetString(PyExc_ValueError, "engine: books' state is float64 [declared, held, limit]");
    else
        ret = book_held(books, st.b.buf, step, counted);
    release(&st, 1);
    return ret;
}

/* book_core() with books checked and its state's buffer held (state: its float64 [declared, held, limit]) */
static int book_held(PyObject *books, double *state, long long step, PyObject *counted) {
    if (!PyTuple_Check(counted) || PyTuple_GET_SIZE(counted) != 5) {
        PyErr_SetString(PyExc_TypeError, "engine: books is (sent, log, state), counted counted()'s result");
        return -1;
    }
    double dec = PyFloat_AsDouble(PyTuple_GET_ITEM(counted, 4));
    if (dec == -1.0 && PyErr_Occurred()) return -1;
    state[0] += dec;
    if (state[0] > 9007199254740992.0) return 2;  /* MAX_BYTES, 2^53 */
    PyObject *keys = PyTuple_GET_ITEM(counted, 1), *at = PyLong_FromLongLong(step), *sent = NULL, *log = NULL;
    if (at) sent = PyTuple_Pack(2, at, PyTuple_GET_ITEM(counted, 0));
    if (sent) log = PyTuple_GetSlice(counted, 1, 4);
    int bad = !log || !PyByteArray_Check(keys) || PyList_Append(PyTuple_GET_ITEM(books, 0), sent) < 0 ||
              PyList_Append(PyTuple_GET_ITEM(books, 1), log) < 0;
    Py_XDECREF(at), Py_XDECREF(sent), Py_XDECREF(log);
    if (bad) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "engine: counted()'s keys are a bytearray");
        return -1;
    }
    state[1] += (double)(PyByteArray_GET_SIZE(keys) / 8);
    return state[1] > state[2];
}

/* book(books, step, counted): book_core's 0, 1 or 2 */
static PyObject *book(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *books, *counted;
    long long step;
    if (!PyArg_ParseTuple(args, "OLO", &books, &step, &counted)) return NULL;
    int r = book_core(books, step, counted);
    return r < 0 ? NULL : PyLong_FromLong(r);
}

/* the tallies got[] (scratch slot 0) of the messages (kinds k, destinations d, n of them) read back: per kind
 * the largest, and zeroed */
static void best_of(i64 *got, const i64 *k, const i64 *d, i64 n, const i64 *loc, i64 L, i64 *best) {
    for (i64 i = 0; i < n; ++i) {
        i64 at = k[i] * L + loc[d[i]];
        if (got[at] > best[k[i]]) best[k[i]] = got[at];
        got[at] = 0;
    }
}

/* per kind the most one local vproc received (best[kind]; -1 for a kind not seen), as a tuple */
static PyObject *most_tuple(const i64 *best) {
    PyObject *ret = PyTuple_New(NKINDS);
    for (int q = 0; ret && q < NKINDS; ++q) {
        PyObject *x = PyLong_FromLongLong(best[q]);
        if (!x) Py_CLEAR(ret);
        else PyTuple_SET_ITEM(ret, q, x);
    }
    return ret;
}

/* most(kinds, dsts, loc, L): per kind, the most messages one local vproc received (-1: none of the kind),
 * from lists of int64 columns (Counters.count_received). */
static PyObject *most(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ks, *ds, *loco;
    Py_ssize_t L;
    if (!PyArg_ParseTuple(args, "O!O!On", &PyList_Type, &ks, &PyList_Type, &ds, &loco, &L)) return NULL;
    Py_ssize_t m = PyList_GET_SIZE(ks);
    arg *a = calloc((size_t)(2 * m + 1), sizeof(arg));
    i64 *got = scratch(0, NKINDS * L);
    PyObject *ret = NULL;
    if (!a || !got) {
        if (!a) PyErr_NoMemory();
        free(a);
        return NULL;
    }
    if (PyList_GET_SIZE(ds) != m || !list_of(ks, a, m, "kind") || !list_of(ds, a + m, m, "dst") ||
        !get(loco, &a[2 * m], 'i', "loc"))
        goto done;
    const i64 *loc = I64(a[2 * m]);
    i64 P = LEN(a[2 * m]), best[NKINDS] = {-1, -1, -1};
    for (Py_ssize_t s = 0; s < m; ++s) {
        const i64 *k = I64(a[s]), *d = I64(a[m + s]);
        if (LEN(a[s]) != LEN(a[m + s])) {
            PyErr_SetString(PyExc_ValueError, "engine: kinds and destinations differ in length");
            memset(got, 0, (size_t)(NKINDS * L) * 8);
            goto done;
        }
        for (i64 i = 0; i < LEN(a[s]); ++i) {
            if (k[i] < 0 || k[i] >= NKINDS || d[i] < 0 || d[i] >= P || loc[d[i]] < 0 || loc[d[i]] >= L) {
                PyErr_SetString(PyExc_ValueError, "engine: a delivered message is out of range");
                memset(got, 0, (size_t)(NKINDS * L) * 8);
                goto done;
            }
            got[k[i] * L + loc[d[i]]] += 1;
            best[k[i]] = 0;
        }
    }
    for (Py_ssize_t s = 0; s < m; ++s) best_of(got, I64(a[s]), I64(a[m + s]), LEN(a[s]), loc, L, best);
    ret = most_tuple(best);
done:
    release(a, (int)(2 * m + 1));
    free(a);
    return ret;
}

/* pack()'s chunks from its buffers held in a[]: per stream t, a[6 t .. 6 t + 4] its columns (src, dst, kind,
 * nbytes, counts) and a[6 t + 5] its values (held or not), row bytes rowb[t]; a[6 k] rank, a[6 k + 1] desc,
 * a[6 k + 2 + r] rank r's blob. Returns (buffer, sizes) or NULL with an exception. */
static PyObject *pack_core(arg *a, Py_ssize_t k, Py_ssize_t R, const i64 *rowb) {
    size_t kr = (size_t)((k + 1) * R);  /* one block: nm, nv (kr each), size (R + 1), base, vbase (kr each) */
    i64 *nm = calloc(2 * kr + (size_t)R + 1 + 2 * kr * sizeof(char *) / sizeof(i64) + 1, sizeof(i64));
    i64 *nv = nm ? nm + kr : NULL, *size = nm ? nv + kr : NULL;
    char **base = nm ? (char **)(size + R + 1) : NULL, **vbase = nm ? base + kr : NULL;
    PyObject *buf = NULL, *sizes = NULL, *ret = NULL;
    if (!nm) {
        PyErr_NoMemory();
        goto done;
    }
    const i64 *rank = I64(a[6 * k]);
    i64 P = LEN(a[6 * k]), dlen = a[6 * k + 1].b.len;
    for (Py_ssize_t t = 0; t < k; ++t) {
        i64 n = LEN(a[6 * t]);
        const i64 *dst = I64(a[6 * t + 1]), *cnt = I64(a[6 * t + 4]);
        i64 rows = 0;
        for (i64 i = 0; i < n; ++i) {
            if (dst[i] < 0 || dst[i] >= P || rank[dst[i]] < 0 || rank[dst[i]] >= R || cnt[i] < 0) {
                PyErr_SetString(PyExc_ValueError, "engine: a packed message is out of range");
                goto done;
            }
            nm[t * R + rank[dst[i]]] += 1;
            nv[t * R + rank[dst[i]]] += cnt[i] * rowb[t];
            rows += cnt[i];
        }
        if (a[6 * t + 5].held && rows * rowb[t] != a[6 * t + 5].b.len) {
            PyErr_SetString(PyExc_ValueError, "engine: a stream's values do not match its counts");
            goto done;
        }
    }
#define PAD(x) (((x) + 7) & ~(i64)7)
    i64 total = 0;
    for (Py_ssize_t r = 0; r < R; ++r) {
        i64 olen = a[6 * k + 2 + r].b.len, any = olen > 0;
        for (Py_ssize_t t = 0; t < k; ++t) any |= nm[t * R + r] > 0;
        if (!any) continue;
        size[r] = 8 * (3 + 2 * k) + PAD(dlen) + PAD(olen);
        for (Py_ssize_t t = 0; t < k; ++t)
            size[r] += 40 * nm[t * R + r] + (a[6 * t + 5].held ? PAD(nv[t * R + r]) : 0);
        total += size[r];
    }
    char *out;
    if (!(buf = bytes_of(total, &out))) goto done;
    char *pos = out;  /* (every byte is written below: the padding zeroed, the rest copied) */
    for (Py_ssize_t r = 0; r < R; ++r) {
        if (!size[r]) continue;
        i64 *h = (i64 *)pos, olen = a[6 * k + 2 + r].b.len;
        h[0] = k, h[1] = dlen, h[2] = olen;
        for (Py_ssize_t t = 0; t < k; ++t) h[3 + t] = nm[t * R + r], h[3 + k + t] = nv[t * R + r];
        char *p = pos + 8 * (3 + 2 * k);
        memcpy(p, a[6 * k + 1].b.buf, (size_t)dlen);
        memset(p + dlen, 0, (size_t)(PAD(dlen) - dlen));
        p += PAD(dlen);
        memcpy(p, a[6 * k + 2 + r].b.buf, (size_t)olen);
        memset(p + olen, 0, (size_t)(PAD(olen) - olen));
        p += PAD(olen);
        for (Py_ssize_t t = 0; t < k; ++t) {
            base[t * R + r] = p;
            p += 40 * nm[t * R + r];
            vbase[t * R + r] = p;
            if (a[6 * t + 5].held) {
                i64 v = nv[t * R + r];
                memset(p + v, 0, (size_t)(PAD(v) - v));  /* (the values, v bytes, copied below) */
                p += PAD(v);
            }
        }
        pos += size[r];
    }
    for (Py_ssize_t t = 0; t < k; ++t) {  /* each message to its rank's section, in order */
        const i64 *c[5];
        for (int j = 0; j < 5; ++j) c[j] = I64(a[6 * t + j]);
        const char *vals = a[6 * t + 5].held ? (const char *)a[6 * t + 5].b.buf : NULL;
        i64 n = LEN(a[6 * t]), voff = 0;
        i64 *fill = nv + k * R;  /* scratch: messages written per rank so far (the spare row of nv) */
        i64 *vfill = nm + k * R;
        memset(fill, 0, (size_t)R * 8);
        memset(vfill, 0, (size_t)R * 8);
        for (i64 i = 0; i < n; ++i) {
            i64 r = rank[c[1][i]], m = nm[t * R + r], j = fill[r]++;
            i64 *col = (i64 *)base[t * R + r];
            for (int q = 0; q < 5; ++q) col[q * m + j] = c[q][i];
            i64 vb = c[4][i] * rowb[t];
            if (vals) {
                memcpy(vbase[t * R + r] + vfill[r], vals + voff, (size_t)vb);
                vfill[r] += vb;
            }
            voff += vb;
        }
    }
#undef PAD
    if (!(sizes = PyList_New(R))) goto done;
    for (Py_ssize_t r = 0; r < R; ++r) PyList_SET_ITEM(sizes, r, PyLong_FromLongLong(size[r]));
    ret = PyTuple_Pack(2, buf, sizes);
done:
    Py_XDECREF(buf);
    Py_XDECREF(sizes);
    free(nm);
    return ret;
}

/* The streams' descriptor (the same for every rank, decoded once by the receiver: receive()): per stream, in
 * the order given, int64 fields and strings padded to 8 bytes: the tag's UTF-8 (str(tag)) length and bytes,
 * then 0 (no values) or 1, the values' dtype string (dtype.str: length and bytes), row bytes, row dimensions
 * and shape (values.shape[1:]). tags[t], values[t] (an ndarray or None) and rowb[t] of k streams; a bytes
 * object, or NULL with an exception. */
static PyObject *descriptor_of(PyObject *const *tags, PyObject *const *values, const i64 *rowb, Py_ssize_t k) {
    char *out = NULL;
    Py_ssize_t len = 0, cap = 0;
    PyObject *ret = NULL;
#define PUT(src, n)                                                              \
    do {                                                                         \
        Py_ssize_t n_ = (Py_ssize_t)(n), w_ = (n_ + 7) & ~(Py_ssize_t)7;         \
        if (len + w_ > cap) {                                                    \
            Py_ssize_t c2 = 2 * (len + w_) + 64;                                 \
            char *o2 = realloc(out, (size_t)c2);                                 \
            if (!o2) {                                                           \
                PyErr_NoMemory();                                                \
                goto done;                                                       \
            }                                                                    \
            out = o2, cap = c2;                                                  \
        }                                                                        \
        memcpy(out + len, (src), (size_t)n_);                                    \
        memset(out + len + n_, 0, (size_t)(w_ - n_));                            \
        len += w_;                                                               \
    } while (0)
    for (Py_ssize_t t = 0; t < k; ++t) {
        Py_ssize_t nlen, dlen;
        PyObject *name = PyObject_Str(tags[t]), *dt = NULL, *dts = NULL, *shape = NULL;
        const char *nm = name ? PyUnicode_AsUTF8AndSize(name, &nlen) : NULL, *d = NULL;
        int bad = !nm;
        if (!bad) {
            i64 x = nlen, has = values[t] != Py_None;
            PUT(&x, 8);
            PUT(nm, nlen);
            PUT(&has, 8);
            if (has) {
                bad = !(dt = PyObject_GetAttr(values[t], s_dtype)) || !(dts = dtype_str(dt)) ||
                      !(d = PyUnicode_AsUTF8AndSize(dts, &dlen)) || !(shape = PyObject_GetAttr(values[t], s_shape)) ||
                      !PyTuple_Check(shape);
                if (!bad) {
                    i64 f[2] = {dlen, rowb[t]}, nd = PyTuple_GET_SIZE(shape) - 1;
                    PUT(&f[0], 8);
                    PUT(d, dlen);
                    PUT(&f[1], 8);
                    PUT(&nd, 8);
                    for (i64 j = 1; j <= nd && !bad; ++j) {
                        i64 dim = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, j));
                        bad = dim == -1 && PyErr_Occurred();
                        if (!bad) PUT(&dim, 8);
                    }
                }
            }
        }
        Py_XDECREF(name);
        Py_XDECREF(dt);
        Py_XDECREF(dts);
        Py_XDECREF(shape);
        if (bad) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "engine: a stream's values have no shape");
            goto done;
        }
    }
#undef PUT
    ret = PyBytes_FromStringAndSize(out ? out : "", len);
done:
    free(out);
    return ret;
}

/* pack(streams, rank, R, blobs): every rank's chunk of one superstep, one after another in one bytearray, and
 * each chunk's size (batch.wire's form). streams: per tag (src, dst, kind, nbytes, counts, values' bytes or
 * None, row bytes, tag, values), in any order of destinations (each rank's messages keep their order); rank[v]:
 * the rank of vproc v; blobs: per rank the pickled object-path messages (b"" for none). A chunk: int64 header
 * (tags, descriptor bytes, blob bytes, per tag its messages, per tag its value bytes), the streams' descriptor
 * (descriptor_of(), in the streams' order), blob, per tag its five columns and values, each padded to 8
 * bytes. */
static PyObject *pack(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *streams, *ranko, *blobs, *desc = NULL, **tv = NULL;
    Py_ssize_t R;
    if (!PyArg_ParseTuple(args, "O!OnO!", &PyList_Type, &streams, &ranko, &R, &PyList_Type, &blobs)) return NULL;
    Py_ssize_t k = PyList_GET_SIZE(streams);
    arg *a = calloc((size_t)(6 * k + 2 + R), sizeof(arg));
    i64 *rowb = calloc((size_t)k + 1, sizeof(i64));
    PyObject *ret = NULL;
    if (!a || !rowb || !(tv = calloc((size_t)(2 * k + 1), sizeof(PyObject *)))) {
        PyErr_NoMemory();
        goto done;
    }
    if (PyList_GET_SIZE(blobs) != R) {
        PyErr_SetString(PyExc_ValueError, "engine: one blob per rank");
        goto done;
    }
    if (!get(ranko, &a[6 * k], 'i', "rank")) goto done;
    for (Py_ssize_t r = 0; r < R; ++r)
        if (!get(PyList_GET_ITEM(blobs, r), &a[6 * k + 2 + r], 'b', "blob")) goto done;
    for (Py_ssize_t t = 0; t < k; ++t) {
        PyObject *s = PyList_GET_ITEM(streams, t);
        if (columns_of(s, 9, 5, &a[6 * t], "stream (src, dst, kind, nbytes, counts, raw, row, tag, values)") < 0)
            goto done;
        PyObject *v = PyTuple_GET_ITEM(s, 5);
        rowb[t] = PyLong_AsLongLong(PyTuple_GET_ITEM(s, 6));
        if (rowb[t] < 0 && PyErr_Occurred()) goto done;
        if (v != Py_None && !get(v, &a[6 * t + 5], 'b', "values")) goto done;
        tv[t] = PyTuple_GET_ITEM(s, 7), tv[k + t] = PyTuple_GET_ITEM(s, 8);
    }
    if (!(desc = descriptor_of(tv, tv + k, rowb, k)) || !get(desc, &a[6 * k + 1], 'b', "desc")) goto done;
    ret = pack_core(a, k, R, rowb);
done:
    if (a) release(a, (int)(6 * k + 2 + R));
    free(a);
    free(rowb);
    free(tv);
    Py_XDECREF(desc);
    return ret;
}

/* a stable merge sort of idx[0:n] by key[idx] (ties keep their order) */
static void merge_sort(i64 *idx, i64 *tmp, const i64 *key, i64 n) {
    if (n < 2) return;
    if (n <= 16) {
        for (i64 i = 1; i < n; ++i) {
            i64 x = idx[i], j = i;
            while (j > 0 && key[idx[j - 1]] > key[x]) idx[j] = idx[j - 1], --j;
            idx[j] = x;
        }
        return;
    }
    i64 h = n / 2;
    merge_sort(idx, tmp, key, h);
    merge_sort(idx + h, tmp, key, n - h);
    if (key[idx[h - 1]] <= key[idx[h]]) return;
    memcpy(tmp, idx, (size_t)h * 8);
    i64 i = 0, j = h, o = 0;
    while (i < h && j < n) idx[o++] = key[idx[j]] < key[tmp[i]] ? idx[j++] : tmp[i++];
    while (i < h) idx[o++] = tmp[i++];
}

/* one sender's messages of a tag: n messages' five columns (each n int64, `stride` apart), their values */
typedef struct {
    const i64 *col;
    i64 n, stride;
    const char *vals;
    i64 nv;
} seg_t;

/* the messages of segs joined (in order), sorted by destination, then source, then arrival when `sort`,
 * as (columns, values or None): columns one bytearray of int64 src, dst, kind, nbytes, counts (n each) and
 * offsets (n + 1: where each message's rows start in values, `row` bytes a row); has: the messages carry
 * values. NULL with an exception on bad input. */
static PyObject *join(const seg_t *segs, Py_ssize_t m, i64 row, int has, i64 P, int sort) {
    PyObject *cols = NULL, *vo = NULL, *ret = NULL;
    i64 n = 0, nvals = 0;
    for (Py_ssize_t s = 0; s < m; ++s) {
        const seg_t *g = &segs[s];
        i64 rows = 0;
        for (i64 i = 0; i < g->n; ++i) {
            i64 sr = g->col[i], d = g->col[g->stride + i], c = g->col[4 * g->stride + i];
            if (d < 0 || d >= P || sr < 0 || sr >= P || c < 0) {
                PyErr_SetString(PyExc_ValueError, "engine: a delivered message is out of range");
                return NULL;
            }
            rows += c;
        }
        if (has && rows * row != g->nv) {
            PyErr_SetString(PyExc_ValueError, "engine: a part's values do not match its counts");
            return NULL;
        }
        n += g->n, nvals += rows;
    }
    i64 *idx = malloc((size_t)(5 * n) * 8 + 8);  /* idx, tmp, key, from, roff: n each */
    const char **vat = malloc((size_t)n * sizeof(char *) + 8);
    if (!idx || !vat) {
        PyErr_NoMemory();
        goto done;
    }
    i64 *tmp = idx + n, *key = idx + 2 * n, *from = idx + 3 * n, *roff = idx + 4 * n;
    int sorted = 1;
    for (Py_ssize_t s = 0, w = 0; s < m; ++s) {
        const seg_t *g = &segs[s];
        for (i64 i = 0, off = 0; i < g->n; ++i, ++w) {
            key[w] = g->col[g->stride + i] * P + g->col[i];
            idx[w] = w, from[w] = i, roff[w] = s;
            vat[w] = has ? g->vals + off : NULL;
            off += g->col[4 * g->stride + i] * row;
            if (w && key[w] < key[w - 1]) sorted = 0;
        }
    }
    if (sort && !sorted) merge_sort(idx, tmp, key, n);
    i64 *c[6];
    char *vals = NULL;
    if (!(cols = bytes_of((6 * n + 1) * 8, (char **)&c[0]))) goto done;
    for (int j = 1; j < 6; ++j) c[j] = c[0] + j * n;
    if (has) {
        if (!(vo = bytes_of(nvals * row, &vals))) goto done;
    } else {
        Py_INCREF(Py_None);
        vo = Py_None;
    }
    c[5][0] = 0;
    for (i64 o = 0; o < n; ++o) {
        i64 w = idx[o], i = from[w];
        const seg_t *g = &segs[roff[w]];
        for (int j = 0; j < 5; ++j) c[j][o] = g->col[j * g->stride + i];
        c[5][o + 1] = c[5][o] + c[4][o];
        if (vals) memcpy(vals + c[5][o] * row, vat[w], (size_t)(c[4][o] * row));
    }
    ret = PyTuple_Pack(2, cols, vo);
done:
    Py_XDECREF(cols);
    Py_XDECREF(vo);
    free(idx);
    free(vat);
    return ret;
}

/* deliver(src, dst, kind, nbytes, counts, values, row, P, dtype, shape): one rank's own messages of a tag (the
 * sends in order), sorted by destination, then source, then send order (Engine.received's order): their Batch
 * (batch_of(), values of dtype and row shape). */
static PyObject *deliver(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *o[6], *dtype, *shape;
    Py_ssize_t row, P;
    if (!PyArg_ParseTuple(args, "OOOOOOnnOO!", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &row, &P, &dtype,
                          &PyTuple_Type, &shape))
        return NULL;
    static const char *names[] = {"src", "dst", "kind", "nbytes", "counts"};
    arg a[6];
    memset(a, 0, sizeof a);
    PyObject *ret = NULL;
    i64 *cols = NULL;
    for (int j = 0; j < 5; ++j)
        if (!get(o[j], &a[j], 'i', names[j])) goto done;
    if (o[5] != Py_None && !get(o[5], &a[5], 'b', "values")) goto done;
    i64 n = LEN(a[0]);
    for (int j = 1; j < 5; ++j)
        if (LEN(a[j]) != n) {
            PyErr_SetString(PyExc_ValueError, "engine: a stream's columns differ in length");
            goto done;
        }
    if (!(cols = malloc((size_t)(5 * n) * 8 + 8))) {
        PyErr_NoMemory();
        goto done;
    }
    for (int j = 0; j < 5; ++j) memcpy(cols + j * n, a[j].b.buf, (size_t)n * 8);
    seg_t g = {cols, n, n, a[5].held ? (const char *)a[5].b.buf : NULL, a[5].held ? (i64)a[5].b.len : 0};
    PyObject *j = join(&g, 1, row, a[5].held, P, 1);
    if (j) ret = batch_of(j, dtype, shape);
    Py_XDECREF(j);
done:
    free(cols);
    release(a, 6);
    return ret;
}

/* per kind, the most messages of segs one local vproc received (loc[v]: the local index of vproc v among L;
 * -1: no message of the kind), as a tuple (most()'s), or NULL with an exception */
static PyObject *most_of(const seg_t *segs, Py_ssize_t m, const i64 *loc, i64 P, i64 L) {
    i64 *got = scratch(0, NKINDS * L), best[NKINDS] = {-1, -1, -1};
    if (!got) return NULL;
    for (Py_ssize_t s = 0; s < m; ++s)
        for (i64 i = 0; i < segs[s].n; ++i) {
            i64 d = segs[s].col[segs[s].stride + i], k = segs[s].col[2 * segs[s].stride + i];
            if (k < 0 || k >= NKINDS || d < 0 || d >= P || loc[d] < 0 || loc[d] >= L) {
                PyErr_SetString(PyExc_ValueError, "engine: a delivered message is out of range");
                memset(got, 0, (size_t)(NKINDS * L) * 8);
                return NULL;
            }
            got[k * L + loc[d]] += 1;
            best[k] = 0;
        }
    for (Py_ssize_t s = 0; s < m; ++s)
        best_of(got, segs[s].col + 2 * segs[s].stride, segs[s].col + segs[s].stride, segs[s].n, loc, L, best);
    return most_tuple(best);
}

/* The batch sends of one superstep (Engine._sends: each (tag, its five columns, values or None, row bytes)),
 * each tag once, held in a[6 s .. 6 s + 5] (src, dst, kind, nbytes, counts, values) with rowb[s]: 1; 0 when
 * the caller's general path must run (a tag sent twice, values not contiguous, an object-path entry); -1 with
 * an exception. */
static int sends_of(PyObject *sends, arg *a, i64 *rowb) {
    Py_ssize_t m = PyList_GET_SIZE(sends);
    for (Py_ssize_t s = 0; s < m; ++s) {
        PyObject *e = PyList_GET_ITEM(sends, s), *c;
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 4) return 0;
        for (Py_ssize_t r = 0; r < s; ++r) {  /* a tag twice: the general path joins them */
            int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(e, 0), PyTuple_GET_ITEM(PyList_GET_ITEM(sends, r), 0),
                                                Py_EQ);
            if (same) return same < 0 ? -1 : 0;
        }
        c = PyTuple_GET_ITEM(e, 1);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 5) return 0;
        for (int j = 0; j < 5; ++j)
            if (!get(PyTuple_GET_ITEM(c, j), &a[6 * s + j], 'i', "column")) return -1;
        for (int j = 1; j < 5; ++j)
            if (LEN(a[6 * s + j]) != LEN(a[6 * s])) return 0;
        PyObject *v = PyTuple_GET_ITEM(e, 2);
        if (v != Py_None) {
            if (PyObject_GetBuffer(v, &a[6 * s + 5].b, PyBUF_C_CONTIGUOUS) < 0) {
                PyErr_Clear();
                return 0;
            }
            a[6 * s + 5].held = 1;
        }
        if ((rowb[s] = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 3))) == -1 && PyErr_Occurred()) return -1;
    }
    return 1;
}

/* order[] the sends' indices by increasing tag (an insertion sort with the tags' <: a superstep has a few; ties
 * keep their order); -1 with an exception */
static int by_tag(PyObject *sends, Py_ssize_t *order) {
    for (Py_ssize_t s = 0, m = PyList_GET_SIZE(sends); s < m; ++s) {
        Py_ssize_t j = s;
        while (j > 0) {
            int lt = PyObject_RichCompareBool(PyTuple_GET_ITEM(PyList_GET_ITEM(sends, s), 0),
                                              PyTuple_GET_ITEM(PyList_GET_ITEM(sends, order[j - 1]), 0), Py_LT);
            if (lt < 0) return -1;
            if (!lt) break;
            order[j] = order[j - 1], --j;
        }
        order[j] = s;
    }
    return 0;
}

/* count_parts() of the sends held in a[] (sends_of()) with the machine's loc, conn and cluster held in mach[0 .. 2]
 * (borrowed) */
static PyObject *count_held(arg *a, Py_ssize_t m, Py_ssize_t L, double lat, double bw, double one, const arg *mach) {
    arg few[4 * 4 + 3], *c = m <= 4 ? few : calloc((size_t)(4 * m + 3), sizeof(arg));  /* the buffers borrowed */
    if (!c) return PyErr_NoMemory();
    static const int col[4] = {2, 0, 1, 3};  /* kind, src, dst, nbytes */
    for (Py_ssize_t s = 0; s < m; ++s)
        for (int j = 0; j < 4; ++j) c[4 * s + j].b = a[6 * s + col[j]].b;
    for (int j = 0; j < 3; ++j) c[4 * m + j].b = mach[j].b;
    PyObject *ret = count_parts(c, m, L, lat, bw, one);
    if (c != few) free(c);
    return ret;
}

/* Wire: what a rank's exchanges read at every superstep (under MPI; local() at R = 1), held once a cell
 * (Counters.wire; no argument parsed nor buffer taken a superstep): the machine's loc, conn and cluster
 * (machine_of()'s order), each vproc's rank, the books' state; the books (book_core's), R, L, the machine's lat, bw and one. */
typedef struct {
    PyObject_HEAD
    arg h[5];  /* loc, conn, cluster, rank, state */
    PyObject *books, *recv;
    Py_ssize_t R, L;
    double lat, bw, one;
} Wire;

static void wire_dealloc(Wire *w) {
    release(w->h, 5);
    Py_XDECREF(w->books);
    Py_XDECREF(w->recv);
    PyObject_Free(w);
}

static PyTypeObject WireType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "harness.kernels._engine.Wire",
    .tp_basicsize = sizeof(Wire),
    .tp_dealloc = (destructor)wire_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "what a rank's exchanges read at every superstep (wire())",
};

/* wire(rank, R, loc, L, lat, bw, one, conn, cluster, books, recv): the Wire of outgoing(), came() and local() (books:
 * (sent, log, state), book_core's; recv: the list the deliveries' (step, most) go to, Counters.count_received's) */
static PyObject *wire(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ranko, *loco, *conno, *clo, *books, *recv;
    Py_ssize_t R, L;
    double lat, bw, one;
    if (!PyArg_ParseTuple(args, "OnOndddOOO!O!", &ranko, &R, &loco, &L, &lat, &bw, &one, &conno, &clo, &PyTuple_Type,
                          &books, &PyList_Type, &recv))
        return NULL;
    if (PyTuple_GET_SIZE(books) != 3 || !PyList_Check(PyTuple_GET_ITEM(books, 0)) ||
        !PyList_Check(PyTuple_GET_ITEM(books, 1))) {
        PyErr_SetString(PyExc_TypeError, "engine: books is (sent, log, state)");
        return NULL;
    }
    Wire *w = PyObject_New(Wire, &WireType);
    if (!w) return NULL;
    memset(w->h, 0, sizeof w->h);
    w->books = Py_NewRef(books), w->recv = Py_NewRef(recv), w->R = R, w->L = L, w->lat = lat, w->bw = bw, w->one = one;
    if (!machine_of(w->h, loco, conno, clo) || !get(ranko, &w->h[3], 'i', "rank") ||
        !get(PyTuple_GET_ITEM(books, 2), &w->h[4], 'f', "state")) {
        Py_DECREF(w);
        return NULL;
    }
    if (w->h[4].b.len != 3 * 8 || R < 1 || L < 0) {
        PyErr_SetString(PyExc_ValueError, "engine: a wire's state is float64 [declared, held, limit], R >= 1, L >= 0");
        Py_DECREF(w);
        return NULL;
    }
    return (PyObject *)w;
}

/* outgoing()'s and came()'s arguments checked: n of them, args[0] a Wire, args[list] a list, the last an int (into
 * *step); the wire, or NULL with a TypeError naming usage */
static const Wire *wired(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t n, Py_ssize_t list, long long *step,
                         const char *usage) {
    if (nargs != n || Py_TYPE(args[0]) != &WireType || !PyList_Check(args[list]) ||
        ((*step = PyLong_AsLongLong(args[n - 1])) == -1 && PyErr_Occurred())) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "engine: %s", usage);
        return NULL;
    }
    return (const Wire *)args[0];
}

/* outgoing(wire, sends, step): one superstep's batch sends of a rank under MPI (sends_of()) counted in the order
 * made (counted()'s) and booked (book_core's), and packed for every rank by increasing tag (pack()'s chunks, no
 * object-path messages): (buffer, sizes, book_core's 0, 1 or 2), or None (nothing counted) for the caller's general
 * path. */
static PyObject *outgoing(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    long long step;
    const Wire *w = wired(args, nargs, 3, 1, &step, "outgoing(wire, sends: list, step: int)");
    if (!w) return NULL;
    PyObject *sends = args[1];
    Py_ssize_t k = PyList_GET_SIZE(sends), R = w->R, na = 6 * k + 2 + R;
    static char nothing[8];
    /* one block: a[] and b[] (na each), rowb, rowby (k + 1 each), order (k + 1), tv (2 k + 1) */
    char *block = calloc(1, (size_t)(2 * na) * sizeof(arg) + (size_t)(2 * (k + 1)) * sizeof(i64) +
                                (size_t)(k + 1) * sizeof(Py_ssize_t) + (size_t)(2 * k + 1) * sizeof(PyObject *));
    if (!block) return PyErr_NoMemory();
    arg *a = (arg *)block, *b = a + na;
    i64 *rowb = (i64 *)(b + na), *rowby = rowb + k + 1;
    Py_ssize_t *order = (Py_ssize_t *)(rowby + k + 1);
    PyObject **tv = (PyObject **)(order + k + 1);
    PyObject *ret = NULL, *counts = NULL, *packed = NULL, *desc = NULL;
    int ok = sends_of(sends, a, rowb);
    if (ok <= 0) {
        if (!ok) ret = Py_NewRef(Py_None);
        goto done;
    }
    if (by_tag(sends, order) < 0) goto done;
    for (Py_ssize_t t = 0; t < k; ++t) {  /* pack_core's streams in tag order: the buffers borrowed */
        PyObject *e = PyList_GET_ITEM(sends, order[t]);
        for (int j = 0; j < 6; ++j) b[6 * t + j].b = a[6 * order[t] + j].b, b[6 * t + j].held = 0;
        b[6 * t + 5].held = a[6 * order[t] + 5].held;  /* (read as "has values"; released through a[]) */
        rowby[t] = rowb[order[t]];
        tv[t] = PyTuple_GET_ITEM(e, 0), tv[k + t] = PyTuple_GET_ITEM(e, 2);
    }
    for (Py_ssize_t r = 0; r < R; ++r) b[6 * k + 2 + r].b.buf = nothing, b[6 * k + 2 + r].b.len = 0;
    b[6 * k].b = w->h[3].b;  /* rank, borrowed */
    if (!(desc = descriptor_of(tv, tv + k, rowby, k)) || !get(desc, &b[6 * k + 1], 'b', "desc")) goto done;
    if (!(counts = count_held(a, k, w->L, w->lat, w->bw, w->one, w->h))) goto done;
    if (!(packed = pack_core(b, k, R, rowby))) goto done;
    int r = book_held(w->books, w->h[4].b.buf, step, counts);
    PyObject *flag = r < 0 ? NULL : PyLong_FromLong(r);
    if (flag) ret = PyTuple_Pack(3, PyTuple_GET_ITEM(packed, 0), PyTuple_GET_ITEM(packed, 1), flag);
    Py_XDECREF(flag);
done:
    Py_XDECREF(counts);
    Py_XDECREF(packed);
    release(a, (int)na);
    for (Py_ssize_t t = 0; t < k; ++t) b[6 * t + 5].held = 0;  /* borrowed from a[] */
    b[6 * k].held = 0;
    release(b, (int)na);
    Py_XDECREF(desc);
    free(block);
    return ret;
}

/* local(wire, sends, step): one superstep of one rank that hosts every vproc (Engine.exchange at R = 1) in one call,
 * with what the rank's wire holds (Counters.wire: the machine, the books; no argument parsed nor buffer taken a
 * superstep): the sends (sends_of()) counted in the order made (counted()'s result) and booked (book_core's), each
 * tag's messages delivered in (destination, source, send order) (deliver()'s), tags in increasing order, and per
 * kind the most messages one local vproc received (most()'s) appended with step to the wire's recv. Returns
 * ({tag: Batch}, book_core's 0, 1 or 2), or None (nothing counted) for the caller's general path. */
static PyObject *local(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    long long step;
    const Wire *w = wired(args, nargs, 3, 1, &step, "local(wire, sends: list, step: int)");
    if (!w) return NULL;
    PyObject *sends = args[1];
    Py_ssize_t m = PyList_GET_SIZE(sends), L = w->L;
    i64 P = LEN(w->h[0]);
    arg *a = calloc((size_t)(6 * m + 1), sizeof(arg));
    seg_t *segs = calloc((size_t)(m + 1), sizeof(seg_t) + sizeof(i64) + sizeof(Py_ssize_t));  /* rowb, order */
    i64 *rowb = segs ? (i64 *)(segs + m + 1) : NULL, *cols = NULL, total = 0;
    Py_ssize_t *order = segs ? (Py_ssize_t *)(rowb + m + 1) : NULL;
    PyObject *ret = NULL, *counts = NULL, *streams = NULL, *most = NULL;
    if (!a || !segs) {
        PyErr_NoMemory();
        goto done;
    }
    int ok = sends_of(sends, a, rowb);
    if (ok <= 0) {
        if (!ok) ret = Py_NewRef(Py_None);
        goto done;
    }
    if (!(counts = count_held(a, m, L, w->lat, w->bw, w->one, w->h))) goto done;
    for (Py_ssize_t s = 0; s < m; ++s) total += LEN(a[6 * s]);
    if (by_tag(sends, order) < 0) goto done;
    if (!(streams = PyDict_New()) || !(cols = malloc((size_t)(5 * total) * 8 + 8))) goto done;
    for (Py_ssize_t o = 0, at = 0; o < m; ++o) {
        Py_ssize_t s = order[o];
        PyObject *e = PyList_GET_ITEM(sends, s), *vo = PyTuple_GET_ITEM(e, 2);
        i64 n = LEN(a[6 * s]);
        for (int j = 0; j < 5; ++j) memcpy(cols + 5 * at + j * n, a[6 * s + j].b.buf, (size_t)n * 8);
        const arg *v = &a[6 * s + 5];
        seg_t *g = &segs[o];
        *g = (seg_t){cols + 5 * at, n, n, v->held ? (const char *)v->b.buf : NULL, v->held ? (i64)v->b.len : 0};
        at += n;
        PyObject *j = join(g, 1, rowb[s], v->held, P, 1), *dt = NULL, *shape = NULL, *b = NULL;
        if (!j) goto done;
        if (vo == Py_None)
            shape = PyTuple_New(0);
        else if ((dt = PyObject_GetAttr(vo, s_dtype))) {
            PyObject *full = PyObject_GetAttr(vo, s_shape);
            shape = full ? PyTuple_GetSlice(full, 1, PyTuple_GET_SIZE(full)) : NULL;
            Py_XDECREF(full);
        }
        if (shape) b = batch_of(j, dt, shape);
        Py_DECREF(j);
        Py_XDECREF(dt);
        Py_XDECREF(shape);
        if (!b) goto done;
        int bad = PyDict_SetItem(streams, PyTuple_GET_ITEM(e, 0), b);
        Py_DECREF(b);
        if (bad < 0) goto done;
    }
    if (!(most = most_of(segs, m, I64(w->h[0]), P, L))) goto done;
    int r = book_held(w->books, w->h[4].b.buf, step, counts);  /* booked, the deliveries' most appended to recv */
    PyObject *at = r < 0 ? NULL : PyLong_FromLongLong(step), *got = at ? PyTuple_Pack(2, at, most) : NULL,
             *flag = NULL;
    if (got && PyList_Append(w->recv, got) == 0 && (flag = PyLong_FromLong(r))) ret = PyTuple_Pack(2, streams, flag);
    Py_XDECREF(at), Py_XDECREF(got), Py_XDECREF(flag);
done:
    Py_XDECREF(counts);
    Py_XDECREF(streams);
    Py_XDECREF(most);
    if (a) release(a, (int)(6 * m));
    free(a);
    free(segs);
    free(cols);
    return ret;
}

/* a descriptor's stream: its tag (UTF-8), then whether it has values and their dtype string, row bytes
 * and row shape (batch.descriptor writes it: int64 fields, strings padded to 8 bytes) */
typedef struct {
    const char *name, *dt;
    i64 nlen, dtlen, has, row, ndim;
    const i64 *dims;
} stream_t;

static int same_type(const stream_t *x, const stream_t *y) {
    return x->has == y->has && (!x->has || (x->dtlen == y->dtlen && !memcmp(x->dt, y->dt, (size_t)x->dtlen) &&
                                            x->row == y->row && x->ndim == y->ndim &&
                                            !memcmp(x->dims, y->dims, (size_t)x->ndim * 8)));
}

static int by_name(const stream_t *x, const stream_t *y) {
    i64 k = x->nlen < y->nlen ? x->nlen : y->nlen;
    int c = memcmp(x->name, y->name, (size_t)k);
    return c ? c : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

#define PAD8(x) (((x) + 7) & ~(i64)7)
#define NEED(k)                                 \
    do {                                        \
        if ((k) < 0 || pos + (k) > len) goto malformed; \
    } while (0)

/* A stream's tag (a str) and values' dtype (None without values) from its descriptor's strings (x), kept for the
 * few streams a run has (NAMED of them: no string decoded nor dtype looked up a superstep); 1 with both (new
 * references), 0 with an exception */
#define NAMED 16
static struct {
    char key[64];
    i64 klen, nlen;
    PyObject *name, *dtype;
} named[NAMED];
static int nnamed = 0;

static int named_of(const stream_t *x, PyObject **name, PyObject **dtype) {
    char key[64];
    i64 klen = x->nlen + 1 + (x->has ? x->dtlen : 0);  /* the tag, whether it has values, then the dtype string */
    if (klen <= (i64)sizeof key) {
        memcpy(key, x->name, (size_t)x->nlen);
        key[x->nlen] = x->has ? '\1' : '\0';
        if (x->has) memcpy(key + x->nlen + 1, x->dt, (size_t)x->dtlen);
        for (int j = 0; j < nnamed; ++j)
            if (named[j].klen == klen && named[j].nlen == x->nlen && !memcmp(named[j].key, key, (size_t)klen)) {
                *name = Py_NewRef(named[j].name), *dtype = Py_NewRef(named[j].dtype);
                return 1;
            }
    }
    PyObject *dt = x->has ? PyUnicode_DecodeUTF8(x->dt, (Py_ssize_t)x->dtlen, NULL) : Py_NewRef(Py_None);
    *name = PyUnicode_DecodeUTF8(x->name, (Py_ssize_t)x->nlen, NULL);
    *dtype = dt == Py_None ? Py_NewRef(Py_None) : dt ? dtype_named(dt) : NULL;
    Py_XDECREF(dt);
    if (!*name || !*dtype) {
        Py_CLEAR(*name);
        Py_CLEAR(*dtype);
        return 0;
    }
    if (klen <= (i64)sizeof key && nnamed < NAMED) {
        memcpy(named[nnamed].key, key, (size_t)klen);
        named[nnamed].klen = klen, named[nnamed].nlen = x->nlen;
        named[nnamed].name = Py_NewRef(*name), named[nnamed].dtype = Py_NewRef(*dtype);
        ++nnamed;
    }
    return 1;
}
#undef NAMED

/* receive_core(parts, P, sort, loc, L, sizes): what every sending rank's chunk (pack's wire form; parts in rank order,
 * empty for none; with sizes, parts is one buffer of the chunks one after another, sizes[r] bytes rank r's:
 * Transport.received's, no slice made) brought: (blobs, streams), with loc (held: a vproc's local index among L)
 * (blobs, streams, most). blobs: the pickled object-path messages of each sender that sent some;
 * streams: {tag: Batch} in tag order, its senders' messages joined in rank order and, with sort, ordered as
 * join() does (batch_of() join()'s columns and values); most: most()'s of them. */
static PyObject *receive_core(PyObject *parts, Py_ssize_t P, int sort, const arg *loc, Py_ssize_t L, PyObject *sizes) {
    Py_ssize_t R = PyList_GET_SIZE(sizes ? sizes : parts), nseg = 0, nstream = 0, cap = 16;
    i64 at = 0;  /* with sizes: where rank r's chunk begins in the one buffer (a[0]) */
    arg *a = calloc((size_t)R + 1, sizeof(arg));
    seg_t *segs = malloc((size_t)cap * sizeof(seg_t)), *pick = NULL;
    stream_t *uniq = malloc((size_t)cap * sizeof(stream_t));
    Py_ssize_t *which = malloc((size_t)cap * sizeof(Py_ssize_t));
    PyObject *blobs = PyList_New(0), *streams = NULL, *ret = NULL;
    if (!a || !segs || !uniq || !which || !blobs) {
        PyErr_NoMemory();
        goto done;
    }
    if (sizes && !get(parts, &a[0], 'b', "buffer")) goto done;
    for (Py_ssize_t r = 0; r < R; ++r) {
        const char *buf;
        i64 len, pos = 0;
        if (sizes) {
            len = PyLong_AsLongLong(PyList_GET_ITEM(sizes, r));
            if (len == -1 && PyErr_Occurred()) goto done;
            if (len < 0 || len > a[0].b.len - at) goto malformed;
            buf = (const char *)a[0].b.buf + at, at += len;
        } else {
            if (!get(PyList_GET_ITEM(parts, r), &a[r], 'b', "part")) goto done;
            buf = a[r].b.buf, len = a[r].b.len;
        }
        if (!len) continue;
        NEED(24);
        const i64 *h = (const i64 *)buf;
        i64 k = h[0], dlen = h[1], olen = h[2];
        if (k < 0 || k > (1 << 20) || dlen < 0 || olen < 0) goto malformed;
        NEED(24 + 16 * k);
        const i64 *sizes = h + 3;
        pos = 24 + 16 * k;
        NEED(PAD8(dlen));
        const char *desc = buf + pos, *dend = buf + pos + dlen;
        pos += PAD8(dlen);
        NEED(PAD8(olen));
        if (olen) {
            PyObject *blob = PyBytes_FromStringAndSize(buf + pos, (Py_ssize_t)olen);
            if (!blob || PyList_Append(blobs, blob) < 0) {
                Py_XDECREF(blob);
                goto done;
            }
            Py_DECREF(blob);
        }
        pos += PAD8(olen);
        for (i64 t = 0; t < k; ++t) {
            stream_t x;
            memset(&x, 0, sizeof x);
#define FIELD(into)                                            \
    do {                                                       \
        if (desc + 8 > dend) goto malformed;                   \
        memcpy(&(into), desc, 8);                              \
        desc += 8;                                             \
    } while (0)
            FIELD(x.nlen);
            if (x.nlen < 0 || desc + PAD8(x.nlen) > dend) goto malformed;
            x.name = desc, desc += PAD8(x.nlen);
            FIELD(x.has);
            if (x.has) {
                FIELD(x.dtlen);
                if (x.dtlen < 0 || desc + PAD8(x.dtlen) > dend) goto malformed;
                x.dt = desc, desc += PAD8(x.dtlen);
                FIELD(x.row);
                FIELD(x.ndim);
                if (x.row < 0 || x.ndim < 0 || desc + 8 * x.ndim > dend) goto malformed;
                x.dims = (const i64 *)desc, desc += 8 * x.ndim;
            }
#undef FIELD
            i64 n = sizes[t], nv = sizes[k + t];
            if (n < 0 || nv < 0) goto malformed;
            NEED(40 * n);
            seg_t g = {(const i64 *)(buf + pos), n, n, NULL, nv};
            pos += 40 * n;
            if (x.has) {
                NEED(PAD8(nv));
                g.vals = buf + pos;
                pos += PAD8(nv);
            }
            if (nseg == cap) {
                cap *= 2;
                seg_t *s2 = realloc(segs, (size_t)cap * sizeof(seg_t));
                if (s2) segs = s2;
                stream_t *u2 = s2 ? realloc(uniq, (size_t)cap * sizeof(stream_t)) : NULL;
                if (u2) uniq = u2;
                Py_ssize_t *w2 = u2 ? realloc(which, (size_t)cap * sizeof(Py_ssize_t)) : NULL;
                if (!w2) {
                    PyErr_NoMemory();
                    goto done;
                }
                which = w2;
            }
            Py_ssize_t u = 0;
            while (u < nstream && by_name(&uniq[u], &x)) ++u;
            if (u == nstream) uniq[nstream++] = x;
            else if (!same_type(&uniq[u], &x)) {
                PyErr_Format(PyExc_ValueError, "tag '%.*s': a tag's messages either all carry values of one type "
                             "or none do", (int)x.nlen, x.name);
                goto done;
            }
            segs[nseg] = g, which[nseg] = u, ++nseg;
        }
    }
    /* the tags in order (insertion sort: a superstep has a few) */
    Py_ssize_t *order = malloc((size_t)nstream * sizeof(Py_ssize_t) + 8);
    if (!order || !(pick = malloc((size_t)nseg * sizeof(seg_t) + 8))) {
        free(order);
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nstream; ++i) {
        Py_ssize_t j = i;
        while (j > 0 && by_name(&uniq[order[j - 1]], &uniq[i]) > 0) order[j] = order[j - 1], --j;
        order[j] = i;
    }
    if (!(streams = PyDict_New())) {
        free(order);
        goto done;
    }
    for (Py_ssize_t i = 0; i < nstream; ++i) {
        const stream_t *x = &uniq[order[i]];
        Py_ssize_t m = 0;
        for (Py_ssize_t s = 0; s < nseg; ++s)
            if (which[s] == order[i]) pick[m++] = segs[s];
        PyObject *cols = join(pick, m, x->row, (int)x->has, P, sort), *shape = NULL, *name = NULL, *dtype = NULL,
                 *b = NULL;
        if (cols && (shape = PyTuple_New(x->ndim))) {
            for (i64 d = 0; d < x->ndim; ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(x->dims[d]));
            if (named_of(x, &name, &dtype)) b = batch_of(cols, dtype, shape);
        }
        int bad = !b || PyDict_SetItem(streams, name, b) < 0;
        Py_XDECREF(cols);
        Py_XDECREF(shape);
        Py_XDECREF(name);
        Py_XDECREF(dtype);
        Py_XDECREF(b);
        if (bad) {
            free(order);
            goto done;
        }
    }
    free(order);
    if (loc) {  /* per kind, the most messages one local vproc received (most()'s) */
        PyObject *most = most_of(segs, nseg, I64((*loc)), LEN((*loc)), L);
        if (most) ret = PyTuple_Pack(3, blobs, streams, most);
        Py_XDECREF(most);
    } else
        ret = PyTuple_Pack(2, blobs, streams);
    goto done;
malformed:
    PyErr_SetString(PyExc_ValueError, "engine: a received chunk is malformed");
done:
    Py_XDECREF(blobs);
    Py_XDECREF(streams);
    release(a, (int)R);
    free(a);
    free(segs);
    free(uniq);
    free(which);
    free(pick);
    return ret;
}
#undef NEED
#undef PAD8

/* receive(parts, P, sort): receive_core() of a list of parts (batch.unpack): (blobs, streams) */
static PyObject *receive(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *parts;
    Py_ssize_t P;
    int sort;
    if (!PyArg_ParseTuple(args, "O!np", &PyList_Type, &parts, &P, &sort)) return NULL;
    return receive_core(parts, P, sort, NULL, 0, NULL);
}

/* came(wire, buf, sizes, step): what superstep step's exchange brought this rank under MPI (Transport.received's
 * buffer and sizes), receive_core() sorted with the wire's loc: (blobs, {tag: Batch}); when no object-path message
 * came, the deliveries' (step, most) appended to the wire's recv (Counters.count_received's; else the caller counts
 * them with the objects') */
static PyObject *came(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    long long step;
    const Wire *w = wired(args, nargs, 4, 2, &step, "came(wire, buf, sizes: list, step: int)");
    if (!w) return NULL;
    PyObject *got = receive_core(args[1], LEN(w->h[0]), 1, &w->h[0], w->L, args[2]), *at = NULL, *rec = NULL,
             *ret = NULL;
    if (!got) return NULL;
    if (PyList_GET_SIZE(PyTuple_GET_ITEM(got, 0)) == 0 &&
        (!(at = PyLong_FromLongLong(step)) || !(rec = PyTuple_Pack(2, at, PyTuple_GET_ITEM(got, 2))) ||
         PyList_Append(w->recv, rec) < 0))
        goto done;
    ret = PyTuple_GetSlice(got, 0, 2);
done:
    Py_XDECREF(at), Py_XDECREF(rec), Py_DECREF(got);
    return ret;
}

/* Turns: the iterator of Engine.each. It hands out the vprocs of an iterable and times each turn on the wall
 * clock (time.perf_counter's, read at the end of every turn: a turn lasts from the previous one's end, or the
 * loop's start, to its own end); when the loop ends (exhausted, or left: the iterator freed inside a turn) it
 * appends each turn's (vproc, wall seconds) to engine._pending, which Engine._settle charges (settle()) with
 * the rank's CPU over the superstep: no CPU clock read (a system call) per loop. */
typedef struct {
    PyObject_HEAD
    PyObject *pending, *it;  /* engine._pending (a bytearray, emptied in place by settle()) */
    i64 P;
    i64 *vps;
    double *ends, t0;
    Py_ssize_t n, cap;
    int started, turn, charged;
} Turns;

static double clock_of(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the loop's turns, (vproc, wall seconds) each as int64 and float64, appended to engine._pending (a
 * bytearray); a vproc out of range of engine.P: IndexError */
static int charge(Turns *t) {
    t->charged = 1;
    if (!t->n) return 0;
    i64 P = t->P;
    double prev = t->t0;
    for (Py_ssize_t i = 0; i < t->n; ++i) {
        i64 v = t->vps[i] < 0 ? t->vps[i] + P : t->vps[i];
        if (v < 0 || v >= P) {
            PyErr_Format(PyExc_IndexError, "engine: vproc %lld out of range for P = %lld", (long long)t->vps[i],
                         (long long)P);
            return -1;
        }
        t->vps[i] = v;
        t->ends[i] -= prev, prev += t->ends[i];  /* the turn's wall seconds */
    }
    PyObject *pend = t->pending;
    Py_ssize_t at = PyByteArray_GET_SIZE(pend);
    if (PyByteArray_Resize(pend, at + 16 * t->n) < 0) return -1;
    char *out = PyByteArray_AS_STRING(pend) + at;
    for (Py_ssize_t i = 0; i < t->n; ++i) {
        memcpy(out + 16 * i, &t->vps[i], 8);
        memcpy(out + 16 * i + 8, &t->ends[i], 8);
    }
    return 0;
}

/* settle(acc, pending, cpu, wall): the turns in pending (Turns' pairs) charged their share of cpu seconds,
 * acc[vp] += cpu x the turn's wall seconds / wall (wall <= 0: cpu shared evenly over the turns); pending is
 * emptied. */
static PyObject *settle(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *acco, *pend;
    double cpu, wall;
    if (!PyArg_ParseTuple(args, "OO!dd", &acco, &PyByteArray_Type, &pend, &cpu, &wall)) return NULL;
    Py_buffer b;
    if (PyObject_GetBuffer(acco, &b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return NULL;
    if (b.itemsize != 8 || !b.format || strcmp(b.format, "d")) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_TypeError, "engine: _vp_cpu must be a contiguous float64 array");
        return NULL;
    }
    double *acc = b.buf;
    i64 P = (i64)(b.len / 8);
    Py_ssize_t n = PyByteArray_GET_SIZE(pend) / 16;
    const char *in = PyByteArray_AS_STRING(pend);
    for (Py_ssize_t i = 0; i < n; ++i) {
        i64 v;
        double w;
        memcpy(&v, in + 16 * i, 8);
        memcpy(&w, in + 16 * i + 8, 8);
        if (v < 0 || v >= P) {
            PyBuffer_Release(&b);
            PyErr_Format(PyExc_IndexError, "engine: vproc %lld out of range for P = %lld", (long long)v,
                         (long long)P);
            return NULL;
        }
        acc[v] += wall > 0 ? cpu * (w / wall) : cpu / (double)n;
    }
    PyBuffer_Release(&b);
    if (PyByteArray_Resize(pend, 0) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *turns_next(Turns *t) {
    if (t->charged) return NULL;
    if (!t->started) {
        t->started = 1;
        t->t0 = clock_of(CLOCK_MONOTONIC);
    } else if (t->turn) {
        t->ends[t->n - 1] = clock_of(CLOCK_MONOTONIC);
        t->turn = 0;
    }
    PyObject *item = PyIter_Next(t->it);
    if (!item) {
        if (PyErr_Occurred()) {  /* the iterable raised: charge what ran, then raise */
            PyObject *et, *ev, *tb;
            PyErr_Fetch(&et, &ev, &tb);
            if (charge(t) < 0) PyErr_Clear();
            PyErr_Restore(et, ev, tb);
            return NULL;
        }
        charge(t);
        return NULL;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(item, PyExc_IndexError);
    if (v == -1 && PyErr_Occurred()) {
        Py_DECREF(item);
        return NULL;
    }
    if (t->n == t->cap) {
        Py_ssize_t cap = t->cap ? 2 * t->cap : 64;
        i64 *vps = realloc(t->vps, (size_t)cap * sizeof(i64));
        if (vps) t->vps = vps;
        double *ends = vps ? realloc(t->ends, (size_t)cap * sizeof(double)) : NULL;
        if (!ends) {
            Py_DECREF(item);
            return PyErr_NoMemory();
        }
        t->ends = ends, t->cap = cap;
    }
    t->vps[t->n++] = v;
    t->turn = 1;
    return item;
}

static void turns_dealloc(Turns *t) {
    if (t->started && !t->charged) {  /* left inside a turn (break, an exception): the turn ends now */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (t->turn) t->ends[t->n - 1] = clock_of(CLOCK_MONOTONIC);
        if (charge(t) < 0) PyErr_WriteUnraisable((PyObject *)t);
        PyErr_Restore(et, ev, tb);
    }
    Py_XDECREF(t->pending);
    Py_XDECREF(t->it);
    free(t->vps);
    free(t->ends);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static PyTypeObject TurnsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "harness.kernels._engine.Turns",
    .tp_basicsize = sizeof(Turns),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Engine.each's iterator: the vprocs, each turn timed for Engine._settle",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)turns_next,
    .tp_dealloc = (destructor)turns_dealloc,
};

/* turns(pending, P, vps): Engine.each's iterator over the vprocs vps (any iterable of integers) of P, its turns
 * appended to pending (Engine._pending, a bytearray) when the loop ends */
static PyObject *turns(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyByteArray_Check(args[0]) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "engine: turns(pending: bytearray, P: int, vps)");
        return NULL;
    }
    i64 P = PyLong_AsLongLong(args[1]);
    if (P == -1 && PyErr_Occurred()) return NULL;
    PyObject *it = PyObject_GetIter(args[2]);
    if (!it) return NULL;
    Turns *t = PyObject_New(Turns, &TurnsType);
    if (!t) {
        Py_DECREF(it);
        return NULL;
    }
    t->pending = Py_NewRef(args[0]), t->P = P, t->it = it, t->vps = NULL, t->ends = NULL, t->n = t->cap = 0;
    t->started = t->turn = t->charged = 0;
    t->t0 = 0.0;
    return (PyObject *)t;
}

static PyMethodDef methods[] = {
    {"turns", (PyCFunction)(void (*)(void))turns, METH_FASTCALL, "Engine.each's iterator: the vprocs, each turn timed for Engine._settle"},
    {"settle", settle, METH_VARARGS, "Engine.each's turns charged their wall share of a superstep's CPU"},
    {"columns", columns, METH_VARARGS, "the five int64 columns of one send, checked (or an error code)"},
    {"send", (PyCFunction)(void (*)(void))send, METH_FASTCALL, "Engine.send's fast path: one send's columns queued"},
    {"bind", bind, METH_VARARGS, "the message kinds' names and numpy's ndarray type, for send"},
    {"counted", counted, METH_VARARGS, "one superstep's sends counted per kind, in send order"},
    {"most", most, METH_VARARGS, "per kind, the most messages one local vproc received"},
    {"pack", pack, METH_VARARGS, "every rank's chunk of a superstep in one buffer, and their sizes"},
    {"wire", wire, METH_VARARGS, "what a rank's exchanges read at every superstep, held once"},
    {"outgoing", (PyCFunction)(void (*)(void))outgoing, METH_FASTCALL,
     "one superstep's batch sends under MPI: counted, booked and packed"},
    {"book", book, METH_VARARGS, "one superstep's counts kept (Counters._book)"},
    {"local", (PyCFunction)(void (*)(void))local, METH_FASTCALL,
     "one superstep at R = 1: the sends counted and booked, delivered by tag, the most received"},
    {"deliver", deliver, METH_VARARGS, "a rank's own messages of a tag sorted by (dst, src, send order)"},
    {"receive", receive, METH_VARARGS, "every sender's chunk parsed, each tag joined (and sorted)"},
    {"came", (PyCFunction)(void (*)(void))came, METH_FASTCALL,
     "what a superstep's exchange brought a rank under MPI: each tag joined and sorted, the most received"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_engine", "The engine's per-superstep kernels.", -1,
                                    methods};

PyMODINIT_FUNC PyInit__engine(void) {
    if (PyType_Ready(&TurnsType) < 0 || PyType_Ready(&WireType) < 0) return NULL;
    return PyModule_Create(&module);
}
