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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_fastargs.h"

typedef int64_t i64;
enum { BAL, NAK, ABORT, UP, DIST, JOB, DJOB };
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

#define NB 16 /* T_0's arrays, then the level's */

typedef struct {
    PyObject_HEAD
    i64 L, pow2, step;
    proc *pr;
    Py_buffer b[NB], val, off, src;
    int have, bound;
    PyObject *tree, *qwgt, *holders, *root, *update, *send, *jobs, *as_array;
    double P, cnst, floor_minth; /* UpdateLoad's (update_load) */
    int exp;
} Ops;

enum { PRED, DEPTH, KSTART, KID, BUSY, PROM, PROM_UNTIL, HOLD, MINTH, OPS, ABORTED, QS, STG, UNSORTED, WSYSLL, MAXTH };
#define I64(s, k) ((i64 *)(s)->b[k].buf)

/* a tuple of the k ints x[0 .. k) (Py_BuildValue's "(L...)", no format parsed) */
static PyObject *ints_tuple(const i64 *x, int k) {
    PyObject *t = PyTuple_New(k);
    for (int j = 0; t && j < k; ++j) {
        PyObject *v = PyLong_FromLongLong(x[j]);
        if (!v) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, j, v);
    }
    return t;
}

/* f(x[0], ..., x[k - 1]) of k <= 4 ints (PyObject_CallFunction's "L...", no format parsed nor tuple made) */
static PyObject *call_ints(PyObject *f, const i64 *x, int k) {
    PyObject *v[4];
    int j = 0;
    while (j < k && (v[j] = PyLong_FromLongLong(x[j]))) ++j;
    PyObject *r = j == k ? PyObject_Vectorcall(f, v, (size_t)k, NULL) : NULL;
    while (j--) Py_DECREF(v[j]);
    return r;
}

/* T_root as arrays (Trees.arrays): node n is t = n ^ xr there */
typedef struct {
    const i64 *pred, *depth, *kstart, *kid;
    i64 xr;
    Py_buffer b[4];
    int held;
} tree_t;

static void tree_done(tree_t *t) {
    for (int j = 0; j < t->held; ++j) PyBuffer_Release(&t->b[j]);
    t->held = 0;
}

static int tree_of(Ops *s, i64 root, tree_t *t) {
    t->held = 0;
    if (s->pow2) {
        t->pred = I64(s, PRED), t->depth = I64(s, DEPTH), t->kstart = I64(s, KSTART), t->kid = I64(s, KID);
        t->xr = root;
        return 0;
    }
    PyObject *a = call_ints(s->tree, &root, 1);
    if (!a) return -1;
    int ok = PyTuple_Check(a) && PyTuple_GET_SIZE(a) == 5;
    for (; ok && t->held < 4; ++t->held)
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(a, t->held), &t->b[t->held], PyBUF_C_CONTIGUOUS) < 0) ok = 0;
    Py_DECREF(a); /* the arrays stay referenced by the buffers */
    if (!ok) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "opstate: tree(x) must give 5 arrays");
        tree_done(t);
        return -1;
    }
    t->pred = t->b[0].buf, t->depth = t->b[1].buf, t->kstart = t->b[2].buf, t->kid = t->b[3].buf, t->xr = 0;
    return 0;
}

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

static PyObject *op_tuple(const i64 *key) { return ints_tuple(key, 4); }

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

static PyObject *MSGS; /* "msgs", interned */

/* one message (src, dst, code, fields, 0 bytes of data) into the Outbox */
static int emit(PyObject *out, i64 src, i64 dst, int code, PyObject *fields) {
    PyObject *msgs = PyObject_GetAttr(out, MSGS);
    if (!msgs) return -1;
    const i64 ints[5] = {src, dst, code, 0, 0};
    PyObject *t = ints_tuple(ints, 5);  /* (src, dst, code, fields, 0) */
    if (t) Py_SETREF(PyTuple_GET_ITEM(t, 3), Py_NewRef(fields));
    int r = t ? PyList_Append(msgs, t) : -1;
    Py_XDECREF(t);
    Py_DECREF(msgs);
    return r;
}

static void promise(Ops *s, i64 i, const i64 *key) {
    proc *p = &s->pr[i];
    p->has_prom = key != NULL;
    if (key) memcpy(p->prom, key, sizeof p->prom);
    ((uint8_t *)s->b[PROM].buf)[i] = key != NULL;
}

static int promised(const proc *p, const i64 *key) { return p->has_prom && !cmp4(p->prom, key); }

/* the successors of node n in T_root, in processor order (Trees.children) */
static int children(Ops *s, i64 root, i64 n, i64 *out) {
    tree_t t;
    if (tree_of(s, root, &t) < 0) return -1;
    i64 a = t.kstart[n ^ t.xr], k = t.kstart[(n ^ t.xr) + 1] - a;
    if (k > MAXK) k = -1;
    for (i64 j = 0; j < k; ++j) {
        i64 c = t.kid[a + j] ^ t.xr, x = j;
        for (; x > 0 && out[x - 1] > c; --x) out[x] = out[x - 1];
        out[x] = c;
    }
    tree_done(&t);
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
    I64(s, BUSY)[i] -= 1;
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
    PyObject *r;
    double L;
    if (((const uint8_t *)s->b[UNSORTED].buf)[i]) { /* its queue is sorted first: called back */
        if (!(r = call_ints(s->qwgt, &i, 1))) return -1;
        L = PyFloat_AsDouble(r);
        Py_DECREF(r);
        if (L == -1.0 && PyErr_Occurred()) return -1;
    } else /* a sorted queue: QWgt = qs + stg (balancer.LevelRun.qwgt) */
        L = ((const double *)s->b[QS].buf)[i] + ((const double *)s->b[STG].buf)[i];
    proc *pr = &s->pr[i];
    int free_ = (!pr->has_prom || promised(pr, e->key)) && s->step > I64(s, PROM_UNTIL)[i];
    int req = L < ((double *)s->b[MINTH].buf)[i] && free_;
    if (req || (free_ && e->key[3])) promise(s, i, e->key);
    int recv = free_ && promised(pr, e->key);
    double row[3] = {(double)p, L, (double)((req ? 1 : 0) + (recv ? 2 : 0))};
    if (push(&e->rows, (const i64 *)row, 3) < 0) return -1;
    if (!recv) return 0;
    r = call_ints(s->holders, &i, 1);
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

/* an UP or DIST message's fields (int64 words in ba): a tuple of ints when short, else an int64 array (the
 * outbox's pack copies it whole) */
static PyObject *fields_of(Ops *s, PyObject *ba) {
    i64 w = PyByteArray_GET_SIZE(ba) / 8;
    const i64 *a = (const i64 *)PyByteArray_AS_STRING(ba);
    if (w > 32) return PyObject_CallOneArg(s->as_array, ba);
    return ints_tuple(a, (int)w);
}

static PyObject *bytes_of(const vec *v) { return PyBytes_FromStringAndSize((const char *)v->a, (Py_ssize_t)(v->n * 8)); }

/* UpdateLoad(GWLen) of Fig. 4 (thresholds.update_load's arithmetic, in its order): t = WSysLL, MinTh, MaxTh */
static void update_core(double gw, double P, double c, int exp, double floor_minth, double *t) {
    double w = ceil(gw / P - 1e-9) + 0.0, ratio = floor(w / c); /* (+ 0.0: never -0.0, as Python's int) */
    double hi = exp ? w + (ratio <= 60 ? pow(2.0, ratio) : INFINITY) : w + 2.0 * ratio;
    double lo = w - c > 0.0 ? w - c : 0.0;
    if (w > c) lo = c;
    if (floor_minth != 0.0 && w > c && floor_minth > lo) lo = floor_minth;
    t[0] = w, t[1] = lo, t[2] = hi;
}

/* UpdateLoad at processor i: its WSysLL, MinTh and MaxTh in the level's arrays (balancer.LevelRun._update_at's) */
static void update_load(Ops *s, i64 i, double gw) {
    double t[3];
    update_core(gw, s->P, s->cnst, s->exp, s->floor_minth, t);
    ((double *)s->b[WSYSLL].buf)[i] = t[0];
    ((double *)s->b[MINTH].buf)[i] = t[1];
    ((double *)s->b[MAXTH].buf)[i] = t[2];
}

/* update_load(GWLen, P, Const, exp, floor_minth): update_core's (WSysLL, MinTh, MaxTh), as thresholds.update_load
 * gives them (tests compare the two) */
static PyObject *update_load_(PyObject *Py_UNUSED(self), PyObject *args) {
    double gw, P, c, f, t[3];
    int exp;
    if (!PyArg_ParseTuple(args, "dddpd", &gw, &P, &c, &exp, &f)) return NULL;
    update_core(gw, P, c, exp, f, t);
    return Py_BuildValue("(ddd)", t[0], t[1], t[2]);
}

/* the distribution message at p (balancer.LevelRun._get_dist): UpdateLoad, p's own sends of the plan, the hold
 * until its planned jobs arrive, then to each successor that joined the part of the plan for its subtree. w:
 * the DIST fields (op, GWLen, e, e senders, e receivers, e amounts, e bases, a, a receivers, a depths) */
static int dist(Ops *s, i64 i, i64 p, const i64 *w, i64 nw, PyObject *out) {
    i64 e = nw > 5 ? w[5] : -1, n = 0;
    const i64 *S = w + 6, *J = S + e, *A = J + e, *B = A + e, *K, *D;
    if (e < 0 || 7 + 4 * e > nw || (n = B[e], 7 + 4 * e + 2 * n != nw)) {
        PyErr_SetString(PyExc_ValueError, "opstate: a malformed DIST message");
        return -1;
    }
    K = B + e + 1, D = K + n;
    i64 key[4];
    memcpy(key, w, sizeof key);
    double gw, a, b;
    memcpy(&gw, w + 4, 8);
    update_load(s, i, gw);
    PyObject *r;
    for (i64 x = 0; x < e; ++x)
        if (S[x] == p) {
            memcpy(&a, A + x, 8), memcpy(&b, B + x, 8);
            PyObject *v[4] = {PyLong_FromLongLong(i), PyLong_FromLongLong(J[x]), PyFloat_FromDouble(a),
                              PyFloat_FromDouble(b)};
            r = v[0] && v[1] && v[2] && v[3] ? PyObject_Vectorcall(s->send, v, 4, NULL) : NULL;
            for (int j = 0; j < 4; ++j) Py_XDECREF(v[j]);
            if (!r) return -1;
            Py_DECREF(r);
        }
    tree_t t;
    if (tree_of(s, key[1], &t) < 0) return -1;
    i64 top = t.depth[p ^ t.xr], *hold = I64(s, HOLD);
    for (i64 x = 0; x < n; ++x)
        if (K[x] == p && s->step + D[x] - top + 1 > hold[i]) hold[i] = s->step + D[x] - top + 1;
    int was = promised(&s->pr[i], key);
    if (was) promise(s, i, NULL);
    ent *en = leave(s, i, key);
    if (!en) {
        tree_done(&t);
        return -1;
    }
    if (was) I64(s, PROM_UNTIL)[i] = hold[i];
    int nk = en->njoin, rc = 0;
    i64 *kid = malloc((size_t)(e + n + 1) * 8), cnt[MAXK][2] = {{0}};
    if (!kid) rc = -1, PyErr_NoMemory();
    for (i64 x = 0; x < e + n && !rc && nk; ++x) { /* the successor whose subtree holds each entry's node */
        i64 u = x < e ? S[x] : K[x - e];
        kid[x] = -1;
        if (u == p) continue;
        i64 v = u ^ t.xr;
        while (t.depth[v] > top + 1) v = t.pred[v];
        for (int j = 0; j < nk; ++j)
            if (en->join[j] == (v ^ t.xr)) kid[x] = j;
        if (kid[x] < 0) {
            PyErr_SetString(PyExc_KeyError, "opstate: a plan entry outside the joined subtrees");
            rc = -1;
        } else
            cnt[kid[x]][x >= e] += 1;
    }
    for (int j = 0; j < nk && !rc; ++j) {
        i64 ek = cnt[j][0], ak = cnt[j][1];
        PyObject *ba = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((7 + 4 * ek + 2 * ak) * 8));
        if (!ba) {
            rc = -1;
            break;
        }
        i64 *f = (i64 *)PyByteArray_AS_STRING(ba), *fs = f + 6, *fa = fs + 4 * ek + 1;
        memcpy(f, w, 40);
        f[5] = ek, fa[-1] = ak;
        for (i64 x = 0, y = 0; x < e; ++x)
            if (kid[x] == j) fs[y] = S[x], fs[ek + y] = J[x], fs[2 * ek + y] = A[x], fs[3 * ek + y] = B[x], ++y;
        for (i64 x = 0, y = 0; x < n; ++x)
            if (kid[e + x] == j) fa[y] = K[x], fa[ak + y] = D[x], ++y;
        PyObject *fl = fields_of(s, ba);
        Py_DECREF(ba);
        rc = fl ? emit(out, p, en->join[j], DIST, fl) : -1;
        Py_XDECREF(fl);
    }
    free(kid);
    drop(en);
    tree_done(&t);
    return rc;
}

/* all successors answered: report up (UP with the entries, or NAK), or at the root plan or abandon */
static int gathered(Ops *s, i64 i, i64 p, ent *e, PyObject *out) {
    e->gathering = 0;
    int nak = e->nak || e->lost;
    i64 key[4];
    memcpy(key, e->key, sizeof key);
    if (key[1] == p) {
        if (nak) {
            I64(s, ABORTED)[i] += 1;
            return abort_op(s, i, p, key, out);
        }
        if (entry(s, i, p, e) < 0) return -1;
        PyObject *v[6] = {PyLong_FromLongLong(i), op_tuple(key), bytes_of(&e->rows), bytes_of(&e->keys),
                          bytes_of(&e->lens), bytes_of(&e->procs)}, *x = NULL;
        e->rows.n = e->keys.n = e->lens.n = e->procs.n = 0;
        if (v[0] && v[1] && v[2] && v[3] && v[4] && v[5])
            x = PyObject_Vectorcall(s->root, v, 6, NULL); /* the plan: p's own DIST fields */
        for (int j = 0; j < 6; ++j) Py_XDECREF(v[j]);
        if (!x) return -1;
        Py_buffer f;
        int ok = PyObject_GetBuffer(x, &f, PyBUF_C_CONTIGUOUS) == 0;
        Py_DECREF(x); /* the array stays referenced by the buffer */
        if (!ok) return -1;
        ok = dist(s, i, p, f.buf, f.len / 8, out);
        PyBuffer_Release(&f);
        return ok;
    }
    if (nak) {
        const i64 words[5] = {key[0], key[1], key[2], key[3], 1};  /* NAK (op, joined): a member passes the nak up */
        PyObject *f = ints_tuple(words, 5);
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
    PyObject *f = fields_of(s, ba);
    Py_DECREF(ba);
    if (!f) return -1;
    int r = emit(out, p, e->parent, UP, f);
    Py_DECREF(f);
    return r;
}

/* p takes part in op: forward the balance message, or (a leaf) start the gather */
static int join(Ops *s, i64 i, i64 p, const i64 *key, i64 parent, PyObject *out) {
    proc *pr = &s->pr[i];
    I64(s, BUSY)[i] += 1;
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

/* one message of the batch: GetBalance (BAL, NAK, ABORT), the gather (UP), the distribution message (DIST);
 * JOB and DJOB called back */
static int handle_one(Ops *s, i64 i, i64 p, i64 m, PyObject *out) {
    const i64 *off = s->off.buf, *val = s->val.buf, *w = val + off[m] + 1, src = ((const i64 *)s->src.buf)[m];
    int code = (int)val[off[m]];
    const i64 *key = w;
    ((double *)s->b[OPS].buf)[s->L + i] += (double)(off[m + 1] - off[m]); /* §5.4: a message handled costs its words */
    proc *pr = &s->pr[i];
    if (code == BAL) {
        int earlier = 0;
        for (int j = 0; j < pr->n && !earlier; ++j) earlier = cmp4(pr->e[j]->key, key) < 0;
        if (!earlier) return join(s, i, p, key, src, out);
        const i64 words[5] = {key[0], key[1], key[2], key[3], 0};  /* NAK (op, joined = 0): refused */
        PyObject *f = ints_tuple(words, 5);
        int r = f ? emit(out, p, src, NAK, f) : -1;
        Py_XDECREF(f);
        return r;
    }
    if (code == ABORT) return abort_op(s, i, p, key, out);
    if (code == DIST) return dist(s, i, p, w, off[m + 1] - off[m] - 1, out);
    if (code == JOB) { /* jobs: Python's */
        const i64 a[3] = {i, m, m + 1};
        PyObject *r = call_ints(s->jobs, a, 3);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
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
 * bound batch while they are BAL, NAK, ABORT, UP, DIST, JOB or DJOB (the balance kind), up to end; returns
 * the first one it did not handle */
static PyObject *handle(Ops *s, PyObject *const *args, Py_ssize_t nargs) {
    i64 i, p, m, end;
    PyObject *out;
    if (!fast_args("handle", args, nargs, "LLLLLO", &i, &p, &m, &end, &s->step, &out)) return NULL;
    if (!s->bound || i < 0 || i >= s->L || m < 0 || end > (i64)(s->src.len / 8)) {
        PyErr_SetString(PyExc_ValueError, "opstate: handle out of the bound batch");
        return NULL;
    }
    const i64 *off = s->off.buf, *val = s->val.buf;
    while (m < end && val[off[m]] <= DJOB) {
        if (val[off[m]] != DJOB) {
            if (handle_one(s, i, p, m++, out) < 0) return NULL;
            continue;
        }
        i64 k = m; /* a run of GetDistribute messages: Python's, at once (their words counted there) */
        while (k < end && val[off[k]] == DJOB) ++k;
        const i64 a[3] = {i, m, k};
        PyObject *r = call_ints(s->jobs, a, 3);
        if (!r) return NULL;
        Py_DECREF(r);
        m = k;
    }
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

static void release(Ops *s) {
    unbind(s);
    for (int j = 0; j < s->have; ++j) PyBuffer_Release(&s->b[j]);
    s->have = 0;
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
    Py_VISIT(s->tree);
    Py_VISIT(s->update);
    Py_VISIT(s->send);
    Py_VISIT(s->jobs);
    Py_VISIT(s->qwgt);
    Py_VISIT(s->holders);
    Py_VISIT(s->root);
    Py_VISIT(s->as_array);
    return 0;
}

static int clear(Ops *s) {
    Py_CLEAR(s->tree);
    Py_CLEAR(s->update);
    Py_CLEAR(s->send);
    Py_CLEAR(s->jobs);
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

/* Ops(pow2, tree, busy, prom, prom_until, hold, minth, ops, aborted, qs, stg, unsorted, qwgt, holders, root,
 * update, send, jobs, as_array): the state of the rank's L processors (L = len(busy)). tree: Trees.arrays
 * (T_0's, relabelled, when pow2); busy, prom_until, hold, aborted (int64), prom (bool), minth, qs, stg
 * (float64), unsorted (bool), ops ((3, L) float64): the level's arrays by local index. Called back: qwgt(i)
 * (QWgt of processor i, only when its queue is unsorted: else qs + stg here), holders(i) (int64: the
 * processors holding data next to its queue, itself left out), root(i, op, rows, keys, lens, procs) (a gather
 * complete at its root, the rows and neighbour columns as bytes: gives the root's DIST fields, int64),
 * send(i, j, amount, base) (the jobs of one plan entry), jobs(i, m, k) (the bound batch's messages m .. k - 1: one
 * JOB, or a run of DJOB, whose words it counts), as_array(bytearray) (an UP or DIST message's int64 fields). Not
 * called back: update, (wsysll, maxth, [P, Const, 1 if MaxTh is exp else 0, the MinTh floor]) (float64: UpdateLoad
 * in C, update_load, writes wsysll, minth and maxth by local index). */
static int init(Ops *s, PyObject *args, PyObject *Py_UNUSED(kw)) {
    PyObject *o[NB], *t0 = NULL, *cb[8];
    int pow2;
    release(s);
    if (!PyArg_ParseTuple(args, "pOOOOOOOOOOOOOOOOOO", &pow2, &cb[0], &o[BUSY], &o[PROM], &o[PROM_UNTIL], &o[HOLD],
                          &o[MINTH], &o[OPS], &o[ABORTED], &o[QS], &o[STG], &o[UNSORTED], &cb[1], &cb[2], &cb[3],
                          &cb[4], &cb[5], &cb[6], &cb[7]))
        return -1;
    double u[4];
    PyObject *upd = cb[4];
    if (!PyTuple_Check(upd) || PyTuple_GET_SIZE(upd) != 3 || PySequence_Size(PyTuple_GET_ITEM(upd, 2)) != 4) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "opstate: update is (wsysll, maxth, 4 parameters)");
        return -1;
    }
    for (int j = 0; j < 4; ++j) {
        PyObject *x = PySequence_GetItem(PyTuple_GET_ITEM(upd, 2), j);
        u[j] = x ? PyFloat_AsDouble(x) : -1.0;
        Py_XDECREF(x);
        if (PyErr_Occurred()) return -1;
    }
    o[WSYSLL] = PyTuple_GET_ITEM(upd, 0), o[MAXTH] = PyTuple_GET_ITEM(upd, 1);
    t0 = PyObject_CallFunction(cb[0], "i", 0);
    if (!t0 || !PyTuple_Check(t0) || PyTuple_GET_SIZE(t0) != 5) {
        if (t0) PyErr_SetString(PyExc_TypeError, "opstate: tree(0) must give 5 arrays");
        Py_XDECREF(t0);
        return -1;
    }
    for (int j = 0; j < 4; ++j) o[j] = PyTuple_GET_ITEM(t0, j);
    for (; s->have < NB; ++s->have)
        if (getbuf(o[s->have], &s->b[s->have], s->have >= BUSY && (s->have < QS || s->have > UNSORTED)) < 0) break;
    Py_DECREF(t0); /* the arrays stay referenced by the buffers */
    if (s->have < NB) return -1;
    s->L = s->b[BUSY].len / 8;
    if (s->b[PROM].len != s->L || s->b[PROM_UNTIL].len / 8 != s->L || s->b[HOLD].len / 8 != s->L ||
        s->b[MINTH].len / 8 != s->L || s->b[OPS].len / 8 != 3 * s->L || s->b[ABORTED].len / 8 != s->L ||
        s->b[QS].len / 8 != s->L || s->b[STG].len / 8 != s->L || s->b[UNSORTED].len != s->L ||
        s->b[WSYSLL].len / 8 != s->L || s->b[MAXTH].len / 8 != s->L || !(u[0] >= 1.0) || !(u[1] > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "opstate: the per-processor arrays differ in length");
        return -1;
    }
    s->pr = calloc((size_t)(s->L ? s->L : 1), sizeof *s->pr);
    if (!s->pr) {
        PyErr_NoMemory();
        return -1;
    }
    s->pow2 = pow2;
    s->P = u[0], s->cnst = u[1], s->exp = u[2] != 0.0, s->floor_minth = u[3];
    PyObject **keep[] = {&s->tree, &s->qwgt, &s->holders, &s->root, &s->update, &s->send, &s->jobs, &s->as_array};
    for (int j = 0; j < 8; ++j) {
        Py_INCREF(cb[j]);
        Py_XSETREF(*keep[j], cb[j]);
    }
    return 0;
}

static PyMethodDef ops_methods[] = {
    {"bind", (PyCFunction)bind, METH_VARARGS, "the superstep's batch (values, offsets, src)"},
    {"handle", FAST(handle), METH_FASTCALL, "a processor's run of BAL, NAK, ABORT and UP messages"},
    {"start", (PyCFunction)start, METH_VARARGS, "Balance: an operation rooted at a processor"},
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

static PyMethodDef module_methods[] = {
    {"update_load", update_load_, METH_VARARGS, "UpdateLoad(GWLen) of Fig. 4: (WSysLL, MinTh, MaxTh)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_opstate",
                                    "SBN's balancing operations (join, refuse, gather, abandon) in C.", -1,
                                    module_methods};

PyMODINIT_FUNC PyInit__opstate(void) {
    if (PyType_Ready(&OpsType) < 0 || !(MSGS = PyUnicode_InternFromString("msgs"))) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddObjectRef(m, "Ops", (PyObject *)&OpsType) < 0) Py_CLEAR(m);
    return m;
}
