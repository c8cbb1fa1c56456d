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


def _reduceat_0d(ctx):
    """f.reduceat of a 0-d array: both refuse it, ufunc with shape_error (no
    axis), NumPy with TypeError ("cannot reduceat on a scalar")."""
    return (ctx.cat == "primitives" and ctx.case.get("form") == 6 and ctx.got_err is not None
            and ctx.got_err["type"] == "shape_error" and isinstance(ctx.want_err, TypeError)
            and ctx.ins[0][1].ndim == 0)


def _hypot_single(ctx):
    """f.reduce of the hypot lambda over an axis of length 1 (a 0-d array counts
    as one: NumPy reduces it as a length-1 axis 0): with no identity the one
    element is the result (x); NumPy starts from hypot's identity 0 and gives
    hypot(0, x) = |x|."""
    c = ctx.case
    if not (ctx.cat == "methods" and c.get("method") == "reduce" and ctx.op == "hypot" and ctx.got is not None
            and ctx.want is not None and ctx.got.shape == ctx.want.shape):
        return False
    x = ctx.ins[0][1]
    ax = c.get("axis", 0)
    return (x.ndim == 0 or x.shape[ax] == 1) and np.array_equal(np.abs(ctx.got), ctx.want, equal_nan=True)


KNOWN = [
    dict(name="custom-no-identity", tag="deliberate", applies=_custom_no_identity,
         reason="a vectorized lambda has no identity (README: f.reduce has none); NumPy's built-in "
                "ufuncs do"),
    dict(name="custom-reduce-single-element", tag="deliberate", applies=_hypot_single,
         reason="without an identity a length-1 reduction is the element itself; NumPy's hypot "
                "combines it with its identity 0 (abs)"),
    dict(name="accumulate-0d-error-class", tag="deliberate", applies=_accumulate_0d,
         reason="a 0-d array has no axis: ufunc's shape errors are shape_error; NumPy says TypeError"),
    dict(name="reduceat-0d-error-class", tag="deliberate", applies=_reduceat_0d,
         reason="a 0-d array has no axis: ufunc's shape errors are shape_error; NumPy says TypeError"),
]
