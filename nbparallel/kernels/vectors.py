"""float64 vectors in registers for numba kernels: a type and the few operations the scoring kernels need.

numba adds a class's terms one scalar at a time (its loop vectoriser cannot keep sums in registers across an
outer loop, and its SLP vectoriser is off), so the sums of a row's classes were a chain of scalar additions
per class. Here a row's classes are one LLVM vector ``<width x double>`` (``width`` a compile-time constant:
2, 4, 8 or 24, held in one to three AVX-512 registers), and a table row is added to it by one load and
one vector addition per register. Each lane is still its own class's sum, added in the same order: the
results are those of scalar code, bit for bit.

Loads and stores take a contiguous 1-D float64 array and an element index; the caller keeps the index and
the ``width`` elements from it inside the array (nothing here checks them). A load's ``width`` is a constant
or a tuple of that many floats (``lanes``): a kernel takes ``lanes`` as an argument, so numba compiles it
once per width from the argument's type (``numba.literally`` would re-type the kernel at every call).
"""

import math

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
def add_load(typingctx, vector, array, index):
    """``add(vector, load(array, index, width))``: one call where a kernel has many (numba types each call)."""
    if not isinstance(vector, F64Vector) or not _contiguous(array):
        return None

    def codegen(context, builder, sig, args):
        pointer = _pointer(context, builder, sig.args[1], args[1], sig.args[2], args[2], vector.width)
        return builder.fadd(args[0], builder.load(pointer, align=8))

    return vector(vector, array, index), codegen


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


@intrinsic
def times(typingctx, vector, value):
    """Lane-wise ``vector * value``."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        return builder.fmul(args[0], _splat(builder, args[1], vector.width))

    return vector(vector, types.float64), codegen


@intrinsic
def less(typingctx, vector, value):
    """Lane-wise ``vector - value``."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        return builder.fsub(args[0], _splat(builder, args[1], vector.width))

    return vector(vector, types.float64), codegen


@intrinsic
def over_rest(typingctx, vector, total):
    """Lane-wise ``vector / (total - vector)``: each lane against the rest of a total."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        return builder.fdiv(args[0], builder.fsub(_splat(builder, args[1], vector.width), args[0]))

    return vector(vector, types.float64), codegen


@intrinsic
def count_below(typingctx, counts, edges, values):
    """Lane-wise ``counts + (edges < values)``, the comparison 1.0 or 0.0 (0.0 where either is NaN)."""
    if not isinstance(counts, F64Vector) or counts != edges or counts != values:
        return None

    def codegen(context, builder, sig, args):
        one = ir.Constant(args[0].type, [1.0] * counts.width)
        return builder.select(builder.fcmp_ordered("<", args[1], args[2]), builder.fadd(args[0], one), args[0])

    return counts(counts, edges, values), codegen


@intrinsic
def store_codes(typingctx, array, index, counts, values, count):
    """Write the first ``count`` lanes of ``counts + 1`` as bytes (0 where ``values`` is NaN) to elements
    ``index ..`` of a 1-D C-contiguous uint8 ``array``: bin codes from the number of edges below each value."""
    if not isinstance(counts, F64Vector) or counts != values:
        return None
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"
            and array.dtype == types.uint8):
        return None

    def codegen(context, builder, sig, args):
        width = counts.width
        double_type = args[2].type
        present = builder.fcmp_ordered("==", args[3], args[3])
        codes = builder.select(present, builder.fadd(args[2], ir.Constant(double_type, [1.0] * width)),
                               ir.Constant(double_type, [0.0] * width))
        byte_vector = ir.VectorType(ir.IntType(8), width)
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        offset = context.cast(builder, args[1], sig.args[1], types.intp)
        pointer = builder.bitcast(builder.gep(data, [offset]), byte_vector.as_pointer())
        mask = _first_lanes(context, builder, sig.args[4], args[4], width)
        masked_store = _declare(builder, f"llvm.masked.store.v{width}i8.p0", ir.VoidType(),
                                [byte_vector, pointer.type, _I32, mask.type])
        builder.call(masked_store, [builder.fptoui(codes, byte_vector), pointer, _I32(1), mask])
        return context.get_dummy_value()

    return types.none(array, index, counts, values, count), codegen


_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # fdlibm's split of log(2)
_EXP_TERMS = 14  # Taylor terms of exp(r), |r| <= log(2) / 2: the first left out is below 2**-60
_ROUNDING_SHIFT = 1.5 * 2.0**52  # y + this - this is y rounded to an integer (ties to even) for |y| < 2**51,
_ROUNDING_SHIFT_BITS = 0x4338000000000000  # and that integer is the bits of y + this less these bits


@intrinsic
def exp(typingctx, vector):
    """Lane-wise ``exp`` within an ulp of the correctly rounded value (as numpy's): exactly 1 for 0, 0 below
    -745.2 (with no subnormal intermediate, which would cost a microcode assist per vector), infinite above
    709.8, NaN for NaN.

    ``x = n log(2) + r`` (Cody and Waite's two-part log(2), with fused multiply-adds), ``exp(r)`` by its
    Taylor polynomial (Horner, fused), times ``2**n`` as two powers of two (so that results below the
    smallest normal number round once, as subnormals). ``n`` is rounded, and read as an integer, by adding
    1.5 * 2**52: no rounding or conversion instruction, which AVX2 lacks for int64 lanes."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        x = args[0]
        vector_type, width = x.type, vector.width
        integers = ir.VectorType(_I64, width)

        def constant(value):
            return ir.Constant(vector_type, [float(value)] * width)

        def call(name, *operands):
            function = _declare(builder, f"llvm.{name}.v{width}f64", vector_type, [vector_type] * len(operands))
            return builder.call(function, list(operands))

        nan = builder.fcmp_unordered("uno", x, x)
        zero = builder.fcmp_ordered("<", x, constant(-745.2))
        skipped = builder.or_(nan, zero)
        clamped = builder.select(builder.fcmp_ordered(">", x, constant(710.0)), constant(710.0), x)
        clamped = builder.select(skipped, constant(0.0), clamped)
        shifted = builder.fadd(builder.fmul(clamped, constant(1.0 / math.log(2.0))), constant(_ROUNDING_SHIFT))
        n = builder.fsub(shifted, constant(_ROUNDING_SHIFT))  # x / log(2) rounded to an integer, ties to even
        r = call("fma", n, constant(-_LN2_HI), clamped)
        r = call("fma", n, constant(-_LN2_LO), r)
        polynomial = constant(1.0 / math.factorial(_EXP_TERMS - 1))
        for k in range(_EXP_TERMS - 2, -1, -1):
            polynomial = call("fma", polynomial, r, constant(1.0 / math.factorial(k)))
        exponent = builder.sub(builder.bitcast(shifted, integers),
                               ir.Constant(integers, [_ROUNDING_SHIFT_BITS] * width))
        half = builder.ashr(exponent, ir.Constant(integers, [1] * width))

        def power_of_two(e):  # 2**e for -1022 <= e <= 1023
            biased = builder.add(e, ir.Constant(integers, [1023] * width))
            return builder.bitcast(builder.shl(biased, ir.Constant(integers, [52] * width)), vector_type)

        result = builder.fmul(builder.fmul(polynomial, power_of_two(half)),
                              power_of_two(builder.sub(exponent, half)))
        # NaN as a constant, not ``x``: a select of the loaded value would be stored as a masked store of the
        # other lanes, which AVX2 processors take several times as long over as a plain store
        return builder.select(nan, constant(math.nan), builder.select(zero, constant(0.0), result))

    return vector(vector), codegen


# fdlibm's e_log.c: log(1 + f) = f - f**2 / 2 + s (f**2 / 2 + R(s**2)), s = f / (2 + f), R minimax of degree 7
_LOG_TERMS = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
              2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
              1.479819860511658591e-01)


@intrinsic
def log(typingctx, vector):
    """Lane-wise natural ``log`` within an ulp (fdlibm's method): -inf for 0, NaN below 0 and for NaN,
    infinite for infinity; subnormal lanes are scaled to normal ones first."""
    if not isinstance(vector, F64Vector):
        return None

    def codegen(context, builder, sig, args):
        x = args[0]
        vector_type, width = x.type, vector.width
        integers = ir.VectorType(_I64, width)

        def constant(value):
            return ir.Constant(vector_type, [float(value)] * width)

        def integer(value):
            return ir.Constant(integers, [value] * width)

        def fma(a, b, c):
            function = _declare(builder, f"llvm.fma.v{width}f64", vector_type, [vector_type] * 3)
            return builder.call(function, [a, b, c])

        subnormal = builder.fcmp_ordered("<", x, constant(2.2250738585072014e-308))
        scaled = builder.select(subnormal, builder.fmul(x, constant(2.0 ** 54)), x)
        bits = builder.bitcast(scaled, integers)
        exponent = builder.sub(builder.lshr(bits, integer(52)), builder.select(subnormal, integer(1023 + 54),
                                                                                 integer(1023)))
        # m in [1, 2): the mantissa with a zero exponent; past sqrt(2), m / 2 and one more in the exponent
        m = builder.bitcast(builder.or_(builder.and_(bits, integer((1 << 52) - 1)), integer(1023 << 52)),
                            vector_type)
        high = builder.fcmp_ordered(">", m, constant(math.sqrt(2.0)))
        m = builder.select(high, builder.fmul(m, constant(0.5)), m)
        exponent = builder.sitofp(builder.add(exponent, builder.zext(high, integers)), vector_type)
        f = builder.fsub(m, constant(1.0))
        s = builder.fdiv(f, builder.fadd(constant(2.0), f))
        z = builder.fmul(s, s)
        r = constant(_LOG_TERMS[-1])
        for term in _LOG_TERMS[-2::-1]:
            r = fma(r, z, constant(term))
        r = builder.fmul(r, z)
        half_square = builder.fmul(constant(0.5), builder.fmul(f, f))
        low = fma(s, builder.fadd(half_square, r), builder.fmul(exponent, constant(_LN2_LO)))
        result = fma(exponent, constant(_LN2_HI), builder.fsub(f, builder.fsub(half_square, low)))
        result = builder.select(builder.fcmp_ordered("==", x, constant(0.0)), constant(-math.inf), result)
        result = builder.select(builder.fcmp_ordered("==", x, constant(math.inf)), x, result)
        return builder.select(builder.fcmp_unordered("uge", constant(0.0), x),  # below 0, or NaN
                              builder.select(builder.fcmp_ordered("==", x, constant(0.0)), result, constant(math.nan)),
                              result)

    return vector(vector), codegen


POSITIONS_AT_ONCE = 16
"""Codes turned into table positions by one :func:`positions16`."""


@intrinsic
def positions16(typingctx, codes, element, bases, sizes, tile, scale, positions, at):
    """Positions in a padded table of 16 codes at once: ``positions[at + q] = (bases[tile + q] + code_q) *
    scale`` where ``code_q = codes' element element + q`` (counted from the array's first element, whatever
    its layout; the caller keeps the 16 elements inside it and consecutive in memory), or ``bases[tile + q]
    * scale`` where ``code_q >= sizes[tile + q]``; returns whether any code was that far (never read past).

    ``codes`` of uint8 or uint16, ``bases``, ``sizes`` and ``positions`` 1-D C-contiguous uint32 arrays."""
    words = (bases, sizes, positions)
    if (not isinstance(codes, types.Array) or codes.dtype not in (types.uint8, types.uint16)
            or not all(isinstance(a, types.Array) and a.ndim == 1 and a.layout == "C" and a.dtype == types.uint32
                       for a in words)):
        return None

    def codegen(context, builder, sig, args):
        lanes = POSITIONS_AT_ONCE
        words_type = ir.VectorType(ir.IntType(32), lanes)

        def pointer(array_type, array, index_type, index, element_type):
            data = context.make_array(array_type)(context, builder, array).data
            offset = context.cast(builder, index, index_type, types.intp)
            return builder.bitcast(builder.gep(data, [offset]), ir.VectorType(element_type, lanes).as_pointer())

        code_type = ir.IntType(sig.args[0].dtype.bitwidth)
        code = builder.zext(builder.load(pointer(sig.args[0], args[0], sig.args[1], args[1], code_type), align=1),
                            words_type)
        base = builder.load(pointer(sig.args[2], args[2], sig.args[4], args[4], ir.IntType(32)), align=4)
        size = builder.load(pointer(sig.args[3], args[3], sig.args[4], args[4], ir.IntType(32)), align=4)
        inside = builder.icmp_unsigned("<", code, size)
        chosen = builder.select(inside, code, ir.Constant(words_type, [0] * lanes))
        factor = _splat(builder, context.cast(builder, args[5], sig.args[5], types.uint32), lanes)
        position = builder.mul(builder.add(base, chosen), factor)
        builder.store(position, pointer(sig.args[6], args[6], sig.args[7], args[7], ir.IntType(32)), align=4)
        outside = builder.bitcast(builder.not_(inside), ir.IntType(lanes))
        return builder.icmp_unsigned("!=", outside, ir.Constant(ir.IntType(lanes), 0))

    return types.boolean(codes, element, bases, sizes, tile, scale, positions, at), codegen


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
