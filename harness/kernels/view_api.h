/* harness LocationView.C_API: the capsule "harness.kernels._graph.view_api" (_graph.c) of the view's C kernels,
 * for other C kernels (a plugin's: its setup.py puts this folder on the include path): costs_if_on's pricing and
 * LocationView.learn without a Python call in between. A kernel reads it with view_api_of and checks nothing
 * else; every function sets a Python error and returns -1 on bad input, as the Python calls do. */
#ifndef LBBENCH_VIEW_API_H
#define LBBENCH_VIEW_API_H
#include <Python.h>
#include <stdint.h>

#define VIEW_API_VERSION 1
#define VIEW_API_NAME "harness.kernels._graph.view_api"

typedef struct {                /* the graph and machine arrays costs() reads, and their lengths (xadj: n + 1) */
    const int64_t *xadj, *adj, *cwgt, *pwgt, *rwgt, *cl;
    const double *proc, *conn;
    int64_t nxadj, nadj, ncwgt, npwgt, nrwgt, ncl, nproc, nconn;
} priced_graph;

typedef struct {
    int version;
    /* costs(): Wgt, Comm, Remap of v[0..k) computed on q (nq: 1 or k), data where the view (home: nh, kk, kv:
     * m) says, into wgt, comm, remap (k each) */
    int (*costs)(const priced_graph *g, const int64_t *v, int64_t k, const int64_t *q, int64_t nq,
                 const int64_t *home, int64_t nh, const int64_t *kk, const int64_t *kv, int64_t m, double *wgt,
                 double *comm, double *remap);
    /* LocationView.learn(ids, vals) (nv: 1 or k) on a LocationView object */
    int (*learn)(PyObject *view, const int64_t *ids, int64_t k, const int64_t *vals, int64_t nv);
} view_api;

/* the API of a capsule (LocationView.C_API), or NULL with an error (not the capsule, or another version) */
static inline const view_api *view_api_of(PyObject *cap) {
    const view_api *api = PyCapsule_GetPointer(cap, VIEW_API_NAME);
    if (api && api->version != VIEW_API_VERSION) {
        PyErr_SetString(PyExc_RuntimeError, "view_api: harness's is of another version (rebuild the plugin)");
        return NULL;
    }
    return api;
}
#endif
