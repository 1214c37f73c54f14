"""Small dense / banded linear solvers usable from numba nopython code.

They never raise: each returns a success flag so the calling solver can report a status code.
"""
import numpy as np
import numba


@numba.njit(cache=True, inline="always")
def lu_solve_inplace(A, b):
    """Solve A x = b by Gaussian elimination with partial pivoting.

    A (n x n) and b (n) are overwritten; on success b holds x. Returns False when a pivot is
    below 1e-14 * max|A| (numerically singular).
    """
    return lu_solve_n(A, b, b.shape[0])


@numba.njit(cache=True, inline="always")
def lu_solve_n(A, b, n):
    """lu_solve_inplace on A[:n, :n] and b[:n], without the views, in one exit, every array used last in its
    last block (see _touch): compiled into a function that calls nothing, it keeps no reference counts."""
    amax = 0.0
    for i in range(n):
        for j in range(n):
            v = abs(A[i, j])
            if v > amax:
                amax = v
    ok = n == 0 or amax != 0.0
    tiny = 1e-14 * amax
    for k in range(n):
        p = k
        if ok:
            pv = abs(A[k, k])
            for i in range(k + 1, n):
                v = abs(A[i, k])
                if v > pv:
                    pv = v
                    p = i
            ok = not pv <= tiny
        if ok:
            if p != k:
                for j in range(k, n):
                    t = A[k, j]
                    A[k, j] = A[p, j]
                    A[p, j] = t
                t = b[k]
                b[k] = b[p]
                b[p] = t
            inv = 1.0 / A[k, k]
            for i in range(k + 1, n):
                f = A[i, k] * inv
                if f != 0.0:
                    for j in range(k + 1, n):
                        A[i, j] -= f * A[k, j]
                    b[i] -= f * b[k]
    for i in range(n - 1 if ok else -1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= A[i, j] * b[j]
        b[i] = s / A[i, i]
    return ok & _touch(A, b, b)


@numba.njit(cache=True, inline="always")
def _touch(a, b, c):
    """A last use of three arrays, in one block (always True). An inlined helper, or a function, whose
    arrays' last uses lie in loops or on branches gets their reference-count decrements on several
    paths (LLVM moves them into the loops' exits), and numba's pruning then keeps every array's pair;
    used last here, after the loops, the decrements share one block and are pruned."""
    return (a.shape[0] | b.shape[0] | c.shape[0]) >= 0


@numba.njit(cache=True, inline="always")
def band_cholesky_solve_inplace(L, bw, b, dropped):
    """Solve S x = b for symmetric PSD S given in lower band storage, in O(n bw^2).

    L has shape (n, bw + 1) with L[i, bw - (i - j)] = S[i, j] for i - bw <= j <= i; it is
    overwritten by the Cholesky factor. With bw = n - 1 this is plain dense Cholesky.
    A pivot below 1e-10 times its original diagonal marks the index as linearly dependent on
    the earlier ones (redundant contact): it is dropped (dropped[i] = True, x[i] = 0) and the
    rest is solved as if that row/column were removed. Returns False if the matrix is
    clearly indefinite (a pivot below -1e-8 times its diagonal).
    """
    return band_cholesky_solve_n(L, bw, b, dropped, b.shape[0])


@numba.njit(cache=True, inline="always")
def band_cholesky_solve_n(L, bw, b, dropped, n):
    """band_cholesky_solve_inplace on the first n rows of L, b and dropped, without the views, in one exit
    (a row past an indefinite pivot is left as it is), every array used last in its last block (_touch):
    compiled into a function that calls nothing, it keeps no reference counts."""
    ok = band_cholesky_factor_n(L, bw, dropped, n)
    done = _band_substitute(L, bw, b, dropped, n if ok else 0)
    return ok & done & _touch(L, b, dropped)


@numba.njit(cache=True, inline="always")
def band_cholesky_factor_n(L, bw, dropped, n):
    """band_cholesky_solve_n's factor alone (L and dropped as it leaves them): False if S is clearly
    indefinite. A kept factor then solves by _band_substitute with the same sums (tiny_problem's LCP)."""
    for i in range(n):
        dropped[i] = False
    ok = True
    for i in range(n):
        j0 = i - bw
        if j0 < 0:
            j0 = 0
        for j in range(j0, i + 1 if ok else j0):
            cij = bw - (i - j)
            if j < i and dropped[j]:
                L[i, cij] = 0.0
                continue
            s = L[i, cij]
            k0 = j0
            if j - bw > k0:
                k0 = j - bw
            for k in range(k0, j):
                s -= L[i, bw - (i - k)] * L[j, bw - (j - k)]
            if j < i:
                L[i, cij] = s / L[j, bw]
            else:
                ok = _band_pivot(L, bw, i, j0, s, dropped)
    return ok & _touch(L, dropped, dropped)


@numba.njit(cache=True, inline="always")
def _band_pivot(L, bw, i, j0, s, dropped):
    """Row i's pivot from s (S[i, i] less the squares of the row's factor entries); False, changing
    nothing, when S is clearly indefinite there."""
    diag = L[i, bw]  # still the original diagonal entry of S
    # entries of row i already hold L values; keep the original diagonal in s
    low = diag <= 0.0 or s <= 1e-10 * diag
    ok = not (low and diag > 0.0 and s < -1e-8 * diag)
    if low and ok:
        dropped[i] = True
        for k in range(j0, i):
            L[i, bw - (i - k)] = 0.0
        L[i, bw] = 1.0
    elif ok:
        L[i, bw] = np.sqrt(s)
    return ok & _touch(L, dropped, dropped)


@numba.njit(cache=True, inline="always")
def _band_entry(L, bw, i, j, s, dropped):
    """The factor's entry (i, j < i) from s (S[i, j] less the products of the earlier columns), stored and
    returned (0 against a dropped row)."""
    x = 0.0 if dropped[j] else s / L[j, bw]
    L[i, bw - (i - j)] = x
    return x


@numba.njit(cache=True)
def band_cholesky_solve_wide(L, bw, b, dropped):
    """band_cholesky_solve_inplace, the same numbers, for wide bands (block pivoting on a box pyramid's
    projection: a band of a row of boxes). Each entry's sum is a chain of dependent subtractions, which
    leaves the processor waiting on each one; here four entries of a row are summed side by side (each
    in its own order, k ascending as there), so the four chains overlap."""
    n = b.shape[0]
    for i in range(n):
        dropped[i] = False
    for i in range(n):
        j0 = max(i - bw, 0)
        ci = bw - i  # row i's column of k: ci + k
        Li = L[i, ci + j0:]  # (views from column j0 on: Li[t] = L[i, j0 + t], the loop's indices never negative)
        j = j0
        while j + 3 < i:
            R0, R1 = L[j, bw - j + j0:], L[j + 1, bw - j - 1 + j0:]  # rows j..j+3 from column j0 on
            R2, R3 = L[j + 2, bw - j - 2 + j0:], L[j + 3, bw - j - 3 + j0:]
            t = j - j0
            s0, s1, s2, s3 = Li[t], Li[t + 1], Li[t + 2], Li[t + 3]
            for k in range(t):
                lik = Li[k]
                s0 -= lik * R0[k]
                s1 -= lik * R1[k]
                s2 -= lik * R2[k]
                s3 -= lik * R3[k]
            x0 = _band_entry(L, bw, i, j, s0, dropped)
            s1 -= x0 * R1[t]
            s2 -= x0 * R2[t]
            s3 -= x0 * R3[t]
            x1 = _band_entry(L, bw, i, j + 1, s1, dropped)
            s2 -= x1 * R2[t + 1]
            s3 -= x1 * R3[t + 1]
            x2 = _band_entry(L, bw, i, j + 2, s2, dropped)
            s3 -= x2 * R3[t + 2]
            _band_entry(L, bw, i, j + 3, s3, dropped)
            j += 4
        for jj in range(j, i + 1):  # the last few entries and the pivot, one by one
            s = L[i, ci + jj]
            if jj < i and dropped[jj]:
                L[i, ci + jj] = 0.0
                continue
            cj = bw - jj
            for k in range(j0, jj):
                s -= L[i, ci + k] * L[jj, cj + k]
            if jj < i:
                L[i, ci + jj] = s / L[jj, bw]
            elif not _band_pivot(L, bw, i, j0, s, dropped):
                return False
    _band_substitute(L, bw, b, dropped, b.shape[0])
    return True


@numba.njit(cache=True, inline="always")
def _band_substitute(L, bw, b, dropped, n):
    """b[:n] = S⁻¹ b[:n] from the band factor (dropped rows: 0)."""
    # forward: L y = b
    for i in range(n):
        if dropped[i]:
            b[i] = 0.0
            continue
        j0 = i - bw
        if j0 < 0:
            j0 = 0
        s = b[i]
        for k in range(j0, i):
            s -= L[i, bw - (i - k)] * b[k]
        b[i] = s / L[i, bw]
    # backward: L^T x = y
    for i in range(n - 1, -1, -1):
        if dropped[i]:
            b[i] = 0.0
            continue
        s = b[i]
        j1 = i + bw
        if j1 > n - 1:
            j1 = n - 1
        for k in range(i + 1, j1 + 1):
            s -= L[k, bw - (k - i)] * b[k]
        b[i] = s / L[i, bw]
    return _touch(L, b, dropped)  # (True)


@numba.njit(cache=True)
def tridiagonal_ldl_solve_inplace(L, b, dropped):
    """band_cholesky_solve_inplace for bw = 1 (chains and columns: a tridiagonal S), as S = L D Lᵀ
    with unit L: no square root, and one division per row (1/D_i, kept in L[i, 1]) where Cholesky's
    serial chain has a square root and three divisions. Same storage (L[i, 0] = S[i, i-1], L[i, 1] =
    S[i, i]), same pivots (D_i is Cholesky's squared pivot), same dropping and indefiniteness tests."""
    n = b.shape[0]
    y = 0.0  # the last row's y (L y = b), before its scaling by D⁻¹
    for i in range(n):  # factor, L y = b and D⁻¹ y in one pass (the same operations, in the same order)
        dropped[i] = False
        diag = L[i, 1]
        off = L[i, 0] if i > 0 and not dropped[i - 1] else 0.0  # a dropped row couples to nothing
        l = off * L[i - 1, 1] if off != 0.0 else 0.0
        s = diag - l * off  # D_i = S[i, i] - L[i, i-1]² D_{i-1}
        if diag <= 0.0 or s <= 1e-10 * diag:
            if diag > 0.0 and s < -1e-8 * diag:
                return False
            dropped[i] = True
            L[i, 0] = 0.0
            L[i, 1] = 0.0
            y = 0.0  # (a dropped row's y is 0)
            b[i] = 0.0
        else:
            L[i, 0] = l
            L[i, 1] = 1.0 / s
            if i > 0:
                y = b[i] - l * y
            else:
                y = b[i]
            b[i] = y * L[i, 1]
    _tridiagonal_back(L, b)
    return True


@numba.njit(cache=True)
def tridiagonal_ldl_resolve_inplace(L, b, dropped):
    """S x = b with the factor tridiagonal_ldl_solve_inplace left in L and dropped (a kept factor):
    its forward pass and back substitution without the factoring, the same operations on the same
    numbers."""
    n = b.shape[0]
    y = 0.0
    for i in range(n):
        if dropped[i]:
            y = 0.0
            b[i] = 0.0
        else:
            if i > 0:
                y = b[i] - L[i, 0] * y
            else:
                y = b[i]
            b[i] = y * L[i, 1]
    _tridiagonal_back(L, b)


@numba.njit(cache=True, inline="always")
def _tridiagonal_back(L, b):
    """Lᵀ x = D⁻¹ y, in place (L[i + 1, 0] = 0 after a dropped row i)."""
    for i in range(b.shape[0] - 2, -1, -1):
        b[i] -= L[i + 1, 0] * b[i + 1]


@numba.njit(cache=True)
def bad_input(M, q, x, nx):
    """True if M is not m x m, x (warm start / guess / mu) has fewer than nx entries, or q
    has a non-finite entry (numba does not bounds-check, so shapes are verified up front)."""
    m = q.shape[0]
    if M.shape[0] != m or M.shape[1] != m or x.shape[0] < nx:
        return True
    for i in range(m):
        if not np.isfinite(q[i]):
            return True
    return False


@numba.njit(cache=True)
def lu_factor_inplace(A, piv):
    """LU factorization with partial pivoting of A (overwritten), row swaps in piv.

    For the small iteration matrices of the stepper, where a LAPACK call costs more than the work.
    Returns False when A is numerically singular."""
    n = A.shape[0]
    amax = 0.0
    for i in range(n):
        for j in range(n):
            amax = max(amax, abs(A[i, j]))
    if amax == 0.0:
        return n == 0
    tiny = 1e-14 * amax
    for k in range(n):
        p = k
        pv = abs(A[k, k])
        for i in range(k + 1, n):
            if abs(A[i, k]) > pv:
                pv = abs(A[i, k])
                p = i
        if pv <= tiny:
            return False
        piv[k] = p
        if p != k:
            for j in range(n):
                t = A[k, j]
                A[k, j] = A[p, j]
                A[p, j] = t
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            f = A[i, k] * inv
            A[i, k] = f
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
    return True


@numba.njit(cache=True)
def lu_solve_factored(LU, piv, b):
    """Solves in place with the factors of lu_factor_inplace."""
    n = b.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            t = b[k]
            b[k] = b[p]
            b[p] = t
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


# ------------------------------------------------------------------ compressed sparse rows
# A sparse m x m matrix travels as three arrays (ptr, col, val): row i holds val[ptr[i]:ptr[i+1]] in the
# columns col[ptr[i]:ptr[i+1]]. The step problems of chains and columns are banded and those of piles
# have a few neighbours per contact: O(m) entries where a dense matrix has m².

@numba.njit(cache=True)
def csr_from_dense(A):
    """The non-zero entries of the dense A, row by row in ascending columns (the dense solvers' order:
    sums over them equal the dense sums exactly)."""
    m, n = A.shape
    nnz = 0
    for i in range(m):
        for j in range(n):
            if A[i, j] != 0.0:
                nnz += 1
    ptr = np.empty(m + 1, np.int64)
    col = np.empty(nnz, np.int64)
    val = np.empty(nnz)
    k = 0
    for i in range(m):
        ptr[i] = k
        for j in range(n):
            if A[i, j] != 0.0:
                col[k] = j
                val[k] = A[i, j]
                k += 1
    ptr[m] = k
    return ptr, col, val


@numba.njit(cache=True)
def csr_to_dense(ptr, col, val, n):
    m = ptr.shape[0] - 1
    A = np.zeros((m, n))
    for i in range(m):
        for p in range(ptr[i], ptr[i + 1]):
            A[i, col[p]] += val[p]
    return A


@numba.njit(cache=True)
def csr_matvec_plus(ptr, col, val, x, q, out):
    """out = q + A x."""
    for i in range(ptr.shape[0] - 1):
        s = q[i]
        for p in range(ptr[i], ptr[i + 1]):
            s += val[p] * x[col[p]]
        out[i] = s


@numba.njit(cache=True)
def csr_diagonal(ptr, col, val):
    m = ptr.shape[0] - 1
    d = np.zeros(m)
    for i in range(m):
        for p in range(ptr[i], ptr[i + 1]):
            if col[p] == i:
                d[i] += val[p]
    return d


@numba.njit(cache=True)
def csr_entry(ptr, col, val, i, j):
    s = 0.0
    for p in range(ptr[i], ptr[i + 1]):
        if col[p] == j:
            s += val[p]
    return s


@numba.njit(cache=True)
def csr_bad_input(ptr, q, x, nx):
    """bad_input for a CSR matrix: ptr not of m + 1 entries, x shorter than nx, or q not finite."""
    m = q.shape[0]
    if ptr.shape[0] != m + 1 or x.shape[0] < nx:
        return True
    for i in range(m):
        if not np.isfinite(q[i]):
            return True
    return False


@numba.njit(cache=True)
def csr_transpose(ptr, col, val, n):
    """The rows of Aᵀ (A with n columns), each in ascending columns."""
    m = ptr.shape[0] - 1
    tptr = np.zeros(n + 1, np.int64)
    for p in range(ptr[m]):
        tptr[col[p] + 1] += 1
    for j in range(n):
        tptr[j + 1] += tptr[j]
    fill = tptr[:n].copy()
    tcol = np.empty(ptr[m], np.int64)
    tval = np.empty(ptr[m])
    for i in range(m):
        for p in range(ptr[i], ptr[i + 1]):
            j = col[p]
            tcol[fill[j]] = i
            tval[fill[j]] = val[p]
            fill[j] += 1
    return tptr, tcol, tval


@numba.njit(cache=True)
def csr_symmetric(ptr, col, val):
    """True if A equals its transpose to 1e-13 relative, entry by entry (a missing entry is a zero).
    The partner of each entry is searched in place (no call per entry: each call's array arguments
    cost their reference counts, more than a short row's search)."""
    m = ptr.shape[0] - 1
    for i in range(m):
        for p in range(ptr[i], ptr[i + 1]):
            j = col[p]
            if j == i:
                continue
            b = 0.0  # A[j, i], summed as csr_entry does
            for t in range(ptr[j], ptr[j + 1]):
                if col[t] == i:
                    b += val[t]
            a = val[p]
            if j < i:
                if a != b and abs(a - b) > 1e-13 * (abs(a) + abs(b)):
                    return False
            elif b == 0.0 and a != 0.0:
                # an entry above the diagonal with no partner below (the others: compared from row j)
                return False
    return True
