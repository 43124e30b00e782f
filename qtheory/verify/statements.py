r"""Each claim's statement, rendered from its certificate's data.

A certificate is worth what its statement says, so the statement is not free text: for
every claim name the checker owns a template here and fills it from the data it is
about to decide (the parameters, the set of points or sizes quantified over, the digits
of the enclosures).  :func:`qtheory.verify.check_certificate` fails a certificate whose
stored statement differs from :func:`render` of its data, and the producers
(``qtheory reproduce``, the certified routes) store exactly this rendering.  The
statements are LaTeX text with inline mathematics.

A set is shown by its distinct values in the order of the data, all of them when there
are at most :data:`SHOWN` and else the first two, the last and their number; the data
itself holds every element, so the statement never says more than the certificate.

Examples
--------
>>> data = {"service_rate": "1", "precision_bits": 128,
...         "points": [["1/100", "inf"], ["1/2", "inf"], ["1/2", "2"]]}
>>> print(render("gated.dominance", data))  # doctest: +NORMALIZE_WHITESPACE
At each of the 3 points $(\lambda/\mu, \Lambda)$ listed in the certificate
($\lambda/\mu \in \{1/100, 1/2\}$, $\Lambda \in \{\infty, 2\}$, $\mu = 1$), at equal
throughput $\lambda$ GA's root is below RR's load, $\sigma_{\mathrm{GA}} < \lambda/\mu$,
so GA's sojourn time is stochastically smaller
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from qtheory.verify import CertificateError

__all__ = ["SHOWN", "TEMPLATES", "certificate", "render"]

#: A set with at most this many distinct values is shown in full.
SHOWN = 6


def _value(text) -> str:
    return r"\infty" if text == "inf" else str(text)


def _distinct(values: Sequence) -> list[str]:
    return list(dict.fromkeys(_value(v) for v in values))


def _member(symbol: str, values: Sequence) -> str:
    r"""``$x = a$`` for one distinct value; ``$x \in \{a, b, c\}$`` for at most
    :data:`SHOWN`; else ``$x \in \{a, b, \dots, z\}$ (n values)``."""
    distinct = _distinct(values)
    if len(distinct) == 1:
        return f"${symbol} = {distinct[0]}$"
    if len(distinct) <= SHOWN:
        return f"${symbol} \\in \\{{{', '.join(distinct)}\\}}$"
    head = ", ".join(distinct[:2])
    return f"${symbol} \\in \\{{{head}, \\dots, {distinct[-1]}\\}}$ ({len(distinct)} values)"


def _points(data: Mapping) -> list[Mapping]:
    points = data["points"]
    if not isinstance(points, list) or not points:
        raise CertificateError("the certificate lists no points")
    return [p["parameters"] for p in points]


def _queue_sets(parameters: list[Mapping]) -> str:
    """The parameter sets of a list of gated queues (Λ, μ, R, C)."""
    return ", ".join(
        _member(symbol, [p[key] for p in parameters])
        for symbol, key in (
            (r"\Lambda", "arrival_rate"),
            (r"\mu", "service_rate"),
            ("R", "reward"),
            ("C", "cost"),
        )
    )


def _each_queue(data: Mapping) -> str:
    parameters = _points(data)
    return (
        f"At each of the {len(parameters)} points $(\\Lambda, \\mu, R, C)$ listed in the "
        f"certificate ({_queue_sets(parameters)})"
    )


def _digits(values: Sequence) -> str:
    distinct = sorted(set(values))
    if len(distinct) == 1:
        return f"{distinct[0]} significant digits"
    return f"{distinct[0]} to {distinct[-1]} significant digits"


def _dominance(data: Mapping) -> str:
    points = data["points"]
    if not isinstance(points, list) or not points:
        raise CertificateError("the certificate lists no points")
    loads = _member(r"\lambda/\mu", [p[0] for p in points])
    arrivals = _member(r"\Lambda", [p[1] for p in points])
    rate = _member(r"\mu", [data["service_rate"]])
    return (
        f"At each of the {len(points)} points $(\\lambda/\\mu, \\Lambda)$ listed in the "
        f"certificate ({loads}, {arrivals}, {rate}), at equal throughput $\\lambda$ GA's root "
        r"is below RR's load, $\sigma_{\mathrm{GA}} < \lambda/\mu$, so GA's sojourn time is "
        "stochastically smaller"
    )


_OPTIMUM = (
    r"$S_{\mathrm{GA}}(\tau)$ has a unique maximiser $\tau^*$ over $\tau \ge 0$, and "
    r"$\sigma^*$, $\tau^*$, the throughput, $S_{\mathrm{GA}}^*$, $\lambda^*$, "
    r"$S_{\mathrm{RR}}^*$ and $\mathrm{PoF}$ lie in the certificate's intervals"
)


def _optimum(data: Mapping) -> str:
    queue = _queue_sets([data["parameters"]])
    return f"At {queue}, {_OPTIMUM} ({_digits([data['dps']])})"


#: The cost of each family certified by ``gated.cost_optimum`` ((kind, family) -> LaTeX).
_COSTS = {
    ("sojourn", "power"): r"each admitted customer pays $C W^{{{p}}}$ for its sojourn $W$",
    ("sojourn", "exponential"): (
        r"each admitted customer pays $C(e^{{\theta W}} - 1)/\theta$, $\theta = {p}$, for "
        r"its sojourn $W$"
    ),
    ("holding", "power"): r"the holding cost is $C n^{{{p}}}$ per unit time with $n$ present",
}


def _cost_optimum(data: Mapping) -> str:
    cost = data["cost"]
    template = _COSTS.get((cost["kind"], cost["family"]), "the cost is {kind} {family}:{p}")
    where = template.format(p=_value(cost["shape"]), kind=cost["kind"], family=cost["family"])
    queue = _queue_sets([data["parameters"]])
    return f"At {queue}, where {where}, {_OPTIMUM} ({_digits([data['dps']])})"


def _optima(data: Mapping) -> str:
    digits = _digits([p["dps"] for p in data["points"]])
    return f"{_each_queue(data)}, {_OPTIMUM} ({digits})"


def _pof_grid(data: Mapping) -> str:
    return (
        f"{_each_queue(data)}, memory does not hurt: "
        r"$\mathrm{PoF} = S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^* \ge 1$ "
        "(equality when both rules admit everybody)"
    )


def _asymptotics(data: Mapping) -> str:
    constant = _value(data["constant"])
    if data["regime"] == "light":
        bound = (
            r"$|\mathrm{PoF}\,\varepsilon\log(1/\varepsilon)/4 - 1| \le "
            rf"{constant}\,\log\log(1/\varepsilon)/\log(1/\varepsilon)$, "
            r"$\varepsilon = \nu - 1$"
        )
    elif data["regime"] == "heavy":
        bound = (
            rf"$|(\mathrm{{PoF}} - 1)\sqrt{{\nu}}/(2(1-\sqrt{{\gamma}})) - 1| \le {constant}\,"
            r"\nu^{-1/2}$, $\gamma = (1 + \mu^2/\Lambda^2)/2$"
        )
    else:
        raise CertificateError(f"regime must be 'light' or 'heavy', got {data['regime']!r}")
    return f"{_each_queue(data)}, with $\\nu = R\\mu/C$: {bound}"


def _range(regime: str, pair) -> str:
    symbol = r"\varepsilon = \nu - 1" if regime == "light" else r"\nu"
    return f"${symbol} \\in [{_value(pair[0])}, {_value(pair[1])}]$"


def _rates_of(parameters: Mapping) -> str:
    return ", ".join(
        f"${symbol} = {_value(parameters[key])}$"
        for symbol, key in ((r"\Lambda", "arrival_rate"), (r"\mu", "service_rate"), ("C", "cost"))
    )


def _remainder_region(data: Mapping) -> str:
    regime, constant = data["regime"], _value(data["constant"])
    regions = data["regions"]
    if not isinstance(regions, list) or not regions:
        raise CertificateError("the certificate lists no regions")
    if regime == "light":
        bound = (
            r"$|\mathrm{PoF}\,\varepsilon\log(1/\varepsilon)/4 - 1| \le "
            rf"{constant}\,\log\log(1/\varepsilon)/\log(1/\varepsilon)$"
        )
    elif regime == "heavy":
        bound = (
            rf"$|(\mathrm{{PoF}} - 1)\sqrt{{\nu}}/(2(1-\sqrt{{\gamma}})) - 1| \le {constant}\,"
            r"\nu^{-1/2}$, $\gamma = (1 + \mu^2/\Lambda^2)/2$"
        )
    else:
        raise CertificateError(f"regime must be 'light' or 'heavy', got {regime!r}")
    parts = [f"{_range(regime, r['range'])} at {_rates_of(r['parameters'])}" for r in regions]
    boxes = sum(len(r["boxes"]) for r in regions)
    return (
        f"For every {'; and for every '.join(parts)}: {bound} "
        f"(proved on the {boxes} boxes of the certificate, which tile each range)"
    )


def _rates(data: Mapping) -> str:
    symbols = (
        (r"\lambda_H", "lambda_h"),
        (r"\lambda_L", "lambda_l"),
        (r"\mu", "mu"),
        ("r_H", "r_h"),
        ("r_L", "r_l"),
    )
    return ", ".join(f"${s} = {_value(data[k])}$" for s, k in symbols if k in data)


def _fluid(data: Mapping) -> str:
    vector = lambda key: "(" + ", ".join(map(_value, data[key])) + ")"  # noqa: E731
    closed = (
        r", which is the closed form $N[r_H\lambda_H + r_L(\mu - \lambda_H)]$"
        if data.get("closed_form")
        else ""
    )
    return (
        f"At $N = {_value(data['servers'])}$, arrival rates {vector('arrival_rates')}, "
        f"service rates {vector('service_rates')} and rewards {vector('rewards')} per server, "
        r"the fluid LP $N\max\{\sum_j r_j x_j : \sum_j x_j/\mu_j \le 1,\ "
        r"0 \le x_j \le \lambda_j\}$ has optimum "
        f"$R_{{\\mathrm{{fluid}}}} = {_value(data['value'])}${closed}, proved by the exact "
        "primal and dual solutions of the certificate"
    )


_ONLINE = (
    r"trunk reservation with the reserve $k^*$ of the certificate is optimal among all "
    r"admission policies and is the only optimal reserve, and $R_{\mathrm{on}}$ and "
    r"$R_{\mathrm{fluid}} - R_{\mathrm{on}}$ lie in the certificate's intervals"
)


def _online(data: Mapping) -> str:
    cases = data["cases"] if "cases" in data else [data]
    if not isinstance(cases, list) or not cases:
        raise CertificateError("the certificate lists no cases")
    sizes = [c["servers"] for c in cases]
    rates = ", ".join(
        _member(symbol, [c[key] for c in cases])
        for symbol, key in (
            (r"\lambda_H", "lambda_h"),
            (r"\lambda_L", "lambda_l"),
            (r"\mu", "mu"),
            ("r_H", "r_h"),
            ("r_L", "r_l"),
        )
    )
    where = (
        f"At $N = {sizes[0]}$"
        if len(cases) == 1
        else f"For each of the {len(cases)} values of $N$ listed in the certificate "
        f"({_member('N', sizes)})"
    )
    digits = _digits([c["dps"] for c in cases])
    return f"{where} ({rates}), {_ONLINE} ({digits})"


def _optimality(data: Mapping) -> str:
    return (
        f"At $N = {data['servers']}$, {_rates(data)}, trunk reservation with reserve "
        f"$k^* = {data['reserve']}$ (admit L only while more than $k^*$ servers are idle) is "
        "optimal among all admission policies and is the only optimal reserve: its exact "
        r"gain $g = R_{\mathrm{on}}$ and bias $h$ satisfy the average-reward optimality "
        "equations, with strict inequality for the other L action in every state; "
        r"$R_{\mathrm{on}}$ lies in the certificate's interval (20 significant digits)"
    )


def _bounds(data: Mapping) -> str:
    items = data["items"]
    if not isinstance(items, list) or not items:
        raise CertificateError("the certificate lists no items")
    families = list(dict.fromkeys(str(i["family"]) for i in items))
    counts = ", ".join(f"{sum(i['family'] == f for i in items)} {f}" for f in families)
    sizes = [i["N"] for i in items]
    return (
        f"Each of the {len(items)} bounds listed in the certificate ({counts}; "
        f"{_member('N', sizes)}) lies on its side of the exact value it bounds for the "
        f"idle process of the loss network with {_rates(data)} (upper bounds $\\ge$ the "
        r"exact value, lower bounds $\le$), both sides enclosed in ball arithmetic at the "
        "exact parameters (enclosures to 12 significant digits)"
    )


def _sss(data: Mapping) -> str:
    items = data["items"]
    if not isinstance(items, list) or not items:
        raise CertificateError("the certificate lists no items")
    pairs = ", ".join(f"({i['N']}, {i['c']})" for i in items)
    return (
        r"The SSS failure bound $B_1$ lies above the exact failure probability "
        r"$\varepsilon_h$ after an admission that leaves $h$ servers idle, for every "
        r"$h = 1, \dots, b-1$, with window $W = c\log N/N$, at each of the "
        f"{len(items)} pairs $(N, c)$ listed in the certificate: {pairs} ({_rates(data)}; "
        "both sides enclosed in ball arithmetic, to 12 significant digits)"
    )


def _pof_region(data: Mapping) -> str:
    box = data["box"]
    symbols = (
        (r"\Lambda", "arrival_rate"),
        (r"\mu", "service_rate"),
        ("R", "reward"),
        ("C", "cost"),
    )
    ranges = ", ".join(
        f"${s} = {_value(box[k][0])}$"
        if box[k][0] == box[k][1]
        else f"${s} \\in [{_value(box[k][0])}, {_value(box[k][1])}]$"
        for s, k in symbols
    )
    return (
        f"For every point of the box {ranges} (where $\\nu = R\\mu/C > 1$ throughout), "
        r"$\mathrm{PoF} = S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^* \ge 1$, by the dominance "
        r"identity $e^{a}(1+b) - (1+a+b) = (e^{a} - 1 - a)(1+b) + ab$ at RR's optimal rate "
        "(an identity for all parameters; the certificate is the box)"
    )


#: claim name -> the function that renders its statement from the data.
TEMPLATES: dict[str, Callable[[Mapping], str]] = {
    "gated.dominance": _dominance,
    "gated.optimal_gate": _optima,
    "gated.pof_at_least_one": _pof_grid,
    "gated.pof_heavy_rate": _remainder_region,
    "gated.pof_light_rate": _remainder_region,
    "lossnet.fluid": _fluid,
    "lossnet.online_optimum": _online,
    "lossnet.trunk_reservation": _optimality,
    "walks.bounds": _bounds,
    "walks.sss_failure_bound": _sss,
    "gated.optimum": _optimum,
    "gated.cost_optimum": _cost_optimum,
    "gated.asymptotics": _asymptotics,
    "gated.pof_grid": _pof_grid,
    "gated.pof_region": _pof_region,
    "gated.dominance_grid": _dominance,
    "gated.remainder_region": _remainder_region,
    "walks.bound_items": _bounds,
    "lossnet.fluid_lp": _fluid,
    "lossnet.online": _online,
    "lossnet.optimality": _optimality,
}


def render(name: str, data: Mapping) -> str:
    """The statement of claim ``name`` about ``data``.

    Parameters
    ----------
    name : str
        A claim name of :data:`TEMPLATES`.
    data : mapping
        The certificate's data.

    Returns
    -------
    str

    Raises
    ------
    CertificateError
        If the name has no template or the data lacks what the statement needs.

    Examples
    --------
    >>> render("demo", {})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: no statement template for the claim 'demo'
    """
    template = TEMPLATES.get(name)
    if template is None:
        raise CertificateError(f"no statement template for the claim {name!r}")
    try:
        return template(data)
    except (KeyError, TypeError, IndexError, AttributeError) as error:
        raise CertificateError(
            f"the data lacks what the statement needs ({type(error).__name__}: {error})"
        ) from None


def certificate(name: str, checker: str, data: Mapping) -> dict:
    """A certificate of claim ``name``: its checker, data and rendered statement.

    Parameters
    ----------
    name, checker : str
    data : mapping

    Returns
    -------
    dict
        ``{"claim", "statement", "checker", "data"}``.

    Examples
    --------
    >>> data = {"service_rate": "1", "precision_bits": 64, "points": [["1/2", "inf"]]}
    >>> sorted(certificate("gated.dominance", "gated.dominance", data))
    ['checker', 'claim', 'data', 'statement']
    """
    return {"claim": name, "statement": render(name, data), "checker": checker, "data": data}
