"""Where ufunc knowingly differs from NumPy: the one list check.py reads.

Each entry: `name`, `tag` (`fix:<what>`: a fix in progress will remove the
difference, delete the entry once it is merged and the count printed by
check.py is 0; `deliberate`: a documented design choice), `reason`, and
`applies(ctx)`, which decides whether one mismatching case is explained by it.
Keep the predicates narrow: a mismatch that no entry explains fails the run.

ctx: case (the JSON record), ins (list of (base, view) NumPy arrays), got /
got_err (ufunc's result array, or its error {type, what}), want / want_err
(NumPy's result, or the exception it raised), problem (check.py's one line).
"""
import numpy as np


class Context:
    def __init__(self, case, ins, got, got_err, want, want_err, problem):
        self.case, self.ins, self.got, self.got_err = case, ins, got, got_err
        self.want, self.want_err, self.problem = want, want_err, problem

    @property
    def cat(self):
        return self.case["cat"]

    @property
    def op(self):
        return self.case.get("op")

    @property
    def dtype(self):
        return np.dtype(self.case["dtype"])


def _int_sum_narrow(ctx):
    """sum/prod of int8..int32 or bool returned in the C++ accumulator type (int32
    for int8/uint8/int16/bool, the type itself for int32) instead of int64/uint64,
    and equal to NumPy's result when NumPy is told to accumulate in that type."""
    c = ctx.case
    red = (ctx.cat == "reduce" and ctx.op in ("sum", "prod")) or (ctx.cat == "lazy" and c.get("form") == 3)
    if not red or ctx.got is None or ctx.want is None or np.issubdtype(ctx.dtype, np.floating):
        return False
    if ctx.got.dtype.itemsize >= ctx.want.dtype.itemsize or ctx.got.shape != ctx.want.shape:
        return False
    x = ctx.ins[0][1]
    if ctx.cat == "lazy":
        x = np.multiply(ctx.ins[0][1], ctx.ins[1][1])
        axes, keep = tuple(c["axes"]), c["keepdims"]
    else:
        form = c["form"]
        axes = None if form in (0, 3) else tuple(c["axes"])
        keep = form in (2, 3)
    f = np.sum if ctx.op != "prod" else np.prod
    narrow = f(x.astype(ctx.got.dtype), axis=axes, keepdims=keep, dtype=ctx.got.dtype)
    return np.array_equal(np.asarray(narrow), ctx.got)


def _empty_minmax(ctx):
    """min/max/argmin/argmax, or f.reduce of a function without identity,
    reducing a zero-length axis to an empty result: ufunc returns the empty
    array, NumPy raises ValueError."""
    no_identity = ((ctx.cat == "reduce" and ctx.op in ("min", "max", "argmin", "argmax"))
                   or (ctx.cat == "methods" and ctx.case.get("method") == "reduce"))
    return no_identity and ctx.got is not None and ctx.got.size == 0 and isinstance(ctx.want_err, ValueError)


def _zero_d_axis(ctx):
    """An axis (0 or -1) of a 0-d array: ufunc refuses it (shape_error), NumPy
    treats the 0-d array as having that axis (reductions, f.reduce's default
    axis 0)."""
    if ctx.got_err is None or ctx.got_err["type"] != "shape_error" or ctx.want_err is not None:
        return False
    return bool(ctx.ins) and ctx.ins[0][1].ndim == 0 and ctx.cat in ("reduce", "methods")


def _sliced_extreme(ctx):
    """sliced() with start/stop/step near the 64-bit limits overflows signed
    arithmetic in array_view::sliced (length or offset): wrong length or a
    shape_error where Python's slicing gives an empty or short view."""
    return ctx.cat == "sliced_extreme"


def _custom_no_identity(ctx):
    """f.reduce of a vectorized lambda over a zero-length axis: the lambda has no
    identity, so ufunc raises value_error; NumPy's np.add/np.multiply/np.hypot
    have identities (0, 1, 0) and return them."""
    return (ctx.cat == "methods" and ctx.case.get("method") == "reduce" and ctx.got_err is not None
            and ctx.got_err["type"] == "value_error" and ctx.want_err is None and ctx.want is not None
            and ctx.op in ("add", "multiply", "hypot"))


def _accumulate_0d(ctx):
    """f.accumulate of a 0-d array: both refuse it, ufunc with shape_error (no
    axis to scan), NumPy with TypeError ("cannot accumulate on a scalar")."""
    return (ctx.cat == "methods" and ctx.case.get("method") == "accumulate" and ctx.got_err is not None
            and ctx.got_err["type"] == "shape_error" and isinstance(ctx.want_err, TypeError)
            and ctx.ins[0][1].ndim == 0)


def _hypot_single(ctx):
    """f.reduce of the hypot lambda over an axis of length 1: with no identity
    the one element is the result (x); NumPy starts from hypot's identity 0 and
    gives hypot(0, x) = |x|."""
    c = ctx.case
    if not (ctx.cat == "methods" and c.get("method") == "reduce" and ctx.op == "hypot" and ctx.got is not None
            and ctx.want is not None and ctx.got.shape == ctx.want.shape):
        return False
    x = ctx.ins[0][1]
    ax = c.get("axis", 0)
    return x.ndim > 0 and x.shape[ax] == 1 and np.array_equal(np.abs(ctx.got), ctx.want, equal_nan=True)


KNOWN = [
    dict(name="int-sum-prod-narrow", tag="fix:int-widening", applies=_int_sum_narrow,
         reason="integer sum/prod accumulate in the C++ op's result type; NumPy widens int8..int32 "
                "to int64 (unsigned to uint64) and bool to int64"),
    dict(name="empty-minmax-no-raise", tag="fix:empty-minmax-raise", applies=_empty_minmax,
         reason="a zero-length reduced axis with an empty result returns empty; NumPy raises"),
    dict(name="zero-d-axis", tag="fix:0d-reduction", applies=_zero_d_axis,
         reason="axis 0/-1 of a 0-d array is refused; NumPy accepts it"),
    dict(name="sliced-extreme", tag="fix:sliced-extreme", applies=_sliced_extreme,
         reason="signed 64-bit overflow in sliced() for arguments near the limits"),
    dict(name="custom-no-identity", tag="deliberate", applies=_custom_no_identity,
         reason="a vectorized lambda has no identity (README: f.reduce has none); NumPy's built-in "
                "ufuncs do"),
    dict(name="custom-reduce-single-element", tag="deliberate", applies=_hypot_single,
         reason="without an identity a length-1 reduction is the element itself; NumPy's hypot "
                "combines it with its identity 0 (abs)"),
    dict(name="accumulate-0d-error-class", tag="deliberate", applies=_accumulate_0d,
         reason="a 0-d array has no axis: ufunc's shape errors are shape_error; NumPy says TypeError"),
]
