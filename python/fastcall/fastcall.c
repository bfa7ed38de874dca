/* oxide._fastcall: the compiled launch path of the Python package (python/oxide, docs/interop.md).
 *
 * Calling a kernel from Python costs mostly the Python side: reading each tensor's dtype, device,
 * data pointer, shape and strides and packing them for the C ABI. Here that is C: a kernel object
 * whose type implements the call itself (tp_call, no Python frame), reads torch tensors through
 * their own C methods (one method call each, no bound-method objects) and Python numbers
 * directly, fills the oxide_arg descriptors of <oxide/c_api.h> on the stack and calls the
 * library's oxide_launch on torch's current stream, keeping the GIL for a GPU launch as torch's
 * own launches do.
 *
 * It decides nothing itself: any call it does not take whole (launch settings or keywords, an
 * array that is not a torch tensor, a dtype the package does not know, tensors on different
 * devices, more than 4 dimensions, a value that is not a plain number, any exception while reading
 * an argument) goes to the package's Python path, Kernel.__call__, before anything is launched, so
 * each error comes from the same code with the same message. The runtime's own refusals (contract,
 * aliasing, dtype, strides, alignment) are raised by Kernel._raise_status, as on the Python path.
 *
 * Built for the stable ABI (Py_LIMITED_API 3.8, an .abi3.so): one build loads in every CPython 3.8
 * or newer. It links no libpython and no Oxide library: the kernel handle and its library's
 * oxide_launch come from the package as addresses. */
#define Py_LIMITED_API 0x03080000
#include <Python.h>

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "oxide/c_api.h"

/* The C ABI's most parameters (runtime/c_api.cpp, kMaxParams); a kernel with more is launched by
 * the Python path, whose launch reports the limit. */
#define FAST_MAX_PARAMS 64

typedef int (*launch_fn)(const oxide_kernel *, const oxide_launch_config *, const oxide_arg *, size_t);

typedef struct {
  PyObject ob_base;           /* PyObject_HEAD */
  const oxide_kernel *handle; /* NULL until _fast_setup: every call is the Python path */
  launch_fn launch;
  Py_ssize_t count;
  int simulator_keeps_gil; /* a simulator launch runs the kernel: it releases the GIL unless told */
  unsigned char is_span[FAST_MAX_PARAMS];
} KernelBase;

/* Set by the package (configure): torch.Tensor, its dtype -> OXIDE_DTYPE dict and current-stream
 * function, once torch is imported; Kernel.__call__, the Python path. */
static PyObject *tensor_type, *dtype_codes, *current_stream, *python_call;
static PyObject *str_dtype, *str_shape, *str_raise_status, *empty_tuple;

/* A torch.Tensor method read with no arguments. Its C function, taken from the method bound to a
 * sample tensor (PyCFunction_GetFunction, the stable ABI's), is called directly for tensors of
 * exactly torch.Tensor's type: no attribute lookup, no argument tuple, no bound-method object,
 * the same code as `tensor.data_ptr()`. Other tensors (subclasses) look the method up. */
typedef struct {
  const char *text;
  PyObject *name;
  PyCFunction function; /* NULL: look it up */
  int flags;
} Method;

static Method get_device = {"get_device", NULL, NULL, 0}, data_ptr = {"data_ptr", NULL, NULL, 0},
              stride = {"stride", NULL, NULL, 0};

static PyObject *call_method(const Method *m, PyObject *a, int exact) {
  if (exact && m->function) {
    switch (m->flags) {
    case METH_NOARGS:
      return m->function(a, NULL);
    case METH_VARARGS:
      return m->function(a, empty_tuple);
    case METH_VARARGS | METH_KEYWORDS:
      return ((PyCFunctionWithKeywords)(void (*)(void))m->function)(a, empty_tuple, NULL);
    default:
      break;
    }
  }
  return PyObject_CallMethodObjArgs(a, m->name, NULL);
}

/* The C function of `sample.<m>` when it is a C method of sample's type taking no arguments. */
static void bind_method(Method *m, PyObject *sample) {
  m->function = NULL;
  if (!sample)
    return;
  PyObject *bound = PyObject_GetAttr(sample, m->name);
  if (bound) {
    PyCFunction function = PyCFunction_GetFunction(bound); /* NULL with an error: not a C function */
    int flags = function ? PyCFunction_GetFlags(bound) : 0;
    if (function && PyCFunction_GetSelf(bound) == sample &&
        (flags == METH_NOARGS || flags == METH_VARARGS || flags == (METH_VARARGS | METH_KEYWORDS))) {
      m->function = function;
      m->flags = flags;
    }
    Py_DECREF(bound);
  }
  PyErr_Clear();
}
/* Calls launched here and calls handed to the Python path (tests check which path ran). */
static unsigned long long fast_calls, python_calls;

static PyObject *call_python(PyObject *self, PyObject *args, PyObject *kwargs) {
  ++python_calls;
  if (!python_call) {
    PyErr_SetString(PyExc_RuntimeError, "oxide._fastcall: the package did not configure its Python path");
    return NULL;
  }
  Py_ssize_t count = PyTuple_Size(args);
  PyObject *full = PyTuple_New(count + 1);
  if (!full)
    return NULL;
  Py_INCREF(self);
  PyTuple_SetItem(full, 0, self);
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject *a = PyTuple_GetItem(args, i);
    Py_INCREF(a);
    PyTuple_SetItem(full, i + 1, a);
  }
  PyObject *result = PyObject_Call(python_call, full, kwargs);
  Py_DECREF(full);
  return result;
}

/* A Python int, float or bool as the Python path packs it (Kernel._pack_scalar): bool, int64,
 * uint64 (2^63 to 2^64 - 1) or float64. 0 for anything else (the Python path reports it). */
static int pack_scalar(PyObject *a, oxide_arg *d) {
  memset(d, 0, sizeof *d);
  d->type = OXIDE_ARG_SCALAR;
  if (a == Py_True || a == Py_False) {
    d->dtype = OXIDE_DTYPE_BOOL;
    d->data = a == Py_True;
    return 1;
  }
  if (PyLong_Check(a)) {
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(a, &overflow);
    if (overflow == 0) {
      if (value == -1 && PyErr_Occurred())
        return 0;
      d->dtype = OXIDE_DTYPE_I64;
      d->data = (uint64_t)value;
      return 1;
    }
    if (overflow < 0)
      return 0;
    unsigned long long bits = PyLong_AsUnsignedLongLong(a);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
      return 0;
    d->dtype = OXIDE_DTYPE_U64;
    d->data = bits;
    return 1;
  }
  if (PyFloat_Check(a)) {
    double value = PyFloat_AsDouble(a);
    if (value == -1.0 && PyErr_Occurred())
      return 0;
    d->dtype = OXIDE_DTYPE_F64;
    memcpy(&d->data, &value, sizeof value);
    return 1;
  }
  return 0;
}

/* Up to OXIDE_MAX_DIMS int64s of a tuple (torch.Size, stride()) into out; -1 past the limit or on
 * an error. */
static Py_ssize_t read_extents(PyObject *tuple, int64_t *out) {
  Py_ssize_t n = PyTuple_Size(tuple);
  if (n < 0 || n > OXIDE_MAX_DIMS)
    return -1;
  for (Py_ssize_t k = 0; k < n; ++k) {
    long long v = PyLong_AsLongLong(PyTuple_GetItem(tuple, k));
    if (v == -1 && PyErr_Occurred())
      return -1;
    out[k] = v;
  }
  return n;
}

/* A torch tensor as the Python path describes it: dtype, data pointer, shape and strides as they
 * are (the runtime checks contiguity), on device get_device() (-1: host memory, the simulator).
 * *device_obj receives a new reference to the device's int. 0 when the Python path must take it. */
static int pack_tensor(PyObject *a, oxide_arg *d, PyObject **device_obj) {
  if (!tensor_type)
    return 0;
  const int exact = Py_TYPE(a) == (PyTypeObject *)tensor_type;
  if (!exact && PyObject_IsInstance(a, tensor_type) != 1)
    return 0;
  memset(d, 0, sizeof *d);
  d->type = OXIDE_ARG_TENSOR;
  PyObject *dtype = PyObject_GetAttr(a, str_dtype);
  if (!dtype)
    return 0;
  PyObject *code = PyDict_GetItem(dtype_codes, dtype); /* borrowed; NULL: not a dtype Oxide takes */
  Py_DECREF(dtype);
  if (!code)
    return 0;
  d->dtype = (int32_t)PyLong_AsLong(code);
  PyObject *device = call_method(&get_device, a, exact);
  if (!device)
    return 0;
  PyObject *pointer = call_method(&data_ptr, a, exact);
  if (!pointer) {
    Py_DECREF(device);
    return 0;
  }
  d->data = PyLong_AsUnsignedLongLong(pointer);
  Py_DECREF(pointer);
  if (PyErr_Occurred()) {
    Py_DECREF(device);
    return 0;
  }
  PyObject *shape = PyObject_GetAttr(a, str_shape);
  PyObject *strides = shape ? call_method(&stride, a, exact) : NULL;
  Py_ssize_t ndim = shape ? read_extents(shape, d->shape) : -1;
  Py_ssize_t nstrides = strides && ndim >= 0 ? read_extents(strides, d->strides) : -1;
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  if (ndim < 0 || nstrides != ndim) { /* more than 4 dimensions: the Python path flattens or refuses */
    Py_DECREF(device);
    return 0;
  }
  d->ndim = (int32_t)ndim;
  *device_obj = device;
  return 1;
}

static PyObject *kernel_call(PyObject *self_obj, PyObject *args, PyObject *kwargs) {
  KernelBase *self = (KernelBase *)self_obj;
  if (!self->handle || (kwargs && PyDict_Size(kwargs) != 0) || PyTuple_Size(args) != self->count)
    return call_python(self_obj, args, kwargs);
  oxide_arg descriptors[FAST_MAX_PARAMS];
  PyObject *device_obj = NULL; /* the first tensor's device */
  long device = OXIDE_DEVICE_SIMULATOR;
  for (Py_ssize_t i = 0; i < self->count; ++i) {
    PyObject *a = PyTuple_GetItem(args, i);
    if (!self->is_span[i]) {
      if (!pack_scalar(a, &descriptors[i]))
        goto python_path;
      continue;
    }
    PyObject *where = NULL;
    if (!pack_tensor(a, &descriptors[i], &where))
      goto python_path;
    if (!device_obj) {
      device_obj = where;
      device = PyLong_AsLong(where);
      if (device == -1 && PyErr_Occurred())
        goto python_path;
    } else {
      long other = PyLong_AsLong(where);
      Py_DECREF(where);
      if (other != device) /* the Python path raises DeviceError */
        goto python_path;
    }
  }
  oxide_launch_config config;
  memset(&config, 0, sizeof config);
  if (device < 0)
    device = OXIDE_DEVICE_SIMULATOR;
  config.device = (int32_t)device;
  if (device >= 0) {
    PyObject *stream = current_stream ? PyObject_CallFunctionObjArgs(current_stream, device_obj, NULL) : NULL;
    if (!stream)
      goto python_path;
    config.stream = PyLong_AsVoidPtr(stream);
    Py_DECREF(stream);
    if (PyErr_Occurred())
      goto python_path;
  }
  Py_XDECREF(device_obj);
  ++fast_calls;
  int status;
  if (device < 0 && !self->simulator_keeps_gil) {
    Py_BEGIN_ALLOW_THREADS status = self->launch(self->handle, &config, descriptors, (size_t)self->count);
    Py_END_ALLOW_THREADS
  } else {
    status = self->launch(self->handle, &config, descriptors, (size_t)self->count);
  }
  if (status == OXIDE_OK)
    Py_RETURN_NONE;
  PyObject *code = PyLong_FromLong(status);
  PyObject *raised = code ? PyObject_CallMethodObjArgs(self_obj, str_raise_status, code, NULL) : NULL;
  Py_XDECREF(code);
  if (raised) { /* it always raises; a None would hide the failure */
    Py_DECREF(raised);
    PyErr_Format(PyExc_RuntimeError, "oxide: launch failed with status %d", status);
  }
  return NULL;

python_path:
  PyErr_Clear();
  Py_XDECREF(device_obj);
  return call_python(self_obj, args, kwargs);
}

static PyObject *kernel_fast_setup(PyObject *self_obj, PyObject *args) {
  KernelBase *self = (KernelBase *)self_obj;
  unsigned long long handle = 0, launch = 0;
  PyObject *spans = NULL;
  int keep_gil = 0;
  if (!PyArg_ParseTuple(args, "KKO|p:_fast_setup", &handle, &launch, &spans, &keep_gil))
    return NULL;
  Py_ssize_t count = PySequence_Size(spans);
  if (count < 0)
    return NULL;
  if (count > FAST_MAX_PARAMS || !handle || !launch) {
    self->handle = NULL; /* every call takes the Python path */
    Py_RETURN_FALSE;
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject *item = PySequence_GetItem(spans, i);
    if (!item)
      return NULL;
    int truth = PyObject_IsTrue(item);
    Py_DECREF(item);
    if (truth < 0)
      return NULL;
    self->is_span[i] = (unsigned char)truth;
  }
  self->count = count;
  self->launch = (launch_fn)(uintptr_t)launch;
  self->simulator_keeps_gil = keep_gil;
  self->handle = (const oxide_kernel *)(uintptr_t)handle;
  Py_RETURN_TRUE;
}

static PyMethodDef kernel_methods[] = {
    {"_fast_setup", kernel_fast_setup, METH_VARARGS,
     "_fast_setup(handle, launch, spans, simulator_keeps_gil=False): launch calls through the "
     "oxide_launch at address `launch`; `spans` says which parameters are spans."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot kernel_slots[] = {
    {Py_tp_doc, "The compiled call of an Oxide kernel (oxide.Kernel's base when the extension loads)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_call, kernel_call},
    {Py_tp_methods, kernel_methods},
    {0, NULL}};

static PyType_Spec kernel_spec = {"oxide._fastcall.KernelBase", sizeof(KernelBase), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, kernel_slots};

static void replace(PyObject **slot, PyObject *value) {
  PyObject *old = *slot;
  Py_XINCREF(value);
  *slot = value;
  Py_XDECREF(old);
}

static PyObject *configure(PyObject *module, PyObject *args, PyObject *kwargs) {
  (void)module;
  static char *keywords[] = {"python_call", "tensor_type", "dtype_codes", "current_stream", "sample", NULL};
  PyObject *call = NULL, *tensor = NULL, *codes = NULL, *stream = NULL, *sample = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOOOO:configure", keywords, &call, &tensor, &codes,
                                   &stream, &sample))
    return NULL;
  if (codes && codes != Py_None && !PyDict_Check(codes)) {
    PyErr_SetString(PyExc_TypeError, "configure: dtype_codes must be a dict");
    return NULL;
  }
  if (call)
    replace(&python_call, call == Py_None ? NULL : call);
  if (tensor && codes) {
    replace(&tensor_type, tensor == Py_None ? NULL : tensor);
    replace(&dtype_codes, codes == Py_None ? NULL : codes);
    if (!tensor_type || !dtype_codes) {
      replace(&tensor_type, NULL);
      replace(&dtype_codes, NULL);
    }
    /* Direct calls only for a sample of exactly the tensor type. */
    if (sample && (!tensor_type || Py_TYPE(sample) != (PyTypeObject *)tensor_type))
      sample = NULL;
    bind_method(&get_device, sample);
    bind_method(&data_ptr, sample);
    bind_method(&stride, sample);
  }
  if (stream)
    replace(&current_stream, stream == Py_None ? NULL : stream);
  Py_RETURN_NONE;
}

static PyObject *counters(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  return Py_BuildValue("(KK)", fast_calls, python_calls);
}

/* A launch that does nothing, for measuring the Python side alone (benchmarks/python/overhead.py
 * and the tests give it to both paths in place of oxide_launch). */
static int noop_launch(const oxide_kernel *kernel, const oxide_launch_config *config, const oxide_arg *args,
                       size_t count) {
  (void)kernel;
  (void)config;
  (void)args;
  (void)count;
  return OXIDE_OK;
}

/* A launch that records its configuration and arguments and does nothing (the tests check what
 * the extension passes, on any machine). */
static oxide_launch_config recorded_config;
static oxide_arg recorded_args[FAST_MAX_PARAMS];
static size_t recorded_count;

static int record_launch(const oxide_kernel *kernel, const oxide_launch_config *config, const oxide_arg *args,
                         size_t count) {
  (void)kernel;
  recorded_config = *config;
  recorded_count = count < FAST_MAX_PARAMS ? count : FAST_MAX_PARAMS;
  memcpy(recorded_args, args, recorded_count * sizeof *args);
  return OXIDE_OK;
}

static PyObject *last_launch(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  PyObject *config = PyBytes_FromStringAndSize((const char *)&recorded_config, sizeof recorded_config);
  PyObject *args = PyBytes_FromStringAndSize((const char *)recorded_args,
                                             (Py_ssize_t)(recorded_count * sizeof *recorded_args));
  PyObject *both = config && args ? PyTuple_New(2) : NULL;
  if (!both) {
    Py_XDECREF(config);
    Py_XDECREF(args);
    return NULL;
  }
  PyTuple_SetItem(both, 0, config);
  PyTuple_SetItem(both, 1, args);
  return both;
}

static PyMethodDef module_methods[] = {
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     "configure(python_call=, tensor_type=, dtype_codes=, current_stream=): the package's Python "
     "path, and torch's tensor type, dtype codes and current-stream function."},
    {"counters", counters, METH_NOARGS, "(calls launched here, calls handed to the Python path)"},
    {"last_launch", last_launch, METH_NOARGS,
     "(configuration, arguments) of the last launch through RECORD_LAUNCH, as oxide_launch_config and "
     "oxide_arg bytes"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        "oxide._fastcall",
                                        "The compiled launch path of the oxide package.",
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC PyInit__fastcall(void) {
  PyObject *module = PyModule_Create(&module_def);
  if (!module)
    return NULL;
  str_dtype = PyUnicode_InternFromString("dtype");
  str_shape = PyUnicode_InternFromString("shape");
  str_raise_status = PyUnicode_InternFromString("_raise_status");
  empty_tuple = PyTuple_New(0);
  if (!str_dtype || !str_shape || !str_raise_status || !empty_tuple)
    goto failed;
  Method *methods[] = {&get_device, &data_ptr, &stride};
  for (size_t i = 0; i < sizeof methods / sizeof *methods; ++i)
    if (!(methods[i]->name = PyUnicode_InternFromString(methods[i]->text)))
      goto failed;
  /* PyModule_AddObject takes the reference only when it succeeds. */
  PyObject *type = PyType_FromSpec(&kernel_spec);
  if (!type || PyModule_AddObject(module, "KernelBase", type) < 0) {
    Py_XDECREF(type);
    goto failed;
  }
  PyObject *noop = PyLong_FromVoidPtr((void *)(uintptr_t)noop_launch);
  if (!noop || PyModule_AddObject(module, "NOOP_LAUNCH", noop) < 0) {
    Py_XDECREF(noop);
    goto failed;
  }
  PyObject *record = PyLong_FromVoidPtr((void *)(uintptr_t)record_launch);
  if (!record || PyModule_AddObject(module, "RECORD_LAUNCH", record) < 0) {
    Py_XDECREF(record);
    goto failed;
  }
  if (PyModule_AddIntConstant(module, "C_API_VERSION", OXIDE_C_API_VERSION) < 0)
    goto failed;
  return module;

failed:
  Py_DECREF(module);
  return NULL;
}
