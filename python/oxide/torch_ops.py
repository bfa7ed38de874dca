"""Oxide kernels as PyTorch custom operators (torch.library.custom_op, PyTorch 2.4 or newer), so
that torch.compile traces through them instead of breaking the graph at an unknown Python call.

    import oxide, oxide.torch_ops
    lib = oxide.load("libkernels.so")
    ops = oxide.torch_ops.register(lib)            # torch.ops.oxide_kernels.add, ...
    ops.add(a, b, c)                               # c is written: the op mutates it

Each operator takes the kernel's parameters by their contract names (a Python keyword, `out`
and `self` get a trailing underscore): tensors for spans, float for floating-point scalars, int for integers,
bool for bools. The kernel's written spans (DisjointSpan, Span<T>, AtomicSpan) are the
operator's mutated arguments, and it returns nothing, so its fake (meta) implementation, what
torch.compile runs while tracing, is exact: it does nothing. The launch checks run when the
operator runs.
"""

import keyword
import re
import types

from . import OxideError

__all__ = ["register"]


# Names a schema reserves (an `out` argument marks an out= variant) or Python does.
_RESERVED = {"out", "self"}


def _python_name(name):
    return name + "_" if keyword.iskeyword(name) or name in _RESERVED else name


def register(library, namespace=None):
    """Registers every kernel of `library` as torch.ops.<namespace>.<kernel>; returns a namespace
    of the operators. The default namespace is oxide_<library file name>."""
    import torch

    custom_op = getattr(torch.library, "custom_op", None)
    if custom_op is None:
        raise OxideError("oxide: torch.library.custom_op needs PyTorch 2.4 or newer (this is %s)" % torch.__version__,
                         "Other")
    if namespace is None:
        base = re.sub(r"^lib|\.so.*$", "", library.path.rsplit("/", 1)[-1])
        namespace = "oxide_" + re.sub(r"[^A-Za-z0-9_]", "_", base)
    ops = {}
    for kernel in library.kernels.values():
        ops[kernel.name] = _register(torch, custom_op, kernel, namespace)
    return types.SimpleNamespace(**ops)


def _register(torch, custom_op, kernel, namespace):
    names, annotated, mutated = [], [], []
    for p in kernel.params:
        name = _python_name(p.name)
        names.append(name)
        if p.rank:
            annotation = "torch.Tensor"
            if p.writable:
                mutated.append(name)
        elif p.dtype == "bool":
            annotation = "bool"
        elif p.dtype.startswith(("float", "bfloat")):
            annotation = "float"
        else:
            annotation = "int"
        annotated.append("%s: %s" % (name, annotation))
    source = "def %s(%s) -> None:\n    kernel(%s)\n" % (kernel.name, ", ".join(annotated), ", ".join(names))
    scope = {"torch": torch, "kernel": kernel}
    exec(compile(source, "<oxide operator %s>" % kernel.name, "exec"), scope)
    op = custom_op("%s::%s" % (namespace, kernel.name), scope[kernel.name], mutates_args=tuple(mutated))

    # Outputs are written in place and nothing is returned: tracing needs no computation.
    fake_source = "def fake(%s) -> None:\n    return None\n" % ", ".join(annotated)
    exec(compile(fake_source, "<oxide fake %s>" % kernel.name, "exec"), scope)
    op.register_fake(scope["fake"])
    return op
