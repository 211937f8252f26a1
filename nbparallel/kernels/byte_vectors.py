"""64 uint8 lanes in registers for numba kernels: the type and the few operations of lane counting.

numba's loop vectoriser cannot keep a loop's counters in registers across an outer loop, nor copy a short
row of bytes without a call to ``memcpy``; here 64 bytes are one LLVM vector ``<64 x i8>`` (one AVX-512
register, two AVX2 ones), loaded and stored at any byte position, and compared with a value into a lane
counter (:func:`count_equal`) by a comparison into a mask and a masked addition. Only generic LLVM vector operations
are used: the code is correct on any CPU, and fast where the CPU has wide byte vectors.

Loads and stores take a contiguous 1-D uint8 array and an element index; the caller keeps the index and the
64 bytes from it inside the array (nothing here checks them).
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, models, register_model

LANES = 64
"""Bytes of a :class:`U8Vector`."""

_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_VECTOR = ir.VectorType(_I8, LANES)


class U8Vector(types.Type):
    """The numba type of 64 uint8 lanes (an LLVM ``<64 x i8>``)."""

    def __init__(self):
        super().__init__(name="u8x64")


u8x64 = U8Vector()


@register_model(U8Vector)
class _U8VectorModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VECTOR)


def _bytes(array):
    """Whether numba's ``array`` type is one the loads and stores take: 1-D C-contiguous uint8."""
    return isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C" and array.dtype == types.uint8


def _pointer(context, builder, array_type, array, index_type, index):
    """A ``<64 x i8>*`` to element ``index`` of a 1-D uint8 array."""
    data = context.make_array(array_type)(context, builder, array).data
    offset = context.cast(builder, index, index_type, types.intp)
    return builder.bitcast(builder.gep(data, [offset]), _VECTOR.as_pointer())


@intrinsic
def load(typingctx, array, index):
    """Bytes ``index .. index + 63`` of ``array`` (any alignment)."""
    if not _bytes(array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1]), align=1)

    return u8x64(array, index), codegen


@intrinsic
def store(typingctx, array, index, vector):
    """Write ``vector`` to bytes ``index .. index + 63`` of ``array`` (any alignment)."""
    if not _bytes(array) or not isinstance(index, types.Integer) or not isinstance(vector, U8Vector):
        return None

    def codegen(context, builder, sig, args):
        builder.store(args[2], _pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1]), align=1)
        return context.get_dummy_value()

    return types.none(array, index, vector), codegen


@intrinsic
def copy_32(typingctx, source, source_index, target, target_index):
    """Copy bytes ``source_index .. + 31`` of ``source`` to ``target_index ..`` of ``target`` (any alignment):
    a short row in one load and one store, where numba's byte loop calls ``memcpy``."""
    if not (_bytes(source) and _bytes(target)):
        return None
    if not (isinstance(source_index, types.Integer) and isinstance(target_index, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        half = ir.VectorType(_I8, LANES // 2).as_pointer()
        load_from = builder.bitcast(_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1]), half)
        store_to = builder.bitcast(_pointer(context, builder, sig.args[2], args[2], sig.args[3], args[3]), half)
        builder.store(builder.load(load_from, align=1), store_to, align=1)
        return context.get_dummy_value()

    return types.none(source, source_index, target, target_index), codegen


@intrinsic
def count_equal(typingctx, counters, vector, value, ones):
    """``counters`` plus ``ones`` (a vector of 1s) in each lane where ``vector`` equals ``value`` (modulo 256:
    the caller adds the counters elsewhere before 255 calls).

    ``ones`` is loaded by the caller, not a constant: with a constant LLVM rewrites the masked addition as a
    subtraction of the comparison made a vector, one instruction more per value.
    """
    if not all(isinstance(v, U8Vector) for v in (counters, vector, ones)) or not isinstance(value, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        byte = builder.trunc(context.cast(builder, args[2], sig.args[2], types.int64), _I8)
        splat = builder.insert_element(ir.Constant(_VECTOR, None), byte, _I32(0))
        splat = builder.shuffle_vector(splat, splat, ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))
        equal = builder.icmp_unsigned("==", args[1], splat)
        return builder.select(equal, builder.add(args[0], args[3]), args[0])

    return u8x64(counters, vector, value, ones), codegen


def _lane_select(predicate):
    """An intrinsic of two :class:`U8Vector` choosing, in each lane, the first where ``predicate`` (an
    unsigned comparison) holds of it and the second, else the second."""

    def lanes(typingctx, first, second):
        if not (isinstance(first, U8Vector) and isinstance(second, U8Vector)):
            return None

        def codegen(context, builder, sig, args):
            return builder.select(builder.icmp_unsigned(predicate, args[0], args[1]), args[0], args[1])

        return u8x64(first, second), codegen

    return intrinsic(lanes)


smallest = _lane_select("<")
"""The smaller byte of two vectors in each lane (one ``vpminub``)."""

largest = _lane_select(">")
"""The larger byte of two vectors in each lane (one ``vpmaxub``)."""
