/* The buffer arguments of the core's C kernels (_graph.c, _engine.c): a Python object's buffer, held until
 * released, checked as C-contiguous int64 ('i'), float64 ('f') or any bytes ('b'). KERNEL names the module
 * in the errors. An int64 argument may also be raw bytes (a bytearray a kernel returned, len % 8 == 0). */
#ifndef LBBENCH_ARGS_H
#define LBBENCH_ARGS_H
#include <Python.h>

typedef struct {
    Py_buffer b;
    int held;
} arg;

static int get(PyObject *obj, arg *a, char kind, const char *name) {
    a->held = 0;
    if (PyObject_GetBuffer(obj, &a->b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    a->held = 1;
    if (kind == 'b') return 1;
    const char *f = a->b.format ? a->b.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') ++f;
    if (kind == 'i' && a->b.itemsize == 1 && a->b.len % 8 == 0 && (*f == 'B' || *f == 'c') && f[1] == '\0')
        return 1;
    if (a->b.itemsize == 8 && f[1] == '\0' && (kind == 'f' ? *f == 'd' : (*f == 'q' || *f == 'l'))) return 1;
    PyErr_Format(PyExc_TypeError, KERNEL ": %s must be a contiguous %s array", name,
                 kind == 'f' ? "float64" : "int64");
    return 0;
}

static void release(arg *as, int n) {
    for (int i = 0; i < n; ++i)
        if (as[i].held) PyBuffer_Release(&as[i].b);
}
#endif
