# The output comparison of the random-graph and zoo tests, on the build
# machine and on the GPU machine alike (numpy only).
import numpy as np


def compare(actual, expected, relative_l2, elementwise=None, absolute=0.0):
    """(relative L2 error, None when |actual| matches |expected| else why not).

    Matches when the shapes agree, NaN and +-inf sit exactly where the
    reference has them, the L2 error over the finite elements is at most
    relative_l2 * ||expected|| + absolute * sqrt(n) and, with |elementwise|, no element is off by more than
    elementwise * (|expected| + max |expected|) + absolute: a few wrong
    elements in a large tensor fail even when the L2 error stays small.
    """
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        return float("inf"), f"shape {list(actual.shape)}, expected {list(expected.shape)}"
    finite = np.isfinite(expected)
    if not (np.array_equal(np.isnan(actual), np.isnan(expected)) and
            np.array_equal(actual[~finite & ~np.isnan(expected)],
                           expected[~finite & ~np.isnan(expected)]) and
            np.all(np.isfinite(actual[finite]))):
        return float("inf"), "NaN/inf where the reference differs"
    a, e = actual[finite], expected[finite]
    if e.size == 0:
        return 0.0, None
    error = float(np.linalg.norm(a - e) / max(np.linalg.norm(e), 1e-30))
    off = np.zeros(e.shape, dtype=bool)
    if elementwise is not None:
        off = np.abs(a - e) > elementwise * (np.abs(e) + np.abs(e).max()) + absolute
    l2_bound = relative_l2 * np.linalg.norm(e) + absolute * np.sqrt(e.size)
    if np.linalg.norm(a - e) > l2_bound or off.any():
        first = int(np.argmax(off)) if off.any() else int(np.argmax(np.abs(a - e)))
        return error, (f"rel-L2 {error:.3g} (tol {relative_l2:g}), {int(off.sum())} of "
                       f"{e.size} elements off; at {first}: {a[first]:.6g} vs {e[first]:.6g}")
    return error, None
