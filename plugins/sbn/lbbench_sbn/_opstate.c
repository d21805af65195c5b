/* The balancing operations' state in C (SBN §3 GetBalance: the balance message down T_x, the gather of
 * QWgt up the tree, §5.4's 3 log P stages), for a superstep's batch: each processor's run of consecutive
 * BAL, NAK, ABORT and UP messages is one call. The Python reference path (balancer.LevelRun with
 * NATIVE = False: _control, _join, _get_up, _gathered, _rows, _entry, _leave, _abort) does the same in the
 * same order; what a processor reports (its QWgt, the processors next to its queue) and the root's plan stay
 * Python, called back. Operations are (start superstep, root, seq, overloaded), ordered as tuples.
 *
 * Per processor: the operations passing through it (its "active" ones: a gather in progress, or the
 * successors that joined, awaiting DIST or ABORT), whether a later one was joined before an earlier one
 * reached it (lost), and the operation it offered its deficit to (promised). The counters busy, prom
 * (numpy arrays of the level) are kept in step. Messages go out as balancer's Outbox tuples. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int64_t i64;
enum { BAL, NAK, ABORT, UP };
#define MAXK 64 /* successors of a node in a broadcast tree: at most log2 P */

typedef struct {
    i64 *a, n, cap;
} vec;

typedef struct {
    i64 key[4], parent, pend[MAXK], join[MAXK];
    int gathering, lost, nak, npend, njoin;
    vec rows; /* the gathered rows [p, QWgt, flags], as the floats' bits */
    vec keys, lens, procs; /* the receivers, their neighbour counts, their neighbour processors */
} ent;

typedef struct {
    ent **e;
    int n, cap, has_prom;
    i64 prom[4];
} proc;

typedef struct {
    PyObject_HEAD
    i64 L, pow2, step;
    proc *pr;
    Py_buffer kstart, kid, busy, prom, prom_until, minth, ops, aborted, val, off, src;
    int have, bound;
    PyObject *csr, *qwgt, *holders, *root, *as_array;
} Ops;

static int push(vec *v, const i64 *x, i64 k) {
    if (v->n + k > v->cap) {
        i64 cap = v->cap * 2 > v->n + k ? v->cap * 2 : v->n + k + 16;
        i64 *a = realloc(v->a, (size_t)cap * 8);
        if (!a) {
            PyErr_NoMemory();
            return -1;
        }
        v->a = a, v->cap = cap;
    }
    memcpy(v->a + v->n, x, (size_t)k * 8);
    v->n += k;
    return 0;
}

static void drop(ent *e) {
    if (!e) return;
    free(e->rows.a), free(e->keys.a), free(e->lens.a), free(e->procs.a);
    free(e);
}

static int cmp4(const i64 *a, const i64 *b) {
    for (int j = 0; j < 4; ++j)
        if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
    return 0;
}

static int find(const proc *p, const i64 *key) {
    for (int j = 0; j < p->n; ++j)
        if (!cmp4(p->e[j]->key, key)) return j;
    return -1;
}

static PyObject *op_tuple(const i64 *key) {
    return Py_BuildValue("(LLLL)", key[0], key[1], key[2], key[3]);
}

static int parse_op(PyObject *t, i64 *key) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 4) {
        PyErr_SetString(PyExc_TypeError, "opstate: an operation is a 4-tuple");
        return -1;
    }
    for (int j = 0; j < 4; ++j) {
        key[j] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, j));
        if (key[j] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* one message (src, dst, code, fields, 0 bytes of data) into the Outbox */
static int emit(PyObject *out, i64 src, i64 dst, int code, PyObject *fields) {
    PyObject *msgs = PyObject_GetAttrString(out, "msgs");
    if (!msgs) return -1;
    PyObject *t = Py_BuildValue("(LLiOi)", src, dst, code, fields, 0);
    int r = t ? PyList_Append(msgs, t) : -1;
    Py_XDECREF(t);
    Py_DECREF(msgs);
    return r;
}

static void promise(Ops *s, i64 i, const i64 *key) {
    proc *p = &s->pr[i];
    p->has_prom = key != NULL;
    if (key) memcpy(p->prom, key, sizeof p->prom);
    ((uint8_t *)s->prom.buf)[i] = key != NULL;
}

static int promised(const proc *p, const i64 *key) { return p->has_prom && !cmp4(p->prom, key); }

/* the successors of node n in T_root, in processor order (Trees.children) */
static int children(Ops *s, i64 root, i64 n, i64 *out) {
    Py_buffer ks, kd;
    const i64 *kstart, *kid;
    i64 xr = root;
    PyObject *t = NULL;
    if (s->pow2) {
        kstart = s->kstart.buf, kid = s->kid.buf;
    } else {
        t = PyObject_CallFunction(s->csr, "L", root);
        if (!t) return -1;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(t, 0), &ks, PyBUF_C_CONTIGUOUS) < 0) {
            Py_DECREF(t);
            return -1;
        }
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(t, 1), &kd, PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&ks);
            Py_DECREF(t);
            return -1;
        }
        kstart = ks.buf, kid = kd.buf, xr = 0;
    }
    i64 a = kstart[n ^ xr], b = kstart[(n ^ xr) + 1], k = b - a;
    if (k > MAXK) k = -1;
    for (i64 j = 0; j < k; ++j) {
        i64 c = kid[a + j] ^ xr, x = j;
        for (; x > 0 && out[x - 1] > c; --x) out[x] = out[x - 1];
        out[x] = c;
    }
    if (t) {
        PyBuffer_Release(&ks), PyBuffer_Release(&kd);
        Py_DECREF(t);
    }
    if (k < 0) PyErr_SetString(PyExc_ValueError, "opstate: a node with too many successors");
    return (int)k;
}

/* take op out of p's active ones (its gather state and lost mark with it); the caller frees it */
static ent *leave(Ops *s, i64 i, const i64 *key) {
    proc *p = &s->pr[i];
    int j = find(p, key);
    if (j < 0) {
        PyErr_SetString(PyExc_KeyError, "opstate: an operation not passing through the processor");
        return NULL;
    }
    ent *e = p->e[j];
    p->e[j] = p->e[--p->n];
    ((i64 *)s->busy.buf)[i] -= 1;
    return e;
}

/* ABORT: release the nodes that joined an abandoned operation */
static int abort_op(Ops *s, i64 i, i64 p, const i64 *key, PyObject *out) {
    ent *e = leave(s, i, key);
    if (!e) return -1;
    PyObject *op = op_tuple(key);
    int r = op ? 0 : -1;
    for (int j = 0; j < e->njoin && !r; ++j) r = emit(out, p, e->join[j], ABORT, op);
    Py_XDECREF(op);
    drop(e);
    if (promised(&s->pr[i], key)) promise(s, i, NULL);
    return r;
}

/* what p reports in the gather (balancer.LevelRun._entry): its row [p, QWgt, flags] and, when it may
 * receive, the processors next to its queue, appended to e's */
static int entry(Ops *s, i64 i, i64 p, ent *e) {
    PyObject *r = PyObject_CallFunction(s->qwgt, "L", i);
    if (!r) return -1;
    double L = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (L == -1.0 && PyErr_Occurred()) return -1;
    proc *pr = &s->pr[i];
    int free_ = (!pr->has_prom || promised(pr, e->key)) && s->step > ((i64 *)s->prom_until.buf)[i];
    int req = L < ((double *)s->minth.buf)[i] && free_;
    if (req || (free_ && e->key[3])) promise(s, i, e->key);
    int recv = free_ && promised(pr, e->key);
    double row[3] = {(double)p, L, (double)((req ? 1 : 0) + (recv ? 2 : 0))};
    if (push(&e->rows, (const i64 *)row, 3) < 0) return -1;
    if (!recv) return 0;
    r = PyObject_CallFunction(s->holders, "L", i);
    if (!r) return -1;
    Py_buffer b;
    if (PyObject_GetBuffer(r, &b, PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(r);
        return -1;
    }
    i64 k = b.len / 8;
    int ok = push(&e->keys, &p, 1) == 0 && push(&e->lens, &k, 1) == 0 && push(&e->procs, b.buf, k) == 0;
    PyBuffer_Release(&b);
    Py_DECREF(r);
    return ok ? 0 : -1;
}

static PyObject *bytes_of(const vec *v) { return PyBytes_FromStringAndSize((const char *)v->a, (Py_ssize_t)(v->n * 8)); }

/* all successors answered: report up (UP with the entries, or NAK), or at the root plan or abandon */
static int gathered(Ops *s, i64 i, i64 p, ent *e, PyObject *out) {
    e->gathering = 0;
    int nak = e->nak || e->lost;
    i64 key[4];
    memcpy(key, e->key, sizeof key);
    if (key[1] == p) {
        if (nak) {
            ((i64 *)s->aborted.buf)[i] += 1;
            return abort_op(s, i, p, key, out);
        }
        if (entry(s, i, p, e) < 0) return -1;
        PyObject *r = Py_BuildValue("(LNNNNN)", i, op_tuple(key), bytes_of(&e->rows), bytes_of(&e->keys),
                                    bytes_of(&e->lens), bytes_of(&e->procs));
        e->rows.n = e->keys.n = e->lens.n = e->procs.n = 0;
        if (!r) return -1;
        PyObject *x = PyObject_CallObject(s->root, r); /* the plan and p's DIST; e may be gone after it */
        Py_DECREF(r);
        Py_XDECREF(x);
        return x ? 0 : -1;
    }
    if (nak) {
        PyObject *f = Py_BuildValue("(LLLLi)", key[0], key[1], key[2], key[3], 1);
        int r = f ? emit(out, p, e->parent, NAK, f) : -1;
        Py_XDECREF(f);
        return r;
    }
    if (entry(s, i, p, e) < 0) return -1;
    i64 m = e->rows.n / 3, k = e->keys.n, w = 4 + 1 + 3 * m + 1 + 2 * k + e->procs.n;
    PyObject *ba = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(w * 8));
    if (!ba) return -1;
    i64 *a = (i64 *)PyByteArray_AS_STRING(ba), *at = a + 5;
    memcpy(a, key, 32);
    a[4] = m;
    memcpy(at, e->rows.a, (size_t)(3 * m) * 8), at += 3 * m;
    *at++ = k;
    memcpy(at, e->keys.a, (size_t)k * 8), at += k;
    memcpy(at, e->lens.a, (size_t)k * 8), at += k;
    memcpy(at, e->procs.a, (size_t)e->procs.n * 8);
    e->rows.n = e->keys.n = e->lens.n = e->procs.n = 0;
    PyObject *f = PyObject_CallFunctionObjArgs(s->as_array, ba, NULL);
    Py_DECREF(ba);
    if (!f) return -1;
    int r = emit(out, p, e->parent, UP, f);
    Py_DECREF(f);
    return r || PyObject_SetAttrString(out, "arrays", Py_True) < 0 ? -1 : 0;
}

/* p takes part in op: forward the balance message, or (a leaf) start the gather */
static int join(Ops *s, i64 i, i64 p, const i64 *key, i64 parent, PyObject *out) {
    proc *pr = &s->pr[i];
    ((i64 *)s->busy.buf)[i] += 1;
    for (int j = 0; j < pr->n; ++j)
        if (cmp4(pr->e[j]->key, key) > 0) { /* a later operation: a refusal there, p's deficit offered here */
            pr->e[j]->lost = 1;
            if (promised(pr, pr->e[j]->key)) promise(s, i, NULL);
        }
    if (pr->n == pr->cap) {
        int cap = pr->cap ? 2 * pr->cap : 4;
        ent **e = realloc(pr->e, (size_t)cap * sizeof *e);
        if (!e) {
            PyErr_NoMemory();
            return -1;
        }
        pr->e = e, pr->cap = cap;
    }
    ent *e = calloc(1, sizeof *e);
    if (!e) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(e->key, key, sizeof e->key);
    e->parent = parent, e->gathering = 1;
    pr->e[pr->n++] = e;
    int k = children(s, key[1], p, e->pend);
    if (k < 0) return -1;
    e->npend = k;
    if (!k) return gathered(s, i, p, e, out);
    PyObject *op = op_tuple(key);
    int r = op ? 0 : -1;
    for (int j = 0; j < k && !r; ++j) r = emit(out, p, e->pend[j], BAL, op);
    Py_XDECREF(op);
    return r;
}

/* the gather state of op at p, src's answer taken off its pending successors */
static ent *answer(Ops *s, i64 i, const i64 *key, i64 src) {
    proc *pr = &s->pr[i];
    int j = find(pr, key);
    if (j < 0 || !pr->e[j]->gathering) {
        PyErr_SetString(PyExc_KeyError, "opstate: an answer to a gather not in progress");
        return NULL;
    }
    ent *e = pr->e[j];
    for (int x = 0; x < e->npend; ++x)
        if (e->pend[x] == src) {
            memmove(e->pend + x, e->pend + x + 1, (size_t)(e->npend - x - 1) * 8);
            --e->npend;
            break;
        }
    return e;
}

/* one message of the batch: GetBalance (BAL, NAK, ABORT) and the gather (UP) */
static int handle_one(Ops *s, i64 i, i64 p, i64 m, PyObject *out) {
    const i64 *off = s->off.buf, *val = s->val.buf, *w = val + off[m] + 1, src = ((const i64 *)s->src.buf)[m];
    int code = (int)val[off[m]];
    const i64 *key = w;
    ((double *)s->ops.buf)[s->L + i] += (double)(off[m + 1] - off[m]); /* §5.4: a message handled costs its words */
    proc *pr = &s->pr[i];
    if (code == BAL) {
        int earlier = 0;
        for (int j = 0; j < pr->n && !earlier; ++j) earlier = cmp4(pr->e[j]->key, key) < 0;
        if (!earlier) return join(s, i, p, key, src, out);
        PyObject *f = Py_BuildValue("(LLLLi)", key[0], key[1], key[2], key[3], 0); /* refuse */
        int r = f ? emit(out, p, src, NAK, f) : -1;
        Py_XDECREF(f);
        return r;
    }
    if (code == ABORT) return abort_op(s, i, p, key, out);
    ent *e = answer(s, i, key, src);
    if (!e) return -1;
    if (code == NAK) {
        e->nak = 1;
        if (w[4]) e->join[e->njoin++] = src;
    } else {
        i64 nr = w[4], k = w[5 + 3 * nr], *end = (i64 *)val + off[m + 1];
        const i64 *ks = w + 6 + 3 * nr;
        if (push(&e->rows, w + 5, 3 * nr) < 0 || push(&e->keys, ks, k) < 0 || push(&e->lens, ks + k, k) < 0 ||
            push(&e->procs, ks + 2 * k, end - (ks + 2 * k)) < 0)
            return -1;
        e->join[e->njoin++] = src;
    }
    return e->npend ? 0 : gathered(s, i, p, e, out);
}

static int getbuf(PyObject *o, Py_buffer *b, int writable) {
    return PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0));
}

/* handle(i, p, m, end, step, out): processor p (local index i) handles its messages m, m + 1, ... of the
 * bound batch while they are BAL, NAK, ABORT or UP, up to end; returns the first one it did not handle */
static PyObject *handle(Ops *s, PyObject *args) {
    i64 i, p, m, end;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "LLLLLO", &i, &p, &m, &end, &s->step, &out)) return NULL;
    if (!s->bound || i < 0 || i >= s->L || m < 0 || end > (i64)(s->src.len / 8)) {
        PyErr_SetString(PyExc_ValueError, "opstate: handle out of the bound batch");
        return NULL;
    }
    const i64 *off = s->off.buf, *val = s->val.buf;
    for (; m < end && val[off[m]] <= UP; ++m)
        if (handle_one(s, i, p, m, out) < 0) return NULL;
    return PyLong_FromLongLong(m);
}

static void unbind(Ops *s) {
    if (s->bound) PyBuffer_Release(&s->val), PyBuffer_Release(&s->off), PyBuffer_Release(&s->src);
    s->bound = 0;
}

/* bind(values, offsets, src): the superstep's batch of sbn messages */
static PyObject *bind(Ops *s, PyObject *args) {
    PyObject *v, *o, *r;
    if (!PyArg_ParseTuple(args, "OOO", &v, &o, &r)) return NULL;
    unbind(s);
    if (getbuf(v, &s->val, 0) < 0) return NULL;
    if (getbuf(o, &s->off, 0) < 0) {
        PyBuffer_Release(&s->val);
        return NULL;
    }
    if (getbuf(r, &s->src, 0) < 0) {
        PyBuffer_Release(&s->val), PyBuffer_Release(&s->off);
        return NULL;
    }
    s->bound = 1;
    Py_RETURN_NONE;
}

/* start(i, p, op, step, out): Balance at p, the root of op (p offers its deficit to it unless promised) */
static PyObject *start(Ops *s, PyObject *args) {
    i64 i, p, key[4];
    PyObject *op, *out;
    if (!PyArg_ParseTuple(args, "LLOLO", &i, &p, &op, &s->step, &out) || parse_op(op, key) < 0) return NULL;
    if (i < 0 || i >= s->L) return PyErr_Format(PyExc_IndexError, "opstate: no processor %lld", (long long)i);
    if (!s->pr[i].has_prom) promise(s, i, key);
    if (join(s, i, p, key, -1, out) < 0) return NULL;
    Py_RETURN_NONE;
}

/* leave(i, op): the DIST of op reached p: (the successors that joined it, whether p was promised to it) */
static PyObject *leave_op(Ops *s, PyObject *args) {
    i64 i, key[4];
    PyObject *op;
    if (!PyArg_ParseTuple(args, "LO", &i, &op) || parse_op(op, key) < 0) return NULL;
    if (i < 0 || i >= s->L) return PyErr_Format(PyExc_IndexError, "opstate: no processor %lld", (long long)i);
    int was = promised(&s->pr[i], key);
    if (was) promise(s, i, NULL);
    ent *e = leave(s, i, key);
    if (!e) return NULL;
    PyObject *kids = PyTuple_New(e->njoin);
    for (int j = 0; kids && j < e->njoin; ++j) PyTuple_SET_ITEM(kids, j, PyLong_FromLongLong(e->join[j]));
    drop(e);
    return kids ? Py_BuildValue("(NO)", kids, was ? Py_True : Py_False) : NULL;
}

static void release(Ops *s) {
    unbind(s);
    if (s->have) {
        Py_buffer *b[] = {&s->kstart, &s->kid, &s->busy, &s->prom, &s->prom_until, &s->minth, &s->ops, &s->aborted};
        for (int j = 0; j < s->have; ++j) PyBuffer_Release(b[j]);
        s->have = 0;
    }
    if (s->pr) {
        for (i64 i = 0; i < s->L; ++i) {
            for (int j = 0; j < s->pr[i].n; ++j) drop(s->pr[i].e[j]);
            free(s->pr[i].e);
        }
        free(s->pr);
        s->pr = NULL;
    }
}

/* the callbacks are the level's bound methods: a cycle through the level, which the collector breaks */
static int traverse(Ops *s, visitproc visit, void *arg) {
    Py_VISIT(s->csr);
    Py_VISIT(s->qwgt);
    Py_VISIT(s->holders);
    Py_VISIT(s->root);
    Py_VISIT(s->as_array);
    return 0;
}

static int clear(Ops *s) {
    Py_CLEAR(s->csr);
    Py_CLEAR(s->qwgt);
    Py_CLEAR(s->holders);
    Py_CLEAR(s->root);
    Py_CLEAR(s->as_array);
    return 0;
}

static void dealloc(Ops *s) {
    PyObject_GC_UnTrack(s);
    release(s);
    clear(s);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

/* Ops(pow2, csr, busy, prom, prom_until, minth, ops, aborted, qwgt, holders, root, as_array): the state of the
 * rank's L processors (L = len(busy)). csr: Trees.csr (T_0's, relabelled, when pow2); busy (int64), prom
 * (bool), prom_until (int64), minth (float64), ops ((3, L) float64), aborted (int64): the level's arrays by
 * local index. Called back: qwgt(i) (QWgt of processor i), holders(i) (int64: the processors holding data
 * next to its queue, itself left out), root(i, op, rows, keys, lens, procs) (a gather complete at its root,
 * the rows and neighbour columns as bytes), as_array(bytearray) (an UP message's int64 fields). */
static int init(Ops *s, PyObject *args, PyObject *Py_UNUSED(kw)) {
    PyObject *o[8], *csr, *qwgt, *holders, *root, *as_array, *t0 = NULL;
    int pow2;
    release(s);
    if (!PyArg_ParseTuple(args, "pOOOOOOOOOOO", &pow2, &csr, &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &qwgt,
                          &holders, &root, &as_array))
        return -1;
    Py_buffer *b[] = {&s->kstart, &s->kid, &s->busy, &s->prom, &s->prom_until, &s->minth, &s->ops, &s->aborted};
    t0 = PyObject_CallFunction(csr, "i", 0);
    if (!t0 || !PyTuple_Check(t0) || PyTuple_GET_SIZE(t0) < 2) {
        if (t0) PyErr_SetString(PyExc_TypeError, "opstate: csr(0) must give (kstart, kid, ...)");
        Py_XDECREF(t0);
        return -1;
    }
    o[0] = PyTuple_GET_ITEM(t0, 0), o[1] = PyTuple_GET_ITEM(t0, 1);
    for (; s->have < 8; ++s->have)
        if (getbuf(o[s->have], b[s->have], s->have >= 2) < 0) break;
    Py_DECREF(t0); /* the arrays stay referenced by the buffers */
    if (s->have < 8) return -1;
    s->L = s->busy.len / 8;
    if (s->prom.len != s->L || s->prom_until.len / 8 != s->L || s->minth.len / 8 != s->L ||
        s->ops.len / 8 != 3 * s->L || s->aborted.len / 8 != s->L) {
        PyErr_SetString(PyExc_ValueError, "opstate: the per-processor arrays differ in length");
        return -1;
    }
    s->pr = calloc((size_t)(s->L ? s->L : 1), sizeof *s->pr);
    if (!s->pr) {
        PyErr_NoMemory();
        return -1;
    }
    s->pow2 = pow2;
    PyObject **keep[] = {&s->csr, &s->qwgt, &s->holders, &s->root, &s->as_array};
    PyObject *val[] = {csr, qwgt, holders, root, as_array};
    for (int j = 0; j < 5; ++j) {
        Py_INCREF(val[j]);
        Py_XSETREF(*keep[j], val[j]);
    }
    return 0;
}

static PyMethodDef ops_methods[] = {
    {"bind", (PyCFunction)bind, METH_VARARGS, "the superstep's batch (values, offsets, src)"},
    {"handle", (PyCFunction)handle, METH_VARARGS, "a processor's run of BAL, NAK, ABORT and UP messages"},
    {"start", (PyCFunction)start, METH_VARARGS, "Balance: an operation rooted at a processor"},
    {"leave", (PyCFunction)leave_op, METH_VARARGS, "an operation's DIST at a processor: its joined successors"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject OpsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "lbbench_sbn._opstate.Ops",
    .tp_basicsize = sizeof(Ops),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_doc = "the balancing operations passing through a rank's processors (SBN §3)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)init,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = ops_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_opstate",
                                    "SBN's balancing operations (join, refuse, gather, abandon) in C.", -1, NULL};

PyMODINIT_FUNC PyInit__opstate(void) {
    if (PyType_Ready(&OpsType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "Ops", (PyObject *)&OpsType) < 0) Py_CLEAR(m);
    return m;
}
