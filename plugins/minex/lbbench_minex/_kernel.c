/* MinEX (Das, Harvey, Biswas) in C: the same algorithm as the Python reference
 * (mesh.py, heap.py, criteria.py, contract.py, minex.py), operation for
 * operation and in the same order, so both give the same owners bit for bit.
 *
 * Data structures of §3.4:
 *   VList   vertex ids 0..vtot-1 (originals first, merged after), one record per vertex in two
 *           arrays of structs, so that visiting a vertex reads one cache line, not one per field:
 *           Hot  (16 bytes, what a neighbour's visit reads: Find, the owner, the merge scratch mark)
 *           Cold (64 bytes, one line: what the vertex's own visit reads: its EList and rhome records, Pwgt,
 *                 Rwgt, *Heap, the border and pinned flags)
 *   VMap    vmap[0..nv-1], and each active vertex's place in it, *vmap (vpos)
 *   EList   an arena of {w, Cwgt}; originals' records first, each merged vertex's
 *           records appended when it is made and dropped when it is split (stack order)
 *   rhome   {home, Rwgt}: a vertex whose data is on one processor (every original vertex, and most merged ones) has
 *           its one record in VList ({home1, Rwgt}); the others' records are in an arena kept like EList's
 *   KList   each vertex's connection weight to each processor (the k_r of §3.3), kept up to date as vertices move:
 *           an arena parallel to EList (a vertex's records from its estart; at most one per EList record), built
 *           by the vertex's first evaluation, on one cluster and positive Cwgt (then the order of the records
 *           does not change a sum), else every evaluation scans EList
 *   Heap    binary min-heap keyed by (Gain, v) with direct pointers hpos[v]
 *   Stack   stack of collapsed pairs (v, w)
 * Union/Find of Fig. 2: lookup is current when lookup != -1 and lookup < vtot.
 * Vertex ids are 32-bit (at most MAX_N original vertices); weights and arena positions 64-bit.
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
typedef int32_t vid; /* a vertex id (original or merged), a position in VMap or the Heap */
#define MAX_N ((i64)(INT32_MAX / 2 - 1)) /* ids go up to 2 n: they must fit a vid */

typedef struct { vid merge, lookup, owner, mark; } Hot;
typedef struct {
    i64 estart, hstart, pwgt, rwgt, seen; /* EList and rhome records from estart, hstart; seen: drain's stamp */
    vid elen, hlen, home1, hpos; /* their numbers; the home of a vertex with one rhome record; *Heap */
    vid knum; /* KList records from estart; -1: none yet */
    char border, fixed; /* fixed: pinned (Level.pinned), never moved; a merged vertex holding one is fixed */
} __attribute__((aligned(64))) Cold;
typedef struct { i64 c; vid x; } Edge;  /* an EList record: {w, Cwgt} */
typedef struct { i64 r; vid h; } Home;  /* an rhome record: {home, Rwgt} */
typedef struct { i64 c; i64 p; } KRec;  /* a KList record: {processor, Cwgt to the vertex's neighbours there} */

typedef struct {
    /* VList */
    i64 n0, cap, vtot;
    Hot *hot;
    Cold *cold;
    /* arenas */
    Edge *el; i64 etop, ecap;
    Home *hl; i64 htop, hcap;
    KRec *kl; int klist; /* KList (klist: kept) */
    /* VMap */
    vid *vmap, *vpos; i64 nv;
    /* Stack */
    vid *stk; i64 sp;
    int expanding;
    /* scratch */
    vid *path; i64 *acc; /* a vertex's neighbours and their Cwgt (neighbours()); path also move()'s */
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
    i64 *pmark; KRec *kr_; /* kr_: a vertex's connection weights counted from EList */
    i64 *aff; double *dW, *dC, *dR, *nq;  /* candidate deltas */
    i64 *baff; double *bdW, *bdC, *bdR; i64 bn; /* best deltas */
    double bgain, bdmv; i64 bq;
    /* heap */
    double *hg; vid *hv; i64 hn;
    i64 stamp;
    int oom;
} K;

/* ---------------------------------------------------------------- memory */
/* Every array lives in a buffer kept from one call to the next, up to KEEP bytes in all: the next level (the same
 * size, as a rule) then reuses pages it has touched instead of faulting fresh ones in, about 6,000 a call on
 * 50,000 vertices. A call reads only what it has written (as after malloc). The kernel holds the GIL throughout,
 * so calls never overlap. */
enum { B_HOT, B_COLD, B_EL, B_HL, B_KL, B_VMAP, B_VPOS, B_STK, B_PATH, B_ACC, B_ORDER, B_HG, B_HV, B_SLQ, B_SLP,
       B_PMARK, B_KR, B_AFF, B_DW, B_DC, B_DR, B_NQ, B_BAFF, B_BDW, B_BDC, B_BDR, NBUF };
static struct { void *p; size_t size; } kept[NBUF];
#define KEEP ((size_t)256 << 20)

static void *buf(K *k, int b, size_t n) {
    if (kept[b].size < n) {
        free(kept[b].p);
        if (posix_memalign(&kept[b].p, 64, n ? n : 1)) kept[b].p = NULL; /* a Cold record on one line */
        kept[b].size = kept[b].p ? n : 0;
        if (!kept[b].p) k->oom = 1;
    }
    return kept[b].p;
}

/* buffer b grown to hold at least n bytes, its contents kept; NULL (and b as it was) when memory runs out */
static void *grow(int b, size_t n) {
    size_t nc = kept[b].size ? 2 * kept[b].size : n;
    while (nc < n) nc *= 2;
    void *a = realloc(kept[b].p, nc);
    if (a) { kept[b].p = a; kept[b].size = nc; }
    return a;
}

/* after a call: the buffers stay for the next one unless they hold more than KEEP bytes */
static void release(void) {
    size_t tot = 0;
    for (int b = 0; b < NBUF; b++) tot += kept[b].size;
    if (tot > KEEP)
        for (int b = 0; b < NBUF; b++) { free(kept[b].p); kept[b].p = NULL; kept[b].size = 0; }
}

static int grow_e(K *k, i64 need) {
    if (k->etop + need <= k->ecap) return 0;
    Edge *a = grow(B_EL, (size_t)(k->etop + need) * sizeof(Edge));
    if (!a) return -1;
    k->el = a;
    k->ecap = (i64)(kept[B_EL].size / sizeof(Edge));
    return 0;
}

static int grow_h(K *k, i64 need) {
    if (k->htop + need <= k->hcap) return 0;
    Home *a = grow(B_HL, (size_t)(k->htop + need) * sizeof(Home));
    if (!a) return -1;
    k->hl = a;
    k->hcap = (i64)(kept[B_HL].size / sizeof(Home));
    return 0;
}

/* V's rhome records (V->hlen of them): its one record in VList (written to *one), or the arena's */
static inline const Home *rhome(const K *k, const Cold *V, Home *one) {
    if (V->hlen > 1) return k->hl + V->hstart;
    one->h = V->home1;
    one->r = V->rwgt;
    return one;
}

/* ------------------------------------------------------------ Union/Find */
static inline vid find(K *k, vid v) {
    Hot *H = k->hot;
    if (H[v].merge == -1) return v;
    vid lv = H[v].lookup;
    if (lv != -1 && lv < k->vtot && H[lv].merge == -1) return lv; /* the path is compressed already */
    vid x = v;
    while (H[x].merge != -1) {
        vid lk = H[x].lookup;
        x = (lk != -1 && lk < k->vtot) ? lk : H[x].merge;
    }
    vid y = v;
    while (H[y].merge != -1) {
        vid lk = H[y].lookup;
        vid nx = (lk != -1 && lk < k->vtot) ? lk : H[y].merge;
        H[y].lookup = x;
        y = nx;
    }
    return x;
}

/* --------------------------------------------------------------- merging */
/* v's neighbours (Find of its EList's records), each once in the order of its first record, its records' Cwgt
 * summed, into path and acc; returns their number. Each is left marked (mark: its place) for the caller to clear. */
static i64 neighbours(K *k, vid v) {
    Hot *H = k->hot;
    const Edge *el = k->el;
    vid *nb = k->path;
    i64 *nc = k->acc, n = 0;
    for (i64 j = k->cold[v].estart, e = j + k->cold[v].elen; j < e; j++) {
        vid x = el[j].x;
        i64 c = el[j].c;
        if (H[x].merge != -1) x = find(k, x);
        vid pos = H[x].mark;
        if (pos >= 0) nc[pos] += c;
        else { H[x].mark = (vid)n; nb[n] = x; nc[n] = c; n++; __builtin_prefetch(&k->cold[x]); }
    }
    return n;
}

/* v and w merged into a new vertex M; nn: the number of v's neighbours that neighbours() left in path and acc
 * (marks cleared), or -1 when they are not there */
static int merge_pair(K *k, vid v, vid w, i64 nn) {
    Hot *H = k->hot;
    Cold *V = k->cold;
    vid M = (vid)k->vtot;
    i64 start = k->etop, cnt = 0;
    __builtin_prefetch(&k->el[V[w].estart]); /* w's records arrive while v's are merged */
    if (V[w].hlen > 1) __builtin_prefetch(&k->hl[V[w].hstart]);
    if (grow_e(k, (i64)V[v].elen + V[w].elen)) return -1;
    Edge *el = k->el;
    if (nn < 0) nn = neighbours(k, v); /* (the marks then set are overwritten below) */
    for (i64 i = 0; i < nn; i++) { /* v's records: its neighbours, in their order, as neighbours() summed them */
        vid x = k->path[i];
        if (x == v || x == w) { H[x].mark = -1; continue; }
        H[x].mark = (vid)cnt;
        el[start + cnt].x = x;
        el[start + cnt].c = k->acc[i];
        cnt++;
    }
    for (i64 j = V[w].estart, e = j + V[w].elen; j < e; j++) { /* then w's, added to v's or appended */
        vid x = el[j].x;
        i64 c = el[j].c;
        if (H[x].merge != -1) x = find(k, x);
        if (x == v || x == w) continue;
        vid pos = H[x].mark;
        if (pos >= 0) {
            el[start + pos].c += c;
        } else {
            H[x].mark = (vid)cnt;
            el[start + cnt].x = x;
            el[start + cnt].c = c;
            cnt++;
        }
    }
    for (i64 j = 0; j < cnt; j++) H[el[start + j].x].mark = -1;
    k->etop = start + cnt;
    V[M].estart = start;
    V[M].elen = (vid)cnt;
    V[M].pwgt = V[v].pwgt + V[w].pwgt;
    V[M].rwgt = V[v].rwgt + V[w].rwgt;
    /* rhome: v's records, then w's added (same key) or appended; pmark holds each home's record (-1: none) */
    V[M].hstart = k->htop;
    if (V[v].hlen == 1 && V[w].hlen == 1 && V[v].home1 == V[w].home1) { /* one record still, in VList */
        V[M].hlen = 1;
        V[M].home1 = V[v].home1;
    } else {
        if (grow_h(k, (i64)V[v].hlen + V[w].hlen)) return -1;
        Home *hl = k->hl, onev, onew;
        const Home *rv = rhome(k, &V[v], &onev), *rw = rhome(k, &V[w], &onew);
        i64 hs = k->htop, hc = 0;
        for (i64 j = 0; j < V[v].hlen; j++) {
            hl[hs + hc] = rv[j];
            k->pmark[hl[hs + hc].h] = hc;
            hc++;
        }
        for (i64 j = 0; j < V[w].hlen; j++) {
            vid h = rw[j].h;
            i64 r = rw[j].r, f = k->pmark[h];
            if (f >= 0) hl[hs + f].r += r;
            else { hl[hs + hc].h = h; hl[hs + hc].r = r; k->pmark[h] = hc; hc++; }
        }
        for (i64 i = 0; i < hc; i++) k->pmark[hl[hs + i].h] = -1;
        k->htop = hs + hc;
        V[M].hlen = (vid)hc;
    }
    H[M].merge = -1;
    H[M].lookup = -1;
    H[M].owner = H[v].owner;
    V[M].border = V[v].border || V[w].border;
    V[M].fixed = V[v].fixed || V[w].fixed;
    V[M].hpos = -1;
    H[v].merge = H[w].merge = M;
    H[v].lookup = H[w].lookup = M;
    vid *vpos = k->vpos;
    vid pv = vpos[v];
    k->vmap[pv] = M;
    vpos[M] = pv;
    vid pw = vpos[w];
    vid last = k->vmap[--k->nv];
    if (pw < k->nv) {
        k->vmap[pw] = last;
        vpos[last] = pw;
    }
    k->vtot = M + 1;
    k->stk[2 * k->sp] = v;
    k->stk[2 * k->sp + 1] = w;
    k->sp++;
    return 0;
}

static void split_top(K *k, vid *pv, vid *pw) {
    Hot *H = k->hot;
    Cold *V = k->cold;
    k->expanding = 1;
    k->sp--;
    vid v = k->stk[2 * k->sp], w = k->stk[2 * k->sp + 1];
    vid M = (vid)(k->vtot - 1);
    H[v].owner = H[w].owner = H[M].owner;
    V[v].border = V[w].border = V[M].border;
    H[v].merge = H[w].merge = -1;
    H[v].lookup = H[w].lookup = -1;
    V[v].knum = V[w].knum = -1;
    vid pm = k->vpos[M];
    k->vmap[pm] = v;
    k->vpos[v] = pm;
    k->vpos[w] = (vid)k->nv;
    k->vmap[k->nv++] = w;
    k->etop = V[M].estart;
    k->htop = V[M].hstart;
    k->vtot = M;
    *pv = v;
    *pw = w;
}

/* ----------------------------------------------------------- splitmix64 */
#define GOLDEN 0x9E3779B97F4A7C15ULL

static inline double unit(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static inline double rnd(uint64_t *s) { return unit(*s += GOLDEN); }

/* the draw j draws after the next one, the state left as it is */
static inline double rnd_ahead(uint64_t s, uint64_t j) { return unit(s + (j + 1) * GOLDEN); }

/* ----------------------------------------------------------- contraction */
#define MAX_FAILS 64

static i64 contract(K *k, i64 target, uint64_t seed, i64 sample) {
    Hot *H = k->hot;
    Cold *V = k->cold;
    uint64_t s = seed;
    i64 fails = 0, merges = 0;
    while (k->nv > target) {
        vid bv = -1, bw = -1, last = -1; /* last: the vertex whose neighbours are in path and acc */
        i64 nlast = 0;
        double best_r = -1.0;
        i64 nv = k->nv;
        /* fetch ahead what the next two rounds' first draws read if every round merges (almost always):
         * the vertex two rounds on, the EList records of the one next round; a wrong guess costs nothing */
        if (nv > 2) {
            vid v2 = k->vmap[(i64)(rnd_ahead(s, 2 * (uint64_t)sample) * (double)(nv - 2))];
            __builtin_prefetch(&H[v2]);
            __builtin_prefetch(&V[v2]);
            vid v1 = k->vmap[(i64)(rnd_ahead(s, (uint64_t)sample) * (double)(nv - 1))];
            __builtin_prefetch(&k->el[V[v1].estart]);
            if (V[v1].hlen > 1) __builtin_prefetch(&k->hl[V[v1].hstart]);
        }
        for (i64 t = 0; t < sample; t++) {
            vid v = k->vmap[(i64)(rnd(&s) * (double)nv)];
            vid pv = H[v].owner;
            i64 na = neighbours(k, v), rv = V[v].rwgt;
            for (i64 i = 0; i < na; i++) { /* the pairs: v and each neighbour on its processor */
                vid x = k->path[i];
                H[x].mark = -1;
                if (H[x].owner != pv) continue;
                i64 den = rv + V[x].rwgt;
                double r = den > 0 ? (double)k->acc[i] / (double)den : (double)k->acc[i];
                if (r > best_r) { best_r = r; bv = v; bw = x; }
            }
            last = v;
            nlast = na;
        }
        if (bv < 0) {
            fails++;
            if (fails >= MAX_FAILS) break;
            continue;
        }
        fails = 0;
        if (merge_pair(k, bv, bw, bv == last ? nlast : -1)) return -1;
        merges++;
    }
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

/* ΔMinVar (§3.3) of a move whose affected processors are p and q (new loads nq0, nq1) and aff[2..na) (nq[2..na)):
 * the change of Σ (Qwgt_a − MinQwgt)², MinQwgt the smallest load before and after */
static inline __attribute__((always_inline)) double delta_minvar(K *k, i64 na, i64 p, i64 q, double nq0, double nq1) {
    double m = k->slq[0], m_un = INFINITY;
    for (i64 i = 0; i < k->P; i++) {
        i64 a = k->slp[i];
        int in = a == p || a == q;
        for (i64 j = 2; j < na && !in; j++)
            if (k->aff[j] == a) in = 1;
        if (!in) { m_un = k->slq[i]; break; }
    }
    double m2 = nq0;
    if (nq1 < m2) m2 = nq1;
    for (i64 j = 2; j < na; j++)
        if (k->nq[j] < m2) m2 = k->nq[j];
    if (m_un < m2) m2 = m_un;
    double d = 0.0, s_aff = 0.0, oq, a1, a0;
    oq = k->Q[p]; a1 = nq0 - m2; a0 = oq - m;
    d += a1 * a1 - a0 * a0;
    s_aff += oq;
    oq = k->Q[q]; a1 = nq1 - m2; a0 = oq - m;
    d += a1 * a1 - a0 * a0;
    s_aff += oq;
    for (i64 j = 2; j < na; j++) {
        oq = k->Q[k->aff[j]]; a1 = k->nq[j] - m2; a0 = oq - m;
        d += a1 * a1 - a0 * a0;
        s_aff += oq;
    }
    if (m2 != m) d += (m - m2) * (2.0 * (k->S1 - s_aff) - (double)(k->P - na) * (m + m2));
    return d;
}

/* ------------------------------------------------------------- evaluate */
static inline double CONN(K *k, i64 c, i64 d) { return k->conn[c * k->C + d]; }

/* V's new load on processor a under the model, and its term of the Gain (added to *gain) */
static inline __attribute__((always_inline)) double newq(K *k, i64 a, double dW, double dC, double dR,
                                                         double *gain) {
    if (k->model == 0) {
        *gain += dW + dC + dR;
        return k->Q[a] + dW + dC + dR;
    }
    double nq = model(k, k->W[a] + dW, k->Cm[a] + dC, k->R[a] + dR);
    *gain += k->gsum ? dW + dC + dR : nq - k->Q[a];
    return nq;
}

/* the move of V from p to q: deltas dW0, dC0, dR0 on p, dW1, dC1, dR1 on q, and in aff, dW, dC, dR [2, na) on the
 * other processors whose Comm changes (none on one cluster); kept in b* when it is admissible and better than the
 * best so far (found: there is one); returns whether there is a best now */
static inline __attribute__((always_inline)) int candidate(K *k, i64 na, i64 p, i64 q, double dW0, double dC0,
                                                           double dR0, double dW1, double dC1, double dR1,
                                                           int found) {
    double gain = 0.0;
    double nq0 = newq(k, p, dW0, dC0, dR0, &gain), nq1 = newq(k, q, dW1, dC1, dR1, &gain);
    for (i64 j = 2; j < na; j++) k->nq[j] = newq(k, k->aff[j], k->dW[j], k->dC[j], k->dR[j], &gain);
    if (found && gain > k->bgain) return found; /* admissible or not, it cannot be the best */
    double dmv = delta_minvar(k, na, p, q, nq0, nq1);
    if (dmv >= -k->tol) return found;
    if (!k->inf && !(gain < -k->limit * dmv)) return found;
    if (!found || gain < k->bgain ||
        (gain == k->bgain && (dmv < k->bdmv || (dmv == k->bdmv && q < k->bq)))) {
        k->bgain = gain; k->bdmv = dmv; k->bq = q; k->bn = na;
        k->baff[0] = p; k->bdW[0] = dW0; k->bdC[0] = dC0; k->bdR[0] = dR0;
        k->baff[1] = q; k->bdW[1] = dW1; k->bdC[1] = dC1; k->bdR[1] = dR1;
        for (i64 j = 2; j < na; j++) {
            k->baff[j] = k->aff[j]; k->bdW[j] = k->dW[j]; k->bdC[j] = k->dC[j]; k->bdR[j] = k->dR[j];
        }
        return 1;
    }
    return found;
}

/* returns 1 and fills b* when V has an admissible move */
static int evaluate(K *k, vid V) {
    Hot *H = k->hot;
    Cold *cv = &k->cold[V];
    if (cv->fixed) return 0;
    i64 p = H[V].owner;
    i64 nk = 0;
    const KRec *kr; /* V's connection weight per neighbouring processor: its KList, or counted from EList into kr_ */
    if (cv->knum >= 0) {
        kr = k->kl + cv->estart;
        nk = cv->knum;
    } else {
        KRec *acc = k->kr_;
        const Edge *el = k->el;
        i64 s = cv->estart, e = s + cv->elen;
        for (i64 j = s; j < e; j++) {
            vid x = el[j].x;
            i64 c = el[j].c;
            if (H[x].merge != -1) x = find(k, x);
            i64 r = H[x].owner;
            i64 pos = k->pmark[r];
            if (pos >= 0) acc[pos].c += c;
            else { k->pmark[r] = nk; acc[nk].p = r; acc[nk].c = c; nk++; }
        }
        for (i64 i = 0; i < nk; i++) k->pmark[acc[i].p] = -1;
        if (k->klist) {
            memcpy(k->kl + cv->estart, acc, (size_t)nk * sizeof(KRec));
            cv->knum = (vid)nk;
        }
        kr = acc;
    }
    int has_p = 0;
    i64 kp = 0, tot = 0; /* tot: V's Cwgt to all its neighbours */
    for (i64 i = 0; i < nk; i++) {
        tot += kr[i].c;
        if (kr[i].p == p) { has_p = 1; kp = kr[i].c; }
    }
    if (nk == 0 || (nk == 1 && has_p)) { cv->border = 0; return 0; }
    cv->border = 1;
    i64 pw = cv->pwgt;
    i64 cp = k->cl[p];
    Home one;
    const Home *rh = rhome(k, cv, &one);
    i64 hl = cv->hlen;
    double remap_p = 0.0;
    for (i64 j = 0; j < hl; j++) {
        i64 h = rh[j].h;
        if (h != p) remap_p += (double)rh[j].r * CONN(k, k->cl[h], cp);
    }
    double comm_p = 0.0;
    if (k->uniform) {
        comm_p = (double)(tot - kp) * k->c0;
    } else {
        for (i64 i = 0; i < nk; i++)
            if (kr[i].p != p) comm_p += (double)kr[i].c * CONN(k, cp, k->cl[kr[i].p]);
    }
    double dWp = -(double)pw * k->proc[p];
    int found = 0;
    for (i64 iq = 0; iq < nk; iq++) {
        i64 q = kr[iq].p;
        if (q == p) continue;
        i64 cq = k->cl[q];
        i64 kq = kr[iq].c;
        double remap_q = 0.0;
        for (i64 j = 0; j < hl; j++) {
            i64 h = rh[j].h;
            if (h != q) remap_q += (double)rh[j].r * CONN(k, k->cl[h], cq);
        }
        double dW1 = (double)pw * k->proc[q];
        if (k->uniform) {
            double c0 = k->c0;
            /* one cluster: only p and q change; this case gets its own inlined copy, its loops gone */
            found = candidate(k, 2, p, q, dWp, -comm_p + (double)kp * c0, -remap_p, dW1,
                              (double)(tot - kq) * c0 - (double)kq * c0, remap_q, found);
        } else {
            double comm_q = 0.0;
            for (i64 i = 0; i < nk; i++)
                if (kr[i].p != q) comm_q += (double)kr[i].c * CONN(k, cq, k->cl[kr[i].p]);
            i64 na = 2;
            for (i64 i = 0; i < nk; i++) {
                i64 r = kr[i].p;
                if (r == p || r == q) continue;
                i64 cr = k->cl[r];
                double d = (double)kr[i].c * (CONN(k, cr, cq) - CONN(k, cr, cp));
                if (d != 0.0) {
                    k->aff[na] = r; k->dW[na] = 0.0; k->dC[na] = d; k->dR[na] = 0.0; na++;
                }
            }
            found = candidate(k, na, p, q, dWp, -comm_p + (double)kp * CONN(k, cp, cq), -remap_p, dW1,
                              comm_q - (double)kq * CONN(k, cq, cp), remap_q, found);
        }
    }
    return found;
}

static void move(K *k, vid V) {
    Hot *H = k->hot;
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
    vid p = H[V].owner, q = (vid)k->bq;
    H[V].owner = q;
    Cold *C = k->cold;
    C[V].border = 1;
    const Edge *el = k->el + C[V].estart;
    i64 m = C[V].elen;
    vid *nb = k->path; /* V's neighbours (Find of its EList's), left for drain; their VList entries fetched ahead */
    for (i64 j = 0; j < m; j++) {
        vid x = el[j].x;
        if (H[x].merge != -1) x = find(k, x);
        nb[j] = x;
        __builtin_prefetch(&C[x]);
    }
    for (i64 j = 0; j < m; j++) {
        vid x = nb[j];
        if (H[x].owner != q) C[x].border = 1;
        if (C[x].knum >= 0) __builtin_prefetch(&k->kl[C[x].estart]);
    }
    if (k->klist) {
        for (i64 j = 0; j < m; j++) { /* V's Cwgt leaves p in its neighbours' KLists (a record goes at 0) */
            vid x = nb[j];
            if (C[x].knum < 0) continue;
            KRec *kl = k->kl + C[x].estart;
            i64 i = 0;
            while (kl[i].p != p) i++;
            if (!(kl[i].c -= el[j].c)) kl[i] = kl[--C[x].knum];
        }
        for (i64 j = 0; j < m; j++) { /* then arrives on q: a KList never holds more records than neighbours */
            vid x = nb[j];
            if (C[x].knum < 0) continue;
            KRec *kl = k->kl + C[x].estart;
            i64 i = 0, nk = C[x].knum;
            while (i < nk && kl[i].p != q) i++;
            if (i < nk) kl[i].c += el[j].c;
            else { kl[nk].p = q; kl[nk].c = el[j].c; C[x].knum = (vid)(nk + 1); }
        }
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
    vid v = k->hv[i]; k->hv[i] = k->hv[j]; k->hv[j] = v;
    k->cold[k->hv[i]].hpos = (vid)i;
    k->cold[k->hv[j]].hpos = (vid)j;
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

static void hput(K *k, vid v, double g) {
    i64 i = k->cold[v].hpos;
    if (i < 0) {
        i = k->hn++;
        k->hg[i] = g; k->hv[i] = v; k->cold[v].hpos = (vid)i;
        hup(k, i);
        return;
    }
    double old = k->hg[i];
    k->hg[i] = g;
    if (g < old) hup(k, i); else hdown(k, i);
}

static void hremove(K *k, vid v) {
    i64 i = k->cold[v].hpos;
    if (i < 0) return;
    k->cold[v].hpos = -1;
    i64 last = k->hn - 1;
    if (i != last) {
        k->hg[i] = k->hg[last]; k->hv[i] = k->hv[last];
        k->cold[k->hv[i]].hpos = (vid)i;
        k->hn--;
        vid u = k->hv[i];
        hup(k, i);
        hdown(k, k->cold[u].hpos);
    } else {
        k->hn--;
    }
}

static void hclear(K *k) {
    for (i64 i = 0; i < k->hn; i++) k->cold[k->hv[i]].hpos = -1;
    k->hn = 0;
}

/* --------------------------------------------------------------- refiner */
static void consider(K *k, vid v) {
    if (evaluate(k, v)) hput(k, v, k->bgain);
    else hremove(k, v);
}

static i64 drain(K *k) {
    Cold *C = k->cold;
    i64 made = 0;
    while (k->hn) {
        vid v = k->hv[0];
        hremove(k, v);
        if (!evaluate(k, v)) continue;
        if (k->hn && k->bgain > k->hg[0]) { hput(k, v, k->bgain); continue; }
        move(k, v);
        made++;
        if (k->moves >= k->max_moves) { hclear(k); break; }
        consider(k, v);
        k->stamp++;
        C[v].seen = k->stamp;
        /* v's neighbours as move() left them (consider() leaves them be) */
        const vid *nb = k->path;
        for (i64 j = 0, m = C[v].elen; j < m; j++) {
            vid x = nb[j];
            if (C[x].seen != k->stamp) {
                C[x].seen = k->stamp;
                if (C[x].border) consider(k, x);
            }
        }
    }
    return made;
}

static int cmp_vid(const void *a, const void *b) {
    vid x = *(const vid *)a, y = *(const vid *)b;
    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ run */
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
    else if (n > MAX_N) PyErr_Format(PyExc_ValueError, "minex kernel: at most %lld vertices, got %lld",
                                     (long long)MAX_N, (long long)n);
    if (n < 1 || n > MAX_N || need(&ba, m2 * 8, "adjncy") || need(&bc, m2 * 8, "cwgt") || need(&bp, n * 8, "pwgt") ||
        need(&br, n * 8, "rwgt") || need(&bo, n * 8, "owner") || need(&bh, n * 8, "home") ||
        need(&bb, n, "flags") || need(&bcl, P * 8, "cluster") || need(&bconn, C * C * 8, "conn") ||
        need(&bproc, P * 8, "proc") || need(&bW, P * 8, "W") || need(&bC, P * 8, "C") ||
        need(&bR, P * 8, "R") || need(&bQ, P * 8, "Q"))
        goto done;
    {
        const i64 *xadj = bx.buf, *adj = ba.buf, *cw = bc.buf, *pw = bp.buf, *rw = br.buf, *own = bo.buf,
                  *home = bh.buf;
        const char *flags = bb.buf;
        i64 cap = 2 * n + 1;
        k->n0 = n; k->cap = cap; k->vtot = n; k->P = P; k->C = C;
        size_t I = sizeof(i64), D = sizeof(double), U = sizeof(vid);
        k->hot = buf(k, B_HOT, cap * sizeof(Hot)); k->cold = buf(k, B_COLD, cap * sizeof(Cold));
        k->el = buf(k, B_EL, (2 * m2 + 16) * sizeof(Edge)); k->ecap = (i64)(kept[B_EL].size / sizeof(Edge));
        k->hl = buf(k, B_HL, (n + 16) * sizeof(Home)); k->hcap = (i64)(kept[B_HL].size / sizeof(Home));
        k->vmap = buf(k, B_VMAP, cap * U); k->vpos = buf(k, B_VPOS, cap * U);
        k->stk = buf(k, B_STK, 2 * cap * U); k->path = buf(k, B_PATH, cap * U); k->acc = buf(k, B_ACC, cap * I);
        k->slq = buf(k, B_SLQ, P * D); k->slp = buf(k, B_SLP, P * I); k->pmark = buf(k, B_PMARK, P * I);
        k->kr_ = buf(k, B_KR, (P + 2) * sizeof(KRec));
        k->aff = buf(k, B_AFF, (P + 2) * I); k->dW = buf(k, B_DW, (P + 2) * D); k->dC = buf(k, B_DC, (P + 2) * D);
        k->dR = buf(k, B_DR, (P + 2) * D); k->nq = buf(k, B_NQ, (P + 2) * D);
        k->baff = buf(k, B_BAFF, (P + 2) * I); k->bdW = buf(k, B_BDW, (P + 2) * D);
        k->bdC = buf(k, B_BDC, (P + 2) * D); k->bdR = buf(k, B_BDR, (P + 2) * D);
        k->hg = buf(k, B_HG, cap * D); k->hv = buf(k, B_HV, cap * U);
        if (k->oom) { PyErr_NoMemory(); goto done; }
        int pos_cwgt = 1;
        for (i64 j = 0; j < m2; j++) { k->el[j].x = (vid)adj[j]; k->el[j].c = cw[j]; pos_cwgt &= cw[j] > 0; }
        k->etop = m2;
        for (i64 v = 0; v < n; v++) {
            Hot *h = &k->hot[v];
            Cold *c = &k->cold[v];
            c->rwgt = rw[v]; h->merge = -1; h->lookup = -1; h->owner = (vid)own[v]; h->mark = -1;
            c->estart = xadj[v]; c->elen = (vid)(xadj[v + 1] - xadj[v]); c->pwgt = pw[v]; c->seen = 0;
            c->hstart = 0; c->hlen = 1; c->home1 = (vid)home[v]; c->hpos = -1; c->knum = -1;
            c->border = 0; c->fixed = (flags[v] & 2) != 0;
            for (i64 j = xadj[v]; j < xadj[v + 1]; j++) /* VList's border flags: a neighbour elsewhere */
                if (own[adj[j]] != own[v]) { c->border = 1; break; }
            k->vmap[v] = k->vpos[v] = (vid)v;
        }
        for (i64 i = n; i < cap; i++) {
            k->hot[i].mark = -1; k->cold[i].seen = 0; k->cold[i].hpos = -1; k->cold[i].knum = -1;
        }
        k->htop = 0; k->nv = n; k->sp = 0;
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
        /* KLists from here on: EList only shrinks while refining (its records are what KList's are parallel to) */
        k->klist = k->uniform && pos_cwgt;
        if (k->klist && !(k->kl = buf(k, B_KL, (size_t)k->etop * sizeof(KRec)))) { PyErr_NoMemory(); goto done; }
        i64 coarse_vertices = k->nv;
        i64 npass = 0, coarse_moves = 0, expand_moves = 0;
        vid *order = buf(k, B_ORDER, cap * U);
        if (!order) { PyErr_NoMemory(); goto done; }
        for (i64 t = 0; t < passes; t++) {
            i64 nv = k->nv;
            memcpy(order, k->vmap, nv * U);
            qsort(order, nv, U, cmp_vid);
            for (i64 i = 0; i < nv; i++)
                if (k->cold[order[i]].border) consider(k, order[i]);
            i64 made = drain(k);
            npass++;
            coarse_moves += made;
            if (!made) break;
        }
        double t2 = now();
        while (k->sp) {
            vid v, w;
            /* fetch ahead what the next splits read: the halves three splits on, the records of the halves two
             * on, and, when the next split's merged vertex is on a border (its halves will be evaluated), their
             * neighbours' VList entries */
            if (k->sp > 3) {
                const vid *three = k->stk + 2 * (k->sp - 4), *two = three + 2, *one = two + 2;
                __builtin_prefetch(&k->cold[three[0]]);
                __builtin_prefetch(&k->cold[three[1]]);
                for (int t = 0; t < 2; t++) {
                    const Cold *c = &k->cold[two[t]];
                    __builtin_prefetch(&k->el[c->estart]);
                    if (c->hlen > 1) __builtin_prefetch(&k->hl[c->hstart]);
                }
                if (k->cold[k->vtot - 2].border)
                    for (int t = 0; t < 2; t++) {
                        const Cold *c = &k->cold[one[t]];
                        for (i64 j = c->estart, e = j + c->elen; j < e; j++) __builtin_prefetch(&k->hot[k->el[j].x]);
                    }
            }
            split_top(k, &v, &w);
            if (k->cold[v].border) {
                consider(k, v);
                consider(k, w);
                if (k->hn) expand_moves += drain(k);
            }
        }
        double t3 = now();
        PyObject *out = PyBytes_FromStringAndSize(NULL, n * I);
        if (!out) goto done;
        i64 *parts = (i64 *)PyBytes_AS_STRING(out);
        for (i64 v = 0; v < n; v++) parts[v] = k->hot[v].owner;
        result = Py_BuildValue("(NLLLLLd(ddd))", out, (long long)coarse_vertices, (long long)merges,
                               (long long)coarse_moves, (long long)expand_moves, (long long)npass, k->S1,
                               t1 - t0, t2 - t1, t3 - t2);
    }
done:
    release();
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) PyBuffer_Release(all[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, "Run MinEX (contraction, partitioning, expansion); see minex.py."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "MinEX in C, identical to the Python reference", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__kernel(void) {
    PyObject *m = PyModule_Create(&module);
    /* a flags byte's bit 1 (2) marks a pinned vertex (Level.pinned) */
    if (m != NULL && PyModule_AddIntConstant(m, "PINS", 1) < 0) { Py_DECREF(m); return NULL; }
    return m;
}
