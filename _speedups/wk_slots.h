/* Filling a new instance's __slots__ from C.
 *
 * The reader makes a record and its Headers for every record head. Made by Python
 * code (a classmethod call, __new__ and 26 attribute stores) that was about 0.4 us a
 * record, a tenth of the per-record time of the #19 small mix on one CPU; storing
 * into the slots at their offsets is a few nanoseconds each.
 *
 * wk_slot_offset gives a slot's offset in instances of *tp*, found from its member
 * descriptor in the dict of the class that declares it (-1 when *name* there is not
 * a writable object slot); wk_slot_init stores a new reference in an empty slot of a
 * new instance (what the descriptor's set does, less the lookup).
 */
#ifndef WK_SLOTS_H
#define WK_SLOTS_H

#include <Python.h>
#include <structmember.h>

static Py_ssize_t wk_slot_offset(PyObject *tp, const char *name)
{
    PyObject *d;
    PyMemberDef *m;

    if (!PyType_Check(tp) || ((PyTypeObject *)tp)->tp_dict == NULL)
        return -1;
    d = PyDict_GetItemString(((PyTypeObject *)tp)->tp_dict, name);  /* borrowed */
    if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type))
        return -1;
    m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type != T_OBJECT_EX || (m->flags & READONLY))
        return -1;
    return m->offset;
}

static inline void wk_slot_init(PyObject *o, Py_ssize_t offset, PyObject *value)
{
    PyObject **slot = (PyObject **)((char *)o + offset);
    Py_INCREF(value);
    Py_XSETREF(*slot, value);
}

/* object.__new__(tp) for a class that takes no arguments and is not abstract. */
static inline PyObject *wk_new_instance(PyObject *tp)
{
    return ((PyTypeObject *)tp)->tp_alloc((PyTypeObject *)tp, 0);
}

#endif
