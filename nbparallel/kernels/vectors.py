"""float64 vectors in registers for numba kernels: a type and the few operations the scoring kernels need.

numba adds a class's terms one scalar at a time (its loop vectoriser cannot keep sums in registers across an
outer loop, and its SLP vectoriser is off), so the sums of a row's classes were a chain of scalar additions
per class. Here a row's classes are one LLVM vector ``<width x double>`` (``width`` a compile-time constant:
2, 8 or 24, held in one to three AVX-512 registers), and a table row is added to it by one load and
one vector addition per register. Each lane is still its own class's sum, added in the same order: the
results are those of scalar code, bit for bit.

Loads and stores take a contiguous 1-D float64 array and an element index; the caller keeps the index and
the ``width`` elements from it inside the array (nothing here checks them). A load's ``width`` is a constant
or a tuple of that many floats (``lanes``): a kernel takes ``lanes`` as an argument, so numba compiles it
once per width from the argument's type (``numba.literally`` would re-type the kernel at every call).
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

_DOUBLE = ir.DoubleType()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


class F64Vector(types.Type):
    """The numba type of ``width`` float64 lanes (an LLVM ``<width x double>``)."""

    def __init__(self, width):
        self.width = width
        super().__init__(name=f"f64x{width}")


@register_model(F64Vector)
class _F64VectorModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(_DOUBLE, fe_type.width))


def _contiguous(array):
    """Whether numba's ``array`` type is one the loads and stores take: 1-D C-contiguous float64."""
    return isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C" and array.dtype == types.float64


def _literal_width(width):
    """The lanes a ``width`` argument asks for: a constant int, or the length of a tuple of floats (the
    tuple's type carries it, so a kernel given one is compiled once per width)."""
    if isinstance(width, types.IntegerLiteral):
        return width.literal_value
    if isinstance(width, types.UniTuple) and isinstance(width.dtype, types.Float):
        return width.count
    return None


def _pointer(context, builder, array_type, array, index_type, index, width):
    """A ``<width x double>*`` to element ``index`` of a 1-D array."""
    data = context.make_array(array_type)(context, builder, array).data
    offset = context.cast(builder, index, index_type, types.intp)
    return builder.bitcast(builder.gep(data, [offset]), ir.VectorType(_DOUBLE, width).as_pointer())


def _splat(builder, value, width):
    vector = builder.insert_element(ir.Constant(ir.VectorType(value.type, width), None), value, _I32(0))
    return builder.shuffle_vector(vector, vector, ir.Constant(ir.VectorType(_I32, width), [0] * width))


def _first_lanes(context, builder, n_type, n, width):
    """The ``<width x i1>`` mask of lanes below ``n``."""
    lanes = ir.Constant(ir.VectorType(_I64, width), list(range(width)))
    return builder.icmp_signed("<", lanes, _splat(builder, context.cast(builder, n, n_type, types.int64), width))


def _declare(builder, name, return_type, argument_types):
    return cgutils.get_or_insert_function(builder.module, ir.FunctionType(return_type, argument_types), name)


@intrinsic
def load(typingctx, array, index, width):
    """Elements ``index .. index + width - 1`` of ``array``."""
    n = _literal_width(width)
    if n is None or not _contiguous(array):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], n), align=8)

    return F64Vector(n)(array, index, width), codegen


@intrinsic
def load_first(typingctx, array, index, count, width):
    """The first ``count`` of :func:`load`'s lanes (only those are read), the others 0."""
    n = _literal_width(width)
    if n is None or not _contiguous(array):
        return None

    def codegen(context, builder, sig, args):
        vector_type = ir.VectorType(_DOUBLE, n)
        pointer = _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], n)
        mask = _first_lanes(context, builder, sig.args[2], args[2], n)
        masked_load = _declare(builder, f"llvm.masked.load.v{n}f64.p0", vector_type,
                               [pointer.type, _I32, mask.type, vector_type])
        return builder.call(masked_load, [pointer, _I32(8), mask, ir.Constant(vector_type, [0.0] * n)])

    return F64Vector(n)(array, index, count, width), codegen


@intrinsic
def store(typingctx, array, index, vector):
    """Write ``vector`` to elements ``index ..`` of ``array``."""
    if not _contiguous(array) or not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        width = sig.args[2].width
        builder.store(args[2], _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], width),
                      align=8)
        return context.get_dummy_value()

    return types.none(array, index, vector), codegen


@intrinsic
def store_first(typingctx, array, index, vector, count):
    """Write the first ``count`` lanes of ``vector`` (only those) to elements ``index ..`` of ``array``."""
    if not _contiguous(array) or not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        width = sig.args[2].width
        pointer = _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1], width)
        mask = _first_lanes(context, builder, sig.args[3], args[3], width)
        masked_store = _declare(builder, f"llvm.masked.store.v{width}f64.p0", ir.VoidType(),
                                [args[2].type, pointer.type, _I32, mask.type])
        builder.call(masked_store, [args[2], pointer, _I32(8), mask])
        return context.get_dummy_value()

    return types.none(array, index, vector, count), codegen


@intrinsic
def add(typingctx, a, b):
    """Lane-wise ``a + b``."""
    if not isinstance(a, F64Vector) or a != b:
        return None

    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], args[1])

    return a(a, b), codegen


@intrinsic
def larger(typingctx, a, b):
    """Lane-wise ``a if a > b else b`` (``b`` where either is NaN)."""
    if not isinstance(a, F64Vector) or a != b:
        return None

    def codegen(context, builder, sig, args):
        return builder.select(builder.fcmp_ordered(">", args[0], args[1]), args[0], args[1])

    return a(a, b), codegen


@intrinsic
def top(typingctx, vector):
    """The largest lane of a vector without NaN (any value when a lane is NaN: test :func:`nan_bits` first)."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        reduce_max = _declare(builder, f"llvm.vector.reduce.fmax.v{vector.width}f64", _DOUBLE, [args[0].type])
        return builder.call(reduce_max, [args[0]], fastmath=("nnan",))

    return types.float64(vector), codegen


@intrinsic
def minus_top(typingctx, vector, value):
    """Lane-wise ``vector - value``, exactly 0 where a lane equals ``value`` (also when both are infinite):
    the exponents of the posteriors, whose exponential is 1 for the largest score."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        splat = _splat(builder, args[1], vector.width)
        zero = ir.Constant(args[0].type, [0.0] * vector.width)
        return builder.select(builder.fcmp_ordered("==", args[0], splat), zero, builder.fsub(args[0], splat))

    return vector(vector, types.float64), codegen


def _bits(builder, mask, width):
    return builder.zext(builder.bitcast(mask, ir.IntType(width)), _I64)


@intrinsic
def equal_bits(typingctx, vector, value):
    """An integer whose bit ``j`` is set where lane ``j`` equals ``value`` (never for NaN)."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        splat = _splat(builder, args[1], vector.width)
        return _bits(builder, builder.fcmp_ordered("==", args[0], splat), vector.width)

    return types.uint64(vector, types.float64), codegen


@intrinsic
def nan_bits(typingctx, vector):
    """An integer whose bit ``j`` is set where lane ``j`` is NaN."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        return _bits(builder, builder.fcmp_unordered("uno", args[0], args[0]), vector.width)

    return types.uint64(vector), codegen


@intrinsic
def lowest_bit(typingctx, bits):
    """The position of the lowest set bit of a non-zero uint64 (64 for zero)."""
    def codegen(context, builder, sig, args):
        count = _declare(builder, "llvm.cttz.i64", _I64, [_I64, ir.IntType(1)])
        return builder.call(count, [context.cast(builder, args[0], sig.args[0], types.uint64), ir.IntType(1)(0)])

    return types.int64(bits), codegen


@intrinsic
def bit_count(typingctx, bits):
    """The number of set bits of a uint64."""
    def codegen(context, builder, sig, args):
        count = _declare(builder, "llvm.ctpop.i64", _I64, [_I64])
        return builder.call(count, [context.cast(builder, args[0], sig.args[0], types.uint64)])

    return types.int64(bits), codegen
