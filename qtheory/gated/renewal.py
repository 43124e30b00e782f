r"""Renewal (non-Poisson) potential arrivals: the admitted streams of gated admission (GA)
and random routing (RR), indexed by the GI/M/1 root they produce.

Model.  Potential customers arrive as a renewal process whose inter-arrival times are
i.i.d. phase-type, :math:`X \sim \mathrm{PH}(\alpha, T)`, :math:`t = -T\mathbf 1`, of
mean :math:`1/\Lambda` (Neuts [2]_; the shape is an ``--arrivals`` law of
:func:`qtheory.core.phase_type.arrival_law`, rescaled); service is Exp(:math:`\mu`).  The
inter-arrival law has the Laplace–Stieltjes transform (LST)

.. math:: a(s) = \alpha(sI - T)^{-1}t = 1 - s\,\alpha(sI - T)^{-1}\mathbf 1

(the second form, from :math:`(sI - T)^{-1}t = \mathbf 1 - s(sI - T)^{-1}\mathbf 1`,
keeps :math:`1 - a(s)` accurate as :math:`s \to 0`).  Both policies admit a renewal
stream, so the admitted queue is GI/M/1 (Kleinrock [1]_, Sec. 6.4): its number in system
seen at arrivals is geometric with parameter the root :math:`\sigma\in(0,1)` of
:math:`\sigma = A^*(\mu(1-\sigma))`, :math:`A^*` the admitted inter-arrival LST, and the
sojourn time is Exp(:math:`\mu(1-\sigma)`).  The streams are indexed here by
:math:`w = -\log\sigma`, with :math:`u = \mu(1 - e^{-w})`.

Random routing admits each arrival with probability :math:`q`: the admitted gap is a
Geometric(:math:`q`) sum of :math:`X`'s, with LST :math:`qa(s)/(1 - (1-q)a(s))`.  Setting
it to :math:`\sigma` at :math:`s = u` and solving for :math:`q`,

.. math:: q(\sigma) = \frac{\sigma(1 - a(u))}{a(u)(1-\sigma)}
                    = \frac{\mu\sigma\, m(u)}{a(u)}, \qquad
          m(u) = \alpha(uI - T)^{-1}\mathbf 1,

and the admitted rate is :math:`q\Lambda` (:math:`\mu\sigma` for Poisson input).  The
admitted LST increases with :math:`q` at every :math:`s > 0`, so :math:`\sigma` increases
with :math:`q` and :math:`q(\sigma) \le 1` exactly when :math:`\sigma \le \sigma_0`.

Gated admission admits the first arrival after a gate of length :math:`\tau` that opens
at an admission, itself an arrival epoch: the phase process of the renewal stream (the
CTMC with generator :math:`Q = T + t\alpha`) starts in :math:`\alpha`, is in
:math:`\pi(\tau) = \alpha e^{Q\tau}` when the gate opens, and the wait for the next
arrival is :math:`\mathrm{PH}(\pi(\tau), T)`.  The admitted gap :math:`A(\tau)` has

.. math:: A^*(s) = e^{-s\tau}\,\alpha e^{Q\tau}(sI - T)^{-1}t, \qquad
          E[A(\tau)] = \tau + \alpha e^{Q\tau}(-T)^{-1}\mathbf 1 .

The gate of a root :math:`\sigma = e^{-w}` solves :math:`\log A^*(u) = -w`, divided by
:math:`u`:

.. math:: H(\tau) = \frac wu - \tau + \frac{\log\bigl(\pi(\tau)(uI-T)^{-1}t\bigr)}u = 0,

the logarithm taken of :math:`1 - u\,\pi(\tau)(uI-T)^{-1}\mathbf 1` (``log1p``) when its
argument is near 1.

Monotonicity: on one sample path of the renewal process :math:`A(\tau)`, the first
arrival epoch after :math:`\tau`, is non-decreasing in :math:`\tau`, and it increases
with positive probability over any interval (an arrival falls in it), so for
:math:`s > 0` the LST :math:`A^*(s)` decreases strictly in :math:`\tau`, from
:math:`a(s)` at :math:`\tau = 0` towards 0 (:math:`A^*(s) \le e^{-s\tau}`), and
:math:`H = (\log A^*(u) + w)/u` decreases strictly too.  At the ends,
:math:`H(w/u) = \log(\pi(w/u)(uI-T)^{-1}t)/u < 0`, and
:math:`H(0) = (w + \log a(u))/u > 0` exactly when :math:`\sigma < \sigma_0` (the map
:math:`\sigma \mapsto a(\mu(1-\sigma))` is convex and increasing, so it lies above the
diagonal below its smaller fixed point): the gate is the unique root of :math:`H` in
:math:`[0, w/u)`, found by a bracketing solver.  (For Poisson input
:math:`\pi(\tau)(uI-T)^{-1}t = \Lambda/(\Lambda + u)` and
:math:`\tau = (w - \log(1 + u/\Lambda))/u`, the closed form of
:mod:`qtheory.gated.derivation`.)  The gate exists for every :math:`w \ge w_{\min}`;
any root :math:`\sigma < 1` of a GI/M/1 equation is its unique root in (0, 1) and implies
stability, so no separate stability check is needed.  (:math:`H` can be flat at
:math:`\tau = 0`: for Erlang-2 input :math:`P(X < \tau) = O(\tau^2)`, so
:math:`\tau \propto \sqrt{w - w_{\min}}` near :math:`w_{\min}`.)

All admitted: :math:`\sigma_0 = a(\mu(1-\sigma_0))`, the GI/M/1 root of the potential
stream (:math:`\tau = 0`, :math:`q = 1`), exists when :math:`\Lambda < \mu`.  In
:math:`w`, :math:`G(w) = (w + \log a(u))/w` (with :math:`\log a(u) = \log(1 - um(u))`
by ``log1p`` near :math:`w = 0`) tends to :math:`1 - \mu/\Lambda < 0` as
:math:`w \to 0` (so the trivial root :math:`\sigma = 1` is never found), is negative on
:math:`(0, w_{\min})` and positive beyond, and :math:`G(w) \ge 1 + \log a(\mu)/w`, so
:math:`w_{\min} \in (0, 1 - 2\log a(\mu))`.  :math:`w_{\min} = 0` when
:math:`\Lambda \ge \mu` (every admitted stream must then be thinned or gated).

Accuracy.  float64 (Brent's method for both roots): the terms of :math:`H` and :math:`G`
are evaluated without cancellation (:math:`\sigma = e^{-w}`,
:math:`1 - \sigma = -\mathrm{expm1}(-w)`, logarithms of LSTs from whichever of the value
and its complement keeps its digits), so the gate is found to a few ulps of :math:`w/u`
(against closed forms: 1e-12 relative); near :math:`w_{\min}` the gate is small and its
relative error grows like :math:`(w/u)/\tau`.  mpmath (``dps=D``): the same equations
with matrix exponentials (Arb's, :func:`qtheory.core.numerics.expm_mp`) and matrix
inverses at the current precision; :math:`w_{\min}` by
:func:`qtheory.core.numerics.bracketed_root_mp` (verified to change sign across
:math:`x(1 \pm 10^{-\lfloor \text{dps}/2 \rfloor})`), the gate by Newton's method in the
bracket (:math:`H' = -1 + \pi Q(uI-T)^{-1}t/(u\,\pi(uI-T)^{-1}t)`, since
:math:`\pi' = \pi Q`), 5 to 8 matrix exponentials a gate.  The law's entries are its
float64 ones (exact for Erlang; the H2 and fitted laws are the float64 laws), rescaled
in mpmath to mean exactly 1/Λ.

References
----------
.. [1] L. Kleinrock, Queueing Systems, Vol. I: Theory, Wiley (1975), Sec. 6.4 (GI/M/1).
.. [2] M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, Johns Hopkins
   University Press (1981), Chapter 2 (phase-type renewal processes).
.. [3] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from qtheory.core import numerics
from qtheory.core.numerics import bracketed_root_mp
from qtheory.core.phase_type import PhaseType, arrival_law
from qtheory.core.precision import check_dps
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = ["RenewalStreams"]

_TINY_W = 1e-300  # lower end of the w_min bracket (float64); G is continuous down to 0


def _root_float64(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Brent's method on [lo, hi] to a few ulps."""
    from scipy.optimize import brentq  # loaded with the first root (not by --help)

    return brentq(f, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)


def _root_mp(f: Callable[[Any], Any], lo, hi):
    """A verified mpmath root on [lo, hi] at the current precision."""
    return bracketed_root_mp(f, lo, hi, digits=max(mpmath.mp.dps // 2, 1))


@dataclass(frozen=True)
class _Arithmetic:
    """The operations of one number system: float64 (NumPy) or mpmath."""

    number: Callable[[Any], Any]
    matrix: Callable[[Any], Any]
    eye: Callable[[int], Any]
    inverse: Callable[[Any], Any]
    expm: Callable[[Any], Any]
    log1p: Callable[[Any], Any]
    expm1: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    log: Callable[[Any], Any]
    isfinite: Callable[[Any], bool]
    root: Callable[..., Any]


_FLOAT64 = _Arithmetic(
    float, lambda a: np.array(a, dtype=float), np.eye, np.linalg.inv, numerics.expm,
    math.log1p, math.expm1, math.exp, math.log, math.isfinite, _root_float64,
)  # fmt: skip
_MPMATH = _Arithmetic(
    mpmath.mpf, mpmath.matrix, mpmath.eye, mpmath.inverse, numerics.expm_mp,
    mpmath.log1p, mpmath.expm1, mpmath.exp, mpmath.log, mpmath.isfinite, _root_mp,
)  # fmt: skip


def _log_lst(ops: _Arithmetic, value, complement):
    """log of an LST value in (0, 1], from the value itself when it is below 1/2 and from
    its complement (1 − value, computed without cancellation) above, so that both a value
    near 1 and a tiny one keep their digits."""
    return ops.log(value) if value < 0.5 else ops.log1p(-complement)


class _Law:
    """The inter-arrival law PH(α, T) of mean 1/Λ and the service rate μ in one number
    system: α (1 × m), T, t = −T1 and 1 (m × 1), Q = T + tα, (−T)^{-1}1."""

    def __init__(self, ops: _Arithmetic, shape: PhaseType, arrival_rate, service_rate):
        self.ops, m = ops, shape.phases
        alpha = ops.matrix([shape.alpha.tolist()])
        alpha = alpha / sum(alpha[0, j] for j in range(m))  # sums to 1 at this precision
        T = ops.matrix(shape.T.tolist())
        ones = ops.matrix([[1.0]] * m)
        mean = (alpha @ ops.inverse(-T) @ ones)[0, 0]
        self.T = T * (arrival_rate * mean)  # mean 1/Λ exactly (to rounding)
        self.alpha, self.ones, self.mu = alpha, ones, service_rate
        self.exits = -(self.T @ ones)
        self.Q = self.T + self.exits @ alpha
        self.residual = ops.inverse(-self.T) @ ones
        self.eye = ops.eye(m)

    def resolvent(self, u):
        """(uI − T)^{-1}."""
        return self.ops.inverse(u * self.eye - self.T)

    def phases_at(self, tau):
        """π(τ) = α e^{Qτ} (1 × m)."""
        return self.alpha @ self.ops.expm(self.Q * tau)

    def root_terms(self, w):
        """(σ, u) = (e^{−w}, μ(1 − e^{−w}))."""
        return self.ops.exp(-w), -self.mu * self.ops.expm1(-w)

    def lst_parts(self, u):
        """(a(u), m(u)) = (α(uI − T)^{-1}t, α(uI − T)^{-1}1)."""
        N = self.resolvent(u)
        return (self.alpha @ N @ self.exits)[0, 0], (self.alpha @ N @ self.ones)[0, 0]

    def w_min(self, arrival_rate):
        """−log σ_0 (module notes), 0 when Λ ≥ μ."""
        ops = self.ops
        if not arrival_rate < self.mu:
            return ops.number(0)
        a_mu = self.lst_parts(self.mu)[0]  # a(μ) < 1 (log a(μ) bounds the bracket only)
        upper = 1 - 2 * ops.log(a_mu) if a_mu > 0 else None
        if upper is None or not ops.isfinite(upper):
            raise ValueError(
                "arrival_rate: the inter-arrival LST a(mu) underflows; the root "
                "sigma_0 = a(mu(1 - sigma_0)) is below this precision"
            )

        def excess(w):  # G(w) = (w + log a(u))/w
            _, u = self.root_terms(w)
            a_u, m_u = self.lst_parts(u)
            return 1 + _log_lst(ops, a_u, u * m_u) / w

        lower = _TINY_W if ops is _FLOAT64 else mpmath.mpf(10) ** (-2 * mpmath.mp.dps)
        return ops.root(excess, lower, upper)

    def gate(self, w):
        """(τ, π(τ)): the gate whose admitted stream has root e^{−w}, w > w_min."""
        ops = self.ops
        _, u = self.root_terms(w)
        N = self.resolvent(u)
        m_vec, r_vec = N @ self.ones, N @ self.exits
        top = w / u

        def distance(tau):  # H(τ) of the module notes, its slope, π(τ)
            phases = self.phases_at(tau)
            p, r = (phases @ m_vec)[0, 0], (phases @ r_vec)[0, 0]
            slope = (phases @ self.Q @ r_vec)[0, 0] / (u * r) - 1  # π' = πQ
            return top - tau + _log_lst(ops, r, u * p) / u, slope, phases

        zero = ops.number(0)
        if not distance(zero)[0] > 0:  # w at w_min, to rounding
            return zero, self.alpha
        if ops is _FLOAT64:
            tau = ops.root(lambda x: distance(x)[0], zero, top)
            return tau, self.phases_at(tau)
        return _newton_in_bracket(distance, zero, top)


def _newton_in_bracket(f, lo, hi):
    """(x, extra) with f(x) = (value, slope, extra) = (0, ·, ·), f decreasing with
    f(lo) > 0 > f(hi): Newton's method from the middle, kept inside the shrinking bracket
    (a step that leaves it bisects); once a step is below 2^(−prec/2) relative, one more
    step squares the error below rounding (rounding in f would keep a finer test from
    ever passing).  ``extra`` is that of the last evaluation, a step below rounding
    away.  Each step costs one matrix exponential where a derivative-free solver spends
    two or three.

    >>> with mpmath.workdps(30):
    ...     x, _ = _newton_in_bracket(lambda x: (2 - x * x, -2 * x, None), 0, 2)
    >>> mpmath.nstr(x, 25)
    '1.414213562373095048801689'
    """
    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    x, coarse, polish = (lo + hi) / 2, mpmath.mpf(2) ** (-mpmath.mp.prec // 2), False
    for _ in range(4 * mpmath.mp.prec):
        value, slope, extra = f(x)
        if value > 0:
            lo = x
        else:
            hi = x
        new = x - value / slope if slope < 0 else (lo + hi) / 2
        if not lo <= new <= hi:
            new = (lo + hi) / 2
        if polish:
            return new, extra
        polish = abs(new - x) <= coarse * abs(new)
        x = new
    raise ArithmeticError("the gate's Newton iteration did not settle; raise the precision")


class RenewalStreams:
    r"""GA's and RR's admitted streams of one queue with renewal (phase-type) potential
    arrivals, indexed by the GI/M/1 root :math:`\sigma = e^{-w}` they produce (module
    notes for the mathematics).

    Parameters
    ----------
    queue : GatedQueue
        Λ (finite) and μ; the inter-arrival law is rescaled to mean 1/Λ.  R and C are
        not used.
    arrivals : str or PhaseType, optional
        The inter-arrival shape: ``"poisson"`` (the default), ``"erlang:K"``,
        ``"hyperexp:SCV"``, ``"fit:SCV"``, ``"fit:SCV:THIRD"`` (the grammar of
        ``--service``, :func:`qtheory.core.phase_type.arrival_law`) or a PhaseType.
    dps : int or None, keyword-only
        None: float64 throughout.  Any integer: mpmath at the *current* precision of
        each call (set it with ``mpmath.workdps``; the laws' matrices are rebuilt for
        each precision met and cached), with Λ and μ read as the decimals of the queue.

    Attributes
    ----------
    arrivals : PhaseType
        The inter-arrival shape, mean 1.
    arrival_rate, service_rate : float or mpmath.mpf
        Λ and μ (``service_rate`` as the protocol of :mod:`qtheory.gated.streams` names it).
    w_min : float or mpmath.mpf
        −log σ_0, σ_0 = a(μ(1 − σ_0)) the root when everyone is admitted; 0 when Λ ≥ μ.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        An unknown ``arrivals`` law (naming ``arrivals``), Λ = ∞ (naming
        ``arrival_rate``: a renewal law of mean 0 has no shape), or a bad ``dps``.

    Examples
    --------
    Poisson input reduces to the closed forms: σ_0 = Λ/μ, the RR rate μσ, the gate
    (w − log(1 + u/Λ))/u:

    >>> import math
    >>> q = GatedQueue(0.5, 1.0, 2.0, 1.0)
    >>> s = RenewalStreams(q)
    >>> round(s.w_min, 12) == round(math.log(2.0), 12), round(s.rr_throughput(1.0), 12)
    (True, 0.367879441171)
    >>> u = 1 - math.exp(-1.0)
    >>> round(s.ga_gate(1.0) - (1.0 - math.log(1 + 2 * u)) / u, 12)
    0.0

    Erlang-2 arrivals are more regular, so the gate that gives the same root is
    shorter, and RR admits more:

    >>> e2 = RenewalStreams(q, "erlang:2")
    >>> e2.ga_gate(1.0) < s.ga_gate(1.0), e2.rr_throughput(1.0) > s.rr_throughput(1.0)
    (True, True)
    >>> with mpmath.workdps(30):
    ...     mp = RenewalStreams(q, "erlang:2", dps=30)
    ...     abs(mp.ga_gate(mpmath.mpf(1)) - e2.ga_gate(1.0)) < 1e-14
    True

    References
    ----------
    See the module's References:

    - Kleinrock (1975), Sec. 6.4;
    - Neuts (1981), Chapter 2.
    """

    def __init__(
        self, queue: GatedQueue, arrivals: str | PhaseType = "poisson", *, dps: int | None = None
    ):
        self.queue = checked_queue(queue)
        self.arrivals = arrival_law(arrivals)
        self.dps = check_dps(dps)
        if math.isinf(self.queue.float_rates()[0]):
            raise ValueError(
                "arrival_rate must be finite with renewal arrivals (a law of mean "
                "1/arrival_rate = 0 has no shape); use the Poisson closed forms"
            )
        self._laws: dict[int | None, _Law] = {}
        self._w_min: dict[int | None, Any] = {}
        self._last: dict[int | None, tuple] = {}

    def _law(self) -> _Law:
        key = None if self.dps is None else mpmath.mp.prec
        if key not in self._laws:
            if self.dps is None:
                arrival_rate, mu = self.queue.float_rates()[:2]
                law = _Law(_FLOAT64, self.arrivals, arrival_rate, mu)
            else:
                p = self.queue.parameters(self.dps)
                law = _Law(_MPMATH, self.arrivals, 1 / p.beta, p.mu)
            self._laws[key] = law
            # rounded to this precision: a root found at guard digits compares below its
            # own rounding, and w_min itself would then be refused
            self._w_min[key] = law.ops.number(law.w_min(self.arrival_rate))
        return self._laws[key]

    @property
    def arrival_rate(self):
        """Λ (float64, or an mpf at the current precision)."""
        if self.dps is None:
            return self.queue.float_rates()[0]
        return 1 / self.queue.parameters(self.dps).beta

    @property
    def service_rate(self):
        """μ (float64, or an mpf at the current precision)."""
        return self._law().mu

    @property
    def w_min(self):
        """−log σ_0 (0 when Λ ≥ μ), at the current precision."""
        self._law()
        return self._w_min[None if self.dps is None else mpmath.mp.prec]

    def _checked_w(self, w):
        law = self._law()
        try:
            value = law.ops.number(w)
        except (TypeError, ValueError):
            raise TypeError(f"w must be a real number, got {w!r}") from None
        if not (law.ops.isfinite(value) and value > 0 and value >= self.w_min):
            raise ValueError(
                f"w must be finite, > 0 and >= w_min = {float(self.w_min):.6g} (the root when "
                f"everyone is admitted; smaller w needs tau < 0 or q > 1), got {w!r}"
            )
        return law, value

    def _gate(self, w):
        """(law, τ, E[A(τ)]) for w, remembering the last w of each precision."""
        law, w = self._checked_w(w)
        key = None if self.dps is None else mpmath.mp.prec
        last = self._last.get(key)
        if last is None or last[0] != w:
            tau, phases = law.gate(w)
            mean = law.ops.number(tau + (phases @ law.residual)[0, 0])
            self._last[key] = last = (w, law.ops.number(tau), mean)
        return law, last[1], last[2]

    def ga_gate(self, w):
        """τ(w) ≥ 0, the gate whose admitted stream has root e^{−w}: the root of H in
        [0, w/u) (module notes).

        Parameters
        ----------
        w : float or mpmath.mpf
            −log σ, ≥ ``w_min`` and > 0.

        Returns
        -------
        float or mpmath.mpf

        Raises
        ------
        ValueError
            ``w`` not finite, ≤ 0 or below ``w_min``.

        Examples
        --------
        >>> s = RenewalStreams(GatedQueue(1.5, 1.0, 2.0, 1.0), "hyperexp:4")
        >>> s.w_min, round(s.ga_gate(1.0), 6)
        (0.0, 0.967056)
        """
        return self._gate(w)[1]

    def ga_throughput(self, w):
        """1/E[A(τ(w))], E[A(τ)] = τ + α e^{Qτ}(−T)^{-1}1: GA's admission rate at the
        gate of root e^{−w}.

        Parameters
        ----------
        w : float or mpmath.mpf
            As :meth:`ga_gate`.

        Returns
        -------
        float or mpmath.mpf

        Examples
        --------
        >>> s = RenewalStreams(GatedQueue(1.5, 1.0, 2.0, 1.0), "erlang:2")
        >>> tau = s.ga_gate(1.0)
        >>> round(s.ga_throughput(1.0), 6), s.ga_throughput(1.0) < 1 / tau
        (0.611437, True)
        """
        return 1 / self._gate(w)[2]

    def rr_throughput(self, w):
        """q(w)Λ with q(σ) = μσ m(u)/a(u) ≤ 1: RR's admission rate giving root e^{−w}
        (module notes; rounding above 1 at ``w_min`` is clamped).

        Parameters
        ----------
        w : float or mpmath.mpf
            As :meth:`ga_gate`.

        Returns
        -------
        float or mpmath.mpf

        Examples
        --------
        >>> s = RenewalStreams(GatedQueue(0.8, 1.0, 2.0, 1.0), "hyperexp:4")
        >>> round(s.rr_throughput(s.w_min), 12), round(s.rr_throughput(2.0), 6)
        (0.8, 0.094118)
        """
        law, w = self._checked_w(w)
        sigma, u = law.root_terms(w)
        a_u, m_u = law.lst_parts(u)
        q = law.mu * sigma * m_u / a_u
        return law.ops.number(min(q, 1) * self.arrival_rate)
