/* The arguments of a METH_FASTCALL function, read as PyArg_ParseTuple's formats read them (the hot calls of
 * _queue.c and _opstate.c: no tuple made and no format walked per call): kinds has one letter per argument,
 * 'O' (PyObject **), 'L' (long long *), 'd' (double *), 'n' (Py_ssize_t *), 'p' (int *: its truth). A wrong
 * number of arguments or a value of another kind is a TypeError naming the function. */
#ifndef LBBENCH_SBN_FASTARGS_H
#define LBBENCH_SBN_FASTARGS_H
#include <Python.h>
#include <stdarg.h>
#include <string.h>

/* a METH_FASTCALL function as a method table's entry */
#define FAST(f) ((PyCFunction)(void (*)(void))(f))

static int fast_args(const char *fn, PyObject *const *args, Py_ssize_t nargs, const char *kinds, ...) {
    Py_ssize_t n = (Py_ssize_t)strlen(kinds);
    if (nargs != n) {
        PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", fn, n, nargs);
        return 0;
    }
    va_list ap;
    va_start(ap, kinds);
    int ok = 1;
    for (Py_ssize_t k = 0; k < n && ok; ++k) {
        PyObject *a = args[k];
        switch (kinds[k]) {
        case 'O':
            *va_arg(ap, PyObject **) = a;
            break;
        case 'L': {
            long long *x = va_arg(ap, long long *);
            ok = !((*x = PyLong_AsLongLong(a)) == -1 && PyErr_Occurred());
            break;
        }
        case 'd': {
            double *x = va_arg(ap, double *);
            ok = !((*x = PyFloat_AsDouble(a)) == -1.0 && PyErr_Occurred());
            break;
        }
        case 'n': {
            Py_ssize_t *x = va_arg(ap, Py_ssize_t *);
            ok = !((*x = PyNumber_AsSsize_t(a, PyExc_OverflowError)) == -1 && PyErr_Occurred());
            break;
        }
        default: {  /* 'p' */
            int *x = va_arg(ap, int *);
            ok = (*x = PyObject_IsTrue(a)) >= 0;
        }
        }
    }
    va_end(ap);
    return ok;
}
#endif
