"""Certified loss-network results against independent routes: exact rationals summed
directly over every reserve, mpmath sums at higher precision, the float64 table, the
admission MDP solved by policy iteration, and Sympy's closed form of the fluid LP."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qtheory.lossnet.certified import (
    MAX_EXACT_SERVERS,
    certified_fluid,
    certified_fluid_lp,
    certified_online_optimum,
    trunk_reservation_optimality,
)
from qtheory.lossnet.fluid import fluid_lp
from qtheory.lossnet.mdp import solve_admission_mdp
from qtheory.lossnet.online import online_optimum
from qtheory.model.lossnet import LossNetwork
from qtheory.verify import check_certificate

NET = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
PARAMETERS = [
    (0.6, 0.8, 1.0, 2.0, 1.0),
    (0.9, 0.2, 1.0, 5.0, 1.0),  # lightly overloaded, large reward ratio
    (0.3, 1.5, 1.0, 1.1, 1.0),  # heavily overloaded, rewards close
    (1.5, 1.0, 2.0, 3.0, 2.0),
]


def exact_rewards(net: LossNetwork) -> list[Fraction]:
    """R_k for every reserve k, in exact rationals from the product-form weights
    w_b = A^min(b, m) H^max(b - m, 0) / b! (no recursion shared with the code)."""
    lh, ll, mu, rh, rl = (
        Fraction(repr(v)) for v in (net.lambda_h, net.lambda_l, net.mu, net.r_h, net.r_l)
    )
    n = net.servers
    load_all, load_h = (lh + ll) * n / mu, lh * n / mu
    factorials = [Fraction(1)]
    for b in range(1, n + 1):
        factorials.append(factorials[-1] * b)
    rewards = []
    for k in range(n + 1):
        m = n - k
        w = [load_all ** min(b, m) * load_h ** max(b - m, 0) / factorials[b] for b in range(n + 1)]
        total = sum(w)
        rewards.append(rh * lh * n * (1 - w[n] / total) + rl * ll * n * sum(w[:m]) / total)
    return rewards


def mpmath_reward(net: LossNetwork, reserve: int, digits: int) -> tuple[mpmath.mpf, ...]:
    """R_k and the regret R_fluid - R_k by direct mpmath sums at ``digits`` digits."""
    with mpmath.workdps(digits):
        lh, ll, mu, rh, rl = (
            mpmath.mpf(repr(v)) for v in (net.lambda_h, net.lambda_l, net.mu, net.r_h, net.r_l)
        )
        n, m = net.servers, net.servers - reserve
        w, weights = mpmath.mpf(1), [mpmath.mpf(1)]
        for b in range(1, n + 1):
            w *= ((lh + ll) if b <= m else lh) * n / (mu * b)
            weights.append(w)
        total = mpmath.fsum(weights)
        reward = (
            rh * lh * n * (1 - weights[n] / total) + rl * ll * n * mpmath.fsum(weights[:m]) / total
        )
        fluid = n * (rh * lh + rl * (mu - lh))
        return reward, fluid - reward


# ---------------------------------------------------------------------------
# the online optimum


@pytest.mark.parametrize(("params", "servers"), list(itertools.product(PARAMETERS, [1, 2, 7, 40])))
def test_reserve_is_the_argmax_of_exact_rewards(params, servers):
    net = LossNetwork(servers, *params)
    rewards = exact_rewards(net)
    opt = certified_online_optimum(net, dps=20)
    best = max(range(servers + 1), key=rewards.__getitem__)
    assert opt.reserve == best
    assert opt.online.contains(rewards[best])
    assert sorted(rewards)[-2] < rewards[best]  # unique, as certified


@pytest.mark.parametrize("dps", [5, 30, 100])
def test_enclosures_contain_mpmath_sums_and_are_dps_tight(dps):
    opt = certified_online_optimum(NET, dps=dps)
    reward, regret = mpmath_reward(NET, opt.reserve, dps + 40)
    with mpmath.workdps(dps + 40):
        assert opt.online.contains(mpmath.nstr(reward, dps + 35, strip_zeros=False))
        assert opt.regret.contains(mpmath.nstr(regret, dps + 35, strip_zeros=False))
    for enclosure in (opt.online, opt.regret, opt.prob_full, opt.mean_idle):
        assert enclosure.relative_width < 10.0**-dps


@pytest.mark.parametrize("params", PARAMETERS)
@pytest.mark.parametrize("servers", [10**3, 2 * 10**4])
def test_reserve_agrees_with_the_float_table_and_mpmath(params, servers):
    net = LossNetwork(servers, *params)
    opt, table = certified_online_optimum(net, dps=25), online_optimum(net)
    assert opt.reserve == table.reserve
    reward, regret = mpmath_reward(net, opt.reserve, 60)
    assert opt.online.contains(mpmath.nstr(reward, 55, strip_zeros=False))
    assert opt.regret.contains(mpmath.nstr(regret, 55, strip_zeros=False))
    assert abs(opt.prob_full.midpoint / table.prob_full - 1) < 1e-9


def test_million_servers_agrees_with_the_float_table():
    net = NET.with_servers(10**6)
    opt, table = certified_online_optimum(net, dps=30), online_optimum(net)
    assert opt.reserve == table.reserve
    assert abs(opt.regret.midpoint / table.regret - 1) < 1e-9
    assert (opt.fluid.lower, opt.fluid.upper, opt.fluid.width) == ("1.6e+6", "1.6e+6", "0")


def test_digits_beyond_the_float_range_and_up_to_the_limit():
    # 10^-400 underflows float64: widths are compared exactly; the dps limit (1000
    # digits) is checked on the digits asked for, not on the guard digits added
    for dps in (400, 1000):
        opt = certified_online_optimum(NET, dps=dps)
        low, high = Fraction(opt.online.lower), Fraction(opt.online.upper)
        assert 0 < high - low < low / 10**dps
    reward, _ = mpmath_reward(NET, opt.reserve, 1100)
    with mpmath.workdps(1100):
        assert opt.online.contains(mpmath.nstr(reward, 1050, strip_zeros=False))


@pytest.mark.parametrize("dps", [0, -3, 2.5, True, None, "30"])
def test_bad_dps_is_refused(dps):
    with pytest.raises(ValueError, match="dps"):
        certified_online_optimum(NET, dps=dps)


def test_certified_needs_a_network():
    with pytest.raises(TypeError, match="net"):
        certified_online_optimum(50, dps=10)


# ---------------------------------------------------------------------------
# exact optimality equations


@pytest.mark.parametrize(("params", "servers"), list(itertools.product(PARAMETERS, [1, 5, 30])))
def test_exact_gain_is_the_best_exact_reward_and_the_mdp_optimum(params, servers):
    net = LossNetwork(servers, *params)
    cert = trunk_reservation_optimality(net)
    rewards = exact_rewards(net)
    assert cert.reserve == max(range(servers + 1), key=rewards.__getitem__)
    assert Fraction(str(cert.gain)) == rewards[cert.reserve]
    mdp = solve_admission_mdp(net)
    assert mdp.reserve == cert.reserve
    assert mdp.online == pytest.approx(float(Fraction(str(cert.gain))), rel=1e-10)


def test_a_reserve_that_is_not_optimal_is_refused_naming_the_state():
    k = online_optimum(NET).reserve
    for wrong in (k - 1, k + 1):
        with pytest.raises(ValueError, match=f"reserve {wrong} is not the unique optimum: at"):
            trunk_reservation_optimality(NET, reserve=wrong)


def test_exact_certificate_size_is_bounded():
    with pytest.raises(ValueError, match="net.servers"):
        trunk_reservation_optimality(NET.with_servers(MAX_EXACT_SERVERS + 1))
    with pytest.raises(ValueError, match="reserve"):
        trunk_reservation_optimality(NET, reserve=51)


# ---------------------------------------------------------------------------
# the fluid LP


@pytest.mark.parametrize("params", PARAMETERS)
def test_fluid_is_the_closed_form(params):
    net = LossNetwork(100, *params)
    lh, _, mu, rh, rl = (Fraction(repr(v)) for v in params)
    sol = certified_fluid(net)
    assert Fraction(str(sol.value)) == 100 * (rh * lh + rl * (mu - lh))
    assert sol.certificate["data"]["closed_form"] is True


@pytest.mark.parametrize("seed", range(12))
def test_many_class_fluid_matches_highs(seed):
    import random

    rng = random.Random(seed)
    size = rng.randint(1, 5)
    lam = [round(rng.uniform(0.05, 1.5), 2) for _ in range(size)]
    r = [round(rng.uniform(0.5, 5), 1) for _ in range(size)]
    mu = [rng.choice([0.5, 1.0, 2.0]) for _ in range(size)]
    sol = certified_fluid_lp(lam, r, mu, servers=3)
    highs = fluid_lp(lam, r, mu, servers=3)
    assert float(Fraction(str(sol.value))) == pytest.approx(highs.value, rel=1e-9)
    assert (
        sum(Fraction(str(x)) / Fraction(repr(m)) for x, m in zip(sol.admitted, mu, strict=True))
        <= 1
    )
    check_certificate({"claim": "fluid", **sol.certificate})
    # independent route: the fractional knapsack filled greedily by reward per unit of
    # capacity r_i mu_i (the textbook optimum), in exact rationals
    classes = sorted(
        (
            (Fraction(repr(a)), Fraction(repr(b)), Fraction(repr(c)))
            for a, b, c in zip(lam, r, mu, strict=True)
        ),
        key=lambda c: -c[1] * c[2],
    )
    room, value = Fraction(1), Fraction(0)
    for rate, reward, service in classes:
        admitted = min(rate, service * room)
        room, value = room - admitted / service, value + reward * admitted
    assert Fraction(str(sol.value)) == 3 * value


def test_fluid_vectors_are_validated():
    with pytest.raises(ValueError, match="arrival_rates"):
        certified_fluid_lp([0.6, -1], [2, 1], [1, 1])
    with pytest.raises(ValueError, match="servers"):
        certified_fluid_lp([0.6], [2], [1], servers=0)
    with pytest.raises(ValueError, match="rewards"):
        certified_fluid_lp([0.6], "2", [1])


# ---------------------------------------------------------------------------
# a flat optimum that float64 cannot resolve


def test_flat_optimum_is_decided_by_the_certified_search():
    # λ_H close to μ: neighbouring rewards differ by about 1e-21 relative, below float64;
    # the reference is the argmax of mpmath sums at 80 digits over every reserve
    net = LossNetwork(300, 1.323, 3.237, 1.36, 32.499, 2.14)
    rewards = {k: mpmath_reward(net, k, 80)[0] for k in range(net.servers + 1)}
    best = max(rewards, key=rewards.get)
    assert certified_online_optimum(net, dps=15).reserve == best
    assert online_optimum(net).reserve == best  # the table's near-tie goes to the certified search
    assert trunk_reservation_optimality(net).reserve == best


# ---------------------------------------------------------------------------
# random networks


@settings(max_examples=40, deadline=None)
@given(
    servers=st.integers(1, 12),
    mu=st.sampled_from([0.5, 1.0, 1.5]),
    load_h=st.floats(0.05, 0.95),
    excess=st.floats(0.01, 3.0),
    r_l=st.sampled_from([0.1, 1.0, 2.5]),
    ratio=st.floats(1.01, 30.0),
)
def test_random_networks_certify_the_exact_argmax(servers, mu, load_h, excess, r_l, ratio):
    lambda_h = round(mu * load_h, 3)
    lambda_l = round(mu - lambda_h + mu * excess, 3)
    r_h = round(r_l * ratio, 3)
    assume(0 < lambda_h < mu < lambda_h + lambda_l and r_h > r_l)
    net = LossNetwork(servers, lambda_h, lambda_l, mu, r_h, r_l)
    rewards = exact_rewards(net)
    ranked = sorted(rewards)
    assume(len(ranked) == 1 or ranked[-1] > ranked[-2])  # an exact tie has no unique reserve
    opt = certified_online_optimum(net, dps=12)
    assert opt.reserve == max(range(servers + 1), key=rewards.__getitem__)
    assert opt.online.contains(rewards[opt.reserve])
    check_certificate({"claim": "random", **opt.certificate})
    exact = trunk_reservation_optimality(net)
    assert exact.reserve == opt.reserve and Fraction(str(exact.gain)) == rewards[opt.reserve]
    check_certificate({"claim": "random", **exact.certificate})
