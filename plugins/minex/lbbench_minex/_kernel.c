/* MinEX (Das, Harvey, Biswas) in C: the same algorithm as the Python reference
 * (mesh.py, heap.py, criteria.py, contract.py, minex.py), operation for
 * operation and in the same order, so both give the same owners bit for bit.
 *
 * Data structures of §3.4:
 *   VList   struct-of-arrays over vertex ids 0..vtot-1 (originals first, merged after):
 *           pwgt, rwgt, rhome (arena of {home, rwgt}), e (start/len into the EList arena),
 *           merge, lookup, vpos (*vmap), hpos (*Heap), border, owner
 *   VMap    vmap[0..nv-1]
 *   EList   an arena of {w, Cwgt}; originals' records first, each merged vertex's
 *           records appended when it is made and dropped when it is split (stack order)
 *   Heap    binary min-heap keyed by (Gain, v) with direct pointers hpos[v]
 *   Stack   stack of collapsed pairs (v, w)
 * Union/Find of Fig. 2: lookup is current when lookup != -1 and lookup < vtot.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef int64_t i64;

typedef struct {
    /* VList */
    i64 n0, cap, vtot;
    i64 *pwgt, *rwgt, *merge, *lookup, *vpos, *hpos, *owner;
    char *border;
    char *fixed;            /* pinned (Level.pinned): never moved; a merged vertex holding one is fixed */
    i64 *estart, *elen;     /* EList records of each vertex */
    i64 *hstart, *hlen;     /* rhome records of each vertex */
    /* arenas */
    i64 *enbr, *ecw, etop, ecap;
    i64 *hh, *hr, htop, hcap;
    /* VMap */
    i64 *vmap, nv;
    /* Stack */
    i64 *stk, sp;
    int expanding;
    /* scratch */
    i64 *mark, *path;
    /* processors */
    i64 P, C;
    i64 *cl;
    double *conn, *proc;
    double *W, *Cm, *R, *Q, S1;
    double *slq; i64 *slp; /* sorted list of (Q, p) */
    int uniform; double c0;
    int model; double ofrac;
    double limit, tol; int inf;
    int gsum; /* Gain = change of the additive QwgtTot of §2.3 (1) or of the latency model's (0) */
    i64 moves, max_moves;
    /* evaluation scratch */
    i64 *pmark, *kp_, *kv_; i64 nk;
    i64 *aff; double *dW, *dC, *dR, *nq;  /* candidate deltas */
    i64 *baff; double *bdW, *bdC, *bdR; i64 bn; /* best deltas */
    double bgain, bdmv; i64 bq;
    /* heap */
    double *hg; i64 *hv, hn;
    /* neighbour scratch */
    i64 *seen, stamp;
    int oom;
} K;

/* ---------------------------------------------------------------- memory */
static void *xmalloc(K *k, size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) k->oom = 1;
    return p;
}

static int grow_e(K *k, i64 need) {
    if (k->etop + need <= k->ecap) return 0;
    i64 nc = k->ecap * 2;
    while (nc < k->etop + need) nc *= 2;
    i64 *a = realloc(k->enbr, nc * sizeof(i64)), *b;
    if (!a) return -1;
    k->enbr = a;
    b = realloc(k->ecw, nc * sizeof(i64));
    if (!b) return -1;
    k->ecw = b;
    k->ecap = nc;
    return 0;
}

static int grow_h(K *k, i64 need) {
    if (k->htop + need <= k->hcap) return 0;
    i64 nc = k->hcap * 2;
    while (nc < k->htop + need) nc *= 2;
    i64 *a = realloc(k->hh, nc * sizeof(i64)), *b;
    if (!a) return -1;
    k->hh = a;
    b = realloc(k->hr, nc * sizeof(i64));
    if (!b) return -1;
    k->hr = b;
    k->hcap = nc;
    return 0;
}

/* ------------------------------------------------------------ Union/Find */
static i64 find(K *k, i64 v) {
    if (k->merge[v] == -1) return v;
    i64 x = v;
    while (k->merge[x] != -1) {
        i64 lk = k->lookup[x];
        x = (lk != -1 && lk < k->vtot) ? lk : k->merge[x];
    }
    i64 y = v;
    while (k->merge[y] != -1) {
        i64 lk = k->lookup[y];
        i64 nx = (lk != -1 && lk < k->vtot) ? lk : k->merge[y];
        k->lookup[y] = x;
        y = nx;
    }
    return x;
}

/* --------------------------------------------------------------- merging */
static int merge_pair(K *k, i64 v, i64 w) {
    i64 M = k->vtot;
    i64 start = k->etop, cnt = 0;
    if (grow_e(k, k->elen[v] + k->elen[w])) return -1;
    i64 lists[2] = {v, w};
    for (int t = 0; t < 2; t++) {
        i64 u = lists[t];
        i64 s = k->estart[u], e = s + k->elen[u];
        for (i64 j = s; j < e; j++) {
            i64 x = k->enbr[j], c = k->ecw[j];
            if (k->merge[x] != -1) x = find(k, x);
            if (x == v || x == w) continue;
            i64 pos = k->mark[x];
            if (pos >= 0) {
                k->ecw[start + pos] += c;
            } else {
                k->mark[x] = cnt;
                k->enbr[start + cnt] = x;
                k->ecw[start + cnt] = c;
                cnt++;
            }
        }
    }
    for (i64 j = 0; j < cnt; j++) k->mark[k->enbr[start + j]] = -1;
    k->etop = start + cnt;
    k->estart[M] = start;
    k->elen[M] = cnt;
    k->pwgt[M] = k->pwgt[v] + k->pwgt[w];
    k->rwgt[M] = k->rwgt[v] + k->rwgt[w];
    /* rhome: v's records, then w's added (same key) or appended; pmark holds each home's record (-1: none) */
    if (grow_h(k, k->hlen[v] + k->hlen[w])) return -1;
    i64 hs = k->htop, hc = 0;
    for (i64 j = 0; j < k->hlen[v]; j++) {
        k->hh[hs + hc] = k->hh[k->hstart[v] + j];
        k->hr[hs + hc] = k->hr[k->hstart[v] + j];
        k->pmark[k->hh[hs + hc]] = hc;
        hc++;
    }
    for (i64 j = 0; j < k->hlen[w]; j++) {
        i64 h = k->hh[k->hstart[w] + j], r = k->hr[k->hstart[w] + j], f = k->pmark[h];
        if (f >= 0) k->hr[hs + f] += r;
        else { k->hh[hs + hc] = h; k->hr[hs + hc] = r; k->pmark[h] = hc; hc++; }
    }
    for (i64 i = 0; i < hc; i++) k->pmark[k->hh[hs + i]] = -1;
    k->htop = hs + hc;
    k->hstart[M] = hs;
    k->hlen[M] = hc;
    k->merge[M] = -1;
    k->lookup[M] = -1;
    k->owner[M] = k->owner[v];
    k->border[M] = k->border[v] || k->border[w];
    k->fixed[M] = k->fixed[v] || k->fixed[w];
    k->hpos[M] = -1;
    k->merge[v] = k->merge[w] = M;
    k->lookup[v] = k->lookup[w] = M;
    i64 pv = k->vpos[v];
    k->vmap[pv] = M;
    k->vpos[M] = pv;
    i64 pw = k->vpos[w];
    i64 last = k->vmap[--k->nv];
    if (pw < k->nv) {
        k->vmap[pw] = last;
        k->vpos[last] = pw;
    }
    k->vtot = M + 1;
    k->stk[2 * k->sp] = v;
    k->stk[2 * k->sp + 1] = w;
    k->sp++;
    return 0;
}

static void split_top(K *k, i64 *pv, i64 *pw) {
    k->expanding = 1;
    k->sp--;
    i64 v = k->stk[2 * k->sp], w = k->stk[2 * k->sp + 1];
    i64 M = k->vtot - 1;
    k->owner[v] = k->owner[w] = k->owner[M];
    k->border[v] = k->border[w] = k->border[M];
    k->merge[v] = k->merge[w] = -1;
    k->lookup[v] = k->lookup[w] = -1;
    i64 pm = k->vpos[M];
    k->vmap[pm] = v;
    k->vpos[v] = pm;
    k->vpos[w] = k->nv;
    k->vmap[k->nv++] = w;
    k->etop = k->estart[M];
    k->htop = k->hstart[M];
    k->vtot = M;
    *pv = v;
    *pw = w;
}

/* ----------------------------------------------------------- splitmix64 */
static double rnd(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/* ----------------------------------------------------------- contraction */
#define MAX_FAILS 64

static i64 contract(K *k, i64 target, uint64_t seed, i64 sample) {
    uint64_t s = seed;
    i64 fails = 0, merges = 0;
    i64 *acc_v = k->path; /* scratch of size cap */
    i64 *accc = (i64 *)xmalloc(k, (size_t)k->cap * sizeof(i64));
    if (!accc) return -1;
    while (k->nv > target) {
        i64 bv = -1, bw = -1;
        double best_r = -1.0;
        i64 nv = k->nv;
        for (i64 t = 0; t < sample; t++) {
            i64 v = k->vmap[(i64)(rnd(&s) * (double)nv)];
            i64 pv = k->owner[v];
            i64 na = 0;
            i64 st = k->estart[v], e = st + k->elen[v];
            for (i64 j = st; j < e; j++) {
                i64 x = k->enbr[j], c = k->ecw[j];
                if (k->merge[x] != -1) x = find(k, x);
                if (k->owner[x] != pv) continue;
                i64 pos = k->mark[x];
                if (pos >= 0) accc[pos] += c;
                else { k->mark[x] = na; acc_v[na] = x; accc[na] = c; na++; }
            }
            if (na == 0) continue;
            i64 rv = k->rwgt[v];
            for (i64 i = 0; i < na; i++) {
                i64 x = acc_v[i];
                k->mark[x] = -1;
                i64 den = rv + k->rwgt[x];
                double r = den > 0 ? (double)accc[i] / (double)den : (double)accc[i];
                if (r > best_r) { best_r = r; bv = v; bw = x; }
            }
        }
        if (bv < 0) {
            fails++;
            if (fails >= MAX_FAILS) break;
            continue;
        }
        fails = 0;
        if (merge_pair(k, bv, bw)) { free(accc); return -1; }
        merges++;
    }
    free(accc);
    return merges;
}

/* ---------------------------------------------------------------- model */
static inline double model(K *k, double w, double c, double r) {
    if (k->model == 0) return w + c + r;
    double x = c + r;
    if (k->model == 1) return w >= x ? w : x;
    return w + x - k->ofrac * (w < x ? w : x);
}

/* ------------------------------------------------------ sorted (Q, p) list */
static i64 sl_find(K *k, double q, i64 p) { /* bisect_left of (q, p) */
    i64 lo = 0, hi = k->P;
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        if (k->slq[mid] < q || (k->slq[mid] == q && k->slp[mid] < p)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void sl_replace(K *k, double oldq, double newq, i64 p) {
    i64 i = sl_find(k, oldq, p);
    memmove(k->slq + i, k->slq + i + 1, (size_t)(k->P - i - 1) * sizeof(double));
    memmove(k->slp + i, k->slp + i + 1, (size_t)(k->P - i - 1) * sizeof(i64));
    /* insort among P-1 entries */
    i64 lo = 0, hi = k->P - 1;
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        if (k->slq[mid] < newq || (k->slq[mid] == newq && k->slp[mid] < p)) lo = mid + 1;
        else hi = mid;
    }
    memmove(k->slq + lo + 1, k->slq + lo, (size_t)(k->P - 1 - lo) * sizeof(double));
    memmove(k->slp + lo + 1, k->slp + lo, (size_t)(k->P - 1 - lo) * sizeof(i64));
    k->slq[lo] = newq;
    k->slp[lo] = p;
}

static double delta_minvar(K *k, i64 na) {
    double m = k->slq[0], m_un = INFINITY;
    for (i64 i = 0; i < k->P; i++) {
        i64 a = k->slp[i];
        int in = 0;
        for (i64 j = 0; j < na; j++)
            if (k->aff[j] == a) { in = 1; break; }
        if (!in) { m_un = k->slq[i]; break; }
    }
    double m2 = k->nq[0];
    for (i64 j = 1; j < na; j++)
        if (k->nq[j] < m2) m2 = k->nq[j];
    if (m_un < m2) m2 = m_un;
    double d = 0.0, s_aff = 0.0;
    for (i64 j = 0; j < na; j++) {
        double oq = k->Q[k->aff[j]];
        double a1 = k->nq[j] - m2, a0 = oq - m;
        d += a1 * a1 - a0 * a0;
        s_aff += oq;
    }
    if (m2 != m) d += (m - m2) * (2.0 * (k->S1 - s_aff) - (double)(k->P - na) * (m + m2));
    return d;
}

/* ------------------------------------------------------------- evaluate */
static inline double CONN(K *k, i64 c, i64 d) { return k->conn[c * k->C + d]; }

/* returns 1 and fills b* when V has an admissible move */
static int evaluate(K *k, i64 V) {
    if (k->fixed[V]) return 0;
    i64 p = k->owner[V];
    i64 nk = 0;
    i64 s = k->estart[V], e = s + k->elen[V];
    for (i64 j = s; j < e; j++) {
        i64 x = k->enbr[j], c = k->ecw[j];
        if (k->merge[x] != -1) x = find(k, x);
        i64 r = k->owner[x];
        i64 pos = k->pmark[r];
        if (pos >= 0) k->kv_[pos] += c;
        else { k->pmark[r] = nk; k->kp_[nk] = r; k->kv_[nk] = c; nk++; }
    }
    for (i64 i = 0; i < nk; i++) k->pmark[k->kp_[i]] = -1;
    int has_p = 0;
    i64 kp = 0;
    for (i64 i = 0; i < nk; i++)
        if (k->kp_[i] == p) { has_p = 1; kp = k->kv_[i]; }
    if (nk == 0 || (nk == 1 && has_p)) { k->border[V] = 0; return 0; }
    k->border[V] = 1;
    i64 pw = k->pwgt[V];
    i64 cp = k->cl[p];
    i64 hs = k->hstart[V], hl = k->hlen[V];
    double remap_p = 0.0;
    for (i64 j = 0; j < hl; j++) {
        i64 h = k->hh[hs + j];
        if (h != p) remap_p += (double)k->hr[hs + j] * CONN(k, k->cl[h], cp);
    }
    i64 tot = 0;
    double comm_p = 0.0;
    if (k->uniform) {
        for (i64 i = 0; i < nk; i++) tot += k->kv_[i];
        comm_p = (double)(tot - kp) * k->c0;
    } else {
        for (i64 i = 0; i < nk; i++)
            if (k->kp_[i] != p) comm_p += (double)k->kv_[i] * CONN(k, cp, k->cl[k->kp_[i]]);
    }
    double dWp = -(double)pw * k->proc[p];
    int found = 0;
    for (i64 iq = 0; iq < nk; iq++) {
        i64 q = k->kp_[iq];
        if (q == p) continue;
        i64 cq = k->cl[q];
        i64 kq = k->kv_[iq];
        double remap_q = 0.0;
        for (i64 j = 0; j < hl; j++) {
            i64 h = k->hh[hs + j];
            if (h != q) remap_q += (double)k->hr[hs + j] * CONN(k, k->cl[h], cq);
        }
        i64 na = 2;
        k->aff[0] = p; k->aff[1] = q;
        k->dW[0] = dWp;
        k->dR[0] = -remap_p;
        k->dW[1] = (double)pw * k->proc[q];
        k->dR[1] = remap_q;
        if (k->uniform) {
            double c0 = k->c0;
            k->dC[0] = -comm_p + (double)kp * c0;
            k->dC[1] = (double)(tot - kq) * c0 - (double)kq * c0;
        } else {
            double comm_q = 0.0;
            for (i64 i = 0; i < nk; i++)
                if (k->kp_[i] != q) comm_q += (double)k->kv_[i] * CONN(k, cq, k->cl[k->kp_[i]]);
            k->dC[0] = -comm_p + (double)kp * CONN(k, cp, cq);
            k->dC[1] = comm_q - (double)kq * CONN(k, cq, cp);
            for (i64 i = 0; i < nk; i++) {
                i64 r = k->kp_[i];
                if (r == p || r == q) continue;
                i64 cr = k->cl[r];
                double d = (double)k->kv_[i] * (CONN(k, cr, cq) - CONN(k, cr, cp));
                if (d != 0.0) {
                    k->aff[na] = r; k->dW[na] = 0.0; k->dC[na] = d; k->dR[na] = 0.0; na++;
                }
            }
        }
        double gain = 0.0;
        if (k->model == 0) {
            for (i64 j = 0; j < na; j++) {
                i64 a = k->aff[j];
                k->nq[j] = k->Q[a] + k->dW[j] + k->dC[j] + k->dR[j];
                gain += k->dW[j] + k->dC[j] + k->dR[j];
            }
        } else {
            for (i64 j = 0; j < na; j++) {
                i64 a = k->aff[j];
                k->nq[j] = model(k, k->W[a] + k->dW[j], k->Cm[a] + k->dC[j], k->R[a] + k->dR[j]);
                gain += k->gsum ? k->dW[j] + k->dC[j] + k->dR[j] : k->nq[j] - k->Q[a];
            }
        }
        double dmv = delta_minvar(k, na);
        if (dmv >= -k->tol) continue;
        if (!k->inf && !(gain < -k->limit * dmv)) continue;
        if (!found || gain < k->bgain ||
            (gain == k->bgain && (dmv < k->bdmv || (dmv == k->bdmv && q < k->bq)))) {
            found = 1;
            k->bgain = gain; k->bdmv = dmv; k->bq = q; k->bn = na;
            memcpy(k->baff, k->aff, (size_t)na * sizeof(i64));
            memcpy(k->bdW, k->dW, (size_t)na * sizeof(double));
            memcpy(k->bdC, k->dC, (size_t)na * sizeof(double));
            memcpy(k->bdR, k->dR, (size_t)na * sizeof(double));
        }
    }
    return found;
}

static void move(K *k, i64 V) {
    for (i64 j = 0; j < k->bn; j++) {
        i64 a = k->baff[j];
        double old = k->Q[a];
        k->W[a] += k->bdW[j];
        k->Cm[a] += k->bdC[j];
        k->R[a] += k->bdR[j];
        double nq = k->model == 0 ? k->W[a] + k->Cm[a] + k->R[a] : model(k, k->W[a], k->Cm[a], k->R[a]);
        k->Q[a] = nq;
        k->S1 += nq - old;
        sl_replace(k, old, nq, a);
    }
    i64 q = k->bq;
    k->owner[V] = q;
    k->border[V] = 1;
    i64 s = k->estart[V], e = s + k->elen[V];
    for (i64 j = s; j < e; j++) {
        i64 x = k->enbr[j];
        if (k->merge[x] != -1) x = find(k, x);
        if (k->owner[x] != q) k->border[x] = 1;
    }
    k->moves++;
}

/* ------------------------------------------------------------------ heap */
static inline int hless(K *k, i64 i, i64 j) {
    double gi = k->hg[i], gj = k->hg[j];
    return gi < gj || (gi == gj && k->hv[i] < k->hv[j]);
}

static inline void hswap(K *k, i64 i, i64 j) {
    double g = k->hg[i]; k->hg[i] = k->hg[j]; k->hg[j] = g;
    i64 v = k->hv[i]; k->hv[i] = k->hv[j]; k->hv[j] = v;
    k->hpos[k->hv[i]] = i;
    k->hpos[k->hv[j]] = j;
}

static void hup(K *k, i64 i) {
    while (i > 0) {
        i64 par = (i - 1) >> 1;
        if (hless(k, i, par)) { hswap(k, i, par); i = par; }
        else break;
    }
}

static void hdown(K *k, i64 i) {
    for (;;) {
        i64 l = 2 * i + 1;
        if (l >= k->hn) return;
        i64 b = l;
        if (l + 1 < k->hn && hless(k, l + 1, l)) b = l + 1;
        if (hless(k, b, i)) { hswap(k, b, i); i = b; }
        else return;
    }
}

static void hput(K *k, i64 v, double g) {
    i64 i = k->hpos[v];
    if (i < 0) {
        i = k->hn++;
        k->hg[i] = g; k->hv[i] = v; k->hpos[v] = i;
        hup(k, i);
        return;
    }
    double old = k->hg[i];
    k->hg[i] = g;
    if (g < old) hup(k, i); else hdown(k, i);
}

static void hremove(K *k, i64 v) {
    i64 i = k->hpos[v];
    if (i < 0) return;
    k->hpos[v] = -1;
    i64 last = k->hn - 1;
    if (i != last) {
        k->hg[i] = k->hg[last]; k->hv[i] = k->hv[last];
        k->hpos[k->hv[i]] = i;
        k->hn--;
        i64 u = k->hv[i];
        hup(k, i);
        hdown(k, k->hpos[u]);
    } else {
        k->hn--;
    }
}

static void hclear(K *k) {
    for (i64 i = 0; i < k->hn; i++) k->hpos[k->hv[i]] = -1;
    k->hn = 0;
}

/* --------------------------------------------------------------- refiner */
static void consider(K *k, i64 v) {
    if (evaluate(k, v)) hput(k, v, k->bgain);
    else hremove(k, v);
}

static i64 drain(K *k) {
    i64 made = 0;
    while (k->hn) {
        i64 v = k->hv[0];
        hremove(k, v);
        if (!evaluate(k, v)) continue;
        if (k->hn && k->bgain > k->hg[0]) { hput(k, v, k->bgain); continue; }
        move(k, v);
        made++;
        if (k->moves >= k->max_moves) { hclear(k); break; }
        consider(k, v);
        k->stamp++;
        k->seen[v] = k->stamp;
        i64 s = k->estart[v], e = s + k->elen[v];
        for (i64 j = s; j < e; j++) {
            i64 x = k->enbr[j];
            if (k->merge[x] != -1) x = find(k, x);
            if (k->seen[x] != k->stamp) {
                k->seen[x] = k->stamp;
                if (k->border[x]) consider(k, x);
            }
        }
        /* consider() may have grown nothing: EList records are stable while refining */
    }
    return made;
}

static int cmp_i64(const void *a, const void *b) {
    i64 x = *(const i64 *)a, y = *(const i64 *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ run */
static void kfree(K *k) {
    void *ptrs[] = {k->pwgt, k->rwgt, k->merge, k->lookup, k->vpos, k->hpos, k->owner, k->border,
                    k->fixed, k->estart, k->elen, k->hstart, k->hlen, k->enbr, k->ecw, k->hh, k->hr, k->vmap,
                    k->stk, k->mark, k->path, k->slq, k->slp, k->pmark, k->kp_, k->kv_, k->aff, k->dW,
                    k->dC, k->dR, k->nq, k->baff, k->bdW, k->bdC, k->bdR, k->hg, k->hv, k->seen};
    for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) free(ptrs[i]);
}

static int need(Py_buffer *b, Py_ssize_t n, const char *name) {
    if (b->len != n) {
        PyErr_Format(PyExc_ValueError, "minex kernel: %s has %zd bytes, expected %zd", name, b->len, n);
        return -1;
    }
    return 0;
}

static PyObject *run(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer bx, ba, bc, bp, br, bo, bh, bb, bcl, bconn, bproc, bW, bC, bR, bQ;
    long long P, C, target, sample, passes, max_moves, modelc;
    unsigned long long seed;
    double S1, limit, tol, ofrac;
    int inf, gsum;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*LLy*y*y*w*w*w*w*dddiLdLLLLKi",
                          &bx, &ba, &bc, &bp, &br, &bo, &bh, &bb, &P, &C, &bcl, &bconn, &bproc,
                          &bW, &bC, &bR, &bQ, &S1, &limit, &tol, &inf, &modelc, &ofrac, &target,
                          &sample, &passes, &max_moves, &seed, &gsum))
        return NULL;
    Py_buffer *all[] = {&bx, &ba, &bc, &bp, &br, &bo, &bh, &bb, &bcl, &bconn, &bproc, &bW, &bC, &bR, &bQ};
    PyObject *result = NULL;
    K kk;
    memset(&kk, 0, sizeof(kk));
    K *k = &kk;
    i64 n = (i64)(bx.len / 8) - 1;
    i64 m2 = n >= 0 ? ((i64 *)bx.buf)[n] : 0;
    if (n < 1) PyErr_SetString(PyExc_ValueError, "minex kernel: the graph has no vertices");
    if (n < 1 || need(&ba, m2 * 8, "adjncy") || need(&bc, m2 * 8, "cwgt") || need(&bp, n * 8, "pwgt") ||
        need(&br, n * 8, "rwgt") || need(&bo, n * 8, "owner") || need(&bh, n * 8, "home") ||
        need(&bb, n, "border") || need(&bcl, P * 8, "cluster") || need(&bconn, C * C * 8, "conn") ||
        need(&bproc, P * 8, "proc") || need(&bW, P * 8, "W") || need(&bC, P * 8, "C") ||
        need(&bR, P * 8, "R") || need(&bQ, P * 8, "Q"))
        goto done;
    {
        const i64 *xadj = bx.buf, *adj = ba.buf, *cw = bc.buf, *pw = bp.buf, *rw = br.buf, *own = bo.buf,
                  *home = bh.buf;
        const char *bord = bb.buf;
        i64 cap = 2 * n + 1;
        k->n0 = n; k->cap = cap; k->vtot = n; k->P = P; k->C = C;
        size_t I = sizeof(i64), D = sizeof(double);
        k->pwgt = xmalloc(k, cap * I); k->rwgt = xmalloc(k, cap * I); k->merge = xmalloc(k, cap * I);
        k->lookup = xmalloc(k, cap * I); k->vpos = xmalloc(k, cap * I); k->hpos = xmalloc(k, cap * I);
        k->owner = xmalloc(k, cap * I); k->border = xmalloc(k, cap); k->fixed = xmalloc(k, cap);
        k->estart = xmalloc(k, cap * I); k->elen = xmalloc(k, cap * I);
        k->hstart = xmalloc(k, cap * I); k->hlen = xmalloc(k, cap * I);
        k->ecap = 2 * m2 + 16; k->enbr = xmalloc(k, k->ecap * I); k->ecw = xmalloc(k, k->ecap * I);
        k->hcap = 2 * n + 16; k->hh = xmalloc(k, k->hcap * I); k->hr = xmalloc(k, k->hcap * I);
        k->vmap = xmalloc(k, cap * I); k->stk = xmalloc(k, 2 * cap * I);
        k->mark = xmalloc(k, cap * I); k->path = xmalloc(k, cap * I); k->seen = xmalloc(k, cap * I);
        k->slq = xmalloc(k, P * D); k->slp = xmalloc(k, P * I); k->pmark = xmalloc(k, P * I);
        k->kp_ = xmalloc(k, (P + 2) * I); k->kv_ = xmalloc(k, (P + 2) * I);
        k->aff = xmalloc(k, (P + 2) * I); k->dW = xmalloc(k, (P + 2) * D); k->dC = xmalloc(k, (P + 2) * D);
        k->dR = xmalloc(k, (P + 2) * D); k->nq = xmalloc(k, (P + 2) * D);
        k->baff = xmalloc(k, (P + 2) * I); k->bdW = xmalloc(k, (P + 2) * D); k->bdC = xmalloc(k, (P + 2) * D);
        k->bdR = xmalloc(k, (P + 2) * D);
        k->hg = xmalloc(k, cap * D); k->hv = xmalloc(k, cap * I);
        if (k->oom) { PyErr_NoMemory(); goto done; }
        memcpy(k->enbr, adj, m2 * I);
        memcpy(k->ecw, cw, m2 * I);
        k->etop = m2;
        for (i64 v = 0; v < n; v++) {
            k->pwgt[v] = pw[v]; k->rwgt[v] = rw[v]; k->merge[v] = -1; k->lookup[v] = -1;
            k->vpos[v] = v; k->vmap[v] = v; k->hpos[v] = -1; k->owner[v] = own[v];
            k->border[v] = bord[v] & 1; k->fixed[v] = (bord[v] & 2) != 0; k->estart[v] = xadj[v]; k->elen[v] = xadj[v + 1] - xadj[v];
            k->hstart[v] = v; k->hlen[v] = 1; k->hh[v] = home[v]; k->hr[v] = rw[v];
        }
        for (i64 i = 0; i < cap; i++) { k->mark[i] = -1; k->seen[i] = 0; }
        for (i64 i = n; i < cap; i++) k->hpos[i] = -1;
        k->htop = n; k->nv = n; k->sp = 0;
        k->cl = (i64 *)bcl.buf; k->conn = (double *)bconn.buf; k->proc = (double *)bproc.buf;
        k->W = (double *)bW.buf; k->Cm = (double *)bC.buf; k->R = (double *)bR.buf; k->Q = (double *)bQ.buf;
        k->S1 = S1;
        /* sorted (Q, p): insertion sort on (Q, p) is fine for P <= a few thousand */
        for (i64 p = 0; p < P; p++) {
            i64 i = p;
            while (i > 0 && (k->slq[i - 1] > k->Q[p] || (k->slq[i - 1] == k->Q[p] && k->slp[i - 1] > p))) {
                k->slq[i] = k->slq[i - 1]; k->slp[i] = k->slp[i - 1]; i--;
            }
            k->slq[i] = k->Q[p]; k->slp[i] = p;
        }
        for (i64 p = 0; p < P; p++) k->pmark[p] = -1;
        k->uniform = C == 1;
        k->c0 = k->conn[0];
        k->model = (int)modelc; k->ofrac = ofrac;
        k->limit = limit; k->tol = tol; k->inf = inf; k->gsum = gsum;
        k->max_moves = max_moves;
        k->stamp = 0;

        double t0 = now();
        i64 merges = contract(k, target, (uint64_t)seed, sample);
        double t1 = now();
        if (merges < 0) { PyErr_NoMemory(); goto done; }
        i64 coarse_vertices = k->nv;
        i64 npass = 0, coarse_moves = 0, expand_moves = 0;
        i64 *order = xmalloc(k, cap * I);
        if (!order) { PyErr_NoMemory(); goto done; }
        for (i64 t = 0; t < passes; t++) {
            i64 nv = k->nv;
            memcpy(order, k->vmap, nv * I);
            qsort(order, nv, I, cmp_i64);
            for (i64 i = 0; i < nv; i++)
                if (k->border[order[i]]) consider(k, order[i]);
            i64 made = drain(k);
            npass++;
            coarse_moves += made;
            if (!made) break;
        }
        free(order);
        double t2 = now();
        while (k->sp) {
            i64 v, w;
            split_top(k, &v, &w);
            if (k->border[v]) {
                consider(k, v);
                consider(k, w);
                if (k->hn) expand_moves += drain(k);
            }
        }
        double t3 = now();
        PyObject *out = PyBytes_FromStringAndSize((const char *)k->owner, n * I);
        if (!out) goto done;
        result = Py_BuildValue("(NLLLLLd(ddd))", out, (long long)coarse_vertices, (long long)merges,
                               (long long)coarse_moves, (long long)expand_moves, (long long)npass, k->S1,
                               t1 - t0, t2 - t1, t3 - t2);
    }
done:
    kfree(k);
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, "Run MinEX (contraction, partitioning, expansion); see kernel.py."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "MinEX in C, identical to the Python reference", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kernel(void) {
    PyObject *m = PyModule_Create(&module);
    /* bit 2 of a border byte marks a pinned vertex (Level.pinned) */
    if (m != NULL && PyModule_AddIntConstant(m, "PINS", 1) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
